// The CPU the cpu device's code is compiled for: this machine's, or the one
// CUDAJIT_CPU_NAME and CUDAJIT_CPU_FEATURES name (as Numba's NUMBA_CPU_NAME and
// NUMBA_CPU_FEATURES): code for an older machine, or for a disk cache several share.
#pragma once

#include <llvm/TargetParser/SubtargetFeature.h>
#include <llvm/TargetParser/Triple.h>

#include <string>

namespace cudajit::target::detail {

struct HostCpu {
  std::string name;                  // an LLVM CPU name: znver4, haswell, x86-64-v3
  llvm::SubtargetFeatures features;  // +avx2,-avx512f...
};

// This machine's CPU and features, or the environment's choice. Throws
// std::invalid_argument for a CPU or feature LLVM does not know for `triple`, or one
// that asks for a feature this machine lacks (its code would stop at an illegal
// instruction), naming it.
HostCpu choose_host_cpu(const llvm::Triple& triple);

}  // namespace cudajit::target::detail
