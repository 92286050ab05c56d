// The cpu device's threads of a block that synchronise: each thread is a
// fiber of the OS thread running the block, switched (Boost.Context's
// fcontext, a few nanoseconds) whenever it reaches a barrier, so a block of
// 1024 threads costs no OS threads. Kernels without barriers never get here:
// their threads run in a plain loop (lower/module.cpp, host_kernel).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <memory>
#include <string>
#include <vector>

#include "cudajit/compiler/target.hpp"

namespace cudajit::runtime {

// This OS thread's shared-memory buffer of at least `bytes` (16-byte aligned),
// kept for the next launch: blocks on one OS thread run one after the other.
unsigned char* thread_shared_buffer(uint64_t bytes);

// The blocks of a cooperative launch, each on an OS thread of its own, meet
// here when their threads sync the grid; a block that ends drops out. A mutex
// and condition variable rather than std::barrier: GCC 16's std::barrier waits
// through libstdc++ symbols (GLIBCXX_3.4.35) that no manylinux tag allows.
class GridBarrier {
 public:
  explicit GridBarrier(int64_t blocks) : expected_(blocks), pending_(blocks) {}

  // Waits until every block still in the grid has arrived in this phase.
  void arrive_and_wait() {
    std::unique_lock lock(mutex_);
    const uint64_t phase = phase_;
    if (arrive()) return;
    met_.wait(lock, [&] { return phase_ != phase; });
  }

  // Arrives in this phase and leaves the grid for the phases after it.
  void arrive_and_drop() {
    std::lock_guard lock(mutex_);
    --expected_;
    arrive();
  }

 private:
  // Counts one arrival; the last of a phase starts the next and wakes the rest.
  bool arrive() {
    if (--pending_ > 0) return false;
    pending_ = expected_;
    ++phase_;
    met_.notify_all();
    return true;
  }

  std::mutex mutex_;
  std::condition_variable met_;
  int64_t expected_;
  int64_t pending_;
  uint64_t phase_ = 0;
};

class BlockFibers {
 public:
  // Bytes of each fiber's stack that recursive device functions may use; the
  // rest is kept for the calls between their checks.
  static constexpr uint64_t kStackBytes = 256 * 1024;
  static constexpr uint64_t kRecursionBytes = 192 * 1024;

  // `grid`: the launch's grid barrier when the kernel syncs its grid, else null.
  BlockFibers(target::HostThreadEntry entry, void** params, const target::LaunchDims& dims,
              unsigned char* shared, unsigned char* dynamic_shared, GridBarrier* grid = nullptr);
  ~BlockFibers();
  BlockFibers(const BlockFibers&) = delete;
  BlockFibers& operator=(const BlockFibers&) = delete;

  // Runs every thread of block `linear_block` (x fastest) to its end. Throws
  // BarrierError, abandoning the block's fibers, when they cannot meet (threads
  // that returned do not hold a barrier up, as on a GPU).
  void run(int64_t linear_block);

  // How many times the block has synced the grid in its last run.
  uint64_t grid_syncs() const { return grid_syncs_; }

  struct Fiber;
  void run_thread(target::HostThreadContext* thread) { entry_(params_, thread); }

 private:
  bool release_barriers();
  std::string stuck_message() const;
  std::string lane_outside_mask(size_t warp, int lane, uint32_t mask) const;

  target::HostThreadEntry entry_;
  void** params_;
  const target::LaunchDims& dims_;
  unsigned char* shared_;
  unsigned char* dynamic_shared_;
  GridBarrier* grid_;
  uint64_t grid_syncs_ = 0;
  std::vector<Fiber> fibers_;
};

}  // namespace cudajit::runtime
