// The cpu device's bounds checks, tested once per loop instead of once per
// element: an innermost loop (a block's thread loop, a loop of the kernel)
// whose array checks compare an affine function of the induction variable
// with an invariant extent runs a copy without them when both ends of every
// index's range are in bounds; otherwise the checked original runs. The copy
// is what the loop vectoriser sees: straight-line loads and stores.
#pragma once

#include <llvm/IR/InstrTypes.h>
#include <llvm/IR/PassManager.h>

namespace llvm {
class BranchInst;
class SCEV;
}  // namespace llvm

namespace cudajit::target::detail {

// The branch the lowering's guard() makes: in bounds, or to the failure report
// (`index.out_of_bounds`).
bool is_bounds_branch(const llvm::BranchInst* branch);

// `predicate` as an ordering where it compares with zero: InstCombine writes `0 < j` as
// `j != 0` where it knows j is not negative, and `j != 0` is `j >u 0`.
llvm::CmpInst::Predicate ordered(llvm::CmpInst::Predicate predicate, const llvm::SCEV* rhs);

class BoundsCheckVersioning : public llvm::PassInfoMixin<BoundsCheckVersioning> {
 public:
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses);
};

// A loop hint (a string property of the loop's ID, as `llvm.loop.unroll.full` is): unroll
// this loop fully, but only once its bounds checks are versioned, so that the unrolled
// copies are the fast copy's, without checks (a warp's lane loops, warp_groups.cpp).
inline constexpr const char* kUnrollAfterChecks = "cudajit.loop.unroll.after_checks";

// Turns kUnrollAfterChecks into `llvm.loop.unroll.full` (both copies of a versioned loop
// keep the hint), except where a loop's unrolling is disabled; a full-unroll pass after it
// does the unrolling.
class UnrollAfterChecks : public llvm::PassInfoMixin<UnrollAfterChecks> {
 public:
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses);
};

}  // namespace cudajit::target::detail
