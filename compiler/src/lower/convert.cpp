// Conversions between the kernel language's types, truth values, constants.
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Intrinsics.h>

#include <cmath>

#include "lowering.hpp"

namespace cudajit::lower {

namespace {

// CUDA's fp8 formats (cuda_fp8.hpp's software conversions, which the cpu device and the
// simulated GPU share bit for bit). A value converts to fp8 from float64 (every source
// converts to it exactly but 64-bit integers, which round before the fp8 rounding that
// decides only near saturation), and from fp8 to float32, which holds every fp8 value.

llvm::Value* i64c(llvm::IRBuilder<>& b, uint64_t v) { return b.getInt64(v); }

llvm::Value* f64c(llvm::IRBuilder<>& b, double v) {
  return llvm::ConstantFP::get(b.getDoubleTy(), v);
}

// The double `d` to E4M3 (mantissa 3 bits, bias 7) or E5M2 (2 bits, bias 15), rounded to
// nearest even, as __nv_cvt_double_to_fp8: an overflow (beyond the largest finite value
// and half its step, infinities included) gives the largest finite value when
// `saturate`, else NaN (E4M3, 0x7F) or infinity (E5M2, 0x7C); NaN gives 0x7F (E4M3) or
// 0x7E with the top two mantissa bits of d's (E5M2); the sign is kept throughout.
llvm::Value* encode_fp8(llvm::IRBuilder<>& b, llvm::Value* d, bool e4m3, bool saturate) {
  llvm::IRBuilder<>::FastMathFlagGuard guard(b);
  b.clearFastMathFlags();  // (a + c) - c rounds: never folded away
  const int mantissa_bits = e4m3 ? 3 : 2;
  const double min_normal = e4m3 ? 0x1p-6 : 0x1p-14;
  llvm::Value* bits = b.CreateBitCast(d, b.getInt64Ty());
  llvm::Value* sign = b.CreateTrunc(b.CreateShl(b.CreateLShr(bits, 63), 7), b.getInt8Ty());
  llvm::Value* abs_bits = b.CreateAnd(bits, i64c(b, 0x7FFF'FFFF'FFFF'FFFFULL));
  llvm::Value* a = b.CreateBitCast(abs_bits, b.getDoubleTy());
  // Round a to a multiple of its binade's fp8 step (the subnormals' below min_normal) by
  // adding and taking away a number whose ulp is that step.
  llvm::Value* binade = b.CreateBitCast(b.CreateAnd(bits, i64c(b, 0x7FF0'0000'0000'0000ULL)),
                                        b.getDoubleTy());
  llvm::Value* is_small = b.CreateFCmpOLT(binade, f64c(b, min_normal));
  binade = b.CreateSelect(is_small, f64c(b, min_normal), binade);
  llvm::Value* c = b.CreateFMul(binade, f64c(b, std::ldexp(1.0, 52 - mantissa_bits)));
  llvm::Value* q = b.CreateFSub(b.CreateFAdd(a, c), c);
  // Normal: the double's exponent and top mantissa bits, rebiased; subnormal: q / step.
  const unsigned shift = 52 - mantissa_bits;
  const uint64_t rebias = uint64_t(1023 - (e4m3 ? 7 : 15)) << mantissa_bits;
  llvm::Value* normal =
      b.CreateSub(b.CreateLShr(b.CreateBitCast(q, b.getInt64Ty()), shift), i64c(b, rebias));
  llvm::Value* subnormal = b.CreateFPToUI(
      b.CreateFMul(q, f64c(b, std::ldexp(1.0, (e4m3 ? 6 : 14) + mantissa_bits))),
      b.getInt64Ty());
  llvm::Value* q_small = b.CreateFCmpOLT(q, f64c(b, min_normal));
  llvm::Value* r = b.CreateTrunc(b.CreateSelect(q_small, subnormal, normal), b.getInt8Ty());
  llvm::Value* overflow = e4m3 ? b.CreateFCmpOGT(a, f64c(b, 464.0))
                               : b.CreateFCmpOGE(a, f64c(b, 61440.0));
  llvm::Value* over = b.getInt8(saturate ? (e4m3 ? 0x7E : 0x7B) : (e4m3 ? 0x7F : 0x7C));
  r = b.CreateSelect(overflow, over, r);
  llvm::Value* nan = b.getInt8(0x7F);
  if (!e4m3)
    nan = b.CreateOr(b.getInt8(0x7E),
                     b.CreateTrunc(b.CreateAnd(b.CreateLShr(bits, 50), i64c(b, 3)),
                                   b.getInt8Ty()));
  r = b.CreateSelect(b.CreateFCmpUNO(d, d), nan, r);
  return b.CreateOr(r, sign);
}

// The double `d` to E8M0 (2**(k - 127), k of 0 to 254; 0xFF NaN) rounded up to a power of
// two, as CUDA's constructors (__NV_SATFINITE, cudaRoundPosInf): the sign is dropped,
// values up to 2**-127 (zero too) give 0, above 2**127 (infinity too) 0xFE.
llvm::Value* encode_e8m0(llvm::IRBuilder<>& b, llvm::Value* d) {
  llvm::Value* bits = b.CreateBitCast(d, b.getInt64Ty());
  llvm::Value* exponent = b.CreateAnd(b.CreateLShr(bits, 52), i64c(b, 0x7FF));
  llvm::Value* mantissa = b.CreateAnd(bits, i64c(b, 0x000F'FFFF'FFFF'FFFFULL));
  // ceil(log2 |d|) + 127, for |d| a normal double
  llvm::Value* k = b.CreateAdd(b.CreateSub(exponent, i64c(b, 1023 - 127)),
                               b.CreateZExt(b.CreateICmpNE(mantissa, i64c(b, 0)),
                                            b.getInt64Ty()));
  llvm::Value* a = b.CreateBitCast(b.CreateAnd(bits, i64c(b, 0x7FFF'FFFF'FFFF'FFFFULL)),
                                   b.getDoubleTy());
  llvm::Value* r = b.CreateSelect(b.CreateFCmpOLE(a, f64c(b, 0x1p-127)), i64c(b, 0), k);
  r = b.CreateSelect(b.CreateFCmpOGT(a, f64c(b, 0x1p127)), i64c(b, 0xFE), r);
  r = b.CreateTrunc(r, b.getInt8Ty());
  return b.CreateSelect(b.CreateFCmpUNO(d, d), b.getInt8(0xFF), r);
}

// sm_90 and later: the float32 `f` to E4M3 or E5M2 with one cvt.rn.satfinite.{e4m3x2,
// e5m2x2}.f32 (the pair's other value 0; sm_89 has it from PTX ISA 8.1 only, and cudajit
// writes 7.8 there, so sm_89 converts in software), the same rounding and saturation as
// encode_fp8's; NaN, which the instruction makes the canonical 0x7F, gets encode_fp8's byte
// (sign and, for E5M2, payload kept), so every device gives the same bits.
llvm::Value* cvt_fp8_ptx(llvm::IRBuilder<>& b, llvm::Value* f, bool e4m3) {
  llvm::Type* f32 = b.getFloatTy();
  auto* type = llvm::FunctionType::get(b.getInt16Ty(), {f32, f32}, false);
  auto* cvt = llvm::InlineAsm::get(
      type,
      e4m3 ? "cvt.rn.satfinite.e4m3x2.f32 $0, $2, $1;" : "cvt.rn.satfinite.e5m2x2.f32 $0, $2, $1;",
      "=h,f,f", /*hasSideEffects=*/false);
  llvm::Value* pair = b.CreateCall(cvt, {f, llvm::ConstantFP::get(f32, 0.0)});
  llvm::Value* r = b.CreateTrunc(pair, b.getInt8Ty());
  llvm::Value* bits = b.CreateZExt(b.CreateBitCast(f, b.getInt32Ty()), b.getInt64Ty());
  llvm::Value* sign = b.CreateTrunc(b.CreateShl(b.CreateLShr(bits, 31), 7), b.getInt8Ty());
  llvm::Value* nan = b.getInt8(0x7F);
  if (!e4m3)  // float32's mantissa bits 22 and 21 are float64's 51 and 50
    nan = b.CreateOr(b.getInt8(0x7E), b.CreateTrunc(b.CreateAnd(b.CreateLShr(bits, 21),
                                                                 i64c(b, 3)),
                                                     b.getInt8Ty()));
  return b.CreateSelect(b.CreateFCmpUNO(f, f), b.CreateOr(nan, sign), r);
}

// Whether every value of `s` is a float32 (so that float32 conversions round once).
bool exact_in_float32(Scalar s) {
  return s == Scalar::Bool || (is_float(s) && bit_width(s) <= 32) ||
         (is_integer(s) && bit_width(s) <= 16);
}

// An fp8 byte's value as float32 (exact).
llvm::Value* decode_fp8(llvm::IRBuilder<>& b, llvm::Value* byte, Scalar format) {
  llvm::Type* f32 = b.getFloatTy();
  llvm::Value* u = b.CreateZExt(byte, b.getInt32Ty());
  auto as_float = [&](llvm::Value* v) { return b.CreateBitCast(v, f32); };
  auto f32c = [&](double v) { return llvm::ConstantFP::get(f32, v); };
  if (format == Scalar::Fp8E8M0) {
    llvm::Value* v = b.CreateSelect(b.CreateICmpEQ(u, b.getInt32(0)), b.getInt32(0x0040'0000),
                                    b.CreateShl(u, 23));
    return b.CreateSelect(b.CreateICmpEQ(u, b.getInt32(0xFF)), f32c(NAN), as_float(v));
  }
  const bool e4m3 = format == Scalar::Fp8E4M3;
  const int mantissa_bits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  llvm::Value* mag = b.CreateAnd(u, b.getInt32(0x7F));
  llvm::Value* normal =
      as_float(b.CreateAdd(b.CreateShl(mag, 23 - mantissa_bits), b.getInt32((127 - bias) << 23)));
  llvm::Value* subnormal =
      b.CreateFMul(b.CreateUIToFP(mag, f32), f32c(std::ldexp(1.0, 1 - bias - mantissa_bits)));
  llvm::Value* v = b.CreateSelect(b.CreateICmpULT(mag, b.getInt32(1 << mantissa_bits)),
                                  subnormal, normal);
  if (e4m3) {
    v = b.CreateSelect(b.CreateICmpEQ(mag, b.getInt32(0x7F)), f32c(NAN), v);
  } else {
    v = b.CreateSelect(b.CreateICmpEQ(mag, b.getInt32(0x7C)), f32c(INFINITY), v);
    v = b.CreateSelect(b.CreateICmpUGT(mag, b.getInt32(0x7C)), f32c(NAN), v);
  }
  return b.CreateSelect(b.CreateICmpUGE(u, b.getInt32(0x80)), b.CreateFNeg(v), v);
}

}  // namespace

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
  if (is_fp8(s)) return to_bool(decode_fp8(b_, v, s), Type::scalar(Scalar::Float32));
  if (is_integer(s) || is_npdatetime(s))
    return b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
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
  if (is_npdatetime(s) || is_npdatetime(t)) return datetime_cast(v, s, t);
  if (is_fp8(s))  // through its value in float32
    return cast(decode_fp8(b_, v, s), Type::scalar(Scalar::Float32), to);
  if (is_fp8(t)) {
    if (t != Scalar::Fp8E8M0 && !m_.hooks.has_thread_ctx() && m_.options.cc >= 90 &&
        exact_in_float32(s))
      return cvt_fp8_ptx(b_, cast(v, from, Type::scalar(Scalar::Float32)), t == Scalar::Fp8E4M3);
    llvm::Value* d = cast(v, from, Type::scalar(Scalar::Float64));
    return t == Scalar::Fp8E8M0 ? encode_e8m0(b_, d)
                                : encode_fp8(b_, d, t == Scalar::Fp8E4M3, /*saturate=*/true);
  }
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

// datetime64/timedelta64 (int64 counts, INT64_MIN NaT): to a finer unit multiplied, NaT kept;
// from and to numbers as their count (int64(td), the typing decides which are allowed).
llvm::Value* FunctionLowering::datetime_cast(llvm::Value* v, Scalar s, Scalar t) {
  llvm::Type* i64 = b_.getInt64Ty();
  if (is_npdatetime(s) && is_npdatetime(t)) {
    auto factor = datetime_unit_factor(datetime_unit(s), datetime_unit(t));
    if (!factor || *factor == 1) return v;
    llvm::Value* nat = b_.CreateICmpEQ(v, b_.getInt64(INT64_MIN));
    return b_.CreateSelect(nat, v, b_.CreateMul(v, b_.getInt64(*factor)));
  }
  if (is_npdatetime(t)) {
    if (is_float(s)) return intrinsic(llvm::Intrinsic::fptosi_sat, {i64, v->getType()}, {v});
    if (s == Scalar::Bool) return b_.CreateZExt(v, i64);
    if (is_integer(s)) return b_.CreateIntCast(v, i64, is_signed(s));
    throw LlvmError("internal: cannot convert " + std::string(scalar_name(s)) + " to " +
                    std::string(scalar_name(t)));
  }
  return cast(v, Type::scalar(Scalar::Int64), Type::scalar(t));
}

}  // namespace cudajit::lower
