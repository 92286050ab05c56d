// math's functions in kernels (math.sqrt ...; NumPy's math ufuncs on numbers become these):
// LLVM intrinsics where NVPTX has an instruction, else the C function (libdevice's __nv_sin
// on the GPU, libm's sin on the cpu device, through TargetHooks::math_symbol). The front end
// passes every public function of math; the rows here are those kernels support.
#include <llvm/IR/Intrinsics.h>

#include "../lower/lowering.hpp"
#include "rules.hpp"

namespace cudajit::builtins {

namespace {

using lower::FunctionLowering;

constexpr std::string_view kUnary[] = {
    "math.sqrt",  "math.exp",     "math.expm1",  "math.log",  "math.log2",  "math.log10",
    "math.log1p", "math.sin",     "math.cos",    "math.tan",  "math.asin",  "math.acos",
    "math.atan",  "math.sinh",    "math.cosh",   "math.tanh", "math.asinh", "math.acosh",
    "math.atanh", "math.fabs",    "math.erf",    "math.erfc", "math.gamma", "math.lgamma",
    "math.exp2",  "math.degrees", "math.radians"};
constexpr std::string_view kBinary[] = {"math.pow",      "math.atan2", "math.copysign",
                                        "math.fmod",     "math.hypot", "math.nextafter",
                                        "math.remainder"};
// numba-cuda types these as floats (the argument's float type), not Python's int.
constexpr std::string_view kRounding[] = {"math.floor", "math.ceil", "math.trunc"};
constexpr std::string_view kPredicates[] = {"math.isnan", "math.isinf", "math.isfinite"};

// Computes in math_float of its arguments.
Type type_float_function(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  for (const Type& t : args) expect_real(call, t);
  return Type::scalar(math_float(args));
}

Type type_predicate(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  for (const Type& t : args) expect_real(call, t);
  return Type::scalar(Scalar::Bool);
}

// As Numba types them: (mantissa, exponent as a C int) and (fraction, integral part).
Type type_frexp_modf(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  expect_real(call, args[0]);
  Type f = Type::scalar(math_float(args));
  return Type::tuple({f, call.text == "math.frexp" ? Type::scalar(Scalar::Int32) : f});
}

Type type_ldexp(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  expect_real(call, args[0]);
  if (!args[1].is_scalar() || !(is_integer(args[1].scalar()) || args[1].is_scalar(Scalar::Bool)))
    type_error(call, "math.ldexp() needs an integer exponent, got " + args[1].str());
  return Type::scalar(math_float({args[0]}));
}

llvm::Value* lower_math(FunctionLowering& f, const Node& n) {
  return f.call_math_builtin(n, suffix(n, "math."), f.argument_values(n));
}

}  // namespace

void register_math(Registry& r) {
  for (std::string_view name : kUnary) r.add({name, takes(1), type_float_function, lower_math});
  for (std::string_view name : kRounding) r.add({name, takes(1), type_float_function, lower_math});
  for (std::string_view name : kBinary) r.add({name, takes(2), type_float_function, lower_math});
  for (std::string_view name : kPredicates) r.add({name, takes(1), type_predicate, lower_math});
  r.add({"math.frexp", takes(1), type_frexp_modf, lower_math});
  r.add({"math.modf", takes(1), type_frexp_modf, lower_math});
  r.add({"math.ldexp", takes(2), type_ldexp, lower_math});
}

}  // namespace cudajit::builtins

namespace cudajit::lower {

using ir::Node;

llvm::Value* FunctionLowering::call_math_builtin(const Node& n, std::string_view name,
                                                 std::vector<Value> args) {
  const Type& result = type_of(n);
  Scalar s = args[0].type.scalar();
  if (name == "isnan" || name == "isinf" || name == "isfinite") {
    if (!is_float(s)) return b_.getInt1(name == "isfinite");
    llvm::Value* x = args[0].v;
    if (name == "isnan") return b_.CreateFCmpUNO(x, x);
    llvm::Value* mag = intrinsic(llvm::Intrinsic::fabs, {x->getType()}, {x});
    llvm::Value* inf = llvm::ConstantFP::getInfinity(x->getType());
    return name == "isinf" ? b_.CreateFCmpOEQ(mag, inf) : b_.CreateFCmpOLT(mag, inf);
  }
  if (name == "floor" || name == "ceil" || name == "trunc") {
    llvm::Value* x = cast(args[0].v, args[0].type, result);
    auto id = name == "floor"  ? llvm::Intrinsic::floor
              : name == "ceil" ? llvm::Intrinsic::ceil
                               : llvm::Intrinsic::trunc;
    return intrinsic(id, {x->getType()}, {x});
  }
  if (name == "frexp" || name == "modf" || name == "ldexp") return call_math_pair(n, name, args);
  // Every other function computes in the result's float type (call_math takes
  // float16 through float32; LLVM does the same for sqrt of a half). fmod too:
  // NVPTX expands LLVM's frem inexactly.
  Scalar f = result.scalar();
  std::vector<llvm::Value*> xs;
  for (const Value& a : args) xs.push_back(cast(a.v, a.type, result));
  llvm::Type* t = xs[0]->getType();
  if (name == "sqrt") return intrinsic(llvm::Intrinsic::sqrt, {t}, xs);
  if (name == "fabs") return intrinsic(llvm::Intrinsic::fabs, {t}, xs);
  if (name == "copysign") return intrinsic(llvm::Intrinsic::copysign, {t}, xs);
  if (name == "degrees" || name == "radians") {
    constexpr double kPi = 3.141592653589793;
    return b_.CreateFMul(xs[0], float_const(f, name == "degrees" ? 180.0 / kPi : kPi / 180.0));
  }
  return call_math(name, f, xs);
}

// frexp, modf and ldexp: a float and an int, in or out. float16 and bfloat16 compute in
// float32.
llvm::Value* FunctionLowering::call_math_pair(const Node& n, std::string_view name,
                                              std::vector<Value> args) {
  const Type& result = type_of(n);
  Scalar f = result.is_tuple() ? result.elements()[0].scalar() : result.scalar();
  Scalar wide = bit_width(f) == 16 ? Scalar::Float32 : f;
  llvm::Type* ft = m_.scalar_type(wide);
  llvm::Value* x = cast(args[0].v, args[0].type, Type::scalar(wide));
  auto narrow = [&](llvm::Value* v) {
    return f == wide ? v : b_.CreateFPTrunc(v, m_.scalar_type(f));
  };
  std::string symbol = m_.hooks.math_symbol(name, wide == Scalar::Float32);
  if (name == "ldexp") {
    // C's int exponent: beyond +-100000 every result is already 0 or inf, so clamp, not wrap.
    llvm::Value* e = cast(args[1].v, args[1].type, Type::scalar(Scalar::Int64));
    e = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, e, b_.getInt64(-100000));
    e = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, e, b_.getInt64(100000));
    auto callee = m_.module.getOrInsertFunction(
        symbol, llvm::FunctionType::get(ft, {ft, b_.getInt32Ty()}, false));
    return narrow(b_.CreateCall(callee, {x, b_.CreateTrunc(e, b_.getInt32Ty())}));
  }
  llvm::Value* pair = llvm::UndefValue::get(m_.value_type(result));
  if (name == "modf") {
    // x - trunc(x) with the sign of x, and a zero of that sign for an infinity (as C's modf);
    // no out-parameter needed.
    llvm::Value* whole = intrinsic(llvm::Intrinsic::trunc, {ft}, {x});
    llvm::Value* inf = llvm::ConstantFP::getInfinity(ft);
    llvm::Value* is_inf = b_.CreateFCmpOEQ(intrinsic(llvm::Intrinsic::fabs, {ft}, {x}), inf);
    llvm::Value* frac =
        b_.CreateSelect(is_inf, llvm::ConstantFP::get(ft, 0.0), b_.CreateFSub(x, whole));
    frac = intrinsic(llvm::Intrinsic::copysign, {ft}, {frac, x});
    pair = b_.CreateInsertValue(pair, narrow(frac), {0});
    return b_.CreateInsertValue(pair, narrow(whole), {1});
  }
  llvm::AllocaInst* exponent;
  {
    llvm::IRBuilderBase::InsertPointGuard guard(b_);
    b_.SetInsertPoint(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    exponent = b_.CreateAlloca(b_.getInt32Ty(), nullptr, "frexp.exponent");
  }
  auto callee = m_.module.getOrInsertFunction(
      symbol, llvm::FunctionType::get(ft, {ft, b_.getPtrTy()}, false));
  llvm::Value* mantissa = b_.CreateCall(callee, {x, exponent});
  pair = b_.CreateInsertValue(pair, narrow(mantissa), {0});
  return b_.CreateInsertValue(pair, b_.CreateLoad(b_.getInt32Ty(), exponent), {1});
}

}  // namespace cudajit::lower
