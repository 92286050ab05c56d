// PTX modules and the kernels in them.
#include <array>

#include "cuda_device.hpp"

namespace cudajit::runtime::cuda {

namespace {

constexpr size_t kJitLogBytes = 16 * 1024;
constexpr size_t kSharedWithoutOptIn = 48 * 1024;

// A log buffer as cuModuleLoadDataEx filled it: up to its first NUL.
std::string log_text(const std::string& buffer) { return buffer.substr(0, buffer.find('\0')); }

int function_attribute(CudaDevice& device, CUfunction function, CUfunction_attribute attribute,
                       const char* call) {
  int value = 0;
  check(device.api(), device.api().cuFuncGetAttribute(&value, attribute, function), call);
  return value;
}

}  // namespace

CudaModule::CudaModule(CudaDevice& device, const std::string& ptx) : device_(device) {
  const DriverApi& api = device_.api();
  device_.bind();
  std::string error_log(kJitLogBytes, '\0'), info_log(kJitLogBytes, '\0');
  std::array<CUjit_option, 4> options{CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                                      CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  // Sizes travel in the pointer-sized values themselves, as the driver API wants.
  std::array<void*, 4> values{error_log.data(), reinterpret_cast<void*>(uintptr_t(kJitLogBytes)),
                              info_log.data(), reinterpret_cast<void*>(uintptr_t(kJitLogBytes))};
  CUresult result = api.cuModuleLoadDataEx(&module_, ptx.c_str(), unsigned(options.size()),
                                           options.data(), values.data());
  if (result != CUDA_SUCCESS) {
    std::string log = log_text(error_log);
    if (log.empty()) log = log_text(info_log);
    throw driver_error(api, "cuModuleLoadDataEx", result,
                       log.empty() ? std::string() : "; JIT log:\n" + log);
  }
}

CudaModule::~CudaModule() {
  if (try_bind_context(device_.api(), device_.context())) device_.api().cuModuleUnload(module_);
}

CudaKernel::CudaKernel(CudaDevice& device, std::shared_ptr<CudaModule> module,
                       const std::string& name, bool cooperative)
    : device_(device), module_(std::move(module)), name_(name), cooperative_(cooperative) {
  const DriverApi& api = device_.api();
  device_.bind();
  check(api, api.cuModuleGetFunction(&function_, module_->get(), name_.c_str()),
        ("cuModuleGetFunction(\"" + name_ + "\")").c_str());
  max_threads_per_block_ =
      function_attribute(device_, function_, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                         "cuFuncGetAttribute(MAX_THREADS_PER_BLOCK)");
  static_shared_bytes_ =
      size_t(function_attribute(device_, function_, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                "cuFuncGetAttribute(SHARED_SIZE_BYTES)"));
}

KernelResources CudaKernel::resources() const {
  device_.bind();
  auto attribute = [&](CUfunction_attribute a, const char* call) {
    return function_attribute(device_, function_, a, call);
  };
  KernelResources r;
  r.registers_per_thread = attribute(CU_FUNC_ATTRIBUTE_NUM_REGS, "cuFuncGetAttribute(NUM_REGS)");
  r.static_shared_bytes = int64_t(static_shared_bytes_);
  r.local_bytes_per_thread =
      attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "cuFuncGetAttribute(LOCAL_SIZE_BYTES)");
  r.const_bytes =
      attribute(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, "cuFuncGetAttribute(CONST_SIZE_BYTES)");
  r.max_threads_per_block = max_threads_per_block_;
  return r;
}

int64_t CudaKernel::max_cooperative_blocks(uint64_t block_threads, size_t shared_bytes) {
  const DriverApi& api = device_.api();
  device_.bind();
  int per_multiprocessor = 0;
  check(api,
        api.cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, function_,
                                                        int(block_threads), shared_bytes),
        "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  return int64_t(per_multiprocessor) * device_.limits().multiprocessors;
}

void CudaKernel::allow_dynamic_shared(size_t bytes) {
  if (static_shared_bytes_ + bytes <= kSharedWithoutOptIn) return;
  std::lock_guard lock(shared_mutex_);
  if (bytes <= dynamic_shared_allowed_) return;
  const DriverApi& api = device_.api();
  check(api,
        api.cuFuncSetAttribute(function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               int(bytes)),
        "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  dynamic_shared_allowed_ = bytes;
}

}  // namespace cudajit::runtime::cuda
