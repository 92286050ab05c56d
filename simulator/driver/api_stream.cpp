// Streams and events.
#include <algorithm>

#include "api_types.hpp"
#include "export.hpp"

using namespace cudajit::sim::driver;

namespace {

Event* live_event(Context* c, CUevent handle) {
  Event* e = reinterpret_cast<Event*>(handle);
  std::lock_guard lock(c->mutex);
  return c->events.count(e) ? e : nullptr;
}

}  // namespace

CUDAJIT_SIM_API cuStreamCreateWithPriority(CUstream* out, unsigned flags, int priority) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!out || (flags & ~unsigned(CU_STREAM_NON_BLOCKING))) return CUDA_ERROR_INVALID_VALUE;
  // Priorities outside cuCtxGetStreamPriorityRange's [-5, 0] are clamped, as the driver does.
  priority = std::clamp(priority, -5, 0);
  return guarded([&] {
    auto* s = new Stream(Stream::Kind::Created, flags, priority);
    std::lock_guard lock(c->mutex);
    c->streams.insert(s);
    *out = reinterpret_cast<CUstream>(s);
    return CUDA_SUCCESS;
  });
}

CUDAJIT_SIM_API cuStreamCreate(CUstream* out, unsigned flags) {
  return cuStreamCreateWithPriority(out, flags, 0);
}

CUDAJIT_SIM_API cuStreamGetPriority(CUstream handle, int* priority) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!priority) return CUDA_ERROR_INVALID_VALUE;
  Stream* s = c->stream(handle);
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  *priority = s->priority();
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuStreamGetFlags(CUstream handle, unsigned* flags) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!flags) return CUDA_ERROR_INVALID_VALUE;
  Stream* s = c->stream(handle);
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  *flags = s->flags();
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuStreamGetId(CUstream handle, unsigned long long* id) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!id) return CUDA_ERROR_INVALID_VALUE;
  Stream* s = c->stream(handle);
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  *id = uint64_t(uintptr_t(s));
  return CUDA_SUCCESS;
}

// Host functions run on the stream's worker in stream order; they must not call the driver
// (as on hardware, where such a call may deadlock or fail).
CUDAJIT_SIM_API cuLaunchHostFunc(CUstream handle, CUhostFn fn, void* user_data) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!fn) return CUDA_ERROR_INVALID_VALUE;
  Stream* s = c->stream(handle);
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  return guarded([&] {
    s->enqueue([fn, user_data] { fn(user_data); }, c->implicit_waits(s));
    return CUDA_SUCCESS;
  });
}

CUDAJIT_SIM_API cuStreamAddCallback(CUstream handle, CUstreamCallback callback, void* user_data,
                                    unsigned flags) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!callback || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  Stream* s = c->stream(handle);
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  return guarded([&] {
    s->enqueue([c, handle, callback, user_data] { callback(handle, c->sticky.load(), user_data); },
               c->implicit_waits(s));
    return CUDA_SUCCESS;
  });
}

CUDAJIT_SIM_API cuStreamDestroy_v2(CUstream handle) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  Stream* s = reinterpret_cast<Stream*>(handle);
  {
    std::lock_guard lock(c->mutex);
    if (!c->streams.erase(s)) return CUDA_ERROR_INVALID_HANDLE;
  }
  // Work already queued completes first (the stream's destructor drains it).
  return guarded([&] {
    delete s;
    return CUDA_SUCCESS;
  });
}

CUDAJIT_SIM_API cuStreamSynchronize(CUstream handle) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  Stream* s = c->stream(handle);
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  return guarded([&] {
    s->tail().wait();
    return c->sticky.load();
  });
}

CUDAJIT_SIM_API cuStreamQuery(CUstream handle) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  Stream* s = c->stream(handle);
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  return s->idle() ? c->sticky.load() : CUDA_ERROR_NOT_READY;
}

CUDAJIT_SIM_API cuStreamGetCtx(CUstream handle, CUcontext* context) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!context) return CUDA_ERROR_INVALID_VALUE;
  if (!c->stream(handle)) return CUDA_ERROR_INVALID_HANDLE;
  *context = reinterpret_cast<CUcontext>(c);
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuStreamWaitEvent(CUstream handle, CUevent event, unsigned flags) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  Stream* s = c->stream(handle);
  Event* e = live_event(c, event);
  if (!s || !e) return CUDA_ERROR_INVALID_HANDLE;
  return guarded([&] {
    if (!e->recorded) return CUDA_SUCCESS;  // an event never recorded is complete
    std::vector<Point> waits = c->implicit_waits(s);
    waits.push_back(e->point);
    s->enqueue(nullptr, std::move(waits), true);
    return CUDA_SUCCESS;
  });
}

CUDAJIT_SIM_API cuEventCreate(CUevent* out, unsigned flags) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!out ||
      (flags & ~unsigned(CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS)))
    return CUDA_ERROR_INVALID_VALUE;
  return guarded([&] {
    auto* e = new Event();
    e->flags = flags;
    std::lock_guard lock(c->mutex);
    c->events.insert(e);
    *out = reinterpret_cast<CUevent>(e);
    return CUDA_SUCCESS;
  });
}

CUDAJIT_SIM_API cuEventDestroy_v2(CUevent handle) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  Event* e = reinterpret_cast<Event*>(handle);
  std::lock_guard lock(c->mutex);
  if (!c->events.erase(e)) return CUDA_ERROR_INVALID_HANDLE;
  delete e;  // a queued record task holds the time through its own shared_ptr
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuEventRecord(CUevent event, CUstream handle) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  Event* e = live_event(c, event);
  Stream* s = c->stream(handle);
  if (!e || !s) return CUDA_ERROR_INVALID_HANDLE;
  return guarded([&] {
    auto time = std::make_shared<std::chrono::steady_clock::time_point>();
    Point p = s->enqueue([time] { *time = std::chrono::steady_clock::now(); }, c->implicit_waits(s),
                         true);
    std::lock_guard lock(c->mutex);
    e->recorded = true;
    e->point = p;
    e->time = time;
    return CUDA_SUCCESS;
  });
}

CUDAJIT_SIM_API cuEventQuery(CUevent event) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  Event* e = live_event(c, event);
  if (!e) return CUDA_ERROR_INVALID_HANDLE;
  if (!e->recorded) return CUDA_SUCCESS;
  return e->point.reached() ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

CUDAJIT_SIM_API cuEventSynchronize(CUevent event) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  Event* e = live_event(c, event);
  if (!e) return CUDA_ERROR_INVALID_HANDLE;
  if (!e->recorded) return CUDA_SUCCESS;
  return guarded([&] {
    e->point.wait();
    return c->sticky.load();
  });
}

namespace {

CUresult elapsed(float* ms, CUevent start, CUevent end) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!ms) return CUDA_ERROR_INVALID_VALUE;
  Event* a = live_event(c, start);
  Event* b = live_event(c, end);
  if (!a || !b) return CUDA_ERROR_INVALID_HANDLE;
  if (!a->recorded || !b->recorded) return CUDA_ERROR_INVALID_HANDLE;
  if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING) return CUDA_ERROR_INVALID_HANDLE;
  if (!a->point.reached() || !b->point.reached()) return CUDA_ERROR_NOT_READY;
  *ms = std::chrono::duration<float, std::milli>(*b->time - *a->time).count();
  return CUDA_SUCCESS;
}

}  // namespace

CUDAJIT_SIM_API cuEventElapsedTime_v2(float* ms, CUevent start, CUevent end) {
  return elapsed(ms, start, end);
}

CUDAJIT_SIM_API cuEventElapsedTime(float* ms, CUevent start, CUevent end) {
  return elapsed(ms, start, end);
}
