// Code generation targets: PTX through the NVPTX backend (with libdevice), and
// native code for the cpu device through ORC LLJIT.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class Module;
class LLVMContext;
}  // namespace llvm

namespace cudajit::target {

// Compute capability as major*10+minor (80 = sm_80).
struct PtxOptions {
  int cc = 80;
  bool fastmath = false;  // also sets nvvm-reflect-ftz for libdevice
  int opt_level = 3;
  // Registers per thread each kernel may use (.maxnreg); 0: ptxas decides.
  int max_registers = 0;
  // Numba's launch_bounds: most threads per block (.maxntid), fewest blocks per
  // multiprocessor (.minnctapersm), most blocks per cluster (.maxclusterrank, sm_90
  // and newer); 0: not given.
  std::array<int, 3> launch_bounds{};
};

// "sm_80" and the lowest PTX ISA version that supports it, as "ptx70".
// Throws std::invalid_argument for an unknown compute capability.
std::string sm_name(int cc);
std::string ptx_feature(int cc);

// The compute capability to generate PTX for on a device of `device_cc`: the
// highest supported one not above it (PTX runs, JIT-compiled by the driver, on
// newer GPUs). Throws std::invalid_argument below the oldest supported.
int ptx_cc_for_device(int device_cc);

// Links the libdevice functions `module` calls (only those), optimises at O3
// with the NVPTX target machine and returns the PTX text. `module` is consumed.
std::string emit_ptx(std::unique_ptr<llvm::Module> module, const PtxOptions& options);

// Path of libdevice.10.bc, the first found under: $CUDA_HOME, $CUDA_PATH, the package
// roots set below (NVIDIA's PyPI wheels), the toolkit the build found, /usr/local/cuda.
// Throws std::runtime_error naming the places tried and how to install it.
std::string libdevice_path();
// Roots holding nvvm/libdevice/libdevice.10.bc in NVIDIA's PyPI wheels of the running
// Python (site-packages/nvidia/cu13, .../nvidia/cuda_nvcc), found by the Python package.
void set_libdevice_package_roots(std::vector<std::string> roots);

// Where host code with bounds checking reports the first index out of bounds
// in a launch; the faulty access goes to `scratch` instead, so nothing is
// corrupted. Written by generated code: keep the layout in step with
// lower/module.cpp (error_record_type).
struct IndexErrorRecord {
  int32_t flag = 0;  // set (atomically) by the first error
  int32_t axis = 0;
  int32_t line = 0;  // source location of the indexing expression
  int32_t col = 0;
  int64_t index = 0;  // after negative wrapping
  int64_t extent = 0;
  alignas(16) unsigned char scratch[16] = {};
};

// The layout of the grid a host entry point runs over, shared with the runtime.
// Written by generated code: keep the layout in step with lower/module.cpp.
struct LaunchDims {
  uint32_t grid[3];
  uint32_t block[3];
  IndexErrorRecord* errors = nullptr;  // null: the kernel was compiled without bounds checks
  uint64_t dynamic_shared_bytes = 0;   // the launch's `sharedmem`
  // Recursive device functions stop a thread whose stack has grown below `stack_limit`
  // (this OS thread's, set per worker; 0: unchecked) and set *stack_overflow.
  uint64_t stack_limit = 0;
  int32_t* stack_overflow = nullptr;
  // Set (non-zero, atomically) when the launch is abandoned (a Ctrl-C, runtime/interrupt.hpp):
  // every thread returns at its next loop back-edge. Null: never.
  const int32_t* abandon = nullptr;
  // Bit k set: parameter k is the data pointer of an array too large for the caches
  // (host_stream_bytes()); vectorised loops that write it from end to end store past the
  // caches (target/streaming_stores.cpp).
  uint64_t large_arrays = 0;
};

// The attribute of a host entry point (HostEntry): the passes that read its LaunchDims find it.
inline constexpr char kHostEntryAttribute[] = "cudajit-host-entry";

// The largest grid and block a host entry point is launched with: the cpu device checks
// each launch against them, and the generated code tells LLVM so (lower/module.cpp).
inline constexpr uint32_t kHostMaxGrid[3] = {0x7fffffffu, 65535u, 65535u};
inline constexpr uint32_t kHostMaxBlock[3] = {1024, 1024, 64};

// The entry point the host target generates for a kernel that never
// synchronises its block: params is the same array of pointers to parameter
// values that cuLaunchKernel takes; blocks [block_begin, block_end) of the
// grid, in x-fastest linear order, are run, each thread after the other.
// `shared` is the blocks' shared memory (static arrays, then the dynamic part),
// reused block after block.
using HostEntry = void (*)(void** params, const LaunchDims* dims, int64_t block_begin,
                           int64_t block_end, unsigned char* shared);

// What one thread of a host kernel reads: its indices, and its block's shared
// memory and barrier. Generated code reads it: keep the layout in step with
// lower/module.cpp (thread_ctx_type).
struct HostThreadContext;
// Waits until every thread of the block has called it (a fiber switch); `op`
// says what it reduces `predicate` to, BarrierOp, and returns the reduction.
// kWarpSync waits for the lanes of the caller's warp in the mask `predicate`.
using HostBarrier = int32_t (*)(HostThreadContext* ctx, int32_t op, int32_t predicate);
enum BarrierOp : int32_t {
  kBarrierSync = 0,
  kBarrierCount = 1,
  kBarrierAnd = 2,
  kBarrierOr = 3,
  kWarpSync = 4,
  kGridSync = 5,  // every thread of the grid: the blocks of a cooperative launch
  // Where a branch or loop around a block barrier ends (its line as `predicate`): the lanes
  // of a warp meet there, as a GPU's reconverge, so threads that skipped the barrier while
  // others of their warp wait at it are found instead of running on.
  kConverge = 6,
};

// A warp-level operation: waits until the lanes of `mask` in the caller's warp
// have reached warp operations, then returns what `op` (WarpOp) computes from
// their `value`s (bits, zero-extended); `arg` is the source lane (idx), the
// delta (up, down), the lane mask (xor), or the call site (activemask).
using HostWarpOp = int64_t (*)(HostThreadContext* ctx, int32_t op, uint32_t mask, int64_t value,
                               int32_t arg);
enum WarpOp : int32_t {
  kShflIdx = 0,
  kShflUp = 1,
  kShflDown = 2,
  kShflXor = 3,
  kVoteAll = 4,
  kVoteAny = 5,
  kVoteUni = 6,
  kBallot = 7,
  kMatchAny = 8,
  kMatchAll = 9,  // the mask, with bit 32 set when every lane's value matched
  kActiveMask = 10,
};

struct HostThreadContext {
  uint32_t thread_idx[3];
  uint32_t block_dim[3];
  uint32_t block_idx[3];
  uint32_t grid_dim[3];
  IndexErrorRecord* errors = nullptr;
  unsigned char* shared = nullptr;          // the block's shared memory: static arrays,
  unsigned char* dynamic_shared = nullptr;  // then the dynamic part (16-byte aligned)
  uint64_t dynamic_shared_bytes = 0;
  HostBarrier barrier = nullptr;  // null in kernels that never synchronise
  HostWarpOp warp = nullptr;      // likewise
  void* runtime = nullptr;        // the runtime's state of this thread (its fiber)
  int32_t raised = 0;             // set by a raise in the kernel: its callers return
  uint64_t stack_limit = 0;       // as LaunchDims: the lowest stack address recursion may use
  int32_t* stack_overflow = nullptr;
  const int32_t* abandon = nullptr;  // as LaunchDims (never null here: a zero flag instead)
  // Bits of the arrays the thread updates in a private copy of its worker's: none under
  // fibers (the host entry's own loops make such copies, lower/private_atomics.cpp).
  uint64_t private_copies = 0;
};

// The entry point for a kernel that synchronises: runs one thread, `ctx`
// filled in; the runtime runs the threads of a block as fibers that switch
// at barriers.
using HostThreadEntry = void (*)(void** params, HostThreadContext* ctx);

// Where a host block's shared memory puts each static array after `bytes` of
// others, and the dynamic part after all of them: 16-byte aligned.
inline uint64_t shared_offset(uint64_t bytes) { return (bytes + 15) / 16 * 16; }

// A kernel compiled for the host: exactly one of the entries is set.
struct HostKernel {
  HostEntry entry = nullptr;
  HostThreadEntry thread_entry = nullptr;
  uint64_t static_shared_bytes = 0;  // cuda.shared.array of constant shape, all together
  bool cooperative = false;          // syncs its grid: every block must run at once (thread_entry)
  explicit operator bool() const { return entry != nullptr || thread_entry != nullptr; }
};

// Compiled host code: the address of the entry, and the object file it came from.
struct HostObject {
  void* address = nullptr;
  std::string object;
};

// Compiles `module` at O3 for this machine (an object file, linked into the process-wide
// JIT) and returns the address of `entry_name`. The code lives as long as the process (as
// Numba's does).
HostObject jit_host(std::unique_ptr<llvm::Module> module,
                    std::unique_ptr<llvm::LLVMContext> context, const std::string& entry_name);

// Links an object file jit_host made (in any process on a machine of the same
// host_cpu_identity()) and returns the address of `entry_name`.
void* load_host_object(const std::string& object, const std::string& entry_name);

// The triple, CPU and features host code is compiled for (this machine's, or those
// CUDAJIT_CPU_NAME and CUDAJIT_CPU_FEATURES choose): host objects run where these are the same.
std::string host_cpu_identity();

// Whether the CPU host code is compiled for loads and stores masked vectors of bytes
// natively (x86's AVX-512BW): the cpu device's lockstep loops mask every access of each
// iteration, which without them costs more than it saves (mandelbrot compiled for
// x86-64-v3 on an AMD EPYC: 131 ms in lockstep, 60 as each thread's own loop).
bool host_masks_bytes();

// Triple and data layout of the host JIT, for lowering before jit_host.
std::string host_triple();
std::string host_data_layout();

}  // namespace cudajit::target
