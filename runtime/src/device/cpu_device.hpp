// The cpu device: host memory, streams as worker-thread queues, events, and
// kernels compiled for the host, their blocks spread over the worker pool.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "cpu_queue.hpp"
#include "cudajit/runtime/device.hpp"

namespace cudajit::runtime {

class CpuDevice;

// Stream handles of the cpu device, chosen as CUDA's: 0 (and CU_STREAM_LEGACY,
// 1) name the legacy default stream, 2 (CU_STREAM_PER_THREAD) the calling
// thread's default stream; created streams get unique ids from 0x1000 up.
inline constexpr uintptr_t kLegacyStreamHandle = 0;
inline constexpr uintptr_t kLegacyStreamAlias = 1;
inline constexpr uintptr_t kPerThreadStreamHandle = 2;
inline constexpr uintptr_t kFirstCreatedStreamHandle = 0x1000;

// Host memory, aligned to 256 bytes as cuMemAlloc's is.
class CpuAllocation final : public Allocation {
 public:
  CpuAllocation(CpuDevice& device, size_t bytes, MemoryKind kind);
  ~CpuAllocation() override;
  void* device_pointer() const override { return data_.get(); }
  void* host_pointer() const override { return data_.get(); }
  size_t size() const override { return size_; }
  MemoryKind kind() const override { return kind_; }
  Device& device() const override;

 private:
  struct Free {
    void operator()(void* p) const;
  };
  CpuDevice& device_;
  std::unique_ptr<void, Free> data_;  // null for 0 bytes
  size_t size_;
  MemoryKind kind_;
};

class CpuStream final : public Stream {
 public:
  CpuStream(CpuDevice& device, uintptr_t handle);
  ~CpuStream() override;  // returns at once; queued work still runs (as cuStreamDestroy)
  CpuStream(const CpuStream&) = delete;
  CpuStream& operator=(const CpuStream&) = delete;

  Device& device() const override;
  uintptr_t handle() const override { return handle_; }
  void synchronize() override { queue_->synchronize(); }
  bool query() override { return queue_->idle(); }
  bool blocking() const override { return true; }
  void wait(Event& event) override;
  void enqueue_host(std::function<void()> fn) override;

  bool is_legacy() const { return handle_ == kLegacyStreamHandle; }
  const std::shared_ptr<CpuQueue>& queue() const { return queue_; }

 private:
  CpuDevice& device_;
  uintptr_t handle_;
  std::shared_ptr<CpuQueue> queue_;
};

// One recording of an event: complete, with its time, once its stream reaches it.
class EventRecord {
 public:
  using Clock = std::chrono::steady_clock;
  void complete();
  void wait();
  bool done();
  Clock::time_point time();  // valid once done()

 private:
  std::mutex mutex_;
  std::condition_variable completed_;
  bool done_ = false;
  Clock::time_point time_;
};

class CpuEvent final : public Event {
 public:
  CpuEvent(CpuDevice& device, bool timing) : device_(device), timing_(timing) {}
  void record(Stream& stream) override;
  void synchronize() override;
  bool query() override;
  float elapsed_ms(Event& end) override;
  bool timing() const override { return timing_; }

  // The latest recording; null if never recorded. Stream::wait uses the one
  // current at the time of the call, as cuStreamWaitEvent does.
  std::shared_ptr<EventRecord> current_record();

 private:
  CpuDevice& device_;
  bool timing_;
  std::mutex mutex_;
  std::shared_ptr<EventRecord> record_;
};

// What messages about a kernel name; shared with its queued launches, which
// may outlive the kernel object.
struct CpuKernelInfo {
  std::string name;
  std::string source_file;
  // "kernel 'k' (file.py:12:8): index 10 is out of bounds for axis 0 with size 10"
  std::string index_error_message(const target::IndexErrorRecord& record) const;
};

class CpuKernel final : public LoadedKernel {
 public:
  CpuKernel(target::HostKernel code, std::string name, std::string source_file)
      : code_(code),
        info_(std::make_shared<CpuKernelInfo>(
            CpuKernelInfo{std::move(name), std::move(source_file)})) {}
  const target::HostKernel& code() const { return code_; }
  const std::string& name() const { return info_->name; }
  const std::shared_ptr<const CpuKernelInfo>& info() const { return info_; }
  KernelResources resources() const override;
  int64_t max_resident_blocks(uint64_t block_threads, size_t shared_bytes) override;

 private:
  target::HostKernel code_;
  std::shared_ptr<const CpuKernelInfo> info_;
};

class CpuDevice final : public Device {
 public:
  CpuDevice();
  DeviceKind kind() const override { return DeviceKind::Cpu; }
  int ordinal() const override { return 0; }
  std::string name() const override { return "cpu"; }
  int compute_capability() const override { return 0; }
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
  std::shared_ptr<Stream> per_thread_default_stream() override;
  std::shared_ptr<Stream> external_stream(uintptr_t handle) override;
  std::shared_ptr<Event> create_event(bool timing) override;
  void synchronize() override;
  std::pair<uint64_t, uint64_t> memory_info() override;

  std::shared_ptr<LoadedKernel> load(const KernelCode& code) override;
  void launch(LoadedKernel& kernel, Dim3 grid, Dim3 block, unsigned shared_bytes, Stream& stream,
              KernelParams params, std::vector<std::shared_ptr<const void>> keep_alive) override;

  // Queues `task` on `stream`, after the work CUDA's legacy default stream
  // rules make it wait for (see cpu_stream.cpp).
  void enqueue(CpuStream& stream, std::function<void()> task);
  // `stream` (or `event`) as one of this device's; std::invalid_argument otherwise.
  CpuStream& own(Stream& stream);
  CpuEvent& own(Event& event);

 private:
  std::shared_ptr<CpuStream> make_stream(uintptr_t handle);
  std::vector<Fence> legacy_dependencies(const CpuStream& stream);

  friend class CpuAllocation;
  // Memory this device allocated or page-locked, by start: a copy with an end anywhere else
  // touches pageable host memory and is complete when copy() returns, as CUDA's staging
  // makes it (a pageable source is read at once, a pageable destination waited for).
  void track(const void* begin, size_t bytes);
  void untrack(const void* begin);
  bool tracked(const void* begin, size_t bytes);

  DeviceLimits limits_;
  std::mutex ranges_mutex_;
  std::map<uintptr_t, uintptr_t> ranges_;  // begin -> end
  std::mutex order_mutex_;                 // makes "which work came first" one order across streams
  std::vector<std::weak_ptr<CpuQueue>> queues_;            // every queue but the legacy one's
  std::map<uintptr_t, std::weak_ptr<CpuStream>> created_;  // for external_stream()
  uintptr_t next_handle_ = kFirstCreatedStreamHandle;
  std::shared_ptr<CpuStream> legacy_;
};

}  // namespace cudajit::runtime
