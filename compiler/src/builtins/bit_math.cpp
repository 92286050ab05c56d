// Numba's bit and math intrinsics: cuda.popc, brev, clz, ffs (1-based, 0 for 0), fma, cbrt
// and selp.
#include <llvm/IR/Intrinsics.h>

#include "../lower/lowering.hpp"
#include "rules.hpp"

namespace cudajit::builtins {

namespace {

using lower::FunctionLowering;

// popc and clz: of the argument's type; ffs: uint32.
Type type_bit_count(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  if (!args[0].is_scalar() || !is_integer(args[0].scalar()))
    type_error(call, call.text + "() needs an integer, got " + args[0].str());
  return call.text == "cuda.ffs" ? Type::scalar(Scalar::UInt32) : args[0];
}

Type type_brev(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  if (!args[0].is_scalar(Scalar::UInt32) && !args[0].is_scalar(Scalar::UInt64))
    type_error(call, call.text + "() takes uint32 or uint64, got " + args[0].str() +
                         " (convert it with cuda.uint32() or cuda.uint64())");
  return args[0];
}

Type type_fma_cbrt(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  for (const Type& t : args) expect_real(call, t);
  return Type::scalar(math_float(args));
}

Type type_selp(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  if (!args[0].is_scalar() || is_complex(args[0].scalar()))
    type_error(call, call.text + "() needs a predicate (a number or bool), got " + args[0].str());
  std::optional<Type> common = typing::unify(args[1], args[2]);
  if (!common || !common->is_scalar())
    type_error(call, call.text + "() chooses between two numbers of compatible types, got " +
                         args[1].str() + " and " + args[2].str());
  return *common;
}

// One integer argument through an LLVM intrinsic of its type (ctpop, bitreverse, ctlz).
template <llvm::Intrinsic::ID kId>
llvm::Value* lower_bit_intrinsic(FunctionLowering& f, const Node& n) {
  llvm::Value* x = f.argument_values(n)[0].v;
  if constexpr (kId == llvm::Intrinsic::ctlz)  // clz(0) is the width, not poison
    return f.intrinsic(kId, {x->getType()}, {x, f.builder().getFalse()});
  return f.intrinsic(kId, {x->getType()}, {x});
}

llvm::Value* lower_ffs(FunctionLowering& f, const Node& n) {
  llvm::IRBuilder<>& b = f.builder();
  llvm::Value* x = f.argument_values(n)[0].v;
  llvm::Value* trailing = f.intrinsic(llvm::Intrinsic::cttz, {x->getType()}, {x, b.getTrue()});
  llvm::Value* one_based = b.CreateZExtOrTrunc(
      b.CreateAdd(trailing, llvm::ConstantInt::get(x->getType(), 1)), b.getInt32Ty());
  llvm::Value* zero = b.CreateICmpEQ(x, llvm::ConstantInt::get(x->getType(), 0));
  return b.CreateSelect(zero, b.getInt32(0), one_based);
}

llvm::Value* lower_selp(FunctionLowering& f, const Node& n) {
  const Type& result = f.type_of(n);
  std::vector<lower::Value> args = f.argument_values(n);
  llvm::Value* a = f.cast(args[1].v, args[1].type, result);
  llvm::Value* b = f.cast(args[2].v, args[2].type, result);
  return f.builder().CreateSelect(f.to_bool(args[0].v, args[0].type), a, b);
}

// fma and cbrt compute in the result's float type.
llvm::Value* lower_fma_cbrt(FunctionLowering& f, const Node& n) {
  const Type& result = f.type_of(n);
  std::vector<llvm::Value*> xs;
  for (const lower::Value& a : f.argument_values(n)) xs.push_back(f.cast(a.v, a.type, result));
  if (n.text == "cuda.fma") return f.intrinsic(llvm::Intrinsic::fma, {xs[0]->getType()}, xs);
  return f.call_math("cbrt", result.scalar(), xs);
}

}  // namespace

void register_bit_math(Registry& r) {
  r.add({"cuda.popc", takes(1), type_bit_count, lower_bit_intrinsic<llvm::Intrinsic::ctpop>,
         "cuda.popc"});
  r.add({"cuda.clz", takes(1), type_bit_count, lower_bit_intrinsic<llvm::Intrinsic::ctlz>,
         "cuda.clz"});
  r.add({"cuda.ffs", takes(1), type_bit_count, lower_ffs, "cuda.ffs"});
  r.add({"cuda.brev", takes(1), type_brev, lower_bit_intrinsic<llvm::Intrinsic::bitreverse>,
         "cuda.brev"});
  r.add({"cuda.fma", takes(3), type_fma_cbrt, lower_fma_cbrt, "cuda.fma"});
  r.add({"cuda.cbrt", takes(1), type_fma_cbrt, lower_fma_cbrt, "cuda.cbrt"});
  r.add({"cuda.selp", takes(3), type_selp, lower_selp, "cuda.selp"});
}

}  // namespace cudajit::builtins
