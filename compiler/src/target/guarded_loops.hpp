// The cpu device's loops whose body is an `if` on the loop's index: a block's thread loop
// of `if i < n:`, of `if i >= n: return`, of a 2-D kernel's `if row < rows and col < cols`.
// Such a loop runs only the indices where the `if` holds, without testing it, and one whose
// `if` has two sides (`s[t - d] if t >= d else 0`) runs as three loops, below, inside and
// above the range where it holds, so the loop vectoriser sees straight-line code instead of
// masking every load and store: cheap with AVX-512's mask registers, but 2-3x slower with
// AVX2's masked moves.
#pragma once

#include <llvm/IR/PassManager.h>

namespace cudajit::target::detail {

class NarrowToGuard : public llvm::PassInfoMixin<NarrowToGuard> {
 public:
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses);
};

}  // namespace cudajit::target::detail
