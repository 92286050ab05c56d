// The grid-wide barrier of a cooperative launch (cuLaunchCooperativeKernel, or cuLaunchKernelEx
// with CU_LAUNCH_ATTRIBUTE_COOPERATIVE): cooperative groups' grid.sync(), which the device
// runtime (libcudadevrt) reaches through the driver's __cuda_syscall_CGS_* functions.
// A cooperative grid's blocks each have a host thread (they are co-resident, as the driver
// guarantees by refusing larger grids), so a block waits here by blocking its thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace cudajit::sim {

class GlobalMemory;

class GridSync {
 public:
  // `memory` (may be null) gets the grid workspace as a range kernels may touch.
  GridSync(uint64_t blocks, GlobalMemory* memory);
  ~GridSync();
  GridSync(const GridSync&) = delete;
  GridSync& operator=(const GridSync&) = delete;

  // The handle cudaCGGetIntrinsicHandle(cudaCGScopeGrid) returns: the address of the grid's
  // workspace ({wsSize, barrier}, as cooperative_groups/details/driver_abi.h lays it out).
  uint64_t handle() const { return uint64_t(uintptr_t(workspace_)); }

  enum class Outcome { Released, Deadlock, Aborted };
  // A block arrives and waits until every block of the grid has arrived (Released), the grid
  // cannot complete this barrier because blocks that have not arrived have ended (Deadlock: a
  // hang on a GPU), or `abort` is set (a fault elsewhere, an abandoned grid).
  Outcome arrive_and_wait(const std::atomic<bool>* abort);
  // A block has ended: waiters check whether the barrier can still complete.
  void block_finished();
  // Wakes the waiters to see `abort` (they also look every 50 ms).
  void wake();

 private:
  alignas(8) uint32_t workspace_[2] = {8, 0};
  GlobalMemory* memory_;
  std::mutex mutex_;
  std::condition_variable changed_;
  const uint64_t blocks_;
  uint64_t arrived_ = 0, finished_ = 0, generation_ = 0;
};

}  // namespace cudajit::sim
