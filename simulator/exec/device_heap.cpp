#include "device_heap.hpp"

#include <algorithm>
#include <iterator>

namespace cudajit::sim {

DeviceHeap::~DeviceHeap() {
  for (const auto& [offset, bytes] : used_) memory_.remove(base_ + offset);
}

void DeviceHeap::set_size(uint64_t bytes) {
  std::lock_guard lock(mutex_);
  if (!arena_) size_ = bytes / kAlign * kAlign;
}

uint64_t DeviceHeap::allocate(uint64_t bytes) {
  std::lock_guard lock(mutex_);
  if (!arena_) {
    if (size_ == 0) return 0;
    arena_ = std::make_unique<uint8_t[]>(size_ + kAlign);
    base_ = (uint64_t(uintptr_t(arena_.get())) + kAlign - 1) / kAlign * kAlign;
    free_[0] = size_;
  }
  // malloc(0) returns a distinct pointer here (C allows either it or NULL).
  const uint64_t rounded = (std::max<uint64_t>(bytes, 1) + kAlign - 1) / kAlign * kAlign;
  if (rounded < bytes) return 0;                            // wrapped: more than any heap holds
  for (auto it = free_.begin(); it != free_.end(); ++it) {  // first fit
    if (it->second < rounded) continue;
    const uint64_t offset = it->first, left = it->second - rounded;
    free_.erase(it);
    if (left) free_[offset + rounded] = left;
    used_[offset] = rounded;
    memory_.add(base_ + offset, bytes, "a block of the device heap (malloc)");
    return base_ + offset;
  }
  return 0;
}

bool DeviceHeap::release(uint64_t address) {
  if (address == 0) return true;
  std::lock_guard lock(mutex_);
  if (!arena_ || address < base_) return false;
  auto it = used_.find(address - base_);
  if (it == used_.end()) return false;
  auto [offset, bytes] = *it;
  used_.erase(it);
  memory_.remove(address);
  // Back to the free blocks, merged with its neighbours.
  auto next = free_.lower_bound(offset);
  if (next != free_.end() && next->first == offset + bytes) {
    bytes += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto before = std::prev(next);
    if (before->first + before->second == offset) {
      before->second += bytes;
      return true;
    }
  }
  free_[offset] = bytes;
  return true;
}

}  // namespace cudajit::sim
