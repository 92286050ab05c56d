// Python objects the binding looks up once and keeps for the process.
//
// Not function-local statics: a static initialised by an import holds its guard (a C++
// lock) while the import releases the GIL (it reads files), and a second thread that takes
// the GIL and reaches the same static waits on the guard forever, holding the GIL the
// first one needs. Here the lookup runs with no lock held; two threads that race both look
// up, and the first to store wins.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>

namespace cudajit::python {

namespace py = pybind11;

// `module.name`, imported at first use; called with the GIL held. Never released: a
// static py::object would be released after the interpreter is gone.
class LazyAttribute {
 public:
  constexpr LazyAttribute(const char* module, const char* name) : module_(module), name_(name) {}

  PyObject* get() {
    if (PyObject* found = object_.load(std::memory_order_acquire)) return found;
    py::object looked_up = py::module_::import(module_).attr(name_);
    PyObject* expected = nullptr;
    if (object_.compare_exchange_strong(expected, looked_up.ptr(), std::memory_order_acq_rel))
      return looked_up.release().ptr();
    return expected;  // another thread stored it first; ours is dropped
  }

 private:
  const char* module_;
  const char* name_;
  std::atomic<PyObject*> object_{nullptr};
};

}  // namespace cudajit::python
