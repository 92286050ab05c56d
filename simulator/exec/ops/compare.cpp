// setp and set: a comparison of two values, optionally combined with a predicate c
// (.and/.or/.xor, c possibly negated). setp writes a predicate (0 or 1), and to its second
// destination (p|q) the same combination of the complement of the comparison; set writes
// 0xffffffff or 1.0f for true, 0 for false. The handler is instantiated per type and
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

// Inst::aux: the combination, whether c is negated, what set writes for true.
enum : uint8_t { kCombine = 3, kAnd = 1, kOr = 2, kXor = 3, kNegateC = 4, kSet = 8, kSetF32 = 16 };
// Inst::count: a setp with one destination and no combination (the common case).
constexpr uint8_t kPlain = 1;

// .ftz: a subnormal f32 is read as a zero of its sign.
inline float flushed(uint32_t bits) {
  if ((bits & 0x7F800000u) == 0) bits &= 0x80000000u;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// T: the register's type; Half and BFloat are read as the float they hold (exactly).
template <class T, bool ftz>
inline auto operand(const uint64_t* slot, int lane) {
  if constexpr (std::is_same_v<T, Half>) {
    auto bits = uint16_t(slot[lane]);
    if (ftz) bits = flush_half(bits);
    return half_to_float(Half{bits});
  } else if constexpr (std::is_same_v<T, BFloat>) {
    return bfloat_to_float(BFloat{uint16_t(slot[lane])});
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

// p = t, or the combination of t with c; q the combination of !t with c; set's encoding.
void combine(Warp& warp, const Inst& inst, uint32_t mask, const uint8_t* t) {
  const uint8_t op = inst.aux & kCombine;
  const uint64_t negate = (inst.aux & kNegateC) ? 1 : 0;
  const uint64_t* c = op ? warp.reg(inst.op[3]) : nullptr;
  uint64_t* p = inst.op[0] == kNoSlot ? nullptr : warp.reg(inst.op[0]);
  uint64_t* q = inst.op[kSecond] == kNoSlot ? nullptr : warp.reg(inst.op[kSecond]);
  const uint64_t truth = !(inst.aux & kSet) ? 1 : (inst.aux & kSetF32) ? 0x3F800000u : 0xFFFFFFFFu;
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
    bool x = t[lane];
    if (p) p[lane] = apply(x) ? truth : 0;
    if (q) q[lane] = apply(!x) ? truth : 0;
  });
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

template <class T, bool ftz = false>
Handler by_comparison(uint8_t cmp) {
  switch (cmp) {
    case kEq:
      return run_compare<T, kEq, ftz>;
    case kNe:
      return run_compare<T, kNe, ftz>;
    case kLt:
      return run_compare<T, kLt, ftz>;
    case kLe:
      return run_compare<T, kLe, ftz>;
    case kGt:
      return run_compare<T, kGt, ftz>;
    case kGe:
      return run_compare<T, kGe, ftz>;
  }
  if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Half> ||
                std::is_same_v<T, BFloat>) {
    switch (cmp) {
      case kEqu:
        return run_compare<T, kEqu, ftz>;
      case kNeu:
        return run_compare<T, kNeu, ftz>;
      case kLtu:
        return run_compare<T, kLtu, ftz>;
      case kLeu:
        return run_compare<T, kLeu, ftz>;
      case kGtu:
        return run_compare<T, kGtu, ftz>;
      case kGeu:
        return run_compare<T, kGeu, ftz>;
      case kNum:
        return run_compare<T, kNum, ftz>;
      case kNan:
        return run_compare<T, kNan, ftz>;
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
  if (ftz && type != "f32" && type != "f16") c.unsupported();
  if (type == "f16")
    return ftz ? by_comparison<Half, true>(named.cmp) : by_comparison<Half>(named.cmp);
  if (type == "bf16") return by_comparison<BFloat>(named.cmp);
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
  inst.run = comparison_handler(c, type, *named, ftz);
  if (!inst.run) c.unsupported();

  if (c.operand_count() != (op ? 4u : 3u))
    c.error(op ? "expects d, a, b and a predicate c" : "expects d, a and b");
  using Kind = ptx::Operand::Kind;
  const ptx::Operand& d = c.operand(0);
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
    inst.op[i] = c.value(c.operand(i), sixteen ? "b16" : type);
  }
  inst.aux = op;
  if (op) {
    const ptx::Operand& with = c.operand(3);
    inst.op[3] = c.value(with, "pred");
    if (with.negated) inst.aux |= kNegateC;
  }
  if (set) {
    const std::string& dtype = types[0];
    if (dtype != "u32" && dtype != "s32" && dtype != "f32") c.unsupported();
    inst.aux |= kSet | (dtype == "f32" ? kSetF32 : 0);
  }
  inst.count = !set && !op && inst.op[kSecond] == kNoSlot ? kPlain : 0;
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
