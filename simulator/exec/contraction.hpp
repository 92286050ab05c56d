// ptxas contracts a float multiply and the add or subtract that consumes it into
// one fused multiply-add when neither names a rounding modifier (its default
// --fmad=true; the PTX ISA allows it for mul/add/sub without .rn/.rz/.rm/.rp).
// The simulator does the same, so it computes what a GPU computes.
#pragma once

#include <vector>

#include "../ptx/module.hpp"

namespace cudajit::sim {

// The function's body with each contractible add/sub rewritten as
// `fma.rn.<type>{.negproduct}{.negaddend}`, fed by the multiply's operands. A
// multiply is contracted only into its single use, later in the same basic block,
// with neither multiply operand redefined in between.
std::vector<ptx::Instruction> contract_multiply_adds(const ptx::Function& function);

}  // namespace cudajit::sim
