// Ctrl-C during a host wait. A long kernel (or synchronize()) must not need a notebook
// restart: the binding layer marks its waits interruptible and installs a check that says
// whether an interrupt is pending (a SIGINT Python has not handled yet); the runtime's waits
// then wake every few milliseconds to call it, and throw Interrupted when it says so, after
// abandoning the grids queued or running (abandon_grids()): the cpu device's threads return at
// their next loop back-edge, the simulated GPU's warps within a few thousand instructions, and
// their outputs are undefined. A real GPU's kernel runs to its end (hardware cannot stop it).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stdexcept>

namespace cudajit::runtime {

class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("a host wait was interrupted") {}
};

// Returns true when the calling thread should stop waiting (the binding: a pending
// KeyboardInterrupt, which it keeps to raise).
using InterruptCheck = bool (*)();
void set_interrupt_check(InterruptCheck check);

// While one lives, the calling thread's waits are interruptible (only waits a user made:
// the worker threads' internal waits never are).
class InterruptibleWaits {
 public:
  InterruptibleWaits();
  ~InterruptibleWaits();
  InterruptibleWaits(const InterruptibleWaits&) = delete;
  InterruptibleWaits& operator=(const InterruptibleWaits&) = delete;

 private:
  bool previous_;
};

bool waits_interruptible();

// In an interruptible wait: throws Interrupted (after abandon_grids()) when the check
// says so; otherwise returns.
void interruption_point();

// How long a wait sleeps between interruption points.
inline constexpr std::chrono::milliseconds kInterruptPoll{5};

// cv.wait(lock, pred), interruptible when the thread's waits are.
template <class Predicate>
void wait_interruptibly(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                        Predicate pred) {
  if (!waits_interruptible()) {
    cv.wait(lock, pred);
    return;
  }
  while (!cv.wait_for(lock, kInterruptPoll, pred)) {
    lock.unlock();
    interruption_point();
    lock.lock();
  }
}

// Polls `done` until it returns true: spinning for the first tens of microseconds (short
// waits stay fast), then sleeping up to a millisecond between polls, with interruption
// points between them when the thread's waits are interruptible.
void poll_until(const std::function<bool()>& done);

// Grids of the cpu device compare the epoch they were launched in with the current one
// between runs of blocks, and stop when it has moved on; a running grid's threads also read
// its abandon flag (LaunchDims::abandon) at their loops' back-edges.
uint64_t host_grid_epoch();

// While one lives, cancel_host_grids() sets `flag` if the grid of `epoch` is cancelled (at
// once when it already is).
class HostGridAbandonFlag {
 public:
  explicit HostGridAbandonFlag(uint64_t epoch);
  ~HostGridAbandonFlag();
  HostGridAbandonFlag(const HostGridAbandonFlag&) = delete;
  HostGridAbandonFlag& operator=(const HostGridAbandonFlag&) = delete;
  const int32_t* get() const { return &flag_; }
  bool set() const;

 private:
  alignas(4) int32_t flag_ = 0;  // read by generated code (atomically)
};

// Moves the epoch on and sets the flags of the cpu device's running grids.
void cancel_host_grids();

// What abandons another device's grids (the simulated GPU's cudajitSimAbandonGrids), called by
// abandon_grids(); registered once per driver, never removed.
void add_grid_abandoner(void (*abandon)());

// Every device's queued and running grids stop as soon as they can (a Ctrl-C): the cpu
// device's, and those of the devices that registered an abandoner.
void abandon_grids();

}  // namespace cudajit::runtime
