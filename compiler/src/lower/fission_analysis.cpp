// What a block that synchronises may do on the cpu device, for barrier_fission.cpp and
// lockstep_loops.cpp: which names differ between threads (Uniformity), which statements
// are barriers, warp statements and warp `if`s, which uniform variables a split block
// keeps once per block (block scalars), which variables each thread loop computes again,
// and why a kernel's block is not split into thread loops (split_refusal: then fibers).
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

}  // namespace

bool is_syncwarp(const Node& s) {
  return s.kind == NodeKind::ExprStmt && s.child(0).kind == NodeKind::Call &&
         s.child(0).text == "cuda.syncwarp";
}

bool is_barrier_statement(const Node& s) {
  if (is_syncwarp(s)) return s.child(0).size() == 0 || full_mask(s.child(0).child(0));
  return s.kind == NodeKind::ExprStmt && s.child(0).kind == NodeKind::Call &&
         s.child(0).text == "cuda.syncthreads" && s.child(0).size() == 0;
}

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

// Names the kernel computes once, at its top level, as threadIdx.x // 32 (or >> 5): where
// blockDim.x is a multiple of 32, a warp's index in its row, the same in all its lanes.
std::unordered_set<std::string> warp_index_names(const std::vector<const Node*>& recomputed) {
  std::unordered_set<std::string> thread_x, out;
  auto is_thread_x = [&](const Node& e) {
    return is_thread_x_call(e) || (e.kind == NodeKind::Name && thread_x.count(e.text));
  };
  for (const Node* r : recomputed) {
    if (r->child(0).kind != NodeKind::Name) continue;  // a tuple: cuda.grid(2), a shape
    const Node& e = r->child(1);
    if (is_thread_x(e)) thread_x.insert(r->child(0).text);
    if (warp_index_of(e, is_thread_x)) out.insert(r->child(0).text);
  }
  return out;
}

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

BlockScalarSet block_scalars(const ir::Function& kernel, const Uniformity& u,
                             const std::unordered_set<std::string>& excluded) {
  BlockScalars found(kernel, u, excluded);
  return {std::move(found.names), std::move(found.hoisted)};
}

namespace {

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

// Whether `e` is computed from the thread's and block's indices, constants, the kernel's
// unassigned parameters (or names in `known`) and the shapes of its unassigned array
// parameters (`arrays`) alone: cheap to compute again. An array's elements are not.
bool index_arithmetic(const Node& e, const std::unordered_set<std::string>& known,
                      const std::unordered_set<std::string>& arrays) {
  switch (e.kind) {
    case NodeKind::Int:
    case NodeKind::Float:
    case NodeKind::Bool:
      return true;
    case NodeKind::Name:
      return known.count(e.text) > 0 && !arrays.count(e.text);
    case NodeKind::Attr:  // out.shape, x.size: the array's descriptor, not its memory
      return (e.text == "shape" || e.text == "size" || e.text == "ndim") &&
             e.child(0).kind == NodeKind::Name && arrays.count(e.child(0).text);
    case NodeKind::BinOp:
    case NodeKind::Unary:
    case NodeKind::Subscript:  // out.shape[0], cuda.grid(2)[1]
    case NodeKind::Tuple:      // tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
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
    if (!index_arithmetic(*c, known, arrays)) return false;
  return true;
}

}  // namespace

// The kernel's variables assigned once, at its top level, from index arithmetic
// (`t = cuda.threadIdx.x`, `i = cuda.grid(1)`, `x, y = cuda.grid(2)`, `n, m = a.shape`):
// each thread loop computes them again instead of keeping them per thread, so LLVM sees
// the thread's index in the accesses they make (contiguous, vectorisable) rather than a
// value loaded from memory.
std::vector<const Node*> recomputed_variables(const typing::TypedFunction& kernel) {
  std::unordered_map<std::string, int> assignments;
  for (const auto& s : kernel.function->body)
    visit(*s, [&](const Node& n) {
      std::unordered_set<std::string> names;
      if (n.kind == NodeKind::Assign || n.kind == NodeKind::AugAssign || n.kind == NodeKind::For)
        targets(n.child(0), names);
      for (const std::string& name : names) ++assignments[name];
    });
  std::unordered_set<std::string> known, arrays;
  for (const std::string& p : kernel.function->params) {
    if (assignments.count(p)) continue;
    known.insert(p);
    auto type = kernel.locals.find(p);
    if (type == kernel.locals.end() || type->second.is_array()) arrays.insert(p);
  }
  std::vector<const Node*> out;
  for (const auto& s : kernel.function->body) {
    if (s->kind != NodeKind::Assign) continue;
    std::vector<const Node*> names;
    if (s->child(0).kind == NodeKind::Name) names.push_back(&s->child(0));
    if (s->child(0).kind == NodeKind::Tuple)
      for (const auto& item : s->child(0).children) names.push_back(item.get());
    bool once = !names.empty();
    for (const Node* n : names) once &= n->kind == NodeKind::Name && assignments[n->text] == 1;
    if (!once || !index_arithmetic(s->child(1), known, arrays)) continue;
    for (const Node* n : names) known.insert(n->text);
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
                               warp_index_names(recomputed_variables(entry)), where);
  if (!why.empty()) {
    refuse(*where, why.c_str());
    return refusal;
  }
  if (leaves_split_loop(kernel.body, false))
    return "break or continue in a loop that holds a barrier";
  return "";
}

}  // namespace cudajit::lower
