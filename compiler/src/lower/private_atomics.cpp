// Private copies of arrays that a kernel only updates atomically, on the cpu device. A
// histogram's `cuda.atomic.add(hist, x[i], 1)` from every thread makes the cores fight
// over a few cache lines: each update is a locked instruction on a line another core
// just wrote. Where the kernel never reads the array (every use of the parameter is an
// atomic whose old value is dropped) and the operation is associative and commutative on
// integers, the order of the updates cannot show: each run of blocks on a worker updates
// a private copy with plain loads and stores, and merges it into the array at its end
// (one atomic per element it changed). Integer add/sub wrap, and max/min/and/or/xor are
// exact, so the result is what the GPU gives; float sums would be reassociated, so float
// arrays are left alone.
//
// The kernel's body is the same for both ways: each such atomic tests a bit of the
// thread context (kPrivateCopies), set by the entry only where it made the copy, so a
// fiber-run kernel, or a run of blocks too short to pay for a copy, updates the array
// atomically as before.
#include <llvm/IR/Intrinsics.h>
#include <llvm/Transforms/Utils/LowerAtomic.h>

#include <functional>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "lowering.hpp"

namespace cudajit::lower {

using ir::Node;
using ir::NodeKind;
using Op = llvm::AtomicRMWInst::BinOp;

namespace {

// A copy is made only for arrays this small (a worker's run holds one per array)...
constexpr int64_t kMaxCopyBytes = int64_t(1) << 20;
// ...and only where the run has at least this many threads per element of the copy: the
// copy costs a store and a load per element, the atomics it saves one per thread.
constexpr int64_t kThreadsPerElement = 2;

// The operation the copy merges with, for `cuda.atomic.<op>` on integers of `s`; none for
// operations whose updates do not commute (exch, inc, dec, cas).
std::optional<Op> merge_operation(std::string_view op, Scalar s) {
  const bool sign = is_signed(s);
  if (op == "add" || op == "sub") return Op::Add;  // a copy of subtractions holds their negation
  if (op == "max" || op == "nanmax") return sign ? Op::Max : Op::UMax;
  if (op == "min" || op == "nanmin") return sign ? Op::Min : Op::UMin;
  if (op == "and_") return Op::And;
  if (op == "or_") return Op::Or;
  if (op == "xor") return Op::Xor;
  return std::nullopt;
}

// The value a copy starts from: what merging it changes nothing with.
llvm::Constant* identity(Op op, llvm::IntegerType* t) {
  const unsigned bits = t->getBitWidth();
  switch (op) {
    case Op::And:
    case Op::UMin:
      return llvm::ConstantInt::get(t, llvm::APInt::getAllOnes(bits));
    case Op::Max:
      return llvm::ConstantInt::get(t, llvm::APInt::getSignedMinValue(bits));
    case Op::Min:
      return llvm::ConstantInt::get(t, llvm::APInt::getSignedMaxValue(bits));
    default:
      return llvm::ConstantInt::get(t, 0);
  }
}

std::string_view atomic_op(const Node& n) {
  constexpr std::string_view prefix = "cuda.atomic.";
  if (n.kind != NodeKind::Call || !std::string_view(n.text).starts_with(prefix)) return {};
  return std::string_view(n.text).substr(prefix.size());
}

// A counted loop in `fn`: for (j = 0; j < count; ++j) body(j); count > 0.
void count_loop(llvm::IRBuilder<>& b, llvm::Function* fn, llvm::Value* count,
                const std::function<void(llvm::Value*)>& body) {
  llvm::LLVMContext& c = b.getContext();
  llvm::BasicBlock* pre = b.GetInsertBlock();
  auto* head = llvm::BasicBlock::Create(c, "copy.loop", fn);
  auto* exit = llvm::BasicBlock::Create(c, "copy.loop.end", fn);
  b.CreateBr(head);
  b.SetInsertPoint(head);
  llvm::PHINode* j = b.CreatePHI(b.getInt64Ty(), 2);
  j->addIncoming(b.getInt64(0), pre);
  body(j);
  llvm::Value* next = b.CreateAdd(j, b.getInt64(1));
  j->addIncoming(next, b.GetInsertBlock());
  b.CreateCondBr(b.CreateICmpULT(next, count), head, exit);
  b.SetInsertPoint(exit);
}

// The bytes an array's elements span, [data + low, data + high + itemsize) (strides may be
// negative), its element count, and whether every stride is a whole number of elements.
struct Span {
  llvm::Value* count;
  llvm::Value* low;
  llvm::Value* high;
  llvm::Value* whole;
};

Span span_of(llvm::IRBuilder<>& b, llvm::Value* array, int ndim, int64_t itemsize) {
  Span s{b.getInt64(1), b.getInt64(0), b.getInt64(0), b.getTrue()};
  for (int d = 0; d < ndim; ++d) {
    llvm::Value* extent = b.CreateExtractValue(array, {1u, unsigned(d)});
    llvm::Value* stride = b.CreateExtractValue(array, {2u, unsigned(d)});
    s.count = b.CreateMul(s.count, extent);
    llvm::Value* reach = b.CreateMul(b.CreateSub(extent, b.getInt64(1)), stride);
    s.low =
        b.CreateAdd(s.low, b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, reach, b.getInt64(0)));
    s.high =
        b.CreateAdd(s.high, b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, reach, b.getInt64(0)));
    s.whole = b.CreateAnd(
        s.whole, b.CreateICmpEQ(b.CreateSRem(stride, b.getInt64(itemsize)), b.getInt64(0)));
  }
  return s;
}

}  // namespace

void find_private_atomics(ModuleLowering& m, const typing::TypedFunction& entry) {
  const ir::Function& kernel = *entry.function;
  // Candidates: integer array parameters of the kernel; each loses its place at a use
  // that is not an atomic of one merge operation whose value is dropped.
  std::map<std::string, PrivateAtomics> candidates;
  std::unordered_set<std::string> assigned;
  for (size_t i = 0; i < kernel.params.size() && i < entry.arg_types.size(); ++i) {
    const Type& t = entry.arg_types[i];
    if (t.is_array() && is_integer(t.dtype()) && !t.readonly())
      candidates[kernel.params[i]] = {static_cast<int>(i), 0, std::nullopt, t.dtype()};
  }
  if (candidates.empty()) return;
  std::unordered_set<const Node*> site_arrays;  // the array operand of a qualifying atomic
  std::function<void(const Node&, const Node*)> visit = [&](const Node& n, const Node* parent) {
    if ((n.kind == NodeKind::Assign || n.kind == NodeKind::AugAssign || n.kind == NodeKind::For) &&
        n.child(0).kind == NodeKind::Name)
      assigned.insert(n.child(0).text);
    std::string_view op = atomic_op(n);
    if (!op.empty() && n.size() > 0 && n.child(0).kind == NodeKind::Name) {
      auto found = candidates.find(n.child(0).text);
      if (found != candidates.end()) {
        std::optional<Op> merge = merge_operation(op, found->second.element);
        bool dropped = parent != nullptr && parent->kind == NodeKind::ExprStmt;
        if (merge && dropped && (!found->second.merge || found->second.merge == merge)) {
          found->second.merge = merge;
          site_arrays.insert(&n.child(0));
        }
      }
    }
    // shape, size and ndim read the parameter's descriptor, which the copy keeps.
    if (n.kind == NodeKind::Attr && n.child(0).kind == NodeKind::Name &&
        (n.text == "shape" || n.text == "size" || n.text == "ndim"))
      site_arrays.insert(&n.child(0));
    if (n.kind == NodeKind::Name && !site_arrays.count(&n)) candidates.erase(n.text);
    for (const auto& c : n.children) visit(*c, &n);
  };
  for (const auto& s : kernel.body) visit(*s, nullptr);
  int bit = 0;
  for (auto& [name, atomics] : candidates) {
    if (assigned.count(name) || !atomics.merge || bit == 64) continue;
    atomics.bit = bit++;
    m.private_atomics[name] = atomics;
  }
  if (!m.private_atomics.empty()) m.private_atomics_kernel = &entry;
}

const PrivateAtomics* FunctionLowering::private_atomics(const Node& array) const {
  if (thread_ctx_ == nullptr || m_.private_atomics_kernel != &f_ || array.kind != NodeKind::Name)
    return nullptr;
  auto found = m_.private_atomics.find(array.text);
  return found == m_.private_atomics.end() ? nullptr : &found->second;
}

// `op` on the element at `ptr`: plainly on the worker's copy where the entry made one,
// else atomically.
llvm::Value* FunctionLowering::private_atomic(const PrivateAtomics& atomics, Op op,
                                              llvm::Value* ptr, llvm::Value* v, llvm::Align align) {
  llvm::Value* copies = b_.CreateLoad(
      b_.getInt64Ty(), b_.CreateStructGEP(m_.thread_ctx_type(), thread_ctx_, kPrivateCopies));
  llvm::Value* own = b_.CreateTrunc(b_.CreateLShr(copies, atomics.bit), b_.getInt1Ty());
  auto* plain = llvm::BasicBlock::Create(m_.context, "atomic.private", fn_);
  auto* shared = llvm::BasicBlock::Create(m_.context, "atomic.shared", fn_);
  auto* done = llvm::BasicBlock::Create(m_.context, "atomic.done", fn_);
  b_.CreateCondBr(own, plain, shared);
  b_.SetInsertPoint(plain);
  llvm::Value* old = b_.CreateAlignedLoad(v->getType(), ptr, align);
  llvm::Value* updated = llvm::buildAtomicRMWValue(op, b_, old, v);  // as LowerAtomic does
  b_.CreateAlignedStore(updated, ptr, align);
  b_.CreateBr(done);
  llvm::BasicBlock* plain_end = b_.GetInsertBlock();
  b_.SetInsertPoint(shared);
  llvm::Value* shared_old = b_.CreateAtomicRMW(op, ptr, v, align, llvm::AtomicOrdering::Monotonic);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  llvm::PHINode* result = b_.CreatePHI(v->getType(), 2);
  result->addIncoming(old, plain_end);
  result->addIncoming(shared_old, shared);
  return result;
}

std::vector<PrivateCopy> open_private_copies(ModuleLowering& m, llvm::IRBuilder<>& b,
                                             llvm::Function* fn, std::vector<llvm::Value*>& args,
                                             llvm::Value* threads, llvm::Value* copies_field) {
  std::vector<PrivateCopy> copies;
  llvm::Value* bits = b.getInt64(0);
  if (m.private_atomics.empty()) {
    b.CreateStore(bits, copies_field);
    return copies;
  }
  llvm::LLVMContext& c = m.context;
  auto* ptr = b.getPtrTy();
  auto* i64 = b.getInt64Ty();
  llvm::FunctionCallee allocate =
      m.module.getOrInsertFunction("malloc", llvm::FunctionType::get(ptr, {i64}, false));
  for (const auto& [name, atomics] : m.private_atomics) {
    const Type& t = m.private_atomics_kernel->arg_types[size_t(atomics.param)];
    auto* element = llvm::cast<llvm::IntegerType>(m.scalar_type(atomics.element));
    const int64_t size = byte_size(atomics.element);
    llvm::Value*& array = args[size_t(atomics.param)];
    Span own = span_of(b, array, t.ndim(), size);
    llvm::Value* low = own.low;
    llvm::Value* bytes = b.CreateAdd(b.CreateSub(own.high, own.low), b.getInt64(size));
    llvm::Value* elements = b.CreateSDiv(bytes, b.getInt64(size));
    llvm::Value* worth = b.CreateAnd(
        b.CreateAnd(b.CreateICmpSGT(own.count, b.getInt64(0)), own.whole),
        b.CreateAnd(
            b.CreateICmpSLE(bytes, b.getInt64(kMaxCopyBytes)),
            b.CreateICmpSLE(b.CreateMul(elements, b.getInt64(kThreadsPerElement)), threads)));
    // Another array argument over the same memory (the array passed twice) would not see the
    // thread's own updates, which a GPU's would: no copy then.
    llvm::Value* data = b.CreateExtractValue(array, {0u});
    auto bounds = [&](llvm::Value* base, const Span& s, int64_t item) {
      llvm::Value* at = b.CreatePtrToInt(base, i64);
      return std::pair{b.CreateAdd(at, s.low),
                       b.CreateAdd(b.CreateAdd(at, s.high), b.getInt64(item))};
    };
    auto [first, last] = bounds(data, own, size);
    const auto& types = m.private_atomics_kernel->arg_types;
    for (size_t k = 0; k < types.size() && k < args.size(); ++k) {
      if (int(k) == atomics.param || !types[k].is_array()) continue;
      Span other = span_of(b, args[k], types[k].ndim(), types[k].itemsize());
      auto [other_first, other_last] =
          bounds(b.CreateExtractValue(args[k], {0u}), other, types[k].itemsize());
      llvm::Value* apart = b.CreateOr(
          b.CreateICmpSLE(other.count, b.getInt64(0)),
          b.CreateOr(b.CreateICmpULE(other_last, first), b.CreateICmpULE(last, other_first)));
      worth = b.CreateAnd(worth, apart);
    }
    llvm::BasicBlock* before = b.GetInsertBlock();
    auto* make = llvm::BasicBlock::Create(c, "copy.make", fn);
    auto* fill = llvm::BasicBlock::Create(c, "copy.fill", fn);
    auto* join = llvm::BasicBlock::Create(c, "copy.join", fn);
    b.CreateCondBr(worth, make, join);
    b.SetInsertPoint(make);
    llvm::Value* buffer = b.CreateCall(allocate, {bytes});
    b.CreateCondBr(b.CreateIsNull(buffer), join, fill);  // no memory: atomics as before
    b.SetInsertPoint(fill);
    llvm::Constant* start = identity(*atomics.merge, element);
    count_loop(b, fn, elements, [&](llvm::Value* j) {
      b.CreateAlignedStore(start, b.CreateInBoundsGEP(element, buffer, j), llvm::Align(size));
    });
    llvm::Value* moved =
        b.CreateInsertValue(array, b.CreateGEP(b.getInt8Ty(), buffer, b.CreateNeg(low)), {0u});
    llvm::Value* lowest = b.CreateGEP(b.getInt8Ty(), data, low);
    llvm::BasicBlock* filled = b.GetInsertBlock();
    b.CreateBr(join);
    b.SetInsertPoint(join);
    llvm::PHINode* made = b.CreatePHI(b.getInt1Ty(), 3);
    made->addIncoming(b.getFalse(), before);
    made->addIncoming(b.getFalse(), make);
    made->addIncoming(b.getTrue(), filled);
    llvm::PHINode* used = b.CreatePHI(array->getType(), 3);
    used->addIncoming(array, before);
    used->addIncoming(array, make);
    used->addIncoming(moved, filled);
    llvm::PHINode* held = b.CreatePHI(ptr, 3);
    held->addIncoming(llvm::ConstantPointerNull::get(ptr), before);
    held->addIncoming(llvm::ConstantPointerNull::get(ptr), make);
    held->addIncoming(buffer, filled);
    llvm::PHINode* origin = b.CreatePHI(ptr, 3);  // the array's lowest byte
    origin->addIncoming(llvm::ConstantPointerNull::get(ptr), before);
    origin->addIncoming(llvm::ConstantPointerNull::get(ptr), make);
    origin->addIncoming(lowest, filled);
    llvm::PHINode* length = b.CreatePHI(i64, 3);
    length->addIncoming(b.getInt64(0), before);
    length->addIncoming(b.getInt64(0), make);
    length->addIncoming(elements, filled);
    array = used;
    bits = b.CreateOr(bits, b.CreateShl(b.CreateZExt(made, i64), atomics.bit));
    copies.push_back({&atomics, made, held, origin, length});
  }
  b.CreateStore(bits, copies_field);
  return copies;
}

void close_private_copies(ModuleLowering& m, llvm::IRBuilder<>& b, llvm::Function* fn,
                          const std::vector<PrivateCopy>& copies) {
  if (copies.empty()) return;
  llvm::LLVMContext& c = m.context;
  llvm::FunctionCallee release = m.module.getOrInsertFunction(
      "free", llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy()}, false));
  for (const PrivateCopy& copy : copies) {
    auto* element = llvm::cast<llvm::IntegerType>(m.scalar_type(copy.atomics->element));
    const llvm::Align align(byte_size(copy.atomics->element));
    const Op merge = *copy.atomics->merge;
    auto* merging = llvm::BasicBlock::Create(c, "copy.merge", fn);
    auto* next = llvm::BasicBlock::Create(c, "copy.merged", fn);
    b.CreateCondBr(copy.made, merging, next);
    b.SetInsertPoint(merging);
    // Elements the run never changed (and gaps between a strided array's) stay as they
    // started, and are not merged.
    count_loop(b, fn, copy.elements, [&](llvm::Value* j) {
      llvm::Value* v =
          b.CreateAlignedLoad(element, b.CreateInBoundsGEP(element, copy.buffer, j), align);
      auto* changed = llvm::BasicBlock::Create(c, "copy.changed", fn);
      auto* after = llvm::BasicBlock::Create(c, "copy.next", fn);
      b.CreateCondBr(b.CreateICmpNE(v, identity(merge, element)), changed, after);
      b.SetInsertPoint(changed);
      b.CreateAtomicRMW(merge, b.CreateGEP(element, copy.origin, j), v, align,
                        llvm::AtomicOrdering::Monotonic);
      b.CreateBr(after);
      b.SetInsertPoint(after);
    });
    b.CreateCall(release, {copy.buffer});
    b.CreateBr(next);
    b.SetInsertPoint(next);
  }
}

}  // namespace cudajit::lower
