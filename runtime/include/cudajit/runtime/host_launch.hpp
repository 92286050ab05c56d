// Runs a kernel compiled for the host over a whole grid, its blocks spread
// across worker threads (the cpu device's multiprocessors).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>

#include "cudajit/compiler/target.hpp"

namespace cudajit::runtime {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
};

// Blocks until every block has run. `params` is cuLaunchKernel's kernelParams;
// `dynamic_shared_bytes` the launch's sharedmem. `errors` receives the first
// index out of bounds (kernels compiled with bounds checks). Throws
// BarrierError when the threads of a block cannot meet at a barrier,
// StackOverflowError when a thread's recursion outgrew its stack. A
// cooperative kernel's grid must fit host_cooperative_blocks (the caller checks).
// With an `epoch` (host_grid_epoch() when the launch was queued), the grid is abandoned once a
// Ctrl-C has moved the epoch on (interrupt.hpp): blocks not started never run, and running
// threads return at their next loop back-edge (cooperative grids too); it returns normally,
// its outputs undefined. `large_arrays` is KernelParams::large_arrays (LaunchDims'): arrays
// written past the caches.
void launch_host(const target::HostKernel& kernel, Dim3 grid, Dim3 block,
                 uint64_t dynamic_shared_bytes, void** params, uint64_t large_arrays = 0,
                 target::IndexErrorRecord* errors = nullptr,
                 std::optional<uint64_t> epoch = std::nullopt);

// A kernel's threads cannot meet: some wait at a barrier while others wait at
// another kind (a warp function), or a lane is outside its own mask. Undefined
// on a GPU; the cpu device stops the launch and says which threads.
class BarrierError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A thread of a kernel recursed deeper than its stack allows: it stopped (a
// recursive function checks the stack on entry) and the launch fails, as a
// GPU's does with CUDA_ERROR_HARDWARE_STACK_ERROR.
class StackOverflowError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Number of threads the cpu device runs blocks on (the launching thread one of them):
// CUDAJIT_CPU_WORKERS, else one per core. set_host_worker_count changes it for later
// launches (at least 1; std::invalid_argument otherwise).
unsigned host_worker_count();
void set_host_worker_count(unsigned workers);

// Arrays of at least this many bytes are written past the cpu device's caches (non-temporal
// stores) by the vectorised loops that write them from end to end: CUDAJIT_CPU_STREAM_BYTES,
// else three quarters of the largest cache (the launch reads other arrays too), as glibc's
// memcpy. set_host_stream_bytes changes it for later launches.
uint64_t host_stream_bytes();
void set_host_stream_bytes(uint64_t bytes);

// A kernel that syncs its grid (HostKernel::cooperative) runs each block on an
// OS thread of its own, all at once, each thread a fiber: at most 256 blocks
// and 8192 threads (as a GPU's multiprocessors bound its resident blocks).
uint64_t host_cooperative_blocks(uint64_t block_threads);

}  // namespace cudajit::runtime
