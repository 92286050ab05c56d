#pragma once

#include <pybind11/pybind11.h>

namespace cudajit::python {

namespace py = pybind11;

// CompileError -> cudajit.errors.CompileError; DriverError -> CudaDriverError;
// CudaUnavailable -> CudaSupportError; IrSyntaxError and LlvmError ->
// RuntimeError; std::invalid_argument -> ValueError (pybind11's own rule).
void register_exception_translators();

// The stack level (PyErr_WarnEx's) of the innermost Python frame outside the cudajit package:
// a warning issued under a call into cudajit names the user's line, not cudajit's own.
int user_stack_level();

}  // namespace cudajit::python
