// The device's heap: what kernels' malloc and free (the driver's functions that PTX declares
// and calls, as NVVM does for numba-cuda's runtime, NRT) allocate from. As on hardware, one
// arena of the context's CU_LIMIT_MALLOC_HEAP_SIZE bytes (8 MiB by default), fixed once a
// kernel has allocated from it; malloc returns NULL when no block of it is free. Each
// allocation is a range of the context's global memory while it lives, so accesses past it
// fault; the arena stays until the context ends, so a freed block is never host memory that
// another part of the process owns.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include "memory.hpp"

namespace cudajit::sim {

class DeviceHeap {
 public:
  explicit DeviceHeap(GlobalMemory& memory) : memory_(memory) {}
  ~DeviceHeap();
  DeviceHeap(const DeviceHeap&) = delete;
  DeviceHeap& operator=(const DeviceHeap&) = delete;

  // The arena's size for when it is made (at the first malloc); ignored once it exists.
  void set_size(uint64_t bytes);
  // A 16-byte aligned block of `bytes`, or 0 when the heap has none free (malloc's NULL).
  uint64_t allocate(uint64_t bytes);
  // Frees a block allocate() returned (0 does nothing); false when `address` is not one.
  bool release(uint64_t address);

 private:
  static constexpr uint64_t kAlign = 16;
  GlobalMemory& memory_;
  std::mutex mutex_;
  uint64_t size_ = 8ull << 20;
  std::unique_ptr<uint8_t[]> arena_;
  uint64_t base_ = 0;                         // the arena's first aligned address
  std::map<uint64_t, uint64_t> free_, used_;  // offset -> bytes
};

}  // namespace cudajit::sim
