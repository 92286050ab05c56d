// Entry points of the stand-in driver: C linkage, the names of libcuda.so.1.
#pragma once

#include "driver.hpp"

#define CUDAJIT_SIM_API extern "C" __attribute__((visibility("default"))) CUresult

namespace cudajit::sim::driver {

// Runs `body` translating a C++ exception into a CUresult: nothing escapes a C entry point.
template <class Body>
CUresult guarded(Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return CUDA_ERROR_OUT_OF_MEMORY;
  } catch (...) {
    return CUDA_ERROR_UNKNOWN;
  }
}

}  // namespace cudajit::sim::driver
