// Warp-level operations: activemask, vote, shfl, match, redux, bar.warp.sync. The
// warp runs in lockstep, so the lanes of a .sync operation are the lanes executing
// it: a membermask naming a live lane that is on another path of a divergent warp
// (which Volta's independent scheduling would wait for) is a fault, not a guess.
#include "../warp.hpp"

#include <bit>

#include "../decode_context.hpp"

namespace cudajit::sim {

namespace {

// op[4]: the membermask slot; op[5]: a second (predicate) destination.
constexpr int kMemberMask = 4, kPredicateOut = 5;

uint32_t member_lanes(Warp& warp, const Inst& inst, uint32_t mask) {
  if (inst.op[kMemberMask] == kNoSlot) return mask;  // the non-.sync forms
  const uint64_t* members = warp.reg(inst.op[kMemberMask]);
  uint32_t wanted = uint32_t(members[__builtin_ctz(mask)]);
  for_lanes(mask, [&](int lane) {
    if (uint32_t(members[lane]) != wanted)
      warp.fault(Fault::IllegalInstruction, inst, lane,
                 "lanes of one warp-synchronous operation pass different membermasks");
  });
  if ((mask & ~wanted) != 0)
    warp.fault(Fault::IllegalInstruction, inst, __builtin_ctz(mask & ~wanted),
               "an executing lane is not in the membermask");
  uint32_t elsewhere = wanted & ~mask & ~warp.exited;
  if (elsewhere != 0)
    warp.fault(Fault::IllegalInstruction, inst, __builtin_ctz(elsewhere),
               "the membermask names lane " + std::to_string(__builtin_ctz(elsewhere)) +
                   ", which is on another path of the divergent warp (the simulator runs a "
                   "warp's paths one after the other; see docs/dev/simulator.md)");
  return mask;
}

void run_activemask(Warp& warp, const Inst& inst, uint32_t mask) {
  uint64_t* d = warp.reg(inst.op[0]);
  for_lanes(mask, [&](int lane) { d[lane] = mask; });
}

// Predicate source, possibly negated (aux bit 0).
uint32_t predicate_bits(Warp& warp, const Inst& inst, uint32_t mask) {
  const uint64_t* a = warp.reg(inst.op[1]);
  uint32_t bits = 0;
  for_lanes(mask, [&](int lane) { bits |= uint32_t((a[lane] & 1) ^ (inst.aux & 1)) << lane; });
  return bits;
}

enum VoteMode : uint8_t { kAll = 0, kAny = 2, kUni = 4, kBallot = 6 };

template <uint8_t mode>
void run_vote(Warp& warp, const Inst& inst, uint32_t mask) {
  uint32_t lanes = member_lanes(warp, inst, mask);
  uint32_t bits = predicate_bits(warp, inst, lanes);
  uint64_t* d = warp.reg(inst.op[0]);
  uint64_t value;
  if constexpr (mode == kAll)
    value = bits == lanes;
  else if constexpr (mode == kAny)
    value = bits != 0;
  else if constexpr (mode == kUni)
    value = bits == 0 || bits == lanes;
  else
    value = bits;
  for_lanes(lanes, [&](int lane) { d[lane] = value; });
}

void decode_vote(DecodeContext& c, Inst& inst) {
  bool sync = c.has("sync");
  size_t expected = sync ? 3 : 2;
  if (c.operand_count() != expected) c.error("expects " + std::to_string(expected) + " operands");
  inst.op[0] = c.reg(c.operand(0));
  const ptx::Operand& a = c.operand(1);
  inst.op[1] = c.value(a, "pred");
  inst.aux = a.negated ? 1 : 0;
  if (sync) inst.op[kMemberMask] = c.value(c.operand(2), "b32");
  if (c.has("ballot")) {
    if (!c.has("b32")) c.unsupported();
    inst.run = run_vote<kBallot>;
  } else if (c.has("all")) {
    inst.run = run_vote<kAll>;
  } else if (c.has("any")) {
    inst.run = run_vote<kAny>;
  } else if (c.has("uni")) {
    inst.run = run_vote<kUni>;
  } else {
    c.unsupported();
  }
}

enum ShuffleMode : uint8_t { kUp, kDown, kButterfly, kIndex };

template <uint8_t mode>
void run_shfl(Warp& warp, const Inst& inst, uint32_t mask) {
  uint32_t lanes = member_lanes(warp, inst, mask);
  uint64_t* d = warp.reg(inst.op[0]);
  const uint64_t* a = warp.reg(inst.op[1]);
  const uint64_t* b = warp.reg(inst.op[2]);
  const uint64_t* c = warp.reg(inst.op[3]);
  uint64_t* p = inst.op[kPredicateOut] == kNoSlot ? nullptr : warp.reg(inst.op[kPredicateOut]);
  uint64_t source[kWarpSize];
  std::memcpy(source, a, sizeof source);  // d may be a
  for_lanes(lanes, [&](int lane) {
    int bval = int(b[lane] & 31), cval = int(c[lane] & 31), segmask = int((c[lane] >> 8) & 31);
    int max_lane = (lane & segmask) | (cval & ~segmask);
    int min_lane = lane & segmask;
    int j;
    bool pval;
    if constexpr (mode == kUp)
      j = lane - bval, pval = j >= max_lane;
    else if constexpr (mode == kDown)
      j = lane + bval, pval = j <= max_lane;
    else if constexpr (mode == kButterfly)
      j = lane ^ bval, pval = j <= max_lane;
    else
      j = min_lane | (bval & ~segmask), pval = j <= max_lane;
    if (!pval) j = lane;
    // A source lane that is not executing gives an unpredictable value on hardware; here, its
    // register's current bits.
    d[lane] = uint32_t(source[j]);
    if (p) p[lane] = pval;
  });
}

void decode_shfl(DecodeContext& c, Inst& inst) {
  bool sync = c.has("sync");
  size_t expected = sync ? 5 : 4;
  if (c.operand_count() != expected) c.error("expects " + std::to_string(expected) + " operands");
  if (!c.has("b32")) c.unsupported();
  const ptx::Operand& dst = c.operand(0);
  if (dst.kind == ptx::Operand::Kind::Vector && dst.name == "|") {
    inst.op[0] = c.reg(dst.elements[0]);
    inst.op[kPredicateOut] = c.reg(dst.elements[1]);
  } else {
    inst.op[0] = c.reg(dst);
  }
  inst.op[1] = c.value(c.operand(1), "b32");
  inst.op[2] = c.value(c.operand(2), "b32");
  inst.op[3] = c.value(c.operand(3), "b32");
  if (sync) inst.op[kMemberMask] = c.value(c.operand(4), "b32");
  if (c.has("up"))
    inst.run = run_shfl<kUp>;
  else if (c.has("down"))
    inst.run = run_shfl<kDown>;
  else if (c.has("bfly"))
    inst.run = run_shfl<kButterfly>;
  else if (c.has("idx"))
    inst.run = run_shfl<kIndex>;
  else
    c.unsupported();
}

// match.any: the lanes holding the same value; match.all: all lanes if all hold one value.
template <class T, bool all>
void run_match(Warp& warp, const Inst& inst, uint32_t mask) {
  uint32_t lanes = member_lanes(warp, inst, mask);
  uint64_t* d = warp.reg(inst.op[0]);
  const uint64_t* a = warp.reg(inst.op[1]);
  uint64_t* p = inst.op[kPredicateOut] == kNoSlot ? nullptr : warp.reg(inst.op[kPredicateOut]);
  uint32_t same[kWarpSize] = {};
  for_lanes(lanes, [&](int lane) {
    for_lanes(lanes, [&](int other) {
      if (get<T>(a, other) == get<T>(a, lane)) same[lane] |= 1u << other;
    });
  });
  bool uniform = same[__builtin_ctz(lanes)] == lanes;
  for_lanes(lanes, [&](int lane) {
    if constexpr (all) {
      d[lane] = uniform ? lanes : 0;
      if (p) p[lane] = uniform;
    } else {
      d[lane] = same[lane];
    }
  });
}

void decode_match(DecodeContext& c, Inst& inst) {
  if (!c.has("sync") || c.operand_count() != 3) c.unsupported();
  std::string type = c.type();
  bool all = c.has("all");
  if (!all && !c.has("any")) c.unsupported();
  const ptx::Operand& dst = c.operand(0);
  if (dst.kind == ptx::Operand::Kind::Vector && dst.name == "|") {
    if (!all) c.error("match.any has no predicate destination");
    inst.op[0] = c.reg(dst.elements[0]);
    inst.op[kPredicateOut] = c.reg(dst.elements[1]);
  } else {
    inst.op[0] = c.reg(dst);
  }
  inst.op[1] = c.value(c.operand(1), type);
  inst.op[kMemberMask] = c.value(c.operand(2), "b32");
  if (type == "b32")
    inst.run = all ? run_match<uint32_t, true> : run_match<uint32_t, false>;
  else if (type == "b64")
    inst.run = all ? run_match<uint64_t, true> : run_match<uint64_t, false>;
  else
    c.unsupported();
}

enum ReduxOp : uint8_t { kAdd, kMin, kMax, kAnd, kOr, kXor };

template <class T, uint8_t op>
void run_redux(Warp& warp, const Inst& inst, uint32_t mask) {
  uint32_t lanes = member_lanes(warp, inst, mask);
  uint64_t* d = warp.reg(inst.op[0]);
  const uint64_t* a = warp.reg(inst.op[1]);
  T result = get<T>(a, __builtin_ctz(lanes));
  bool first = true;
  for_lanes(lanes, [&](int lane) {
    T v = get<T>(a, lane);
    if (first) return void(first = false);
    if constexpr (op == kAdd)
      result = T(uint32_t(result) + uint32_t(v));  // wraps
    else if constexpr (op == kMin)
      result = v < result ? v : result;
    else if constexpr (op == kMax)
      result = v > result ? v : result;
    else if constexpr (op == kAnd)
      result &= v;
    else if constexpr (op == kOr)
      result |= v;
    else
      result ^= v;
  });
  for_lanes(lanes, [&](int lane) { put<T>(d, lane, result); });
}

template <class T>
Handler redux_for(const DecodeContext& c) {
  if (c.has("add")) return run_redux<T, kAdd>;
  if (c.has("min")) return run_redux<T, kMin>;
  if (c.has("max")) return run_redux<T, kMax>;
  if (c.has("and")) return run_redux<T, kAnd>;
  if (c.has("or")) return run_redux<T, kOr>;
  if (c.has("xor")) return run_redux<T, kXor>;
  return nullptr;
}

void decode_redux(DecodeContext& c, Inst& inst) {
  if (!c.has("sync") || c.operand_count() != 3) c.unsupported();
  std::string type = c.type();
  inst.op[0] = c.reg(c.operand(0));
  inst.op[1] = c.value(c.operand(1), type);
  inst.op[kMemberMask] = c.value(c.operand(2), "b32");
  bool bitwise = c.has("and") || c.has("or") || c.has("xor");
  if (type == "s32" && !bitwise)
    inst.run = redux_for<int32_t>(c);
  else if (type == "u32" && !bitwise)
    inst.run = redux_for<uint32_t>(c);
  else if (type == "b32" && bitwise)
    inst.run = redux_for<uint32_t>(c);
  else
    c.unsupported();
}

void decode_activemask(DecodeContext& c, Inst& inst) {
  if (c.operand_count() != 1 || !c.has("b32")) c.unsupported();
  inst.op[0] = c.reg(c.operand(0));
  inst.run = run_activemask;
}

void run_warp_sync(Warp& warp, const Inst& inst, uint32_t mask) { member_lanes(warp, inst, mask); }

// bar.warp.sync membermask: the lanes are in lockstep already; only the mask is checked.
void decode_warp_barrier(DecodeContext& c, Inst& inst) {
  inst.op[kMemberMask] = c.value(c.operand(0), "b32");
  inst.run = run_warp_sync;
}

}  // namespace

void register_warp_ops(OpcodeTable& table) {
  table["activemask"] = decode_activemask;
  table["vote"] = decode_vote;
  table["shfl"] = decode_shfl;
  table["match"] = decode_match;
  table["redux"] = decode_redux;
  table["bar.warp"] = decode_warp_barrier;
}

}  // namespace cudajit::sim
