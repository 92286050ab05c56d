#include "driver_functions.hpp"

#include "../device_heap.hpp"
#include "memory_access.hpp"
#include "printf.hpp"

namespace cudajit::sim {

namespace {

// A 64-bit argument where the caller put it (the driver's functions have no frame).
uint64_t argument(const Frame& caller, const ParamCopy& copy, int lane) {
  if (copy.from_place == ParamCopy::kConstant) return copy.from;
  if (copy.from_place == ParamCopy::kRegister)
    return caller.regs[size_t(copy.from) * kWarpSize + size_t(lane)];
  uint64_t value;
  std::memcpy(&value, caller.params.data() + lane * caller.function->param_bytes + copy.from, 8);
  return value;
}

void set_result(Frame& caller, const ParamCopy& copy, int lane, uint64_t value) {
  if (copy.to_place == ParamCopy::kRegister)
    caller.regs[size_t(copy.to) * kWarpSize + size_t(lane)] = value;
  else
    std::memcpy(caller.params.data() + lane * caller.function->param_bytes + copy.to, &value, 8);
}

void expect_signature(Warp& warp, const Inst& inst, const CallSite& site, uint32_t mask,
                      size_t results, const char* signature) {
  bool ok = site.arguments.size() == 1 && site.arguments[0].size == 8 &&
            site.results.size() == results && (results == 0 || site.results[0].size == 8);
  if (!ok) warp.fault(Fault::IllegalInstruction, inst, __builtin_ctz(mask), signature);
}

// void* malloc(size_t): a block of the device heap, or NULL when it has none.
void run_malloc(Warp& warp, const Inst& inst, const CallSite& site, uint32_t mask) {
  expect_signature(warp, inst, site, mask, 1, "malloc takes a 64-bit size and returns a pointer");
  if (!warp.launch->heap)
    warp.fault(Fault::IllegalInstruction, inst, __builtin_ctz(mask),
               "malloc: this launch has no device heap");
  Frame& caller = warp.frames.back();
  for_lanes(mask, [&](int lane) {
    const uint64_t block = warp.launch->heap->allocate(argument(caller, site.arguments[0], lane));
    set_result(caller, site.results[0], lane, block);
  });
}

// void free(void*): NULL does nothing; a pointer malloc did not return faults (undefined on
// hardware).
void run_free(Warp& warp, const Inst& inst, const CallSite& site, uint32_t mask) {
  expect_signature(warp, inst, site, mask, 0, "free takes a 64-bit pointer and returns nothing");
  Frame& caller = warp.frames.back();
  for_lanes(mask, [&](int lane) {
    const uint64_t block = argument(caller, site.arguments[0], lane);
    if (block == 0) return;
    if (!warp.launch->heap || !warp.launch->heap->release(block))
      warp.fault(Fault::IllegalAddress, inst, lane,
                 "free of " + hex(block) + ", which is not a block malloc returned");
  });
}

}  // namespace

bool run_driver_function(Warp& warp, const Inst& inst, const CallSite& site, const Function& callee,
                         uint32_t mask) {
  if (callee.name == "vprintf")
    run_vprintf(warp, inst, site, mask);
  else if (callee.name == "malloc")
    run_malloc(warp, inst, site, mask);
  else if (callee.name == "free")
    run_free(warp, inst, site, mask);
  else
    return false;
  return true;
}

}  // namespace cudajit::sim
