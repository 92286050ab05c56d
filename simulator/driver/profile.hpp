// Per-launch profiles (exec/profile.hpp) as the driver keeps them: whether launches count
// memory accesses, and the counters of the last launch that completed.
#pragma once

#include <string>

#include "exec/profile.hpp"

namespace cudajit::sim::driver {

// Whether launches count memory accesses: CUDAJIT_SIM_PROFILE=1 at start, or
// cudajitSimSetProfiling.
bool profiling();

// Keeps `profile` as the last completed launch's (of kernel `kernel`).
void record_launch_profile(const std::string& kernel, const Profile& profile);

}  // namespace cudajit::sim::driver
