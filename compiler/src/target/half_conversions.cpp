// float16 <-> float32/float64 for the cpu device. LLVM lowers `half` on an
// x86 without F16C to calls of __extendhfsf2, __truncsfhf2 and __truncdfhf2,
// and narrowing to `bfloat` to __truncsfbf2 and __truncdfbf2, which only
// libgcc 12 (13 for bfloat) and later (or compiler-rt) define; the host JIT maps
// those names to these functions, so no particular runtime library is needed.
// Round to nearest even, NaNs stay NaN (quiet), as the hardware converts.
#include <bit>
#include <cmath>
#include <cstdint>

#include "cudajit/compiler/float16.hpp"

namespace cudajit::target {

namespace {

// Half's bits from a finite or infinite magnitude `m` (>= 0) and its sign.
uint16_t half_bits_from_magnitude(double m, uint16_t sign) {
  if (std::isnan(m)) return sign | 0x7E00;
  if (m >= 65520.0) return sign | 0x7C00;  // rounds to infinity: 65504 + half an ulp
  if (m < 0x1p-14) {
    // Subnormal (or zero): a multiple of 2**-24, rounded to nearest even.
    return sign | static_cast<uint16_t>(std::nearbyint(m * 0x1p24));
  }
  int exponent;
  double fraction = std::frexp(m, &exponent);  // m = fraction * 2**exponent, fraction in [0.5, 1)
  // 11 significant bits; nearbyint rounds to even in the default mode. A
  // carry into the next power of two gives 2048, which the addition absorbs.
  auto significand = static_cast<uint32_t>(std::nearbyint(std::ldexp(fraction, 11)));
  uint32_t biased = static_cast<uint32_t>(exponent + 14);  // exponent of fraction*2 is exponent-1
  return sign | static_cast<uint16_t>((biased << 10) + (significand - 1024));
}

// bfloat16's bits from a finite or infinite magnitude `m` (>= 0) and its sign: float32's
// exponent range, 8 significant bits.
uint16_t bfloat16_bits_from_magnitude(double m, uint16_t sign) {
  if (std::isnan(m)) return sign | 0x7FC0;
  if (m >= 0x1.FFp127) return sign | 0x7F80;  // rounds to infinity: the largest + half an ulp
  if (m < 0x1p-126) return sign | static_cast<uint16_t>(std::nearbyint(m * 0x1p133));
  int exponent;
  double fraction = std::frexp(m, &exponent);
  auto significand = static_cast<uint32_t>(std::nearbyint(std::ldexp(fraction, 8)));
  uint32_t biased = static_cast<uint32_t>(exponent + 126);
  return sign | static_cast<uint16_t>((biased << 7) + (significand - 128));
}

}  // namespace

float bfloat16_bits_to_float(uint16_t b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

uint16_t double_to_bfloat16_bits(double v) {
  uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  return bfloat16_bits_from_magnitude(std::fabs(v), sign);
}

float half_bits_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1F;
  uint32_t mantissa = h & 0x3FF;
  if (exponent == 0x1F) return std::bit_cast<float>(sign | 0x7F800000 | (mantissa << 13));
  float magnitude = exponent == 0 ? std::ldexp(static_cast<float>(mantissa), -24)
                                  : std::ldexp(static_cast<float>(mantissa | 0x400),
                                               static_cast<int>(exponent) - 25);
  return sign ? -magnitude : magnitude;
}

uint16_t double_to_half_bits(double v) {
  uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  return half_bits_from_magnitude(std::fabs(v), sign);
}

// float -> double is exact, so one rounding either way.
uint16_t float_to_half_bits(float v) { return double_to_half_bits(static_cast<double>(v)); }

}  // namespace cudajit::target

// The libcall ABI passes and returns _Float16 in an SSE register.
extern "C" {

float cudajit_extendhfsf2(_Float16 h) {
  return cudajit::target::half_bits_to_float(std::bit_cast<uint16_t>(h));
}

_Float16 cudajit_truncsfhf2(float v) {
  return std::bit_cast<_Float16>(cudajit::target::float_to_half_bits(v));
}

_Float16 cudajit_truncdfhf2(double v) {
  return std::bit_cast<_Float16>(cudajit::target::double_to_half_bits(v));
}

// __bf16 is passed as _Float16 is (the low 16 bits of an SSE register).
_Float16 cudajit_truncsfbf2(float v) {
  return std::bit_cast<_Float16>(cudajit::target::double_to_bfloat16_bits(v));
}

_Float16 cudajit_truncdfbf2(double v) {
  return std::bit_cast<_Float16>(cudajit::target::double_to_bfloat16_bits(v));
}
}

namespace cudajit::target {

std::vector<std::pair<const char*, void*>> half_conversion_symbols() {
  return {{"__extendhfsf2", reinterpret_cast<void*>(&cudajit_extendhfsf2)},
          {"__truncsfhf2", reinterpret_cast<void*>(&cudajit_truncsfhf2)},
          {"__truncdfhf2", reinterpret_cast<void*>(&cudajit_truncdfhf2)},
          {"__truncsfbf2", reinterpret_cast<void*>(&cudajit_truncsfbf2)},
          {"__truncdfbf2", reinterpret_cast<void*>(&cudajit_truncdfbf2)}};
}

}  // namespace cudajit::target
