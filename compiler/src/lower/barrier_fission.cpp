// A block that synchronises, on the cpu device, as loops over its threads split at its
// barriers (MCUDA's loop fission): the statements between two barriers become one loop
// over the block's threads (threadIdx.x innermost), a barrier is the end of one loop
// and the start of the next, and a loop or `if` that holds a barrier runs once per
// block around its body's thread loops. Every variable of the kernel lives in an array
// with one element per thread, so a value crosses a barrier in its thread's element and
// a vectorised thread loop reads the elements contiguously. Only kernels whose barriers
// stand where every thread reaches them the same number of times are split: barriers
// at the top level of the kernel's body or of loops and `if`s whose conditions are the
// same in every thread (no thread index, no memory read, no device call in them); no
// early `return`, raise or local array. Others run as fibers.
//
// Warp functions at such places (COX's hierarchical collapsing, at the block's level) are
// split points too: the thread loop before one ends by storing each thread's operand in an
// array with an element per thread, and the next loop computes the function's result for
// each thread from its warp's 32 elements (shfl_down: lane i reads element i + delta of its
// warp, or its own where no lane is there). Only full masks (0xffffffff) are split: lanes
// beyond the block in a partial last warp take no part, as on a GPU. syncwarp() is a
// barrier; activemask is the warp's lanes in the block.
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "../builtins/registry.hpp"
#include "fission.hpp"
#include "lowering.hpp"

namespace cudajit::lower {

using ir::Node;
using ir::NodeKind;

void targets(const Node& t, std::unordered_set<std::string>& out) {
  if (t.kind == NodeKind::Name) out.insert(t.text);
  if (t.kind == NodeKind::Tuple)
    for (const auto& c : t.children) targets(*c, out);
}

void names_in(const Node& n, std::unordered_set<std::string>& out) {
  visit(n, [&](const Node& x) {
    if (x.kind == NodeKind::Name) out.insert(x.text);
  });
}

void assigned_in(const Node& s, std::unordered_set<std::string>& out) {
  visit(s, [&](const Node& n) {
    if (n.kind == NodeKind::Assign || n.kind == NodeKind::AugAssign || n.kind == NodeKind::For)
      targets(n.child(0), out);
  });
}

namespace {
bool warp_level(std::string_view name);
bool is_exchange(const Node& n);
}  // namespace

bool differs_between_threads(const Node& n) {
  if (n.kind == NodeKind::Subscript || n.kind == NodeKind::CallFn) return true;
  if (n.kind != NodeKind::Call) return false;
  std::string_view name = n.text;
  return name.starts_with("cuda.threadIdx") || name == "cuda.grid" || name == "cuda.laneid" ||
         name.starts_with("cuda.atomic") || name.starts_with("cuda.cg.") || warp_level(name) ||
         name == "cuda.lanemask_lt";
}

bool holds_barrier(const Node& n) {
  bool found = false;
  visit(n, [&](const Node& x) {
    found |= x.kind == NodeKind::Call && (x.text.starts_with("cuda.syncthreads") ||
                                          x.text == "cuda.syncwarp" || is_exchange(x));
  });
  return found;
}

namespace {

// Calls that exchange values between threads or need the lanes of a warp together.
bool warp_level(std::string_view name) {
  return name.starts_with("cuda.shfl") || name.ends_with("_sync") || name == "cuda.activemask" ||
         name == "cuda.syncwarp" || name == "cuda.lanemask_lt" || name.starts_with("cuda.cg.") ||
         name.starts_with("cuda.syncthreads_");
}

// The warp functions thread loops run (the rest: fibers). syncwarp is a barrier statement.
bool exchanging(std::string_view name) {
  return name == "cuda.shfl_sync" || name == "cuda.shfl_up_sync" || name == "cuda.shfl_down_sync" ||
         name == "cuda.shfl_xor_sync" || name == "cuda.all_sync" || name == "cuda.any_sync" ||
         name == "cuda.eq_sync" || name == "cuda.ballot_sync" || name == "cuda.match_any_sync" ||
         name == "cuda.match_all_sync" || name == "cuda.activemask";
}

bool is_exchange(const Node& n) { return n.kind == NodeKind::Call && exchanging(n.text); }

// A mask of every lane: the literal 0xffffffff (or -1).
bool full_mask(const Node& n) {
  return n.kind == NodeKind::Int && (n.int_value == 0xffffffffLL || n.int_value == -1);
}

bool is_syncwarp(const Node& s) {
  return s.kind == NodeKind::ExprStmt && s.child(0).kind == NodeKind::Call &&
         s.child(0).text == "cuda.syncwarp";
}

bool is_barrier_statement(const Node& s) {
  if (is_syncwarp(s)) return s.child(0).size() == 0 || full_mask(s.child(0).child(0));
  return s.kind == NodeKind::ExprStmt && s.child(0).kind == NodeKind::Call &&
         s.child(0).text == "cuda.syncthreads" && s.child(0).size() == 0;
}

// The expressions a statement evaluates once each time it runs (not its bodies, not a
// `while` condition).
std::vector<const Node*> own_expressions(const Node& s) {
  std::vector<const Node*> out;
  switch (s.kind) {
    case NodeKind::Assign:
    case NodeKind::AugAssign:
    case NodeKind::ExprStmt:
      for (const auto& c : s.children) out.push_back(c.get());
      break;
    case NodeKind::If:
      out.push_back(&s.child(0));
      break;
    case NodeKind::For:
      for (size_t k = 1; k + 1 < s.size(); ++k) out.push_back(&s.child(k));
      break;
    default:
      break;
  }
  return out;
}

// A statement whose own expressions call warp functions, its bodies none and no barrier:
// the thread loop before it stores their operands, the one it starts exchanges them.
bool is_warp_statement(const Node& s) {
  bool in_own = false;
  for (const Node* e : own_expressions(s))
    visit(*e, [&](const Node& x) { in_own |= is_exchange(x); });
  if (!in_own || is_barrier_statement(s)) return false;
  for (const auto& c : s.children)
    if (c->kind == NodeKind::Block && holds_barrier(*c)) return false;
  return true;
}

// The warp calls of a warp statement, in evaluation order.
std::vector<const Node*> warp_calls(const Node& s) {
  std::vector<const Node*> out;
  for (const Node* e : own_expressions(s))
    visit(*e, [&](const Node& x) {
      if (is_exchange(x)) out.push_back(&x);
    });
  return out;
}

// Operands a thread loop may evaluate early, before the rest of their statement: no call
// with effects (index registers, casts and math are fine), no warp function.
bool pure(const Node& e) {
  bool ok = true;
  visit(e, [&](const Node& x) {
    if (x.kind == NodeKind::CallFn || x.kind == NodeKind::Method) ok = false;
    if (x.kind != NodeKind::Call) return;
    std::string_view name = x.text;
    ok &= builtins::has_fact(name, builtins::kIndexRegister) || name.starts_with("cast.") ||
          name.starts_with("math.") || name == "abs" || name == "min" || name == "max" ||
          name == "cuda.grid" || name == "cuda.gridsize" || name == "cuda.laneid" ||
          name == "cuda.warpsize";
  });
  return ok;
}

// Why a warp statement's calls cannot be exchanged between thread loops ("" if they can).
std::string warp_statement_refusal(const Node& s) {
  if (s.kind == NodeKind::For) return "a warp function in a loop's range";
  std::string why;
  // Calls under `x if c else y`, `and`, `or` run in the threads that take that side only.
  std::function<void(const Node&, bool)> walk = [&](const Node& e, bool conditional) {
    if (is_exchange(e)) {
      if (conditional && why.empty()) why = "a warp function that threads may reach differently";
      bool masked = e.text != "cuda.activemask";
      if (masked && !full_mask(e.child(0)) && why.empty())
        why = "a warp function whose mask is not the constant 0xffffffff (only some lanes)";
      for (size_t k = masked ? 1 : 0; k < e.size(); ++k) {
        if (holds_barrier(e.child(k)) && why.empty()) why = "a warp function in another's operand";
        if (k == 1 && !pure(e.child(k)) && why.empty())
          why = "a warp function whose operand calls a function";
      }
      return;
    }
    for (size_t k = 0; k < e.size(); ++k) {
      bool side = (e.kind == NodeKind::IfExp && k > 0) ||
                  ((e.kind == NodeKind::And || e.kind == NodeKind::Or) && k > 0);
      walk(e.child(k), conditional || side);
    }
  };
  for (const Node* e : own_expressions(s)) walk(*e, false);
  return why;
}

}  // namespace

Uniformity::Uniformity(const ir::Function& kernel) {
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& s : kernel.body) grew |= mark(*s, false);
  }
}

bool Uniformity::uniform(const Node& e) const {
  bool ok = true;
  visit(e, [&](const Node& x) {
    ok &= !differs_between_threads(x) && !(x.kind == NodeKind::Name && specific_.count(x.text));
  });
  return ok;
}

namespace {

// Whether a loop's body may break or continue (not an inner loop's): a thread may leave
// an iteration or the loop where another goes on, so what the loop assigns (its variable
// too) may differ between threads however uniform the values assigned are.
bool leaves_iterations(const Node& n) {
  if (n.kind == NodeKind::Break || n.kind == NodeKind::Continue) return true;
  if (n.kind == NodeKind::For || n.kind == NodeKind::While) return false;
  for (const auto& c : n.children)
    if (leaves_iterations(*c)) return true;
  return false;
}

}  // namespace

// Names assigned a thread's own value, or assigned under a condition that is.
bool Uniformity::mark(const Node& s, bool under_specific) {
  bool grew = false;
  auto assign = [&](const Node& target, bool specific) {
    std::unordered_set<std::string> names;
    targets(target, names);
    for (const std::string& n : names)
      if ((specific || under_specific) && specific_.insert(n).second) grew = true;
  };
  switch (s.kind) {
    case NodeKind::Assign:
    case NodeKind::AugAssign:
      assign(s.child(0),
             !uniform(s.child(1)) || (s.kind == NodeKind::AugAssign && !uniform(s.child(0))));
      break;
    case NodeKind::If:
    case NodeKind::While: {
      bool specific = under_specific || !uniform(s.child(0)) ||
                      (s.kind == NodeKind::While && leaves_iterations(s.child(1)));
      for (size_t k = 1; k < s.size(); ++k)
        for (const auto& c : s.child(k).children) grew |= mark(*c, specific);
      break;
    }
    case NodeKind::For: {
      bool specific = under_specific || !uniform(s.child(1)) || !uniform(s.child(2)) ||
                      !uniform(s.child(3)) || leaves_iterations(s.child(4));
      assign(s.child(0), specific);
      for (const auto& c : s.child(4).children) grew |= mark(*c, specific);
      break;
    }
    case NodeKind::Block:
      for (const auto& c : s.children) grew |= mark(*c, under_specific);
      break;
    default:
      break;
  }
  return grew;
}

namespace {

// `e` is x // 32 or x >> 5 of an x that `is_thread_x` accepts: a warp's index in its row.
template <typename IsThreadX>
bool warp_index_of(const Node& e, const IsThreadX& is_thread_x) {
  return e.kind == NodeKind::BinOp && e.child(1).kind == NodeKind::Int &&
         ((e.text == "//" && e.child(1).int_value == 32) ||
          (e.text == ">>" && e.child(1).int_value == 5)) &&
         is_thread_x(e.child(0));
}

bool is_thread_x_call(const Node& e) {
  return e.kind == NodeKind::Call && e.text == "cuda.threadIdx.x";
}

// Names the kernel computes once, at its top level, as threadIdx.x // 32 (or >> 5): where
// blockDim.x is a multiple of 32, a warp's index in its row, the same in all its lanes.
std::unordered_set<std::string> warp_index_names(const std::vector<const Node*>& recomputed) {
  std::unordered_set<std::string> thread_x, out;
  auto is_thread_x = [&](const Node& e) {
    return is_thread_x_call(e) || (e.kind == NodeKind::Name && thread_x.count(e.text));
  };
  for (const Node* r : recomputed) {
    const Node& e = r->child(1);
    if (is_thread_x(e)) thread_x.insert(r->child(0).text);
    if (warp_index_of(e, is_thread_x)) out.insert(r->child(0).text);
  }
  return out;
}

// Where blockDim.x is a multiple of 32, `e` is the same in all lanes of a warp: uniform
// values, threadIdx.y and .z, warp indices (cuda.threadIdx.x // 32 written out too).
bool warp_uniform(const Node& e, const Uniformity& u,
                  const std::unordered_set<std::string>& warp_index) {
  if (warp_index_of(e, is_thread_x_call)) return true;
  if (e.kind == NodeKind::Name) return u.uniform_name(e.text) || warp_index.count(e.text) > 0;
  if (e.kind == NodeKind::Call && (e.text == "cuda.threadIdx.y" || e.text == "cuda.threadIdx.z"))
    return true;
  if (differs_between_threads(e)) return false;
  for (const auto& c : e.children)
    if (!warp_uniform(*c, u, warp_index)) return false;
  return true;
}

// An `if` on a condition the same in all lanes of a warp but not in all threads of the block
// (a CUB-style block reduction's `if wid == 0:`), whose branches hold warp functions or
// syncwarp but no block barrier, at their top level only, and assign nothing the condition
// reads: its branches' statements join the warp group, each run under the condition.
bool is_warp_if(const Node& s, const Uniformity& u,
                const std::unordered_set<std::string>& warp_index) {
  if (s.kind != NodeKind::If || !holds_barrier(s) || u.uniform(s.child(0)) ||
      holds_barrier(s.child(0)) || !warp_uniform(s.child(0), u, warp_index))
    return false;
  std::unordered_set<std::string> reads, written;
  names_in(s.child(0), reads);
  for (size_t k = 1; k < 3; ++k)
    for (const auto& c : s.child(k).children) {
      if (holds_barrier(*c) && !is_warp_statement(*c) && !is_syncwarp(*c)) return false;
      assigned_in(*c, written);
    }
  for (const std::string& r : reads)
    if (written.count(r)) return false;
  return true;
}

// Uniform variables a split block keeps once per block instead of per thread: each of
// their assignments is a top-level statement of a thread loop's statements that no
// earlier one of them mentions, computed from uniform values that no earlier one
// assigns (or from such variables); it runs once, before the thread loop.
class BlockScalars {
 public:
  BlockScalars(const ir::Function& kernel, const Uniformity& u,
               const std::unordered_set<std::string>& excluded)
      : u_(u) {
    for (const auto& s : kernel.body)
      visit(*s, [&](const Node& n) {
        if (n.kind == NodeKind::Assign || n.kind == NodeKind::AugAssign || n.kind == NodeKind::For)
          targets(n.child(0), names);
      });
    for (const std::string& p : kernel.params) names.erase(p);
    for (const std::string& e : excluded) names.erase(e);
    for (auto it = names.begin(); it != names.end();)
      it = u_.uniform_name(*it) ? std::next(it) : names.erase(it);
    for (size_t before = names.size() + 1; names.size() != before;) {
      before = names.size();
      hoisted.clear();
      std::unordered_set<std::string> bad;
      walk(kernel.body, bad);
      for (const std::string& b : bad) names.erase(b);
    }
  }

  std::unordered_set<std::string> names;
  std::unordered_set<const Node*> hoisted;

 private:
  void walk(const std::vector<ir::NodePtr>& stmts, std::unordered_set<std::string>& bad) {
    std::vector<const Node*> run;
    for (const auto& s : stmts) {
      if (!holds_barrier(*s)) {
        run.push_back(s.get());
        continue;
      }
      check(run, bad);
      run.clear();
      if (is_warp_statement(*s)) {  // the first statement of the next thread loop
        run.push_back(s.get());
        continue;
      }
      if (s->kind == NodeKind::If && !u_.uniform(s->child(0))) {  // a warp `if`: runs under it
        assigned_in(*s, bad);
        continue;
      }
      for (const auto& c : s->children)
        if (c->kind == NodeKind::Block) walk(c->children, bad);
    }
    check(run, bad);
  }

  void check(const std::vector<const Node*>& run, std::unordered_set<std::string>& bad) {
    std::unordered_set<std::string> seen, assigned;
    for (const Node* s : run) {
      bool top = (s->kind == NodeKind::Assign || s->kind == NodeKind::AugAssign) &&
                 s->child(0).kind == NodeKind::Name && names.count(s->child(0).text);
      if (top) {
        const std::string& v = s->child(0).text;
        std::unordered_set<std::string> reads;
        names_in(s->child(1), reads);
        bool ok = !seen.count(v) && u_.uniform(s->child(1));
        for (const std::string& r : reads) ok &= names.count(r) || !assigned.count(r);
        if (ok)
          hoisted.insert(s);
        else
          bad.insert(v);
      } else {
        std::unordered_set<std::string> written;
        assigned_in(*s, written);
        for (const std::string& w : written)
          if (names.count(w)) bad.insert(w);
      }
      names_in(*s, seen);
      if (s->kind == NodeKind::Assign || s->kind == NodeKind::AugAssign)
        targets(s->child(0), assigned);
      assigned_in(*s, assigned);
    }
  }

  const Uniformity& u_;
};

// Every barrier and warp function in `stmts` is reached by all threads alike: "" if so,
// else why not (`where` the statement).
std::string splittable(const std::vector<ir::NodePtr>& stmts, const Uniformity& u,
                       const std::unordered_set<std::string>& warp_index, const Node*& where) {
  const char* differently = "a barrier or warp function that threads may reach differently";
  for (const auto& s : stmts) {
    if (!holds_barrier(*s) || is_barrier_statement(*s)) continue;
    where = s.get();
    if (is_syncwarp(*s)) return "a syncwarp whose mask is not the constant 0xffffffff";
    if (is_warp_statement(*s)) {
      std::string why = warp_statement_refusal(*s);
      if (!why.empty()) return why;
      continue;
    }
    std::string why;
    switch (s->kind) {
      case NodeKind::If:
        if (!u.uniform(s->child(0)) && !is_warp_if(*s, u, warp_index)) return differently;
        why = splittable(s->child(1).children, u, warp_index, where);
        if (why.empty()) why = splittable(s->child(2).children, u, warp_index, where);
        break;
      case NodeKind::While:
        if (!u.uniform(s->child(0))) return differently;
        why = splittable(s->child(1).children, u, warp_index, where);
        break;
      case NodeKind::For:
        if (s->size() != 5 || s->child(0).kind != NodeKind::Name || !u.uniform(s->child(1)) ||
            !u.uniform(s->child(2)) || !u.uniform(s->child(3)))
          return differently;
        why = splittable(s->child(4).children, u, warp_index, where);
        break;
      case NodeKind::Block:
        why = splittable(s->children, u, warp_index, where);
        break;
      default:
        return differently;  // a barrier inside an expression or a statement we do not split
    }
    if (!why.empty()) return why;
  }
  return "";
}

// `break` or `continue` of a loop that holds a barrier (the loop runs once per block).
bool leaves_split_loop(const std::vector<ir::NodePtr>& stmts, bool in_split_loop) {
  for (const auto& s : stmts) {
    if ((s->kind == NodeKind::Break || s->kind == NodeKind::Continue) && in_split_loop) return true;
    bool loop = s->kind == NodeKind::While || s->kind == NodeKind::For;
    bool split = loop ? holds_barrier(*s) : in_split_loop;
    for (const auto& c : s->children)
      if (c->kind == NodeKind::Block && leaves_split_loop(c->children, split)) return true;
  }
  return false;
}

// Whether `e` is computed from the thread's and block's indices, constants and the
// kernel's unassigned parameters (or names in `known`) alone: cheap to compute again.
bool index_arithmetic(const Node& e, const std::unordered_set<std::string>& known) {
  switch (e.kind) {
    case NodeKind::Int:
    case NodeKind::Float:
    case NodeKind::Bool:
      return true;
    case NodeKind::Name:
      return known.count(e.text) > 0;
    case NodeKind::BinOp:
    case NodeKind::Unary:
      break;
    case NodeKind::Call: {
      std::string_view name = e.text;
      if (!(name.starts_with("cuda.threadIdx") || name.starts_with("cuda.blockIdx") ||
            name.starts_with("cuda.blockDim") || name.starts_with("cuda.gridDim") ||
            name == "cuda.grid" || name == "cuda.gridsize" || name == "cuda.laneid"))
        return false;
      break;
    }
    default:
      return false;
  }
  for (const auto& c : e.children)
    if (!index_arithmetic(*c, known)) return false;
  return true;
}

}  // namespace

// The kernel's variables assigned once, at its top level, from index arithmetic
// (`t = cuda.threadIdx.x`, `i = cuda.grid(1)`): each thread loop computes them again
// instead of keeping them per thread, so LLVM sees the thread's index in the
// accesses they make (contiguous, vectorisable) rather than a value loaded from memory.
std::vector<const Node*> recomputed_variables(const ir::Function& kernel) {
  std::unordered_map<std::string, int> assignments;
  for (const auto& s : kernel.body)
    visit(*s, [&](const Node& n) {
      std::unordered_set<std::string> names;
      if (n.kind == NodeKind::Assign || n.kind == NodeKind::AugAssign || n.kind == NodeKind::For)
        targets(n.child(0), names);
      for (const std::string& name : names) ++assignments[name];
    });
  std::unordered_set<std::string> known;
  for (const std::string& p : kernel.params)
    if (!assignments.count(p)) known.insert(p);
  std::vector<const Node*> out;
  for (const auto& s : kernel.body) {
    if (s->kind != NodeKind::Assign || s->child(0).kind != NodeKind::Name) continue;
    const std::string& name = s->child(0).text;
    if (assignments[name] != 1 || !index_arithmetic(s->child(1), known)) continue;
    known.insert(name);
    out.push_back(s.get());
  }
  return out;
}

bool calls_warp_functions(const std::vector<const typing::TypedFunction*>& functions) {
  bool found = false;
  for (const typing::TypedFunction* f : functions)
    for (const auto& s : f->function->body)
      visit(*s, [&](const Node& n) {
        found |= n.kind == NodeKind::Call && warp_level(n.text) && n.text != "cuda.lanemask_lt";
      });
  return found;
}

std::string split_refusal(const ModuleLowering& m,
                          const std::vector<const typing::TypedFunction*>& functions,
                          const typing::TypedFunction& entry) {
  if (!m.block_syncing.empty() && (m.block_syncing.size() != 1 || !m.block_syncing.count(&entry)))
    return "a barrier in a device function";
  std::string refusal;
  auto refuse = [&](const Node& n, const char* why) {
    if (refusal.empty()) refusal = std::string(why) + " (line " + std::to_string(n.loc.line) + ")";
  };
  uint64_t exchanges = 0;
  const Node* first_return = nullptr;
  bool warps = false;
  for (const typing::TypedFunction* f : functions)
    for (const auto& s : f->function->body)
      visit(*s, [&](const Node& n) {
        bool warp = n.kind == NodeKind::Call && warp_level(n.text) && n.text != "cuda.lanemask_lt";
        if (warp && f != &entry) refuse(n, "a warp function in a device function");
        if (warp && !exchanging(n.text) && n.text != "cuda.syncwarp")
          refuse(n, n.text.starts_with("cuda.syncthreads_") ? "a barrier that combines predicates"
                                                            : "a cooperative group's function");
        exchanges += n.kind == NodeKind::Call && exchanging(n.text);
        if (f != &entry) return;
        if (n.kind == NodeKind::Raise || n.kind == NodeKind::Assert)
          refuse(n, "a thread may leave the kernel early");
        if (n.kind == NodeKind::Return && first_return == nullptr) first_return = &n;
        warps |= warp;
        if (n.kind == NodeKind::Call && n.text.starts_with("cuda.local.array"))
          refuse(n, "a local array");
      });
  // A thread that returned is no lane of its warp any more: a full mask would be wrong.
  if (first_return != nullptr && warps)
    refuse(*first_return, "a thread may leave a kernel that calls warp functions early");
  if (!refusal.empty()) return refusal;
  // Every variable is kMaxThreads elements on the worker's stack: at most 1 MiB of them,
  // with the warp functions' exchange arrays.
  uint64_t bytes = 0;
  for (const auto& [name, type] : entry.locals)
    bytes += type.is_array() ? 8 + 16 * static_cast<uint64_t>(type.ndim()) : 16;
  if (bytes * kMaxThreads + exchanges * kExchangeElements * 8 > (uint64_t(1) << 20))
    return "over 1 MiB of per-thread variables";
  const ir::Function& kernel = *entry.function;
  const Node* where = nullptr;
  std::string why = splittable(kernel.body, Uniformity(kernel),
                               warp_index_names(recomputed_variables(kernel)), where);
  if (!why.empty()) {
    refuse(*where, why.c_str());
    return refusal;
  }
  if (leaves_split_loop(kernel.body, false))
    return "break or continue in a loop that holds a barrier";
  return "";
}

void FunctionLowering::split_threads() {
  fission_ = true;
  for (const auto& s : f_.function->body)
    visit(*s, [&](const Node& n) { early_returns_ |= n.kind == NodeKind::Return; });
  recomputed_ = recomputed_variables(*f_.function);
  for (const Node* s : recomputed_) recomputed_names_.insert(s->child(0).text);
  const Uniformity uniformity(*f_.function);
  BlockScalars scalars(*f_.function, uniformity, recomputed_names_);
  hoisted_ = std::move(scalars.hoisted);
  for (const std::string& name : scalars.names) recomputed_names_.insert(name);  // scalar slots
  block_scalars_ = std::move(scalars.names);
  const std::unordered_set<std::string> warp_index = warp_index_names(recomputed_);
  lockstep_ = m_.lockstep;
  for (const auto& s : f_.function->body)
    visit(*s, [&](const Node& n) {
      if (is_warp_if(n, uniformity, warp_index)) warp_ifs_.insert(&n);
    });
}

// The block's start: in a kernel that returns early, no thread has returned yet.
void FunctionLowering::begin_split() {
  if (!early_returns_) return;
  {
    llvm::IRBuilderBase::InsertPointGuard guard(b_);
    b_.SetInsertPoint(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    returned_ =
        b_.CreateAlloca(llvm::ArrayType::get(b_.getInt8Ty(), kMaxThreads), nullptr, "returned");
  }
  b_.CreateMemSet(returned_, b_.getInt8(0), kMaxThreads, llvm::MaybeAlign(1));
}

llvm::Value* FunctionLowering::slot(const std::string& name) {
  if (!fission_ || recomputed_names_.count(name)) return slots_.at(name);
  return slot_element(name, nullptr);
}

// A variable's array has spare elements after the block's threads, as the exchange arrays
// do: a shfl_down of it (shuffles_a_slot) loads thread t + delta's element for every t.
llvm::AllocaInst* FunctionLowering::make_slot(llvm::Type* type, const std::string& name) {
  if (!fission_ || recomputed_names_.count(name)) return b_.CreateAlloca(type, nullptr, name);
  return b_.CreateAlloca(llvm::ArrayType::get(type, kMaxThreads + kExchangePad), nullptr, name);
}

// A full-mask shfl_down_sync whose operand is a variable kept per thread: read from the
// variable's array rather than exchanged (warp.cpp).
bool FunctionLowering::shuffles_a_slot(const Node& call) const {
  if (!fission_ || call.text != "cuda.shfl_down_sync" || call.size() < 3) return false;
  const Node& operand = call.child(1);
  return operand.kind == NodeKind::Name && slots_.count(operand.text) &&
         !recomputed_names_.count(operand.text);
}

// for tz, ty, tx in the block (tx innermost): threadIdx set in the context, thread_id_
// the thread's linear index.
void FunctionLowering::thread_loop(const std::function<void()>& body, llvm::Value* x_begin,
                                   llvm::Value* x_end) {
  thread_rows([&](const RowLoop& x_loop) { x_loop(body, x_begin, x_end, false); });
}

// for tz, ty in the block: row(x_loop), where x_loop(body, x_begin, x_end, lockstep) is a
// loop over the row's threadIdx.x in [x_begin, x_end) (nullptr: the whole row), marked as
// a lockstep loop's iteration if `lockstep` (mark_thread_loop).
void FunctionLowering::thread_rows(const std::function<void(const RowLoop&)>& row) {
  auto* i32 = b_.getInt32Ty();
  auto index_slot = [&](int k) { return b_.CreateConstGEP1_32(i32, thread_ctx_, k); };
  llvm::Value* dims[3];
  for (int d = 0; d < 3; ++d) dims[d] = b_.CreateLoad(i32, index_slot(3 + d));
  llvm::Value* ids[3] = {nullptr, nullptr, nullptr};
  // A loop over dimension d's index in [begin, end): body() with ids[d] set.
  auto loop = [&](int d, llvm::Value* begin, llvm::Value* end, bool maybe_empty, bool lockstep,
                  const std::function<void()>& body) {
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    auto* head = llvm::BasicBlock::Create(m_.context, "thread.loop", fn_);
    auto* done = llvm::BasicBlock::Create(m_.context, "thread.loop.end", fn_);
    if (maybe_empty)  // a range of threads, maybe none
      b_.CreateCondBr(b_.CreateICmpSLT(begin, end), head, done);
    else  // a block's extent is never zero: no test LLVM would unswitch the loops on
      b_.CreateBr(head);
    b_.SetInsertPoint(head);
    llvm::PHINode* id = b_.CreatePHI(i32, 2);
    id->addIncoming(begin, pre);
    b_.CreateStore(id, index_slot(d));
    ids[d] = id;
    body();
    llvm::Value* next = b_.CreateAdd(id, b_.getInt32(1));
    id->addIncoming(next, b_.GetInsertBlock());
    llvm::BranchInst* latch = b_.CreateCondBr(b_.CreateICmpSLT(next, end), head, done);
    if (d == 0) mark_thread_loop(latch, lockstep);
    b_.SetInsertPoint(done);
  };
  auto thread = [&](const std::function<void()>& body) {
    llvm::Value* linear = b_.CreateZExt(ids[2], b_.getInt64Ty());
    linear = b_.CreateAdd(b_.CreateMul(linear, b_.CreateZExt(dims[1], b_.getInt64Ty())),
                          b_.CreateZExt(ids[1], b_.getInt64Ty()));
    linear = b_.CreateAdd(b_.CreateMul(linear, b_.CreateZExt(dims[0], b_.getInt64Ty())),
                          b_.CreateZExt(ids[0], b_.getInt64Ty()));
    thread_id_ = linear;
    llvm::BasicBlock* saved_next = next_thread_;
    if (returned_ != nullptr) {  // a thread that returned takes no part any more
      auto* live = llvm::BasicBlock::Create(m_.context, "thread.live", fn_);
      next_thread_ = llvm::BasicBlock::Create(m_.context, "thread.next", fn_);
      llvm::Value* gone = b_.CreateLoad(
          b_.getInt8Ty(),
          b_.CreateInBoundsGEP(returned_->getAllocatedType(), returned_, {b_.getInt64(0), linear}));
      b_.CreateCondBr(b_.CreateICmpNE(gone, b_.getInt8(0)), next_thread_, live);
      b_.SetInsertPoint(live);
    }
    for (const Node* s : recomputed_) stmt(*s);
    body();
    if (returned_ != nullptr) {
      if (!terminated()) b_.CreateBr(next_thread_);
      b_.SetInsertPoint(next_thread_);
    }
    next_thread_ = saved_next;
    thread_id_ = nullptr;
  };
  const RowLoop x_loop = [&](const std::function<void()>& body, llvm::Value* x_begin,
                             llvm::Value* x_end, bool lockstep) {
    loop(0, x_begin ? x_begin : b_.getInt32(0), x_end ? x_end : dims[0], x_begin != nullptr,
         lockstep, [&] { thread(body); });
  };
  loop(2, b_.getInt32(0), dims[2], false, false,
       [&] { loop(1, b_.getInt32(0), dims[1], false, false, [&] { row(x_loop); }); });
}

// A thread loop whose one statement is `if t < k:` (<=, ==, >=, >; no else), `t` threadIdx.x
// (or a variable recomputed as it) and `k` an integer the same in every thread (a constant,
// an unassigned parameter, a block scalar): only the threads that pass, [x_begin, x_end)
// of threadIdx.x, run the branch's statements (a tree reduction's `if t < stride`).
bool FunctionLowering::x_range(const Node& s, llvm::Value*& x_begin, llvm::Value*& x_end) {
  if (s.kind != NodeKind::If || !s.child(2).children.empty()) return false;
  const Node& c = s.child(0);
  if (c.kind != NodeKind::Compare || c.ops.size() != 1 || c.size() != 2) return false;
  const Node& left = c.child(0);
  const Node& right = c.child(1);
  auto is_thread_x = [&](const Node& e) {
    if (e.kind == NodeKind::Call) return e.text == "cuda.threadIdx.x";
    if (e.kind != NodeKind::Name) return false;
    for (const Node* r : recomputed_)
      if (r->child(0).text == e.text)
        return r->child(1).kind == NodeKind::Call && r->child(1).text == "cuda.threadIdx.x";
    return false;
  };
  bool same_everywhere = right.kind == NodeKind::Int ||
                         (right.kind == NodeKind::Name &&
                          (block_scalars_.count(right.text) || parameters_.count(right.text)));
  const Type& tl = type_of(left);
  const Type& tr = type_of(right);
  if (!is_thread_x(left) || !same_everywhere || !tl.is_scalar() || !tr.is_scalar() ||
      !is_integer(tl.scalar()) || !is_integer(tr.scalar()))
    return false;
  const std::string& op = c.ops[0];
  if (op != "<" && op != "<=" && op != "==" && op != ">=" && op != ">") return false;
  as_thread_zero();
  llvm::Value* k = expr_as(right, Type::scalar(Scalar::Int64));
  thread_id_ = nullptr;
  auto* i64 = b_.getInt64Ty();
  llvm::Value* bx = b_.CreateZExt(
      b_.CreateLoad(b_.getInt32Ty(), b_.CreateConstGEP1_32(b_.getInt32Ty(), thread_ctx_, 3)), i64);
  llvm::Value* one = b_.getInt64(1);
  llvm::Value* lo = b_.getInt64(0);
  llvm::Value* hi = bx;
  if (op == "<") hi = k;
  if (op == "<=") hi = b_.CreateAdd(k, one);
  if (op == "==") lo = k, hi = b_.CreateAdd(k, one);
  if (op == ">=") lo = k;
  if (op == ">") lo = b_.CreateAdd(k, one);
  auto clamp = [&](llvm::Value* v) {  // into [0, blockDim.x]
    v = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, v, b_.getInt64(0));
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, v, bx);
  };
  x_begin = b_.CreateTrunc(clamp(lo), b_.getInt32Ty());
  x_end = b_.CreateTrunc(clamp(hi), b_.getInt32Ty());
  return true;
}

// A block scalar's assignment: once, before the thread loop, as thread 0 sees it.
void FunctionLowering::block_scalar_assignment(const Node& s) {
  as_thread_zero();
  stmt(s);
  thread_id_ = nullptr;
}

// Uniform conditions and loop bounds are computed as thread 0 sees them.
void FunctionLowering::as_thread_zero() {
  for (int k = 0; k < 3; ++k)
    b_.CreateStore(b_.getInt32(0), b_.CreateConstGEP1_32(b_.getInt32Ty(), thread_ctx_, k));
  thread_id_ = b_.getInt64(0);
  for (const Node* s : recomputed_) stmt(*s);
}

// One run of a group's statements as a loop over the block's threads: block scalars'
// assignments first, once; `end`'s warp operands stored at the loop's end. `ranged`: a run
// of one `if t < k:` loops over the threads that pass (x_range).
void FunctionLowering::split_run(const std::vector<const Node*>& run, const Node* end,
                                 RunGuard guard, bool ranged) {
  std::vector<const Node*> per_thread;
  for (const Node* s : run) {
    if (!hoisted_.count(s)) {
      per_thread.push_back(s);
      continue;
    }
    block_scalar_assignment(*s);
  }
  llvm::Value *x_begin = nullptr, *x_end = nullptr;
  if (ranged && guard.warp_if == nullptr && per_thread.size() == 1 && end == nullptr &&
      x_range(*per_thread[0], x_begin, x_end)) {
    thread_loop([&] { block(per_thread[0]->child(1).children); }, x_begin, x_end);
    return;
  }
  if (!per_thread.empty() || end != nullptr)
    thread_loop([&] {
      guarded(guard, [&] {
        for (const Node* s : per_thread) stmt(*s);
        if (end != nullptr) store_warp_operands(*end);
      });
    });
}

// A warp `if`'s branches as runs of the group under its condition, split where they call warp
// functions; it starts and ends runs of its own (a split among a warp's lanes only).
void FunctionLowering::add_warp_if(WarpGroup& group, const Node& s) {
  for (bool taken : {true, false}) {
    const auto& branch = s.child(taken ? 1 : 2).children;
    if (branch.empty()) continue;
    const RunGuard guard{&s, taken};
    group.next_run(nullptr, {}, guard);
    for (const auto& c : branch) {
      if (!holds_barrier(*c))
        group.runs.back().push_back(c.get());
      else if (is_warp_statement(*c))
        group.next_run(c.get(), {c.get()}, guard);
      else  // syncwarp
        group.next_run(nullptr, {}, guard);
    }
  }
  group.next_run(nullptr);
}

// The statements of `body` where the guard's condition holds (as the current thread sees it).
void FunctionLowering::guarded(RunGuard guard, const std::function<void()>& body) {
  if (guard.warp_if == nullptr) {
    body();
    return;
  }
  const Node& cond = guard.warp_if->child(0);
  llvm::Value* holds = to_bool(expr(cond), type_of(cond));
  if (!guard.taken) holds = b_.CreateNot(holds);
  auto* then_bb = llvm::BasicBlock::Create(m_.context, "warp_if.then", fn_);
  auto* done = llvm::BasicBlock::Create(m_.context, "warp_if.end", fn_);
  b_.CreateCondBr(holds, then_bb, done);
  b_.SetInsertPoint(then_bb);
  body();
  if (!terminated()) b_.CreateBr(done);
  b_.SetInsertPoint(done);
}

void FunctionLowering::split_block(const std::vector<ir::NodePtr>& stmts) {
  WarpGroup group;
  auto flush = [&] {
    split_group(group);
    group = WarpGroup{};
  };
  for (const auto& s : stmts) {
    if (lockstep_.count(s.get())) {
      flush();
      if (s->kind == NodeKind::If)
        lockstep_if(*s);
      else
        lockstep_loop(*s, RunGuard{nullptr, true});
      continue;
    }
    if (!holds_barrier(*s)) {
      group.runs.back().push_back(s.get());
      continue;
    }
    if (is_warp_statement(*s)) {  // exchanged between this thread loop and the next
      group.next_run(s.get(), {s.get()});
      continue;
    }
    if (is_syncwarp(*s)) {  // a full mask: splittable refused the others
      group.next_run(nullptr);
      continue;
    }
    if (warp_ifs_.count(s.get())) {
      add_warp_if(group, *s);
      continue;
    }
    flush();
    const AtSource at(*this, s->loc);
    if (is_barrier_statement(*s)) continue;  // the end of one thread loop, the start of the next
    switch (s->kind) {
      case NodeKind::If: {
        as_thread_zero();
        llvm::Value* cond = to_bool(expr(s->child(0)), type_of(s->child(0)));
        thread_id_ = nullptr;
        auto* then_bb = llvm::BasicBlock::Create(m_.context, "split.then", fn_);
        auto* else_bb = llvm::BasicBlock::Create(m_.context, "split.else", fn_);
        auto* merge = llvm::BasicBlock::Create(m_.context, "split.end", fn_);
        b_.CreateCondBr(cond, then_bb, else_bb);
        b_.SetInsertPoint(then_bb);
        split_block(s->child(1).children);
        b_.CreateBr(merge);
        b_.SetInsertPoint(else_bb);
        split_block(s->child(2).children);
        b_.CreateBr(merge);
        b_.SetInsertPoint(merge);
        break;
      }
      case NodeKind::While: {
        auto* cond_bb = llvm::BasicBlock::Create(m_.context, "split.while", fn_);
        auto* body_bb = llvm::BasicBlock::Create(m_.context, "split.while.body", fn_);
        auto* exit_bb = llvm::BasicBlock::Create(m_.context, "split.while.end", fn_);
        b_.CreateBr(cond_bb);
        b_.SetInsertPoint(cond_bb);
        abandon_point();
        as_thread_zero();
        llvm::Value* cond = to_bool(expr(s->child(0)), type_of(s->child(0)));
        thread_id_ = nullptr;
        b_.CreateCondBr(cond, body_bb, exit_bb);
        b_.SetInsertPoint(body_bb);
        ++split_loop_depth_;
        split_block(s->child(1).children);
        --split_loop_depth_;
        b_.CreateBr(cond_bb);
        b_.SetInsertPoint(exit_bb);
        break;
      }
      case NodeKind::For:
        split_for(*s);
        break;
      default:  // Block
        split_block(s->children);
        break;
    }
  }
  flush();
}

// A uniform `for i in range(...)` that holds a barrier: one counter for the block; each
// iteration gives every thread its `i`, then runs the body's thread loops.
void FunctionLowering::split_for(const Node& s) {
  Type i64 = Type::scalar(Scalar::Int64);
  as_thread_zero();
  llvm::Value* start = expr_as(s.child(1), i64);
  llvm::Value* stop = expr_as(s.child(2), i64);
  llvm::Value* step = expr_as(s.child(3), i64);
  thread_id_ = nullptr;
  llvm::AllocaInst* counter;
  {
    llvm::IRBuilderBase::InsertPointGuard guard(b_);
    b_.SetInsertPoint(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    counter = b_.CreateAlloca(b_.getInt64Ty(), nullptr, "split.counter");
  }
  b_.CreateStore(start, counter);
  auto* cond_bb = llvm::BasicBlock::Create(m_.context, "split.for", fn_);
  auto* body_bb = llvm::BasicBlock::Create(m_.context, "split.for.body", fn_);
  auto* exit_bb = llvm::BasicBlock::Create(m_.context, "split.for.end", fn_);
  b_.CreateBr(cond_bb);
  b_.SetInsertPoint(cond_bb);
  abandon_point();
  llvm::Value* i = b_.CreateLoad(b_.getInt64Ty(), counter);
  llvm::Value* up = b_.CreateAnd(b_.CreateICmpSGT(step, int64(0)), b_.CreateICmpSLT(i, stop));
  llvm::Value* down = b_.CreateAnd(b_.CreateICmpSLT(step, int64(0)), b_.CreateICmpSGT(i, stop));
  b_.CreateCondBr(b_.CreateOr(up, down), body_bb, exit_bb);
  b_.SetInsertPoint(body_bb);
  if (block_scalars_.count(s.child(0).text)) {
    as_thread_zero();
    assign(s.child(0), i, i64);
    thread_id_ = nullptr;
  } else {
    thread_loop([&] { assign(s.child(0), i, i64); });
  }
  ++split_loop_depth_;
  split_block(s.child(4).children);
  --split_loop_depth_;
  b_.CreateStore(b_.CreateAdd(b_.CreateLoad(b_.getInt64Ty(), counter), step), counter);
  b_.CreateBr(cond_bb);
  b_.SetInsertPoint(exit_bb);
}

// The end of the thread loop before a warp statement: each thread's operand of each of
// its warp functions, in the function's exchange array.
void FunctionLowering::store_warp_operands(const Node& s) {
  const AtSource at(*this, s.loc);
  for (const Node* call : warp_calls(s)) {
    if (call->text == "cuda.activemask" || shuffles_a_slot(*call)) continue;  // no exchange
    llvm::Value* bits = warp_operand_bits(*call, std::string_view(call->text).substr(5));
    // In a group's warp loops (warp_groups.cpp) the array is the warp's: an element per lane.
    llvm::AllocaInst*& array = exchange_arrays()[call];
    if (array == nullptr) {
      llvm::IRBuilderBase::InsertPointGuard guard(b_);
      b_.SetInsertPoint(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
      uint64_t threads = warp_lane_ != nullptr ? 32 : kMaxThreads;
      array = b_.CreateAlloca(llvm::ArrayType::get(bits->getType(), threads + 2 * kExchangePad),
                              nullptr, "warp.exchange");
    }
    b_.CreateStore(bits, exchange_element(*call, warp_lane_ != nullptr ? warp_lane_ : thread_id_));
  }
}

// The element of warp call `call`'s exchange array that thread `thread` (i64, may be
// up to 32 either side of the block's threads; in warp loops, of the warp's lanes) stores.
llvm::Value* FunctionLowering::exchange_element(const Node& call, llvm::Value* thread) {
  llvm::AllocaInst* array = exchange_arrays().at(&call);
  return b_.CreateInBoundsGEP(array->getAllocatedType(), array,
                              {b_.getInt64(0), b_.CreateAdd(thread, b_.getInt64(kExchangePad))});
}

}  // namespace cudajit::lower
