// The functions the driver provides to every module, which PTX declares and calls (vprintf,
// malloc, free): run in place of a call, in the caller's frame.
#pragma once

#include "../warp.hpp"

namespace cudajit::sim {

// Runs `callee`, a declaration, for the lanes of `mask` if it is one of the driver's functions;
// returns false if it is not.
bool run_driver_function(Warp& warp, const Inst& inst, const CallSite& site, const Function& callee,
                         uint32_t mask);

}  // namespace cudajit::sim
