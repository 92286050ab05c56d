// The in-order work queue behind each cpu stream: a worker thread, started at
// the first task, runs the tasks one after the other.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>

namespace cudajit::runtime {

class CpuQueue;

// A point in a queue: reached once the task numbered `seq` has finished.
// An empty fence (no queue) is always reached.
struct Fence {
  std::shared_ptr<CpuQueue> queue;
  uint64_t seq = 0;

  explicit operator bool() const { return queue != nullptr; }
  void wait() const;
  bool reached() const;
};

// Shared by its stream and by the fences and tasks that refer to it, so it
// lives until its worker has drained it even after the stream is gone (as a
// destroyed CUDA stream finishes its work).
class CpuQueue : public std::enable_shared_from_this<CpuQueue> {
 public:
  CpuQueue() = default;
  CpuQueue(const CpuQueue&) = delete;
  CpuQueue& operator=(const CpuQueue&) = delete;

  // Appends `task` and returns its sequence number (1, 2, ...).
  uint64_t push(std::function<void()> task);
  // The fence of the last task pushed, or an empty fence when every task has finished.
  Fence pending_fence();
  void wait(uint64_t seq);
  bool reached(uint64_t seq);
  // Waits for every task pushed so far, then rethrows the first exception a
  // task threw since the last synchronize (as CUDA reports an asynchronous
  // error at the next synchronisation).
  void synchronize();
  bool idle();
  // No more tasks will come: the worker exits once the queue is drained.
  void stop();

 private:
  void run();  // the worker thread

  std::mutex mutex_;
  std::condition_variable wake_;      // a task was pushed, or stop()
  std::condition_variable progress_;  // a task finished
  std::deque<std::function<void()>> tasks_;
  // Changed under mutex_; atomic so that the waits spin on them without it (spin_briefly).
  std::atomic<uint64_t> pushed_ = 0, finished_ = 0;
  bool started_ = false, stopping_ = false;
  std::exception_ptr error_;
};

}  // namespace cudajit::runtime
