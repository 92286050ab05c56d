#include "cuda_driver.hpp"

#include <dlfcn.h>

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

LoadResult load() {
  LoadResult result;
  // Never dlclosed: driver handles outlive any point at which closing would be safe.
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* error = dlerror();
    result.reason = std::string("libcuda.so.1 not found: ") + (error ? error : "dlopen failed");
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
  resolve(library, "cuStreamGetCtx", api->cuStreamGetCtx);  // optional
  if (missing) {
    result.reason = std::string("libcuda.so.1 has no ") + missing +
                    " (the NVIDIA driver is too old for cudajit)";
    return result;
  }
  result.api = std::move(api);
  return result;
}

}  // namespace

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
  return DriverError(call, int(code), error_name(api, code), error_text(api, code) + extra);
}

void bind_context(const DriverApi& api, CUcontext context) {
  CUcontext current = nullptr;
  check(api, api.cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  if (current != context) check(api, api.cuCtxSetCurrent(context), "cuCtxSetCurrent");
}

bool try_bind_context(const DriverApi& api, CUcontext context) noexcept {
  CUcontext current = nullptr;
  if (api.cuCtxGetCurrent(&current) != CUDA_SUCCESS) return false;
  return current == context || api.cuCtxSetCurrent(context) == CUDA_SUCCESS;
}

}  // namespace cudajit::runtime::cuda
