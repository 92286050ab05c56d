// cuInit, errors, the device and its attributes, the primary context.
#include <cstring>

#include "export.hpp"

using namespace cudajit::sim::driver;

namespace {

struct ErrorText {
  CUresult code;
  const char* name;
  const char* text;
};

// The codes this driver returns, with the real driver's names and texts.
constexpr ErrorText kErrors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
     "the provided PTX was compiled with an unsupported toolchain."},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT",
     "the launch timed out and was terminated"},
    {CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
     "part or all of the requested memory range is already mapped"},
    {CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
     "pointer does not correspond to a registered memory region"},
    {CUDA_ERROR_HARDWARE_STACK_ERROR, "CUDA_ERROR_HARDWARE_STACK_ERROR",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_ILLEGAL_INSTRUCTION, "CUDA_ERROR_ILLEGAL_INSTRUCTION",
     "an illegal instruction was encountered"},
    {CUDA_ERROR_MISALIGNED_ADDRESS, "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
     "too many blocks in cooperative launch"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

const ErrorText* find_error(CUresult code) {
  for (const auto& e : kErrors)
    if (e.code == code) return &e;
  return nullptr;
}

CUresult check_device(CUdevice device) {
  if (!driver().initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  return device == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

// cuDeviceGetAttribute's answers; an attribute not listed is CUDA_ERROR_INVALID_VALUE.
bool attribute_value(CUdevice_attribute attribute, int& value) {
  const DeviceModel& m = device_model();
  switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      value = 1024;
      return true;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
      value = 1024;
      return true;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
      value = 1024;
      return true;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
      value = 64;
      return true;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
      value = 2147483647;
      return true;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
      value = 65535;
      return true;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
      value = 65535;
      return true;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
      value = 49152;
      return true;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
      value = m.shared_per_block_optin;
      return true;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
      value = m.shared_per_multiprocessor;
      return true;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY:
      value = 65536;
      return true;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
      value = 32;
      return true;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK:
      value = m.registers_per_block;
      return true;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR:
      value = 65536;
      return true;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
      value = m.clock_khz;
      return true;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
      value = m.multiprocessors;
      return true;
    case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT:
      value = 0;
      return true;
    case CU_DEVICE_ATTRIBUTE_INTEGRATED:
      value = 0;
      return true;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY:
      value = 1;
      return true;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE:
      value = CU_COMPUTEMODE_DEFAULT;
      return true;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS:
      value = 1;
      return true;
    case CU_DEVICE_ATTRIBUTE_ECC_ENABLED:
      value = 0;
      return true;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID:
      value = 0;
      return true;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID:
      value = 0;
      return true;
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID:
      value = 0;
      return true;
    case CU_DEVICE_ATTRIBUTE_TCC_DRIVER:
      value = 0;
      return true;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT:
      value = 2;
      return true;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
      value = 1;
      return true;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
      value = m.l2_bytes;
      return true;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
      value = m.threads_per_multiprocessor;
      return true;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR:
      value = m.blocks_per_multiprocessor;
      return true;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
      value = m.major;
      return true;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
      value = m.minor;
      return true;
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY:
      value = 1;
      return true;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS:
      value = 1;
      return true;
    case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS:
      value = 0;
      return true;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH:
      value = 1;
      return true;
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD:
      value = 0;
      return true;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH:
      value = 5120;
      return true;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE:
      value = 2619000;
      return true;
    default:
      return false;
  }
}

}  // namespace

CUDAJIT_SIM_API cuInit(unsigned flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  return guarded([] {
    Driver& d = driver();
    static std::once_flag once;
    std::call_once(once, [&] { d.primary = new Context(); });  // lives as long as the process
    d.initialized.store(true);
    return CUDA_SUCCESS;
  });
}

CUDAJIT_SIM_API cuDriverGetVersion(int* version) {
  if (!version) return CUDA_ERROR_INVALID_VALUE;
  *version = kDriverVersion;
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuGetErrorName(CUresult code, const char** name) {
  if (!name) return CUDA_ERROR_INVALID_VALUE;
  const ErrorText* e = find_error(code);
  *name = e ? e->name : nullptr;
  return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUDAJIT_SIM_API cuGetErrorString(CUresult code, const char** text) {
  if (!text) return CUDA_ERROR_INVALID_VALUE;
  const ErrorText* e = find_error(code);
  *text = e ? e->text : nullptr;
  return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUDAJIT_SIM_API cuDeviceGetCount(int* count) {
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  if (!driver().initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  *count = 1;
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuDeviceGet(CUdevice* device, int ordinal) {
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  if (!driver().initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *device = 0;
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuDeviceGetName(char* name, int length, CUdevice device) {
  if (CUresult r = check_device(device)) return r;
  if (!name || length <= 0) return CUDA_ERROR_INVALID_VALUE;
  std::strncpy(name, device_model().name.c_str(), size_t(length) - 1);
  name[length - 1] = '\0';
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuDeviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice device) {
  if (CUresult r = check_device(device)) return r;
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  return attribute_value(attribute, *value) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUDAJIT_SIM_API cuDeviceTotalMem_v2(size_t* bytes, CUdevice device) {
  if (CUresult r = check_device(device)) return r;
  if (!bytes) return CUDA_ERROR_INVALID_VALUE;
  *bytes = device_model().total_memory;
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice device) {
  if (CUresult r = check_device(device)) return r;
  if (!context) return CUDA_ERROR_INVALID_VALUE;
  Context* c = driver().primary;
  std::lock_guard lock(c->mutex);
  ++c->retains;
  *context = reinterpret_cast<CUcontext>(c);
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuDevicePrimaryCtxRelease_v2(CUdevice device) {
  if (CUresult r = check_device(device)) return r;
  Context* c = driver().primary;
  std::lock_guard lock(c->mutex);
  if (c->retains == 0) return CUDA_ERROR_INVALID_CONTEXT;
  --c->retains;  // the context's state is kept: nothing resets it
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuDevicePrimaryCtxGetState(CUdevice device, unsigned* flags, int* active) {
  if (CUresult r = check_device(device)) return r;
  if (!flags || !active) return CUDA_ERROR_INVALID_VALUE;
  Context* c = driver().primary;
  std::lock_guard lock(c->mutex);
  *flags = 0;
  *active = c->retains > 0;
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuCtxGetCurrent(CUcontext* context) {
  if (!context) return CUDA_ERROR_INVALID_VALUE;
  if (!driver().initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  *context = reinterpret_cast<CUcontext>(current_context());
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuCtxSetCurrent(CUcontext context) {
  if (!driver().initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  Context* c = reinterpret_cast<Context*>(context);
  if (c != nullptr && c != driver().primary) return CUDA_ERROR_INVALID_CONTEXT;
  current_context() = c;
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuCtxGetDevice(CUdevice* device) {
  Context* c;
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  if (!driver().initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  if ((c = current_context()) == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  *device = 0;
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuCtxSynchronize() {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  return guarded([&] {
    c->synchronize();
    return c->sticky.load();
  });
}

// Not in the real driver: the text of the fault that made the context's error sticky (the
// kernel, block, thread and source line), or an empty string. The cuda device reads it to
// name the faulting line in its exception.
extern "C" __attribute__((visibility("default"))) const char* cudajitSimLastFault() {
  thread_local std::string copy;
  Context* c = driver().primary;
  if (!c) return "";
  std::lock_guard lock(c->fault_mutex);
  copy = c->fault_message;
  return copy.c_str();
}
