#pragma once

#include <pybind11/pybind11.h>

namespace cudajit::python {

namespace py = pybind11;

// CompileError -> cudajit.errors.CompileError; DriverError -> CudaDriverError;
// CudaUnavailable -> CudaSupportError; IrSyntaxError and LlvmError ->
// RuntimeError; std::invalid_argument -> ValueError (pybind11's own rule).
void register_exception_translators();

}  // namespace cudajit::python
