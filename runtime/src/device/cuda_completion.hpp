// What the cuda device holds until queued work has completed, without driver
// callbacks and without blocking: an event recorded after the work, and the
// references (and host work) it waits on. Swept at each later launch, copy,
// query and synchronize.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
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

  // Records an event on `stream` (the context must be current): `keep_alive`
  // is held, and `then` (if any) runs at a sweep, once the stream has reached it.
  void add(CUstream stream, KeepAlive keep_alive, std::function<void()> then = nullptr);
  // Releases what completed entries hold and runs their `then`, in the order
  // they were added on each stream. The context must be current.
  void sweep();

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
  };

  CUevent take_event();  // with mutex_ held
  CUresult collect_completed(std::vector<Entry>& done);

  const DriverApi& api_;
  CUcontext context_;
  std::mutex mutex_;
  std::vector<StreamEntries> streams_;
  std::vector<CUevent> free_events_;  // recycled: cuEventCreate costs more than a record
};

}  // namespace cudajit::runtime::cuda
