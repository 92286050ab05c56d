#include "abandon.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

namespace cudajit::sim::driver {

namespace {

// Never destroyed: stream threads may run launches while static destructors run at exit.
struct Registry {
  std::mutex mutex;
  uint64_t epoch = 0;
  std::vector<RunningGrid*> running;
};

Registry& registry() {
  static auto* instance = new Registry;
  return *instance;
}

}  // namespace

uint64_t abandon_epoch() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return r.epoch;
}

RunningGrid::RunningGrid(uint64_t queued_epoch) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.running.push_back(this);
  if (r.epoch != queued_epoch) {  // abandoned while it waited in its stream
    abandoned_ = true;
    abort_ = true;
  }
}

RunningGrid::~RunningGrid() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::erase(r.running, this);
}

void abandon_running_grids() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  ++r.epoch;
  for (RunningGrid* grid : r.running) {
    grid->abandoned_ = true;  // before abort_: a worker that sees abort_ sees why
    grid->abort_ = true;
  }
}

}  // namespace cudajit::sim::driver

// Not in the real driver: every grid queued or running stops within a few thousand
// instructions of each of its warps (exec/warp.cpp), as if it had ended; the context stays
// usable. The cuda device calls it when a host wait is interrupted (runtime/interrupt.hpp).
extern "C" __attribute__((visibility("default"))) void cudajitSimAbandonGrids() {
  cudajit::sim::driver::abandon_running_grids();
}
