// A device's queue of pending deallocations, as numba-cuda's `_PendingDeallocs`: memory whose
// last reference went is freed in batches, not at once, because freeing device memory
// (cuMemFree) waits for the device. The queue is flushed once it holds more than
// `max_count()` items or more than `ratio()` of the device's memory, when an allocation
// fails for lack of memory, and on request (`clear`); `disable` (cuda.defer_cleanup())
// holds every release back until as many `enable` calls have come.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace cudajit::runtime {

class Allocation;

class PendingDeallocations {
 public:
  // `capacity` gives the device's total memory (asked once, at the first release).
  explicit PendingDeallocations(std::function<uint64_t()> capacity);
  ~PendingDeallocations();
  PendingDeallocations(const PendingDeallocations&) = delete;
  PendingDeallocations& operator=(const PendingDeallocations&) = delete;

  // `allocation` as a shared_ptr whose last reference queues it here instead of freeing it.
  std::shared_ptr<Allocation> adopt(std::unique_ptr<Allocation> allocation);
  // Queue a release; flush when the queue is over its limits (and not disabled).
  void add(std::unique_ptr<Allocation> allocation);
  // Free everything queued unless disabled; returns the number of allocations freed.
  size_t clear();
  void disable();
  void enable();  // std::logic_error without a disable() to end
  bool disabled() const;
  size_t count() const;
  uint64_t bytes() const;        // of the queued allocations
  uint64_t max_pending_bytes();  // floor(capacity * ratio())
  uint64_t capacity();

  // The limits, for every device (numba-cuda's CUDA_DEALLOCS_COUNT and CUDA_DEALLOCS_RATIO,
  // 10 and 0.2 by default).
  static size_t max_count();
  static double ratio();
  static void set_limits(size_t max_count, double ratio);  // std::invalid_argument if ratio < 0

 private:
  bool over_limits_locked();
  std::function<uint64_t()> capacity_fn_;
  std::atomic<uint64_t> capacity_{0};
  std::atomic<bool> capacity_known_{false};
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Allocation>> queue_;
  uint64_t bytes_ = 0;
  int disable_count_ = 0;
};

}  // namespace cudajit::runtime
