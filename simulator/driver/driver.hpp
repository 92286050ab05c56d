// The stand-in CUDA driver's state: one simulated device (an H100 by default),
// its primary context, memory, modules, streams and events. Every handle given
// out is a pointer to one of these objects and is checked against the live set
// before use, so a stale or foreign handle is CUDA_ERROR_INVALID_HANDLE, never
// a crash.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <unordered_set>

#include "cudajit/cuda_api.h"
#include "exec/device_heap.hpp"
#include "exec/executor.hpp"
#include "exec/memory.hpp"
#include "exec/program.hpp"

namespace cudajit::sim::driver {

// What cuDriverGetVersion reports: the CUDA 13.0 driver API (1000 * major + 10 * minor).
inline constexpr int kDriverVersion = 13000;

// What a compute capability's device reports (cuDeviceGetAttribute).
struct DeviceModel {
  int major = 9, minor = 0;
  std::string name;
  int multiprocessors = 132;
  int shared_per_block_optin = 232448;
  int shared_per_multiprocessor = 233472;
  int threads_per_multiprocessor = 2048;
  int blocks_per_multiprocessor = 32;
  int registers_per_block = 65536;
  int l2_bytes = 52428800;
  int clock_khz = 1980000;
  uint64_t total_memory = 80ull << 30;
  int sm() const { return major * 10 + minor; }
};

// CUDAJIT_SIM_CC=8.0 / 7.5 / 9.0 (default) chooses the model.
const DeviceModel& device_model();

// How far a stream has got: shared with every Point on it, so an event recorded on a
// stream, or a wait queued on another stream, outlives the stream's destruction.
struct Progress {
  std::mutex mutex;
  std::condition_variable changed;
  uint64_t submitted = 0, completed = 0;
  int waiters = 0;  // threads in wait(): a completion must wake them

  bool reached(uint64_t ticket) {
    std::lock_guard lock(mutex);
    return completed >= ticket;
  }
  void wait(uint64_t ticket) {
    std::unique_lock lock(mutex);
    ++waiters;
    changed.wait(lock, [&] { return completed >= ticket; });
    --waiters;
  }
};

// A point in a stream's order: done once the stream has completed `ticket` tasks.
struct Point {
  std::shared_ptr<Progress> progress;
  uint64_t ticket = 0;
  bool reached() const { return progress->reached(ticket); }
  void wait() const { progress->wait(ticket); }
};

// An in-order queue of work run by a worker thread of its own. `wait` points block the
// stream until another stream reaches them (cuStreamWaitEvent, the legacy stream's
// implicit synchronisation).
class Stream {
 public:
  enum class Kind { Legacy, PerThread, Created };
  Stream(Kind kind, unsigned flags, int priority = 0);
  ~Stream();  // runs what is queued, then stops the worker
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // Queues `task` after `waits` are reached; returns the task's point. An `instant` task
  // (an event's timestamp, a launch that does not execute) runs at once in the caller when
  // the stream is idle and the waits are reached: what the real driver's push buffer costs,
  // not a worker thread's wake-up.
  Point enqueue(std::function<void()> task, std::vector<Point> waits = {}, bool instant = false);
  Point tail();  // the point of everything queued so far
  bool idle() { return tail().reached(); }
  Kind kind() const { return kind_; }
  unsigned flags() const { return flags_; }
  int priority() const { return priority_; }  // remembered: the simulator does not reorder
  bool blocking() const { return !(flags_ & CU_STREAM_NON_BLOCKING); }

 private:
  void work();

  Kind kind_;
  unsigned flags_;
  int priority_;
  std::shared_ptr<Progress> progress_ = std::make_shared<Progress>();
  // Guarded by progress_->mutex:
  std::deque<std::pair<std::vector<Point>, std::function<void()>>> queue_;
  bool stopping_ = false;
  bool worker_idle_ = false;  // the worker sleeps: an enqueue must wake it
  std::condition_variable work_;
  std::thread worker_;
};

struct Module;

struct Kernel {
  Module* module = nullptr;
  const Function* function = nullptr;
  std::atomic<int> max_dynamic_shared{0};
  std::atomic<int> shared_carveout{-1};  // CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT
};

struct Module {
  std::unique_ptr<Program> program;
  std::map<std::string, std::unique_ptr<Kernel>> kernels;
};

// What cuLibraryLoadData gives: here one module in the one context (a CUkernel is then its
// Kernel, the same handle as the CUfunction cuKernelGetFunction returns).
struct Library {
  Module* module = nullptr;
};

struct Event {
  unsigned flags = 0;
  bool recorded = false;
  Point point;
  std::shared_ptr<std::chrono::steady_clock::time_point> time;  // set when reached
};

struct Allocation {
  uint64_t size = 0;
  enum class Kind { Device, Managed, HostAllocated, HostRegistered, ModuleVariable } kind;
};

// A context (the primary one, or one of cuCtxCreate's) and everything it owns.
class Context {
 public:
  explicit Context(uint64_t id = 1, unsigned flags = 0);

  const uint64_t id;     // cuCtxGetId
  const unsigned flags;  // cuCtxGetFlags: cuCtxCreate's (scheduling and mapping hints)
  // cuCtxDestroy: its work done, its streams, events, modules, libraries and memory freed.
  // The object stays, so that a thread it is still current to gets
  // CUDA_ERROR_CONTEXT_IS_DESTROYED (check_context) instead of reading freed memory.
  void destroy();
  std::atomic<bool> destroyed{false};

  GlobalMemory memory;
  DeviceHeap heap{memory};  // kernels' malloc/free; its size is CU_LIMIT_MALLOC_HEAP_SIZE's
  std::mutex mutex;         // the maps below
  std::map<uint64_t, Allocation> allocations;
  std::unordered_set<Stream*> streams;
  std::unordered_set<Event*> events;
  std::unordered_set<Module*> modules;
  std::unordered_set<Library*> libraries;
  std::unordered_set<Kernel*> kernels;
  std::map<std::thread::id, std::unique_ptr<Stream>> per_thread;
  std::unique_ptr<Stream> legacy;
  int retains = 0;
  // cuCtxGetLimit/SetLimit, by CUlimit (the stack size, printf's FIFO, malloc's heap).
  std::map<int, size_t> limits = {{0, 1024}, {1, 1 << 20}, {2, 8 << 20}};
  std::atomic<int> cache_config{0};

  // A fault in a kernel poisons the context for good, as on hardware.
  std::atomic<CUresult> sticky{CUDA_SUCCESS};
  std::mutex fault_mutex;
  std::string fault_message;

  Stream* stream(CUstream handle);  // null for an unknown handle
  // Points a new task on `stream` must wait for: the legacy stream's implicit synchronisation.
  std::vector<Point> implicit_waits(Stream* stream);
  void synchronize();  // every stream idle
  void fault(CUresult code, const std::string& message);
};

// The driver singleton (never destroyed: work may still be queued at exit).
struct Driver {
  std::atomic<bool> initialized{false};
  std::atomic<bool> forked{false};  // this process is a child forked after cuInit
  Context* primary = nullptr;
  std::mutex contexts_mutex;
  std::unordered_set<Context*> created;  // cuCtxCreate's contexts not yet destroyed
  uint64_t next_context_id = 2;          // under contexts_mutex
  bool execute = true;   // CUDAJIT_SIM_EXECUTE=0: launches are checked and queued, not run
  unsigned threads = 0;  // host threads per launch (CUDAJIT_SIM_THREADS; 0: all cores)
  // Totals over executed launches, for benchmarks (cudajitSimStatistics).
  std::atomic<uint64_t> thread_instructions{0}, launches{0}, execution_ns{0};
};
Driver& driver();

// The calling thread's current context (cuCtxSetCurrent).
Context*& current_context();

// Whether a handle names the primary context or a live created one.
bool live_context(Context* c);

// For entry points: CUDA_ERROR_NOT_INITIALIZED, no context, a destroyed one
// (CUDA_ERROR_CONTEXT_IS_DESTROYED), or the sticky error.
CUresult check_context(Context*& context);

// A file's bytes (cuLibraryLoadFromFile, cuLinkAddFile, nvJitLinkAddFile); nullopt if it cannot
// be opened.
std::optional<std::string> read_file(const char* path);

// The JIT's log buffers, as cuModuleLoadDataEx and cuLinkCreate are given them.
struct JitLog {
  char* error_log = nullptr;
  size_t error_log_size = 0;
  char* info_log = nullptr;
  size_t info_log_size = 0;
  std::string target;     // CU_JIT_TARGET, as "sm_90"; empty: the device's
  int max_registers = 0;  // CU_JIT_MAX_REGISTERS; 0: none
  void error(const std::string& text) const;
  void info(const std::string& text) const;
};
// Reads JIT options (log buffers, the target); options without effect here are accepted.
CUresult read_jit_options(unsigned count, CUjit_option* options, void** values, JitLog& out);

// Modules: loading PTX (cuModuleLoadData, cuLibraryLoadData), unloading.
CUresult load_module(Context* c, const void* image, JitLog log, Module*& loaded);
void unload_module(Context* c, Module* m);
Kernel* live_kernel(Context* c, CUfunction function);  // null for an unknown handle

// A launch as cuLaunchKernel and cuLaunchKernelEx make it.
CUresult launch(CUfunction function, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                unsigned by, unsigned bz, unsigned shared, CUstream handle, void** params,
                void** extra, bool cooperative);

}  // namespace cudajit::sim::driver
