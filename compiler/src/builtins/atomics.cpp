// cuda.atomic.*: read-modify-write of one array element, returning the old
// value, relaxed (as CUDA's atomicAdd). Integer operations and float add/sub
// are single atomicrmw instructions; float max/min need Numba's NaN rules, so
// they are compare-and-swap loops on the value's bits.
#include "../lower/lowering.hpp"
#include "rules.hpp"

namespace cudajit::builtins {

namespace {

// cuda.atomic.<op>(ary, idx, val), cas(ary, idx, old, val) and
// compare_and_swap(ary, old, val): the old value, of the array's dtype.
Type type_atomic(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  const std::string_view op = suffix(call, "cuda.atomic.");
  const bool bitwise = op == "and_" || op == "or_" || op == "xor" || op == "exch";
  const std::string what = call.text + "()";
  const bool cas = op == "cas";
  const bool cas0 = op == "compare_and_swap";
  const Type& array = args[0];
  if (!array.is_array())
    type_error(call, what + " needs an array as its first argument, got " + array.str());
  if (array.readonly())
    type_error(call, what + " cannot modify a read-only array (" + array.str() + ")");
  if (!array.aligned())
    type_error(call, what + " needs aligned elements; " + array.str() +
                         " is a view of a packed record's field (make the dtype with align=True)");
  Scalar s = array.dtype();
  bool ok;
  std::string wanted;
  if (op == "inc" || op == "dec") {
    ok = s == Scalar::UInt32 || s == Scalar::UInt64;
    wanted = "uint32 or uint64";
  } else if (bitwise || cas || cas0) {
    ok = is_integer(s) && bit_width(s) >= 32;
    wanted = "int32, uint32, int64 or uint64";
  } else {
    ok = (is_integer(s) && bit_width(s) >= 32) || s == Scalar::Float32 || s == Scalar::Float64 ||
         (s == Scalar::Float16 && op == "add");
    wanted = op == "add" ? "int32, uint32, int64, uint64, float16, float32 or float64"
                         : "int32, uint32, int64, uint64, float32 or float64";
  }
  if (!ok) type_error(call, what + " works on arrays of " + wanted + ", got " + array.str());
  if (cas0) {
    if (array.ndim() != 1)
      type_error(call, what + " needs a 1-D array (it works on element 0), got " + array.str());
  } else {
    const Type& index = args[1];
    bool scalar_index = index.is_scalar() && is_integer(index.scalar());
    bool tuple_index =
        index.is_tuple() &&
        std::all_of(index.elements().begin(), index.elements().end(),
                    [](const Type& t) { return t.is_scalar() && is_integer(t.scalar()); });
    int given = scalar_index ? 1 : tuple_index ? static_cast<int>(index.elements().size()) : -1;
    if (given < 0)
      type_error(call, what + " needs an integer index or a tuple of them, got " + index.str());
    if (given != array.ndim())
      type_error(call, what + " needs " + std::to_string(array.ndim()) + " indices for " +
                           array.str() + ", got " + std::to_string(given));
  }
  for (size_t i = cas0 ? 1 : 2; i < args.size(); ++i) {
    if (!is_real(args[i]))
      type_error(call, what + " needs a real number to combine, got " + args[i].str());
  }
  return Type::scalar(s);
}

}  // namespace

void register_atomics(Registry& r) {
  // One lowering for all, by the operation the name ends in (FunctionLowering::call_atomic).
  auto lower_atomic = [](lower::FunctionLowering& f, const Node& n) {
    return f.call_atomic(n, suffix(n, "cuda.atomic."));
  };
  for (std::string_view name :
       {"cuda.atomic.add", "cuda.atomic.sub", "cuda.atomic.max", "cuda.atomic.min",
        "cuda.atomic.nanmax", "cuda.atomic.nanmin", "cuda.atomic.and_", "cuda.atomic.or_",
        "cuda.atomic.xor", "cuda.atomic.exch", "cuda.atomic.inc", "cuda.atomic.dec",
        "cuda.atomic.compare_and_swap"})
    r.add({name, takes(3), type_atomic, lower_atomic, name});
  r.add({"cuda.atomic.cas", takes(4), type_atomic, lower_atomic, "cuda.atomic.cas"});
}

}  // namespace cudajit::builtins

namespace cudajit::lower {

using ir::Node;

namespace {

constexpr auto kRelaxed = llvm::AtomicOrdering::Monotonic;

}  // namespace

// Replaces *ptr by update(old) atomically; returns old.
llvm::Value* FunctionLowering::atomic_float_update(
    llvm::Value* ptr, Scalar s, const std::function<llvm::Value*(llvm::Value*)>& update) {
  llvm::Type* ft = m_.scalar_type(s);
  llvm::Type* it = b_.getIntNTy(bit_width(s));
  llvm::Align align(byte_size(s));
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::LoadInst* first = b_.CreateAlignedLoad(it, ptr, align);
  first->setAtomic(kRelaxed);
  auto* loop = llvm::BasicBlock::Create(m_.context, "atomic.retry", fn_);
  auto* done = llvm::BasicBlock::Create(m_.context, "atomic.done", fn_);
  b_.CreateBr(loop);
  b_.SetInsertPoint(loop);
  llvm::PHINode* old_bits = b_.CreatePHI(it, 2);
  old_bits->addIncoming(first, pre);
  llvm::Value* old = b_.CreateBitCast(old_bits, ft);
  llvm::Value* new_bits = b_.CreateBitCast(update(old), it);
  llvm::Value* pair = b_.CreateAtomicCmpXchg(ptr, old_bits, new_bits, align, kRelaxed, kRelaxed);
  llvm::Value* seen = b_.CreateExtractValue(pair, {0});
  old_bits->addIncoming(seen, b_.GetInsertBlock());
  b_.CreateCondBr(b_.CreateExtractValue(pair, {1}), done, loop);
  b_.SetInsertPoint(done);
  return old;
}

llvm::Value* FunctionLowering::call_atomic(const Node& n, std::string_view op) {
  const Node& array_node = n.child(0);
  const Type& at = type_of(array_node);
  const Scalar s = at.dtype();
  const Type dtype = Type::scalar(s);
  llvm::Value* array = expr(array_node);
  // compare_and_swap(ary, old, val) works on element 0 of a 1-D array.
  const bool element_zero = op == "compare_and_swap";
  std::vector<ArrayIndex> idx =
      element_zero ? std::vector<ArrayIndex>{{int64(0), true}} : indices(n.child(1));
  llvm::Value* ptr = element_pointer(array, at, idx, n.loc);
  auto operand = [&](size_t i) { return expr_as(n.child(i), dtype); };
  llvm::Align align(byte_size(s));

  if (op == "cas" || op == "compare_and_swap") {
    size_t first = element_zero ? 1 : 2;
    llvm::Value* expected = operand(first);
    llvm::Value* desired = operand(first + 1);
    llvm::Value* pair = b_.CreateAtomicCmpXchg(ptr, expected, desired, align, kRelaxed, kRelaxed);
    return b_.CreateExtractValue(pair, {0});
  }
  llvm::Value* v = operand(2);
  if (is_float(s) && op != "add" && op != "sub" && op != "exch") {
    const bool is_max = op == "max" || op == "nanmax";
    const bool nan_replaces = op == "nanmax" || op == "nanmin";
    return atomic_float_update(ptr, s, [&](llvm::Value* old) {
      // max/min: a NaN operand changes nothing and a stored NaN stays;
      // nanmax/nanmin: a stored NaN is replaced, a NaN operand still ignored.
      llvm::Value* better = is_max ? b_.CreateFCmpOGT(v, old) : b_.CreateFCmpOLT(v, old);
      llvm::Value* result = b_.CreateSelect(better, v, old);
      llvm::Value* old_nan = b_.CreateFCmpUNO(old, old);
      return b_.CreateSelect(old_nan, nan_replaces ? v : old, result);
    });
  }
  using Op = llvm::AtomicRMWInst::BinOp;
  const bool is_signed_int = is_signed(s);
  Op rmw;
  if (op == "add") {
    rmw = is_float(s) ? Op::FAdd : Op::Add;
  } else if (op == "sub") {
    rmw = is_float(s) ? Op::FSub : Op::Sub;
  } else if (op == "max" || op == "nanmax") {  // integers have no NaN: as max, as Numba
    rmw = is_signed_int ? Op::Max : Op::UMax;
  } else if (op == "min" || op == "nanmin") {
    rmw = is_signed_int ? Op::Min : Op::UMin;
  } else if (op == "and_") {
    rmw = Op::And;
  } else if (op == "or_") {
    rmw = Op::Or;
  } else if (op == "xor") {
    rmw = Op::Xor;
  } else if (op == "exch") {
    rmw = Op::Xchg;
  } else if (op == "inc") {
    rmw = Op::UIncWrap;  // old >= v ? 0 : old + 1, as CUDA's atomicInc
  } else if (op == "dec") {
    rmw = Op::UDecWrap;  // old == 0 || old > v ? v : old - 1, as atomicDec
  } else {
    throw CompileError("internal: no lowering for cuda.atomic." + std::string(op), n.loc);
  }
  if (const PrivateAtomics* atomics = private_atomics(array_node))
    return private_atomic(*atomics, rmw, ptr, v, align);
  return b_.CreateAtomicRMW(rmw, ptr, v, align, kRelaxed);
}

}  // namespace cudajit::lower
