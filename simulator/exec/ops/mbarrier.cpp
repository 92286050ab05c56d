// mbarrier (PTX ISA 9.7.12.11, and the sm_90 forms of 7.8): barriers that live in shared
// memory as opaque 64-bit objects. init, inval, arrive and arrive_drop (with a count, .noComplete),
// test_wait and try_wait (with a state or a phase parity), pending_count. The object's bits are
// this implementation's ("opaque"): pending arrivals in bits 0-19, expected arrivals in 20-39
// (the manual's range is 1 to 2^20 - 1), the phase in 40-63. A state is the phase before the
// arrive-on in bits 40-63 and the pending count before it in 0-19.
//
// A block's warps run on one host thread, so an object changes without atomics. A wait that
// finds its phase incomplete lets the block's other warps run (the warp yields) before the
// program tries again, as a GPU runs other warps while one polls or sleeps in try_wait.
#include "../decode_context.hpp"
#include "../warp.hpp"
#include "memory_access.hpp"

namespace cudajit::sim {

namespace {

constexpr int kBase = 5;  // op[5]: the object's address; op[0] destination, op[1] operand
constexpr uint64_t kCountMask = (uint64_t(1) << 20) - 1;
constexpr int kExpectedShift = 20, kPhaseShift = 40;

uint64_t pending(uint64_t object) { return object & kCountMask; }
uint64_t expected(uint64_t object) { return (object >> kExpectedShift) & kCountMask; }
uint64_t phase(uint64_t object) { return object >> kPhaseShift; }
uint64_t make(uint64_t phase, uint64_t expected, uint64_t pending) {
  return (phase << kPhaseShift) | (expected << kExpectedShift) | pending;
}

// The object a lane names: in the block's shared memory, 8-byte aligned. A generic address
// outside the shared window is undefined in the manual: a fault here.
template <bool shared_space>
uint64_t& object_at(Warp& warp, const Inst& inst, int lane) {
  uint64_t address = warp.reg(inst.op[kBase])[lane] + uint64_t(inst.offset);
  if constexpr (!shared_space) {
    if ((address & kWindowMask) != kSharedWindow)
      warp.fault(Fault::IllegalAddress, inst, lane,
                 "mbarrier object at " + hex(address) + ", outside shared memory");
    address -= kSharedWindow;
  }
  return *reinterpret_cast<uint64_t*>(shared_address(warp, inst, lane, address, 8));
}

void check_count(Warp& warp, const Inst& inst, int lane, uint64_t count, const char* what) {
  if (count == 0 || count > kCountMask)
    warp.fault(Fault::IllegalInstruction, inst, lane,
               std::string(what) + " " + std::to_string(count) +
                   " is outside the mbarrier's range [1, 2^20 - 1]");
}

// mbarrier.init [addr], count: phase 0, expected and pending arrivals `count`.
template <bool shared_space>
void run_init(Warp& warp, const Inst& inst, uint32_t mask) {
  const uint64_t* count = warp.reg(inst.op[1]);
  for_lanes(mask, [&](int lane) {
    const uint64_t n = count[lane] & 0xFFFFFFFFu;
    check_count(warp, inst, lane, n, "mbarrier.init count");
    object_at<shared_space>(warp, inst, lane) = make(0, n, n);
  });
}

// mbarrier.inval [addr]: the memory may be used for something else (zero: not initialised).
template <bool shared_space>
void run_inval(Warp& warp, const Inst& inst, uint32_t mask) {
  for_lanes(mask, [&](int lane) { object_at<shared_space>(warp, inst, lane) = 0; });
}

// mbarrier.arrive / arrive_drop{.noComplete} state, [addr]{, count}: each lane in turn performs
// an arrive-on of `count` (1 without it); arrive_drop first lowers the expected count.
template <bool shared_space, bool drop, bool no_complete>
void run_arrive(Warp& warp, const Inst& inst, uint32_t mask) {
  uint64_t* state = inst.op[0] == kNoSlot ? nullptr : warp.reg(inst.op[0]);
  const uint64_t* count = inst.op[1] == kNoSlot ? nullptr : warp.reg(inst.op[1]);
  for_lanes(mask, [&](int lane) {
    const uint64_t n = count ? count[lane] & 0xFFFFFFFFu : 1;
    check_count(warp, inst, lane, n, "arrive-on count");
    uint64_t& object = object_at<shared_space>(warp, inst, lane);
    const uint64_t before = object;
    if (expected(before) == 0)
      warp.fault(Fault::IllegalInstruction, inst, lane,
                 "arrive-on an mbarrier object that is not initialised (mbarrier.init)");
    if (n > pending(before))
      warp.fault(Fault::IllegalInstruction, inst, lane,
                 "arrive-on of count " + std::to_string(n) + " on an mbarrier with " +
                     std::to_string(pending(before)) + " pending arrivals (undefined)");
    uint64_t next_expected = expected(before);
    if constexpr (drop) {
      if (n > next_expected)
        warp.fault(Fault::IllegalInstruction, inst, lane,
                   "arrive_drop of count " + std::to_string(n) + " on an mbarrier expecting " +
                       std::to_string(next_expected) + " arrivals");
      next_expected -= n;
    }
    const uint64_t left = pending(before) - n;
    if (left == 0 && no_complete)
      warp.fault(Fault::IllegalInstruction, inst, lane,
                 "a .noComplete arrive-on completes the mbarrier's phase (undefined)");
    object = left == 0 ? make(phase(before) + 1, next_expected, next_expected)
                       : make(phase(before), next_expected, left);
    if (state) state[lane] = (phase(before) << kPhaseShift) | pending(before);
  });
}

// mbarrier.test_wait / try_wait{.parity} waitComplete, [addr], state | phaseParity: whether the
// phase the state names (or the phase of that parity) has completed. A lane that finds it
// incomplete makes the warp yield to the block's others.
template <bool shared_space, bool parity>
void run_wait(Warp& warp, const Inst& inst, uint32_t mask) {
  uint64_t* done = warp.reg(inst.op[0]);
  const uint64_t* operand = warp.reg(inst.op[1]);
  bool incomplete = false;
  for_lanes(mask, [&](int lane) {
    const uint64_t object = object_at<shared_space>(warp, inst, lane);
    if (expected(object) == 0 && pending(object) == 0)
      warp.fault(Fault::IllegalInstruction, inst, lane,
                 "wait on an mbarrier object that is not initialised (mbarrier.init)");
    const uint64_t now = phase(object);
    const bool complete =
        parity ? (now & 1) != (operand[lane] & 1) : now != (operand[lane] >> kPhaseShift);
    done[lane] = complete;
    incomplete |= !complete;
  });
  if (incomplete) warp.state = Warp::State::Yielded;
}

// mbarrier.pending_count count, state: the pending count before the arrive-on of `state`.
void run_pending_count(Warp& warp, const Inst& inst, uint32_t mask) {
  uint64_t* d = warp.reg(inst.op[0]);
  const uint64_t* state = warp.reg(inst.op[1]);
  for_lanes(mask, [&](int lane) { d[lane] = state[lane] & kCountMask; });
}

// The qualifiers every form may carry: its space, memory semantics and scope (sm_90's
// .release/.acquire with .cta/.cluster; the simulated GPU's clusters are one block).
void check_modifiers(DecodeContext& c, std::initializer_list<const char*> more) {
  static const char* common[] = {"shared",  "b64", "release", "acquire",
                                 "relaxed", "cta", "cluster"};
  for (const auto& m : c.instruction().modifiers) {
    bool ok = false;
    for (const char* k : common) ok = ok || m == k;
    for (const char* k : more) ok = ok || m == k;
    if (!ok) c.unsupported();
  }
  if (!c.has("b64")) c.unsupported();
  if (c.has("cluster") || c.has("release") || c.has("acquire") || c.has("cta")) c.require(90, 8, 0);
  if (c.has("relaxed")) c.require(90, 8, 6);
}

// The object's [addr]: a .shared offset (a .shared symbol counts as one) or a generic address.
bool decode_object(DecodeContext& c, Inst& inst, const ptx::Operand& address) {
  const bool shared_space = c.has("shared");
  ptx::Space symbol =
      c.address(address, shared_space ? ptx::Space::Shared : ptx::Space::Generic, inst, kBase);
  if (inst.op[kBase] == kNoSlot) c.error("an mbarrier object in a kernel parameter");
  if (!shared_space && symbol != ptx::Space::Generic && symbol != ptx::Space::Shared)
    c.error("an mbarrier object lives in shared memory");
  return shared_space || symbol == ptx::Space::Shared;
}

void decode_mbarrier(DecodeContext& c, Inst& inst) {
  const auto& modifiers = c.instruction().modifiers;
  if (modifiers.empty()) c.unsupported();
  const std::string& form = modifiers[0];
  c.require(80, 7, 0);
  if (form == "init" || form == "inval") {
    check_modifiers(c, {"init", "inval"});
    const size_t operands = form == "init" ? 2 : 1;
    if (c.operand_count() != operands) c.error("expects " + std::to_string(operands) + " operands");
    const bool shared = decode_object(c, inst, c.operand(0));
    if (form == "init") {
      inst.op[1] = c.value(c.operand(1), "b32");
      inst.run = shared ? run_init<true> : run_init<false>;
    } else {
      inst.run = shared ? run_inval<true> : run_inval<false>;
    }
  } else if (form == "arrive" || form == "arrive_drop") {
    check_modifiers(c, {"arrive", "arrive_drop", "noComplete"});
    const bool no_complete = c.has("noComplete");
    if (c.operand_count() != 2 && c.operand_count() != 3) c.error("expects 2 or 3 operands");
    // A count needs .noComplete before sm_90 (PTX ISA 7.8 lets sm_90 complete with one).
    if (c.operand_count() == 3 && !no_complete) c.require(90, 7, 8);
    if (c.operand(0).kind != ptx::Operand::Kind::Sink) inst.op[0] = c.reg(c.operand(0));
    const bool shared = decode_object(c, inst, c.operand(1));
    if (c.operand_count() == 3) inst.op[1] = c.value(c.operand(2), "b32");
    const bool drop = form == "arrive_drop";
#define CUDAJIT_ARRIVE(S, D, N) \
  if (shared == S && drop == D && no_complete == N) inst.run = run_arrive<S, D, N>;
    CUDAJIT_ARRIVE(true, false, false)
    CUDAJIT_ARRIVE(true, false, true)
    CUDAJIT_ARRIVE(true, true, false)
    CUDAJIT_ARRIVE(true, true, true)
    CUDAJIT_ARRIVE(false, false, false)
    CUDAJIT_ARRIVE(false, false, true)
    CUDAJIT_ARRIVE(false, true, false)
    CUDAJIT_ARRIVE(false, true, true)
#undef CUDAJIT_ARRIVE
  } else if (form == "test_wait" || form == "try_wait") {
    check_modifiers(c, {"test_wait", "try_wait", "parity"});
    if (form == "try_wait") c.require(90, 7, 8);
    const bool parity = c.has("parity");
    if (parity) c.require(80, 7, 1);
    // try_wait's optional suspend-time hint (a fourth operand) bounds only how long it waits.
    if (c.operand_count() != 3 && !(form == "try_wait" && c.operand_count() == 4))
      c.error("expects 3 operands");
    inst.op[0] = c.reg(c.operand(0));
    const bool shared = decode_object(c, inst, c.operand(1));
    inst.op[1] = c.value(c.operand(2), parity ? "b32" : "b64");
    if (shared)
      inst.run = parity ? run_wait<true, true> : run_wait<true, false>;
    else
      inst.run = parity ? run_wait<false, true> : run_wait<false, false>;
  } else if (form == "pending_count") {
    check_modifiers(c, {"pending_count"});
    if (c.operand_count() != 2) c.error("expects 2 operands");
    inst.op[0] = c.reg(c.operand(0));
    inst.op[1] = c.value(c.operand(1), "b64");
    inst.run = run_pending_count;
  } else {
    c.unsupported();
  }
}

}  // namespace

void register_mbarrier_ops(OpcodeTable& table) { table["mbarrier"] = decode_mbarrier; }

}  // namespace cudajit::sim
