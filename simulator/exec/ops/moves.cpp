// The moves and selections between registers: mov (of registers, immediates, symbols'
// addresses, counters such as %clock64, and packing and unpacking vectors), selp and slct;
// the same instructions move and select float bits.
#include <algorithm>
#include <atomic>
#include <chrono>

#include "../special_registers.hpp"
#include "integer_ops.hpp"

namespace cudajit::sim {

namespace {

using namespace integer_ops;

// ---- moves and selections

constexpr auto kMov = []<class T>(T a) { return a; };
constexpr auto kMovPred = [](uint8_t a) { return uint8_t(a != 0); };
constexpr auto kSelp = []<class T>(T a, T b, uint8_t c) { return (c & 1) ? a : b; };

// slct: a where c >= 0, else b. For f32 c, -0 >= 0 and NaN selects b; .ftz reads a subnormal
// c as a zero of its sign, which selects a.
enum SelectOn : uint8_t { kSignOfS32, kSignOfF32, kSignOfF32Ftz };

template <uint8_t on>
constexpr auto kSlct = []<class T>(T a, T b, uint32_t c) {
  bool take_a;
  if constexpr (on == kSignOfS32) {
    take_a = int32_t(c) >= 0;
  } else {
    float f;
    std::memcpy(&f, &c, 4);
    take_a = f >= 0.0f || (on == kSignOfF32Ftz && (c & 0x7F800000u) == 0);
  }
  return take_a ? a : b;
};

// mov d, {a, b(, c, d)}: elements from the low bits up.
template <class U, int count>
void run_pack(Warp& warp, const Inst& inst, uint32_t mask) {
  constexpr uint32_t width = kBits<U> / count;
  constexpr uint64_t element = (uint64_t(1) << width) - 1;
  const uint64_t* parts[count];
  for (int i = 0; i < count; ++i) parts[i] = warp.reg(inst.op[1 + i]);
  write_lanes(warp.reg(inst.op[0]), mask, [&](int lane) {
    uint64_t v = 0;
    for (int i = 0; i < count; ++i) v |= (parts[i][lane] & element) << (i * width);
    return v;
  });
}

// mov {a, b(, c, d)}, s: op[0..count) the elements (kNoSlot for `_`).
template <class U, int count>
void run_unpack(Warp& warp, const Inst& inst, uint32_t mask) {
  constexpr uint32_t width = kBits<U> / count;
  constexpr uint64_t element = (uint64_t(1) << width) - 1;
  uint64_t source[kWarpSize];
  std::memcpy(source, warp.reg(inst.op[kUnpacked]), sizeof source);  // an element may be it
  for (int i = 0; i < count; ++i) {
    if (inst.op[i] == kNoSlot) continue;
    write_lanes(warp.reg(inst.op[i]), mask,
                [&](int lane) { return (get<U>(source, lane) >> (i * width)) & element; });
  }
}

// %clock, %clock64 and %globaltimer read one counter: nanoseconds of the host's steady clock,
// forced to increase from each read to the next (all lanes of one mov read the same value),
// so that a loop waiting for it to advance always ends.
uint64_t timer_now() {
  static std::atomic<uint64_t> last{0};
  uint64_t now = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::steady_clock::now().time_since_epoch())
                              .count());
  uint64_t previous = last.load(std::memory_order_relaxed), next;
  do next = std::max(now, previous + 1);
  while (!last.compare_exchange_weak(previous, next, std::memory_order_relaxed));
  return next;
}

enum TimerPart : uint8_t { kTimer64, kTimerLow, kTimerHigh };

template <uint8_t part>
void run_timer(Warp& warp, const Inst& inst, uint32_t mask) {
  uint64_t t = timer_now();
  uint64_t value = part == kTimer64 ? t : part == kTimerLow ? uint32_t(t) : t >> 32;
  uint64_t* d = warp.reg(inst.op[0]);
  for_lanes(mask, [&](int lane) { d[lane] = value; });
}

// The handler for the counters that have no special-register slot, or nullptr.
Handler timer_handler(const DecodeContext& c, const std::string& name, const std::string& type) {
  Handler run = nullptr;
  int size = 0;
  if (name == "%clock64" || name == "%globaltimer") run = run_timer<kTimer64>, size = 8;
  if (name == "%clock" || name == "%globaltimer_lo") run = run_timer<kTimerLow>, size = 4;
  if (name == "%clock_hi" || name == "%globaltimer_hi") run = run_timer<kTimerHigh>, size = 4;
  if (run && ptx::type_size(type) != size)
    c.error(name + " is " + std::to_string(8 * size) + " bits wide, the mov is ." + type);
  return run;
}

Handler pack_handler(const DecodeContext& c, bool unpack, int size, size_t count) {
  auto pick = [&]<class U>(Tag<U>) -> Handler {
    if (count == 2) return unpack ? run_unpack<U, 2> : run_pack<U, 2>;
    if (count == 4 && sizeof(U) >= 4) return unpack ? run_unpack<U, 4> : run_pack<U, 4>;
    c.error("expects a vector of 2 or 4 elements of at least 8 bits that fill the ." + c.type());
  };
  switch (size) {
    case 2:
      return pick(Tag<uint16_t>{});
    case 4:
      return pick(Tag<uint32_t>{});
    case 8:
      return pick(Tag<uint64_t>{});
  }
  c.unsupported();
}

// mov d, {a, b..} (pack) | mov {a, b..}, s (unpack), for the bit-size types.
void decode_mov_vector(DecodeContext& c, Inst& inst, const std::string& type) {
  using Kind = ptx::Operand::Kind;
  bool unpack = c.operand(0).kind == Kind::Vector;
  const ptx::Operand& vector = c.operand(unpack ? 0 : 1);
  if (c.operand(0).kind == c.operand(1).kind ||
      (type[0] != 'b' && type[0] != 'u' && type[0] != 's'))
    c.unsupported();
  size_t count = vector.elements.size();
  int size = ptx::type_size(type);
  if (count != 2 && count != 4) c.error("expects a vector of 2 or 4 elements");
  std::string element = "b";
  element += std::to_string(8 * size / int(count));
  bool any = false;
  for (size_t i = 0; i < count; ++i) {
    const ptx::Operand& e = vector.elements[i];
    if (e.negated) c.error("a negated operand ('!') is not allowed here");
    if (!unpack)
      inst.op[1 + i] = c.value(e, element);
    else if (e.kind != Kind::Sink)
      inst.op[i] = c.reg(e), any = true;
  }
  if (unpack && !any) c.error("every element of the vector is '_'");
  if (unpack)
    inst.op[kUnpacked] = source(c, 1, type);
  else
    inst.op[0] = c.reg(c.operand(0));
  inst.run = pack_handler(c, unpack, size, count);
  inst.count = uint8_t(count);
}

// mov d, a (a register, an immediate, a symbol's address, %clock64 ...), or a pack/unpack.
void decode_mov(DecodeContext& c, Inst& inst) {
  allow(c, {});
  std::string type = c.type();
  expect_operands(c, 2);
  const ptx::Operand& a = c.operand(1);
  if (c.operand(0).kind == ptx::Operand::Kind::Vector || a.kind == ptx::Operand::Kind::Vector)
    return decode_mov_vector(c, inst, type);
  inst.op[0] = c.reg(c.operand(0));
  if (a.kind == ptx::Operand::Kind::Register) {
    if (Handler timer = timer_handler(c, a.name, type)) {
      inst.run = timer;
      return;
    }
  }
  inst.op[1] = source(c, 1, type);
  if (type == "pred")
    inst.run = run_unary<uint8_t, kMovPred>;
  else
    inst.run = same_type<1, kMov, true>(c, type, kMovable);
}

void decode_selp(DecodeContext& c, Inst& inst) {
  allow(c, {});
  std::string type = c.type();
  operands(c, inst, {type, type, "pred"});
  inst.run = by_type<true>(c, type, kMovable, []<class T>(Tag<T>) -> Handler {
    return run_ternary<T, T, uint8_t, kSelp>;
  });
}

// slct.dtype.s32 d, a, b, c | slct{.ftz}.dtype.f32 d, a, b, c
void decode_slct(DecodeContext& c, Inst& inst) {
  allow(c, {"ftz"});
  auto types = c.types();
  if (types.size() != 2) c.unsupported();
  const std::string &type = types[0], &on = types[1];
  operands(c, inst, {type, type, on});
  auto pick = [&]<uint8_t sign_of>() {
    return by_type<true>(c, type, kMovable, []<class T>(Tag<T>) -> Handler {
      return run_ternary<T, T, uint32_t, kSlct<sign_of>>;
    });
  };
  bool ftz = c.has("ftz");
  if (on == "s32" && !ftz)
    inst.run = pick.template operator()<kSignOfS32>();
  else if (on == "f32" && !ftz)
    inst.run = pick.template operator()<kSignOfF32>();
  else if (on == "f32")
    inst.run = pick.template operator()<kSignOfF32Ftz>();
  else
    c.unsupported();
}

}  // namespace

void register_move_ops(OpcodeTable& table) {
  table["mov"] = decode_mov;
  table["selp"] = decode_selp;
  table["slct"] = decode_slct;
  // The decoder looks up "<opcode>.float" for an instruction naming a float type: moving and
  // selecting float bits are these same instructions.
  table["mov.float"] = decode_mov;
  table["selp.float"] = decode_selp;
  table["slct.float"] = decode_slct;
}

}  // namespace cudajit::sim
