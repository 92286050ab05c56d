// What the cuda device holds until queued work has completed, without driver
// callbacks and without blocking: an event recorded after the work, and the
// references (and host work) it waits on. Swept at each later launch, copy,
// query and synchronize.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "cuda_driver.hpp"

namespace cudajit::runtime::cuda {

class CompletionList {
 public:
  using KeepAlive = std::vector<std::shared_ptr<const void>>;

  CompletionList(const DriverApi& api, CUcontext context) : api_(api), context_(context) {}
  ~CompletionList();
  CompletionList(const CompletionList&) = delete;
  CompletionList& operator=(const CompletionList&) = delete;

  // Holds `keep_alive` until `stream` has reached this point, and runs `then` (if any) at a
  // sweep once it has (the context must be current). Events are recorded once per kBatch
  // additions, or for a `then`: what comes between is released by the next event, or when
  // the stream is known idle (reached()).
  void add(CUstream stream, KeepAlive keep_alive, std::function<void()> then = nullptr);
  // Releases what completed entries hold and runs their `then`, in the order
  // they were added on each stream. The context must be current.
  void sweep();
  // For the launch and copy paths: a sweep once per kBatch calls, or every call while host
  // work waits to run (a sweep queries each stream's oldest event).
  void sweep_sometimes();
  // After a synchronisation: `stream` (every stream, for nullopt) has completed all its work,
  // so what is held for it goes; then a sweep.
  void reached(std::optional<CUstream> stream);

  // Work queued on `waiter` from now on waits for the work queued on `producer` so far. The
  // event is one of the recycled ones: a wait binds to the record before it, so the event is
  // free again at once. The context must be current.
  void order_streams(CUstream waiter, CUstream producer);

  // An event per this many launches or copies: cuEventRecord and cuEventQuery cost more
  // than the whole rest of a launch.
  static constexpr int kBatch = 32;

 private:
  struct Entry {
    CUevent event;
    KeepAlive keep_alive;
    std::function<void()> then;
  };
  // The entries of one stream complete in order: a sweep stops at the first pending one.
  struct StreamEntries {
    CUstream stream;
    std::deque<Entry> entries;
    KeepAlive unrecorded;  // held for work after the last event
    int unrecorded_count = 0;
  };
  CUevent take_event();                        // with mutex_ held
  StreamEntries& entries_of(CUstream stream);  // with mutex_ held
  CUresult collect_completed(std::vector<Entry>& done);

  const DriverApi& api_;
  CUcontext context_;
  std::mutex mutex_;
  std::vector<StreamEntries> streams_;
  std::vector<CUevent> free_events_;  // recycled: cuEventCreate costs more than a record
  std::atomic<int> since_sweep_{0};   // calls of sweep_sometimes() since it last swept
  std::atomic<int> pending_then_{0};  // entries whose host work has not run yet
};

}  // namespace cudajit::runtime::cuda
