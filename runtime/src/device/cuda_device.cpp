// The cuda device: its context and limits, copies, kernels and launches.
// Memory is in cuda_memory.cpp, streams and events in cuda_stream.cpp,
// modules in cuda_module.cpp.
#include "cuda_device.hpp"

#include <array>
#include <atomic>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "cudajit/runtime/fork.hpp"
#include "cudajit/runtime/interrupt.hpp"
#include "launch_config.hpp"

namespace cudajit::runtime::cuda {

namespace {

CUdevice get_device(const DriverApi& api, int ordinal) {
  CUdevice device = 0;
  check(api, api.cuDeviceGet(&device, ordinal), "cuDeviceGet");
  return device;
}

std::string hex(uintptr_t value) {
  std::ostringstream text;
  text << "0x" << std::hex << value;
  return text.str();
}

}  // namespace

// --- the primary context --------------------------------------------------------

PrimaryContext::PrimaryContext(const DriverApi& api, CUdevice device) : api_(api), device_(device) {
  check(api_, api_.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
}

PrimaryContext::~PrimaryContext() { api_.cuDevicePrimaryCtxRelease_v2(device_); }

// --- the device -----------------------------------------------------------------

CudaDevice::CudaDevice(const DriverApi& api, int ordinal)
    : api_(api),
      ordinal_(ordinal),
      device_(get_device(api, ordinal)),
      context_(api, device_),
      label_("cuda:" + std::to_string(ordinal)),
      completions_(api, context_.get()) {
  bind();
  std::array<char, 256> name{};
  check(api_, api_.cuDeviceGetName(name.data(), int(name.size()), device_), "cuDeviceGetName");
  name_ = name.data();
  compute_capability_ = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) * 10 +
                        attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  read_limits();
  legacy_ = std::make_shared<CudaStream>(*this, CUstream{nullptr});
  per_thread_ = std::make_shared<CudaStream>(*this, CU_STREAM_PER_THREAD);
}

int CudaDevice::attribute(CUdevice_attribute attribute) const {
  int value = 0;
  check(api_, api_.cuDeviceGetAttribute(&value, attribute, device_), "cuDeviceGetAttribute");
  return value;
}

void CudaDevice::read_limits() {
  limits_.max_threads_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  limits_.max_block = {uint32_t(attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)),
                       uint32_t(attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)),
                       uint32_t(attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z))};
  limits_.max_grid = {uint32_t(attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)),
                      uint32_t(attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)),
                      uint32_t(attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z))};
  // The opt-in maximum: launch() opts a kernel in when it asks for more than 48 KiB.
  int shared = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  if (shared == 0) shared = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  limits_.max_shared_per_block = size_t(shared);
  limits_.warp_size = attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  limits_.multiprocessors = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
}

CudaStream& CudaDevice::own(Stream& stream) {
  // Only a CudaStream answers device() with a CudaDevice (both classes are final), so
  // the device check is the type check; it runs at every launch, a dynamic_cast need not.
  if (&stream.device() != this)
    throw std::invalid_argument("expected a stream of device " + label_ + ", got one of device " +
                                stream.device().name());
  auto& cuda_stream = static_cast<CudaStream&>(stream);
  cuda_stream.check_once();
  return cuda_stream;
}

CudaEvent& CudaDevice::own(Event& event) {
  auto* cuda_event = dynamic_cast<CudaEvent*>(&event);
  if (cuda_event == nullptr)
    throw std::invalid_argument("expected an event of device " + label_ +
                                ", got one of another device");
  return *cuda_event;
}

// --- memory and copies ----------------------------------------------------------

std::shared_ptr<Allocation> CudaDevice::allocate(size_t bytes, MemoryKind kind) {
  if (std::shared_ptr<Allocation> external = external_allocation(bytes, kind)) return external;
  return queued_allocation([&] { return std::make_unique<CudaAllocation>(*this, bytes, kind); });
}

void CudaDevice::copy(void* dst, const void* src, size_t bytes, Stream& stream,
                      std::vector<std::shared_ptr<const void>> keep_alive) {
  CudaStream& cuda_stream = own(stream);
  bind();
  completions_.sweep_sometimes();
  if (bytes == 0) return;
  // Unified addressing: the driver tells host from device pointers itself.
  check(api_,
        api_.cuMemcpyAsync(device_address(dst), device_address(src), bytes, cuda_stream.get()),
        "cuMemcpyAsync");
  if (!keep_alive.empty()) completions_.add(cuda_stream.get(), std::move(keep_alive));
}

void CudaDevice::check_accessible(const void* ptr) {
  bind();
  int ordinal = -1;
  CUresult r = api_.cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                          reinterpret_cast<CUdeviceptr>(ptr));
  if (r == CUDA_ERROR_INVALID_VALUE)
    throw std::invalid_argument("the array's memory at " + std::to_string(uintptr_t(ptr)) +
                                " is not known to CUDA (host memory that is not pinned, or a "
                                "freed pointer); kernels on " +
                                label_ + " cannot use it");
  check(api_, r, "cuPointerGetAttribute(DEVICE_ORDINAL)");
  if (ordinal != ordinal_)
    throw std::invalid_argument("the array's memory is on cuda:" + std::to_string(ordinal) +
                                ", but the launch is on " + label_ +
                                " (peer access is not enabled by cudajit)");
}

std::shared_ptr<void> CudaDevice::register_host(void* ptr, size_t bytes) {
  if (bytes == 0) return std::make_shared<int>(0);
  bind();
  // Mapped too, so that kernels may use it in place (cuda.mapped): with unified addressing
  // at its host address.
  check(api_,
        api_.cuMemHostRegister_v2(ptr, bytes,
                                  CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP),
        "cuMemHostRegister");
  const DriverApi* api = &api_;
  CUcontext context = context_.get();
  return std::shared_ptr<void>(ptr, [api, context](void* p) {
    // Nothing to do about a failure in a destructor.
    if (try_bind_context(*api, context)) api->cuMemHostUnregister(p);
  });
}

void CudaDevice::memset(void* dst, int value, size_t bytes, Stream& stream,
                        std::vector<std::shared_ptr<const void>> keep_alive) {
  CudaStream& cuda_stream = own(stream);
  bind();
  completions_.sweep_sometimes();
  if (bytes == 0) return;
  check(api_,
        api_.cuMemsetD8Async(device_address(dst), static_cast<unsigned char>(value), bytes,
                             cuda_stream.get()),
        "cuMemsetD8Async");
  if (!keep_alive.empty()) completions_.add(cuda_stream.get(), std::move(keep_alive));
}

// --- streams and events ---------------------------------------------------------

std::shared_ptr<Stream> CudaDevice::create_stream() { return std::make_shared<CudaStream>(*this); }

std::shared_ptr<Stream> CudaDevice::external_stream(uintptr_t handle) {
  if (handle == 0 || handle == reinterpret_cast<uintptr_t>(CU_STREAM_LEGACY)) return legacy_;
  if (handle == reinterpret_cast<uintptr_t>(CU_STREAM_PER_THREAD)) return per_thread_;
  auto stream = reinterpret_cast<CUstream>(handle);
  check_stream_context(stream);
  return std::make_shared<CudaStream>(*this, stream);
}

std::shared_ptr<Stream> CudaDevice::borrow_stream(uintptr_t handle) {
  if (handle == 0 || handle == reinterpret_cast<uintptr_t>(CU_STREAM_LEGACY)) return legacy_;
  if (handle == reinterpret_cast<uintptr_t>(CU_STREAM_PER_THREAD)) return per_thread_;
  return std::make_shared<CudaStream>(*this, reinterpret_cast<CUstream>(handle), false);
}

void CudaDevice::check_stream_context(CUstream stream) {
  if (api_.cuStreamGetCtx == nullptr) return;
  // A stream of another device (or context) would fail later, less clearly.
  bind();
  CUcontext owner = nullptr;
  CUresult result = api_.cuStreamGetCtx(stream, &owner);
  uintptr_t handle = reinterpret_cast<uintptr_t>(stream);
  if (result != CUDA_SUCCESS)  // the message only when needed: this runs at every launch
    check(api_, result, ("cuStreamGetCtx(" + hex(handle) + ")").c_str());
  if (owner != context_.get())
    throw std::invalid_argument("stream " + hex(handle) + " belongs to another CUDA context than " +
                                "the primary context of device " + label_ +
                                " (another device, or a context that is not primary)");
}

void CudaDevice::activate_context() {
  check_not_forked();
  CUcontext current = nullptr;
  check(api_, api_.cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  if (current == nullptr) {
    check(api_, api_.cuCtxSetCurrent(context_.get()), "cuCtxSetCurrent");
    return;
  }
  if (current == context_.get()) return;
  // Another device's primary context is left current (the device's own work binds its
  // context); a context that is no device's primary one is refused, as in Numba.
  CUdevice owner = 0;
  if (api_.cuCtxGetDevice != nullptr && api_.cuCtxGetDevice(&owner) == CUDA_SUCCESS) {
    CUcontext primary = nullptr;
    if (api_.cuDevicePrimaryCtxRetain(&primary, owner) == CUDA_SUCCESS) {
      api_.cuDevicePrimaryCtxRelease_v2(owner);
      if (primary == current) return;
    }
  }
  throw std::runtime_error(
      "Numba cannot operate on non-primary CUDA context " +
      hex(reinterpret_cast<uintptr_t>(current)) +
      ", nor can cudajit: its work runs in each device's primary context, and the calling "
      "thread has another context current (made by cuCtxCreate); pop it first");
}

std::shared_ptr<Event> CudaDevice::create_event(bool timing) {
  return std::make_shared<CudaEvent>(*this, timing);
}

void CudaDevice::order_streams(Stream& waiter, Stream& producer) {
  CUstream waiting = own(waiter).get(), producing = own(producer).get();
  bind();
  completions_.order_streams(waiting, producing);
}

std::pair<uint64_t, uint64_t> CudaDevice::memory_info() {
  bind();
  size_t free = 0, total = 0;
  check(api_, api_.cuMemGetInfo_v2(&free, &total), "cuMemGetInfo");
  return {free, total};
}

void CudaDevice::synchronize() {
  bind();
  if (waits_interruptible()) {
    // cuCtxSynchronize has no query: a helper thread (the context current there) makes the
    // call, and this one waits for it interruptibly; after a Ctrl-C the helper waits alone.
    // The device outlives it (devices are never destroyed before exit).
    auto result = std::make_shared<std::atomic<int>>(-1);
    std::thread([api = &api_, context = context_.get(), result] {
      CUresult r = api->cuCtxSetCurrent(context);
      if (r == CUDA_SUCCESS) r = api->cuCtxSynchronize();
      result->store(static_cast<int>(r));
    }).detach();
    poll_until([&] { return result->load() >= 0; });
    check(api_, static_cast<CUresult>(result->load()), "cuCtxSynchronize");
  } else {
    check(api_, api_.cuCtxSynchronize(), "cuCtxSynchronize");
  }
  completions_.reached(std::nullopt);
}

// --- kernels --------------------------------------------------------------------

std::shared_ptr<LoadedKernel> CudaDevice::load(const KernelCode& code) {
  if (code.ptx.empty())
    throw std::invalid_argument("device " + label_ + " loads PTX: KernelCode::ptx is empty for " +
                                "kernel '" + code.entry_name + "'");
  auto module = std::make_shared<CudaModule>(*this, code.ptx, code.links);
  return std::make_shared<CudaKernel>(*this, std::move(module), code.entry_name, code.cooperative,
                                      code.shared_memory_carveout);
}

// A kernel that syncs its grid: every block resident at once (checked first,
// for a message naming the limit), and a fresh zeroed workspace for the
// barrier, its last parameter, held until the kernel ends.
void CudaDevice::launch_cooperative(CudaKernel& kernel, Dim3 grid, Dim3 block,
                                    unsigned shared_bytes, CudaStream& stream, KernelParams params,
                                    std::vector<std::shared_ptr<const void>>& keep_alive) {
  check_cooperative_grid(kernel.name(), grid, block,
                         kernel.max_cooperative_blocks(block.count(), shared_bytes), label_);
  std::shared_ptr<Allocation> workspace = allocate(16, MemoryKind::Device);
  memset(workspace->device_pointer(), 0, 16, stream);
  params.append(workspace->device_pointer());
  check(api_,
        api_.cuLaunchCooperativeKernel(kernel.function(), grid.x, grid.y, grid.z, block.x, block.y,
                                       block.z, shared_bytes, stream.get(), params.pointers()),
        "cuLaunchCooperativeKernel");
  keep_alive.push_back(std::move(workspace));
}

void CudaDevice::launch(LoadedKernel& kernel, Dim3 grid, Dim3 block, unsigned shared_bytes,
                        Stream& stream, KernelParams params,
                        std::vector<std::shared_ptr<const void>> keep_alive) {
  auto* cuda_kernel = dynamic_cast<CudaKernel*>(&kernel);
  if (cuda_kernel == nullptr || &cuda_kernel->device() != this)
    throw std::invalid_argument("device " + label_ + " can launch only kernels it loaded");
  check_launch_config(limits_, grid, block, shared_bytes, label_);
  if (block.count() > uint64_t(cuda_kernel->max_threads_per_block()))
    throw std::invalid_argument("kernel '" + cuda_kernel->name() + "' can run at most " +
                                std::to_string(cuda_kernel->max_threads_per_block()) +
                                " threads per block on device " + label_ +
                                " (its registers limit it), got block " + format_dim3(block) +
                                " of " + std::to_string(block.count()));
  if (cuda_kernel->static_shared_bytes() + shared_bytes > limits_.max_shared_per_block)
    throw std::invalid_argument(
        "kernel '" + cuda_kernel->name() + "' uses " +
        std::to_string(cuda_kernel->static_shared_bytes()) + " bytes of static shared memory; " +
        "with " + std::to_string(shared_bytes) + " dynamic bytes that exceeds the limit of " +
        std::to_string(limits_.max_shared_per_block) + " bytes per block on device " + label_);
  CudaStream& cuda_stream = own(stream);
  bind();
  completions_.sweep_sometimes();
  cuda_kernel->allow_dynamic_shared(shared_bytes);
  if (cuda_kernel->cooperative()) {
    launch_cooperative(*cuda_kernel, grid, block, shared_bytes, cuda_stream, std::move(params),
                       keep_alive);
  } else {
    check(api_,
          api_.cuLaunchKernel(cuda_kernel->function(), grid.x, grid.y, grid.z, block.x, block.y,
                              block.z, shared_bytes, cuda_stream.get(), params.pointers(), nullptr),
          "cuLaunchKernel");
  }
  if (!keep_alive.empty()) completions_.add(cuda_stream.get(), std::move(keep_alive));
}

}  // namespace cudajit::runtime::cuda
