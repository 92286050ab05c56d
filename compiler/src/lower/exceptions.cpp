// raise and assert in kernels. A raising thread stops (PTX `exit`; on the
// host its context is marked and every function returns up to the grid loop).
// Compiled with debug=True, the kernel has a hidden last argument, the int32
// array "exception.record": the first thread to raise claims it with a
// compare-and-swap and writes the exception's code, its threadIdx and its
// blockIdx, which the host reads after the launch (dispatcher.py).
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>

#include "lowering.hpp"

namespace cudajit::lower {

using ir::Node;

void FunctionLowering::raise(int64_t code) {
  if (f_.locals.count(kExceptionRecord)) {
    auto parameter = parameters_.find(kExceptionRecord);
    llvm::Value* record =
        parameter != parameters_.end()
            ? parameter->second
            : b_.CreateLoad(m_.value_type(f_.locals.at(kExceptionRecord)), slot(kExceptionRecord));
    llvm::Value* data = extract(record, {0});
    auto* i32 = b_.getInt32Ty();
    llvm::Value* claim = b_.CreateAtomicCmpXchg(
        data, b_.getInt32(0), b_.getInt32(static_cast<int32_t>(code)), llvm::Align(4),
        llvm::AtomicOrdering::Monotonic, llvm::AtomicOrdering::Monotonic);
    auto* first = llvm::BasicBlock::Create(m_.context, "raise.first", fn_);
    auto* stop = llvm::BasicBlock::Create(m_.context, "raise.stop", fn_);
    b_.CreateCondBr(b_.CreateExtractValue(claim, {1}), first, stop);
    b_.SetInsertPoint(first);
    const char* registers[6] = {"threadIdx.x", "threadIdx.y", "threadIdx.z",
                                "blockIdx.x",  "blockIdx.y",  "blockIdx.z"};
    for (int k = 0; k < 6; ++k) {
      llvm::Value* value = m_.hooks.special_register(b_, registers[k], thread_ctx_);
      b_.CreateStore(value, b_.CreateConstInBoundsGEP1_64(i32, data, 1 + k));
    }
    b_.CreateBr(stop);
    b_.SetInsertPoint(stop);
  }
  leave_raising();
}

// Stops the thread: returns from this function (the host's callers see the
// mark and return too) or ends the thread outright on the GPU.
void FunctionLowering::leave_raising() {
  if (m_.hooks.stop_thread(m_, b_, thread_ctx_)) {
    b_.CreateUnreachable();
  } else if (f_.return_type.is_none() || fn_->getReturnType()->isVoidTy()) {
    b_.CreateRetVoid();
  } else {
    b_.CreateRet(llvm::UndefValue::get(fn_->getReturnType()));
  }
  start_dead_block();
}

// A recursive function on the host, on entry: a thread whose stack has grown below the
// runtime's limit stops, as a raise does, and flags the launch (a GPU faults with
// CUDA_ERROR_HARDWARE_STACK_ERROR instead; the host's guard page would end the process).
void FunctionLowering::stack_guard() {
  llvm::StructType* ctx_type = m_.thread_ctx_type();
  llvm::Value* limit =
      b_.CreateLoad(b_.getInt64Ty(), b_.CreateStructGEP(ctx_type, thread_ctx_, kStackLimit));
  llvm::Value* frame = b_.CreatePtrToInt(
      b_.CreateIntrinsic(llvm::Intrinsic::frameaddress, {b_.getPtrTy()}, {b_.getInt32(0)}),
      b_.getInt64Ty());
  auto* overflow = llvm::BasicBlock::Create(m_.context, "stack.overflow", fn_);
  auto* fine = llvm::BasicBlock::Create(m_.context, "stack.fine", fn_);
  b_.CreateCondBr(b_.CreateICmpULT(frame, limit), overflow, fine,
                  llvm::MDBuilder(m_.context).createBranchWeights(1, 1 << 20));
  b_.SetInsertPoint(overflow);
  llvm::Value* flag =
      b_.CreateLoad(b_.getPtrTy(), b_.CreateStructGEP(ctx_type, thread_ctx_, kStackOverflow));
  b_.CreateAlignedStore(b_.getInt32(1), flag, llvm::Align(4))
      ->setAtomic(llvm::AtomicOrdering::Monotonic);
  leave_raising();  // ends in a new dead block
  b_.CreateBr(fine);
  b_.SetInsertPoint(fine);
}

// At a host loop's head (each iteration, or each run of iterations): a thread of an abandoned
// launch (a Ctrl-C, runtime/interrupt.hpp) stops as a raise does, so a kernel that loops for
// minutes ends within moments. One load of a flag that is almost never set; the GPU has no such
// check (a kernel runs to its end; the simulator checks between instructions).
void FunctionLowering::abandon_point() {
  if (!thread_ctx_) return;
  llvm::StructType* ctx_type = m_.thread_ctx_type();
  llvm::Value* flag =
      b_.CreateLoad(b_.getPtrTy(), b_.CreateStructGEP(ctx_type, thread_ctx_, kAbandon));
  auto* set = b_.CreateAlignedLoad(b_.getInt32Ty(), flag, llvm::Align(4));
  set->setAtomic(llvm::AtomicOrdering::Monotonic);  // read afresh each time, never hoisted
  auto* leave = llvm::BasicBlock::Create(m_.context, "abandoned", fn_);
  auto* go_on = llvm::BasicBlock::Create(m_.context, "not.abandoned", fn_);
  b_.CreateCondBr(b_.CreateICmpNE(set, b_.getInt32(0)), leave, go_on,
                  llvm::MDBuilder(m_.context).createBranchWeights(1, 1 << 20));
  b_.SetInsertPoint(leave);
  leave_raising();  // ends in a new dead block
  b_.CreateBr(go_on);
  b_.SetInsertPoint(go_on);
}

// Raises exception `code` (of the kernel's table) where `condition` holds; goes on after.
void FunctionLowering::raise_if(llvm::Value* condition, int64_t code) {
  auto* fails = llvm::BasicBlock::Create(m_.context, "check.fails", fn_);
  auto* next = llvm::BasicBlock::Create(m_.context, "check.holds", fn_);
  b_.CreateCondBr(condition, fails, next);
  b_.SetInsertPoint(fails);
  raise(code);
  if (!terminated()) b_.CreateBr(next);
  b_.SetInsertPoint(next);
}

// debug=True's checks, which the front end wraps around an expression with the code of the
// exception to raise: debug.zerodiv.N (a / b, a // b, a % b: ZeroDivisionError for a zero b,
// as Numba's debug mode raises it) and debug.index.N (a tuple indexed at run time: IndexError
// out of range), and debug.nonzero.N (the divisor of x /= y: ZeroDivisionError when zero).
// Any other expression inside is evaluated as it is.
llvm::Value* FunctionLowering::checked(const Node& n) {
  const Node& inner = n.child(0);
  std::string_view name = n.text;
  const int64_t code = raise_code(name);
  if (name.starts_with("debug.zerodiv.") && inner.kind == ir::NodeKind::BinOp) {
    llvm::Value* a = expr(inner.child(0));
    llvm::Value* b = expr(inner.child(1));
    const Type& tb = type_of(inner.child(1));
    // fastmath=True: float32 / float32 is the fast approximate division, unchecked, as
    // numba-cuda lowers it (__fdividef): a zero divisor gives inf or nan, not an exception.
    const Type f32 = Type::scalar(Scalar::Float32);
    const bool fast_division =
        m_.options.fastmath && inner.text == "/" && type_of(inner.child(0)) == f32 && tb == f32;
    if (!fast_division) raise_if(b_.CreateNot(to_bool(b, tb)), code);
    return binop(inner, inner.text, a, type_of(inner.child(0)), b, tb, type_of(inner));
  }
  if (name.starts_with("debug.nonzero.")) {
    llvm::Value* v = expr(inner);
    const Type& t = type_of(inner);
    if (t.is_scalar()) raise_if(b_.CreateNot(to_bool(v, t)), code);  // zero, 0j included
    return v;
  }
  if (name.starts_with("debug.index.") && inner.kind == ir::NodeKind::Subscript &&
      type_of(inner.child(0)).is_tuple() && !f_.constants.contains(&inner)) {
    const Type& t = type_of(inner.child(0));
    llvm::Value* tuple = expr(inner.child(0));
    llvm::Value* index = expr_as(inner.child(1), Type::scalar(Scalar::Int64));
    auto size = static_cast<int64_t>(t.elements().size());
    llvm::Value* outside =
        b_.CreateOr(b_.CreateICmpSLT(index, int64(-size)), b_.CreateICmpSGE(index, int64(size)));
    raise_if(outside, code);
    return tuple_item(tuple, t, inner, index);
  }
  return expr(inner);
}

void FunctionLowering::assert_stmt(const Node& s) {
  llvm::Value* holds = to_bool(expr(s.child(0)), type_of(s.child(0)));
  auto* fails = llvm::BasicBlock::Create(m_.context, "assert.fails", fn_);
  auto* next = llvm::BasicBlock::Create(m_.context, "assert.holds", fn_);
  b_.CreateCondBr(holds, next, fails);
  b_.SetInsertPoint(fails);
  raise(s.int_value);
  if (!terminated()) b_.CreateBr(next);
  b_.SetInsertPoint(next);
}

// After a call on the host: a callee that raised marked the thread; return too.
void FunctionLowering::return_if_raised() {
  if (!m_.may_raise || !thread_ctx_) return;
  llvm::Value* raised = m_.hooks.raised(m_, b_, thread_ctx_);
  auto* leave = llvm::BasicBlock::Create(m_.context, "raised", fn_);
  auto* next = llvm::BasicBlock::Create(m_.context, "not.raised", fn_);
  b_.CreateCondBr(raised, leave, next);
  b_.SetInsertPoint(leave);
  if (fn_->getReturnType()->isVoidTy())
    b_.CreateRetVoid();
  else
    b_.CreateRet(llvm::UndefValue::get(fn_->getReturnType()));
  b_.SetInsertPoint(next);
}

bool calls_builtin(const std::vector<ir::NodePtr>& nodes, std::string_view name) {
  for (const auto& n : nodes) {
    if (n->kind == ir::NodeKind::Call && n->text == name) return true;
    if (calls_builtin(n->children, name)) return true;
  }
  return false;
}

int64_t raise_code(std::string_view name) {
  return std::stoll(std::string(name.substr(name.rfind('.') + 1)));
}

bool contains_loop(const std::vector<ir::NodePtr>& nodes) {
  for (const auto& n : nodes) {
    if (n->kind == ir::NodeKind::While || n->kind == ir::NodeKind::For) return true;
    if (contains_loop(n->children)) return true;
  }
  return false;
}

bool contains_raise(const std::vector<ir::NodePtr>& nodes) {
  for (const auto& n : nodes) {
    if (n->kind == ir::NodeKind::Raise || n->kind == ir::NodeKind::Assert) return true;
    if (n->kind == ir::NodeKind::Method &&  // a.reshape() / a.view() raise what NumPy would
        (n->text.starts_with("reshape.") || n->text.starts_with("view.")))
      return true;
    if (contains_raise(n->children)) return true;
  }
  return false;
}

}  // namespace cudajit::lower
