// cuGetProcAddress: how cuda.bindings, cuda.core and the CUDA runtime find every entry point.
// A client asks for a base name ("cuMemAlloc") and the CUDA version its code was written for;
// the driver answers with the variant that version means (cuMemAlloc_v2 from CUDA 3.2 on).
// Entry points this stand-in does not implement are answered too, with a stub of their own
// that logs its name once and returns CUDA_ERROR_NOT_SUPPORTED: clients resolve hundreds of
// names at start-up and fail if one is missing, while a program only fails if it calls one.
#include <dlfcn.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "api_types.hpp"
#include "export.hpp"

using namespace cudajit::sim::driver;

namespace {

// The CUDA version that introduced each suffixed variant we export; a name without a suffix
// is the variant of every version. From cuda.h's #defines (cuMemAlloc -> cuMemAlloc_v2 ...)
// and the driver API reference's version notes.
constexpr std::pair<const char*, int> kVariantSince[] = {
    {"cuDeviceTotalMem_v2", 3020},
    {"cuDevicePrimaryCtxRelease_v2", 11000},
    {"cuDevicePrimaryCtxReset_v2", 11000},
    {"cuDevicePrimaryCtxSetFlags_v2", 11000},
    {"cuDeviceGetUuid_v2", 11040},
    {"cuCtxPushCurrent_v2", 4000},
    {"cuCtxPopCurrent_v2", 4000},
    {"cuCtxDestroy_v2", 4000},
    {"cuCtxCreate_v2", 3020},
    {"cuCtxCreate_v3", 11040},
    {"cuCtxCreate_v4", 12050},
    {"cuMemAlloc_v2", 3020},
    {"cuMemFree_v2", 3020},
    {"cuMemAllocHost_v2", 3020},
    {"cuMemHostGetDevicePointer_v2", 3020},
    {"cuMemHostRegister_v2", 6050},
    {"cuMemGetInfo_v2", 3020},
    {"cuMemGetAddressRange_v2", 3020},
    {"cuMemcpyHtoD_v2", 3020},
    {"cuMemcpyDtoH_v2", 3020},
    {"cuMemcpyDtoD_v2", 3020},
    {"cuMemcpyHtoDAsync_v2", 3020},
    {"cuMemcpyDtoHAsync_v2", 3020},
    {"cuMemcpyDtoDAsync_v2", 3020},
    {"cuMemsetD8_v2", 3020},
    {"cuMemsetD16_v2", 3020},
    {"cuMemsetD32_v2", 3020},
    {"cuModuleGetGlobal_v2", 3020},
    {"cuLinkCreate_v2", 6050},
    {"cuLinkAddData_v2", 6050},
    {"cuLinkAddFile_v2", 6050},
    {"cuStreamDestroy_v2", 4000},
    {"cuStreamGetCaptureInfo_v2", 11030},
    {"cuEventDestroy_v2", 4000},
    {"cuEventElapsedTime_v2", 12080},
    {"cuGetProcAddress_v2", 12000},
};

int variant_since(const std::string& exported) {
  for (const auto& [name, since] : kVariantSince)
    if (exported == name) return since;
  return 0;
}

// This library's own exports, looked up by name (never RTLD_DEFAULT: a real libcuda may be
// loaded in the same process).
void* own_symbol(const std::string& name) {
  static void* self = [] {
    Dl_info info{};
    dladdr(reinterpret_cast<void*>(&own_symbol), &info);
    return info.dli_fname ? dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  }();
  return self ? dlsym(self, name.c_str()) : nullptr;
}

// ---- stubs for entry points not implemented

constexpr size_t kStubCount = 2048;

struct StubNames {
  std::mutex mutex;
  std::unordered_map<std::string, size_t> index;
  std::array<std::string, kStubCount> names;
  std::array<std::once_flag, kStubCount> reported;
};

StubNames& stub_names() {
  static StubNames* names = new StubNames();  // stubs may run during exit
  return *names;
}

void report_stub(size_t i) {
  StubNames& s = stub_names();
  std::call_once(s.reported[i], [&] {
    std::fprintf(stderr,
                 "cudajit simulated GPU: %s is not implemented; it returns "
                 "CUDA_ERROR_NOT_SUPPORTED\n",
                 s.names[i].c_str());
  });
}

// The arguments are ignored: the System V ABI lets a function that takes none be called
// with any.
template <size_t I>
CUresult stub() {
  report_stub(I);
  return CUDA_ERROR_NOT_SUPPORTED;
}

template <size_t... I>
constexpr std::array<void*, kStubCount> make_stubs(std::index_sequence<I...>) {
  return {reinterpret_cast<void*>(&stub<I>)...};
}

const std::array<void*, kStubCount> kStubs = make_stubs(std::make_index_sequence<kStubCount>());

// The stub named `name`, the same one each time; null once every stub is taken.
void* stub_for(const std::string& name) {
  StubNames& s = stub_names();
  std::lock_guard lock(s.mutex);
  auto it = s.index.find(name);
  if (it != s.index.end()) return kStubs[it->second];
  size_t i = s.index.size();
  if (i == kStubCount) return nullptr;
  s.index.emplace(name, i);
  s.names[i] = name;
  return kStubs[i];
}

enum : int {
  kProcSuccess = 0,         // CU_GET_PROC_ADDRESS_SUCCESS
  kProcSymbolNotFound = 1,  // CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND
};
constexpr unsigned long long kPerThreadDefaultStream = 1ull << 1;

CUresult get_proc_address(const char* symbol, void** out, int cuda_version,
                          unsigned long long flags, int* status) {
  if (!symbol || !out) return CUDA_ERROR_INVALID_VALUE;
  if (flags > 3) return CUDA_ERROR_INVALID_VALUE;
  return guarded([&] {
    std::string base = symbol;
    // The newest variant the caller's version knows, among the base name and its _vN.
    void* best = nullptr;
    int best_since = -1;
    bool newer_only = false;
    for (int n = 1; n <= 4; ++n) {
      std::string name = n == 1 ? base : base + "_v" + std::to_string(n);
      void* p = own_symbol(name);
      if (!p) continue;
      int since = variant_since(name);
      if (since > cuda_version) {
        newer_only = newer_only || !best;
        continue;
      }
      if (since > best_since) best = p, best_since = since;
    }
    (void)(flags & kPerThreadDefaultStream);  // ptds variants: see docs/dev/simulator.md
    if (!best && newer_only) {
      // The caller wants an older variant than any we have (cuMemAlloc's 32-bit v1).
      best = stub_for(base + " (as of CUDA " + std::to_string(cuda_version / 1000) + "." +
                      std::to_string(cuda_version % 1000 / 10) + ")");
    }
    if (!best && base.rfind("cu", 0) == 0) best = stub_for(base);
    *out = best;
    if (status) *status = best ? kProcSuccess : kProcSymbolNotFound;
    return best ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
  });
}

}  // namespace

CUDAJIT_SIM_API cuGetProcAddress_v2(const char* symbol, void** out, int cuda_version,
                                    unsigned long long flags, int* status) {
  return get_proc_address(symbol, out, cuda_version, flags, status);
}

CUDAJIT_SIM_API cuGetProcAddress(const char* symbol, void** out, int cuda_version,
                                 unsigned long long flags) {
  return get_proc_address(symbol, out, cuda_version, flags, nullptr);
}

// The driver's private tables (NVRTC, the CUDA runtime and profilers ask for them by UUID):
// this driver has none, which the callers handle as an older driver that lacks the table.
CUDAJIT_SIM_API cuGetExportTable(const void** table, const CUuuid* id) {
  if (!table || !id) return CUDA_ERROR_INVALID_VALUE;
  *table = nullptr;
  return CUDA_ERROR_NOT_FOUND;
}
