// Devices, streams and events as Python sees them, the current device, and
// the rules for what counts as a stream at a launch.
#pragma once

#include <pybind11/pybind11.h>

#include <functional>
#include <memory>

#include "cudajit/runtime/device.hpp"

namespace cudajit::python {

namespace py = pybind11;

struct DeviceArray;

// Non-owning: devices live as long as the process.
struct DeviceHandle {
  runtime::Device* device;
};
struct StreamHandle {
  std::shared_ptr<runtime::Stream> stream;
};
struct EventHandle {
  std::shared_ptr<runtime::Event> event;
};

py::object wrap_device(runtime::Device& device);

// The device launches and allocations go to: CUDAJIT_DEVICE=cpu|cuda, else
// the first GPU when a driver and a GPU are present, else the cpu device.
runtime::Device& current_device();
void set_current_device(runtime::Device& device);

// What a user may hold as a stream: None or 0 (the legacy default stream), 1
// (legacy default), 2 (per-thread default), our Stream, another integer
// handle, an object with __cuda_stream__ (returning (version, handle)), a
// CuPy stream (.ptr) or a PyTorch stream (.cuda_stream). Throws TypeError
// for anything else.
std::shared_ptr<runtime::Stream> resolve_stream(py::handle obj, runtime::Device& device);
// `obj` if given, else the array's default stream, else the legacy default.
std::shared_ptr<runtime::Stream> resolve_stream_or_default(py::handle obj, const DeviceArray& a);

// A reference to a Python object that C++ may drop on any thread. When the last owner
// lets go on a thread holding the GIL (a view's destructor), the reference is dropped
// there and then; on another thread (a stream's worker, a driver sweep) it is queued and
// dropped by the main thread at its next bytecode (Py_AddPendingCall), or at the next call
// into cudajit, whichever comes first: never inside a driver callback or worker, never
// under a C++ lock.
std::shared_ptr<const void> hold_python_object(py::handle obj);
// One holder for several objects (a launch's foreign arrays): one allocation and one
// release, however many objects.
std::shared_ptr<const void> hold_python_objects(std::vector<PyObject*> objects);
// The same for an owner whose destructor may call into Python (a DLPack
// capsule's deleter): destroyed under the GIL, at once or queued as above.
template <class T>
std::shared_ptr<const void> defer_release_under_gil(std::shared_ptr<T> owner);
void defer_under_gil(std::function<void()> release);
void release_pending_python_objects();

template <class T>
std::shared_ptr<const void> defer_release_under_gil(std::shared_ptr<T> owner) {
  auto* raw = owner.get();
  return std::shared_ptr<const void>(raw, [owner = std::move(owner)](const void*) mutable {
    defer_under_gil([o = std::move(owner)]() mutable { o.reset(); });
  });
}

// Waits for the work queued on `stream` without the GIL, interruptibly (Ctrl-C), then
// drops the Python references that work released; rethrows the stream's errors.
void synchronize_stream(runtime::Stream& stream);

void bind_devices(py::module_& m);

}  // namespace cudajit::python
