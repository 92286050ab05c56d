// Runs a kernel's grid: blocks spread over host threads, each block's warps on
// one of them. The entry point the stand-in driver and the tests use.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memory.hpp"
#include "program.hpp"
#include "warp.hpp"

namespace cudajit::sim {

struct LaunchStats {
  uint64_t thread_instructions = 0;
  Profile profile;  // memory counters only when Launch::profile; thread_instructions copied in
  std::vector<std::string> check_reports;  // what racecheck/initcheck found (also on stderr)
};

// Runs every block of `launch` (launch.abort may be null) on up to `threads`
// host threads (0: the hardware's count). Throws ExecutionFault for the first
// fault; the other blocks stop at their next warp switch.
LaunchStats execute(const Launch& launch, unsigned threads = 0);

// Packs kernelParams (one pointer per .param, as cuLaunchKernel takes them) into
// the kernel's .param layout. Throws ExecutionFault(InvalidParameter) when
// `count` differs from the kernel's parameter count (when known: count >= 0).
std::vector<uint8_t> pack_params(const Function& kernel, void** params, long count = -1);

}  // namespace cudajit::sim
