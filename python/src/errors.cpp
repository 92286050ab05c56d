// The one place C++ exceptions become Python exceptions.
#include "errors.hpp"

#include <string>
#include <utility>

#include "cudajit/compiler/errors.hpp"
#include "cudajit/runtime/device.hpp"
#include "cudajit/runtime/fork.hpp"
#include "cudajit/runtime/host_launch.hpp"
#include "cudajit/runtime/interop.hpp"
#include "cudajit/runtime/interrupt.hpp"

namespace cudajit::python {

namespace {

void raise_from_errors_module(const char* name, const char* message) {
  py::object cls = py::module_::import("cudajit.errors").attr(name);
  PyErr_SetString(cls.ptr(), message);
}

// The exception Python's signal handler raised during a wait (KeyboardInterrupt, unless the
// program installed its own SIGINT handler), kept from the check to the translator.
thread_local PyObject* t_interrupt_type = nullptr;
thread_local PyObject* t_interrupt_value = nullptr;
thread_local PyObject* t_interrupt_traceback = nullptr;

// runtime::InterruptCheck: runs Python's pending signal handlers (main thread only).
bool python_interrupt_pending() {
  py::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() == 0) return false;
  PyErr_Fetch(&t_interrupt_type, &t_interrupt_value, &t_interrupt_traceback);
  return true;
}

void raise_interrupt() {
  if (t_interrupt_type == nullptr) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    return;
  }
  PyErr_Restore(std::exchange(t_interrupt_type, nullptr), std::exchange(t_interrupt_value, nullptr),
                std::exchange(t_interrupt_traceback, nullptr));
}

}  // namespace

int user_stack_level() {
  // Looked up in sys.modules (no import: nothing here may release the GIL).
  py::object package =
      py::reinterpret_steal<py::object>(PyImport_GetModule(py::str("cudajit").ptr()));
  if (!package || !py::hasattr(package, "__file__")) {
    PyErr_Clear();
    return 1;
  }
  std::string folder = py::str(package.attr("__file__"));
  folder.resize(folder.rfind('/') + 1);
  int level = 1;
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed
  Py_XINCREF(frame);
  while (frame != nullptr) {
    py::object code =
        py::reinterpret_steal<py::object>(reinterpret_cast<PyObject*>(PyFrame_GetCode(frame)));
    std::string file = py::str(code.attr("co_filename"));
    if (file.compare(0, folder.size(), folder) != 0) break;
    PyFrameObject* back = PyFrame_GetBack(frame);  // new reference
    Py_DECREF(frame);
    frame = back;
    ++level;
  }
  Py_XDECREF(frame);
  return level;
}

void register_exception_translators() {
  runtime::set_interrupt_check(&python_interrupt_pending);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const runtime::Interrupted&) {
      raise_interrupt();
    } catch (const CompileError& e) {
      // cudajit.errors.CompileError formats file:line:col with the source line.
      py::object cls = py::module_::import("cudajit.errors").attr("CompileError");
      py::object error = cls(e.what(), e.file(), e.loc().line, e.loc().col);
      PyErr_SetObject(cls.ptr(), error.ptr());
    } catch (const IrSyntaxError& e) {
      PyErr_SetString(
          PyExc_RuntimeError,
          (std::string("internal error: malformed kernel IR from the front end: ") + e.what())
              .c_str());
    } catch (const LlvmError& e) {
      PyErr_SetString(PyExc_RuntimeError, (std::string("LLVM error: ") + e.what()).c_str());
    } catch (const runtime::InteropNotImplemented& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    } catch (const runtime::InteropTypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const runtime::DevicesForked& e) {
      raise_from_errors_module("CudaDriverError", e.what());
    } catch (const runtime::DriverError& e) {
      constexpr int kOutOfMemory = 2;  // CUDA_ERROR_OUT_OF_MEMORY
      bool out_of_memory = e.code() == kOutOfMemory;
      raise_from_errors_module(out_of_memory ? "CudaOutOfMemoryError" : "CudaDriverError",
                               e.what());
    } catch (const runtime::OutOfMemory& e) {
      PyErr_SetString(PyExc_MemoryError, e.what());
    } catch (const runtime::CudaUnavailable& e) {
      raise_from_errors_module("CudaSupportError", e.what());
    } catch (const runtime::StackOverflowError& e) {
      PyErr_SetString(PyExc_RecursionError, e.what());
    }
  });
}

}  // namespace cudajit::python
