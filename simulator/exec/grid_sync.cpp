#include "grid_sync.hpp"

#include <chrono>

#include "memory.hpp"

namespace cudajit::sim {

GridSync::GridSync(uint64_t blocks, GlobalMemory* memory) : memory_(memory), blocks_(blocks) {
  if (memory_) memory_->add(handle(), sizeof workspace_, "the cooperative grid's workspace");
}

GridSync::~GridSync() {
  if (memory_) memory_->remove(handle());
}

GridSync::Outcome GridSync::arrive_and_wait(const std::atomic<bool>* abort) {
  std::unique_lock lock(mutex_);
  const uint64_t generation = generation_;
  if (++arrived_ == blocks_) {
    arrived_ = 0;
    ++generation_;
    changed_.notify_all();
    return Outcome::Released;
  }
  for (;;) {
    if (generation_ != generation) return Outcome::Released;
    // The blocks still to come have all ended: they will never arrive.
    if (finished_ > 0 && arrived_ + finished_ >= blocks_) return Outcome::Deadlock;
    if (abort && abort->load(std::memory_order_relaxed)) return Outcome::Aborted;
    changed_.wait_for(lock, std::chrono::milliseconds(50));
  }
}

void GridSync::block_finished() {
  std::lock_guard lock(mutex_);
  ++finished_;
  changed_.notify_all();
}

void GridSync::wake() {
  std::lock_guard lock(mutex_);
  changed_.notify_all();
}

}  // namespace cudajit::sim
