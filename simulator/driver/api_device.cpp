// cuInit, errors, the device and its attributes, the primary context.
#include <pthread.h>

#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "api_types.hpp"
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
    {CUDA_ERROR_UNSUPPORTED_LIMIT, "CUDA_ERROR_UNSUPPORTED_LIMIT",
     "limit is not supported on this architecture"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_CONTEXT_IS_DESTROYED, "CUDA_ERROR_CONTEXT_IS_DESTROYED", "context is destroyed"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
     "the provided PTX was compiled with an unsupported toolchain."},
    {CUDA_ERROR_FILE_NOT_FOUND, "CUDA_ERROR_FILE_NOT_FOUND", "file not found"},
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

// The attributes of textures, surfaces and features the simulated GPU has not (0): an H100's
// limits, so that programs which read every attribute (numba-cuda's Device, cuda.core's
// DeviceProperties) see a device. Any attribute cuda.h numbers up to 147 is answered.
constexpr std::pair<int, int> kOtherAttributes[] = {
    {11, 2147483647},  // MAX_PITCH
    {14, 512},         // TEXTURE_ALIGNMENT
    {15, 1},           // GPU_OVERLAP
    {21, 131072},     {22, 131072}, {23, 65536},     {24, 16384},  {25, 16384}, {26, 16384},
    {27, 32768},      {28, 32768},  {29, 2048},      {30, 512},  // SURFACE_ALIGNMENT
    {42, 32768},      {43, 2048},   {44, 1},         {45, 32768},  {46, 32768}, {47, 8192},
    {48, 8192},       {49, 32768},  {51, 32},        {52, 32768},  {53, 32768}, {54, 2046},
    {55, 32768},      {56, 131072}, {57, 65536},     {58, 16384},  {59, 16384}, {60, 16384},
    {61, 32768},      {62, 2048},   {63, 32768},     {64, 32768},  {65, 2048},  {66, 32768},
    {67, 32768},      {68, 2046},   {69, 268435456}, {70, 131072}, {71, 65000}, {72, 2097120},
    {73, 32768},      {74, 32768},  {77, 32768},     {78, 1},  // STREAM_PRIORITIES_SUPPORTED
    {79, 1},                                                   // GLOBAL_L1_CACHE_SUPPORTED
    {80, 1},                                                   // LOCAL_L1_CACHE_SUPPORTED
    {87, 2},    // SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO
    {90, 1},    // COMPUTE_PREEMPTION_SUPPORTED
    {91, 1},    // CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM (unified addressing)
    {99, 1},    // HOST_REGISTER_SUPPORTED
    {113, 1},   // READ_ONLY_HOST_REGISTER_SUPPORTED
    {131, -1},  // NUMA_ID: none
    {134, -1},  // HOST_NUMA_ID: none
};
constexpr int kLastAttribute = 147;  // CUDA 13.0's cuda.h

bool other_attribute(int attribute, int& value) {
  if (attribute < 1 || attribute > kLastAttribute) return false;
  value = 0;
  for (auto [id, v] : kOtherAttributes)
    if (id == attribute) value = v;
  return true;
}

// cuDeviceGetAttribute's answers; an attribute cuda.h does not number is
// CUDA_ERROR_INVALID_VALUE.
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
      return other_attribute(int(attribute), value);
  }
}

}  // namespace

CUDAJIT_SIM_API cuInit(unsigned flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  return guarded([] {
    Driver& d = driver();
    // A child forked after the driver started has none of its threads: as with CUDA's
    // driver, every call there fails (numba-cuda reports "CUDA initialized before forking").
    if (d.forked.load()) return CUDA_ERROR_NOT_INITIALIZED;
    static std::once_flag once;
    std::call_once(once, [&] {
      d.primary = new Context();  // lives as long as the process
      pthread_atfork(nullptr, nullptr, [] {
        Driver& child = driver();
        if (child.initialized.exchange(false)) child.forked.store(true);
      });
    });
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
  if (c != nullptr && !live_context(c)) return CUDA_ERROR_INVALID_CONTEXT;
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

CUDAJIT_SIM_API cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice device) {
  if (CUresult r = check_device(device)) return r;
  if (!uuid) return CUDA_ERROR_INVALID_VALUE;
  // A fixed identity, so that tools which key on the UUID see one device across runs.
  static constexpr char kUuid[16] = {'c', 'u', 'd', 'a', 'j', 'i', 't', '-',
                                     's', 'i', 'm', '-', 'g', 'p', 'u', '0'};
  std::memcpy(uuid->bytes, kUuid, sizeof kUuid);
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuDeviceGetUuid(CUuuid* uuid, CUdevice device) {
  return cuDeviceGetUuid_v2(uuid, device);
}

CUDAJIT_SIM_API cuDeviceGetPCIBusId(char* bus_id, int length, CUdevice device) {
  if (CUresult r = check_device(device)) return r;
  if (!bus_id || length <= 0) return CUDA_ERROR_INVALID_VALUE;
  std::snprintf(bus_id, size_t(length), "0000:00:00.0");
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuDeviceComputeCapability(int* major, int* minor, CUdevice device) {
  if (CUresult r = check_device(device)) return r;
  if (!major || !minor) return CUDA_ERROR_INVALID_VALUE;
  *major = device_model().major;
  *minor = device_model().minor;
  return CUDA_SUCCESS;
}

// One device: it has no peer, and a device is not its own peer.
CUDAJIT_SIM_API cuDeviceCanAccessPeer(int* can_access, CUdevice device, CUdevice peer) {
  if (CUresult r = check_device(device)) return r;
  if (CUresult r = check_device(peer)) return r;
  if (!can_access) return CUDA_ERROR_INVALID_VALUE;
  return CUDA_ERROR_INVALID_DEVICE;
}

// The context's state survives a reset (its allocations stay valid, unlike hardware's);
// what a reset is for, clearing a sticky error after a fault, it does.
CUDAJIT_SIM_API cuDevicePrimaryCtxReset_v2(CUdevice device) {
  if (CUresult r = check_device(device)) return r;
  Context* c = driver().primary;
  return guarded([&] {
    c->synchronize();
    std::lock_guard lock(c->fault_mutex);
    c->sticky.store(CUDA_SUCCESS);
    c->fault_message.clear();
    return CUDA_SUCCESS;
  });
}

CUDAJIT_SIM_API cuDevicePrimaryCtxSetFlags_v2(CUdevice device, unsigned flags) {
  if (CUresult r = check_device(device)) return r;
  return flags > 0x1f ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;  // scheduling hints
}

// ---- the context stack: the current context is its top

namespace {
std::vector<Context*>& contexts_below() {
  thread_local std::vector<Context*> below;
  return below;
}

// The current context for calls that still answer after a fault made an error sticky
// (limits, preferences): only no driver or no context is an error.
CUresult queryable_context(Context*& c) {
  CUresult r = check_context(c);
  return r == CUDA_ERROR_NOT_INITIALIZED || r == CUDA_ERROR_INVALID_CONTEXT ? r : CUDA_SUCCESS;
}

// The context a handle names (null: the current one), which must be live.
CUresult named_context(CUcontext handle, Context*& c) {
  if (!driver().initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  c = handle ? reinterpret_cast<Context*>(handle) : current_context();
  return live_context(c) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}
}  // namespace

CUDAJIT_SIM_API cuCtxPushCurrent_v2(CUcontext context) {
  if (!driver().initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  Context* c = reinterpret_cast<Context*>(context);
  if (!live_context(c)) return CUDA_ERROR_INVALID_CONTEXT;
  contexts_below().push_back(current_context());
  current_context() = c;
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuCtxPopCurrent_v2(CUcontext* context) {
  if (!driver().initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  if (!current_context()) return CUDA_ERROR_INVALID_CONTEXT;
  if (context) *context = reinterpret_cast<CUcontext>(current_context());
  auto& below = contexts_below();
  current_context() = below.empty() ? nullptr : below.back();
  if (!below.empty()) below.pop_back();
  return CUDA_SUCCESS;
}

// ---- created contexts: cuCtxCreate pushes a new context, cuCtxDestroy frees it

namespace {
CUresult create_context(CUcontext* out, unsigned flags, CUdevice device) {
  if (!driver().initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  if (CUresult r = check_device(device)) return r;
  // One scheduling flag at most (SPIN 1, YIELD 2, BLOCKING_SYNC 4), within CU_CTX_FLAGS_MASK.
  const unsigned sched = flags & 0x07u;
  if (!out || (flags & ~0xFFu) || (sched != 0 && (sched & (sched - 1)) != 0))
    return CUDA_ERROR_INVALID_VALUE;
  return guarded([&] {
    Driver& d = driver();
    Context* c;
    {
      std::lock_guard lock(d.contexts_mutex);
      c = new Context(d.next_context_id++, flags);
      d.created.insert(c);
    }
    contexts_below().push_back(current_context());
    current_context() = c;
    *out = reinterpret_cast<CUcontext>(c);
    return CUDA_SUCCESS;
  });
}
}  // namespace

CUDAJIT_SIM_API cuCtxCreate_v2(CUcontext* context, unsigned flags, CUdevice device) {
  return create_context(context, flags, device);
}

// Execution affinity (an SM count) is for Volta+ MPS clients: not on the simulated GPU.
CUDAJIT_SIM_API cuCtxCreate_v3(CUcontext* context, void* affinity, int count, unsigned flags,
                               CUdevice device) {
  if (count < 0 || (count > 0 && !affinity)) return CUDA_ERROR_INVALID_VALUE;
  if (count > 0) return CUDA_ERROR_NOT_SUPPORTED;
  return create_context(context, flags, device);
}

// CUctxCreateParams {CUexecAffinityParam* execAffinityParams; int numExecAffinityParams;
// CUctxCigParam* cigParams}: affinity and CUDA-in-graphics are not offered.
CUDAJIT_SIM_API cuCtxCreate_v4(CUcontext* context, void* params, unsigned flags, CUdevice device) {
  struct CreateParams {
    void* affinity;
    int affinity_count;
    void* cig;
  };
  if (params) {
    const auto* p = static_cast<const CreateParams*>(params);
    if (p->affinity_count < 0) return CUDA_ERROR_INVALID_VALUE;
    if ((p->affinity && p->affinity_count > 0) || p->cig) return CUDA_ERROR_NOT_SUPPORTED;
  }
  return create_context(context, flags, device);
}

// Destroys a created context (the primary one is released with cuDevicePrimaryCtxRelease):
// it is popped from the calling thread's stack if current there; threads it stays current to
// get CUDA_ERROR_CONTEXT_IS_DESTROYED.
CUDAJIT_SIM_API cuCtxDestroy_v2(CUcontext context) {
  if (!driver().initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  Context* c = reinterpret_cast<Context*>(context);
  Driver& d = driver();
  {
    std::lock_guard lock(d.contexts_mutex);
    if (!d.created.erase(c)) return CUDA_ERROR_INVALID_CONTEXT;
  }
  if (current_context() == c) {
    auto& below = contexts_below();
    current_context() = below.empty() ? nullptr : below.back();
    if (!below.empty()) below.pop_back();
  }
  return guarded([&] {
    c->destroy();
    return CUDA_SUCCESS;
  });
}

CUDAJIT_SIM_API cuCtxGetFlags(unsigned* flags) {
  Context* c;
  if (!flags) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = queryable_context(c)) return r;
  *flags = c->flags;
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuCtxGetApiVersion(CUcontext context, unsigned* version) {
  Context* c;
  if (!version) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = named_context(context, c)) return r;
  *version = 3020;  // the v2 API's contexts (created since 3.2)
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuCtxGetId(CUcontext context, unsigned long long* id) {
  Context* c;
  if (!id) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = named_context(context, c)) return r;
  *id = c->id;
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuCtxGetLimit(size_t* value, CUlimit limit) {
  Context* c;
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = queryable_context(c)) return r;
  std::lock_guard lock(c->mutex);
  auto it = c->limits.find(int(limit));
  if (it == c->limits.end()) return CUDA_ERROR_UNSUPPORTED_LIMIT;
  *value = it->second;
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuCtxSetLimit(CUlimit limit, size_t value) {
  Context* c;
  if (CUresult r = queryable_context(c)) return r;
  std::lock_guard lock(c->mutex);
  auto it = c->limits.find(int(limit));
  if (it == c->limits.end()) return CUDA_ERROR_UNSUPPORTED_LIMIT;
  it->second = value;
  if (limit == CU_LIMIT_MALLOC_HEAP_SIZE) c->heap.set_size(value);  // until a kernel allocates
  return CUDA_SUCCESS;
}

// Cache and shared-memory preferences are hints: accepted, remembered, without effect.
CUDAJIT_SIM_API cuCtxGetCacheConfig(int* config) {
  Context* c;
  if (!config) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = queryable_context(c)) return r;
  *config = c->cache_config.load();
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuCtxSetCacheConfig(int config) {
  Context* c;
  if (CUresult r = queryable_context(c)) return r;
  if (config < 0 || config > 3) return CUDA_ERROR_INVALID_VALUE;
  c->cache_config.store(config);
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuCtxGetStreamPriorityRange(int* least, int* greatest) {
  Context* c;
  if (CUresult r = queryable_context(c)) return r;
  if (least) *least = 0;
  if (greatest) *greatest = -5;  // an H100's range
  return CUDA_SUCCESS;
}

// One device, so no peer: the driver's answer for a context that is not a peer's.
CUDAJIT_SIM_API cuCtxEnablePeerAccess(CUcontext peer, unsigned flags) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  return peer == reinterpret_cast<CUcontext>(c) ? CUDA_ERROR_INVALID_DEVICE
                                                : CUDA_ERROR_INVALID_CONTEXT;
}

// No profiler is attached: the driver then accepts these and does nothing.
CUDAJIT_SIM_API cuProfilerStart() {
  Context* c;
  return check_context(c);
}

CUDAJIT_SIM_API cuProfilerStop() {
  Context* c;
  return check_context(c);
}
