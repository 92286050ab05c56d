// Streams and events of the cuda device.
#include <stdexcept>

#include "cuda_device.hpp"
#include "cudajit/runtime/interrupt.hpp"

namespace cudajit::runtime::cuda {

namespace {

// Waits for work to finish: by the blocking call, or, when the thread's waits are
// interruptible (Ctrl-C can end them, not the work), by polling the query until it stops
// answering CUDA_ERROR_NOT_READY.
template <class Query, class Block>
void driver_wait(const DriverApi& api, Query query, const char* query_name, Block block,
                 const char* block_name) {
  if (!waits_interruptible()) {
    check(api, block(), block_name);
    return;
  }
  poll_until([&] {
    CUresult result = query();
    if (result == CUDA_ERROR_NOT_READY) return false;
    check(api, result, query_name);
    return true;
  });
}

}  // namespace

// --- streams --------------------------------------------------------------------

CudaStream::CudaStream(CudaDevice& device) : device_(device), owned_(true) {
  device_.bind();
  check(device_.api(), device_.api().cuStreamCreate(&stream_, CU_STREAM_DEFAULT), "cuStreamCreate");
}

CudaStream::CudaStream(CudaDevice& device, CUstream borrowed, bool checked)
    : device_(device), stream_(borrowed), owned_(false), checked_(checked) {}

void CudaStream::check_once() {
  if (checked_.load(std::memory_order_acquire)) return;
  device_.check_stream_context(stream_);  // throws, and checks again next time, if wrong
  checked_.store(true, std::memory_order_release);
}

CudaStream::~CudaStream() {
  // cuStreamDestroy returns at once; work still queued completes, and the
  // completion list holds its own events, not the stream.
  if (owned_ && try_bind_context(device_.api(), device_.context()))
    device_.api().cuStreamDestroy_v2(stream_);
}

Device& CudaStream::device() const { return device_; }

void CudaStream::synchronize() {
  check_once();
  device_.bind();
  const DriverApi& api = device_.api();
  driver_wait(
      api, [&] { return api.cuStreamQuery(stream_); }, "cuStreamQuery",
      [&] { return api.cuStreamSynchronize(stream_); }, "cuStreamSynchronize");
  device_.completions().reached(stream_);
}

bool CudaStream::query() {
  check_once();
  device_.bind();
  CUresult result = device_.api().cuStreamQuery(stream_);
  if (result == CUDA_ERROR_NOT_READY) return false;
  check(device_.api(), result, "cuStreamQuery");
  device_.completions().reached(stream_);
  return true;
}

void CudaStream::wait(Event& event) {
  check_once();
  CudaEvent& cuda_event = device_.own(event);
  device_.bind();
  check(device_.api(), device_.api().cuStreamWaitEvent(stream_, cuda_event.get(), 0),
        "cuStreamWaitEvent");
}

void CudaStream::enqueue_host(std::function<void()> fn) {
  check_once();
  device_.bind();
  device_.completions().sweep();
  device_.completions().add(stream_, {}, std::move(fn));
}

// --- events ---------------------------------------------------------------------

CudaEvent::CudaEvent(CudaDevice& device, bool timing) : device_(device), timing_(timing) {
  device_.bind();
  check(device_.api(),
        device_.api().cuEventCreate(&event_, timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING),
        "cuEventCreate");
}

CudaEvent::~CudaEvent() {
  if (try_bind_context(device_.api(), device_.context())) device_.api().cuEventDestroy_v2(event_);
}

void CudaEvent::record(Stream& stream) {
  CudaStream& cuda_stream = device_.own(stream);
  device_.bind();
  check(device_.api(), device_.api().cuEventRecord(event_, cuda_stream.get()), "cuEventRecord");
  recorded_ = true;
}

void CudaEvent::synchronize() {
  device_.bind();
  const DriverApi& api = device_.api();
  driver_wait(
      api, [&] { return api.cuEventQuery(event_); }, "cuEventQuery",
      [&] { return api.cuEventSynchronize(event_); }, "cuEventSynchronize");
  device_.completions().sweep();
}

bool CudaEvent::query() {
  device_.bind();
  CUresult result = device_.api().cuEventQuery(event_);
  if (result == CUDA_ERROR_NOT_READY) return false;
  check(device_.api(), result, "cuEventQuery");
  return true;
}

namespace {

// Our own messages for what cuEventElapsedTime would report as an invalid handle.
void check_timing_event(const CudaEvent& event, const char* which) {
  if (!event.timing())
    throw std::runtime_error(std::string("elapsed_ms needs two timing events, but the ") + which +
                             " event was created with timing disabled "
                             "(CUDA_ERROR_INVALID_HANDLE); create it with timing=True");
  if (!event.recorded())
    throw std::runtime_error(std::string("elapsed_ms: the ") + which +
                             " event was never recorded (CUDA_ERROR_INVALID_HANDLE); "
                             "record it on a stream first");
}

}  // namespace

float CudaEvent::elapsed_ms(Event& end_event) {
  CudaEvent& end = device_.own(end_event);
  check_timing_event(*this, "start");
  check_timing_event(end, "end");
  device_.bind();
  float ms = 0;
  // Not complete yet: CUDA_ERROR_NOT_READY, as a DriverError.
  check(device_.api(), device_.api().event_elapsed_time(&ms, event_, end.get()),
        "cuEventElapsedTime");
  return ms;
}

}  // namespace cudajit::runtime::cuda
