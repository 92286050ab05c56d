#include "launch_config.hpp"

#include <stdexcept>

namespace cudajit::runtime {

namespace {

constexpr const char* kAxis[3] = {"x", "y", "z"};

uint32_t axis(Dim3 dims, int i) { return i == 0 ? dims.x : i == 1 ? dims.y : dims.z; }

void check_axes(const char* what, Dim3 dims, const std::array<uint32_t, 3>& max,
                const std::string& device) {
  for (int i = 0; i < 3; ++i) {
    uint32_t value = axis(dims, i);
    if (value == 0)
      throw std::invalid_argument(std::string(what) + " dimensions must be at least 1, got " +
                                  format_dim3(dims));
    if (value > max[i])
      throw std::invalid_argument(std::string(what) + " dimension " + kAxis[i] + " = " +
                                  std::to_string(value) + " exceeds the limit of " +
                                  std::to_string(max[i]) + " on device " + device + " (" + what +
                                  " " + format_dim3(dims) + ")");
  }
}

}  // namespace

std::string format_dim3(Dim3 dims) {
  return std::string("(") + std::to_string(dims.x) + ", " + std::to_string(dims.y) + ", " +
         std::to_string(dims.z) + ")";
}

void check_cooperative_grid(const std::string& kernel, Dim3 grid, Dim3 block, int64_t most,
                            const std::string& device) {
  if (int64_t(grid.count()) <= most) return;
  throw std::invalid_argument("kernel '" + kernel +
                              "' syncs its grid (cuda.cg.this_grid().sync()), so all its blocks "
                              "must be resident at once: at most " +
                              std::to_string(most) + " blocks of " + std::to_string(block.count()) +
                              " threads fit on device " + device + ", got grid " +
                              format_dim3(grid) + " of " + std::to_string(grid.count()) +
                              " blocks");
}

void check_launch_config(const DeviceLimits& limits, Dim3 grid, Dim3 block, size_t shared_bytes,
                         const std::string& device) {
  check_axes("block", block, limits.max_block, device);
  if (block.count() > uint64_t(limits.max_threads_per_block))
    throw std::invalid_argument(
        "block " + format_dim3(block) + " has " + std::to_string(block.count()) +
        " threads, more than the limit of " + std::to_string(limits.max_threads_per_block) +
        " threads per block on device " + device);
  check_axes("grid", grid, limits.max_grid, device);
  if (shared_bytes > limits.max_shared_per_block)
    throw std::invalid_argument("dynamic shared memory of " + std::to_string(shared_bytes) +
                                " bytes exceeds the limit of " +
                                std::to_string(limits.max_shared_per_block) +
                                " bytes per block on device " + device);
}

}  // namespace cudajit::runtime
