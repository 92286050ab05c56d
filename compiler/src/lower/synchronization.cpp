// Where block barriers are (the builtins themselves: builtins/synchronization.cpp): the
// functions that sync their block, directly or through calls, and on the cpu device the
// meeting points of the lanes of a warp after a statement that holds one.
#include "../builtins/registry.hpp"
#include "lowering.hpp"

namespace cudajit::lower {

using ir::Node;

namespace {

bool is_block_barrier(const Node& n) {
  return n.kind == ir::NodeKind::Call && builtins::has_fact(n.text, builtins::kBlockBarrier);
}

bool holds_block_barrier(const Node& n, const typing::TypedFunction& f,
                         const std::unordered_set<const typing::TypedFunction*>& syncing) {
  if (is_block_barrier(n)) return true;
  if (auto callee = f.callees.find(&n); callee != f.callees.end() && syncing.count(callee->second))
    return true;
  for (const auto& child : n.children)
    if (holds_block_barrier(*child, f, syncing)) return true;
  return false;
}

// The last statement of a body the thread leaves the kernel after, and the last ones of
// the branches of an `if` there (a loop's body runs again: never tail).
void mark_tail(const std::vector<ir::NodePtr>& body, std::unordered_set<const Node*>& tail) {
  if (body.empty()) return;
  const Node& last = *body.back();
  tail.insert(&last);
  if (last.kind == ir::NodeKind::If) {
    mark_tail(last.child(1).children, tail);
    mark_tail(last.child(2).children, tail);
  } else if (last.kind == ir::NodeKind::Block) {
    mark_tail(last.children, tail);
  }
}

}  // namespace

void find_block_barriers(ModuleLowering& m,
                         const std::vector<const typing::TypedFunction*>& functions,
                         const typing::TypedFunction& entry) {
  for (bool grew = true; grew;) {  // callers of syncing functions sync too
    grew = false;
    for (const typing::TypedFunction* f : functions) {
      if (m.block_syncing.count(f)) continue;
      for (const auto& s : f->function->body) {
        if (!holds_block_barrier(*s, *f, m.block_syncing)) continue;
        m.block_syncing.insert(f);
        grew = true;
        break;
      }
    }
  }
  mark_tail(entry.function->body, m.tail_statements);
}

bool FunctionLowering::syncs_block(const Node& s) const {
  return holds_block_barrier(s, f_, m_.block_syncing);
}

// Threads that took a path around a barrier wait here for the rest of their warp, as lanes
// reconverge on a GPU (and on the simulated GPU, which reports the same deadlock). Where
// the thread only ends after, nothing waits: an early `return` before barriers is common.
void FunctionLowering::converge_after(const Node& s) {
  if (thread_ctx_ == nullptr || m_.tail_statements.count(&s) || !syncs_block(s)) return;
  m_.synchronises = true;  // the per-thread entry, even where typing pruned the barrier
  m_.hooks.converge(m_, b_, s.loc.line, thread_ctx_);
}

}  // namespace cudajit::lower
