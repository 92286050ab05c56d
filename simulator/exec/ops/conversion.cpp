// cvt: between integer, half, bfloat16, float and double, with PTX's rounding
// (.rn .rz .rm .rp for float results, .rni .rzi .rmi .rpi to integral values),
// .ftz and .sat. Float-to-integer conversions saturate, and NaN gives 0. Pairs of fp8
// (.e4m3x2, .e5m2x2) from and to .f32/.f16x2.
#include <algorithm>
#include <cmath>
#include <limits>

#include "../decode_context.hpp"
#include "../warp.hpp"
#include "float_bits.hpp"

namespace cudajit::sim {

namespace {

enum Mode : uint8_t { kNone, kRn, kRz, kRm, kRp, kRni, kRzi, kRmi, kRpi };
constexpr uint8_t kModeMask = 0x0F, kFtz = 0x10, kSat = 0x20;

template <class T>
constexpr bool is_float = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                          std::is_same_v<T, Half> || std::is_same_v<T, BFloat>;

template <class T>
inline T read(const uint64_t* slot, int lane) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat>)
    return T{get<uint16_t>(slot, lane)};
  else
    return get<T>(slot, lane);
}

// A signed integer result is sign-extended to the register's width (the PTX ISA's cvt notes),
// here to all 64 bits as ld does: readers take the low bits of their own type.
template <class T>
inline void write(uint64_t* slot, int lane, T value) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat>)
    put<uint16_t>(slot, lane, value.bits);
  else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
    slot[lane] = uint64_t(int64_t(value));
  else
    put<T>(slot, lane, value);
}

// The source's exact value (every format here fits a long double exactly).
template <class S>
inline long double exact(S value, bool ftz) {
  if constexpr (std::is_same_v<S, Half>)
    return half_to_float(value);
  else if constexpr (std::is_same_v<S, BFloat>)
    return bfloat_to_float(value);
  else if constexpr (std::is_same_v<S, float>)
    return ftz ? flush_subnormal(value) : value;
  else
    return (long double)value;
}

inline long double round_integral(long double x, uint8_t mode) {
  switch (mode) {
    case kRni:
      return std::nearbyint(x);  // the host's default mode: to nearest even
    case kRzi:
      return std::trunc(x);
    case kRmi:
      return std::floor(x);
    case kRpi:
      return std::ceil(x);
  }
  return x;
}

inline Rounding rounding(uint8_t mode) {
  switch (mode) {
    case kRz:
      return kZero;
    case kRm:
      return kDown;
    case kRp:
      return kUp;
  }
  return kNearest;
}

template <class D>
inline D to_float(long double x, uint8_t mode, uint8_t flags) {
  if (mode >= kRni) x = round_integral(x, mode);
  if (flags & kSat) x = std::isnan(x) ? 0.0L : std::fmin(std::fmax(x, 0.0L), 1.0L);
  Rounding r = rounding(mode);
  if constexpr (std::is_same_v<D, Half>) {
    return round_to_half(x, r);
  } else if constexpr (std::is_same_v<D, BFloat>) {
    return round_to_bfloat(x, r);
  } else {
    D v = round_to<D>(x, r);
    if constexpr (std::is_same_v<D, float>)
      if (flags & kFtz) v = flush_subnormal(v);
    return v;
  }
}

template <class D>
inline D to_integer(long double x, uint8_t mode, bool from_float, bool saturate) {
  constexpr long double lo = (long double)std::numeric_limits<D>::min();
  constexpr long double hi = (long double)std::numeric_limits<D>::max();
  if (from_float) {
    if (std::isnan(x)) return D(0);
    x = round_integral(x, mode);
    saturate = true;  // float-to-integer conversions always clamp
  }
  if (saturate) {
    if (x <= lo) return std::numeric_limits<D>::min();
    if (x >= hi) return std::numeric_limits<D>::max();
  }
  return D(x);
}

template <class D, class S>
void run_cvt(Warp& warp, const Inst& inst, uint32_t mask) {
  uint64_t* d = warp.reg(inst.op[0]);
  const uint64_t* a = warp.reg(inst.op[1]);
  const uint8_t mode = inst.aux & kModeMask, flags = inst.aux;
  const bool ftz = flags & kFtz;
  if constexpr (!is_float<D> && !is_float<S>) {
    if (!(flags & kSat)) {  // integer to integer: sign- or zero-extend, or truncate
      for_lanes(mask, [&](int lane) { write<D>(d, lane, D(get<S>(a, lane))); });
      return;
    }
  }
  for_lanes(mask, [&](int lane) {
    long double x = exact<S>(read<S>(a, lane), ftz);
    if constexpr (is_float<D>)
      write<D>(d, lane, to_float<D>(x, mode, flags));
    else
      write<D>(d, lane, to_integer<D>(x, mode, is_float<S>, flags & kSat));
  });
}

template <class S>
Handler to_destination(const std::string& type) {
  if (type == "s8") return run_cvt<int8_t, S>;
  if (type == "u8") return run_cvt<uint8_t, S>;
  if (type == "s16") return run_cvt<int16_t, S>;
  if (type == "u16") return run_cvt<uint16_t, S>;
  if (type == "s32") return run_cvt<int32_t, S>;
  if (type == "u32") return run_cvt<uint32_t, S>;
  if (type == "s64") return run_cvt<int64_t, S>;
  if (type == "u64") return run_cvt<uint64_t, S>;
  if (type == "f16") return run_cvt<Half, S>;
  if (type == "bf16") return run_cvt<BFloat, S>;
  if (type == "f32") return run_cvt<float, S>;
  if (type == "f64") return run_cvt<double, S>;
  return nullptr;
}

Handler cvt_handler(const std::string& dst, const std::string& src) {
  if (src == "s8") return to_destination<int8_t>(dst);
  if (src == "u8") return to_destination<uint8_t>(dst);
  if (src == "s16") return to_destination<int16_t>(dst);
  if (src == "u16") return to_destination<uint16_t>(dst);
  if (src == "s32") return to_destination<int32_t>(dst);
  if (src == "u32") return to_destination<uint32_t>(dst);
  if (src == "s64") return to_destination<int64_t>(dst);
  if (src == "u64") return to_destination<uint64_t>(dst);
  if (src == "f16") return to_destination<Half>(dst);
  if (src == "bf16") return to_destination<BFloat>(dst);
  if (src == "f32") return to_destination<float>(dst);
  if (src == "f64") return to_destination<double>(dst);
  return nullptr;
}

bool is_float_type(const std::string& t) {
  return t == "f16" || t == "bf16" || t == "f32" || t == "f64";
}

// ---- fp8 (.e4m3x2, .e5m2x2: pairs of 8-bit floats in a .b16, the first value in the upper byte)

struct Fp8Format {
  int mantissa_bits, bias;
  double max_finite;  // e4m3: 448 (S.1111.110), e5m2: 57344 (S.11110.11)
  bool has_infinity;  // e5m2 keeps IEEE's infinities; e4m3 has none
};
constexpr Fp8Format kE4M3{3, 7, 448.0, false}, kE5M2{2, 15, 57344.0, true};
constexpr uint8_t kFp8NaN = 0x7F;  // NaN in both formats (all exponent and mantissa bits set)
constexpr uint8_t kRelu = 0x40;

// .rn.satfinite: to the nearest value (ties to even); beyond the largest finite value, infinities
// included, that value with its sign; NaN stays NaN. .relu: a negative result is +0.
uint8_t round_to_fp8(double x, const Fp8Format& f, bool relu) {
  if (std::isnan(x)) return kFp8NaN;
  if (relu && x < 0) x = 0;
  const uint8_t sign = std::signbit(x) ? 0x80 : 0;
  const int exponent_bits = 7 - f.mantissa_bits;
  double m = std::fabs(x);
  if (m >= f.max_finite) {
    int max_exponent = f.has_infinity ? (1 << exponent_bits) - 2 : (1 << exponent_bits) - 1;
    int max_mantissa = f.has_infinity ? (1 << f.mantissa_bits) - 1 : (1 << f.mantissa_bits) - 2;
    return sign | uint8_t(max_exponent << f.mantissa_bits | max_mantissa);
  }
  // The quantum at m's binade (the subnormal one below the smallest normal), then the fields.
  const int min_exponent = 1 - f.bias;
  int e = m == 0 ? min_exponent : std::max(std::ilogb(m), min_exponent);
  double quantum = std::ldexp(1.0, e - f.mantissa_bits);
  double q = std::nearbyint(m / quantum);  // ties to even (the host's default rounding)
  double r = q * quantum;
  if (r == 0) return sign;
  int re = std::ilogb(r);
  if (re < min_exponent)  // subnormal: exponent field 0
    return sign | uint8_t(r / std::ldexp(1.0, min_exponent - f.mantissa_bits));
  uint32_t mantissa = uint32_t((r / std::ldexp(1.0, re) - 1) * (1 << f.mantissa_bits));
  return sign | uint8_t((re + f.bias) << f.mantissa_bits | mantissa);
}

double fp8_value(uint8_t bits, const Fp8Format& f) {
  const int exponent_bits = 7 - f.mantissa_bits;
  const int all_ones = (1 << exponent_bits) - 1, mantissa_mask = (1 << f.mantissa_bits) - 1;
  int exponent = (bits >> f.mantissa_bits) & all_ones, mantissa = bits & mantissa_mask;
  double sign = bits & 0x80 ? -1.0 : 1.0;
  if (f.has_infinity && exponent == all_ones)
    return mantissa ? std::nan("") : sign * std::numeric_limits<double>::infinity();
  if (!f.has_infinity && exponent == all_ones && mantissa == mantissa_mask) return std::nan("");
  if (exponent == 0) return sign * std::ldexp(mantissa, 1 - f.bias - f.mantissa_bits);
  return sign * std::ldexp(mantissa + (1 << f.mantissa_bits), exponent - f.bias - f.mantissa_bits);
}

// cvt.rn.satfinite{.relu}.f8x2.f32 d, a, b: a to the upper byte, b to the lower.
template <const Fp8Format& f>
void run_cvt_f32_to_fp8x2(Warp& warp, const Inst& inst, uint32_t mask) {
  uint64_t* d = warp.reg(inst.op[0]);
  const uint64_t* a = warp.reg(inst.op[1]);
  const uint64_t* b = warp.reg(inst.op[2]);
  const bool relu = inst.aux & kRelu;
  for_lanes(mask, [&](int lane) {
    d[lane] = uint64_t(round_to_fp8(get<float>(a, lane), f, relu)) << 8 |
              round_to_fp8(get<float>(b, lane), f, relu);
  });
}

// cvt.rn.satfinite{.relu}.f8x2.f16x2 d, a: each half to the byte in its place.
template <const Fp8Format& f>
void run_cvt_f16x2_to_fp8x2(Warp& warp, const Inst& inst, uint32_t mask) {
  uint64_t* d = warp.reg(inst.op[0]);
  const uint64_t* a = warp.reg(inst.op[1]);
  const bool relu = inst.aux & kRelu;
  for_lanes(mask, [&](int lane) {
    auto half = [&](int shift) { return half_to_float(Half{uint16_t(a[lane] >> shift)}); };
    d[lane] = uint64_t(round_to_fp8(half(16), f, relu)) << 8 | round_to_fp8(half(0), f, relu);
  });
}

// cvt.rn{.relu}.f16x2.f8x2 d, a: exact (every e4m3 and e5m2 value is a half), NaN canonical.
template <const Fp8Format& f>
void run_cvt_fp8x2_to_f16x2(Warp& warp, const Inst& inst, uint32_t mask) {
  uint64_t* d = warp.reg(inst.op[0]);
  const uint64_t* a = warp.reg(inst.op[1]);
  const bool relu = inst.aux & kRelu;
  for_lanes(mask, [&](int lane) {
    auto half = [&](int shift) {
      double x = fp8_value(uint8_t(a[lane] >> shift), f);
      if (relu && x < 0) x = 0;
      return uint64_t(round_to_half(x, kNearest).bits);
    };
    d[lane] = half(8) << 16 | half(0);
  });
}

// cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.{f32,f16x2} and cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2}
// (PTX ISA 7.8, sm_89): the only roundings and saturations these forms have.
void decode_cvt_fp8(DecodeContext& c, Inst& inst) {
  const auto& modifiers = c.instruction().modifiers;
  auto position = [&](const char* m) {
    return std::find(modifiers.begin(), modifiers.end(), m) - modifiers.begin();
  };
  const bool e4m3 = c.has("e4m3x2");
  const size_t fp8 = position(e4m3 ? "e4m3x2" : "e5m2x2");
  auto types = c.types();
  if (types.size() != 1 || (c.has("e4m3x2") && c.has("e5m2x2"))) c.unsupported();
  const bool to_fp8 = size_t(position(types[0].c_str())) > fp8;  // cvt.<dtype>.<atype>
  for (const auto& m : modifiers)
    if (m != "rn" && m != "satfinite" && m != "relu" && m != types[0] && m != modifiers[fp8])
      c.unsupported();
  if (!c.has("rn") || c.has("satfinite") != to_fp8) c.unsupported();
  c.require(89, 7, 8);
  inst.aux = c.has("relu") ? kRelu : 0;
  inst.op[0] = c.reg(c.operand(0));
  if (to_fp8 && types[0] == "f32") {
    if (c.operand_count() != 3) c.error("expects d, a and b");
    inst.op[1] = c.value(c.operand(1), "f32");
    inst.op[2] = c.value(c.operand(2), "f32");
    inst.run = e4m3 ? run_cvt_f32_to_fp8x2<kE4M3> : run_cvt_f32_to_fp8x2<kE5M2>;
    return;
  }
  if (types[0] != "f16x2") c.unsupported();
  if (c.operand_count() != 2) c.error("expects d and a");
  inst.op[1] = c.value(c.operand(1), to_fp8 ? "b32" : "b16");
  if (to_fp8)
    inst.run = e4m3 ? run_cvt_f16x2_to_fp8x2<kE4M3> : run_cvt_f16x2_to_fp8x2<kE5M2>;
  else
    inst.run = e4m3 ? run_cvt_fp8x2_to_f16x2<kE4M3> : run_cvt_fp8x2_to_f16x2<kE5M2>;
}

// cvt{.rnd}{.ftz}{.sat}.dtype.atype d, a
void decode_cvt(DecodeContext& c, Inst& inst) {
  if (c.has("e4m3x2") || c.has("e5m2x2")) return decode_cvt_fp8(c, inst);
  auto types = c.types();
  if (types.size() != 2 || c.operand_count() != 2) c.unsupported();
  const std::string &dst = types[0], &src = types[1];
  static const std::pair<const char*, Mode> modes[] = {{"rn", kRn},   {"rz", kRz},   {"rm", kRm},
                                                       {"rp", kRp},   {"rni", kRni}, {"rzi", kRzi},
                                                       {"rmi", kRmi}, {"rpi", kRpi}};
  uint8_t mode = kNone, flags = 0;
  for (const auto& m : c.instruction().modifiers) {
    if (ptx::type_size(m) != 0) continue;
    bool known = false;
    for (auto [name, value] : modes)
      if (m == name) mode = value, known = true;
    if (m == "ftz") flags |= kFtz, known = true;
    if (m == "sat") flags |= kSat, known = true;
    if (!known) c.unsupported();
  }
  bool to_float = is_float_type(dst), from_float = is_float_type(src);
  int dst_size = ptx::type_size(dst), src_size = ptx::type_size(src);
  bool integral = mode >= kRni, fractional = mode >= kRn && mode <= kRp;
  // What the PTX ISA requires or allows of the rounding modifier.
  if (!to_float && !from_float && mode != kNone) c.error("integer conversions take no rounding");
  if (!to_float && from_float && !integral) c.error("float-to-integer needs .rni/.rzi/.rmi/.rpi");
  if (to_float && !from_float && !fractional) c.error("integer-to-float needs .rn/.rz/.rm/.rp");
  if (to_float && from_float) {
    bool narrowing =
        dst_size < src_size || (dst == "bf16" && src == "f16") || (dst == "f16" && src == "bf16");
    if (narrowing && !fractional) c.error("a narrowing float conversion needs .rn/.rz/.rm/.rp");
    if (!narrowing && fractional) c.error("a widening float conversion takes no .rn/.rz/.rm/.rp");
    if (dst_size != src_size && integral) c.error(".rni/.rzi/.rmi/.rpi need the same float type");
  }
  if ((flags & kFtz) && src != "f32" && dst != "f32") c.error(".ftz applies to .f32 only");
  if ((flags & kSat) && to_float && !from_float) c.error(".sat of an integer-to-float conversion");
  inst.run = cvt_handler(dst, src);
  if (!inst.run) c.unsupported();
  inst.aux = mode | flags;
  inst.op[0] = c.reg(c.operand(0));
  inst.op[1] = c.value(c.operand(1), src);
}

}  // namespace

void register_conversion_ops(OpcodeTable& table) { table["cvt"] = decode_cvt; }

}  // namespace cudajit::sim
