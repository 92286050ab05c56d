// vprintf, run in place of a call to the driver's printf support.
#pragma once

#include "../warp.hpp"

namespace cudajit::sim {

// The lanes of `mask` format their lines into the launch's printf output.
void run_vprintf(Warp& warp, const Inst& inst, const CallSite& site, uint32_t mask);

}  // namespace cudajit::sim
