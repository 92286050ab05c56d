// Calls of builtins: Python's (len, min, abs, round...), casts, math (libdevice
// or libm through TargetHooks::math_symbol) and the CUDA index intrinsics; the
// other cuda.* intrinsics are routed to their own files.
#include <llvm/IR/Intrinsics.h>

#include "lowering.hpp"

namespace cudajit::lower {

using ir::Node;

llvm::Value* FunctionLowering::call_builtin(const Node& n) {
  std::string_view name = n.text;
  // A device function's declared signature that typing chose (typing/overloads.cpp),
  // and the call for real or complex numbers of a NumPy math ufunc (choose.complex.N).
  if (name.starts_with("overload.") || name.starts_with("choose."))
    return expr(n.child(f_.constants.at(&n)));
  if (name.starts_with("cuda.")) return call_cuda_builtin(n, name.substr(5));
  if (name.starts_with("extern.")) return call_foreign(n);
  if (name == "isnone" || name == "notnone") {  // x is None: a constant, or the optional's flag
    auto known = f_.constants.find(&n);
    if (known != f_.constants.end()) return b_.getInt1(known->second != 0);
    llvm::Value* present = extract(expr(n.child(0)), {1});
    return name == "isnone" ? b_.CreateNot(present) : present;
  }
  if (name.starts_with("debug.")) return checked(n);
  if (name == "print") {
    print(n);
    return nullptr;
  }
  std::vector<Value> args = argument_values(n);
  const Type& result = type_of(n);
  if (name.starts_with("math.")) return call_math_builtin(n, name.substr(5), args);
  if (name.starts_with("cast.") || name == "float" || name == "bool")
    return cast(args[0].v, args[0].type, result);
  if (name == "int") return cast(args[0].v, args[0].type, result);
  if (name == "complex") {
    Type part = Type::scalar(complex_part(result.scalar()));
    llvm::Value* im =
        args.size() > 1 ? cast(args[1].v, args[1].type, part) : float_const(part.scalar(), 0.0);
    return make_complex(cast(args[0].v, args[0].type, part), im, result.scalar());
  }
  if (name == "array.address") return b_.CreatePtrToInt(extract(args[0].v, {0}), b_.getInt64Ty());
  if (name == "len") {
    if (args[0].type.is_tuple()) return int64(static_cast<int64_t>(args[0].type.elements().size()));
    return extract(args[0].v, {1, 0});
  }
  if (name == "min" || name == "max") return min_max(n, name == "min", args);
  if (name == "abs") {
    Scalar s = args[0].type.scalar();
    if (is_complex(s)) return call_math("hypot", complex_part(s), {re(args[0].v), im(args[0].v)});
    llvm::Value* v = cast(args[0].v, args[0].type, result);
    if (is_float(s)) return intrinsic(llvm::Intrinsic::fabs, {v->getType()}, {v});
    if (!is_signed(result.scalar())) return v;
    return b_.CreateSelect(b_.CreateICmpSLT(v, llvm::ConstantInt::get(v->getType(), 0)),
                           b_.CreateNeg(v), v);
  }
  if (name == "round") {
    Scalar s = args[0].type.scalar();
    if (!is_float(s)) return cast(args[0].v, args[0].type, result);
    llvm::Value* ndigits =
        args.size() > 1 ? cast(args[1].v, args[1].type, Type::scalar(Scalar::Int64)) : nullptr;
    llvm::Value* r = round(args[0].v, s, ndigits);
    return cast(r, args[0].type, result);
  }
  throw CompileError("internal: no lowering for builtin " + n.text, n.loc);
}

// cuda.popc, brev, clz, ffs (1-based, 0 for 0), fma, cbrt, selp.
llvm::Value* FunctionLowering::call_bit_math(const Node& n, std::string_view name) {
  const Type& result = type_of(n);
  std::vector<Value> args;
  for (const auto& c : n.children) args.push_back({expr(*c), type_of(*c)});
  llvm::Value* x = args[0].v;
  if (name == "popc") return intrinsic(llvm::Intrinsic::ctpop, {x->getType()}, {x});
  if (name == "brev") return intrinsic(llvm::Intrinsic::bitreverse, {x->getType()}, {x});
  if (name == "clz") return intrinsic(llvm::Intrinsic::ctlz, {x->getType()}, {x, b_.getFalse()});
  if (name == "ffs") {
    llvm::Value* trailing = intrinsic(llvm::Intrinsic::cttz, {x->getType()}, {x, b_.getTrue()});
    llvm::Value* one_based = b_.CreateZExtOrTrunc(
        b_.CreateAdd(trailing, llvm::ConstantInt::get(x->getType(), 1)), b_.getInt32Ty());
    llvm::Value* zero = b_.CreateICmpEQ(x, llvm::ConstantInt::get(x->getType(), 0));
    return b_.CreateSelect(zero, b_.getInt32(0), one_based);
  }
  if (name == "selp") {
    llvm::Value* a = cast(args[1].v, args[1].type, result);
    llvm::Value* b = cast(args[2].v, args[2].type, result);
    return b_.CreateSelect(to_bool(x, args[0].type), a, b);
  }
  std::vector<llvm::Value*> xs;
  for (const Value& a : args) xs.push_back(cast(a.v, a.type, result));
  if (name == "fma") return intrinsic(llvm::Intrinsic::fma, {xs[0]->getType()}, xs);
  return call_math("cbrt", result.scalar(), xs);
}

// cuda.reinterpret.<type> (the bits, unchanged) and the Bessel functions of
// cuda.libm (libdevice's __nv_j0 ... on the GPU, libm's j0 ... on the host).
llvm::Value* FunctionLowering::call_libdevice_support(const Node& n, std::string_view name) {
  const Type& result = type_of(n);
  std::vector<Value> args;
  for (const auto& c : n.children) args.push_back({expr(*c), type_of(*c)});
  if (name.starts_with("reinterpret.")) return b_.CreateBitCast(args[0].v, m_.value_type(result));
  if (name == "like.real") return cast(args[1].v, args[1].type, result);
  if (name == "like.complex") {
    Type part = Type::scalar(complex_part(result.scalar()));
    return make_complex(cast(args[1].v, args[1].type, part), cast(args[2].v, args[2].type, part),
                        result.scalar());
  }
  const std::string function(name.substr(5));
  const Scalar f = result.scalar();
  if (function == "jn" || function == "yn") {
    llvm::Value* order = cast(args[0].v, args[0].type, Type::scalar(Scalar::Int32));
    llvm::Value* x = cast(args[1].v, args[1].type, result);
    llvm::Type* t = x->getType();
    auto callee =
        m_.module.getOrInsertFunction(m_.hooks.math_symbol(function, f == Scalar::Float32),
                                      llvm::FunctionType::get(t, {b_.getInt32Ty(), t}, false));
    return b_.CreateCall(callee, {order, x});
  }
  return call_math(function, f, {cast(args[0].v, args[0].type, result)});
}

// Round half to even, as Python's round(); with ndigits, Numba's algorithm:
// scale by 10**ndigits, round, scale back.
llvm::Value* FunctionLowering::round(llvm::Value* x, Scalar s, llvm::Value* ndigits) {
  llvm::Type* t = x->getType();
  if (!ndigits) return intrinsic(llvm::Intrinsic::rint, {t}, {x});
  llvm::Value* negative = b_.CreateICmpSLT(ndigits, int64(0));
  llvm::Value* digits = b_.CreateSelect(negative, b_.CreateNeg(ndigits), ndigits);
  llvm::Value* scale = call_math("pow", s, {float_const(s, 10.0), b_.CreateSIToFP(digits, t)});
  llvm::Value* up =
      b_.CreateFDiv(intrinsic(llvm::Intrinsic::rint, {t}, {b_.CreateFMul(x, scale)}), scale);
  llvm::Value* down =
      b_.CreateFMul(intrinsic(llvm::Intrinsic::rint, {t}, {b_.CreateFDiv(x, scale)}), scale);
  llvm::Value* rounded = b_.CreateSelect(negative, down, up);
  // Scaling overflowed (huge ndigits or x): x is already exact at that precision.
  llvm::Value* finite = b_.CreateFCmpOLT(intrinsic(llvm::Intrinsic::fabs, {t}, {rounded}),
                                         llvm::ConstantFP::getInfinity(t));
  return b_.CreateSelect(finite, rounded, x);
}

llvm::Value* FunctionLowering::min_max(const Node& n, bool is_min, std::vector<Value> args) {
  const Type& result = type_of(n);
  if (args.size() == 1) {  // min(tuple)
    Value tuple = args[0];
    args.clear();
    for (unsigned i = 0; i < tuple.type.elements().size(); ++i)
      args.push_back({extract(tuple.v, {i}), tuple.type.elements()[i]});
  }
  // Python keeps the first of equal values, and a NaN met first.
  llvm::Value* best = cast(args[0].v, args[0].type, result);
  for (size_t i = 1; i < args.size(); ++i) {
    llvm::Value* v = cast(args[i].v, args[i].type, result);
    llvm::Value* better = compare(is_min ? "<" : ">", v, result, best, result);
    best = b_.CreateSelect(better, v, best);
  }
  return best;
}

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

// frexp, modf and ldexp: a float and an int, in or out. float16 computes in float32.
llvm::Value* FunctionLowering::call_math_pair(const Node& n, std::string_view name,
                                              std::vector<Value> args) {
  const Type& result = type_of(n);
  Scalar f = result.is_tuple() ? result.elements()[0].scalar() : result.scalar();
  Scalar wide = f == Scalar::Float16 ? Scalar::Float32 : f;
  llvm::Type* ft = m_.scalar_type(wide);
  llvm::Value* x = cast(args[0].v, args[0].type, Type::scalar(wide));
  auto narrow = [&](llvm::Value* v) { return f == wide ? v : b_.CreateFPTrunc(v, b_.getHalfTy()); };
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

llvm::Value* FunctionLowering::call_cuda_builtin(const Node& n, std::string_view name) {
  if (name == "ufunc.item") return ufunc_item(n);
  if (name.starts_with("vector.")) {  // a vector: its components, smaller vectors' spread out
    const Type& result = type_of(n);
    const Type& component = result.elements()[0];
    llvm::Value* vector = llvm::UndefValue::get(m_.value_type(result));
    unsigned next = 0;
    for (const auto& c : n.children) {
      const Type& t = type_of(*c);
      llvm::Value* v = expr(*c);
      if (!t.is_tuple()) {
        vector = b_.CreateInsertValue(vector, cast(v, t, component), {next++});
        continue;
      }
      for (unsigned k = 0; k < t.elements().size(); ++k)
        vector = b_.CreateInsertValue(vector, cast(extract(v, {k}), t.elements()[k], component),
                                      {next++});
    }
    return vector;
  }
  if (name == "ufunc.size") {
    llvm::Value* out = expr(n.child(0));
    llvm::Value* size = int64(1);
    for (unsigned d = 0; d < static_cast<unsigned>(type_of(n.child(0)).ndim()); ++d)
      size = b_.CreateMul(size, extract(out, {1, d}));
    return size;
  }
  if (name == "ufunc.store") {
    ufunc_store(n);
    return nullptr;
  }
  if (name == "popc" || name == "brev" || name == "clz" || name == "ffs" || name == "fma" ||
      name == "cbrt" || name == "selp")
    return call_bit_math(n, name);
  if (name.starts_with("reinterpret.") || name.starts_with("libm.") || name.starts_with("like."))
    return call_libdevice_support(n, name);
  if (name.starts_with("shared.array.")) return shared_array(n);
  if (name.starts_with("local.array.")) return local_array(n);
  if (name.starts_with("const.array.")) return const_array(n);
  if (name.starts_with("captured.array.")) return captured_array(n);
  if (name.starts_with("atomic.")) return call_atomic(n, name.substr(7));
  if (name.starts_with("sync") || name.starts_with("threadfence") || name == "cg.grid_sync")
    return call_sync_builtin(n, name);
  if (name.ends_with("_sync") || name == "activemask" || name == "lanemask_lt")
    return call_warp_builtin(n, name);
  auto reg = [&](const std::string& r) { return m_.hooks.special_register(b_, r, thread_ctx_); };
  if (name != "grid" && name != "gridsize") return reg(std::string(name));
  int ndim = static_cast<int>(f_.constants.at(&n));
  std::vector<llvm::Value*> values;
  for (int d = 0; d < ndim; ++d) {
    std::string axis(1, static_cast<char>('x' + d));
    llvm::Value* v;
    if (name == "grid") {
      // blockIdx * blockDim + threadIdx, in 64 bits so large grids do not wrap.
      v = b_.CreateAdd(b_.CreateMul(b_.CreateZExt(reg("blockIdx." + axis), b_.getInt64Ty()),
                                    b_.CreateZExt(reg("blockDim." + axis), b_.getInt64Ty())),
                       b_.CreateZExt(reg("threadIdx." + axis), b_.getInt64Ty()));
    } else {
      v = b_.CreateMul(b_.CreateZExt(reg("blockDim." + axis), b_.getInt64Ty()),
                       b_.CreateZExt(reg("gridDim." + axis), b_.getInt64Ty()));
    }
    values.push_back(v);
  }
  if (ndim == 1) return values[0];
  llvm::Value* t = llvm::UndefValue::get(m_.value_type(type_of(n)));
  for (unsigned i = 0; i < values.size(); ++i) t = b_.CreateInsertValue(t, values[i], {i});
  return t;
}

}  // namespace cudajit::lower
