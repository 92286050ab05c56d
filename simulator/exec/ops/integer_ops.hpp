// What the integer instructions' files share (integer.cpp, moves.cpp): the C++ types of
// PTX's integer types, the lane loops that run an operation over a warp's lanes, and the
// decoding helpers that check types, modifiers and operands against the PTX ISA.
#pragma once
#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "../decode_context.hpp"
#include "../warp.hpp"

namespace cudajit::sim::integer_ops {

// op[0] the destination, op[1..4] the sources in PTX order, op[5] the carry flag (CC.CF) or
// an unpacking mov's source.
constexpr int kCarry = 5, kUnpacked = 5;

// ---- types

template <class T>
struct Tag {
  using type = T;
};

template <class T>
using Unsigned = std::make_unsigned_t<T>;

// Unsigned arithmetic at least as wide as int: uint16_t * uint16_t would promote to int and
// could overflow it.
template <class T>
using Arith = std::conditional_t<(sizeof(T) < 4), uint32_t, Unsigned<T>>;

// The type twice as wide as T, of T's signedness (mul.wide, mad.wide).
template <class T>
using Twice =
    std::conditional_t<sizeof(T) == 2, std::conditional_t<std::is_signed_v<T>, int32_t, uint32_t>,
                       std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;

template <class T>
constexpr uint32_t kBits = uint32_t(8 * sizeof(T));

// A result's register bits: zero-extended from its width.
template <class T>
inline uint64_t bits_of(T value) {
  static_assert(std::is_integral_v<T>);
  return uint64_t(Unsigned<T>(value));
}

using TypeList = std::span<const std::string_view>;

constexpr std::string_view kIntegers[] = {"u16", "u32", "u64", "s16", "s32", "s64"};
constexpr std::string_view kNarrow[] = {"u16", "u32", "s16", "s32"};  // .wide sources
constexpr std::string_view kWords[] = {"u32", "s32"};                 // mul24, mad24
constexpr std::string_view kExtended[] = {"u32", "s32", "u64", "s64"};
constexpr std::string_view kSigned[] = {"s16", "s32", "s64"};
constexpr std::string_view kBitTypes[] = {"b16", "b32", "b64"};
constexpr std::string_view kWideBits[] = {"b32", "b64"};
constexpr std::string_view kShifted[] = {"b16", "b32", "b64", "u16", "u32",
                                         "u64", "s16", "s32", "s64"};
// bfe: .b32/.b64 (as in the ISA's own example) extract without sign, as .u32/.u64.
constexpr std::string_view kExtracted[] = {"u32", "u64", "s32", "s64", "b32", "b64"};
constexpr std::string_view kMovable[] = {"b16",  "b32", "b64", "u16",   "u32",
                                         "u64",  "s16", "s32", "s64",   "f16",
                                         "bf16", "f32", "f64", "f16x2", "bf16x2"};

// Calls make(Tag<T>{}) with the C++ type of PTX `type`, which must be one of `accepted`.
// With `signless`, signed types map to the unsigned type of their size (for operations whose
// bits do not depend on the sign); float types map to their bits.
template <bool signless, class F>
Handler by_type(const DecodeContext& c, const std::string& type, TypeList accepted, F make) {
  if (std::find(accepted.begin(), accepted.end(), type) == accepted.end()) c.unsupported();
  int size = ptx::type_size(type);
  if constexpr (!signless) {
    if (type[0] == 's') {
      switch (size) {
        case 2:
          return make(Tag<int16_t>{});
        case 4:
          return make(Tag<int32_t>{});
        case 8:
          return make(Tag<int64_t>{});
      }
    }
  }
  switch (size) {
    case 2:
      return make(Tag<uint16_t>{});
    case 4:
      return make(Tag<uint32_t>{});
    case 8:
      return make(Tag<uint64_t>{});
  }
  c.unsupported();
}

// ---- lane loops

// d[lane] = f(lane) for the lanes of `mask`. A full warp runs a plain loop into a local
// array (d may be one of the sources), which the compiler vectorises.
template <class F>
inline void write_lanes(uint64_t* d, uint32_t mask, F f) {
  if (mask == kFullMask) {
    uint64_t out[kWarpSize];
    for (int lane = 0; lane < kWarpSize; ++lane) out[lane] = f(lane);
    std::memcpy(d, out, sizeof out);
  } else {
    for_lanes(mask, [&](int lane) { d[lane] = f(lane); });
  }
}

// d = op(a), op(a, b), op(a, b, c) with sources of types A, B, C; op's result type is d's.
template <class A, auto op>
void run_unary(Warp& warp, const Inst& inst, uint32_t mask) {
  const uint64_t* a = warp.reg(inst.op[1]);
  write_lanes(warp.reg(inst.op[0]), mask, [&](int lane) { return bits_of(op(get<A>(a, lane))); });
}

template <class A, class B, auto op>
void run_binary(Warp& warp, const Inst& inst, uint32_t mask) {
  const uint64_t* a = warp.reg(inst.op[1]);
  const uint64_t* b = warp.reg(inst.op[2]);
  write_lanes(warp.reg(inst.op[0]), mask,
              [&](int lane) { return bits_of(op(get<A>(a, lane), get<B>(b, lane))); });
}

template <class A, class B, class C, auto op>
void run_ternary(Warp& warp, const Inst& inst, uint32_t mask) {
  const uint64_t* a = warp.reg(inst.op[1]);
  const uint64_t* b = warp.reg(inst.op[2]);
  const uint64_t* c = warp.reg(inst.op[3]);
  write_lanes(warp.reg(inst.op[0]), mask, [&](int lane) {
    return bits_of(op(get<A>(a, lane), get<B>(b, lane), get<C>(c, lane)));
  });
}

// The handler applying `op` to `sources` sources of the instruction's type.
template <int sources, auto op, bool signless = false>
Handler same_type(const DecodeContext& c, const std::string& type, TypeList accepted) {
  return by_type<signless>(c, type, accepted, []<class T>(Tag<T>) -> Handler {
    if constexpr (sources == 1)
      return run_unary<T, op>;
    else if constexpr (sources == 2)
      return run_binary<T, T, op>;
    else
      return run_ternary<T, T, T, op>;
  });
}

// ---- decoding helpers

// Refuses any modifier that is not a type or one of `allowed`.
inline void allow(const DecodeContext& c, std::initializer_list<std::string_view> allowed) {
  for (const auto& m : c.instruction().modifiers)
    if (ptx::type_size(m) == 0 && std::find(allowed.begin(), allowed.end(), m) == allowed.end())
      c.unsupported();
}

inline void expect_operands(const DecodeContext& c, size_t count) {
  if (c.operand_count() != count)
    c.error("expects " + std::to_string(count) + " operands, has " +
            std::to_string(c.operand_count()));
}

inline uint32_t source(DecodeContext& c, size_t i, const std::string& type) {
  const ptx::Operand& o = c.operand(i);
  if (o.negated) c.error("a negated operand ('!') is not allowed here");
  return c.value(o, type);
}

// d, then one source of each of `types`.
inline void operands(DecodeContext& c, Inst& inst, std::initializer_list<std::string> types) {
  expect_operands(c, types.size() + 1);
  inst.op[0] = c.reg(c.operand(0));
  size_t i = 1;
  for (const auto& type : types) inst.op[i] = source(c, i, type), ++i;
}

// d and `count` sources of `type`.
inline void operands(DecodeContext& c, Inst& inst, size_t count, const std::string& type) {
  expect_operands(c, count + 1);
  inst.op[0] = c.reg(c.operand(0));
  for (size_t i = 1; i <= count; ++i) inst.op[i] = source(c, i, type);
}

}  // namespace cudajit::sim::integer_ops
