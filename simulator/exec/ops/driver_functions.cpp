#include "driver_functions.hpp"

#include <algorithm>

#include "../device_heap.hpp"
#include "../grid_sync.hpp"
#include "memory_access.hpp"
#include "printf.hpp"

namespace cudajit::sim {

namespace {

// A 64-bit argument where the caller put it (the driver's functions have no frame).
uint64_t argument(const Frame& caller, const ParamCopy& copy, int lane) {
  if (copy.from_place == ParamCopy::kConstant) return copy.from;
  if (copy.from_place == ParamCopy::kRegister)
    return caller.regs[size_t(copy.from) * kWarpSize + size_t(lane)];
  uint64_t value = 0;  // a value of at most 8 bytes (the callers check the signature)
  std::memcpy(&value, caller.params.data() + lane * caller.function->param_bytes + copy.from,
              std::min<uint64_t>(copy.size, 8));
  return value;
}

void set_result(Frame& caller, const ParamCopy& copy, int lane, uint64_t value) {
  if (copy.to_place == ParamCopy::kRegister)
    caller.regs[size_t(copy.to) * kWarpSize + size_t(lane)] = value;
  else
    std::memcpy(caller.params.data() + lane * caller.function->param_bytes + copy.to, &value,
                std::min<uint64_t>(copy.size, 8));
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

// ---- the device runtime's cooperative-groups calls (libcudadevrt's cudaCG* wrap them)

// Whether the call's arguments and results have these sizes in bytes.
bool has_signature(const CallSite& site, std::initializer_list<uint32_t> arguments,
                   std::initializer_list<uint32_t> results) {
  auto same = [](const std::vector<ParamCopy>& copies, std::initializer_list<uint32_t> sizes) {
    if (copies.size() != sizes.size()) return false;
    size_t i = 0;
    for (uint32_t size : sizes)
      if (copies[i++].size != size) return false;
    return true;
  };
  return same(site.arguments, arguments) && same(site.results, results);
}

// The grid handle a lane passed: this cooperative launch's, or a fault.
void check_grid_handle(Warp& warp, const Inst& inst, int lane, uint64_t handle) {
  const GridSync* grid = warp.launch->grid_sync;
  if (!grid)
    warp.fault(Fault::IllegalInstruction, inst, lane,
               "grid sync in a launch that is not cooperative (launch the kernel with "
               "cuLaunchCooperativeKernel or CU_LAUNCH_ATTRIBUTE_COOPERATIVE)");
  if (handle != grid->handle())
    warp.fault(Fault::IllegalInstruction, inst, lane,
               "cooperative-groups handle " + hex(handle) +
                   " is not this grid's (cudaCGGetIntrinsicHandle(cudaCGScopeGrid) returned " +
                   hex(grid->handle()) + ")");
}

// unsigned long long __cuda_syscall_CGS_get_intrinsic_handle(cudaCGScope scope): the grid's
// handle for cudaCGScopeGrid (1) in a cooperative launch; 0 otherwise, as grid_group's
// is_valid() reads it ("the kernel must have been launched with cuLaunchCooperativeKernel").
void run_cgs_get_intrinsic_handle(Warp& warp, const Inst& inst, const CallSite& site,
                                  uint32_t mask) {
  if (!has_signature(site, {4}, {8}))
    warp.fault(Fault::IllegalInstruction, inst, __builtin_ctz(mask),
               "__cuda_syscall_CGS_get_intrinsic_handle takes a 32-bit scope and returns a "
               "64-bit handle");
  Frame& caller = warp.frames.back();
  const GridSync* grid = warp.launch->grid_sync;
  for_lanes(mask, [&](int lane) {
    const bool scope_grid = (argument(caller, site.arguments[0], lane) & 0xFFFFFFFFu) == 1;
    set_result(caller, site.results[0], lane, scope_grid && grid ? grid->handle() : 0);
  });
}

// cudaError_t __cuda_syscall_CGS_sync(unsigned long long handle, unsigned int flags): grid
// sync. Flag bit 0 is cudaCGSynchronizeGrid's: one thread per block calls, between two
// bar.sync 0 that hold the block's others, so that thread's block arrives at once; without it
// (cudaCGSynchronize, numba-cuda's grid.sync()) every thread of the grid calls, and the block
// arrives when all its non-exited threads have. Returns cudaSuccess.
void run_cgs_sync(Warp& warp, const Inst& inst, const CallSite& site, uint32_t mask) {
  if (!has_signature(site, {8, 4}, {4}))
    warp.fault(Fault::IllegalInstruction, inst, __builtin_ctz(mask),
               "__cuda_syscall_CGS_sync takes a 64-bit handle and 32-bit flags and returns a "
               "32-bit error");
  Frame& caller = warp.frames.back();
  bool per_block = false;
  for_lanes(mask, [&](int lane) {
    check_grid_handle(warp, inst, lane, argument(caller, site.arguments[0], lane));
    const bool lane_per_block = argument(caller, site.arguments[1], lane) & 1;
    if (lane != __builtin_ctz(mask) && lane_per_block != per_block)
      warp.fault(Fault::IllegalInstruction, inst, lane,
                 "lanes of a warp call the grid sync with different flags");
    per_block = lane_per_block;
    set_result(caller, site.results[0], lane, 0);
  });
  if (!per_block) {
    arrive_at_grid_sync(warp, inst, mask);
    return;
  }
  if (__builtin_popcount(mask) != 1)
    warp.fault(Fault::IllegalInstruction, inst, __builtin_ctz(mask),
               "the grid sync for a block (flag 1) is called by more than one thread of it");
  switch (warp.launch->grid_sync->arrive_and_wait(warp.launch->abort)) {
    case GridSync::Outcome::Released:
    case GridSync::Outcome::Aborted:  // the warp stops at its next check
      return;
    case GridSync::Outcome::Deadlock:
      warp.fault(Fault::BarrierDeadlock, inst, __builtin_ctz(mask),
                 "the grid sync waits for blocks that have ended without reaching it (every "
                 "block must sync the grid as often as the others; a GPU would hang here)");
  }
}

// cudaError_t __cuda_syscall_CGS_get_size(unsigned* numThreads, unsigned* numGrids, handle)
// and CGS_get_rank(unsigned* threadRank, unsigned* gridRank, handle): the grid's thread count
// and the thread's rank in it (row-major, as grid_group::thread_rank()); one grid, rank 0.
void run_cgs_size_or_rank(Warp& warp, const Inst& inst, const CallSite& site, uint32_t mask,
                          bool rank) {
  if (!has_signature(site, {8, 8, 8}, {4}))
    warp.fault(Fault::IllegalInstruction, inst, __builtin_ctz(mask),
               "__cuda_syscall_CGS_get_size/get_rank take two pointers and a 64-bit handle and "
               "return a 32-bit error");
  Frame& caller = warp.frames.back();
  const Launch& launch = *warp.launch;
  const Block& block = *warp.block;
  const uint64_t block_threads = launch.block.count();
  const uint64_t block_rank =
      (uint64_t(block.index.z) * launch.grid.y + block.index.y) * launch.grid.x + block.index.x;
  for_lanes(mask, [&](int lane) {
    check_grid_handle(warp, inst, lane, argument(caller, site.arguments[2], lane));
    const uint64_t value = rank ? block_rank * block_threads + warp.index * kWarpSize + lane
                                : launch.grid.count() * block_threads;
    const uint32_t values[2] = {uint32_t(value), rank ? 0u : 1u};
    for (int i = 0; i < 2; ++i)
      if (uint64_t address = argument(caller, site.arguments[i], lane))
        std::memcpy(generic_address(warp, inst, lane, address, 4), &values[i], 4);
    set_result(caller, site.results[0], lane, 0);
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
  else if (callee.name == "__cuda_syscall_CGS_get_intrinsic_handle")
    run_cgs_get_intrinsic_handle(warp, inst, site, mask);
  else if (callee.name == "__cuda_syscall_CGS_sync")
    run_cgs_sync(warp, inst, site, mask);
  else if (callee.name == "__cuda_syscall_CGS_get_size")
    run_cgs_size_or_rank(warp, inst, site, mask, false);
  else if (callee.name == "__cuda_syscall_CGS_get_rank")
    run_cgs_size_or_rank(warp, inst, site, mask, true);
  else
    return false;
  return true;
}

}  // namespace cudajit::sim
