#include "cuda_driver.hpp"

#include "cudajit/runtime/fork.hpp"
#include "cudajit/runtime/interrupt.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <memory>

namespace cudajit::runtime::cuda {

namespace {

struct LoadResult {
  std::unique_ptr<DriverApi> api;
  std::string reason;
};

template <class Function>
bool resolve(void* library, const char* symbol, Function& function) {
  function = reinterpret_cast<Function>(dlsym(library, symbol));
  return function != nullptr;
}

// libcudajit_sim.so, beside this library (the package folder, or the build's).
std::string simulator_path() {
  Dl_info info{};
  std::string path = "libcudajit_sim.so";
  if (dladdr(reinterpret_cast<void*>(&simulator_path), &info) != 0 && info.dli_fname) {
    std::string self = info.dli_fname;
    size_t slash = self.rfind('/');
    if (slash != std::string::npos) path = self.substr(0, slash + 1) + path;
  }
  return path;
}

LoadResult load() {
  LoadResult result;
  std::string path = driver_library();
  // Never dlclosed: driver handles outlive any point at which closing would be safe.
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* error = dlerror();
    result.reason = path + " not found: " + (error ? error : "dlopen failed");
    return result;
  }
  auto api = std::make_unique<DriverApi>();
  const char* missing = nullptr;
#define CUDAJIT_RESOLVE_DRIVER_FUNCTION(name) \
  if (!missing && !resolve(library, #name, api->name)) missing = #name;
  CUDAJIT_CUDA_DRIVER_FUNCTIONS(CUDAJIT_RESOLVE_DRIVER_FUNCTION)
#undef CUDAJIT_RESOLVE_DRIVER_FUNCTION
  if (!missing && !resolve(library, "cuEventElapsedTime_v2", api->event_elapsed_time) &&
      !resolve(library, "cuEventElapsedTime", api->event_elapsed_time))
    missing = "cuEventElapsedTime";
  resolve(library, "cuStreamGetCtx", api->cuStreamGetCtx);            // optional
  resolve(library, "cuCtxGetDevice", api->cuCtxGetDevice);            // optional
  resolve(library, "cudajitSimLastFault", api->cudajitSimLastFault);  // the simulated GPU only
  resolve(library, "cudajitSimAbandonGrids", api->cudajitSimAbandonGrids);
  api->library = path;
  if (missing) {
    result.reason = path + " has no " + missing + " (the NVIDIA driver is too old for cudajit)";
    return result;
  }
  // A Ctrl-C abandons the simulated GPU's grids too; a real GPU's kernels run to their end.
  if (api->cudajitSimAbandonGrids) add_grid_abandoner(api->cudajitSimAbandonGrids);
  result.api = std::move(api);
  return result;
}

}  // namespace

std::string driver_library() {
  const char* named = std::getenv("CUDAJIT_LIBCUDA");
  if (named && *named) return named;
  const char* device = std::getenv("CUDAJIT_DEVICE");
  if (device && std::strcmp(device, "sim") == 0) return simulator_path();
  return "libcuda.so.1";
}

const DriverApi* load_driver(std::string* reason) {
  // Never destroyed: devices and allocations may still call the driver during exit.
  static const LoadResult* result = new LoadResult(load());
  if (reason) *reason = result->reason;
  return result->api.get();
}

std::string error_name(const DriverApi& api, CUresult code) {
  const char* name = nullptr;
  if (api.cuGetErrorName(code, &name) != CUDA_SUCCESS || name == nullptr)
    return "CUresult " + std::to_string(int(code));
  return name;
}

std::string error_text(const DriverApi& api, CUresult code) {
  const char* text = nullptr;
  if (api.cuGetErrorString(code, &text) != CUDA_SUCCESS || text == nullptr) return "unknown error";
  return text;
}

DriverError driver_error(const DriverApi& api, const std::string& call, CUresult code,
                         const std::string& extra) {
  std::string text = error_text(api, code) + extra;
  // The simulated GPU says where a kernel faulted (kernel, thread, source line).
  if (api.cudajitSimLastFault) {
    const char* fault = api.cudajitSimLastFault();
    if (fault && *fault &&
        (code == CUDA_ERROR_ILLEGAL_ADDRESS || code == CUDA_ERROR_MISALIGNED_ADDRESS ||
         code == CUDA_ERROR_ILLEGAL_INSTRUCTION || code == CUDA_ERROR_LAUNCH_FAILED ||
         code == CUDA_ERROR_HARDWARE_STACK_ERROR ||
         (code == CUDA_ERROR_INVALID_VALUE && call == "cuLaunchKernel")))
      text += " (" + std::string(fault) + ")";
  }
  return DriverError(call, int(code), error_name(api, code), text);
}

void bind_context(const DriverApi& api, CUcontext context) {
  check_not_forked();
  CUcontext current = nullptr;
  check(api, api.cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  if (current != context) check(api, api.cuCtxSetCurrent(context), "cuCtxSetCurrent");
}

bool try_bind_context(const DriverApi& api, CUcontext context) noexcept {
  if (forked_after_start()) return false;  // a child's release leaves the parent's memory be
  CUcontext current = nullptr;
  if (api.cuCtxGetCurrent(&current) != CUDA_SUCCESS) return false;
  return current == context || api.cuCtxSetCurrent(context) == CUDA_SUCCESS;
}

}  // namespace cudajit::runtime::cuda
