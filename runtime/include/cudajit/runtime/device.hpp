// The device interface of the runtime: memory, streams, events, loading and
// launching kernels. Two implementations: `cuda` (the driver API, dlopen'd at
// first use) and `cpu` (host memory, worker-thread streams, host-compiled code).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudajit/compiler/target.hpp"
#include "cudajit/runtime/deallocations.hpp"
#include "cudajit/runtime/host_launch.hpp"

namespace cudajit::runtime {

enum class DeviceKind { Cpu, Cuda };
enum class MemoryKind { Device, Pinned, Mapped, Managed };

// A CUDA driver call failed: names the call and the CUresult (name and text).
// An allocation the cpu device cannot make (Python: MemoryError). The cuda device reports
// CUDA_ERROR_OUT_OF_MEMORY as a DriverError with that code.
class OutOfMemory : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class DriverError : public std::runtime_error {
 public:
  DriverError(std::string call, int code, std::string code_name, std::string detail)
      : std::runtime_error(call + " failed: " + code_name + " (" + detail + ")"),
        call_(std::move(call)),
        code_(code),
        code_name_(std::move(code_name)) {}
  const std::string& call() const { return call_; }
  int code() const { return code_; }
  const std::string& code_name() const { return code_name_; }

 private:
  std::string call_;
  int code_;
  std::string code_name_;
};

// The cuda device cannot be used: no driver, no GPU, a driver too old.
class CudaUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Device;
class Event;

// Memory of one device, freed when the last reference goes. Launches and
// copies hold a reference until their work has finished.
class Allocation {
 public:
  virtual ~Allocation() = default;
  virtual void* device_pointer() const = 0;  // what kernels see
  virtual void* host_pointer() const = 0;    // null for plain device memory on cuda
  virtual size_t size() const = 0;
  virtual MemoryKind kind() const = 0;
  virtual Device& device() const = 0;
};

// An in-order queue of work on one device.
class Stream {
 public:
  virtual ~Stream() = default;
  virtual Device& device() const = 0;
  // CUDA's values on both devices: 0 the legacy default stream, 2 the
  // per-thread default stream; a created stream has its CUstream (cuda) or a
  // unique id from 0x1000 up (cpu), never 0, 1 or 2. The CUDA Array Interface
  // spells the legacy default stream 1: an export maps 0 to 1.
  virtual uintptr_t handle() const = 0;
  // cpu: also rethrows the first exception a host task of this stream threw.
  virtual void synchronize() = 0;
  virtual bool query() = 0;  // true when every queued item has finished
  // A blocking stream in CUDA's sense: ordered with the legacy default stream both ways
  // (work on either waits for the work queued before it on the other). The cpu device's
  // streams all are; on cuda, created streams and the default streams, not borrowed ones
  // (their flags are not known).
  virtual bool blocking() const = 0;
  // Made elsewhere and borrowed by handle (Numba's Stream.external): a CUstream that
  // cudajit did not create. The default streams and the cpu device's streams never are.
  virtual bool external() const { return false; }
  // Work queued after this call waits until `event` has completed.
  virtual void wait(Event& event) = 0;
  // Runs `fn` on the host once all work queued before it has finished, in
  // stream order; used by the cpu device for everything and by both for
  // host-side completion work. `fn` must not call into Python.
  // cpu: on the stream's worker thread; later work on the stream waits for it.
  // cuda: at the next sweep after the stream reached it, on whichever host
  // thread next launches, copies, queries or synchronizes on the device; later
  // work on the stream does not wait for it (no driver callback is used, so
  // `fn` may call the driver).
  virtual void enqueue_host(std::function<void()> fn) = 0;
};

class Event {
 public:
  virtual ~Event() = default;
  virtual void record(Stream& stream) = 0;
  virtual void synchronize() = 0;
  virtual bool query() = 0;  // true when recorded work has completed (or never recorded)
  // Milliseconds from this event to `end`; both timing events, recorded and complete.
  virtual float elapsed_ms(Event& end) = 0;
  virtual bool timing() const = 0;
};

struct DeviceLimits {
  int max_threads_per_block = 1024;
  std::array<uint32_t, 3> max_block{1024, 1024, 64};
  std::array<uint32_t, 3> max_grid{0x7fffffffu, 65535u, 65535u};
  size_t max_shared_per_block = 48 * 1024;
  int warp_size = 32;
  int multiprocessors = 1;
};

// Foreign device code a kernel is linked with on the cuda device (cuda.declare_device,
// jit(link=...)): bytes as the driver's linker takes them. CUDA C++ arrives compiled to PTX.
struct LinkInput {
  enum class Kind { Ptx, Cubin, Fatbin, Object, Library };
  Kind kind = Kind::Ptx;
  std::string name;  // for the linker's messages (a file's path)
  std::string data;
};

// What a device loads: PTX (cuda) or a host entry point (cpu).
struct KernelCode {
  std::string ptx;
  // Linked with `ptx` through the driver's cuLink* before loading; attached at load, never
  // cached with the code (so the code cache and the disk hold the kernel's own PTX only).
  std::vector<LinkInput> links;
  std::string entry_name;
  // The kernel syncs its grid (cuda.cg): a cooperative launch, whose PTX
  // entry takes the grid workspace as a last parameter the device supplies.
  bool cooperative = false;
  // jit(shared_memory_carveout=): the percentage of the unified L1/shared memory preferred
  // as shared memory (CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT), set at load on a
  // GPU; -1 leaves the driver's default. No meaning on the cpu device.
  int shared_memory_carveout = -1;
  target::HostKernel host;  // the cpu device's code
  // For a disk cache: the object file `host` was linked from (entry_name its entry), and
  // whether that entry runs a thread (HostThreadEntry) or a range of blocks (HostEntry).
  std::string host_object;
  bool host_per_thread = false;
  // For messages about the kernel (the cpu device's index errors).
  std::string kernel_name;
  std::string source_file;
};

// A kernel on the cpu device indexed an array out of bounds (bounds checking
// is on by default there): raised at the next synchronisation of its stream.
// An IndexError in Python.
class KernelIndexError : public std::out_of_range {
 public:
  using std::out_of_range::out_of_range;
};

// What a loaded kernel uses, as the driver reports it (cuFuncGetAttribute); a kernel
// of the cpu device reports what it has (no registers, its static shared memory).
struct KernelResources {
  int registers_per_thread = 0;
  int64_t static_shared_bytes = 0;
  int64_t local_bytes_per_thread = 0;
  int64_t const_bytes = 0;
  int max_threads_per_block = 0;
  int shared_memory_carveout = -1;  // the driver's preferred carveout; -1: its default
};

class LoadedKernel {
 public:
  virtual ~LoadedKernel() = default;
  virtual KernelResources resources() const = 0;
  // The most blocks of `block_threads` threads (with `shared_bytes` of dynamic shared
  // memory) the device holds at once: the largest grid a cooperative launch may have.
  virtual int64_t max_resident_blocks(uint64_t block_threads, size_t shared_bytes) = 0;
};

// Flattened parameter values of one launch: each in a 16-byte slot, with the
// array of pointers to them that cuLaunchKernel and host entries take.
// Movable: the pointers are rebuilt from the slots.
class KernelParams {
 public:
  explicit KernelParams(size_t count = 0);
  KernelParams(KernelParams&& other) noexcept;
  KernelParams& operator=(KernelParams&& other) noexcept;
  KernelParams(const KernelParams& other);
  template <class T>
  void set(size_t index, const T& value) {
    static_assert(sizeof(T) <= sizeof(Slot));
    std::memcpy(slots_[index].bytes.data(), &value, sizeof value);
  }
  void** pointers() { return pointers_.data(); }
  size_t size() const { return slots_.size(); }
  // Parameter `index` is the data of an array of `bytes` bytes: the cpu device writes arrays
  // too large for its caches past them (LaunchDims::large_arrays); the first 64 parameters.
  void note_array(size_t index, uint64_t bytes);
  uint64_t large_arrays() const { return large_arrays_; }
  // One more parameter after the others (a hidden one the device supplies).
  template <class T>
  void append(const T& value) {
    slots_.emplace_back();
    set(slots_.size() - 1, value);
    rebuild_pointers();
  }

 private:
  struct alignas(16) Slot {
    std::array<std::byte, 16> bytes;
  };
  void rebuild_pointers();
  std::vector<Slot> slots_;
  std::vector<void*> pointers_;
  uint64_t large_arrays_ = 0;
};

class Device {
 public:
  virtual ~Device() = default;
  virtual DeviceKind kind() const = 0;
  virtual int ordinal() const = 0;
  virtual std::string name() const = 0;
  virtual int compute_capability() const = 0;  // major*10+minor; 0 on cpu
  virtual const DeviceLimits& limits() const = 0;
  // The driver's context the device's work runs in (its primary context); 0 on the cpu.
  virtual uintptr_t context_handle() const { return 0; }
  // Makes the device's context current on the calling thread if the thread has none, as
  // Numba's current_context() does, so that a third party's driver calls that follow find
  // it; a primary context already current is kept. cuda: std::runtime_error when another
  // context, not a device's primary one, is current (cudajit works in primary contexts).
  virtual void activate_context() {}

  // Throws std::runtime_error (cpu) or DriverError (cuda) when out of memory.
  // 0 bytes is allowed and gives null pointers. Device memory is aligned to 256 bytes.
  virtual std::shared_ptr<Allocation> allocate(size_t bytes, MemoryKind kind) = 0;
  // Stream-ordered copies and fills; pointers may be host or device (unified addressing).
  // `keep_alive` is held until the copy has finished.
  virtual void copy(void* dst, const void* src, size_t bytes, Stream& stream,
                    std::vector<std::shared_ptr<const void>> keep_alive = {}) = 0;
  virtual void memset(void* dst, int value, size_t bytes, Stream& stream,
                      std::vector<std::shared_ptr<const void>> keep_alive = {}) = 0;
  // Throws std::invalid_argument when kernels on this device cannot use memory
  // at `ptr` (cuda: not device-accessible, or another device's). The cpu
  // device takes any host pointer.
  virtual void check_accessible(const void* ptr) = 0;
  // Page-locks host memory until the returned token is released
  // (cuMemHostRegister); the cpu device has nothing to do.
  virtual std::shared_ptr<void> register_host(void* ptr, size_t bytes) = 0;

  virtual std::shared_ptr<Stream> create_stream() = 0;
  virtual std::shared_ptr<Stream> legacy_default_stream() = 0;
  virtual std::shared_ptr<Stream> per_thread_default_stream() = 0;
  // A stream made elsewhere (CuPy, PyTorch); not owned. 0 and 1
  // (CU_STREAM_LEGACY) give legacy_default_stream(), 2 per_thread_default_stream().
  // cpu: only the handles of its own live streams, else std::invalid_argument.
  // cuda: std::invalid_argument for a stream of another context.
  virtual std::shared_ptr<Stream> external_stream(uintptr_t handle) = 0;
  // The same, for a handle wrapped once and kept (cuda.external_stream): cuda checks the
  // handle's context at the stream's first use rather than now, as Numba touches it only
  // when it is used (the wrapper is made before, or without, any work on it).
  virtual std::shared_ptr<Stream> borrow_stream(uintptr_t handle) {
    return external_stream(handle);
  }
  virtual std::shared_ptr<Event> create_event(bool timing) = 0;
  // Work queued on `waiter` after this call waits for the work queued on `producer` before
  // it (an event recorded on one and waited for on the other; cuda recycles the event).
  virtual void order_streams(Stream& waiter, Stream& producer) {
    std::shared_ptr<Event> event = create_event(false);
    event->record(producer);
    waiter.wait(*event);
  }
  virtual void synchronize() = 0;  // every stream of the device
  // Free and total bytes of the device's memory (cpu: the host's available and
  // total memory).
  virtual std::pair<uint64_t, uint64_t> memory_info() = 0;

  virtual std::shared_ptr<LoadedKernel> load(const KernelCode& code) = 0;
  // Checks grid/block/shared memory against limits() (ValueError-worthy
  // std::invalid_argument), then queues the kernel on `stream`. The params are
  // copied; `keep_alive` is held until the kernel has finished.
  virtual void launch(LoadedKernel& kernel, Dim3 grid, Dim3 block, unsigned shared_bytes,
                      Stream& stream, KernelParams params,
                      std::vector<std::shared_ptr<const void>> keep_alive) = 0;
  // Memory of this device whose last reference went, waiting to be freed in a batch
  // (numba-cuda's deferred deallocations; cuda.defer_cleanup() disables the flushes).
  PendingDeallocations& deallocations() { return deallocations_; }

  // An allocator of device memory (MemoryKind::Device, at least one byte) that replaces the
  // device's own: numba's External Memory Management plugins. Its allocations free
  // themselves when released (their owner decides when), not through deallocations().
  // An empty function restores the device's own; an allocator returning null leaves that
  // allocation to the device.
  using DeviceAllocator = std::function<std::shared_ptr<Allocation>(Device&, size_t bytes)>;
  void set_device_allocator(DeviceAllocator allocator);
  bool has_device_allocator() const;

 protected:
  // The external allocator's allocation of `bytes` of `kind`, or null where the device's own
  // allocates it (no allocator set, another kind, or 0 bytes).
  std::shared_ptr<Allocation> external_allocation(size_t bytes, MemoryKind kind);
  // `make()`'s allocation, released through deallocations(). When it fails for lack of
  // memory (OutOfMemory, or CUDA_ERROR_OUT_OF_MEMORY), the pending deallocations are freed
  // and it is tried once more, as numba-cuda does.
  std::shared_ptr<Allocation> queued_allocation(
      const std::function<std::unique_ptr<Allocation>()>& make);

 private:
  PendingDeallocations deallocations_{[this] { return memory_info().second; }};
  mutable std::mutex allocator_mutex_;
  DeviceAllocator device_allocator_;
};

// --- the devices of this process ------------------------------------------------

Device& cpu_device();
// Loads the driver on first call. cuda_available() never throws.
bool cuda_available();
std::string cuda_unavailable_reason();  // empty when available
int cuda_device_count();
// Whether the loaded driver is cudajit's simulated GPU (libcudajit_sim.so), and which file
// the cuda device loads ($CUDAJIT_LIBCUDA, the simulator for CUDAJIT_DEVICE=sim, libcuda.so.1).
bool cuda_simulated();
std::string cuda_driver_library();
Device& cuda_device(int ordinal);  // throws CudaUnavailable or std::out_of_range

}  // namespace cudajit::runtime
