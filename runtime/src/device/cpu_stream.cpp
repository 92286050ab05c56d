// Streams of the cpu device and the order between them.
//
// CUDA's legacy default stream rules hold: work queued on the legacy default
// stream waits for the work queued before it on every other stream of the
// device (all of ours are blocking streams, the per-thread default ones too),
// and work queued on any other stream waits for the work queued before it on
// the legacy default stream. One mutex orders the queuing, so "before" is one
// order for the whole device and the waits never form a cycle.
#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "cpu_device.hpp"
#include "cudajit/runtime/fork.hpp"
#include "cudajit/runtime/interrupt.hpp"

namespace cudajit::runtime {

CpuStream::CpuStream(CpuDevice& device, uintptr_t handle)
    : device_(device), handle_(handle), queue_(std::make_shared<CpuQueue>()) {}

CpuStream::~CpuStream() { queue_->stop(); }

Device& CpuStream::device() const { return device_; }

void CpuStream::wait(Event& event) {
  std::shared_ptr<EventRecord> record = device_.own(event).current_record();
  if (!record || record->done()) return;  // never recorded, or already reached
  device_.enqueue(*this, [record] { record->wait(); });
}

void CpuStream::enqueue_host(std::function<void()> fn) { device_.enqueue(*this, std::move(fn)); }

void CpuDevice::enqueue(CpuStream& stream, std::function<void()> task) {
  check_not_forked();  // the queue's worker thread is the parent's
  std::lock_guard lock(order_mutex_);
  std::vector<Fence> after = legacy_dependencies(stream);
  if (!after.empty()) {
    task = [after = std::move(after), task = std::move(task)] {
      for (const Fence& fence : after) fence.wait();
      task();
    };
  }
  stream.queue()->push(std::move(task));
}

std::vector<Fence> CpuDevice::legacy_dependencies(const CpuStream& stream) {
  std::vector<Fence> after;
  if (!stream.is_legacy()) {
    if (Fence fence = legacy_->queue()->pending_fence()) after.push_back(std::move(fence));
    return after;
  }
  std::erase_if(queues_, [&](const std::weak_ptr<CpuQueue>& weak) {
    std::shared_ptr<CpuQueue> queue = weak.lock();
    if (!queue) return true;  // its stream is gone and its work is done
    if (Fence fence = queue->pending_fence()) after.push_back(std::move(fence));
    return false;
  });
  return after;
}

std::shared_ptr<CpuStream> CpuDevice::make_stream(uintptr_t handle) {
  auto stream = std::make_shared<CpuStream>(*this, handle);
  if (handle != kLegacyStreamHandle) {
    std::lock_guard lock(order_mutex_);
    std::erase_if(queues_, [](const auto& weak) { return weak.expired(); });
    queues_.push_back(stream->queue());
  }
  return stream;
}

std::shared_ptr<Stream> CpuDevice::create_stream() {
  uintptr_t handle;
  {
    std::lock_guard lock(order_mutex_);
    handle = next_handle_++;
    std::erase_if(created_, [](const auto& entry) { return entry.second.expired(); });
  }
  std::shared_ptr<CpuStream> stream = make_stream(handle);
  std::lock_guard lock(order_mutex_);
  created_[handle] = stream;
  return stream;
}

std::shared_ptr<Stream> CpuDevice::per_thread_default_stream() {
  // One cpu device per process, so one per-thread stream per thread; it goes
  // (its work still finishing) when the thread exits.
  thread_local std::shared_ptr<CpuStream> stream;
  if (!stream) stream = make_stream(kPerThreadStreamHandle);
  return stream;
}

std::shared_ptr<Stream> CpuDevice::external_stream(uintptr_t handle) {
  if (handle == kLegacyStreamHandle || handle == kLegacyStreamAlias) return legacy_;
  if (handle == kPerThreadStreamHandle) return per_thread_default_stream();
  {
    std::lock_guard lock(order_mutex_);
    auto found = created_.find(handle);
    if (found != created_.end()) {
      if (std::shared_ptr<CpuStream> stream = found->second.lock()) return stream;
    }
  }
  std::ostringstream message;
  message << "no stream of the cpu device has handle 0x" << std::hex << handle
          << "; the cpu device takes only its own streams: 0 or 1 (legacy default), "
             "2 (per-thread default) or the handle of a live stream it created";
  throw std::invalid_argument(message.str());
}

void CpuDevice::synchronize() {
  check_not_forked();
  std::vector<std::shared_ptr<CpuQueue>> queues{legacy_->queue()};
  {
    std::lock_guard lock(order_mutex_);
    for (const auto& weak : queues_) {
      if (auto queue = weak.lock()) queues.push_back(std::move(queue));
    }
  }
  // Waits for every queue even if one reports an error; the first error is rethrown.
  std::exception_ptr first_error;
  for (const auto& queue : queues) {
    try {
      queue->synchronize();
    } catch (const Interrupted&) {
      throw;  // Ctrl-C: no more waiting
    } catch (...) {
      if (!first_error) first_error = std::current_exception();
    }
  }
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace cudajit::runtime
