// Numba's Device attributes: device.MULTIPROCESSOR_COUNT, device.WARP_SIZE ... (the names of
// CUDA's CUdevice_attribute without the CU_DEVICE_ATTRIBUTE_ prefix, as numba-cuda reads them),
// on every device; and the CUDA driver's version.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "cudajit/runtime/device.hpp"

namespace cudajit::runtime {

// The attribute's value on `device`: the driver's answer on a cuda device (a DriverError where
// the driver knows no such attribute); on the cpu device its limits, 1 or 0 for what it can or
// cannot do, and 0 for GPU hardware it does not have (clocks, PCI ids, textures). nullopt for
// a name that is no attribute.
std::optional<int> device_attribute(Device& device, std::string_view name);

// Every attribute name, in CUDA's order.
std::vector<std::string_view> device_attribute_names();

// cuDriverGetVersion: 1000 * major + 10 * minor. Throws CudaUnavailable without a driver.
int cuda_driver_version();

}  // namespace cudajit::runtime
