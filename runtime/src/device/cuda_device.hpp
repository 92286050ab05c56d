// The cuda device: one GPU through the driver API, in its primary context.
// Every driver handle has an owner here that releases it.
//
// Stream handles are CUstream values: 0 the legacy default stream (the driver
// API's null stream; CU_STREAM_LEGACY, 1, names it too), 2 (CU_STREAM_PER_THREAD)
// the per-thread default stream, any other value a stream's CUstream pointer.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "cuda_completion.hpp"
#include "cuda_driver.hpp"
#include "cudajit/runtime/device.hpp"

namespace cudajit::runtime::cuda {

class CudaDevice;

// The device's primary context, retained for as long as this lives.
class PrimaryContext {
 public:
  PrimaryContext(const DriverApi& api, CUdevice device);
  ~PrimaryContext();
  PrimaryContext(const PrimaryContext&) = delete;
  PrimaryContext& operator=(const PrimaryContext&) = delete;
  CUcontext get() const { return context_; }

 private:
  const DriverApi& api_;
  CUdevice device_;
  CUcontext context_ = nullptr;
};

class CudaAllocation final : public Allocation {
 public:
  CudaAllocation(CudaDevice& device, size_t bytes, MemoryKind kind);
  ~CudaAllocation() override;
  CudaAllocation(const CudaAllocation&) = delete;
  CudaAllocation& operator=(const CudaAllocation&) = delete;

  void* device_pointer() const override { return reinterpret_cast<void*>(uintptr_t(address_)); }
  void* host_pointer() const override { return host_; }
  size_t size() const override { return size_; }
  MemoryKind kind() const override { return kind_; }
  Device& device() const override;

 private:
  void allocate();
  void release() noexcept;

  CudaDevice& device_;
  size_t size_;
  MemoryKind kind_;
  CUdeviceptr address_ = 0;  // 0 for 0 bytes
  void* host_ = nullptr;     // pinned, mapped and managed memory only
};

class CudaStream final : public Stream {
 public:
  // A new stream (cuStreamCreate, default flags: it synchronises with the
  // legacy default stream, as Numba's cuda.stream() does), owned.
  explicit CudaStream(CudaDevice& device);
  // A stream made elsewhere, or a special handle (null, per-thread): not owned.
  // `checked`: its context was checked (CudaDevice::check_stream_context); if not, it
  // is checked at its first use.
  CudaStream(CudaDevice& device, CUstream borrowed, bool checked = true);
  ~CudaStream() override;
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  Device& device() const override;
  uintptr_t handle() const override { return reinterpret_cast<uintptr_t>(stream_); }
  void synchronize() override;
  bool query() override;
  // Created streams (default flags) and the default streams; not borrowed ones (their flags
  // are not known).
  bool blocking() const override {
    return owned_ || stream_ == nullptr || stream_ == CU_STREAM_LEGACY ||
           stream_ == CU_STREAM_PER_THREAD;
  }
  bool external() const override {
    return !owned_ && stream_ != nullptr && stream_ != CU_STREAM_LEGACY &&
           stream_ != CU_STREAM_PER_THREAD;
  }
  void wait(Event& event) override;
  // Runs `fn` at a later sweep once the stream has reached this point: on the
  // host thread that next launches, copies, queries or synchronizes on the
  // device. Later work on the stream does not wait for `fn`.
  void enqueue_host(std::function<void()> fn) override;

  CUstream get() const { return stream_; }
  // Checks a borrowed stream's context at its first use (see the constructor).
  void check_once();

 private:
  CudaDevice& device_;
  CUstream stream_ = nullptr;
  bool owned_;
  std::atomic<bool> checked_{true};
};

class CudaEvent final : public Event {
 public:
  CudaEvent(CudaDevice& device, bool timing);
  ~CudaEvent() override;
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;

  void record(Stream& stream) override;
  void synchronize() override;
  bool query() override;
  float elapsed_ms(Event& end) override;
  bool timing() const override { return timing_; }

  CUevent get() const { return event_; }
  bool recorded() const { return recorded_; }

 private:
  CudaDevice& device_;
  bool timing_;
  std::atomic<bool> recorded_ = false;
  CUevent event_ = nullptr;
};

// A module loaded from PTX; unloaded when the last kernel of it goes.
class CudaModule {
 public:
  // Throws DriverError carrying the JIT's error log when the PTX does not load. With
  // `links`, the PTX and they are linked first (cuLink*) and the linked image is loaded.
  CudaModule(CudaDevice& device, const std::string& ptx, const std::vector<LinkInput>& links = {});
  ~CudaModule();
  CudaModule(const CudaModule&) = delete;
  CudaModule& operator=(const CudaModule&) = delete;
  CUmodule get() const { return module_; }

 private:
  CudaDevice& device_;
  CUmodule module_ = nullptr;
};

class CudaKernel final : public LoadedKernel {
 public:
  CudaKernel(CudaDevice& device, std::shared_ptr<CudaModule> module, const std::string& name,
             bool cooperative, int shared_memory_carveout = -1);
  CudaDevice& device() const { return device_; }
  CUfunction function() const { return function_; }
  const std::string& name() const { return name_; }
  int max_threads_per_block() const { return max_threads_per_block_; }  // lower with many registers
  size_t static_shared_bytes() const { return static_shared_bytes_; }
  // Syncs its grid: launched cooperatively with a grid workspace as last parameter.
  bool cooperative() const { return cooperative_; }
  // How many blocks of `block_threads` (and `shared_bytes` dynamic shared
  // memory) can be resident at once: a cooperative launch's largest grid.
  int64_t max_cooperative_blocks(uint64_t block_threads, size_t shared_bytes);
  KernelResources resources() const override;
  int64_t max_resident_blocks(uint64_t block_threads, size_t shared_bytes) override {
    return max_cooperative_blocks(block_threads, shared_bytes);
  }
  // Opts in to `bytes` of dynamic shared memory where static + dynamic passes
  // 48 KiB (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES).
  void allow_dynamic_shared(size_t bytes);

 private:
  CudaDevice& device_;
  std::shared_ptr<CudaModule> module_;
  std::string name_;
  CUfunction function_ = nullptr;
  int max_threads_per_block_ = 0;
  size_t static_shared_bytes_ = 0;
  bool cooperative_ = false;
  std::mutex shared_mutex_;
  size_t dynamic_shared_allowed_ = 0;
};

class CudaDevice final : public Device {
 public:
  CudaDevice(const DriverApi& api, int ordinal);
  DeviceKind kind() const override { return DeviceKind::Cuda; }
  int ordinal() const override { return ordinal_; }
  std::string name() const override { return name_; }
  int compute_capability() const override { return compute_capability_; }
  const DeviceLimits& limits() const override { return limits_; }

  std::shared_ptr<Allocation> allocate(size_t bytes, MemoryKind kind) override;
  void copy(void* dst, const void* src, size_t bytes, Stream& stream,
            std::vector<std::shared_ptr<const void>> keep_alive = {}) override;
  void memset(void* dst, int value, size_t bytes, Stream& stream,
              std::vector<std::shared_ptr<const void>> keep_alive = {}) override;
  void check_accessible(const void* ptr) override;
  std::shared_ptr<void> register_host(void* ptr, size_t bytes) override;

  std::shared_ptr<Stream> create_stream() override;
  std::shared_ptr<Stream> legacy_default_stream() override { return legacy_; }
  std::shared_ptr<Stream> per_thread_default_stream() override { return per_thread_; }
  std::shared_ptr<Stream> external_stream(uintptr_t handle) override;
  std::shared_ptr<Stream> borrow_stream(uintptr_t handle) override;
  // std::invalid_argument (or the driver's error) unless `stream` is a stream of the
  // primary context; nothing where the driver lacks cuStreamGetCtx.
  void check_stream_context(CUstream stream);
  void activate_context() override;
  std::shared_ptr<Event> create_event(bool timing) override;
  void order_streams(Stream& waiter, Stream& producer) override;
  void synchronize() override;
  std::pair<uint64_t, uint64_t> memory_info() override;

  std::shared_ptr<LoadedKernel> load(const KernelCode& code) override;
  void launch(LoadedKernel& kernel, Dim3 grid, Dim3 block, unsigned shared_bytes, Stream& stream,
              KernelParams params, std::vector<std::shared_ptr<const void>> keep_alive) override;

  const DriverApi& api() const { return api_; }
  CUcontext context() const { return context_.get(); }
  uintptr_t context_handle() const override { return reinterpret_cast<uintptr_t>(context()); }
  // "cuda:0", for messages.
  const std::string& label() const { return label_; }
  // Makes the primary context current on the calling thread (if it is not).
  void bind() const { bind_context(api_, context_.get()); }
  CompletionList& completions() { return completions_; }
  CudaStream& own(Stream& stream);
  CudaEvent& own(Event& event);
  // cuDeviceGetAttribute (device_attributes.cpp answers Numba's Device attributes with it).
  int attribute(CUdevice_attribute attribute) const;

 private:
  void read_limits();
  void launch_cooperative(CudaKernel& kernel, Dim3 grid, Dim3 block, unsigned shared_bytes,
                          CudaStream& stream, KernelParams params,
                          std::vector<std::shared_ptr<const void>>& keep_alive);

  const DriverApi& api_;
  int ordinal_;
  CUdevice device_ = 0;
  PrimaryContext context_;
  std::string name_, label_;
  int compute_capability_ = 0;
  DeviceLimits limits_;
  CompletionList completions_;
  std::shared_ptr<CudaStream> legacy_, per_thread_;
};

}  // namespace cudajit::runtime::cuda
