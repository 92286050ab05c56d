// Grid-stride loops on the cpu device. `for i in range(cuda.grid(1), n, cuda.gridsize(1))`
// has each thread walk memory with a stride of the whole grid; the threads of a block
// run one after the other on a core, so every access misses the cache and nothing
// vectorises. The threads together run each index of [0, n) once, and when the body
// cannot tell which thread runs an index (it reads no thread identity, carries no value
// from one iteration to the next, keeps nothing per thread or block), the host gives
// each thread a contiguous share instead (for_range): the same work, in memory order.
#include <string_view>
#include <unordered_set>

#include "lowering.hpp"

namespace cudajit::lower {

using ir::Node;
using ir::NodeKind;

namespace {

// Builtins whose value or effect depends on which thread runs (or that order threads).
bool thread_specific(std::string_view name) {
  for (std::string_view prefix : {"cuda.threadIdx", "cuda.blockIdx", "cuda.cg.", "cuda.shfl",
                                  "cuda.syncthreads", "cuda.syncwarp", "cuda.threadfence"})
    if (name.starts_with(prefix)) return true;
  return name == "cuda.grid" || name == "cuda.laneid" || name == "cuda.activemask" ||
         name == "cuda.lanemask_lt" || name.ends_with("_sync");
}

bool is_call(const Node& n, std::string_view name) {
  return n.kind == NodeKind::Call && n.text == name && n.size() == 1 &&
         n.child(0).kind == NodeKind::Int && n.child(0).int_value == 1;
}

template <typename Visit>
void walk(const Node& n, const Visit& visit) {
  visit(n);
  for (const auto& c : n.children) walk(*c, visit);
}

bool mentions(const Node& n, const std::unordered_set<std::string>& names) {
  bool found = false;
  walk(n, [&](const Node& x) { found |= x.kind == NodeKind::Name && names.count(x.text); });
  return found;
}

bool uses_thread_specific(const Node& n) {
  bool found = false;
  walk(n, [&](const Node& x) { found |= x.kind == NodeKind::Call && thread_specific(x.text); });
  return found;
}

void assigned_names(const Node& target, std::unordered_set<std::string>& out) {
  if (target.kind == NodeKind::Name) out.insert(target.text);
  if (target.kind == NodeKind::Tuple)
    for (const auto& c : target.children) assigned_names(*c, out);
}

// Facts about the kernel's top-level names, outside one loop.
struct Names {
  std::unordered_set<std::string> thread_specific;    // values that differ between threads
  std::unordered_set<std::string> per_thread_memory;  // shared and local arrays
  std::unordered_set<std::string> assigned;           // anywhere in the kernel
  std::unordered_set<std::string> params;
};

Names kernel_names(const ir::Function& kernel) {
  Names names;
  names.params.insert(kernel.params.begin(), kernel.params.end());
  for (const auto& s : kernel.body)
    walk(*s, [&](const Node& n) {
      if (n.kind == NodeKind::Assign || n.kind == NodeKind::AugAssign)
        assigned_names(n.child(0), names.assigned);
      if (n.kind == NodeKind::For) assigned_names(n.child(0), names.assigned);
    });
  for (bool grew = true; grew;) {  // a value computed from a thread-specific one is too
    grew = false;
    for (const auto& s : kernel.body)
      walk(*s, [&](const Node& n) {
        if (n.kind != NodeKind::Assign && n.kind != NodeKind::AugAssign) return;
        const Node& value = n.child(1);
        std::unordered_set<std::string> targets;
        assigned_names(n.child(0), targets);
        bool specific = uses_thread_specific(value) || mentions(value, names.thread_specific);
        if (value.kind == NodeKind::Call && (value.text.starts_with("cuda.shared.array") ||
                                             value.text.starts_with("cuda.local.array")))
          names.per_thread_memory.insert(targets.begin(), targets.end());
        for (const std::string& t : targets)
          if (specific && names.thread_specific.insert(t).second) grew = true;
      });
  }
  return names;
}

// `expr` is `call(1)` itself, or a name the kernel assigns only that value.
bool is_builtin_value(const Node& expr, std::string_view call, const ir::Function& kernel) {
  if (is_call(expr, call)) return true;
  if (expr.kind != NodeKind::Name) return false;
  int assignments = 0;
  bool only_that = true;
  for (const auto& s : kernel.body)
    walk(*s, [&](const Node& n) {
      std::unordered_set<std::string> targets;
      if (n.kind == NodeKind::Assign || n.kind == NodeKind::AugAssign || n.kind == NodeKind::For)
        assigned_names(n.child(0), targets);
      if (!targets.count(expr.text)) return;
      ++assignments;
      only_that &= n.kind == NodeKind::Assign && n.child(0).kind == NodeKind::Name &&
                   is_call(n.child(1), call);
    });
  return assignments == 1 && only_that;
}

// Every name the body assigns is assigned at its top level before anything reads it
// (no value flows from one iteration to the next), and is not used outside the loop.
bool iterations_independent(const Node& loop, const ir::Function& kernel) {
  const Node& body = loop.child(4);
  std::unordered_set<std::string> written;
  walk(body, [&](const Node& n) {
    if (n.kind == NodeKind::Assign || n.kind == NodeKind::AugAssign || n.kind == NodeKind::For)
      assigned_names(n.child(0), written);
  });
  assigned_names(loop.child(0), written);
  // Outside the loop: neither the loop variable nor the body's names.
  for (const auto& s : kernel.body)
    if (s.get() != &loop && mentions(*s, written)) return false;
  std::unordered_set<std::string> defined;
  assigned_names(loop.child(0), defined);
  for (const auto& s : body.children) {
    if (s->kind == NodeKind::Assign) {
      std::unordered_set<std::string> reads = written;
      for (const std::string& d : defined) reads.erase(d);
      if (mentions(s->child(1), reads)) return false;
      if (s->child(0).kind == NodeKind::Subscript && mentions(s->child(0), reads)) return false;
      assigned_names(s->child(0), defined);
      continue;
    }
    std::unordered_set<std::string> undefined = written;
    for (const std::string& d : defined) undefined.erase(d);
    if (mentions(*s, undefined)) return false;
  }
  return true;
}

bool grid_stride(const Node& loop, const ir::Function& kernel, const Names& names,
                 bool calls_may_be_specific) {
  if (loop.kind != NodeKind::For || loop.size() != 5 || loop.child(0).kind != NodeKind::Name)
    return false;
  if (!is_builtin_value(loop.child(1), "cuda.grid", kernel) ||
      !is_builtin_value(loop.child(3), "cuda.gridsize", kernel))
    return false;
  const Node& stop = loop.child(2);
  if (uses_thread_specific(stop) || mentions(stop, names.thread_specific)) return false;
  const Node& body = loop.child(4);
  bool ok = !uses_thread_specific(body) && !mentions(body, names.thread_specific) &&
            !mentions(body, names.per_thread_memory);
  walk(body, [&](const Node& n) {
    // A thread that leaves its loop early would leave a different set of indices.
    if (n.kind == NodeKind::Break || n.kind == NodeKind::Return || n.kind == NodeKind::Raise ||
        n.kind == NodeKind::Assert)
      ok = false;
    if (n.kind == NodeKind::CallFn && calls_may_be_specific) ok = false;
  });
  return ok && iterations_independent(loop, kernel);
}

}  // namespace

void find_grid_stride_loops(ModuleLowering& m,
                            const std::vector<const typing::TypedFunction*>& functions,
                            const typing::TypedFunction& entry) {
  // A block that synchronises may read what its own threads wrote in the loop.
  if (!m.block_syncing.empty()) return;
  bool calls_may_be_specific = false;
  for (const typing::TypedFunction* f : functions) {
    for (const auto& s : f->function->body) {
      bool shared = false;  // a device function's shared array is the block's, kept between calls
      walk(*s, [&](const Node& n) {
        shared |= n.kind == NodeKind::Call && n.text.starts_with("cuda.shared.array");
      });
      if (f != &entry && shared) calls_may_be_specific = true;
      if (!uses_thread_specific(*s)) continue;
      if (f != &entry) calls_may_be_specific = true;
      bool orders_threads = false;
      walk(*s, [&](const Node& n) {
        orders_threads |= n.kind == NodeKind::Call && thread_specific(n.text) &&
                          n.text != "cuda.grid" && !n.text.starts_with("cuda.threadIdx") &&
                          !n.text.starts_with("cuda.blockIdx") && n.text != "cuda.laneid";
      });
      if (orders_threads) return;  // barriers, warp functions, fences: threads meet
    }
  }
  const ir::Function& kernel = *entry.function;
  Names names = kernel_names(kernel);
  for (const auto& s : kernel.body)
    if (grid_stride(*s, kernel, names, calls_may_be_specific)) m.grid_stride_loops.insert(s.get());
}

}  // namespace cudajit::lower
