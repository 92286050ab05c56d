// The cpu device's vectorised loops that write an array from end to end and read others the
// same way (saxpy's `out[i] = a * x[i] + y[i]`, copies, elementwise maps): where the array is
// larger than the caches, an ordinary store first reads each line it writes (the
// write-allocate, a quarter of saxpy's memory traffic), and a non-temporal one (MOVNTPS)
// writes whole lines without reading them. Each vector store of such a loop becomes a
// non-temporal one where the launch marks the array large (LaunchDims::large_arrays) and the
// stores are 16-byte aligned (a test before the loop), a masked store (AVX-512) where
// every lane stores too; an ordinary one elsewhere. The entry point fences the stores
// (SFENCE) before it returns. Loops that re-read
// what they load (stencils) or read the array they write keep ordinary stores. x86 only; runs
// last in the pipeline, on host entry points (kHostEntryAttribute).
#pragma once

#include <llvm/IR/PassManager.h>

namespace cudajit::target::detail {

class StreamingStores : public llvm::PassInfoMixin<StreamingStores> {
 public:
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses);
};

}  // namespace cudajit::target::detail
