// Floating-point arithmetic on f32 and f64: add/sub/mul/fma/mad/div with PTX's
// rounding (.rn .rz .rm .rp: the host's rounding mode is set around the lane
// loop), .ftz and .sat; rcp, sqrt, rsqrt and the approximate ex2, lg2, sin,
// cos, tanh (correctly rounded host values are within the manual's error
// bounds; its special cases are kept); abs, neg, min, max, testp, copysign.
// This file is compiled with -frounding-math so no operation crosses fesetround.
#include <cfenv>
#include <cmath>
#include <limits>

#include "../decode_context.hpp"
#include "../warp.hpp"
#include "float_bits.hpp"

namespace cudajit::sim {

namespace {

constexpr uint8_t kFtz = 0x10, kSat = 0x20, kNaN = 0x40, kRelu = 0x08;
// fma's contracted forms (exec/contraction.cpp): -(a*b) + c and a*b - c.
constexpr uint8_t kNegProduct = 0x01, kNegAddend = 0x02;

// Sets the host's rounding mode for one instruction's lanes.
class RoundingScope {
 public:
  explicit RoundingScope(Rounding r) {
    if (r == kNearest) return;
    saved_ = std::fegetround();
    std::fesetround(r == kZero ? FE_TOWARDZERO : r == kDown ? FE_DOWNWARD : FE_UPWARD);
  }
  ~RoundingScope() {
    if (saved_ >= 0) std::fesetround(saved_);
  }
  RoundingScope(const RoundingScope&) = delete;
  RoundingScope& operator=(const RoundingScope&) = delete;

 private:
  int saved_ = -1;
};

template <class T>
inline T flushed(T v, uint8_t flags) {
  return (flags & kFtz) ? flush_subnormal(v) : v;
}

template <class T>
inline T saturated(T v, uint8_t flags) {
  if (!(flags & kSat)) return v;
  if (std::isnan(v)) return T(0);
  return v < T(0) ? T(0) : v > T(1) ? T(1) : v;
}

// ---- add, sub, mul, fma, div (IEEE, with a rounding mode)

enum Arith : uint8_t { kAdd, kSub, kMul, kDiv, kFma };

template <class T, uint8_t op>
void run_arith(Warp& warp, const Inst& inst, uint32_t mask) {
  uint64_t* d = warp.reg(inst.op[0]);
  const uint64_t* a = warp.reg(inst.op[1]);
  const uint64_t* b = warp.reg(inst.op[2]);
  const uint64_t* c = op == kFma ? warp.reg(inst.op[3]) : nullptr;
  const uint8_t flags = inst.aux;
  RoundingScope scope(Rounding(inst.count));
  for_lanes(mask, [&](int lane) {
    T x = flushed(get<T>(a, lane), flags), y = flushed(get<T>(b, lane), flags), r;
    if constexpr (op == kAdd)
      r = x + y;
    else if constexpr (op == kSub)
      r = x - y;
    else if constexpr (op == kMul)
      r = x * y;
    else if constexpr (op == kDiv)
      r = x / y;
    else {
      T z = flushed(get<T>(c, lane), flags);
      r = std::fma((flags & kNegProduct) ? -x : x, y, (flags & kNegAddend) ? -z : z);
    }
    put<T>(d, lane, saturated(flushed(r, flags), flags));
  });
}

// Modifiers shared by the arithmetic decoders: rounding (in inst.count), ftz, sat.
// `requires_rounding`: fma and the IEEE divide must name one.
void arith_modifiers(DecodeContext& c, Inst& inst, bool requires_rounding,
                     std::initializer_list<const char*> extra = {}) {
  bool named = false;
  uint8_t flags = 0;
  Rounding r = kNearest;
  for (const auto& m : c.instruction().modifiers) {
    if (ptx::type_size(m) != 0) continue;
    if (m == "rn")
      r = kNearest, named = true;
    else if (m == "rz")
      r = kZero, named = true;
    else if (m == "rm")
      r = kDown, named = true;
    else if (m == "rp")
      r = kUp, named = true;
    else if (m == "ftz")
      flags |= kFtz;
    else if (m == "sat")
      flags |= kSat;
    else if (m == "NaN")
      flags |= kNaN;
    else if (m == "negproduct" && c.instruction().opcode == "fma")
      flags |= kNegProduct;
    else if (m == "negaddend" && c.instruction().opcode == "fma")
      flags |= kNegAddend;
    else {
      bool known = false;
      for (const char* e : extra) known = known || m == e;
      if (!known) c.unsupported();
    }
  }
  if (requires_rounding && !named) c.error("needs a rounding modifier (.rn, .rz, .rm, .rp)");
  inst.count = r;
  inst.aux = flags;
}

std::string float_type(DecodeContext& c) {
  std::string type = c.type();
  if (type != "f32" && type != "f64") c.unsupported();  // f16/bf16 arithmetic: not yet
  if (type == "f64" && (c.has("ftz") || c.has("sat"))) c.error(".ftz and .sat apply to .f32");
  return type;
}

// d, a{, b{, c}}: the destination register and `count - 1` sources of `type`.
void operands(DecodeContext& c, Inst& inst, size_t count, const std::string& type) {
  if (c.operand_count() != count) c.error("expects " + std::to_string(count) + " operands");
  inst.op[0] = c.reg(c.operand(0));
  for (size_t i = 1; i < count; ++i) inst.op[i] = c.value(c.operand(i), type);
}

// ---- half and bfloat16 arithmetic (.f16, .f16x2, .bf16, .bf16x2): exact in long double,
// then rounded once to the format (.rn is the only rounding these take)

template <bool brain>
inline long double widen16(uint16_t bits) {
  if constexpr (brain)
    return bfloat_to_float(BFloat{bits});
  else
    return half_to_float(Half{bits});
}

template <bool brain>
inline uint16_t narrow16(long double x, uint8_t flags) {
  if (flags & kSat) x = std::isnan(x) ? 0.0L : std::fmin(std::fmax(x, 0.0L), 1.0L);
  // .relu: a negative result is 0; a NaN stays NaN (the canonical one, as narrowing makes it).
  if ((flags & kRelu) && x < 0) x = 0.0L;
  uint16_t bits = brain ? round_to_bfloat(x, kNearest).bits : round_to_half(x, kNearest).bits;
  return !brain && (flags & kFtz) ? flush_half(bits) : bits;
}

template <bool brain, uint8_t op, int halves>
void run_arith16(Warp& warp, const Inst& inst, uint32_t mask) {
  uint64_t* d = warp.reg(inst.op[0]);
  const uint64_t* a = warp.reg(inst.op[1]);
  const uint64_t* b = warp.reg(inst.op[2]);
  const uint64_t* c = op == kFma ? warp.reg(inst.op[3]) : nullptr;
  const uint8_t flags = inst.aux;
  auto input = [&](const uint64_t* slot, int lane, int half) {
    uint16_t bits = uint16_t(slot[lane] >> (16 * half));
    if (!brain && (flags & kFtz)) bits = flush_half(bits);
    return widen16<brain>(bits);
  };
  for_lanes(mask, [&](int lane) {
    uint64_t result = 0;
    for (int half = 0; half < halves; ++half) {
      long double x = input(a, lane, half), y = input(b, lane, half), r;
      if constexpr (op == kAdd)
        r = x + y;
      else if constexpr (op == kSub)
        r = x - y;
      else if constexpr (op == kMul)
        r = x * y;
      else
        r = std::fma(x, y, input(c, lane, half));
      result |= uint64_t(narrow16<brain>(r, flags)) << (16 * half);
    }
    d[lane] = result;
  });
}

template <uint8_t op>
Handler arith16_for(const std::string& type) {
  if (type == "f16") return run_arith16<false, op, 1>;
  if (type == "f16x2") return run_arith16<false, op, 2>;
  if (type == "bf16") return run_arith16<true, op, 1>;
  if (type == "bf16x2") return run_arith16<true, op, 2>;
  return nullptr;
}

template <uint8_t op>
void decode_arith16(DecodeContext& c, Inst& inst, const std::string& type) {
  arith_modifiers(c, inst, false, {"relu"});
  if (inst.count != kNearest) c.error("half-precision arithmetic rounds to nearest only (.rn)");
  if (c.has("relu")) {  // fma.rn.relu (PTX ISA 7.0, sm_80): clamps a negative result to 0
    if (op != kFma || (inst.aux & kSat)) c.unsupported();
    c.require(80, 7, 0);
    inst.aux |= kRelu;
  }
  if (type[0] == 'b' && (inst.aux & (kFtz | kSat))) c.error(".ftz and .sat do not apply to bf16");
  operands(c, inst, op == kFma ? 4 : 3, type.size() > 4 ? "b32" : "b16");  // the packed bits
  inst.run = arith16_for<op>(type);
}

bool is_sixteen_bit_float(const std::string& type) {
  return type == "f16" || type == "f16x2" || type == "bf16" || type == "bf16x2";
}

template <uint8_t op>
void decode_arith(DecodeContext& c, Inst& inst) {
  if (std::string t = c.type(); is_sixteen_bit_float(t)) return decode_arith16<op>(c, inst, t);
  std::string type = float_type(c);
  arith_modifiers(c, inst, false);
  operands(c, inst, op == kFma ? 4 : 3, type);
  inst.run = type == "f32" ? run_arith<float, op> : run_arith<double, op>;
}

void decode_fma(DecodeContext& c, Inst& inst) {
  decode_arith<kFma>(c, inst);
  bool named = c.has("rn") || c.has("rz") || c.has("rm") || c.has("rp");
  // fma needs a rounding modifier; mad.f32 without one is fused too (sm_20 and later).
  if (!named && c.instruction().opcode == "fma") c.error("needs a rounding modifier");
  if (!named && c.types()[0] != "f32") c.error("mad needs a rounding modifier here");
}

// ---- division and the approximate functions

template <class T>
void run_div_approx(Warp& warp, const Inst& inst, uint32_t mask) {
  uint64_t* d = warp.reg(inst.op[0]);
  const uint64_t* a = warp.reg(inst.op[1]);
  const uint64_t* b = warp.reg(inst.op[2]);
  for_lanes(mask, [&](int lane) {
    // Always flushes subnormals; |b| in (2^126, 2^128): 0, or NaN for an infinite a.
    float x = flush_subnormal(get<float>(a, lane)), y = flush_subnormal(get<float>(b, lane));
    float r;
    float magnitude = std::fabs(y);
    if (magnitude > 0x1p126f && magnitude < std::numeric_limits<float>::infinity())
      r = std::isinf(x) ? std::numeric_limits<float>::quiet_NaN() : 0.0f * x * y;
    else
      r = x / y;
    put<float>(d, lane, flush_subnormal(r));
  });
}

void decode_div(DecodeContext& c, Inst& inst) {
  std::string type = float_type(c);
  operands(c, inst, 3, type);
  if (c.has("approx")) {
    if (type != "f32") c.unsupported();
    arith_modifiers(c, inst, false, {"approx"});
    inst.run = run_div_approx<float>;
  } else if (c.has("full")) {
    if (type != "f32") c.unsupported();
    arith_modifiers(c, inst, false, {"full"});
    inst.aux |= kFtz;  // within 2 ulp of the IEEE quotient; subnormals flushed (PTX ISA)
    inst.run = run_arith<float, kDiv>;
  } else {
    arith_modifiers(c, inst, true);
    inst.run = type == "f32" ? run_arith<float, kDiv> : run_arith<double, kDiv>;
  }
}

enum Unary : uint8_t { kRcp, kSqrt, kRsqrt, kEx2, kLg2, kSin, kCos, kTanh, kAbs, kNeg };

template <class T, uint8_t op>
void run_unary(Warp& warp, const Inst& inst, uint32_t mask) {
  uint64_t* d = warp.reg(inst.op[0]);
  const uint64_t* a = warp.reg(inst.op[1]);
  const uint8_t flags = inst.aux;
  RoundingScope scope(Rounding(inst.count));
  for_lanes(mask, [&](int lane) {
    T x = flushed(get<T>(a, lane), flags), r;
    if constexpr (op == kRcp)
      r = T(1) / x;
    else if constexpr (op == kSqrt)
      r = std::sqrt(x);
    else if constexpr (op == kRsqrt)
      r = T(1.0 / std::sqrt(double(x)));
    else if constexpr (op == kEx2)
      r = T(std::exp2(double(x)));
    else if constexpr (op == kLg2)
      r = T(std::log2(double(x)));
    else if constexpr (op == kSin)
      r = T(std::sin(double(x)));
    else if constexpr (op == kCos)
      r = T(std::cos(double(x)));
    else if constexpr (op == kTanh)
      r = T(std::tanh(double(x)));
    else if constexpr (op == kAbs)
      r = std::fabs(x);  // clears the sign, NaN too
    else
      r = -x;  // kNeg flips the sign bit
    put<T>(d, lane, flushed(r, flags));
  });
}

template <uint8_t op>
Handler unary_for(const std::string& type) {
  return type == "f32" ? run_unary<float, op> : run_unary<double, op>;
}

// rcp/sqrt: .approx (f32; f64 rcp only with .ftz) or a rounding modifier (IEEE).
template <uint8_t op>
void decode_rounded_unary(DecodeContext& c, Inst& inst) {
  std::string type = c.type();
  if (type != "f32" && type != "f64") c.unsupported();
  bool approx = c.has("approx");
  arith_modifiers(c, inst, !approx, {"approx"});
  if (approx && type == "f64" && !(op == kRcp && c.has("ftz"))) c.unsupported();
  if (type == "f64" && c.has("ftz") && !approx) c.error(".ftz applies to .f32");
  operands(c, inst, 2, type);
  inst.run = unary_for<op>(type);
}

// tanh.approx of halves and bfloat16 (and pairs): the correctly rounded value, within the
// manual's bound.
template <bool brain, int halves>
void run_tanh16(Warp& warp, const Inst& inst, uint32_t mask) {
  uint64_t* d = warp.reg(inst.op[0]);
  const uint64_t* a = warp.reg(inst.op[1]);
  for_lanes(mask, [&](int lane) {
    uint64_t result = 0;
    for (int half = 0; half < halves; ++half) {
      long double x = widen16<brain>(uint16_t(a[lane] >> (16 * half)));
      result |= uint64_t(narrow16<brain>(std::tanh(x), 0)) << (16 * half);
    }
    d[lane] = result;
  });
}

// tanh.approx.{f16,f16x2} (PTX ISA 7.0, sm_75) and .{bf16,bf16x2} (PTX ISA 7.8, sm_90).
void decode_tanh16(DecodeContext& c, Inst& inst, const std::string& type) {
  if (!c.has("approx")) c.error("needs .approx");
  for (const auto& m : c.instruction().modifiers)
    if (m != "approx" && m != type) c.unsupported();
  if (type[0] == 'b')
    c.require(90, 7, 8);
  else
    c.require(75, 7, 0);
  operands(c, inst, 2, type.size() > 4 ? "b32" : "b16");
  const bool pair = type.size() > 4;
  inst.run = type[0] == 'b' ? (pair ? run_tanh16<true, 2> : run_tanh16<true, 1>)
                            : (pair ? run_tanh16<false, 2> : run_tanh16<false, 1>);
}

// rsqrt, ex2, lg2, sin, cos, tanh: .approx only.
template <uint8_t op>
void decode_approx_unary(DecodeContext& c, Inst& inst) {
  std::string type = c.type();
  if (op == kTanh && is_sixteen_bit_float(type)) return decode_tanh16(c, inst, type);
  bool f64_ok = op == kRsqrt;
  if (type != "f32" && !(type == "f64" && f64_ok)) c.unsupported();
  if (!c.has("approx")) c.error("needs .approx");
  arith_modifiers(c, inst, false, {"approx"});
  operands(c, inst, 2, type);
  inst.run = unary_for<op>(type);
}

// neg and abs of .f16/.bf16 (and x2): the sign bit of each half; .ftz flushes a
// subnormal f16 input to a zero of its sign first.
template <uint8_t op, bool ftz>
void run_sign16(Warp& warp, const Inst& inst, uint32_t mask) {
  uint64_t* d = warp.reg(inst.op[0]);
  const uint64_t* a = warp.reg(inst.op[1]);
  const int halves = inst.count;
  for_lanes(mask, [&](int lane) {
    uint64_t result = 0;
    for (int half = 0; half < halves; ++half) {
      auto bits = uint16_t(a[lane] >> (16 * half));
      if (ftz) bits = flush_half(bits);
      bits = op == kAbs ? uint16_t(bits & 0x7FFF) : uint16_t(bits ^ 0x8000);
      result |= uint64_t(bits) << (16 * half);
    }
    d[lane] = result;
  });
}

template <uint8_t op>
void decode_sign_unary(DecodeContext& c, Inst& inst) {
  if (std::string t = c.type(); is_sixteen_bit_float(t)) {
    bool ftz = c.has("ftz");
    if (ftz && t[0] == 'b') c.error(".ftz does not apply to bf16");
    for (const auto& m : c.instruction().modifiers)
      if (m != "ftz" && m != t) c.unsupported();
    operands(c, inst, 2, t.size() > 4 ? "b32" : "b16");
    inst.count = t.size() > 4 ? 2 : 1;
    inst.run = ftz ? run_sign16<op, true> : run_sign16<op, false>;
    return;
  }
  std::string type = float_type(c);
  arith_modifiers(c, inst, false);
  if (inst.count != kNearest || (inst.aux & kSat)) c.unsupported();
  operands(c, inst, 2, type);
  inst.run = unary_for<op>(type);
}

// ---- min, max: a NaN operand gives the other; +0 > -0; .NaN propagates NaN

template <class T, bool is_max>
void run_minmax(Warp& warp, const Inst& inst, uint32_t mask) {
  uint64_t* d = warp.reg(inst.op[0]);
  const uint64_t* a = warp.reg(inst.op[1]);
  const uint64_t* b = warp.reg(inst.op[2]);
  const uint8_t flags = inst.aux;
  for_lanes(mask, [&](int lane) {
    T x = flushed(get<T>(a, lane), flags), y = flushed(get<T>(b, lane), flags), r;
    bool x_nan = std::isnan(x), y_nan = std::isnan(y);
    if ((x_nan && y_nan) || ((flags & kNaN) && (x_nan || y_nan))) {
      r = std::numeric_limits<T>::quiet_NaN();
    } else if (x_nan) {
      r = y;
    } else if (y_nan) {
      r = x;
    } else if (x == y) {  // equal, or zeros of either sign: +0 > -0
      bool pick_x = is_max ? !std::signbit(x) : std::signbit(x);
      r = pick_x ? x : y;
    } else {
      r = is_max ? (x > y ? x : y) : (x < y ? x : y);
    }
    put<T>(d, lane, flushed(r, flags));
  });
}

// min/max of .f16/.bf16 (and x2), sm_80: the f32 rule on the exactly widened values.
template <bool brain, bool is_max>
void run_minmax16(Warp& warp, const Inst& inst, uint32_t mask) {
  uint64_t* d = warp.reg(inst.op[0]);
  const uint64_t* a = warp.reg(inst.op[1]);
  const uint64_t* b = warp.reg(inst.op[2]);
  const uint8_t flags = inst.aux;
  const int halves = inst.count;
  auto input = [&](const uint64_t* slot, int lane, int half) {
    auto bits = uint16_t(slot[lane] >> (16 * half));
    if (!brain && (flags & kFtz)) bits = flush_half(bits);
    return bits;
  };
  for_lanes(mask, [&](int lane) {
    uint64_t result = 0;
    for (int half = 0; half < halves; ++half) {
      uint16_t xb = input(a, lane, half), yb = input(b, lane, half);
      float x = float(widen16<brain>(xb)), y = float(widen16<brain>(yb));
      bool x_nan = std::isnan(x), y_nan = std::isnan(y);
      uint16_t r;
      if ((x_nan && y_nan) || ((flags & kNaN) && (x_nan || y_nan)))
        r = 0x7FFF;  // the canonical NaN of both formats
      else if (x_nan)
        r = yb;
      else if (y_nan)
        r = xb;
      else if (x == y)  // equal, or zeros of either sign: +0 > -0
        r = (is_max ? !std::signbit(x) : std::signbit(x)) ? xb : yb;
      else
        r = (is_max ? x > y : x < y) ? xb : yb;
      result |= uint64_t(r) << (16 * half);
    }
    d[lane] = result;
  });
}

template <bool is_max>
void decode_minmax(DecodeContext& c, Inst& inst) {
  if (std::string t = c.type(); is_sixteen_bit_float(t)) {
    arith_modifiers(c, inst, false);
    if (inst.count != kNearest || (inst.aux & kSat)) c.unsupported();
    if (t[0] == 'b' && (inst.aux & kFtz)) c.error(".ftz does not apply to bf16");
    operands(c, inst, 3, t.size() > 4 ? "b32" : "b16");
    inst.count = t.size() > 4 ? 2 : 1;
    inst.run = t[0] == 'b' ? run_minmax16<true, is_max> : run_minmax16<false, is_max>;
    return;
  }
  std::string type = float_type(c);
  arith_modifiers(c, inst, false);
  if (inst.count != kNearest || (inst.aux & kSat)) c.unsupported();
  operands(c, inst, 3, type);
  inst.run = type == "f32" ? run_minmax<float, is_max> : run_minmax<double, is_max>;
}

// ---- testp, copysign

enum Test : uint8_t { kFinite, kInfinite, kNumber, kNotANumber, kNormal, kSubnormal };

template <class T, uint8_t test>
void run_testp(Warp& warp, const Inst& inst, uint32_t mask) {
  uint64_t* d = warp.reg(inst.op[0]);
  const uint64_t* a = warp.reg(inst.op[1]);
  for_lanes(mask, [&](int lane) {
    int kind = std::fpclassify(get<T>(a, lane));
    bool r;
    if constexpr (test == kFinite)
      r = kind != FP_INFINITE && kind != FP_NAN;
    else if constexpr (test == kInfinite)
      r = kind == FP_INFINITE;
    else if constexpr (test == kNumber)
      r = kind != FP_NAN;
    else if constexpr (test == kNotANumber)
      r = kind == FP_NAN;
    else if constexpr (test == kNormal)  // "positive and negative zero are considered normal"
      r = kind == FP_NORMAL || kind == FP_ZERO;
    else
      r = kind == FP_SUBNORMAL;
    d[lane] = r;
  });
}

template <class T>
Handler testp_for(const DecodeContext& c) {
  if (c.has("finite")) return run_testp<T, kFinite>;
  if (c.has("infinite")) return run_testp<T, kInfinite>;
  if (c.has("number")) return run_testp<T, kNumber>;
  if (c.has("notanumber")) return run_testp<T, kNotANumber>;
  if (c.has("normal")) return run_testp<T, kNormal>;
  if (c.has("subnormal")) return run_testp<T, kSubnormal>;
  return nullptr;
}

void decode_testp(DecodeContext& c, Inst& inst) {
  std::string type = float_type(c);
  operands(c, inst, 2, type);
  inst.run = type == "f32" ? testp_for<float>(c) : testp_for<double>(c);
}

// copysign d, a, b: b's magnitude with a's sign.
template <class T>
void run_copysign(Warp& warp, const Inst& inst, uint32_t mask) {
  uint64_t* d = warp.reg(inst.op[0]);
  const uint64_t* a = warp.reg(inst.op[1]);
  const uint64_t* b = warp.reg(inst.op[2]);
  for_lanes(mask,
            [&](int lane) { put<T>(d, lane, std::copysign(get<T>(b, lane), get<T>(a, lane))); });
}

void decode_copysign(DecodeContext& c, Inst& inst) {
  std::string type = float_type(c);
  operands(c, inst, 3, type);
  inst.run = type == "f32" ? run_copysign<float> : run_copysign<double>;
}

}  // namespace

void register_float_ops(OpcodeTable& table) {
  // add.f32 and friends: the decoder looks up "<opcode>.float" for float-typed instructions.
  table["add.float"] = decode_arith<kAdd>;
  table["sub.float"] = decode_arith<kSub>;
  table["mul.float"] = decode_arith<kMul>;
  table["fma"] = decode_fma;
  table["mad.float"] = decode_fma;
  table["div.float"] = decode_div;
  table["rcp"] = decode_rounded_unary<kRcp>;
  table["sqrt"] = decode_rounded_unary<kSqrt>;
  table["rsqrt"] = decode_approx_unary<kRsqrt>;
  table["ex2"] = decode_approx_unary<kEx2>;
  table["lg2"] = decode_approx_unary<kLg2>;
  table["sin"] = decode_approx_unary<kSin>;
  table["cos"] = decode_approx_unary<kCos>;
  table["tanh"] = decode_approx_unary<kTanh>;
  table["abs.float"] = decode_sign_unary<kAbs>;
  table["neg.float"] = decode_sign_unary<kNeg>;
  table["min.float"] = decode_minmax<false>;
  table["max.float"] = decode_minmax<true>;
  table["testp"] = decode_testp;
  table["copysign"] = decode_copysign;
}

}  // namespace cudajit::sim
