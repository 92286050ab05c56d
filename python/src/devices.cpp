#include "devices.hpp"

#include <pybind11/stl.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "cudajit/runtime/interrupt.hpp"
#include "device_array.hpp"
#include "errors.hpp"

namespace cudajit::python {

namespace {

// The current device is per thread, as Numba's current context is: a thread that has
// chosen none (select_device, `with cuda.gpus[i]:`) uses the process's default device.
std::atomic<runtime::Device*> g_default{nullptr};
thread_local runtime::Device* t_current = nullptr;

// Falling back to the cpu device is said once, with the reason; choosing it
// (CUDAJIT_DEVICE=cpu) says nothing. The first thread to get here says it, holding no lock:
// `warnings` releases the GIL (it reads the source line), and a thread that waited on a lock
// here while holding the GIL would never let the warning finish (std::call_once did that).
std::atomic<bool> g_fallback_warned{false};

void warn_cpu_fallback() {
  if (!PyGILState_Check() || g_fallback_warned.exchange(true)) return;
  std::string reason = runtime::cuda_simulated() ? "only the simulated GPU was found"
                                                 : runtime::cuda_unavailable_reason();
  std::string message = "cudajit: no usable GPU (" + reason +
                        "); kernels run on the cpu device. Set CUDAJIT_DEVICE=cpu to choose it "
                        "and silence this warning.";
  // At the user's line that first needed a device, not inside cudajit.api or the dispatcher.
  if (PyErr_WarnEx(PyExc_RuntimeWarning, message.c_str(), user_stack_level()) != 0)
    PyErr_Clear();
}

runtime::Device& default_device() {
  const char* env = std::getenv("CUDAJIT_DEVICE");
  std::string wanted = env ? env : "";
  if (wanted == "cpu") return runtime::cpu_device();
  if (wanted == "cuda" || wanted == "sim") {
    if (!runtime::cuda_available())
      throw runtime::CudaUnavailable(
          "CUDAJIT_DEVICE=" + wanted +
          ", but the cuda device is unavailable: " + runtime::cuda_unavailable_reason());
    if (wanted == "sim" && !runtime::cuda_simulated())
      throw runtime::CudaUnavailable("CUDAJIT_DEVICE=sim, but " + runtime::cuda_driver_library() +
                                     " (CUDAJIT_LIBCUDA) is not cudajit's simulated GPU");
    return runtime::cuda_device(0);
  }
  if (!wanted.empty())
    throw std::invalid_argument("CUDAJIT_DEVICE must be 'cpu', 'cuda' or 'sim', got '" + wanted +
                                "'");
  // The simulated GPU is never chosen by default: it is a tool, not the machine's GPU.
  bool real_gpu = runtime::cuda_available() && !runtime::cuda_simulated();
  if (real_gpu) return runtime::cuda_device(0);
  warn_cpu_fallback();
  return runtime::cpu_device();
}

std::mutex g_release_mutex;
std::vector<std::function<void()>> g_pending_release;
std::vector<PyObject*> g_pending_decref;  // held objects, the commonest release

uintptr_t stream_integer(py::handle obj, const char* what) {
  if (PyLong_Check(obj.ptr())) {
    // An int out of range is a ValueError naming it, not a failed cast.
    unsigned long long handle = PyLong_AsUnsignedLongLong(obj.ptr());
    if (handle == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
      PyErr_Clear();
      throw py::value_error(std::string(what) + " handle must be from 0 to 2**64 - 1, got " +
                            std::string(py::repr(obj)));
    }
    return static_cast<uintptr_t>(handle);
  }
  try {
    return obj.cast<uintptr_t>();
  } catch (const py::cast_error&) {
    throw py::type_error(std::string(what) + " must be an integer stream handle, got " +
                         std::string(py::repr(obj)));
  }
}

}  // namespace

runtime::Device& current_device() {
  if (t_current != nullptr) return *t_current;
  runtime::Device* d = g_default.load();
  if (!d) {
    d = &default_device();
    g_default.store(d);
  }
  return *d;
}

void set_current_device(runtime::Device& device) { t_current = &device; }

py::object wrap_device(runtime::Device& device) { return py::cast(DeviceHandle{&device}); }

namespace {
PyTypeObject* g_stream_type = nullptr;  // set when the class is bound
}  // namespace

std::shared_ptr<runtime::Stream> resolve_stream(py::handle obj, runtime::Device& device) {
  if (obj.is_none()) return device.legacy_default_stream();
  if (g_stream_type && PyObject_TypeCheck(obj.ptr(), g_stream_type)) {
    auto* instance = reinterpret_cast<py::detail::instance*>(obj.ptr());
    auto s = instance->get_value_and_holder().value_ptr<StreamHandle>()->stream;
    if (&s->device() != &device)
      throw py::value_error("the stream belongs to device " + s->device().name() + " " +
                            std::to_string(s->device().ordinal()) + ", the work to " +
                            device.name() + " " + std::to_string(device.ordinal()));
    return s;
  }
  uintptr_t handle;
  if (PyLong_Check(obj.ptr())) {
    handle = stream_integer(obj, "stream");
  } else if (py::hasattr(obj, "__cuda_stream__")) {
    py::object pair = obj.attr("__cuda_stream__")();
    if (!py::isinstance<py::tuple>(pair) || py::len(pair) != 2)
      throw py::type_error("__cuda_stream__ must return (version, handle), got " +
                           std::string(py::repr(pair)));
    handle = stream_integer(pair.cast<py::tuple>()[1], "__cuda_stream__()[1]");
  } else if (py::hasattr(obj, "cuda_stream")) {  // torch.cuda.Stream
    handle = stream_integer(obj.attr("cuda_stream"), "stream.cuda_stream");
  } else if (py::hasattr(obj, "ptr")) {  // cupy.cuda.Stream
    handle = stream_integer(obj.attr("ptr"), "stream.ptr");
  } else {
    throw py::type_error(
        "expected a stream: a cudajit Stream, an integer handle, or an object with "
        "__cuda_stream__, .cuda_stream (PyTorch) or .ptr (CuPy); got " +
        std::string(py::repr(obj)));
  }
  if (handle == 0 || handle == 1) return device.legacy_default_stream();
  if (handle == 2) return device.per_thread_default_stream();
  return device.external_stream(handle);
}

std::shared_ptr<runtime::Stream> resolve_stream_or_default(py::handle obj, const DeviceArray& a) {
  if (!obj.is_none()) return resolve_stream(obj, *a.device);
  return a.stream ? a.stream : a.device->legacy_default_stream();
}

namespace {

// Whether Python is past its atexit hooks: releases queued later wait for no drain (the
// interpreter may be gone before it would run).
std::atomic<bool> g_finalizing{false};
std::atomic<bool> g_drain_scheduled{false};

int drain_pending_releases(void*) {
  g_drain_scheduled.store(false);
  release_pending_python_objects();
  return 0;
}

// A release queued on a thread without the GIL (a stream's worker, a driver sweep) runs at
// the main thread's next bytecode (Py_AddPendingCall needs no GIL and no thread state), so
// an owner goes when its last view does, not at the next call into cudajit.
void schedule_drain() {
  if (g_finalizing.load() || g_drain_scheduled.exchange(true)) return;
  if (Py_AddPendingCall(&drain_pending_releases, nullptr) != 0)
    g_drain_scheduled.store(false);  // the queue of pending calls is full: the next call drains
}

// On a thread holding the GIL a release runs at once: no C++ lock is held where the
// binding drops its last reference (a view's destructor, a launch's end), and none may be
// (a finaliser may call into cudajit).
bool release_now() { return !g_finalizing.load() && PyGILState_Check(); }

}  // namespace

void defer_under_gil(std::function<void()> release) {
  if (release_now()) {
    release();
    return;
  }
  {
    std::lock_guard lock(g_release_mutex);
    g_pending_release.push_back(std::move(release));
  }
  schedule_drain();
}

namespace {

// References released when the last owner lets go: at once under the GIL, else queued.
struct HeldObjects {
  std::vector<PyObject*> refs;
  ~HeldObjects() {
    if (release_now()) {
      for (PyObject* o : refs) Py_DECREF(o);
      return;
    }
    {
      std::lock_guard lock(g_release_mutex);
      g_pending_decref.insert(g_pending_decref.end(), refs.begin(), refs.end());
    }
    schedule_drain();
  }
};

}  // namespace

std::shared_ptr<const void> hold_python_objects(std::vector<PyObject*> objects) {
  auto held = std::make_shared<HeldObjects>();
  held->refs = std::move(objects);
  for (PyObject* o : held->refs) Py_INCREF(o);
  return held;
}

std::shared_ptr<const void> hold_python_object(py::handle obj) {
  return hold_python_objects({obj.ptr()});
}

void release_pending_python_objects() {
  std::vector<std::function<void()>> batch;
  std::vector<PyObject*> decrefs;
  {
    std::lock_guard lock(g_release_mutex);
    if (g_pending_release.empty() && g_pending_decref.empty()) return;
    batch.swap(g_pending_release);
    decrefs.swap(g_pending_decref);
  }
  // A release may run Python (__del__) that launches and releases again: the
  // batches are ours alone by now.
  for (PyObject* o : decrefs) Py_DECREF(o);
  for (auto& release : batch) release();
  decrefs.clear();
  std::lock_guard lock(g_release_mutex);
  if (g_pending_decref.empty()) g_pending_decref.swap(decrefs);  // keep the capacity
}

namespace {

// Runs a blocking runtime call without the GIL (workers may need it released
// to make progress), interruptible by Ctrl-C (runtime/interrupt.hpp), then drops the
// Python references that work released.
template <class F>
auto blocking(F&& f) {
  {
    py::gil_scoped_release release;
    runtime::InterruptibleWaits interruptible;
    f();
  }
  release_pending_python_objects();
}

}  // namespace

void synchronize_stream(runtime::Stream& stream) {
  blocking([&] { stream.synchronize(); });
}

namespace {

// The devices current before each `with device:` still open in this thread, innermost last.
std::vector<runtime::Device*>& entered_devices() {
  thread_local std::vector<runtime::Device*> stack;
  return stack;
}

std::string kind_name(runtime::DeviceKind k) {
  return k == runtime::DeviceKind::Cpu ? "cpu" : "cuda";
}

// Whether Python objects may still be touched: not once the interpreter is finalising (the
// runtime may release memory then, from its own threads).
bool python_alive() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsInitialized() && !Py_IsFinalizing();
#else
  return Py_IsInitialized() && !_Py_IsFinalizing();
#endif
}

// Deletes a Python object with the GIL held, from whichever thread; leaks it at exit.
struct GilDelete {
  void operator()(py::object* object) const {
    if (!python_alive()) return;
    py::gil_scoped_acquire gil;
    delete object;
  }
};

// Device memory a Python memory manager gave (numba's EMM plugins: RMM ...): holds the
// manager's memory object, whose own finalizer frees the memory once the runtime lets go.
class PluginAllocation final : public runtime::Allocation {
 public:
  PluginAllocation(runtime::Device& device, uintptr_t address, size_t size, py::object memory)
      : device_(device),
        address_(address),
        size_(size),
        memory_(new py::object(std::move(memory))) {}
  void* device_pointer() const override { return reinterpret_cast<void*>(address_); }
  void* host_pointer() const override { return nullptr; }
  size_t size() const override { return size_; }
  runtime::MemoryKind kind() const override { return runtime::MemoryKind::Device; }
  runtime::Device& device() const override { return device_; }

 private:
  runtime::Device& device_;
  uintptr_t address_;
  size_t size_;
  std::unique_ptr<py::object, GilDelete> memory_;
};

// The device allocator calling `allocate(bytes) -> (address, memory object)`, or None for
// the device's own allocation.
runtime::Device::DeviceAllocator python_allocator(py::object allocate) {
  std::shared_ptr<py::object> function(new py::object(std::move(allocate)), GilDelete{});
  return [function](runtime::Device& device, size_t bytes) -> std::shared_ptr<runtime::Allocation> {
    py::gil_scoped_acquire gil;
    py::object answer = (*function)(bytes);
    if (answer.is_none()) return nullptr;  // the device's own allocator
    py::tuple result = answer;
    auto address = result[0].cast<uintptr_t>();
    return std::make_shared<PluginAllocation>(device, address, bytes, result[1]);
  };
}

}  // namespace

void bind_devices(py::module_& m) {
  m.def(
      "set_deallocation_limits",
      [](size_t count, double ratio) { runtime::PendingDeallocations::set_limits(count, ratio); },
      "Every device's pending deallocations are freed past `count` of them or past `ratio` of "
      "the device's memory (numba-cuda's CUDA_DEALLOCS_COUNT and CUDA_DEALLOCS_RATIO)");
  m.def("deallocation_limits", [] {
    return py::make_tuple(runtime::PendingDeallocations::max_count(),
                          runtime::PendingDeallocations::ratio());
  });
  py::class_<DeviceHandle>(m, "Device", "A device: the cpu device or a CUDA GPU.")
      .def_property_readonly("name", [](const DeviceHandle& d) { return d.device->name(); })
      .def_property_readonly("id", [](const DeviceHandle& d) { return d.device->ordinal(); })
      .def_property_readonly("kind",
                             [](const DeviceHandle& d) { return kind_name(d.device->kind()); })
      .def_property_readonly("compute_capability",
                             [](const DeviceHandle& d) {
                               int cc = d.device->compute_capability();
                               return py::make_tuple(cc / 10, cc % 10);
                             })
      .def_property_readonly(
          "context_handle", [](const DeviceHandle& d) { return d.device->context_handle(); },
          "The driver's context (CUcontext) the device's work runs in, its primary context; "
          "0 on the cpu device")
      .def_property_readonly(
          "multiprocessors",
          [](const DeviceHandle& d) { return d.device->limits().multiprocessors; })
      .def_property_readonly(
          "max_threads_per_block",
          [](const DeviceHandle& d) { return d.device->limits().max_threads_per_block; })
      .def("synchronize", [](const DeviceHandle& d) { blocking([&] { d.device->synchronize(); }); })
      .def("memory_info", [](const DeviceHandle& d) { return d.device->memory_info(); })
      // The device's pending deallocations (cudajit.cudadrv.memory.PendingDeallocs).
      .def("pending_deallocations",
           [](const DeviceHandle& d) { return d.device->deallocations().count(); })
      .def("pending_deallocation_bytes",
           [](const DeviceHandle& d) { return d.device->deallocations().bytes(); })
      .def("max_pending_deallocation_bytes",
           [](const DeviceHandle& d) { return d.device->deallocations().max_pending_bytes(); })
      .def("deallocation_capacity",
           [](const DeviceHandle& d) { return d.device->deallocations().capacity(); })
      .def(
          "clear_deallocations",
          [](const DeviceHandle& d) {
            py::gil_scoped_release release;
            return d.device->deallocations().clear();
          },
          "Free the pending deallocations unless disabled; the number freed")
      .def("disable_deallocations",
           [](const DeviceHandle& d) { d.device->deallocations().disable(); })
      .def("enable_deallocations",
           [](const DeviceHandle& d) { d.device->deallocations().enable(); })
      .def("deallocations_disabled",
           [](const DeviceHandle& d) { return d.device->deallocations().disabled(); })
      .def(
          "set_memory_plugin",
          [](const DeviceHandle& d, py::object allocate) {
            d.device->set_device_allocator(allocate.is_none()
                                               ? runtime::Device::DeviceAllocator{}
                                               : python_allocator(std::move(allocate)));
          },
          "Device memory from `allocate(bytes) -> (address, memory object)` (a Python memory "
          "manager, numba's EMM plugin), holding the object until the memory is released; "
          "`allocate` returning None, or None given: the device's own allocator")
      .def("has_memory_plugin",
           [](const DeviceHandle& d) { return d.device->has_device_allocator(); })
      // `with device:` makes it current for the block, then the one before again
      // (Numba's `with cuda.gpus[i]:`).
      .def("__enter__",
           [](const DeviceHandle& d) {
             entered_devices().push_back(&current_device());
             set_current_device(*d.device);
             return d;
           })
      .def("__exit__",
           [](const DeviceHandle&, py::args) {
             if (entered_devices().empty()) return;
             set_current_device(*entered_devices().back());
             entered_devices().pop_back();
           })
      .def("create_stream",
           [](const DeviceHandle& d) { return StreamHandle{d.device->create_stream()}; })
      .def("legacy_default_stream",
           [](const DeviceHandle& d) { return StreamHandle{d.device->legacy_default_stream()}; })
      .def(
          "per_thread_default_stream",
          [](const DeviceHandle& d) { return StreamHandle{d.device->per_thread_default_stream()}; })
      .def(
          "external_stream",
          [](const DeviceHandle& d, uintptr_t handle) {
            return StreamHandle{d.device->borrow_stream(handle)};
          },
          py::arg("handle"),
          "A Stream for a CUstream made elsewhere; on cuda its context is checked at its first "
          "use")
      .def(
          "activate_context", [](const DeviceHandle& d) { d.device->activate_context(); },
          "Make the device's primary context current on this thread if it has none (Numba's "
          "current_context()); a RuntimeError if a context that is not primary is current")
      .def(
          "create_event",
          [](const DeviceHandle& d, bool timing) {
            return EventHandle{d.device->create_event(timing)};
          },
          py::arg("timing") = true)
      .def("__eq__",
           [](const DeviceHandle& a, py::handle b) -> py::object {
             if (!py::isinstance<DeviceHandle>(b))
               return py::reinterpret_borrow<py::object>(Py_NotImplemented);
             return py::bool_(a.device == b.cast<const DeviceHandle&>().device);
           })
      .def("__hash__", [](const DeviceHandle& d) { return std::hash<const void*>()(d.device); })
      .def("__repr__", [](const DeviceHandle& d) {
        return "<cudajit Device " + std::to_string(d.device->ordinal()) + " '" + d.device->name() +
               "' (" + kind_name(d.device->kind()) + ")>";
      });

  py::class_<StreamHandle> stream_class(m, "Stream", "An in-order queue of work on a device.");
  g_stream_type = reinterpret_cast<PyTypeObject*>(stream_class.ptr());
  stream_class
      .def_property_readonly("handle", [](const StreamHandle& s) { return s.stream->handle(); })
      .def_property_readonly("device",
                             [](const StreamHandle& s) { return wrap_device(s.stream->device()); })
      .def(
          "synchronize", [](const StreamHandle& s) { blocking([&] { s.stream->synchronize(); }); },
          "Wait until all work queued on the stream has finished.")
      .def(
          "query",
          [](const StreamHandle& s) {
            bool done = s.stream->query();
            release_pending_python_objects();
            return done;
          },
          "True when all work queued on the stream has finished.")
      .def_property_readonly(
          "external", [](const StreamHandle& s) { return s.stream->external(); },
          "Whether the stream was made elsewhere and borrowed by its handle (cuda.external_stream, "
          "a foreign array's CUDA Array Interface stream), as Numba's Stream.external")
      .def("__cuda_stream__",
           [](const StreamHandle& s) { return py::make_tuple(0, s.stream->handle()); })
      .def("__int__", [](const StreamHandle& s) { return s.stream->handle(); })
      .def("__eq__",
           [](const StreamHandle& a, py::handle b) -> py::object {
             if (!py::isinstance<StreamHandle>(b))
               return py::reinterpret_borrow<py::object>(Py_NotImplemented);
             // The same queue of the same device, however many wrappers it has (a
             // foreign CUstream imported twice is wrapped twice).
             const runtime::Stream& other = *b.cast<const StreamHandle&>().stream;
             return py::bool_(&a.stream->device() == &other.device() &&
                              a.stream->handle() == other.handle());
           })
      .def("__hash__",
           [](const StreamHandle& s) {
             return std::hash<const void*>()(&s.stream->device()) ^
                    std::hash<uintptr_t>()(s.stream->handle());
           })
      .def("__repr__", [](const StreamHandle& s) {
        return "<cudajit Stream 0x" +
               [&] {
                 char buf[32];
                 std::snprintf(buf, sizeof buf, "%llx",
                               static_cast<unsigned long long>(s.stream->handle()));
                 return std::string(buf);
               }() +
               " on " + s.stream->device().name() + ">";
      });

  py::class_<EventHandle>(m, "Event", "A marker in a stream, to wait on or to time.")
      .def(
          "record",
          [](const EventHandle& e, py::handle stream) {
            e.event->record(*resolve_stream(stream, current_device()));
          },
          py::arg("stream") = 0)
      .def(
          "wait",
          [](const EventHandle& e, py::handle stream) {
            resolve_stream(stream, current_device())->wait(*e.event);
          },
          py::arg("stream") = 0, "Make later work on `stream` wait for this event.")
      .def("synchronize", [](const EventHandle& e) { blocking([&] { e.event->synchronize(); }); })
      .def("query", [](const EventHandle& e) { return e.event->query(); })
      .def(
          "elapsed_time",
          [](const EventHandle& start, const EventHandle& end) {
            return start.event->elapsed_ms(*end.event);
          },
          py::arg("end"), "Milliseconds from this event to `end`.");

  m.def("cpu_device", [] { return wrap_device(runtime::cpu_device()); });
  m.def("cuda_available", &runtime::cuda_available);
  m.def("cuda_simulated", &runtime::cuda_simulated);
  m.def("cuda_driver_library", &runtime::cuda_driver_library);
  m.def("cuda_unavailable_reason", &runtime::cuda_unavailable_reason);
  m.def("cuda_device_count", &runtime::cuda_device_count);
  m.def("cuda_device", [](int ordinal) { return wrap_device(runtime::cuda_device(ordinal)); });
  m.def("current_device", [] { return wrap_device(current_device()); });
  m.def("set_current_device", [](const DeviceHandle& d) { set_current_device(*d.device); });
  m.def(
      "resolve_stream",
      [](py::handle obj) { return StreamHandle{resolve_stream(obj, current_device())}; },
      py::arg("stream"), "The stream `obj` names on the current device.");
  m.def("release_pending", &release_pending_python_objects);
  // After this, references released off the GIL stay queued: no drain is scheduled on an
  // interpreter that is going away.
  py::module_::import("atexit").attr("register")(
      py::cpp_function([] { g_finalizing.store(true); }));
}

}  // namespace cudajit::python
