// Conversions between the kernel language's types, truth values, constants.
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Intrinsics.h>

#include "lowering.hpp"

namespace cudajit::lower {

llvm::Value* FunctionLowering::float_const(Scalar s, double v) {
  return llvm::ConstantFP::get(m_.scalar_type(s), v);
}

llvm::Value* FunctionLowering::zero_value(const Type& t) {
  return llvm::Constant::getNullValue(m_.value_type(t));
}

llvm::Value* FunctionLowering::intrinsic(llvm::Intrinsic::ID id, std::vector<llvm::Type*> types,
                                         std::vector<llvm::Value*> args) {
  return b_.CreateIntrinsic(id, types, args);
}

llvm::Value* FunctionLowering::extract(llvm::Value* aggregate, llvm::ArrayRef<unsigned> indices) {
  if (llvm::Value* inserted = llvm::FindInsertedValue(aggregate, indices)) return inserted;
  return b_.CreateExtractValue(aggregate, indices);
}

llvm::Value* FunctionLowering::call_math(std::string_view name, Scalar float_type,
                                         std::vector<llvm::Value*> args) {
  if (float_type == Scalar::Float16 || float_type == Scalar::BFloat16) {
    // No half-precision math library: compute in float32 and round once, as
    // numba-cuda's float16 and bfloat16 math functions do.
    for (llvm::Value*& a : args) a = b_.CreateFPExt(a, b_.getFloatTy());
    return b_.CreateFPTrunc(call_math(name, Scalar::Float32, std::move(args)),
                            m_.scalar_type(float_type));
  }
  if (m_.options.fastmath && float_type == Scalar::Float32) {
    if (llvm::Value* v = m_.hooks.fast_math_instruction(b_, name, args, m_.options.cc)) return v;
  }
  auto callee = m_.math_function(name, float_type, static_cast<int>(args.size()));
  return b_.CreateCall(callee, args);
}

llvm::Value* FunctionLowering::make_complex(llvm::Value* re, llvm::Value* im, Scalar s) {
  llvm::Value* c = llvm::UndefValue::get(m_.scalar_type(s));
  c = b_.CreateInsertValue(c, re, {0});
  return b_.CreateInsertValue(c, im, {1});
}

llvm::Value* FunctionLowering::to_bool(llvm::Value* v, const Type& t) {
  Scalar s = t.scalar();
  if (s == Scalar::Bool) return v;
  if (is_integer(s)) return b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  if (is_float(s)) return b_.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0));
  llvm::Value* zero = float_const(complex_part(s), 0.0);
  return b_.CreateOr(b_.CreateFCmpUNE(re(v), zero), b_.CreateFCmpUNE(im(v), zero));
}

llvm::Value* FunctionLowering::cast(llvm::Value* v, const Type& from, const Type& to) {
  if (from == to) return v;
  if (to.is_optional()) {  // {number, present}: None (v unused), a number, another optional
    const Type& value = to.optional_value();
    llvm::Value* number = llvm::Constant::getNullValue(m_.value_type(value));
    llvm::Value* present = b_.getFalse();
    if (from.is_optional()) {
      number = cast(extract(v, {0}), from.optional_value(), value);
      present = extract(v, {1});
    } else if (!from.is_none()) {
      number = cast(v, from, value);
      present = b_.getTrue();
    }
    llvm::Value* out = llvm::UndefValue::get(m_.value_type(to));
    out = b_.CreateInsertValue(out, number, {0});
    return b_.CreateInsertValue(out, present, {1});
  }
  if (from.is_optional()) return cast(extract(v, {0}), from.optional_value(), to);
  if (from.is_array() && to.is_array()) return v;    // layout or readonly widened: same struct
  if (from.is_record() && to.is_record()) return v;  // readonly widened: the same address
  if (from.is_tuple() && to.is_tuple()) {
    llvm::Value* out = llvm::UndefValue::get(m_.value_type(to));
    for (unsigned i = 0; i < to.elements().size(); ++i) {
      llvm::Value* e = extract(v, {i});
      out = b_.CreateInsertValue(out, cast(e, from.elements()[i], to.elements()[i]), {i});
    }
    return out;
  }
  if (!from.is_scalar() || !to.is_scalar())
    throw LlvmError("internal: cannot convert " + from.str() + " to " + to.str());
  Scalar s = from.scalar(), t = to.scalar();
  llvm::Type* target = m_.scalar_type(t);
  if (t == Scalar::Bool) return to_bool(v, from);
  if (is_complex(t)) {
    Scalar part = complex_part(t);
    if (is_complex(s))
      return make_complex(cast(re(v), Type::scalar(complex_part(s)), Type::scalar(part)),
                          cast(im(v), Type::scalar(complex_part(s)), Type::scalar(part)), t);
    return make_complex(cast(v, from, Type::scalar(part)), float_const(part, 0.0), t);
  }
  if (is_complex(s)) return cast(re(v), Type::scalar(complex_part(s)), to);  // callers checked
  if (s == Scalar::Bool) {
    return is_float(t) ? b_.CreateUIToFP(v, target) : b_.CreateZExt(v, target);
  }
  if (is_integer(s) && is_integer(t)) return b_.CreateIntCast(v, target, is_signed(s));
  if (is_integer(s) && t == Scalar::BFloat16 && bit_width(s) <= 32) {
    // Exactly to float64, then rounded once: LLVM's route through float32 rounds twice.
    return b_.CreateFPTrunc(cast(v, from, Type::scalar(Scalar::Float64)), target);
  }
  if (is_integer(s) && is_float(t))
    return is_signed(s) ? b_.CreateSIToFP(v, target) : b_.CreateUIToFP(v, target);
  if (is_float(s) && is_integer(t)) {
    // Saturating: NaN -> 0 and out-of-range values clamp, instead of poison.
    auto id = is_signed(t) ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
    return intrinsic(id, {target, v->getType()}, {v});
  }
  if (bit_width(s) == 16 && bit_width(t) == 16)  // float16 <-> bfloat16: exactly via float32
    return b_.CreateFPTrunc(b_.CreateFPExt(v, b_.getFloatTy()), target);
  return b_.CreateFPCast(v, target);  // float <-> float
}

}  // namespace cudajit::lower
