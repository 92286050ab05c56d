// PTX modules and the kernels in them.
#include <array>
#include <optional>

#include "cuda_device.hpp"

namespace cudajit::runtime::cuda {

namespace {

constexpr size_t kJitLogBytes = 16 * 1024;
constexpr size_t kSharedWithoutOptIn = 48 * 1024;

// The JIT's error and info logs, as options of cuModuleLoadDataEx and cuLink*.
struct JitLogs {
  JitLogs() = default;
  JitLogs(const JitLogs&) = delete;  // the option values point into its own buffers
  JitLogs& operator=(const JitLogs&) = delete;
  std::string error_log = std::string(kJitLogBytes, '\0');
  std::string info_log = std::string(kJitLogBytes, '\0');
  std::array<CUjit_option, 4> options{CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                                      CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  // Sizes travel in the pointer-sized values themselves, as the driver API wants.
  std::array<void*, 4> values{error_log.data(), reinterpret_cast<void*>(uintptr_t(kJitLogBytes)),
                              info_log.data(), reinterpret_cast<void*>(uintptr_t(kJitLogBytes))};

  // "; JIT log:\n..." from the error log (else the info log), up to its NUL; or "".
  std::string text() const {
    std::string log = error_log.substr(0, error_log.find('\0'));
    if (log.empty()) log = info_log.substr(0, info_log.find('\0'));
    return log.empty() ? std::string() : "; JIT log:\n" + log;
  }
};

CUjitInputType input_type(LinkInput::Kind kind) {
  switch (kind) {
    case LinkInput::Kind::Ptx:
      return CU_JIT_INPUT_PTX;
    case LinkInput::Kind::Cubin:
      return CU_JIT_INPUT_CUBIN;
    case LinkInput::Kind::Fatbin:
      return CU_JIT_INPUT_FATBINARY;
    case LinkInput::Kind::Object:
      return CU_JIT_INPUT_OBJECT;
    case LinkInput::Kind::Library:
      return CU_JIT_INPUT_LIBRARY;
  }
  return CU_JIT_INPUT_PTX;
}

// A kernel's PTX linked with foreign code by the driver's linker (cuLink*); the image is the
// link state's, so it lives as long as this object.
class LinkedImage {
 public:
  LinkedImage(const DriverApi& api, const std::string& kernel_ptx,
              const std::vector<LinkInput>& links)
      : api_(api) {
    check(api_,
          api_.cuLinkCreate_v2(unsigned(logs_.options.size()), logs_.options.data(),
                               logs_.values.data(), &state_),
          "cuLinkCreate");
    // The driver reads PTX up to its NUL: the size counts it.
    add(CU_JIT_INPUT_PTX, kernel_ptx.c_str(), kernel_ptx.size() + 1, "kernel");
    for (const LinkInput& input : links) {
      if (input.kind == LinkInput::Kind::Ptx) {
        std::string text = input.data;  // NUL-terminated copy
        add(CU_JIT_INPUT_PTX, text.c_str(), text.size() + 1, input.name);
      } else {
        add(input_type(input.kind), input.data.data(), input.data.size(), input.name);
      }
    }
    size_t size = 0;
    CUresult result = api_.cuLinkComplete(state_, &image_, &size);
    if (result != CUDA_SUCCESS) throw failure("cuLinkComplete", result);
  }
  ~LinkedImage() {
    if (state_) api_.cuLinkDestroy(state_);
  }
  LinkedImage(const LinkedImage&) = delete;
  LinkedImage& operator=(const LinkedImage&) = delete;
  const void* image() const { return image_; }

 private:
  void add(CUjitInputType type, const void* data, size_t size, const std::string& name) {
    CUresult result = api_.cuLinkAddData_v2(state_, type, const_cast<void*>(data), size,
                                            name.c_str(), 0, nullptr, nullptr);
    if (result != CUDA_SUCCESS) throw failure("cuLinkAddData(\"" + name + "\")", result);
  }
  DriverError failure(const std::string& call, CUresult result) const {
    return driver_error(api_, call, result, logs_.text());
  }

  const DriverApi& api_;
  JitLogs logs_;
  CUlinkState state_ = nullptr;
  void* image_ = nullptr;
};

int function_attribute(CudaDevice& device, CUfunction function, CUfunction_attribute attribute,
                       const char* call) {
  int value = 0;
  check(device.api(), device.api().cuFuncGetAttribute(&value, attribute, function), call);
  return value;
}

}  // namespace

CudaModule::CudaModule(CudaDevice& device, const std::string& ptx,
                       const std::vector<LinkInput>& links)
    : device_(device) {
  const DriverApi& api = device_.api();
  device_.bind();
  JitLogs logs;
  std::optional<LinkedImage> linked;
  if (!links.empty()) linked.emplace(api, ptx, links);
  const void* image = linked ? linked->image() : static_cast<const void*>(ptx.c_str());
  CUresult result = api.cuModuleLoadDataEx(&module_, image, unsigned(logs.options.size()),
                                           logs.options.data(), logs.values.data());
  if (result != CUDA_SUCCESS) throw driver_error(api, "cuModuleLoadDataEx", result, logs.text());
}

CudaModule::~CudaModule() {
  if (try_bind_context(device_.api(), device_.context())) device_.api().cuModuleUnload(module_);
}

CudaKernel::CudaKernel(CudaDevice& device, std::shared_ptr<CudaModule> module,
                       const std::string& name, bool cooperative, int shared_memory_carveout)
    : device_(device), module_(std::move(module)), name_(name), cooperative_(cooperative) {
  const DriverApi& api = device_.api();
  device_.bind();
  check(api, api.cuModuleGetFunction(&function_, module_->get(), name_.c_str()),
        ("cuModuleGetFunction(\"" + name_ + "\")").c_str());
  if (shared_memory_carveout != -1)
    check(api,
          api.cuFuncSetAttribute(function_, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                                 shared_memory_carveout),
          "cuFuncSetAttribute(PREFERRED_SHARED_MEMORY_CARVEOUT)");
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
  r.shared_memory_carveout =
      attribute(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                "cuFuncGetAttribute(PREFERRED_SHARED_MEMORY_CARVEOUT)");
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
