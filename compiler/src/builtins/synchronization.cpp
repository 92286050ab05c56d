// Barriers and memory fences: cuda.syncthreads and its reductions
// (syncthreads_count/and/or), cuda.syncwarp, the grid's cuda.cg.this_grid().sync(),
// cuda.threadfence_block, threadfence and threadfence_system. The target decides how a thread
// waits: bar.sync on the GPU, a fiber switch on the cpu device. (Which functions and
// statements hold a block barrier: lower/synchronization.cpp.)
#include "../lower/lowering.hpp"
#include "cudajit/compiler/target.hpp"
#include "rules.hpp"

namespace cudajit::builtins {

namespace {

using lower::FunctionLowering;

Type type_no_value(const Node&, const std::vector<Type>&, typing::TypedFunction&) {
  return Type::none();
}

Type type_syncwarp(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  if (!args.empty()) expect_integer_or_bool(call, call.text + "()'s mask", args[0]);
  return Type::none();
}

// syncthreads_count, _and, _or: a predicate per thread, an int32 for the block.
Type type_barrier_reduction(const Node& call, const std::vector<Type>& args,
                            typing::TypedFunction&) {
  expect_integer_or_bool(call, call.text + "()", args[0]);
  return Type::scalar(Scalar::Int32);
}

// The front end turns cuda.cg.this_grid().sync() into cuda.cg.grid_sync (frontend_grid.py).
Type type_this_grid(const Node& call, const std::vector<Type>&, typing::TypedFunction&) {
  type_error(call, "cuda.cg.this_grid() can only be assigned to a name or called .sync() on");
}

llvm::Value* lower_sync(FunctionLowering& f, const Node& n) {
  return f.call_sync_builtin(n, suffix(n, "cuda."));
}

// launch.cooperative: no code; the kernel that holds it (or calls a function that does) is
// launched cooperatively (lower/module.cpp). The front end writes it where a function makes
// cuda.cg.this_grid() or calls a declare_device(use_cooperative=True) function, as Numba
// marks such kernels cooperative.
llvm::Value* lower_nothing(FunctionLowering&, const Node&) { return nullptr; }

}  // namespace

void register_synchronization(Registry& r) {
  r.add(
      {"cuda.syncthreads", takes(0), type_no_value, lower_sync, "cuda.syncthreads", kBlockBarrier});
  for (std::string_view name :
       {"cuda.syncthreads_count", "cuda.syncthreads_and", "cuda.syncthreads_or"})
    r.add({name, takes(1), type_barrier_reduction, lower_sync, name, kBlockBarrier});
  r.add({"cuda.syncwarp", takes(0, 1), type_syncwarp, lower_sync, "cuda.syncwarp"});
  for (std::string_view name :
       {"cuda.threadfence_block", "cuda.threadfence", "cuda.threadfence_system"})
    r.add({name, takes(0), type_no_value, lower_sync, name});
  r.add({"cuda.cg.grid_sync", takes(0), type_no_value, lower_sync, {}, kBlockBarrier});
  r.add({"cuda.cg.this_grid", kRuleChecksArity, type_this_grid, nullptr, "cuda.cg.this_grid"});
  r.add({"launch.cooperative", takes(0), type_no_value, lower_nothing});
}

}  // namespace cudajit::builtins

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
