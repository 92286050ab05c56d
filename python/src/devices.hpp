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

// A reference to a Python object that C++ may drop on any thread: the last
// owner's release is queued and the reference is dropped, under the GIL, at
// the next call into cudajit (never inside a driver callback or worker).
std::shared_ptr<const void> hold_python_object(py::handle obj);
// One holder for several objects (a launch's foreign arrays): one allocation and one
// queued release, however many objects.
std::shared_ptr<const void> hold_python_objects(std::vector<PyObject*> objects);
// The same for an owner whose destructor may call into Python (a DLPack
// capsule's deleter): it is destroyed under the GIL at the next call.
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

void bind_devices(py::module_& m);

}  // namespace cudajit::python
