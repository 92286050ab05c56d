// The launch configuration checks both devices make before queuing a kernel.
#pragma once

#include <string>

#include "cudajit/runtime/device.hpp"

namespace cudajit::runtime {

// Throws std::invalid_argument naming the limit and the value when `grid`,
// `block` or `shared_bytes` exceed `limits` or a dimension is 0. `device`
// names the device in the message ("cpu", "cuda:0").
void check_launch_config(const DeviceLimits& limits, Dim3 grid, Dim3 block, size_t shared_bytes,
                         const std::string& device);

// A kernel that syncs its grid needs every block resident at once: throws
// std::invalid_argument naming the kernel, the limit and the grid when `grid`
// has more than `most` blocks.
void check_cooperative_grid(const std::string& kernel, Dim3 grid, Dim3 block, int64_t most,
                            const std::string& device);

// "(32, 4, 1)"
std::string format_dim3(Dim3 dims);

}  // namespace cudajit::runtime
