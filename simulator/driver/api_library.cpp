// Libraries (cuLibrary*, CUDA 12's context-independent modules) and their kernels
// (cuKernel*): what cuda.core loads and launches through. One device and one context here, so
// a library is one module, and a CUkernel is the same handle as its CUfunction.
#include <cstring>

#include "api_types.hpp"
#include "export.hpp"

using namespace cudajit::sim::driver;

namespace {

Library* live_library(Context* c, CUlibrary handle) {
  Library* l = reinterpret_cast<Library*>(handle);
  std::lock_guard lock(c->mutex);
  return c->libraries.count(l) ? l : nullptr;
}

CUresult load_library(CUlibrary* out, const void* code, CUjit_option* options, void** values,
                      unsigned count) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!out || !code) return CUDA_ERROR_INVALID_VALUE;
  JitLog log;
  if (CUresult r = read_jit_options(count, options, values, log)) return r;
  Module* m = nullptr;
  if (CUresult r = load_module(c, code, log, m)) return r;
  return guarded([&] {
    auto library = std::make_unique<Library>();
    library->module = m;
    std::lock_guard lock(c->mutex);
    c->libraries.insert(library.get());
    *out = reinterpret_cast<CUlibrary>(library.release());
    return CUDA_SUCCESS;
  });
}

}  // namespace

// Library options (CU_LIBRARY_HOST_UNIVERSAL_FUNCTION_AND_DATA_TABLE, binary-is-preserved)
// change nothing for a PTX module held in host memory.
CUDAJIT_SIM_API cuLibraryLoadData(CUlibrary* out, const void* code, CUjit_option* options,
                                  void** values, unsigned count, void* /*library_options*/,
                                  void** /*library_values*/, unsigned /*library_count*/) {
  return load_library(out, code, options, values, count);
}

CUDAJIT_SIM_API cuLibraryLoadFromFile(CUlibrary* out, const char* path, CUjit_option* options,
                                      void** values, unsigned count, void* /*library_options*/,
                                      void** /*library_values*/, unsigned /*library_count*/) {
  if (!path) return CUDA_ERROR_INVALID_VALUE;
  return guarded([&] {
    std::optional<std::string> image = read_file(path);
    if (!image) return CUDA_ERROR_FILE_NOT_FOUND;
    return load_library(out, image->c_str(), options, values, count);
  });
}

CUDAJIT_SIM_API cuLibraryUnload(CUlibrary handle) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  Library* l = live_library(c, handle);
  if (!l) return CUDA_ERROR_INVALID_HANDLE;
  return guarded([&] {
    {
      std::lock_guard lock(c->mutex);
      c->libraries.erase(l);
    }
    unload_module(c, l->module);
    delete l;
    return CUDA_SUCCESS;
  });
}

CUDAJIT_SIM_API cuLibraryGetModule(CUmodule* out, CUlibrary handle) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  Library* l = live_library(c, handle);
  if (!l) return CUDA_ERROR_INVALID_HANDLE;
  *out = reinterpret_cast<CUmodule>(l->module);
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuLibraryGetKernel(CUkernel* out, CUlibrary handle, const char* name) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!out || !name) return CUDA_ERROR_INVALID_VALUE;
  Library* l = live_library(c, handle);
  if (!l) return CUDA_ERROR_INVALID_HANDLE;
  CUmodule module = reinterpret_cast<CUmodule>(l->module);
  return cuModuleGetFunction(reinterpret_cast<CUfunction*>(out), module, name);
}

CUDAJIT_SIM_API cuLibraryGetKernelCount(unsigned* count, CUlibrary handle) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  Library* l = live_library(c, handle);
  if (!l) return CUDA_ERROR_INVALID_HANDLE;
  *count = unsigned(l->module->kernels.size());
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuLibraryEnumerateKernels(CUkernel* kernels, unsigned count, CUlibrary handle) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  Library* l = live_library(c, handle);
  if (!l) return CUDA_ERROR_INVALID_HANDLE;
  if (!kernels || count != l->module->kernels.size()) return CUDA_ERROR_INVALID_VALUE;
  unsigned i = 0;
  for (auto& [name, k] : l->module->kernels) kernels[i++] = reinterpret_cast<CUkernel>(k.get());
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuLibraryGetGlobal(CUdeviceptr* address, size_t* bytes, CUlibrary handle,
                                   const char* name) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  Library* l = live_library(c, handle);
  if (!l) return CUDA_ERROR_INVALID_HANDLE;
  return cuModuleGetGlobal_v2(address, bytes, reinterpret_cast<CUmodule>(l->module), name);
}

CUDAJIT_SIM_API cuKernelGetFunction(CUfunction* out, CUkernel kernel) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  CUfunction function = reinterpret_cast<CUfunction>(kernel);
  if (!live_kernel(c, function)) return CUDA_ERROR_INVALID_HANDLE;
  *out = function;
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuKernelGetAttribute(int* value, CUfunction_attribute attribute, CUkernel kernel,
                                     CUdevice device) {
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  return cuFuncGetAttribute(value, attribute, reinterpret_cast<CUfunction>(kernel));
}

CUDAJIT_SIM_API cuKernelSetAttribute(CUfunction_attribute attribute, int value, CUkernel kernel,
                                     CUdevice device) {
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  return cuFuncSetAttribute(reinterpret_cast<CUfunction>(kernel), attribute, value);
}

CUDAJIT_SIM_API cuFuncGetName(const char** name, CUfunction function) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!name) return CUDA_ERROR_INVALID_VALUE;
  Kernel* k = live_kernel(c, function);
  if (!k) return CUDA_ERROR_INVALID_HANDLE;
  *name = k->function->name.c_str();
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuKernelGetName(const char** name, CUkernel kernel) {
  return cuFuncGetName(name, reinterpret_cast<CUfunction>(kernel));
}

CUDAJIT_SIM_API cuFuncGetModule(CUmodule* out, CUfunction function) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  Kernel* k = live_kernel(c, function);
  if (!k) return CUDA_ERROR_INVALID_HANDLE;
  *out = reinterpret_cast<CUmodule>(k->module);
  return CUDA_SUCCESS;
}

// Cache preferences are hints without effect here; the handle is still checked.
CUDAJIT_SIM_API cuFuncSetCacheConfig(CUfunction function, int config) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!live_kernel(c, function)) return CUDA_ERROR_INVALID_HANDLE;
  return config < 0 || config > 3 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuKernelSetCacheConfig(CUkernel kernel, int config, CUdevice device) {
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  return cuFuncSetCacheConfig(reinterpret_cast<CUfunction>(kernel), config);
}

// cuLaunchKernel with attributes: cooperative launches; clusters of one block (the simulated
// GPU has no thread-block clusters); the rest are scheduling hints.
CUDAJIT_SIM_API cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction function, void** params,
                                 void** extra) {
  if (!config || (config->numAttrs > 0 && !config->attrs)) return CUDA_ERROR_INVALID_VALUE;
  bool cooperative = false;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const CUlaunchAttribute& a = config->attrs[i];
    if (a.id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) cooperative = a.value.cooperative != 0;
    if (a.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION &&
        (a.value.clusterDim.x > 1 || a.value.clusterDim.y > 1 || a.value.clusterDim.z > 1))
      return CUDA_ERROR_NOT_SUPPORTED;
  }
  return launch(function, config->gridDimX, config->gridDimY, config->gridDimZ, config->blockDimX,
                config->blockDimY, config->blockDimZ, config->sharedMemBytes, config->hStream,
                params, extra, cooperative);
}
