#include "cudajit/runtime/interrupt.hpp"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace cudajit::runtime {

namespace {

std::atomic<InterruptCheck> g_check{nullptr};
thread_local bool t_interruptible = false;
std::atomic<uint64_t> g_grid_epoch{0};

// The running grids' flags, and the other devices' abandoners. Never destroyed: stream threads
// may launch while static destructors run at exit.
struct AbandonRegistry {
  std::mutex mutex;
  std::vector<int32_t*> flags;  // of running grids
  std::vector<void (*)()> abandoners;
};

AbandonRegistry& registry() {
  static auto* instance = new AbandonRegistry;
  return *instance;
}

}  // namespace

void set_interrupt_check(InterruptCheck check) { g_check.store(check); }

InterruptibleWaits::InterruptibleWaits() : previous_(t_interruptible) { t_interruptible = true; }

InterruptibleWaits::~InterruptibleWaits() { t_interruptible = previous_; }

bool waits_interruptible() { return t_interruptible && g_check.load() != nullptr; }

void interruption_point() {
  if (!waits_interruptible()) return;
  if (!g_check.load()()) return;
  abandon_grids();
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

HostGridAbandonFlag::HostGridAbandonFlag(uint64_t epoch) {
  AbandonRegistry& r = registry();
  std::lock_guard lock(r.mutex);
  r.flags.push_back(&flag_);
  if (g_grid_epoch.load(std::memory_order_relaxed) != epoch)
    std::atomic_ref<int32_t>(flag_).store(1, std::memory_order_relaxed);
}

HostGridAbandonFlag::~HostGridAbandonFlag() {
  AbandonRegistry& r = registry();
  std::lock_guard lock(r.mutex);
  std::erase(r.flags, &flag_);
}

bool HostGridAbandonFlag::set() const {
  return std::atomic_ref<const int32_t>(flag_).load(std::memory_order_relaxed) != 0;
}

void cancel_host_grids() {
  AbandonRegistry& r = registry();
  std::lock_guard lock(r.mutex);  // a flag registered after this sees the new epoch
  g_grid_epoch.fetch_add(1, std::memory_order_relaxed);
  for (int32_t* flag : r.flags) std::atomic_ref<int32_t>(*flag).store(1, std::memory_order_relaxed);
}

void add_grid_abandoner(void (*abandon)()) {
  AbandonRegistry& r = registry();
  std::lock_guard lock(r.mutex);
  if (std::find(r.abandoners.begin(), r.abandoners.end(), abandon) == r.abandoners.end())
    r.abandoners.push_back(abandon);
}

void abandon_grids() {
  cancel_host_grids();
  std::vector<void (*)()> abandoners;
  {
    AbandonRegistry& r = registry();
    std::lock_guard lock(r.mutex);
    abandoners = r.abandoners;
  }
  for (auto abandon : abandoners) abandon();  // outside the lock: a driver call
}

}  // namespace cudajit::runtime
