// Runs a kernel compiled for the host over a whole grid, its blocks spread
// across worker threads (the cpu device's multiprocessors).
#pragma once

#include <cstdint>

#include "cudajit/compiler/target.hpp"

namespace cudajit::runtime {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
};

// Blocks until every block has run. `params` is cuLaunchKernel's kernelParams.
// `errors` receives the first index out of bounds (kernels compiled with bounds checks).
void launch_host(target::HostEntry entry, Dim3 grid, Dim3 block, void** params,
                 target::IndexErrorRecord* errors = nullptr);

// Number of worker threads the cpu device runs blocks on.
unsigned host_worker_count();

}  // namespace cudajit::runtime
