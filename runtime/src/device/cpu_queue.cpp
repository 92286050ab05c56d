#include "cpu_queue.hpp"

#include <chrono>
#include <thread>
#include <utility>

#include "cudajit/runtime/fork.hpp"
#include "cudajit/runtime/interrupt.hpp"

namespace cudajit::runtime {

namespace {

// How long a wait for the queue spins before it sleeps on its condition variable, whose
// wake-up costs 15-20 us on this project's VM: twice in a launch and synchronize of a small
// kernel (44 us for a 1x32 one, of which the launch is 2.4 us and the kernel less). CUDA's
// default synchronisation spins too, where there are more cores than GPUs.
constexpr std::chrono::microseconds kSpin(50);

// Whether `ready()` became true within kSpin, polled without sleeping (yielding the core
// between bursts, so that a thread the caller waits for can run on it).
template <class Ready>
bool spin_briefly(Ready ready) {
  using Clock = std::chrono::steady_clock;
  const auto until = Clock::now() + kSpin;
  do {
    for (int i = 0; i < 64; ++i) {
      if (ready()) return true;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    std::this_thread::yield();
  } while (Clock::now() < until);
  return ready();
}

}  // namespace

void Fence::wait() const {
  if (queue) queue->wait(seq);
}

bool Fence::reached() const { return !queue || queue->reached(seq); }

uint64_t CpuQueue::push(std::function<void()> task) {
  std::unique_lock lock(mutex_);
  tasks_.push_back(std::move(task));
  if (!started_) {
    try {
      // Detached, holding the queue: it drains whatever is queued when the
      // stream goes, and nothing has to join it at exit.
      std::thread([self = shared_from_this()] { self->run(); }).detach();
    } catch (...) {
      tasks_.pop_back();  // no thread: the task was never queued
      throw;
    }
    started_ = true;
  }
  uint64_t seq = ++pushed_;
  lock.unlock();
  wake_.notify_one();
  return seq;
}

Fence CpuQueue::pending_fence() {
  std::lock_guard lock(mutex_);
  if (finished_ == pushed_) return {};
  return {shared_from_this(), pushed_};
}

void CpuQueue::wait(uint64_t seq) {
  check_not_forked();  // no thread of this process runs the queue
  if (spin_briefly([&] { return finished_.load(std::memory_order_acquire) >= seq; })) return;
  std::unique_lock lock(mutex_);
  wait_interruptibly(progress_, lock, [&] { return finished_ >= seq; });
}

bool CpuQueue::reached(uint64_t seq) {
  std::lock_guard lock(mutex_);
  return finished_ >= seq;
}

void CpuQueue::synchronize() {
  check_not_forked();
  const uint64_t target = pushed_.load();
  spin_briefly([&] { return finished_.load(std::memory_order_acquire) >= target; });
  std::unique_lock lock(mutex_);
  wait_interruptibly(progress_, lock, [&] { return finished_ >= target; });
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

bool CpuQueue::idle() {
  std::lock_guard lock(mutex_);
  return finished_ == pushed_;
}

void CpuQueue::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
}

void CpuQueue::run() {
  std::unique_lock lock(mutex_);
  uint64_t taken = 0;  // tasks popped
  for (;;) {
    if (tasks_.empty() && !stopping_) {  // the next launch often follows at once
      lock.unlock();
      spin_briefly([&] { return pushed_.load(std::memory_order_acquire) != taken; });
      lock.lock();
    }
    wake_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
    if (tasks_.empty()) return;  // stopping and drained
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    ++taken;
    lock.unlock();
    std::exception_ptr error;
    try {
      task();
    } catch (...) {
      error = std::current_exception();
    }
    // Dropped before the task counts as finished, so what it kept alive is
    // released by the time a synchronize returns.
    task = nullptr;
    lock.lock();
    if (error && !error_) error_ = error;
    ++finished_;
    progress_.notify_all();
  }
}

}  // namespace cudajit::runtime
