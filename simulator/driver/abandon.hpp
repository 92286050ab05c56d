// Abandoning grids (not in the real driver): cudajitSimAbandonGrids() makes every grid queued
// or running stop as soon as it can, for the cuda device to call when a host wait is
// interrupted (Ctrl-C), so that the device is usable at once. The context stays usable (no
// sticky error, unlike a watchdog's CUDA_ERROR_LAUNCH_TIMEOUT); the grids' outputs are undefined.
#pragma once

#include <atomic>
#include <cstdint>

namespace cudajit::sim::driver {

// The abandon epoch now: a launch takes it when queued.
uint64_t abandon_epoch();

// A launch while it executes: its abort flag (Launch::abort), set by cudajitSimAbandonGrids()
// (at once if the launch was queued before an abandonment: abandoned() is then true).
class RunningGrid {
 public:
  explicit RunningGrid(uint64_t queued_epoch);
  ~RunningGrid();
  RunningGrid(const RunningGrid&) = delete;
  RunningGrid& operator=(const RunningGrid&) = delete;
  std::atomic<bool>* abort() { return &abort_; }
  // Whether it was abandoned (rather than stopped by a fault, which also sets the flag).
  bool abandoned() const { return abandoned_.load(); }

 private:
  friend void abandon_running_grids();
  std::atomic<bool> abort_{false};
  std::atomic<bool> abandoned_{false};
};

// What cudajitSimAbandonGrids() does: moves the epoch on and sets the running grids' flags.
void abandon_running_grids();

}  // namespace cudajit::sim::driver
