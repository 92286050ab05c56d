#include "device_attributes.hpp"

#include <pybind11/stl.h>

#include <string>

#include "cudajit/runtime/device_attributes.hpp"
#include "devices.hpp"

namespace cudajit::python {

void bind_device_attributes(py::module_& m) {
  m.def(
      "device_attribute",
      [](const DeviceHandle& d, const std::string& name) {
        return runtime::device_attribute(*d.device, name);
      },
      py::arg("device"), py::arg("name"),
      "Numba's Device attribute `name` (MULTIPROCESSOR_COUNT ...) of `device`; None for a name "
      "that is no attribute.");
  m.def("device_attribute_names", [] {
    std::vector<std::string> names;
    for (std::string_view name : runtime::device_attribute_names()) names.emplace_back(name);
    return names;
  });
  m.def("cuda_driver_version", &runtime::cuda_driver_version,
        "cuDriverGetVersion: 1000 * major + 10 * minor.");
}

}  // namespace cudajit::python
