// cvt: between integer, half, bfloat16, float and double, with PTX's rounding
// (.rn .rz .rm .rp for float results, .rni .rzi .rmi .rpi to integral values),
// .ftz and .sat. Float-to-integer conversions saturate, and NaN gives 0.
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

// cvt{.rnd}{.ftz}{.sat}.dtype.atype d, a
void decode_cvt(DecodeContext& c, Inst& inst) {
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
