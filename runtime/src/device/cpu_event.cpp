// Events of the cpu device: a recording completes, with a steady_clock time,
// when its stream's worker reaches it.
#include <stdexcept>

#include "cpu_device.hpp"
#include "cudajit/runtime/fork.hpp"
#include "cudajit/runtime/interrupt.hpp"

namespace cudajit::runtime {

void EventRecord::complete() {
  {
    std::lock_guard lock(mutex_);
    time_ = Clock::now();
    done_ = true;
  }
  completed_.notify_all();
}

void EventRecord::wait() {
  check_not_forked();  // the stream that would reach it runs in the parent
  std::unique_lock lock(mutex_);
  wait_interruptibly(completed_, lock, [&] { return done_; });
}

bool EventRecord::done() {
  std::lock_guard lock(mutex_);
  return done_;
}

EventRecord::Clock::time_point EventRecord::time() {
  std::lock_guard lock(mutex_);
  return time_;
}

void CpuEvent::record(Stream& stream) {
  CpuStream& cpu_stream = device_.own(stream);
  auto record = std::make_shared<EventRecord>();
  device_.enqueue(cpu_stream, [record] { record->complete(); });
  std::lock_guard lock(mutex_);
  record_ = std::move(record);
}

// A never-recorded event counts as complete, as in CUDA.
void CpuEvent::synchronize() {
  if (auto record = current_record()) record->wait();
}

bool CpuEvent::query() {
  auto record = current_record();
  return !record || record->done();
}

std::shared_ptr<EventRecord> CpuEvent::current_record() {
  std::lock_guard lock(mutex_);
  return record_;
}

namespace {

// The checks cuEventElapsedTime makes, as messages that say what to do.
void check_timing_event(CpuEvent& event, const char* which) {
  if (!event.timing())
    throw std::runtime_error(std::string("elapsed_ms needs two timing events, but the ") + which +
                             " event was created with timing disabled "
                             "(CUDA_ERROR_INVALID_HANDLE); create it with timing=True");
  auto record = event.current_record();
  if (!record)
    throw std::runtime_error(std::string("elapsed_ms: the ") + which +
                             " event was never recorded (CUDA_ERROR_INVALID_HANDLE); "
                             "record it on a stream first");
  if (!record->done())
    throw std::runtime_error(std::string("elapsed_ms: the ") + which +
                             " event has not completed yet (CUDA_ERROR_NOT_READY); "
                             "synchronize it first");
}

}  // namespace

float CpuEvent::elapsed_ms(Event& end_event) {
  CpuEvent& end = device_.own(end_event);
  check_timing_event(*this, "start");
  check_timing_event(end, "end");
  auto elapsed = end.current_record()->time() - current_record()->time();
  return std::chrono::duration<float, std::milli>(elapsed).count();
}

}  // namespace cudajit::runtime
