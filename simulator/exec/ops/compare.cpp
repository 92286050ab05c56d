// setp and set: a comparison of two values, optionally combined with a predicate c
// (.and/.or/.xor, c possibly negated). setp writes a predicate (0 or 1), and to its second
// destination (p|q) the same combination of the complement of the comparison; set writes
// its destination type's true (0xffffffff, 0xffff, 1.0f, 1.0 as f16 or bf16) or 0. The .f16x2
// and .bf16x2 forms compare both halves: setp writes the low half's result to p and the high
// half's to q, set packs two 16-bit results. The handler is instantiated per type and
// comparison; the combination, rarer, is a loop shared by all of them.
#include <algorithm>
#include <string_view>
#include <type_traits>

#include "../decode_context.hpp"
#include "../warp.hpp"
#include "float_bits.hpp"

namespace cudajit::sim {

namespace {

// op[0] p (kNoSlot for `_`), op[1] a, op[2] b, op[3] c, op[4] q (kNoSlot: none).
constexpr int kSecond = 4;

enum Comparison : uint8_t {
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,  // integers and ordered floats (false on NaN)
  kEqu,
  kNeu,
  kLtu,
  kLeu,
  kGtu,
  kGeu,  // unordered floats (true on NaN)
  kNum,
  kNan,
};

// Inst::aux: the combination, whether c is negated, set (whose true value is Inst::offset),
// two comparisons per operand (.f16x2, .bf16x2).
enum : uint8_t { kCombine = 3, kAnd = 1, kOr = 2, kXor = 3, kNegateC = 4, kSet = 8, kPair = 16 };
// Inst::count: a setp with one destination and no combination (the common case).
constexpr uint8_t kPlain = 1;

// .ftz: a subnormal f32 is read as a zero of its sign.
inline float flushed(uint32_t bits) {
  if ((bits & 0x7F800000u) == 0) bits &= 0x80000000u;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// T: the register's type; Half and BFloat are read as the float they hold (exactly), from the
// 16 bits at `shift` (16: the high half of an .f16x2/.bf16x2 register).
template <class T, bool ftz>
inline auto operand(const uint64_t* slot, int lane, int shift = 0) {
  if constexpr (std::is_same_v<T, Half>) {
    auto bits = uint16_t(slot[lane] >> shift);
    if (ftz) bits = flush_half(bits);
    return half_to_float(Half{bits});
  } else if constexpr (std::is_same_v<T, BFloat>) {
    return bfloat_to_float(BFloat{uint16_t(slot[lane] >> shift)});
  } else if constexpr (ftz) {
    return flushed(get<uint32_t>(slot, lane));
  } else {
    return get<T>(slot, lane);
  }
}

template <uint8_t cmp, class T>
inline bool compare(T a, T b) {
  if constexpr (cmp == kEq)
    return a == b;
  else if constexpr (cmp == kNe)
    return a < b || b < a;  // false on NaN
  else if constexpr (cmp == kLt)
    return a < b;
  else if constexpr (cmp == kLe)
    return a <= b;
  else if constexpr (cmp == kGt)
    return a > b;
  else if constexpr (cmp == kGe)
    return a >= b;
  else if constexpr (cmp == kEqu)
    return !(a < b || b < a);
  else if constexpr (cmp == kNeu)
    return a != b;  // true on NaN
  else if constexpr (cmp == kLtu)
    return !(a >= b);
  else if constexpr (cmp == kLeu)
    return !(a > b);
  else if constexpr (cmp == kGtu)
    return !(a <= b);
  else if constexpr (cmp == kGeu)
    return !(a < b);
  else if constexpr (cmp == kNum)
    return a == a && b == b;
  else
    return a != a || b != b;  // kNan
}

// t[lane]: the comparison (bit 0), and the high half's (bit 1) for a pair.
// setp: p = t, or the combination of t with c; q the combination of !t with c (of the high
// half's t for a pair). set: d = the combination's true value or 0, per half for a pair.
void combine(Warp& warp, const Inst& inst, uint32_t mask, const uint8_t* t) {
  const uint8_t op = inst.aux & kCombine;
  const uint64_t negate = (inst.aux & kNegateC) ? 1 : 0;
  const bool set = inst.aux & kSet, pair = inst.aux & kPair;
  const uint64_t* c = op ? warp.reg(inst.op[3]) : nullptr;
  uint64_t* p = inst.op[0] == kNoSlot ? nullptr : warp.reg(inst.op[0]);
  uint64_t* q = inst.op[kSecond] == kNoSlot ? nullptr : warp.reg(inst.op[kSecond]);
  const uint64_t truth = set ? uint64_t(inst.offset) : 1;
  for_lanes(mask, [&](int lane) {
    bool with = c && ((c[lane] & 1) ^ negate);  // read before p or q, which may be c
    auto apply = [&](bool v) {
      switch (op) {
        case kAnd:
          return v && with;
        case kOr:
          return v || with;
        case kXor:
          return v != with;
      }
      return v;
    };
    bool x = t[lane] & 1, high = t[lane] & 2;
    if (set && pair) {
      p[lane] = (apply(x) ? truth : 0) | (apply(high) ? truth : 0) << 16;
    } else if (pair) {
      if (p) p[lane] = apply(x);
      if (q) q[lane] = apply(high);
    } else {
      if (p) p[lane] = apply(x) ? truth : 0;
      if (q) q[lane] = apply(!x) ? truth : 0;
    }
  });
}

// .f16x2 and .bf16x2: each half compared on its own.
template <class T, uint8_t cmp, bool ftz>
void run_compare_pair(Warp& warp, const Inst& inst, uint32_t mask) {
  const uint64_t* a = warp.reg(inst.op[1]);
  const uint64_t* b = warp.reg(inst.op[2]);
  uint8_t t[kWarpSize] = {};
  for_lanes(mask, [&](int lane) {
    t[lane] = compare<cmp>(operand<T, ftz>(a, lane), operand<T, ftz>(b, lane)) |
              compare<cmp>(operand<T, ftz>(a, lane, 16), operand<T, ftz>(b, lane, 16)) << 1;
  });
  combine(warp, inst, mask, t);
}

template <class T, uint8_t cmp, bool ftz>
void run_compare(Warp& warp, const Inst& inst, uint32_t mask) {
  const uint64_t* a = warp.reg(inst.op[1]);
  const uint64_t* b = warp.reg(inst.op[2]);
  if (inst.count == kPlain) {
    uint64_t* p = warp.reg(inst.op[0]);
    if (mask == kFullMask) {
      uint64_t out[kWarpSize];
      for (int lane = 0; lane < kWarpSize; ++lane)
        out[lane] = compare<cmp>(operand<T, ftz>(a, lane), operand<T, ftz>(b, lane));
      std::memcpy(p, out, sizeof out);
    } else {
      for_lanes(mask, [&](int lane) {
        p[lane] = compare<cmp>(operand<T, ftz>(a, lane), operand<T, ftz>(b, lane));
      });
    }
    return;
  }
  uint8_t t[kWarpSize] = {};
  for_lanes(mask, [&](int lane) {
    t[lane] = compare<cmp>(operand<T, ftz>(a, lane), operand<T, ftz>(b, lane));
  });
  combine(warp, inst, mask, t);
}

template <class T, uint8_t cmp, bool ftz, bool pair>
constexpr Handler handler() {
  if constexpr (pair)
    return run_compare_pair<T, cmp, ftz>;
  else
    return run_compare<T, cmp, ftz>;
}

template <class T, bool ftz = false, bool pair = false>
Handler by_comparison(uint8_t cmp) {
  switch (cmp) {
    case kEq:
      return handler<T, kEq, ftz, pair>();
    case kNe:
      return handler<T, kNe, ftz, pair>();
    case kLt:
      return handler<T, kLt, ftz, pair>();
    case kLe:
      return handler<T, kLe, ftz, pair>();
    case kGt:
      return handler<T, kGt, ftz, pair>();
    case kGe:
      return handler<T, kGe, ftz, pair>();
  }
  if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Half> ||
                std::is_same_v<T, BFloat>) {
    switch (cmp) {
      case kEqu:
        return handler<T, kEqu, ftz, pair>();
      case kNeu:
        return handler<T, kNeu, ftz, pair>();
      case kLtu:
        return handler<T, kLtu, ftz, pair>();
      case kLeu:
        return handler<T, kLeu, ftz, pair>();
      case kGtu:
        return handler<T, kGtu, ftz, pair>();
      case kGeu:
        return handler<T, kGeu, ftz, pair>();
      case kNum:
        return handler<T, kNum, ftz, pair>();
      case kNan:
        return handler<T, kNan, ftz, pair>();
    }
  }
  return nullptr;
}

struct Named {
  std::string_view name;
  Comparison cmp;
  bool unsigned_only;  // lo, ls, hi, hs
};
constexpr Named kComparisons[] = {{"eq", kEq, false},   {"ne", kNe, false},   {"lt", kLt, false},
                                  {"le", kLe, false},   {"gt", kGt, false},   {"ge", kGe, false},
                                  {"lo", kLt, true},    {"ls", kLe, true},    {"hi", kGt, true},
                                  {"hs", kGe, true},    {"equ", kEqu, false}, {"neu", kNeu, false},
                                  {"ltu", kLtu, false}, {"leu", kLeu, false}, {"gtu", kGtu, false},
                                  {"geu", kGeu, false}, {"num", kNum, false}, {"nan", kNan, false}};

// The handler for comparing two `type` values, or unsupported() for a comparison the type
// does not have (bit types: eq and ne; lo/ls/hi/hs: unsigned; equ..nan: floats; .ftz: f32).
Handler comparison_handler(const DecodeContext& c, const std::string& type, const Named& named,
                           bool ftz) {
  bool is_float = named.cmp >= kEqu;
  if (ftz && type != "f32" && type != "f16" && type != "f16x2") c.unsupported();
  if (type == "f16")
    return ftz ? by_comparison<Half, true>(named.cmp) : by_comparison<Half>(named.cmp);
  if (type == "f16x2")
    return ftz ? by_comparison<Half, true, true>(named.cmp)
               : by_comparison<Half, false, true>(named.cmp);
  if (type == "bf16") return by_comparison<BFloat>(named.cmp);
  if (type == "bf16x2") return by_comparison<BFloat, false, true>(named.cmp);
  if (type == "f32")
    return ftz ? by_comparison<float, true>(named.cmp) : by_comparison<float>(named.cmp);
  if (type == "f64") return by_comparison<double>(named.cmp);
  if (is_float) c.unsupported();
  char kind = type[0];
  if (named.unsigned_only && kind != 'u') c.unsupported();
  if (kind == 'b' && named.cmp != kEq && named.cmp != kNe) c.unsupported();
  int size = ptx::type_size(type);
  if (kind == 's') {
    if (size == 2) return by_comparison<int16_t>(named.cmp);
    if (size == 4) return by_comparison<int32_t>(named.cmp);
    if (size == 8) return by_comparison<int64_t>(named.cmp);
  } else if (kind == 'u' || kind == 'b') {
    if (size == 2) return by_comparison<uint16_t>(named.cmp);
    if (size == 4) return by_comparison<uint32_t>(named.cmp);
    if (size == 8) return by_comparison<uint64_t>(named.cmp);
  }
  c.unsupported();
}

// What set writes for true: the destination type's all-ones or 1.0 (per half for a pair), for
// the pairs of types the PTX ISA lists (set, and "Half Precision Comparison Instructions: set").
uint64_t set_true_value(const DecodeContext& c, const std::string& dtype, const std::string& stype,
                        bool ftz) {
  const bool half_source = stype == "f16" || stype == "bf16";
  if (ftz && dtype.starts_with("bf16")) c.unsupported();
  uint64_t truth = 0;
  if (stype == "f16x2" || stype == "bf16x2") {
    if (dtype == "u32" || dtype == "s32")
      truth = 0xFFFF;
    else if (dtype == stype)
      truth = stype == "f16x2" ? 0x3C00 : 0x3F80;
    else
      c.unsupported();
  } else if (dtype == "u32" || dtype == "s32") {
    truth = 0xFFFFFFFFu;
  } else if ((dtype == "u16" || dtype == "s16") && half_source) {
    truth = 0xFFFF;
  } else if (dtype == "f32" && !half_source) {
    truth = 0x3F800000u;  // 1.0f
  } else if (dtype == "f16") {
    truth = 0x3C00;  // 1.0 as f16
  } else if (dtype == "bf16") {
    truth = 0x3F80;  // 1.0 as bf16
  } else {
    c.unsupported();
  }
  if (stype.starts_with("bf16") || dtype.starts_with("bf16"))
    c.require(90, 7, 8);  // the bf16 forms: PTX ISA 7.8, sm_90
  return truth;
}

// setp.CmpOp{.BoolOp}{.ftz}.type p[|q], a, b{, {!}c}
// set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, {!}c}
template <bool set>
void decode_compare(DecodeContext& c, Inst& inst) {
  const Named* named = nullptr;
  uint8_t op = 0;
  bool ftz = false;
  for (const auto& m : c.instruction().modifiers) {
    if (ptx::type_size(m) != 0) continue;
    auto it = std::find_if(std::begin(kComparisons), std::end(kComparisons),
                           [&](const Named& n) { return n.name == m; });
    uint8_t combination = m == "and" ? kAnd : m == "or" ? kOr : m == "xor" ? kXor : 0;
    if (it != std::end(kComparisons) && !named)
      named = it;
    else if (combination && !op)
      op = combination;
    else if (m == "ftz" && !ftz)
      ftz = true;
    else
      c.unsupported();
  }
  if (!named) c.unsupported();
  auto types = c.types();
  if (types.size() != (set ? 2u : 1u)) c.unsupported();
  const std::string& type = types.back();
  const bool pair = type == "f16x2" || type == "bf16x2";
  inst.run = comparison_handler(c, type, *named, ftz);
  if (!inst.run) c.unsupported();
  if (set) inst.offset = set_true_value(c, types[0], type, ftz);

  if (c.operand_count() != (op ? 4u : 3u))
    c.error(op ? "expects d, a, b and a predicate c" : "expects d, a and b");
  using Kind = ptx::Operand::Kind;
  const ptx::Operand& d = c.operand(0);
  if (!set && pair && (d.kind != Kind::Vector || d.name != "|"))
    c.error("expects two destinations p|q, one per half");
  if (!set && d.kind == Kind::Vector && d.name == "|") {
    const ptx::Operand &p = d.elements[0], &q = d.elements[1];
    if (p.kind == Kind::Sink && q.kind == Kind::Sink) c.error("both destinations are '_'");
    inst.op[0] = p.kind == Kind::Sink ? kNoSlot : c.reg(p);
    inst.op[kSecond] = q.kind == Kind::Sink ? kNoSlot : c.reg(q);
  } else {
    inst.op[0] = c.reg(d);
  }
  const bool sixteen = type == "f16" || type == "bf16";  // held in .b16 registers
  for (size_t i = 1; i <= 2; ++i) {
    if (c.operand(i).negated) c.error("only the predicate c may be negated");
    inst.op[i] = c.value(c.operand(i), sixteen ? "b16" : pair ? "b32" : type);
  }
  inst.aux = op;
  if (op) {
    const ptx::Operand& with = c.operand(3);
    inst.op[3] = c.value(with, "pred");
    if (with.negated) inst.aux |= kNegateC;
  }
  if (set) inst.aux |= kSet;
  if (pair) inst.aux |= kPair;
  inst.count = !set && !op && !pair && inst.op[kSecond] == kNoSlot ? kPlain : 0;
}

}  // namespace

void register_compare_ops(OpcodeTable& table) {
  table["setp"] = decode_compare<false>;
  table["set"] = decode_compare<true>;
  // The decoder looks up "<opcode>.float" for instructions naming a float type.
  table["setp.float"] = decode_compare<false>;
  table["set.float"] = decode_compare<true>;
}

}  // namespace cudajit::sim
