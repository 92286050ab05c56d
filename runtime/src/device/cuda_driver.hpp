// The CUDA driver API, loaded with dlopen("libcuda.so.1") at first use: a table
// of the functions cudajit calls, resolved with dlsym. cudajit/cuda_api.h (our
// own declarations) gives the types and enum values; libcuda is never linked,
// so a process without a GPU or a driver imports cudajit fine.
#pragma once

#include <string>

#include "cudajit/cuda_api.h"
#include "cudajit/runtime/device.hpp"

namespace cudajit::runtime::cuda {

// The functions, by the symbol each is exported as: the versioned ones
// (cuMemAlloc_v2) with their version, as cuda_api.h declares them.
#define CUDAJIT_CUDA_DRIVER_FUNCTIONS(X)         \
  X(cuInit)                                      \
  X(cuDriverGetVersion)                          \
  X(cuGetErrorName)                              \
  X(cuGetErrorString)                            \
  X(cuDeviceGetCount)                            \
  X(cuDeviceGet)                                 \
  X(cuDeviceGetName)                             \
  X(cuDeviceGetAttribute)                        \
  X(cuDevicePrimaryCtxRetain)                    \
  X(cuDevicePrimaryCtxRelease_v2)                \
  X(cuCtxGetCurrent)                             \
  X(cuCtxSetCurrent)                             \
  X(cuCtxSynchronize)                            \
  X(cuMemAlloc_v2)                               \
  X(cuMemFree_v2)                                \
  X(cuMemHostAlloc)                              \
  X(cuMemFreeHost)                               \
  X(cuMemHostGetDevicePointer_v2)                \
  X(cuMemAllocManaged)                           \
  X(cuMemcpyAsync)                               \
  X(cuMemsetD8Async)                             \
  X(cuPointerGetAttribute)                       \
  X(cuMemHostRegister_v2)                        \
  X(cuMemHostUnregister)                         \
  X(cuModuleLoadDataEx)                          \
  X(cuModuleUnload)                              \
  X(cuLinkCreate_v2)                             \
  X(cuLinkAddData_v2)                            \
  X(cuLinkComplete)                              \
  X(cuLinkDestroy)                               \
  X(cuModuleGetFunction)                         \
  X(cuFuncGetAttribute)                          \
  X(cuFuncSetAttribute)                          \
  X(cuLaunchKernel)                              \
  X(cuMemGetInfo_v2)                             \
  X(cuLaunchCooperativeKernel)                   \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor) \
  X(cuStreamCreate)                              \
  X(cuStreamDestroy_v2)                          \
  X(cuStreamSynchronize)                         \
  X(cuStreamQuery)                               \
  X(cuStreamWaitEvent)                           \
  X(cuEventCreate)                               \
  X(cuEventDestroy_v2)                           \
  X(cuEventRecord)                               \
  X(cuEventSynchronize)                          \
  X(cuEventQuery)

struct DriverApi {
#define CUDAJIT_DECLARE_DRIVER_FUNCTION(name) decltype(&::name) name = nullptr;
  CUDAJIT_CUDA_DRIVER_FUNCTIONS(CUDAJIT_DECLARE_DRIVER_FUNCTION)
#undef CUDAJIT_DECLARE_DRIVER_FUNCTION
  // cuEventElapsedTime_v2 (CUDA 12.8+) where the driver has it, else cuEventElapsedTime, of the
  // same signature.
  CUresult (*event_elapsed_time)(float* ms, CUevent start, CUevent end) = nullptr;
  // Optional (null on drivers without it): checks that a foreign stream is in our context.
  CUresult (*cuStreamGetCtx)(CUstream stream, CUcontext* context) = nullptr;
  CUresult (*cuCtxGetDevice)(CUdevice* device) = nullptr;  // optional: activate_context
  // Only in cudajit's simulated GPU (simulator/driver): the last fault's diagnostic.
  const char* (*cudajitSimLastFault)() = nullptr;
  // Likewise: stops every queued and running grid (a Ctrl-C; runtime/interrupt.hpp).
  void (*cudajitSimAbandonGrids)() = nullptr;
  std::string library;  // the file the table was loaded from
  bool simulated() const { return cudajitSimLastFault != nullptr; }
};

// The driver library to load: $CUDAJIT_LIBCUDA, else libcudajit_sim.so beside libcudajit when
// CUDAJIT_DEVICE=sim, else libcuda.so.1.
std::string driver_library();

// The driver table, loaded once; null when libcuda.so.1 cannot be loaded or
// lacks a function, with the reason in `reason`. Never throws.
const DriverApi* load_driver(std::string* reason);

// "CUDA_ERROR_OUT_OF_MEMORY" and "out of memory" for `code`, or a fallback
// naming the number when the driver does not know it.
std::string error_name(const DriverApi& api, CUresult code);
std::string error_text(const DriverApi& api, CUresult code);

// The DriverError for a failed `call`; `extra` is appended to the driver's text.
DriverError driver_error(const DriverApi& api, const std::string& call, CUresult code,
                         const std::string& extra = {});

inline void check(const DriverApi& api, CUresult code, const char* call) {
  if (code != CUDA_SUCCESS) throw driver_error(api, call, code);
}

// Makes `context` current on the calling thread, only if it is not already
// (cuCtxGetCurrent is cheap; cuCtxSetCurrent less so). As CuPy and PyTorch do,
// the context stays current afterwards.
void bind_context(const DriverApi& api, CUcontext context);
// For destructors: the same, reporting failure by its result instead of throwing.
bool try_bind_context(const DriverApi& api, CUcontext context) noexcept;

inline CUdeviceptr device_address(const void* pointer) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(pointer));
}

}  // namespace cudajit::runtime::cuda
