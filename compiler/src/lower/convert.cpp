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
  if (float_type == Scalar::Float16) {
    // No half-precision math library: compute in float32 and round once, as
    // numba-cuda's float16 math functions do.
    for (llvm::Value*& a : args) a = b_.CreateFPExt(a, b_.getFloatTy());
    return b_.CreateFPTrunc(call_math(name, Scalar::Float32, std::move(args)), b_.getHalfTy());
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

// bfloat16 is the top half of a float32: widening is a shift; narrowing
// rounds to nearest even in integer arithmetic and keeps NaNs quiet, the same
// on every target and LLVM version (no backend bfloat16 support needed).
llvm::Value* FunctionLowering::bfloat16_to_float(llvm::Value* bits) {
  llvm::Value* wide = b_.CreateShl(b_.CreateZExt(bits, b_.getInt32Ty()), 16);
  return b_.CreateBitCast(wide, b_.getFloatTy());
}

llvm::Value* FunctionLowering::float_to_bfloat16(llvm::Value* v) {
  llvm::Value* bits = b_.CreateBitCast(v, b_.getInt32Ty());
  llvm::Value* upper = b_.CreateLShr(bits, 16);
  llvm::Value* bias = b_.CreateAdd(b_.getInt32(0x7FFF), b_.CreateAnd(upper, b_.getInt32(1)));
  llvm::Value* rounded = b_.CreateLShr(b_.CreateAdd(bits, bias), 16);
  llvm::Value* quiet_nan = b_.CreateOr(upper, b_.getInt32(0x40));
  llvm::Value* result = b_.CreateSelect(b_.CreateFCmpUNO(v, v), quiet_nan, rounded);
  return b_.CreateTrunc(result, b_.getInt16Ty());
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
  if (is_integer(s) && is_float(t))
    return is_signed(s) ? b_.CreateSIToFP(v, target) : b_.CreateUIToFP(v, target);
  if (is_float(s) && is_integer(t)) {
    // Saturating: NaN -> 0 and out-of-range values clamp, instead of poison.
    auto id = is_signed(t) ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
    return intrinsic(id, {target, v->getType()}, {v});
  }
  return b_.CreateFPCast(v, target);  // float <-> float
}

}  // namespace cudajit::lower
