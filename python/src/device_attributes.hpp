// Numba's Device attributes and the driver's version, for cudajit.api.
#pragma once

#include <pybind11/pybind11.h>

namespace cudajit::python {

namespace py = pybind11;

void bind_device_attributes(py::module_& m);

}  // namespace cudajit::python
