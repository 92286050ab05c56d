// Code generation targets: PTX through the NVPTX backend (with libdevice), and
// native code for the cpu device through ORC LLJIT.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

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

// Path of libdevice.10.bc: $CUDA_HOME, $CUDA_PATH, then /usr/local/cuda.
std::string libdevice_path();

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
struct LaunchDims {
  uint32_t grid[3];
  uint32_t block[3];
  IndexErrorRecord* errors = nullptr;  // null: the kernel was compiled without bounds checks
};

// The entry point the host target generates for each kernel:
// params is the same array of pointers to parameter values that
// cuLaunchKernel takes; blocks [block_begin, block_end) of the grid, in
// x-fastest linear order, are run.
using HostEntry = void (*)(void** params, const LaunchDims* dims, int64_t block_begin,
                           int64_t block_end);

// Compiles `module` at O3 for this machine and returns the address of
// `entry_name`. The code lives as long as the process (as Numba's does).
HostEntry jit_host(std::unique_ptr<llvm::Module> module, std::unique_ptr<llvm::LLVMContext> context,
                   const std::string& entry_name);

// Triple and data layout of the host JIT, for lowering before jit_host.
std::string host_triple();
std::string host_data_layout();

}  // namespace cudajit::target
