// Loops that threads leave at different iterations, run in lockstep on the cpu device: a
// `for` over a range the same in every thread whose body may `break` (mandelbrot's escape
// test, an iterative solver's convergence test), or a `while` whose condition is a thread's
// own; and `for` loops over such a range that every thread runs to the end. Run as one loop per
// thread, such a loop is scalar code whose every iteration waits on the last (a few cycles a
// thread, no vectors). In lockstep, each chunk of up to 64 threads of the block (whole rows of a
// narrow block, part of a wide row) counts the iterations once and each iteration is a loop over
// the chunk's threads still in it (an `active` flag per thread: a thread that breaks clears its
// own), vectorised across threadIdx.x (or the linear index, where the loop reads no thread
// index), 16 lanes wide; the chunk leaves when no thread is left or the range is done. Each
// thread still runs exactly its own iterations, so results are the per-thread loop's. A kernel
// without barriers that holds such a loop at its top level, or at the top level of an `if` (no
// else), is split (barrier_fission.cpp); the `if`'s body runs chunk by chunk too, its other
// statements a loop over the chunk where the condition held (tested once per thread, its result
// kept: the body may change what it reads). So do the statements after an early
// return at the top level (`if i >= n: return`, the kernel's one return), where its condition
// fails: written either way, the guard costs the same.
#include <algorithm>
#include <span>

#include "../builtins/registry.hpp"
#include "fission.hpp"
#include "lowering.hpp"

namespace cudajit::lower {

using ir::Node;
using ir::NodeKind;

namespace {

bool in_registers(const typing::TypedFunction& f,
                  std::unordered_set<const typing::TypedFunction*>& calling);

// A `break` of the loop whose body `s` is in (not of a loop nested in it); `leaves`: a
// statement that leaves the kernel (return, raise, assert).
void scan_body(const Node& s, bool nested, bool& breaks, bool& leaves) {
  if (s.kind == NodeKind::Break && !nested) breaks = true;
  if (s.kind == NodeKind::Return || s.kind == NodeKind::Raise || s.kind == NodeKind::Assert)
    leaves = true;
  bool loop = s.kind == NodeKind::For || s.kind == NodeKind::While;
  for (const auto& c : s.children) scan_body(*c, nested || loop, breaks, leaves);
}

// Whether `s` (a statement or expression of `f`) touches no array element (a shape aside) and
// calls no device function but those that compute in registers too. Lockstep pays off where
// each thread's iterations wait on one another (arithmetic); a loop over memory is bound by its
// loads, which in lockstep would be gathers across the threads' rows (a thread searching its
// own row of a matrix: 1.4-2.4 ms -> 2.8).
bool computes_in_registers(const Node& s, const typing::TypedFunction& f) {
  bool ok = true;
  visit(s, [&](const Node& n) {
    ok &= !(n.kind == NodeKind::Subscript && n.child(0).kind != NodeKind::Attr);
    if (n.kind == NodeKind::CallFn) {
      auto callee = f.callees.find(&n);
      std::unordered_set<const typing::TypedFunction*> calling;
      ok &= callee != f.callees.end() && in_registers(*callee->second, calling);
    }
  });
  return ok;
}

// Whether `s` passes no complex number to a function (complex() aside) or a power: abs() of
// one is a call of hypot, cmath's functions and ** calls of the C library's, which the
// vectorised iteration would make lane by lane (a complex128 escape time by abs(z): 72 ms as
// each thread's loop, 76 in lockstep). Complex arithmetic vectorises: the split kernel keeps a
// complex variable's real and imaginary parts in two arrays (make_slot; by z.real * z.real +
// z.imag * z.imag, 25.7 -> 7.7 ms in lockstep).
bool no_complex_calls(const Node& s, const typing::TypedFunction& f) {
  bool ok = true;
  visit(s, [&](const Node& n) {
    bool call = n.kind == NodeKind::Call && n.text != "complex";
    if (!call && !(n.kind == NodeKind::BinOp && n.text == "**")) return;  // cpow too
    for (const auto& arg : n.children) {
      auto type = f.expr_types.find(arg.get());
      ok &= !(type != f.expr_types.end() && type->second.is_scalar() &&
              is_complex(type->second.scalar()));
    }
  });
  return ok;
}

// A device function a lockstep loop may call: its body computes in registers and holds no loop
// (it would keep the inlined iteration from vectorising), raise, assert, recursion or CUDA
// function but the index registers (no atomics, barriers or warp functions), nor calls one that
// does; and passes no complex number to a function.
bool in_registers(const typing::TypedFunction& f,
                  std::unordered_set<const typing::TypedFunction*>& calling) {
  if (!calling.insert(&f).second) return false;  // recursion
  bool ok = true;
  for (const auto& s : f.function->body) {
    ok &= no_complex_calls(*s, f);
    visit(*s, [&](const Node& n) {
      ok &= n.kind != NodeKind::For && n.kind != NodeKind::While && n.kind != NodeKind::Raise &&
            n.kind != NodeKind::Assert && n.kind != NodeKind::Subscript;
      if (n.kind == NodeKind::Call && n.text.starts_with("cuda."))
        ok &= builtins::has_fact(n.text, builtins::kIndexRegister);
      if (n.kind == NodeKind::CallFn) {
        auto callee = f.callees.find(&n);
        ok &= callee != f.callees.end() && in_registers(*callee->second, calling);
      }
    });
  }
  calling.erase(&f);
  return ok;
}

// Whether device function `f`, or one it calls, reads an index register.
bool calls_index_registers(const typing::TypedFunction& f) {
  std::unordered_set<const typing::TypedFunction*> seen;
  std::vector<const typing::TypedFunction*> todo = {&f};
  bool reads = false;
  while (!todo.empty() && !reads) {
    const typing::TypedFunction* g = todo.back();
    todo.pop_back();
    if (!seen.insert(g).second) continue;
    for (const auto& s : g->function->body)
      visit(*s, [&](const Node& n) {
        reads |= n.kind == NodeKind::Call && builtins::has_fact(n.text, builtins::kIndexRegister);
        if (n.kind == NodeKind::CallFn) {
          auto callee = g->callees.find(&n);
          if (callee == g->callees.end())
            reads = true;
          else
            todo.push_back(callee->second);
        }
      });
  }
  return reads;
}

// A `for` over a range the same in every thread (whose body may break), or a `while`
// whose condition may differ between threads or whose body may break; no barrier, warp
// function, early exit from the kernel or inner loop in it (an inner loop would keep the
// iteration from vectorising), computing in registers. A `for` that no thread leaves
// early is one too: each thread's loop waits on its own last iteration, the lockstep
// iteration is vectorised across the threads (100 steps of a linear congruential generator
// for 1M threads: 106 -> 14 ms; a float64 polynomial by Horner's rule, 122 -> 22 ms).
bool is_lockstep_loop(const Node& s, const Uniformity& u, const typing::TypedFunction& f) {
  bool breaks = false, leaves = false, inner = false, own_condition = false;
  if (s.kind == NodeKind::For) {
    if (s.size() != 5 || s.child(0).kind != NodeKind::Name) return false;
    for (int k = 1; k <= 3; ++k)
      if (!u.uniform(s.child(k))) return false;
  } else if (s.kind == NodeKind::While) {
    if (s.size() != 2) return false;
    own_condition = !u.uniform(s.child(0));
  } else {
    return false;
  }
  for (const auto& c : s.children.back()->children) {
    scan_body(*c, false, breaks, leaves);
    visit(*c,
          [&](const Node& n) { inner |= n.kind == NodeKind::For || n.kind == NodeKind::While; });
  }
  bool lockstep = s.kind == NodeKind::For || own_condition || breaks;
  return lockstep && !leaves && !inner && !holds_barrier(s) && computes_in_registers(s, f) &&
         no_complex_calls(s, f);
}

// Statements that run where a condition holds (a lockstep if's body, or what follows an early
// return; the condition is tested once per thread, its result kept): a lockstep loop at their
// top level, no barrier and nothing that leaves early in them.
bool runs_in_lockstep(std::span<const ir::NodePtr> body, const Uniformity& u,
                      const typing::TypedFunction& f) {
  bool loop = false, inner_breaks = false, leaves = false;
  for (const auto& c : body) {
    if (holds_barrier(*c)) return false;
    loop |= is_lockstep_loop(*c, u, f);
    scan_body(*c, true, inner_breaks, leaves);
  }
  return loop && !leaves;
}

// An `if` without else whose body runs in lockstep.
bool is_lockstep_if(const Node& s, const Uniformity& u, const typing::TypedFunction& f) {
  return s.kind == NodeKind::If && s.child(2).children.empty() && !holds_barrier(s.child(0)) &&
         runs_in_lockstep(s.child(1).children, u, f);
}

}  // namespace

bool is_early_return(const Node& s) {
  return s.kind == NodeKind::If && s.child(1).children.size() == 1 &&
         s.child(1).child(0).kind == NodeKind::Return && s.child(1).child(0).size() == 0 &&
         s.child(2).children.empty();
}

std::unordered_set<const Node*> lockstep_statements(const typing::TypedFunction& entry) {
  const auto& body = entry.function->body;
  const Uniformity u(*entry.function);
  std::unordered_set<const Node*> out;
  auto add_loops = [&](std::span<const ir::NodePtr> stmts) {
    for (const auto& c : stmts)
      if (is_lockstep_loop(*c, u, entry)) out.insert(c.get());
  };
  // A kernel may return early at its top level once (`if i >= n: return`): the statements
  // after it run as the body of a lockstep `if not C` would. Other returns keep the kernel's
  // loops per thread (a returned thread's flags would need clearing).
  int returns = 0;
  for (const auto& s : body)
    visit(*s, [&](const Node& n) { returns += n.kind == NodeKind::Return; });
  // Under a guard, a lockstep for's range is computed before the guard is tested: with
  // debug=True, it could raise (division by zero) where no thread would have computed it.
  const bool guards = !entry.locals.count(kExceptionRecord);
  auto end = body.end();
  if (returns > 0 && !guards) return {};
  if (returns > 0) {
    end = std::find_if(body.begin(), body.end(), [](const auto& s) { return is_early_return(*s); });
    if (returns > 1 || end == body.end()) return {};
    std::span<const ir::NodePtr> rest(end + 1, body.end());
    if (holds_barrier((*end)->child(0)) || !runs_in_lockstep(rest, u, entry)) return {};
    out.insert(end->get());
    add_loops(rest);
  }
  for (auto s = body.begin(); s != end; ++s) {
    if (is_lockstep_loop(**s, u, entry)) out.insert(s->get());
    if (!guards || !is_lockstep_if(**s, u, entry)) continue;
    out.insert(s->get());
    add_loops((*s)->child(1).children);
  }
  return out;
}

std::unordered_set<std::string> lockstep_counters(const ir::Function& kernel,
                                                  const std::unordered_set<const Node*>& loops) {
  std::unordered_map<std::string, int> mentions;
  for (const auto& s : kernel.body)
    visit(*s, [&](const Node& n) {
      if (n.kind == NodeKind::Name) ++mentions[n.text];
    });
  std::unordered_set<std::string> out;
  for (const Node* s : loops) {
    if (s->kind != NodeKind::For) continue;
    const std::string& name = s->child(0).text;
    int inside = 0;
    visit(*s, [&](const Node& n) { inside += n.kind == NodeKind::Name && n.text == name; });
    std::unordered_set<std::string> assigned;
    for (const auto& c : s->child(4).children) assigned_in(*c, assigned);
    if (inside == mentions[name] && !assigned.count(name)) out.insert(name);
  }
  return out;
}

// A lockstep `if` (guard: its condition), the statements after an early return (guard: its
// condition's false edge) or a lone lockstep loop (stmts = {the loop}, no guard), chunk by
// chunk of the block (lockstep_chunks): each chunk runs all of it before the next, so that a
// chunk leaves a loop as soon as its own threads are done. The statements between the loops
// are a loop over the chunk where the guard holds; the one before a loop also sets each
// thread's `active` flag. Loops whose statements read no thread index run over the chunk's
// linear indices: one vectorised loop even where the chunk spans rows of a narrow block.
void FunctionLowering::lockstep(const std::vector<const Node*>& stmts, RunGuard guard) {
  // The ranges first, as thread 0 sees them: inside the chunks, threadIdx is the thread's.
  std::unordered_map<const Node*, LockstepRange> ranges;
  Type i64 = Type::scalar(Scalar::Int64);
  for (const Node* s : stmts) {
    if (s->kind != NodeKind::For || !lockstep_.count(s)) continue;
    as_thread_zero();
    ranges[s] = {expr_as(s->child(1), i64), expr_as(s->child(2), i64), expr_as(s->child(3), i64)};
    thread_id_ = nullptr;
  }
  if (lockstep_active_ == nullptr) lockstep_active_ = thread_flags("lockstep.active");
  // The guard's condition is tested once per thread, where the `if` (or the return) stands,
  // and its result kept for the later runs, which may change what it reads; unless it reads
  // nothing they can change (`if row < rows and col < cols:`): then each run tests it again,
  // with no byte per thread to store and load (mandelbrot's compile 1 ms shorter).
  const bool retested = guard.if_node != nullptr && same_in_every_run(guard.if_node->child(0));
  llvm::AllocaInst* held =
      guard.if_node != nullptr && !retested ? thread_flags("lockstep.guard") : nullptr;
  lockstep_chunks([&](const ChunkLoop& chunk_loop) {
    std::vector<const Node*> run;
    bool first = true;
    for (size_t k = 0; k <= stmts.size(); ++k) {
      const Node* loop = k < stmts.size() ? stmts[k] : nullptr;
      if (loop != nullptr && !lockstep_.count(loop)) {
        run.push_back(loop);
        continue;
      }
      bool by_index = !((first || retested) && guard.if_node != nullptr &&
                        reads_thread_index(guard.if_node->child(0)));
      for (const Node* r : run) by_index &= !reads_thread_index(*r);
      if (!run.empty() || loop != nullptr) {
        chunk_loop(
            [&] {
              llvm::Value* holds = b_.getTrue();
              if (retested || (held != nullptr && first)) {
                holds = guard_holds(guard);
                if (held != nullptr)
                  b_.CreateStore(b_.CreateZExt(holds, b_.getInt8Ty()), thread_flag(held));
              } else if (held != nullptr) {
                holds = b_.CreateICmpNE(b_.CreateLoad(b_.getInt8Ty(), thread_flag(held)),
                                        b_.getInt8(0));
              }
              if (loop != nullptr)  // every thread that reaches the loop starts in it
                b_.CreateStore(b_.CreateZExt(holds, b_.getInt8Ty()), thread_flag(lockstep_active_));
              if (!run.empty())
                guarded_by(holds, [&] {
                  for (const Node* r : run) stmt(*r);
                });
            },
            by_index);
        first = false;
      }
      run.clear();
      if (loop != nullptr) {
        auto range = ranges.find(loop);
        lockstep_iterations(*loop, range == ranges.end() ? nullptr : &range->second, chunk_loop);
      }
    }
  });
}

// Whether `n` may read a thread's index: an index register, a variable recomputed from them
// in each thread loop, a device function that calls them (or calls one that does), or any
// raise with debug=True (its record names the raising thread).
bool FunctionLowering::reads_thread_index(const Node& n) const {
  if (f_.locals.count(kExceptionRecord)) return true;
  bool reads = false;
  visit(n, [&](const Node& e) {
    reads |= e.kind == NodeKind::Call && builtins::has_fact(e.text, builtins::kIndexRegister);
    if (e.kind == NodeKind::CallFn) {
      auto callee = f_.callees.find(&e);
      reads |= callee == f_.callees.end() || calls_index_registers(*callee->second);
    }
    reads |= e.kind == NodeKind::Name && recomputed_targets_.count(e.text);
  });
  return reads;
}

// Whether `e` has the same value in each run of a thread's lockstep statements: constants,
// index registers, recomputed variables, unassigned parameters and their arrays' shapes,
// combined by operators (no call: it may have effects).
bool FunctionLowering::same_in_every_run(const Node& e) const {
  switch (e.kind) {
    case NodeKind::Int:
    case NodeKind::Float:
    case NodeKind::Bool:
      return true;
    case NodeKind::Name:  // an array's elements may change: only its shape is read
      return (recomputed_targets_.count(e.text) > 0 || parameters_.count(e.text) > 0) &&
             type_of(e).is_scalar();
    case NodeKind::Attr:
      return (e.text == "shape" || e.text == "size") && e.child(0).kind == NodeKind::Name &&
             parameters_.count(e.child(0).text) > 0;
    case NodeKind::Call:
      if (!builtins::has_fact(e.text, builtins::kIndexRegister)) return false;
      break;
    case NodeKind::Compare:
    case NodeKind::Not:
    case NodeKind::And:
    case NodeKind::Or:
    case NodeKind::IfExp:
    case NodeKind::BinOp:
    case NodeKind::Unary:
    case NodeKind::Subscript:  // a.shape[0]
      break;
    default:
      return false;
  }
  for (const auto& c : e.children)
    if (!same_in_every_run(*c)) return false;
  return true;
}

// A lockstep loop's iterations over one chunk, whose threads' flags are set: counted once
// (`range`; nullptr: a while), each a loop over the chunk's threads still in the loop.
void FunctionLowering::lockstep_iterations(const Node& s, const LockstepRange* range,
                                           const ChunkLoop& chunk_loop) {
  const AtSource at(*this, s.loc);
  Type i64 = Type::scalar(Scalar::Int64);
  llvm::AllocaInst *any, *counter;
  {
    llvm::IRBuilderBase::InsertPointGuard at_entry(b_);
    b_.SetInsertPoint(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    any = b_.CreateAlloca(b_.getInt8Ty(), nullptr, "lockstep.any");
    counter = b_.CreateAlloca(b_.getInt64Ty(), nullptr, "lockstep.counter");
  }
  if (range != nullptr) b_.CreateStore(range->start, counter);
  auto* cond_bb = llvm::BasicBlock::Create(m_.context, "lockstep.loop", fn_);
  auto* body_bb = llvm::BasicBlock::Create(m_.context, "lockstep.loop.body", fn_);
  auto* exit_bb = llvm::BasicBlock::Create(m_.context, "lockstep.loop.end", fn_);
  b_.CreateBr(cond_bb);
  b_.SetInsertPoint(cond_bb);
  abandon_point();
  llvm::Value* i = nullptr;
  if (range != nullptr) {  // the range's next value, the same for every thread still in it
    i = b_.CreateLoad(b_.getInt64Ty(), counter);
    b_.CreateCondBr(range_holds(i, range->stop, range->step), body_bb, exit_bb);
  } else {
    b_.CreateBr(body_bb);
  }
  b_.SetInsertPoint(body_bb);
  b_.CreateStore(b_.getInt8(0), any);
  chunk_loop(
      [&] {
        auto* run = llvm::BasicBlock::Create(m_.context, "lockstep.lane", fn_);
        auto* leave = llvm::BasicBlock::Create(m_.context, "lockstep.break", fn_);
        auto* next = llvm::BasicBlock::Create(m_.context, "lockstep.lane.end", fn_);
        llvm::Value* flag = thread_flag(lockstep_active_);
        b_.CreateCondBr(b_.CreateICmpNE(b_.CreateLoad(b_.getInt8Ty(), flag), b_.getInt8(0)), run,
                        next);
        b_.SetInsertPoint(run);
        if (range != nullptr) {
          assign(s.child(0), i, i64);
        } else {  // a thread whose condition fails leaves
          auto* go = llvm::BasicBlock::Create(m_.context, "lockstep.lane.body", fn_);
          b_.CreateCondBr(to_bool(expr(s.child(0)), type_of(s.child(0))), go, leave);
          b_.SetInsertPoint(go);
        }
        loops_.push_back({next, leave});
        block(s.children.back()->children);
        loops_.pop_back();
        if (!terminated()) b_.CreateBr(next);
        b_.SetInsertPoint(leave);
        b_.CreateStore(b_.getInt8(0), flag);
        b_.CreateBr(next);
        b_.SetInsertPoint(next);  // any |= this thread is still in the loop
        b_.CreateStore(
            b_.CreateOr(b_.CreateLoad(b_.getInt8Ty(), any), b_.CreateLoad(b_.getInt8Ty(), flag)),
            any);
      },
      !reads_thread_index(s));
  if (range != nullptr) b_.CreateStore(b_.CreateAdd(i, range->step), counter);
  mark_outer_loop(b_.CreateCondBr(
      b_.CreateICmpNE(b_.CreateLoad(b_.getInt8Ty(), any), b_.getInt8(0)), cond_bb, exit_bb));
  b_.SetInsertPoint(exit_bb);
}

}  // namespace cudajit::lower
