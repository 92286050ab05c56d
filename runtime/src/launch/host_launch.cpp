#include "cudajit/runtime/host_launch.hpp"

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace cudajit::runtime {

namespace {

// A fixed set of threads that run the chunks of one launch at a time; the
// launching thread works too, so a one-core machine needs no extra thread.
class WorkerPool {
 public:
  explicit WorkerPool(unsigned extra_threads) {
    for (unsigned i = 0; i < extra_threads; ++i) threads_.emplace_back([this] { work(); });
  }
  ~WorkerPool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }

  unsigned size() const { return static_cast<unsigned>(threads_.size()) + 1; }

  // Calls task(i) for i in [0, n), spread over the pool; returns when all are done.
  void run(int64_t n, const std::function<void(int64_t)>& task) {
    std::unique_lock launch(launch_mutex_);  // one launch at a time
    {
      std::lock_guard lock(mutex_);
      task_ = &task;
      next_ = 0;
      total_ = n;
      pending_ = n;
      ++generation_;
    }
    wake_.notify_all();
    drain();
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return pending_ == 0; });
    task_ = nullptr;
  }

 private:
  void drain() {
    for (;;) {
      int64_t i;
      const std::function<void(int64_t)>* task;
      {
        std::lock_guard lock(mutex_);
        if (!task_ || next_ >= total_) return;
        i = next_++;
        task = task_;
      }
      (*task)(i);
      std::lock_guard lock(mutex_);
      if (--pending_ == 0) done_.notify_all();
    }
  }

  void work() {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
      }
      drain();
    }
  }

  std::vector<std::thread> threads_;
  std::mutex launch_mutex_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int64_t)>* task_ = nullptr;
  int64_t next_ = 0, total_ = 0, pending_ = 0;
  uint64_t generation_ = 0;
  bool stopping_ = false;
};

WorkerPool& pool() {
  static WorkerPool instance(std::max(1u, std::thread::hardware_concurrency()) - 1);
  return instance;
}

}  // namespace

unsigned host_worker_count() { return pool().size(); }

void launch_host(target::HostEntry entry, Dim3 grid, Dim3 block, void** params) {
  target::LaunchDims dims{{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}};
  auto blocks = static_cast<int64_t>(grid.count());
  // A few chunks per worker balance uneven blocks without much overhead.
  int64_t chunks = std::min<int64_t>(blocks, int64_t(pool().size()) * 4);
  if (chunks <= 1) {
    entry(params, &dims, 0, blocks);
    return;
  }
  pool().run(chunks, [&](int64_t c) {
    int64_t begin = blocks * c / chunks, end = blocks * (c + 1) / chunks;
    entry(params, &dims, begin, end);
  });
}

}  // namespace cudajit::runtime
