// Integer arithmetic, the carry chain, bit fields and bit counts, logic and shifts (the moves
// and selections between registers are moves.cpp's). Each decoder checks the
// instruction's types and modifiers against the PTX ISA and picks a handler instantiated for
// the type and operation, so no handler switches on types per lane. Sources are read at the
// instruction type's width (a register may hold a sign-extended load); results are written
// zero-extended at that width. Arithmetic wraps as on the hardware, computed without host
// undefined behaviour (no signed overflow, no division by zero, no over-wide shifts).
#include <algorithm>
#include <bit>
#include <initializer_list>
#include <limits>
#include <span>
#include <string_view>
#include <type_traits>

#include "../special_registers.hpp"
#include "integer_ops.hpp"

namespace cudajit::sim {

namespace {

using namespace integer_ops;

// The one of .lo/.hi/.wide an instruction names: 'l', 'h', 'w', or 0 for none.
char mode(const DecodeContext& c) {
  int named = c.has("lo") + c.has("hi") + c.has("wide");
  if (named > 1) c.unsupported();
  return c.has("lo") ? 'l' : c.has("hi") ? 'h' : c.has("wide") ? 'w' : 0;
}

// d, a(, b(, c)) all of the instruction's type, one of `accepted`, no other modifier.
template <int sources, auto op, bool signless = false>
void decode_plain(DecodeContext& c, Inst& inst, TypeList accepted) {
  allow(c, {});
  std::string type = c.type();
  operands(c, inst, sources, type);
  inst.run = same_type<sources, op, signless>(c, type, accepted);
}

// ---- arithmetic

template <class T>
inline T wrap_add(T a, T b) {
  return T(Arith<T>(a) + Arith<T>(b));
}
template <class T>
inline T wrap_sub(T a, T b) {
  return T(Arith<T>(a) - Arith<T>(b));
}
template <class T>
inline T wrap_mul(T a, T b) {
  return T(Arith<T>(a) * Arith<T>(b));
}

inline int32_t saturate(int64_t v) {
  return int32_t(std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(),
                                     std::numeric_limits<int32_t>::max()));
}

// The upper half of the double-width product.
template <class T>
inline T mul_hi(T a, T b) {
  if constexpr (sizeof(T) == 8) {
    using Wide = std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;
    return T(Wide(a) * Wide(b) >> 64);
  } else {
    using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
    return T(Wide(a) * Wide(b) >> kBits<T>);
  }
}

constexpr auto kAdd = []<class T>(T a, T b) { return wrap_add(a, b); };
constexpr auto kSub = []<class T>(T a, T b) { return wrap_sub(a, b); };
constexpr auto kAddSat = [](int32_t a, int32_t b) { return saturate(int64_t(a) + b); };
constexpr auto kSubSat = [](int32_t a, int32_t b) { return saturate(int64_t(a) - b); };
constexpr auto kMulLo = []<class T>(T a, T b) { return wrap_mul(a, b); };
constexpr auto kMulHi = []<class T>(T a, T b) { return mul_hi(a, b); };
constexpr auto kMulWide = []<class T>(T a, T b) { return Twice<T>(Twice<T>(a) * Twice<T>(b)); };
constexpr auto kMadLo = []<class T>(T a, T b, T c) { return wrap_add(wrap_mul(a, b), c); };
constexpr auto kMadHi = []<class T>(T a, T b, T c) { return wrap_add(mul_hi(a, b), c); };
constexpr auto kMadHiSat = [](int32_t a, int32_t b, int32_t c) {
  return saturate(int64_t(mul_hi(a, b)) + c);
};
constexpr auto kMadWide = []<class T>(T a, T b, Twice<T> c) {
  return wrap_add(Twice<T>(Twice<T>(a) * Twice<T>(b)), c);
};
constexpr auto kMin = []<class T>(T a, T b) { return b < a ? b : a; };
constexpr auto kMax = []<class T>(T a, T b) { return a < b ? b : a; };
constexpr auto kNeg = []<class T>(T a) { return wrap_sub(T(0), a); };
constexpr auto kAbs = []<class T>(T a) { return a < 0 ? wrap_sub(T(0), a) : a; };  // INT_MIN stays
constexpr auto kSad = []<class T>(T a, T b, T c) {
  return wrap_add(c, a < b ? wrap_sub(b, a) : wrap_sub(a, b));
};

// Division by zero is unspecified in PTX. NVIDIA GPUs return all ones for it, from div and
// rem alike, signed and unsigned (their division routine's zero-divisor fix-up), and so does
// the simulator. INT_MIN / -1 wraps to INT_MIN and INT_MIN % -1 is 0; both round toward zero.
constexpr auto kDiv = []<class T>(T a, T b) {
  if (b == 0) return T(~Unsigned<T>(0));
  if constexpr (std::is_signed_v<T>)
    if (b == -1) return wrap_sub(T(0), a);
  return T(a / b);
};
constexpr auto kRem = []<class T>(T a, T b) {
  if (b == 0) return T(~Unsigned<T>(0));
  if constexpr (std::is_signed_v<T>)
    if (b == -1) return T(0);
  return T(a % b);
};

// mul24/mad24: the 48-bit product of the operands' low 24 bits (sign-extended for .s32);
// .lo keeps t<31..0>, .hi t<47..16>.
template <bool hi, class T>
inline T product24(T a, T b) {
  int64_t x, y;
  if constexpr (std::is_signed_v<T>) {
    x = int32_t(uint32_t(a) << 8) >> 8, y = int32_t(uint32_t(b) << 8) >> 8;
  } else {
    x = a & 0xFFFFFF, y = b & 0xFFFFFF;
  }
  uint64_t t = uint64_t(x * y);
  return T(uint32_t(hi ? t >> 16 : t));
}
template <bool hi>
constexpr auto kMul24 = []<class T>(T a, T b) { return product24<hi>(a, b); };
template <bool hi>
constexpr auto kMad24 = []<class T>(T a, T b, T c) { return wrap_add(product24<hi>(a, b), c); };
constexpr auto kMad24HiSat = [](int32_t a, int32_t b, int32_t c) {
  return saturate(int64_t(product24<true>(a, b)) + c);
};

// ---- the carry chain: add.cc, addc, sub.cc, subc, mad.cc, madc

// a + b + CF, or a - (b + CF); with carry_out, CF becomes the carry (the borrow).
template <class U, bool subtract, bool carry_in, bool carry_out>
inline U add_with_carry(U a, U b, uint64_t* cf, int lane) {
  U r, in = carry_in ? U(cf[lane] & 1) : U(0);
  bool first, second;
  if constexpr (subtract) {
    first = __builtin_sub_overflow(a, b, &r);
    second = __builtin_sub_overflow(r, in, &r);
  } else {
    first = __builtin_add_overflow(a, b, &r);
    second = __builtin_add_overflow(r, in, &r);
  }
  if constexpr (carry_out) cf[lane] = first | second;
  return r;
}

template <class U, bool subtract, bool carry_in, bool carry_out>
void run_add_carry(Warp& warp, const Inst& inst, uint32_t mask) {
  uint64_t* d = warp.reg(inst.op[0]);
  const uint64_t* a = warp.reg(inst.op[1]);
  const uint64_t* b = warp.reg(inst.op[2]);
  uint64_t* cf = warp.reg(inst.op[kCarry]);
  for_lanes(mask, [&](int lane) {
    put<U>(d, lane,
           add_with_carry<U, subtract, carry_in, carry_out>(get<U>(a, lane), get<U>(b, lane), cf,
                                                            lane));
  });
}

// d = t + c (+ CF) where t is the low (or high) half of a * b.
template <class T, bool hi, bool carry_in, bool carry_out>
void run_mad_carry(Warp& warp, const Inst& inst, uint32_t mask) {
  using U = Unsigned<T>;
  uint64_t* d = warp.reg(inst.op[0]);
  const uint64_t* a = warp.reg(inst.op[1]);
  const uint64_t* b = warp.reg(inst.op[2]);
  const uint64_t* c = warp.reg(inst.op[3]);
  uint64_t* cf = warp.reg(inst.op[kCarry]);
  for_lanes(mask, [&](int lane) {
    T x = get<T>(a, lane), y = get<T>(b, lane);
    U t = U(hi ? mul_hi(x, y) : wrap_mul(x, y));
    put<U>(d, lane, add_with_carry<U, false, carry_in, carry_out>(t, get<U>(c, lane), cf, lane));
  });
}

// ---- bits

constexpr auto kAnd = []<class T>(T a, T b) { return T(a & b); };
constexpr auto kOr = []<class T>(T a, T b) { return T(a | b); };
constexpr auto kXor = []<class T>(T a, T b) { return T(a ^ b); };
constexpr auto kNot = []<class T>(T a) { return T(~a); };
constexpr auto kNotPred = [](uint8_t a) { return uint8_t((a & 1) ^ 1); };
constexpr auto kCnot = []<class T>(T a) { return T(a == 0); };
constexpr auto kPopc = []<class T>(T a) { return uint32_t(std::popcount(a)); };
constexpr auto kClz = []<class T>(T a) { return uint32_t(std::countl_zero(a)); };
constexpr auto kBrev = []<class T>(T a) {
  uint64_t v = a;
  v = ((v >> 1) & 0x5555555555555555ull) | ((v & 0x5555555555555555ull) << 1);
  v = ((v >> 2) & 0x3333333333333333ull) | ((v & 0x3333333333333333ull) << 2);
  v = ((v >> 4) & 0x0F0F0F0F0F0F0F0Full) | ((v & 0x0F0F0F0F0F0F0F0Full) << 4);
  return T(__builtin_bswap64(v) >> (64 - kBits<T>));
};

// The position of the most significant bit that differs from the sign (a 1 for unsigned
// types), or with .shiftamt the left shift that brings it to the msb; all ones if none.
template <bool shiftamt>
constexpr auto kBfind = []<class T>(T a) {
  Unsigned<T> x = Unsigned<T>(a);
  if constexpr (std::is_signed_v<T>)
    if (a < 0) x = Unsigned<T>(~x);
  if (x == 0) return 0xFFFFFFFFu;
  uint32_t leading = uint32_t(std::countl_zero(x));
  return shiftamt ? leading : kBits<T> - 1 - leading;
};

// Shift amounts are u32 and clamp at the width: shl and shr.u give 0, shr.s the sign.
constexpr auto kShl = []<class T>(T a, uint32_t n) {
  return n >= kBits<T> ? T(0) : T(Arith<T>(a) << n);
};
constexpr auto kShr = []<class T>(T a, uint32_t n) {
  if (std::is_unsigned_v<T> && n >= kBits<T>) return T(0);
  return T(a >> std::min(n, kBits<T> - 1));  // signed: arithmetic (C++20)
};

// bfe: `len` bits of a from `pos` (both mod 256), zero- or sign-extended; the bits past a's
// msb read as the field's sign.
constexpr auto kBfe = []<class T>(T a, uint32_t pos, uint32_t len) {
  using U = Unsigned<T>;
  pos &= 0xFF, len &= 0xFF;
  if (len == 0) return T(0);
  if (pos >= kBits<T>) return std::is_signed_v<T> && a < 0 ? T(-1) : T(0);
  uint32_t n = std::min(len, kBits<T> - pos);
  U field = U(U(a) >> pos);
  if (n < kBits<T>) {
    U low = U((U(1) << n) - 1);
    field &= low;
    if constexpr (std::is_signed_v<T>)
      if ((field >> (n - 1)) & 1) field |= U(~low);
  }
  return T(field);
};

// bfi f, a, b, c, d: b with the `d` low bits of a inserted at bit `c` (both mod 256).
template <class U>
void run_bfi(Warp& warp, const Inst& inst, uint32_t mask) {
  const uint64_t* a = warp.reg(inst.op[1]);
  const uint64_t* b = warp.reg(inst.op[2]);
  const uint64_t* c = warp.reg(inst.op[3]);
  const uint64_t* d = warp.reg(inst.op[4]);
  write_lanes(warp.reg(inst.op[0]), mask, [&](int lane) {
    U base = get<U>(b, lane);
    uint32_t pos = get<uint32_t>(c, lane) & 0xFF, len = get<uint32_t>(d, lane) & 0xFF;
    if (len == 0 || pos >= kBits<U>) return bits_of(base);
    uint32_t n = std::min(len, kBits<U> - pos);
    U field = n == kBits<U> ? ~U(0) : U((U(1) << n) - 1);
    U m = U(field << pos);
    return bits_of(U((base & ~m) | (U(get<U>(a, lane) << pos) & m)));
  });
}

// prmt: each result byte is one of the 8 bytes of {b, a}, picked as the ISA's tables say.
enum PermuteMode : uint8_t { kGeneric, kF4e, kB4e, kRc8, kEcl, kEcr, kRc16 };

template <uint8_t mode>
constexpr auto kPermute = [](uint32_t a, uint32_t b, uint32_t c) {
  uint64_t source = (uint64_t(b) << 32) | a;
  uint32_t s = c & 3, result = 0;
  for (uint32_t i = 0; i < 4; ++i) {
    uint32_t pick;
    if constexpr (mode == kGeneric)
      pick = (c >> (4 * i)) & 0xF;
    else if constexpr (mode == kF4e)
      pick = s + i;
    else if constexpr (mode == kB4e)
      pick = (s - i) & 7;
    else if constexpr (mode == kRc8)
      pick = s;
    else if constexpr (mode == kEcl)
      pick = std::max(i, s);
    else if constexpr (mode == kEcr)
      pick = std::min(i, s);
    else
      pick = (s & 1) * 2 + (i & 1);  // kRc16
    uint32_t byte = uint32_t(source >> (8 * (pick & 7))) & 0xFF;
    if (mode == kGeneric && (pick & 8)) byte = (byte & 0x80) ? 0xFF : 0;  // the byte's sign
    result |= byte << (8 * i);
  }
  return result;
};

// shf: the 64 bits {b, a} shifted by c (clamped to 32, or mod 32); .l keeps the high word.
template <bool left, bool clamp>
constexpr auto kShf = [](uint32_t a, uint32_t b, uint32_t c) {
  uint32_t n = clamp ? std::min(c, 32u) : c & 31;
  uint64_t pair = (uint64_t(b) << 32) | a;
  return uint32_t(left ? (pair << n) >> 32 : pair >> n);
};

// lop3: bit i of the look-up table (aux) is F(a, b, c) for a = i>>2 & 1, b = i>>1 & 1, c = i & 1.
void run_lop3(Warp& warp, const Inst& inst, uint32_t mask) {
  const uint64_t* a = warp.reg(inst.op[1]);
  const uint64_t* b = warp.reg(inst.op[2]);
  const uint64_t* c = warp.reg(inst.op[3]);
  const uint32_t table = inst.aux;
  write_lanes(warp.reg(inst.op[0]), mask, [&](int lane) {
    uint32_t x = get<uint32_t>(a, lane), y = get<uint32_t>(b, lane), z = get<uint32_t>(c, lane);
    uint32_t r = 0;
    for (uint32_t i = 0; i < 8; ++i)
      if ((table >> i) & 1) r |= (i & 4 ? x : ~x) & (i & 2 ? y : ~y) & (i & 1 ? z : ~z);
    return uint64_t(r);
  });
}

// ---- decoders

// add / sub {.sat.s32} {.cc}
template <bool subtract>
void decode_add(DecodeContext& c, Inst& inst) {
  allow(c, {"sat", "cc"});
  std::string type = c.type();
  operands(c, inst, 2, type);
  if (c.has("cc")) {
    if (c.has("sat")) c.unsupported();
    inst.op[kCarry] = c.special(kCarryFlag);
    inst.run = by_type<true>(c, type, kExtended, []<class T>(Tag<T>) -> Handler {
      return run_add_carry<T, subtract, false, true>;
    });
  } else if (c.has("sat")) {
    if (type != "s32") c.unsupported();
    if constexpr (subtract)
      inst.run = run_binary<int32_t, int32_t, kSubSat>;
    else
      inst.run = run_binary<int32_t, int32_t, kAddSat>;
  } else {
    if constexpr (subtract)
      inst.run = same_type<2, kSub, true>(c, type, kIntegers);
    else
      inst.run = same_type<2, kAdd, true>(c, type, kIntegers);
  }
}

// addc / subc {.cc}: with the carry (borrow) in.
template <bool subtract>
void decode_add_carry_in(DecodeContext& c, Inst& inst) {
  allow(c, {"cc"});
  std::string type = c.type();
  operands(c, inst, 2, type);
  inst.op[kCarry] = c.special(kCarryFlag);
  auto pick = [&]<bool carry_out>() {
    return by_type<true>(c, type, kExtended, []<class T>(Tag<T>) -> Handler {
      return run_add_carry<T, subtract, true, carry_out>;
    });
  };
  inst.run = c.has("cc") ? pick.template operator()<true>() : pick.template operator()<false>();
}

void decode_mul(DecodeContext& c, Inst& inst) {
  allow(c, {"lo", "hi", "wide"});
  std::string type = c.type();
  operands(c, inst, 2, type);
  switch (mode(c)) {
    case 'l':
      inst.run = same_type<2, kMulLo, true>(c, type, kIntegers);
      break;
    case 'h':
      inst.run = same_type<2, kMulHi>(c, type, kIntegers);
      break;
    case 'w':
      inst.run = same_type<2, kMulWide>(c, type, kNarrow);
      break;
    default:
      c.unsupported();
  }
}

// mad.lo/.hi/.wide, mad.hi.sat.s32, mad{.lo,.hi}.cc; madc{.lo,.hi}{.cc} (carry_in).
template <bool carry_in>
void decode_mad(DecodeContext& c, Inst& inst) {
  allow(c, {"lo", "hi", "wide", "sat", "cc"});
  std::string type = c.type();
  char m = mode(c);
  bool cc = c.has("cc"), sat = c.has("sat");
  if (m == 'w') {
    if (cc || sat || carry_in) c.unsupported();
    std::string wide(1, type[0]);
    wide += std::to_string(2 * 8 * ptx::type_size(type));
    operands(c, inst, {type, type, wide});
    inst.run = by_type<false>(c, type, kNarrow, []<class T>(Tag<T>) -> Handler {
      return run_ternary<T, T, Twice<T>, kMadWide>;
    });
    return;
  }
  if (m == 0) c.unsupported();
  bool hi = m == 'h';
  operands(c, inst, 3, type);
  if (cc || carry_in) {
    if (sat) c.unsupported();
    inst.op[kCarry] = c.special(kCarryFlag);
    auto pick = [&]<bool in, bool out>() {
      auto make = [hi]<class T>(Tag<T>) -> Handler {
        return hi ? run_mad_carry<T, true, in, out> : run_mad_carry<T, false, in, out>;
      };
      return by_type<false>(c, type, kExtended, make);
    };
    if (!carry_in)
      inst.run = pick.template operator()<false, true>();
    else if (cc)
      inst.run = pick.template operator()<true, true>();
    else
      inst.run = pick.template operator()<true, false>();
  } else if (sat) {
    if (!hi || type != "s32") c.unsupported();
    inst.run = run_ternary<int32_t, int32_t, int32_t, kMadHiSat>;
  } else if (hi) {
    inst.run = same_type<3, kMadHi>(c, type, kIntegers);
  } else {
    inst.run = same_type<3, kMadLo, true>(c, type, kIntegers);
  }
}

void decode_mul24(DecodeContext& c, Inst& inst) {
  allow(c, {"lo", "hi"});
  std::string type = c.type();
  operands(c, inst, 2, type);
  char m = mode(c);
  if (m != 'l' && m != 'h') c.unsupported();
  inst.run = m == 'h' ? same_type<2, kMul24<true>>(c, type, kWords)
                      : same_type<2, kMul24<false>>(c, type, kWords);
}

void decode_mad24(DecodeContext& c, Inst& inst) {
  allow(c, {"lo", "hi", "sat"});
  std::string type = c.type();
  operands(c, inst, 3, type);
  char m = mode(c);
  if (m != 'l' && m != 'h') c.unsupported();
  if (c.has("sat")) {
    if (m != 'h' || type != "s32") c.unsupported();
    inst.run = run_ternary<int32_t, int32_t, int32_t, kMad24HiSat>;
    return;
  }
  inst.run = m == 'h' ? same_type<3, kMad24<true>>(c, type, kWords)
                      : same_type<3, kMad24<false>>(c, type, kWords);
}

// and, or, xor, not: b16/b32/b64, and .pred (0 and 1 stay 0 and 1).
template <int sources, auto op, auto pred_op>
void decode_logic(DecodeContext& c, Inst& inst) {
  allow(c, {});
  std::string type = c.type();
  operands(c, inst, sources, type);
  if (type != "pred")
    inst.run = same_type<sources, op, true>(c, type, kBitTypes);
  else if constexpr (sources == 1)
    inst.run = run_unary<uint8_t, pred_op>;
  else
    inst.run = run_binary<uint8_t, uint8_t, pred_op>;
}

void decode_bfind(DecodeContext& c, Inst& inst) {
  allow(c, {"shiftamt"});
  std::string type = c.type();
  operands(c, inst, 1, type);
  inst.run = c.has("shiftamt") ? same_type<1, kBfind<true>>(c, type, kExtended)
                               : same_type<1, kBfind<false>>(c, type, kExtended);
}

template <bool left>
void decode_shift(DecodeContext& c, Inst& inst) {
  allow(c, {});
  std::string type = c.type();
  operands(c, inst, {type, "u32"});
  if constexpr (left)
    inst.run = by_type<true>(c, type, kBitTypes, []<class T>(Tag<T>) -> Handler {
      return run_binary<T, uint32_t, kShl>;
    });
  else
    inst.run = by_type<false>(c, type, kShifted, []<class T>(Tag<T>) -> Handler {
      return run_binary<T, uint32_t, kShr>;
    });
}

void decode_bfe(DecodeContext& c, Inst& inst) {
  allow(c, {});
  std::string type = c.type();
  operands(c, inst, {type, "u32", "u32"});
  inst.run = by_type<false>(c, type, kExtracted, []<class T>(Tag<T>) -> Handler {
    return run_ternary<T, uint32_t, uint32_t, kBfe>;
  });
}

void decode_bfi(DecodeContext& c, Inst& inst) {
  allow(c, {});
  std::string type = c.type();
  operands(c, inst, {type, type, "u32", "u32"});
  inst.run =
      by_type<true>(c, type, kWideBits, []<class T>(Tag<T>) -> Handler { return run_bfi<T>; });
}

void decode_prmt(DecodeContext& c, Inst& inst) {
  allow(c, {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"});
  if (c.type() != "b32") c.unsupported();
  operands(c, inst, 3, "b32");
  using U = uint32_t;
  static constexpr std::pair<const char*, Handler> modes[] = {
      {"f4e", run_ternary<U, U, U, kPermute<kF4e>>},
      {"b4e", run_ternary<U, U, U, kPermute<kB4e>>},
      {"rc8", run_ternary<U, U, U, kPermute<kRc8>>},
      {"ecl", run_ternary<U, U, U, kPermute<kEcl>>},
      {"ecr", run_ternary<U, U, U, kPermute<kEcr>>},
      {"rc16", run_ternary<U, U, U, kPermute<kRc16>>}};
  inst.run = run_ternary<U, U, U, kPermute<kGeneric>>;
  int named = 0;
  for (const auto& [name, run] : modes)
    if (c.has(name)) inst.run = run, ++named;
  if (named > 1) c.unsupported();
}

void decode_shf(DecodeContext& c, Inst& inst) {
  allow(c, {"l", "r", "clamp", "wrap"});
  if (c.type() != "b32" || c.has("l") == c.has("r") || c.has("clamp") == c.has("wrap"))
    c.unsupported();
  operands(c, inst, 3, "b32");
  using U = uint32_t;
  if (c.has("l"))
    inst.run = c.has("clamp") ? run_ternary<U, U, U, kShf<true, true>>
                              : run_ternary<U, U, U, kShf<true, false>>;
  else
    inst.run = c.has("clamp") ? run_ternary<U, U, U, kShf<false, true>>
                              : run_ternary<U, U, U, kShf<false, false>>;
}

void decode_lop3(DecodeContext& c, Inst& inst) {
  allow(c, {});
  if (c.type() != "b32") c.unsupported();
  expect_operands(c, 5);
  inst.op[0] = c.reg(c.operand(0));
  for (size_t i = 1; i <= 3; ++i) inst.op[i] = source(c, i, "b32");
  const ptx::Operand& table = c.operand(4);
  if (table.kind != ptx::Operand::Kind::Integer || table.bits > 255)
    c.error("expects an immediate look-up table in 0..255");
  inst.aux = uint8_t(table.bits);
  inst.run = run_lop3;
}

// mov's pack (d, {a, b..}) or unpack ({a, b..}, s) handler for a `size`-byte register.
}  // namespace

void register_integer_ops(OpcodeTable& table) {
  table["add"] = decode_add<false>;
  table["sub"] = decode_add<true>;
  table["addc"] = decode_add_carry_in<false>;
  table["subc"] = decode_add_carry_in<true>;
  table["mul"] = decode_mul;
  table["mad"] = decode_mad<false>;
  table["madc"] = decode_mad<true>;
  table["mul24"] = decode_mul24;
  table["mad24"] = decode_mad24;
  table["sad"] = [](DecodeContext& c, Inst& i) { decode_plain<3, kSad>(c, i, kIntegers); };
  table["div"] = [](DecodeContext& c, Inst& i) { decode_plain<2, kDiv>(c, i, kIntegers); };
  table["rem"] = [](DecodeContext& c, Inst& i) { decode_plain<2, kRem>(c, i, kIntegers); };
  table["min"] = [](DecodeContext& c, Inst& i) { decode_plain<2, kMin>(c, i, kIntegers); };
  table["max"] = [](DecodeContext& c, Inst& i) { decode_plain<2, kMax>(c, i, kIntegers); };
  table["abs"] = [](DecodeContext& c, Inst& i) { decode_plain<1, kAbs>(c, i, kSigned); };
  table["neg"] = [](DecodeContext& c, Inst& i) { decode_plain<1, kNeg>(c, i, kSigned); };
  table["and"] = decode_logic<2, kAnd, kAnd>;
  table["or"] = decode_logic<2, kOr, kOr>;
  table["xor"] = decode_logic<2, kXor, kXor>;
  table["not"] = decode_logic<1, kNot, kNotPred>;
  table["cnot"] = [](DecodeContext& c, Inst& i) { decode_plain<1, kCnot, true>(c, i, kBitTypes); };
  table["popc"] = [](DecodeContext& c, Inst& i) { decode_plain<1, kPopc, true>(c, i, kWideBits); };
  table["clz"] = [](DecodeContext& c, Inst& i) { decode_plain<1, kClz, true>(c, i, kWideBits); };
  table["brev"] = [](DecodeContext& c, Inst& i) { decode_plain<1, kBrev, true>(c, i, kWideBits); };
  table["bfind"] = decode_bfind;
  table["shl"] = decode_shift<true>;
  table["shr"] = decode_shift<false>;
  table["bfe"] = decode_bfe;
  table["bfi"] = decode_bfi;
  table["prmt"] = decode_prmt;
  table["shf"] = decode_shf;
  table["lop3"] = decode_lop3;
}

}  // namespace cudajit::sim
