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
//
// Which kernels are split and what each statement is: fission_analysis.cpp.
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "fission.hpp"
#include "lowering.hpp"

namespace cudajit::lower {

using ir::Node;
using ir::NodeKind;

void FunctionLowering::split_threads() {
  fission_ = true;
  lockstep_ = m_.lockstep;
  for (const auto& s : f_.function->body)  // a lockstep early return is a guard, not a return
    if (!lockstep_.count(s.get()))
      visit(*s, [&](const Node& n) { early_returns_ |= n.kind == NodeKind::Return; });
  recomputed_ = recomputed_variables(f_);
  for (const Node* s : recomputed_) targets(s->child(0), recomputed_targets_);
  recomputed_names_ = recomputed_targets_;
  const Uniformity uniformity(*f_.function);
  BlockScalarSet scalars = block_scalars(*f_.function, uniformity, recomputed_names_);
  hoisted_ = std::move(scalars.hoisted);
  for (const std::string& name : scalars.names) recomputed_names_.insert(name);  // scalar slots
  block_scalars_ = std::move(scalars.names);
  const std::unordered_set<std::string> warp_index = warp_index_names(recomputed_);
  for (const std::string& name : lockstep_counters(*f_.function, lockstep_))
    recomputed_names_.insert(name);  // one slot: every thread in the loop has the same value
  for (const auto& s : f_.function->body)
    visit(*s, [&](const Node& n) {
      if (is_warp_if(n, uniformity, warp_index)) warp_ifs_.insert(&n);
    });
}

// A byte per thread of the block, in the entry block's frame (returned threads, lockstep
// loops' active flags and kept guards).
llvm::AllocaInst* FunctionLowering::thread_flags(const char* name) {
  llvm::IRBuilderBase::InsertPointGuard at_entry(b_);
  b_.SetInsertPoint(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
  return thread_array(b_.getInt8Ty(), kMaxThreads, name);
}

// An array with an element per thread, at the insertion point, aligned to a cache line: the
// thread loops' vector loads and stores of it then never straddle two lines (a 64-byte
// store across lines costs two).
llvm::AllocaInst* FunctionLowering::thread_array(llvm::Type* element, uint64_t count,
                                                 const char* name) {
  llvm::AllocaInst* array = b_.CreateAlloca(llvm::ArrayType::get(element, count), nullptr, name);
  array->setAlignment(std::max(array->getAlign(), llvm::Align(64)));
  return array;
}

// The current thread's byte of `flags` (thread_flags).
llvm::Value* FunctionLowering::thread_flag(llvm::AllocaInst* flags) {
  return b_.CreateInBoundsGEP(flags->getAllocatedType(), flags, {b_.getInt64(0), thread_id_});
}

// The block's start: in a kernel that returns early, no thread has returned yet.
void FunctionLowering::begin_split() {
  if (!early_returns_) return;
  returned_ = thread_flags("returned");
  b_.CreateMemSet(returned_, b_.getInt8(0), kMaxThreads, llvm::MaybeAlign(1));
}

// Whether `name` is kept per thread: an array with an element per thread (else one slot).
bool FunctionLowering::kept_per_thread(const std::string& name) const {
  return fission_ && !recomputed_names_.count(name);
}

llvm::Value* FunctionLowering::slot(const std::string& name) {
  return kept_per_thread(name) ? slot_element(name, nullptr) : slots_.at(name);
}

// A variable's array has spare elements after the block's threads, as the exchange arrays
// do: a shfl_down of it (shuffles_a_slot) loads thread t + delta's element for every t.
// A bool's array holds bytes: the vectorised thread loops store a vector of i1 bit by bit (a
// branch per lane), of i8 with one masked store. A complex number's is two arrays, its real
// parts and its imaginary parts: (real, imag) pairs would make each vector access a gather.
llvm::AllocaInst* FunctionLowering::make_slot(llvm::Type* type, const std::string& name) {
  if (!kept_per_thread(name)) return b_.CreateAlloca(type, nullptr, name);
  const Type& held = f_.locals.at(name);
  if (held.is_scalar() && is_complex(held.scalar())) {
    llvm::Type* part = type->getStructElementType(0);
    return thread_array(llvm::ArrayType::get(part, kMaxThreads + kExchangePad), 2, name.c_str());
  }
  if (type->isIntegerTy(1)) type = b_.getInt8Ty();
  return thread_array(type, kMaxThreads + kExchangePad, name.c_str());
}

bool split_parts(const llvm::AllocaInst* array) {
  llvm::Type* t = array->getAllocatedType();
  return t->isArrayTy() && t->getArrayNumElements() == 2 && t->getArrayElementType()->isArrayTy();
}

// A per-thread array's element type where it holds a value of `type` as it is, else null (a
// bool's byte, a complex number's parts).
static llvm::Type* element_as_is(const llvm::AllocaInst* array, llvm::Type* type) {
  llvm::Type* element = array->getAllocatedType()->getArrayElementType();
  return element == type ? element : nullptr;
}

void FunctionLowering::store_variable(const std::string& name, llvm::Value* value) {
  llvm::AllocaInst* array = slots_.at(name);
  if (!kept_per_thread(name)) {  // one slot: a nested tuple is no parts
    b_.CreateStore(value, array);
    return;
  }
  if (split_parts(array)) {
    for (unsigned part = 0; part < 2; ++part)
      b_.CreateStore(b_.CreateExtractValue(value, part), slot_element(name, nullptr, part));
    return;
  }
  if (!element_as_is(array, value->getType()))  // a bool's byte
    value = b_.CreateZExt(value, b_.getInt8Ty());
  b_.CreateStore(value, slot_element(name, nullptr));
}

llvm::Value* FunctionLowering::load_variable(const std::string& name, llvm::Type* type) {
  llvm::AllocaInst* array = slots_.at(name);
  if (!kept_per_thread(name)) return b_.CreateLoad(type, array, name);
  if (split_parts(array)) {
    llvm::Value* value = llvm::UndefValue::get(type);
    for (unsigned part = 0; part < 2; ++part) {
      llvm::Value* at = slot_element(name, nullptr, int(part));
      value =
          b_.CreateInsertValue(value, b_.CreateLoad(type->getStructElementType(part), at), part);
    }
    return value;
  }
  llvm::Value* at = slot_element(name, nullptr);
  if (element_as_is(array, type)) return b_.CreateLoad(type, at, name);
  return b_.CreateICmpNE(b_.CreateLoad(b_.getInt8Ty(), at, name), b_.getInt8(0));  // a bool
}

// A full-mask shfl_down_sync whose operand is a variable kept per thread: read from the
// variable's array rather than exchanged (warp.cpp).
bool FunctionLowering::shuffles_a_slot(const Node& call) const {
  if (call.text != "cuda.shfl_down_sync" || call.size() < 3) return false;
  const Node& operand = call.child(1);
  return operand.kind == NodeKind::Name && slots_.count(operand.text) &&
         kept_per_thread(operand.text) &&
         element_as_is(slots_.at(operand.text), m_.value_type(f_.locals.at(operand.text)));
}

// for tz, ty, tx in the block (tx innermost): threadIdx set in the context, thread_id_
// the thread's linear index.
void FunctionLowering::thread_loop(const std::function<void()>& body, llvm::Value* x_begin,
                                   llvm::Value* x_end) {
  thread_rows([&](const RowLoop& x_loop) { x_loop(body, x_begin, x_end, false); });
}

// A loop over threadIdx's dimension d in [begin, end), its slot in the context set in each
// iteration: body(index). `maybe_empty`: a range of threads, maybe none (else tested only at
// the end: a block's extent is never zero, and LLVM would unswitch the loops on the test).
// threadIdx.x's loops are thread loops (mark_thread_loop; `lockstep`: a lockstep row's).
void FunctionLowering::index_loop(int d, llvm::Value* begin, llvm::Value* end, bool maybe_empty,
                                  bool lockstep, const std::function<void(llvm::Value*)>& body) {
  llvm::BranchInst* latch = counted_loop(
      b_, begin, end,
      [&](llvm::Value* id) {
        b_.CreateStore(id, b_.CreateConstGEP1_32(b_.getInt32Ty(), thread_ctx_, d));
        body(id);
      },
      !maybe_empty);
  if (d == 0)
    mark_thread_loop(latch, lockstep);
  else
    mark_outer_loop(latch);
}

FunctionLowering::BlockDims FunctionLowering::block_dims() {
  BlockDims dims;
  for (int d = 0; d < 3; ++d)
    dims[d] =
        b_.CreateLoad(b_.getInt32Ty(), b_.CreateConstGEP1_32(b_.getInt32Ty(), thread_ctx_, 3 + d));
  return dims;
}

// Thread (z, y, x)'s linear index (i64) in a block of `dims` (blockDim.x, .y, .z).
llvm::Value* FunctionLowering::linear_thread(llvm::Value* z, llvm::Value* y, llvm::Value* x,
                                             const BlockDims& dims) {
  auto* i64 = b_.getInt64Ty();
  llvm::Value* linear = b_.CreateZExt(z, i64);
  linear = b_.CreateAdd(b_.CreateMul(linear, b_.CreateZExt(dims[1], i64)), b_.CreateZExt(y, i64));
  return b_.CreateAdd(b_.CreateMul(linear, b_.CreateZExt(dims[0], i64)), b_.CreateZExt(x, i64));
}

// body() as the split block's thread `linear`: a thread that returned takes no part any more;
// the recomputed variables first, unless `recompute` is false (nothing in body reads them).
void FunctionLowering::one_thread(llvm::Value* linear, bool recompute,
                                  const std::function<void()>& body) {
  thread_id_ = linear;
  llvm::BasicBlock* saved_next = next_thread_;
  if (returned_ != nullptr) {
    auto* live = llvm::BasicBlock::Create(m_.context, "thread.live", fn_);
    next_thread_ = llvm::BasicBlock::Create(m_.context, "thread.next", fn_);
    llvm::Value* gone = b_.CreateLoad(b_.getInt8Ty(), thread_flag(returned_));
    b_.CreateCondBr(b_.CreateICmpNE(gone, b_.getInt8(0)), next_thread_, live);
    b_.SetInsertPoint(live);
  }
  if (recompute)
    for (const Node* s : recomputed_) stmt(*s);
  body();
  if (returned_ != nullptr) {
    if (!terminated()) b_.CreateBr(next_thread_);
    b_.SetInsertPoint(next_thread_);
  }
  next_thread_ = saved_next;
  thread_id_ = nullptr;
}

// for tz, ty in the block: row(x_loop), where x_loop(body, x_begin, x_end, lockstep) is a
// loop over the row's threadIdx.x in [x_begin, x_end) (nullptr: the whole row), marked as
// a lockstep loop's iteration if `lockstep` (mark_thread_loop).
void FunctionLowering::thread_rows(const std::function<void(const RowLoop&)>& row) {
  llvm::Value* zero = b_.getInt32(0);
  const BlockDims dims = block_dims();
  index_loop(2, zero, dims[2], false, false, [&](llvm::Value* z) {
    index_loop(1, zero, dims[1], false, false, [&](llvm::Value* y) {
      row([&](const std::function<void()>& body, llvm::Value* x_begin, llvm::Value* x_end,
              bool lockstep) {
        index_loop(0, x_begin ? x_begin : zero, x_end ? x_end : dims[0], x_begin != nullptr,
                   lockstep,
                   [&](llvm::Value* x) { one_thread(linear_thread(z, y, x, dims), true, body); });
      });
    });
  });
}

// for each chunk of about kLockstepChunk threads of the block (whole rows of a narrow block,
// or part of a wide row: a contiguous range of linear indices either way, one counter for
// both): chunk(chunk_loop), where chunk_loop(body, by_index) is a lockstep row over the
// chunk's threads: its rows, each a loop over x; or where `by_index` (body reads no thread
// index), one loop over their linear indices, with no threadIdx set.
void FunctionLowering::lockstep_chunks(const std::function<void(const ChunkLoop&)>& chunk) {
  const BlockDims dims = block_dims();
  llvm::Value* per_chunk = b_.getInt32(kLockstepChunk);
  llvm::Value* rows = b_.CreateBinaryIntrinsic(llvm::Intrinsic::umax,
                                               b_.CreateUDiv(per_chunk, dims[0]), b_.getInt32(1));
  llvm::Value* width = b_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, per_chunk, dims[0]);
  auto parts = [&](llvm::Value* n, llvm::Value* per) {  // ceil(n / per)
    return b_.CreateUDiv(b_.CreateAdd(n, b_.CreateSub(per, b_.getInt32(1))), per);
  };
  auto part = [&](llvm::Value* k, llvm::Value* per, llvm::Value* n) {  // [k * per, ...) of n
    llvm::Value* begin = b_.CreateNUWMul(k, per);
    return std::pair{
        begin, b_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, b_.CreateNUWAdd(begin, per), n)};
  };
  llvm::Value* across = parts(dims[0], width);  // chunks across a row
  index_loop(2, b_.getInt32(0), dims[2], false, false, [&](llvm::Value* z) {
    llvm::Value* chunks = b_.CreateMul(parts(dims[1], rows), across);
    llvm::BranchInst* chunk_latch = counted_loop(
        b_, b_.getInt32(0), chunks,
        [&](llvm::Value* k) {
          auto [y_begin, y_end] = part(b_.CreateUDiv(k, across), rows, dims[1]);
          auto [x_begin, x_end] = part(b_.CreateURem(k, across), width, dims[0]);
          chunk([&](const std::function<void()>& body, bool by_index) {
            if (!by_index) {
              index_loop(1, y_begin, y_end, false, false, [&](llvm::Value* y) {
                index_loop(0, x_begin, x_end, false, true, [&](llvm::Value* x) {
                  one_thread(linear_thread(z, y, x, dims), true, body);
                });
              });
              return;
            }
            llvm::Value* first = linear_thread(z, y_begin, x_begin, dims);
            llvm::Value* last = linear_thread(z, b_.CreateSub(y_end, b_.getInt32(1)), x_end, dims);
            mark_thread_loop(
                counted_loop(
                    b_, first, last, [&](llvm::Value* linear) { one_thread(linear, false, body); },
                    /*runs=*/true),
                true);
          });
        },
        /*runs=*/true);
    mark_outer_loop(chunk_latch);
  });
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
  if (ranged && guard.if_node == nullptr && per_thread.size() == 1 && end == nullptr &&
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

llvm::Value* FunctionLowering::guard_holds(RunGuard guard) {
  if (guard.if_node == nullptr) return b_.getTrue();
  const Node& cond = guard.if_node->child(0);
  llvm::Value* holds = to_bool(expr(cond), type_of(cond));
  return guard.taken ? holds : b_.CreateNot(holds);
}

// The statements of `body` where the guard's condition holds (as the current thread sees it).
void FunctionLowering::guarded(RunGuard guard, const std::function<void()>& body) {
  if (guard.if_node == nullptr)
    body();
  else
    guarded_by(guard_holds(guard), body);
}

// The statements of `body` where `holds` (i1) is true.
void FunctionLowering::guarded_by(llvm::Value* holds, const std::function<void()>& body) {
  auto* then_bb = llvm::BasicBlock::Create(m_.context, "guarded", fn_);
  auto* done = llvm::BasicBlock::Create(m_.context, "guarded.end", fn_);
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
  for (auto it = stmts.begin(); it != stmts.end(); ++it) {
    const ir::NodePtr& s = *it;
    if (lockstep_.count(s.get())) {
      flush();
      if (is_early_return(*s)) {  // the rest of the kernel, where the condition fails
        std::vector<const Node*> rest;
        for (auto r = it + 1; r != stmts.end(); ++r) rest.push_back(r->get());
        lockstep(rest, RunGuard{s.get(), false});
        return;
      }
      if (s->kind == NodeKind::If) {
        std::vector<const Node*> body;
        for (const auto& c : s->child(1).children) body.push_back(c.get());
        lockstep(body, RunGuard{s.get(), true});
      } else {
        lockstep({s.get()}, RunGuard{nullptr, true});
      }
      continue;
    }
    if (!holds_barrier(*s)) {  // a recomputed variable's assignment starts every loop anyway
      if (std::find(recomputed_.begin(), recomputed_.end(), s.get()) == recomputed_.end())
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

// Whether `i` is in range(..., stop, step): below stop going up, above it going down (a
// zero step: never).
llvm::Value* FunctionLowering::range_holds(llvm::Value* i, llvm::Value* stop, llvm::Value* step) {
  llvm::Value* up = b_.CreateAnd(b_.CreateICmpSGT(step, int64(0)), b_.CreateICmpSLT(i, stop));
  llvm::Value* down = b_.CreateAnd(b_.CreateICmpSLT(step, int64(0)), b_.CreateICmpSGT(i, stop));
  return b_.CreateOr(up, down);
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
  b_.CreateCondBr(range_holds(i, stop, step), body_bb, exit_bb);
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
      array = thread_array(bits->getType(), threads + 2 * kExchangePad, "warp.exchange");
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
