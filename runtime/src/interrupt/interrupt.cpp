#include "cudajit/runtime/interrupt.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

namespace cudajit::runtime {

namespace {

std::atomic<InterruptCheck> g_check{nullptr};
thread_local bool t_interruptible = false;
std::atomic<uint64_t> g_grid_epoch{0};

}  // namespace

void set_interrupt_check(InterruptCheck check) { g_check.store(check); }

InterruptibleWaits::InterruptibleWaits() : previous_(t_interruptible) { t_interruptible = true; }

InterruptibleWaits::~InterruptibleWaits() { t_interruptible = previous_; }

bool waits_interruptible() { return t_interruptible && g_check.load() != nullptr; }

void interruption_point() {
  if (!waits_interruptible()) return;
  if (!g_check.load()()) return;
  cancel_host_grids();
  throw Interrupted();
}

void poll_until(const std::function<bool()>& done) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  while (Clock::now() - start < std::chrono::microseconds(50))
    if (done()) return;
  auto pause = std::chrono::microseconds(20);
  auto last_check = Clock::now();
  while (!done()) {
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
    if (Clock::now() - last_check >= kInterruptPoll) {
      interruption_point();
      last_check = Clock::now();
    }
  }
}

uint64_t host_grid_epoch() { return g_grid_epoch.load(std::memory_order_relaxed); }

void cancel_host_grids() { g_grid_epoch.fetch_add(1, std::memory_order_relaxed); }

}  // namespace cudajit::runtime
