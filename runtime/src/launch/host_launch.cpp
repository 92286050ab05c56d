#include "cudajit/runtime/host_launch.hpp"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <exception>
#include <fstream>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "block_fibers.hpp"
#include "cudajit/runtime/interrupt.hpp"

namespace cudajit::runtime {

namespace {

// A fixed set of threads shared by every launch in the process. Each launch is
// a job of chunks in a shared queue; workers take chunks from the oldest job,
// and the launching thread works on its own job too. So launches from several
// streams run at once, and each finishes even if every worker is busy elsewhere.
class WorkerPool {
 public:
  explicit WorkerPool(unsigned workers) { resize(workers); }
  ~WorkerPool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }

  unsigned size() {
    std::lock_guard lock(mutex_);
    return limit_ + 1;
  }

  // `workers` threads run blocks, the launching thread one of them. Threads are
  // started as needed; beyond the limit they sleep (a launch in flight finishes with
  // whoever holds its chunks).
  void resize(unsigned workers) {
    if (workers == 0) throw std::invalid_argument("the cpu device needs at least 1 worker");
    {
      std::lock_guard lock(mutex_);
      limit_ = workers - 1;
      while (threads_.size() < limit_) {
        unsigned index = static_cast<unsigned>(threads_.size());
        threads_.emplace_back([this, index] { work(index); });
      }
    }
    wake_.notify_all();
  }

  // Calls task(i) for i in [0, n), spread over the pool; returns when all are
  // done and rethrows the first exception a call threw.
  void run(int64_t n, const std::function<void(int64_t)>& task) {
    Job job{&task, 0, n, n, nullptr};
    {
      std::lock_guard lock(mutex_);
      jobs_.push_back(&job);
    }
    wake_.notify_all();
    for (int64_t i; claim(job, i);) run_chunk(job, i);
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return job.pending == 0; });
    if (job.error) std::rethrow_exception(job.error);
  }

 private:
  struct Job {
    const std::function<void(int64_t)>* task;
    int64_t next, total, pending;  // next chunk to hand out; chunks not yet finished
    std::exception_ptr error;
  };

  // Takes the next chunk of `job`; a job leaves the queue once its last chunk is taken.
  bool claim(Job& job, int64_t& chunk) {
    std::lock_guard lock(mutex_);
    return claim_locked(job, chunk);
  }

  bool claim_locked(Job& job, int64_t& chunk) {
    if (job.next >= job.total) return false;
    chunk = job.next++;
    if (job.next == job.total) jobs_.erase(std::find(jobs_.begin(), jobs_.end(), &job));
    return true;
  }

  void run_chunk(Job& job, int64_t chunk) {
    std::exception_ptr error;
    try {
      (*job.task)(chunk);
    } catch (...) {
      error = std::current_exception();
    }
    bool last;
    {
      std::lock_guard lock(mutex_);
      if (error && !job.error) job.error = error;
      last = --job.pending == 0;
    }
    // `job` may be gone once pending is 0 and the lock is released: only the pool's cv is used.
    if (last) done_.notify_all();
  }

  void work(unsigned index) {
    for (;;) {
      Job* job;
      int64_t chunk;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || (index < limit_ && !jobs_.empty()); });
        if (stopping_) return;
        job = jobs_.front();
        claim_locked(*job, chunk);
      }
      run_chunk(*job, chunk);
    }
  }

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::deque<Job*> jobs_;  // jobs with chunks not yet taken, oldest first
  unsigned limit_ = 0;     // threads_[i] takes chunks while i < limit_
  bool stopping_ = false;
};

// CUDAJIT_CPU_WORKERS, else one worker per core.
unsigned initial_workers() {
  const char* text = std::getenv("CUDAJIT_CPU_WORKERS");
  if (text == nullptr || *text == '\0') return std::max(1u, std::thread::hardware_concurrency());
  char* end = nullptr;
  long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < 1 || value > 4096)
    throw std::invalid_argument(std::string("CUDAJIT_CPU_WORKERS must be a whole number from 1 "
                                            "to 4096 (threads running the cpu device's blocks), "
                                            "got '") +
                                text + "'");
  return static_cast<unsigned>(value);
}

WorkerPool& pool() {
  // Never destroyed: stream threads of the cpu device may still launch kernels
  // while static destructors run at exit (the function-local static pointer idiom).
  static WorkerPool* instance = new WorkerPool(initial_workers());
  return *instance;
}

}  // namespace

unsigned host_worker_count() { return pool().size(); }

void set_host_worker_count(unsigned workers) { pool().resize(workers); }

namespace {

// The size of the largest cache, from sysfs ("32768K"); 0 where it says nothing.
uint64_t largest_cache_bytes() {
  uint64_t largest = 0;
  int top_level = 0;
  for (int index = 0; index < 16; ++index) {
    std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level_file(dir + "level"), size_file(dir + "size");
    int level = 0;
    uint64_t size = 0;
    std::string unit;
    if (!(level_file >> level) || !(size_file >> size)) continue;
    size_file >> unit;
    size <<= unit == "K" ? 10 : unit == "M" ? 20 : unit == "G" ? 30 : 0;
    if (level > top_level || (level == top_level && size > largest)) {
      top_level = level;
      largest = size;
    }
  }
  return largest;
}

uint64_t initial_stream_bytes() {
  const char* text = std::getenv("CUDAJIT_CPU_STREAM_BYTES");
  if (text != nullptr && *text != '\0') {
    char* end = nullptr;
    errno = 0;
    unsigned long long value = std::strtoull(text, &end, 10);
    if (*end != '\0' || *text == '-' || errno == ERANGE)
      throw std::invalid_argument(
          std::string("CUDAJIT_CPU_STREAM_BYTES must be a whole number of bytes (arrays at least "
                      "this large are written past the cpu device's caches), got '") +
          text + "'");
    return value;
  }
  uint64_t cache = largest_cache_bytes();
  return (cache != 0 ? cache : uint64_t(32) << 20) / 4 * 3;
}

std::atomic<uint64_t>& stream_bytes() {
  static std::atomic<uint64_t> bytes{initial_stream_bytes()};
  return bytes;
}

}  // namespace

uint64_t host_stream_bytes() { return stream_bytes().load(std::memory_order_relaxed); }

void set_host_stream_bytes(uint64_t bytes) {
  stream_bytes().store(bytes, std::memory_order_relaxed);
}

uint64_t host_cooperative_blocks(uint64_t block_threads) {
  // Each fiber's stack is two mappings (its guard page apart): 8192 threads stay well
  // inside Linux's default 65530 mappings per process.
  return std::clamp<uint64_t>(8192 / std::max<uint64_t>(block_threads, 1), 1, 256);
}

namespace {

// A kernel that syncs its grid: every block at once, each on an OS thread of
// its own (blocked there while its threads wait for the other blocks), its
// threads fibers as usual. A block that ends drops out of the grid barrier.
void launch_cooperative(const target::HostKernel& kernel, const target::LaunchDims& dims,
                        void** params, uint64_t shared_bytes, uint64_t dynamic_offset) {
  const auto blocks = static_cast<int64_t>(uint64_t(dims.grid[0]) * dims.grid[1] * dims.grid[2]);
  GridBarrier grid(blocks);
  std::mutex mutex;
  std::exception_ptr first_error;
  std::vector<uint64_t> syncs(size_t(blocks), 0);
  {
    // Joined on every way out, as std::jthread would (which GCC 16 builds on
    // libstdc++ symbols no manylinux tag allows).
    std::vector<std::thread> threads;
    struct JoinAll {
      std::vector<std::thread>& threads;
      ~JoinAll() {
        for (std::thread& t : threads) t.join();
      }
    } join_all{threads};
    threads.reserve(size_t(blocks));
    for (int64_t b = 0; b < blocks; ++b) {
      threads.emplace_back([&, b] {
        try {
          unsigned char* shared = shared_bytes != 0 ? thread_shared_buffer(shared_bytes) : nullptr;
          BlockFibers fibers(kernel.thread_entry, params, dims, shared,
                             shared ? shared + dynamic_offset : nullptr, &grid);
          fibers.run(b);
          syncs[size_t(b)] = fibers.grid_syncs();
        } catch (...) {
          std::lock_guard lock(mutex);
          if (!first_error) first_error = std::current_exception();
        }
        grid.arrive_and_drop();
      });
    }
  }
  if (first_error) std::rethrow_exception(first_error);
  if (dims.abandon && std::atomic_ref<const int32_t>(*dims.abandon).load() != 0) return;
  // A block that ended early let the others past the syncs it missed: on a GPU they would
  // have waited for it forever. Said, not hidden.
  auto [fewest, most] = std::minmax_element(syncs.begin(), syncs.end());
  if (*fewest != *most) {
    std::string message = "the blocks of the grid synced it unequally (a GPU would hang): block ";
    message += std::to_string(fewest - syncs.begin()) + " (linear index) reached ";
    message += std::to_string(*fewest) + " grid syncs, block ";
    message += std::to_string(most - syncs.begin()) + " reached " + std::to_string(*most);
    throw BarrierError(message);
  }
}

// What recursion leaves of an OS thread's stack: enough for the non-recursive calls
// between two checks (libm, local arrays) and for the runtime below the kernel.
constexpr uint64_t kOsStackReserve = 256 * 1024;

// The lowest address this OS thread's recursive device functions may reach (0: unknown).
uint64_t os_thread_stack_limit() {
  thread_local const uint64_t limit = [] {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return uint64_t(0);
    void* lowest = nullptr;
    size_t bytes = 0;
    uint64_t result = 0;
    if (pthread_attr_getstack(&attr, &lowest, &bytes) == 0 && bytes > 2 * kOsStackReserve)
      result = reinterpret_cast<uintptr_t>(lowest) + kOsStackReserve;
    pthread_attr_destroy(&attr);
    return result;
  }();
  return limit;
}

void throw_if_overflowed(const int32_t& overflow) {
  if (std::atomic_ref<const int32_t>(overflow).load() != 0)
    throw StackOverflowError(
        "a thread's recursion outgrew its stack on the cpu device (a kernel that synchronises "
        "its threads has " +
        std::to_string(BlockFibers::kRecursionBytes / 1024) +
        " KiB per thread for it; other kernels use their worker thread's stack); the thread "
        "stopped there, as a GPU's launch fails with CUDA_ERROR_HARDWARE_STACK_ERROR");
}

}  // namespace

void launch_host(const target::HostKernel& kernel, Dim3 grid, Dim3 block,
                 uint64_t dynamic_shared_bytes, void** params, uint64_t large_arrays,
                 target::IndexErrorRecord* errors, std::optional<uint64_t> epoch) {
  if (!kernel) throw std::invalid_argument("launch_host: the kernel has no host entry");
  alignas(4) int32_t overflow = 0;  // set (atomically) by a thread that recursed too deep
  // Set by a Ctrl-C (cancel_host_grids()): threads return at their loops' back-edges.
  std::optional<HostGridAbandonFlag> abandon;
  if (epoch) abandon.emplace(*epoch);
  target::LaunchDims dims{{grid.x, grid.y, grid.z},
                          {block.x, block.y, block.z},
                          errors,
                          dynamic_shared_bytes,
                          0,
                          &overflow,
                          abandon ? abandon->get() : nullptr,
                          large_arrays};
  const uint64_t dynamic_offset = target::shared_offset(kernel.static_shared_bytes);
  const uint64_t shared_bytes = dynamic_offset + dynamic_shared_bytes;
  if (kernel.cooperative) {  // CpuDevice::launch checked the grid against the limit
    launch_cooperative(kernel, dims, params, shared_bytes, dynamic_offset);
    if (!(abandon && abandon->set())) throw_if_overflowed(overflow);
    return;
  }
  // Blocks [begin, end) on this OS thread, one after the other, reusing its shared memory.
  // The entry runs them all in one call (a cancelled grid stops between two of its blocks),
  // so what it sets up per call (private copies of atomically updated arrays) is paid once.
  auto cancelled = [&] { return abandon && abandon->set(); };
  auto run_blocks = [&](int64_t begin, int64_t end) {
    unsigned char* shared = shared_bytes != 0 ? thread_shared_buffer(shared_bytes) : nullptr;
    if (kernel.entry != nullptr) {
      target::LaunchDims own = dims;  // this OS thread's stack limit
      own.stack_limit = os_thread_stack_limit();
      if (!cancelled()) kernel.entry(params, &own, begin, end, shared);
      return;
    }
    BlockFibers fibers(kernel.thread_entry, params, dims, shared,
                       shared ? shared + dynamic_offset : nullptr);
    for (int64_t b = begin; b < end && !cancelled(); ++b) fibers.run(b);
  };
  auto blocks = static_cast<int64_t>(grid.count());
  // A few chunks per worker balance uneven blocks without much overhead.
  int64_t chunks = std::min<int64_t>(blocks, int64_t(pool().size()) * 4);
  if (chunks <= 1) {
    run_blocks(0, blocks);
    throw_if_overflowed(overflow);
    return;
  }
  // Chunk c gets blocks/chunks blocks, one more for the first blocks%chunks chunks
  // (no product of blocks and c: a full grid is close to 2^63 blocks).
  int64_t per_chunk = blocks / chunks, remainder = blocks % chunks;
  pool().run(chunks, [&](int64_t c) {
    int64_t begin = per_chunk * c + std::min(c, remainder);
    run_blocks(begin, begin + per_chunk + (c < remainder ? 1 : 0));
  });
  throw_if_overflowed(overflow);
}

}  // namespace cudajit::runtime
