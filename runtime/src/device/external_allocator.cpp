// A device's external allocator of device memory (numba's External Memory Management
// plugins, through the Python binding): see Device::set_device_allocator.
#include "cudajit/runtime/device.hpp"

namespace cudajit::runtime {

void Device::set_device_allocator(DeviceAllocator allocator) {
  std::lock_guard lock(allocator_mutex_);
  device_allocator_ = std::move(allocator);
}

bool Device::has_device_allocator() const {
  std::lock_guard lock(allocator_mutex_);
  return static_cast<bool>(device_allocator_);
}

std::shared_ptr<Allocation> Device::external_allocation(size_t bytes, MemoryKind kind) {
  if (kind != MemoryKind::Device || bytes == 0) return nullptr;
  DeviceAllocator allocator;
  {
    std::lock_guard lock(allocator_mutex_);
    allocator = device_allocator_;  // a copy: the allocator may call back into this device
  }
  if (!allocator) return nullptr;
  return allocator(*this, bytes);
}

}  // namespace cudajit::runtime
