#include "cuda_completion.hpp"

#include <algorithm>
#include <exception>
#include <iterator>

namespace cudajit::runtime::cuda {

CompletionList::~CompletionList() {
  // Reached only if the device goes, which it does not before exit; the driver
  // may be gone by then, so failures are ignored.
  if (!try_bind_context(api_, context_)) return;
  for (auto& stream : streams_)
    for (auto& entry : stream.entries) api_.cuEventDestroy_v2(entry.event);
  for (CUevent event : free_events_) api_.cuEventDestroy_v2(event);
}

CUevent CompletionList::take_event() {
  if (!free_events_.empty()) {
    CUevent event = free_events_.back();
    free_events_.pop_back();
    return event;
  }
  CUevent event = nullptr;
  check(api_, api_.cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  return event;
}

void CompletionList::order_streams(CUstream waiter, CUstream producer) {
  std::lock_guard lock(mutex_);
  CUevent event = take_event();
  CUresult result = api_.cuEventRecord(event, producer);
  const char* call = "cuEventRecord";
  if (result == CUDA_SUCCESS) {
    result = api_.cuStreamWaitEvent(waiter, event, 0);
    call = "cuStreamWaitEvent";
  }
  free_events_.push_back(event);
  if (result != CUDA_SUCCESS) throw driver_error(api_, call, result);
}

CompletionList::StreamEntries& CompletionList::entries_of(CUstream stream) {
  auto found = std::find_if(streams_.begin(), streams_.end(),
                            [&](const StreamEntries& s) { return s.stream == stream; });
  if (found == streams_.end())
    found = streams_.insert(streams_.end(), StreamEntries{stream, {}, {}, 0});
  return *found;
}

void CompletionList::add(CUstream stream, KeepAlive keep_alive, std::function<void()> then) {
  std::lock_guard lock(mutex_);
  StreamEntries& entries = entries_of(stream);
  std::move(keep_alive.begin(), keep_alive.end(), std::back_inserter(entries.unrecorded));
  // An event is recorded once per kBatch pieces of work (or for host work to run): a later
  // event on the same stream completes after all that came before it.
  if (!then && ++entries.unrecorded_count < kBatch) return;
  CUevent event = nullptr;
  CUresult result = CUDA_SUCCESS;
  try {
    event = take_event();
    result = api_.cuEventRecord(event, stream);
  } catch (...) {
    api_.cuStreamSynchronize(stream);  // before keep_alive goes with the exception
    throw;
  }
  if (result != CUDA_SUCCESS) {
    free_events_.push_back(event);
    // The work queued before may use what keep_alive holds, which the
    // exception frees: wait for it (after a sticky error it returns at once).
    api_.cuStreamSynchronize(stream);
    throw driver_error(api_, "cuEventRecord", result);
  }
  if (then) ++pending_then_;
  entries.entries.push_back(Entry{event, std::move(entries.unrecorded), std::move(then)});
  entries.unrecorded.clear();
  entries.unrecorded_count = 0;
}

void CompletionList::reached(std::optional<CUstream> stream) {
  KeepAlive released;
  {
    std::lock_guard lock(mutex_);
    for (StreamEntries& s : streams_) {
      if (stream && s.stream != *stream) continue;
      std::move(s.unrecorded.begin(), s.unrecorded.end(), std::back_inserter(released));
      s.unrecorded.clear();
      s.unrecorded_count = 0;
    }
  }
  released.clear();  // outside the lock: a release may free memory (cuMemFree)
  sweep();
}

CUresult CompletionList::collect_completed(std::vector<Entry>& done) {
  std::lock_guard lock(mutex_);
  CUresult failure = CUDA_SUCCESS;
  for (StreamEntries& stream : streams_) {
    while (!stream.entries.empty()) {
      CUresult result = api_.cuEventQuery(stream.entries.front().event);
      if (result == CUDA_ERROR_NOT_READY) break;
      if (result != CUDA_SUCCESS) {
        // A failed kernel leaves the context unusable; keep the entry and report it.
        failure = result;
        break;
      }
      free_events_.push_back(stream.entries.front().event);
      done.push_back(std::move(stream.entries.front()));
      stream.entries.pop_front();
    }
  }
  std::erase_if(streams_,
                [](const StreamEntries& s) { return s.entries.empty() && s.unrecorded.empty(); });
  return failure;
}

void CompletionList::sweep_sometimes() {
  if (pending_then_.load(std::memory_order_relaxed) == 0 &&
      since_sweep_.fetch_add(1, std::memory_order_relaxed) + 1 < kBatch)
    return;
  since_sweep_.store(0, std::memory_order_relaxed);
  sweep();
}

void CompletionList::sweep() {
  std::vector<Entry> done;
  CUresult failure = collect_completed(done);
  // Outside the lock: releasing a reference may free memory (cuMemFree) or run
  // an owner's deleter, and `then` may queue more work.
  std::exception_ptr first_error;
  for (Entry& entry : done) {
    entry.keep_alive.clear();
    if (!entry.then) continue;
    pending_then_.fetch_sub(1, std::memory_order_relaxed);
    try {
      entry.then();
    } catch (...) {
      if (!first_error) first_error = std::current_exception();
    }
  }
  done.clear();
  if (first_error) std::rethrow_exception(first_error);
  if (failure != CUDA_SUCCESS) throw driver_error(api_, "cuEventQuery", failure);
}

}  // namespace cudajit::runtime::cuda
