// Measurement hooks for benchmarks/: the cost of a launch with nothing of
// cudajit's around it, to compare cudajit's launch path against.
#pragma once

#include "cudajit/runtime/device.hpp"

namespace cudajit::runtime {

// Microseconds per launch of `count` back-to-back cuLaunchKernel calls on the
// kernel, with parameters packed once; the stream is synchronised after the
// timing. cuda only: throws std::invalid_argument for the cpu device.
double bare_launch_microseconds(Device& device, LoadedKernel& kernel, Dim3 grid, Dim3 block,
                                Stream& stream, KernelParams& params, int count);

}  // namespace cudajit::runtime
