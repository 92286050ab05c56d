// Floating-point helpers shared by the float and conversion families: half and
// bfloat16 as bit patterns, flushing subnormals, and rounding an exact value
// (long double holds every int64 and double exactly) in each IEEE direction
// without touching the host's rounding mode.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace cudajit::sim {

// PTX rounding modifiers: to nearest even, to zero, down, up.
enum Rounding : uint8_t { kNearest, kZero, kDown, kUp };

struct Half {  // IEEE binary16, as bits
  uint16_t bits;
};
struct BFloat {  // bfloat16, as bits
  uint16_t bits;
};

template <class F>
inline F flush_subnormal(F v) {
  return std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(F(0), v) : v;
}

// `x` rounded to F in direction `r`: the nearest value, then one step if it went the wrong way.
template <class F>
inline F round_to(long double x, Rounding r) {
  F v = F(x);
  if (std::isnan(x)) return v;
  switch (r) {
    case kNearest:
      break;
    case kZero:
      if (std::fabs((long double)v) > std::fabs(x)) v = std::nextafter(v, F(0));
      break;
    case kDown:
      if ((long double)v > x) v = std::nextafter(v, -std::numeric_limits<F>::infinity());
      break;
    case kUp:
      if ((long double)v < x) v = std::nextafter(v, std::numeric_limits<F>::infinity());
      break;
  }
  return v;
}

// .ftz on a half: a subnormal reads as (and is written as) a zero of its sign.
inline uint16_t flush_half(uint16_t bits) {
  return (bits & 0x7C00) == 0 ? uint16_t(bits & 0x8000) : bits;
}

inline float half_to_float(Half h) {
  uint32_t sign = uint32_t(h.bits & 0x8000) << 16, exponent = (h.bits >> 10) & 0x1F,
           mantissa = h.bits & 0x3FF;
  uint32_t bits;
  if (exponent == 0x1F) {
    bits = sign | 0x7F800000 | (mantissa << 13);  // inf, NaN (payload kept)
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {  // subnormal: normalise
    int shift = 0;
    while (!(mantissa & 0x400)) mantissa <<= 1, ++shift;
    bits = sign | uint32_t(113 - shift) << 23 | ((mantissa & 0x3FF) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// The half nearest `x` in direction `r` (x exact: a double or float value).
// A NaN becomes the canonical 0x7fff: the PTX ISA leaves the NaN unspecified, and that is the
// one an H200 gives (cvt.rn.f16.f32 and cvt.rn.bf16.f32 of any NaN).
constexpr uint16_t kCanonicalHalfNaN = 0x7FFF;

inline Half round_to_half(long double x, Rounding r) {
  if (std::isnan(x)) return {kCanonicalHalfNaN};
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isinf(x)) return {uint16_t(sign | 0x7C00)};  // exact: no direction moves it
  long double a = std::fabs(x);
  // Candidates: the half at or below |x| (truncation) and the next one up.
  uint16_t below;
  if (a >= 65520.0L * 2) {
    below = 0x7BFF;  // max finite; the next up is inf
  } else if (a < 0x1p-24L) {
    below = 0;
  } else {
    int e;
    std::frexp(a, &e);     // a = m * 2^e, m in [0.5, 1)
    int exponent = e - 1;  // a in [2^exponent, 2^(exponent+1))
    if (exponent < -14) {
      below = uint16_t(std::floor(a * 0x1p24L));  // subnormal steps of 2^-24
    } else if (exponent > 15) {
      below = 0x7BFF;
    } else {
      long double step = std::ldexp(1.0L, exponent - 10);
      uint16_t m = uint16_t(std::floor(a / step)) - 0x400;
      below = uint16_t((exponent + 15) << 10 | m);
    }
  }
  auto value = [](uint16_t bits) -> long double {
    return bits == 0x7C00 ? std::numeric_limits<long double>::infinity()
                          : (long double)half_to_float(Half{bits});
  };
  uint16_t above = uint16_t(below + 1);  // the next magnitude (0x7BFF + 1 is inf)
  long double lo = value(below), hi = value(above);
  uint16_t chosen;
  if (a == lo) {
    chosen = below;
  } else if (r == kZero || (r == kDown && !sign) || (r == kUp && sign)) {
    chosen = below;
  } else if (r != kNearest) {
    chosen = above;
  } else if (a >= 65520.0L) {
    chosen = 0x7C00;  // rounds to infinity
  } else {
    long double d_lo = a - lo, d_hi = hi - a;
    chosen = d_lo < d_hi ? below : d_hi < d_lo ? above : ((below & 1) ? above : below);
  }
  return {uint16_t(sign | chosen)};
}

inline float bfloat_to_float(BFloat b) {
  uint32_t bits = uint32_t(b.bits) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline BFloat round_to_bfloat(long double x, Rounding r) {
  float f = round_to<float>(x, r);  // bfloat16 is float's top half: round f32's bits next
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (std::isnan(f)) return {kCanonicalHalfNaN};
  uint32_t rest = bits & 0xFFFF, top = bits >> 16;
  bool negative = bits >> 31;
  switch (r) {  // f is already rounded in direction r: drop or carry the low half the same way
    case kNearest:
      if (rest > 0x8000) {
        ++top;
      } else if (rest == 0x8000) {  // a tie in f: decide by x itself (f may have rounded)
        long double ax = std::fabs(x), af = std::fabs((long double)f);
        if (ax > af || (ax == af && (top & 1))) ++top;
      }
      break;
    case kZero:
      break;
    case kDown:
      if (negative && rest != 0) ++top;
      break;
    case kUp:
      if (!negative && rest != 0) ++top;
      break;
  }
  return {uint16_t(top)};
}

}  // namespace cudajit::sim
