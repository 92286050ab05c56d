// Barriers and memory fences: cuda.syncthreads and its reductions
// (syncthreads_count/and/or), cuda.syncwarp, the grid's cuda.cg.this_grid().sync(),
// cuda.threadfence_block, threadfence and threadfence_system. The target decides how a thread
// waits: bar.sync on the GPU, a fiber switch on the cpu device.
#include "cudajit/compiler/target.hpp"
#include "lowering.hpp"

namespace cudajit::lower {

using ir::Node;

llvm::Value* FunctionLowering::call_sync_builtin(const Node& n, std::string_view name) {
  if (name.starts_with("threadfence")) {
    std::string_view scope = name == "threadfence_block"    ? "block"
                             : name == "threadfence_system" ? "system"
                                                            : "device";
    m_.hooks.fence(b_, scope);
    return nullptr;
  }
  m_.synchronises = true;
  if (name == "cg.grid_sync") {
    m_.hooks.grid_sync(m_, b_, thread_ctx_ ? thread_ctx_ : grid_workspace_);
    return nullptr;
  }
  if (name == "syncwarp") {
    llvm::Value* mask = n.size() == 0 ? b_.getInt32(0xffffffffu)
                                      : expr_as(n.child(0), Type::scalar(Scalar::UInt32));
    m_.hooks.barrier(m_, b_, target::kWarpSync, mask, thread_ctx_);
    return nullptr;
  }
  if (name == "syncthreads") {
    m_.hooks.barrier(m_, b_, target::kBarrierSync, b_.getInt32(0), thread_ctx_);
    return nullptr;
  }
  int op = name == "syncthreads_count" ? target::kBarrierCount
           : name == "syncthreads_and" ? target::kBarrierAnd
                                       : target::kBarrierOr;
  const Node& arg = n.child(0);
  llvm::Value* predicate = b_.CreateZExt(to_bool(expr(arg), type_of(arg)), b_.getInt32Ty());
  return m_.hooks.barrier(m_, b_, op, predicate, thread_ctx_);
}

}  // namespace cudajit::lower
