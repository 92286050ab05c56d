// The pending deallocations of a device (see deallocations.hpp). Allocations are freed
// outside the queue's lock: freeing may take the device's own locks (the cpu device's
// range table), and a release may come from any thread (a stream's worker, a sweep).
#include "cudajit/runtime/deallocations.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "cudajit/runtime/device.hpp"

namespace cudajit::runtime {

namespace {

std::atomic<size_t> g_max_count{10};
std::atomic<double> g_ratio{0.2};

}  // namespace

PendingDeallocations::PendingDeallocations(std::function<uint64_t()> capacity)
    : capacity_fn_(std::move(capacity)) {}

PendingDeallocations::~PendingDeallocations() = default;

size_t PendingDeallocations::max_count() { return g_max_count.load(); }
double PendingDeallocations::ratio() { return g_ratio.load(); }

void PendingDeallocations::set_limits(size_t max_count, double ratio) {
  if (!(ratio >= 0) || !std::isfinite(ratio))
    throw std::invalid_argument(
        "the pending deallocations' ratio of the device's memory must "
        "be a finite number >= 0, got " +
        std::to_string(ratio));
  g_max_count.store(max_count);
  g_ratio.store(ratio);
}

uint64_t PendingDeallocations::capacity() {
  if (!capacity_known_.load()) {
    capacity_.store(capacity_fn_());
    capacity_known_.store(true);
  }
  return capacity_.load();
}

uint64_t PendingDeallocations::max_pending_bytes() {
  return static_cast<uint64_t>(std::floor(static_cast<double>(capacity()) * ratio()));
}

std::shared_ptr<Allocation> PendingDeallocations::adopt(std::unique_ptr<Allocation> allocation) {
  Allocation* raw = allocation.release();
  return std::shared_ptr<Allocation>(
      raw, [this](Allocation* dead) { add(std::unique_ptr<Allocation>(dead)); });
}

bool PendingDeallocations::over_limits_locked() {
  return queue_.size() > max_count() || bytes_ > max_pending_bytes();
}

void PendingDeallocations::add(std::unique_ptr<Allocation> allocation) {
  if (!allocation) return;
  uint64_t size = allocation->size();
  capacity();  // outside the lock: the first call asks the device
  bool flush = false;
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(allocation));
    bytes_ += size;
    flush = disable_count_ == 0 && over_limits_locked();
  }
  if (flush) clear();
}

size_t PendingDeallocations::clear() {
  std::vector<std::unique_ptr<Allocation>> freed;
  {
    std::lock_guard lock(mutex_);
    if (disable_count_ > 0) return 0;
    freed.swap(queue_);
    bytes_ = 0;
  }
  return freed.size();  // `freed`'s destructor frees the memory, outside the lock
}

void PendingDeallocations::disable() {
  std::lock_guard lock(mutex_);
  ++disable_count_;
}

void PendingDeallocations::enable() {
  std::lock_guard lock(mutex_);
  if (disable_count_ == 0)
    throw std::logic_error("pending deallocations enabled more often than disabled");
  --disable_count_;
}

bool PendingDeallocations::disabled() const {
  std::lock_guard lock(mutex_);
  return disable_count_ > 0;
}

size_t PendingDeallocations::count() const {
  std::lock_guard lock(mutex_);
  return queue_.size();
}

uint64_t PendingDeallocations::bytes() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

std::shared_ptr<Allocation> Device::queued_allocation(
    const std::function<std::unique_ptr<Allocation>()>& make) {
  try {
    return deallocations_.adopt(make());
  } catch (const OutOfMemory&) {
    if (deallocations_.clear() == 0) throw;
  } catch (const DriverError& error) {
    constexpr int kOutOfMemory = 2;  // CUDA_ERROR_OUT_OF_MEMORY
    if (error.code() != kOutOfMemory || deallocations_.clear() == 0) throw;
  }
  return deallocations_.adopt(make());
}

}  // namespace cudajit::runtime
