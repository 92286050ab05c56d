// Address translation and checking shared by loads, stores and atomics.
#pragma once

#include <cinttypes>
#include <cstdio>

#include "../warp.hpp"

namespace cudajit::sim {

inline std::string hex(uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%" PRIx64, value);
  return text;
}

inline void check_alignment(Warp& warp, const Inst& inst, int lane, uint64_t address,
                            uint64_t size) {
  // Vectors and scalars alike must be aligned to their whole size.
  if (address & (size - 1))
    warp.fault(Fault::MisalignedAddress, inst, lane,
               std::to_string(size) + "-byte access at " + hex(address));
}

inline uint8_t* global_address(Warp& warp, const Inst& inst, int lane, uint64_t address,
                               uint64_t size) {
  if (!warp.cached_range.contains(address, size)) {
    Range range = warp.launch->memory->find(address, size);
    if (range.end == 0)
      warp.fault(Fault::IllegalAddress, inst, lane,
                 std::to_string(size) + "-byte access at " + hex(address) + ", " +
                     warp.launch->memory->describe_miss(address));
    warp.cached_range = range;
  }
  check_alignment(warp, inst, lane, address, size);
  return reinterpret_cast<uint8_t*>(uintptr_t(address));
}

inline uint8_t* shared_address(Warp& warp, const Inst& inst, int lane, uint64_t offset,
                               uint64_t size) {
  auto& shared = warp.block->shared;
  if (offset > shared.size() || size > shared.size() - offset)
    warp.fault(Fault::IllegalAddress, inst, lane,
               std::to_string(size) + "-byte shared access at offset " + std::to_string(offset) +
                   ", the block has " + std::to_string(shared.size()) + " bytes");
  check_alignment(warp, inst, lane, offset, size);
  return shared.data() + offset;
}

inline uint8_t* local_address(Warp& warp, const Inst& inst, int lane, uint64_t offset,
                              uint64_t size) {
  if (offset > warp.local_stride || size > warp.local_stride - offset)
    warp.fault(Fault::IllegalAddress, inst, lane,
               std::to_string(size) + "-byte local access at offset " + std::to_string(offset) +
                   ", the thread has " + std::to_string(warp.local_stride) + " bytes");
  check_alignment(warp, inst, lane, offset, size);
  return warp.local.data() + lane * warp.local_stride + offset;
}

inline uint8_t* generic_address(Warp& warp, const Inst& inst, int lane, uint64_t address,
                                uint64_t size) {
  switch (address & kWindowMask) {
    case 0:
      return global_address(warp, inst, lane, address, size);
    case kSharedWindow:
      return shared_address(warp, inst, lane, address - kSharedWindow, size);
    case kLocalWindow:
      return local_address(warp, inst, lane, address - kLocalWindow, size);
    case kFunctionWindow:
      warp.fault(Fault::IllegalAddress, inst, lane,
                 std::to_string(size) + "-byte access at " + hex(address) +
                     ", the address of a function, which holds no data");
  }
  warp.fault(Fault::IllegalAddress, inst, lane,
             std::to_string(size) + "-byte access at " + hex(address) +
                 ", not an address of any state space");
}

}  // namespace cudajit::sim
