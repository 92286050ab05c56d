// Warp-level operations: activemask, vote, shfl, match, redux, bar.warp.sync. A .sync
// operation's lanes meet those of their membermask (Warp::join_meeting): lanes on another
// path of a divergent warp are waited for, as on sm_70 and later, and each lane may name its
// own mask (a cooperative group's tile). Each operation reads its lanes' sources when they
// arrive (gather) and computes a group's results once all members are there (finish).
#include "../warp.hpp"

#include <bit>

#include "../decode_context.hpp"
#include "../racecheck.hpp"

namespace cudajit::sim {

namespace {

// op[4]: the membermask slot; op[5]: a second (predicate) destination.
constexpr int kMemberMask = 4, kPredicateOut = 5;

// The lanes of `mask` join the meetings of their membermasks; `Op::gather` records their
// sources. Lanes whose meeting is not complete wait (the warp runs its other paths).
template <class Op>
void run_synchronized(Warp& warp, const Inst& inst, uint32_t mask) {
  uint32_t members[kWarpSize];
  if (inst.op[kMemberMask] == kNoSlot) {  // the deprecated non-.sync forms: the executing lanes
    for_lanes(mask, [&](int lane) { members[lane] = mask; });
  } else {
    const uint64_t* given = warp.reg(inst.op[kMemberMask]);
    for_lanes(mask, [&](int lane) {
      members[lane] = uint32_t(given[lane]);
      if (!(members[lane] >> lane & 1u))  // "undefined if the executing thread is not in" it
        warp.fault(Fault::IllegalInstruction, inst, lane,
                   "an executing lane is not in its membermask");
    });
  }
  for (uint32_t remaining = mask; remaining != 0;) {
    const uint32_t wanted = members[__builtin_ctz(remaining)];
    uint32_t lanes = 0;
    for_lanes(remaining, [&](int lane) { lanes |= uint32_t(members[lane] == wanted) << lane; });
    remaining &= ~lanes;
    WarpRendezvous& meeting = warp.join_meeting(inst, wanted, lanes, Op::finish);
    Op::gather(warp, inst, lanes, meeting, meeting.group_count == 1);
  }
  warp.sync_waiting |= mask;
  warp.top().at_warp_sync = true;
  warp.complete_meetings();  // clears both where every member has arrived
}

// Where a group writes: its instruction's registers in its frame.
uint64_t* destination(Warp& warp, const WarpRendezvous::Group& group, int index) {
  uint32_t slot = group.inst->op[index];
  return slot == kNoSlot ? nullptr : warp.reg(group.frame, slot);
}

void run_activemask(Warp& warp, const Inst& inst, uint32_t mask) {
  uint64_t* d = warp.reg(inst.op[0]);
  for_lanes(mask, [&](int lane) { d[lane] = mask; });
}

enum VoteMode : uint8_t { kAll, kAny, kUni, kBallot };

// vote: a[lane] holds the lane's predicate (negated when aux bit 0 is set).
template <uint8_t mode>
struct Vote {
  static void gather(Warp& warp, const Inst& inst, uint32_t lanes, WarpRendezvous& m, bool) {
    const uint64_t* a = warp.reg(inst.op[1]);
    for_lanes(lanes, [&](int lane) { m.a[lane] = (a[lane] & 1) ^ (inst.aux & 1); });
  }
  static void finish(Warp& warp, const WarpRendezvous& m, const WarpRendezvous::Group& g) {
    uint32_t bits = 0;
    for_lanes(m.arrived, [&](int lane) { bits |= uint32_t(m.a[lane]) << lane; });
    uint64_t value;
    if constexpr (mode == kAll)
      value = bits == m.arrived;
    else if constexpr (mode == kAny)
      value = bits != 0;
    else if constexpr (mode == kUni)
      value = bits == 0 || bits == m.arrived;
    else
      value = bits;
    uint64_t* d = destination(warp, g, 0);
    for_lanes(g.lanes, [&](int lane) { d[lane] = value; });
  }
};

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
    inst.run = run_synchronized<Vote<kBallot>>;
  } else if (c.has("all")) {
    inst.run = run_synchronized<Vote<kAll>>;
  } else if (c.has("any")) {
    inst.run = run_synchronized<Vote<kAny>>;
  } else if (c.has("uni")) {
    inst.run = run_synchronized<Vote<kUni>>;
  } else {
    c.unsupported();
  }
}

enum ShuffleMode : uint8_t { kUp, kDown, kButterfly, kIndex };

// shfl: a, b, c as the lanes give them. A source lane that is not taking part gives an
// unpredictable value on hardware; here, the bits its register held when the first lane arrived.
template <uint8_t mode>
struct Shuffle {
  static void gather(Warp& warp, const Inst& inst, uint32_t lanes, WarpRendezvous& m, bool first) {
    const uint64_t *a = warp.reg(inst.op[1]), *b = warp.reg(inst.op[2]), *c = warp.reg(inst.op[3]);
    if (first) std::memcpy(m.a, a, sizeof m.a);
    for_lanes(lanes,
              [&](int lane) { m.a[lane] = a[lane], m.b[lane] = b[lane], m.c[lane] = c[lane]; });
  }
  static void finish(Warp& warp, const WarpRendezvous& m, const WarpRendezvous::Group& g) {
    uint64_t* d = destination(warp, g, 0);
    uint64_t* p = destination(warp, g, kPredicateOut);
    for_lanes(g.lanes, [&](int lane) {
      int bval = int(m.b[lane] & 31), cval = int(m.c[lane] & 31);
      int segmask = int((m.c[lane] >> 8) & 31);
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
      d[lane] = uint32_t(m.a[j]);
      if (p) p[lane] = pval;
    });
  }
};

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
    inst.run = run_synchronized<Shuffle<kUp>>;
  else if (c.has("down"))
    inst.run = run_synchronized<Shuffle<kDown>>;
  else if (c.has("bfly"))
    inst.run = run_synchronized<Shuffle<kButterfly>>;
  else if (c.has("idx"))
    inst.run = run_synchronized<Shuffle<kIndex>>;
  else
    c.unsupported();
}

// match.any: the lanes holding the same value; match.all: all the (non-exited) members if all
// hold one value, else 0.
template <class T, bool all>
struct Match {
  static void gather(Warp& warp, const Inst& inst, uint32_t lanes, WarpRendezvous& m, bool) {
    const uint64_t* a = warp.reg(inst.op[1]);
    for_lanes(lanes, [&](int lane) { m.a[lane] = uint64_t(get<T>(a, lane)); });
  }
  static void finish(Warp& warp, const WarpRendezvous& m, const WarpRendezvous::Group& g) {
    uint64_t* d = destination(warp, g, 0);
    uint64_t* p = destination(warp, g, kPredicateOut);
    auto same_as = [&](int lane) {
      uint32_t same = 0;
      for_lanes(m.arrived, [&](int other) { same |= uint32_t(m.a[other] == m.a[lane]) << other; });
      return same;
    };
    const bool uniform = same_as(__builtin_ctz(m.arrived)) == m.arrived;
    for_lanes(g.lanes, [&](int lane) {
      if constexpr (all) {
        d[lane] = uniform ? m.arrived : 0;
        if (p) p[lane] = uniform;
      } else {
        d[lane] = same_as(lane);
      }
    });
  }
};

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
    inst.run =
        all ? run_synchronized<Match<uint32_t, true>> : run_synchronized<Match<uint32_t, false>>;
  else if (type == "b64")
    inst.run =
        all ? run_synchronized<Match<uint64_t, true>> : run_synchronized<Match<uint64_t, false>>;
  else
    c.unsupported();
}

enum ReduxOp : uint8_t { kAdd, kMin, kMax, kAnd, kOr, kXor };

template <class T, uint8_t op>
struct Redux {
  static void gather(Warp& warp, const Inst& inst, uint32_t lanes, WarpRendezvous& m, bool) {
    const uint64_t* a = warp.reg(inst.op[1]);
    for_lanes(lanes, [&](int lane) { m.a[lane] = uint64_t(get<T>(a, lane)); });
  }
  static void finish(Warp& warp, const WarpRendezvous& m, const WarpRendezvous::Group& g) {
    T result = T(m.a[__builtin_ctz(m.arrived)]);
    for_lanes(m.arrived & (m.arrived - 1), [&](int lane) {
      T v = T(m.a[lane]);
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
    uint64_t* d = destination(warp, g, 0);
    for_lanes(g.lanes, [&](int lane) { put<T>(d, lane, result); });
  }
};

template <class T>
Handler redux_for(const DecodeContext& c) {
  if (c.has("add")) return run_synchronized<Redux<T, kAdd>>;
  if (c.has("min")) return run_synchronized<Redux<T, kMin>>;
  if (c.has("max")) return run_synchronized<Redux<T, kMax>>;
  if (c.has("and")) return run_synchronized<Redux<T, kAnd>>;
  if (c.has("or")) return run_synchronized<Redux<T, kOr>>;
  if (c.has("xor")) return run_synchronized<Redux<T, kXor>>;
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

// bar.warp.sync: a meeting with nothing to compute; it orders its lanes' memory accesses.
struct WarpBarrier {
  static void gather(Warp&, const Inst&, uint32_t, WarpRendezvous&, bool) {}
  static void finish(Warp& warp, const WarpRendezvous& meeting, const WarpRendezvous::Group&) {
    if (warp.block->race) warp.block->race->sync_lanes(warp.index, meeting.arrived);
  }
};

// bar.warp.sync membermask: each lane waits until every non-exited lane of the mask has executed
// a bar.warp.sync with the same mask (PTX ISA 9.7.12.2).
void decode_warp_barrier(DecodeContext& c, Inst& inst) {
  inst.op[kMemberMask] = c.value(c.operand(0), "b32");
  inst.run = run_synchronized<WarpBarrier>;
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
