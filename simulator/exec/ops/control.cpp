// Control flow: bra, call, ret, exit, trap, barriers, fences.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "../decode_context.hpp"
#include "../warp.hpp"
#include "printf.hpp"

namespace cudajit::sim {

namespace {

// Control instructions describe where they go for the decoder's post-dominator
// analysis: aux 1 = to `target`, 2 = out of the function, 0 = on to the next.
constexpr uint8_t kToTarget = 1, kLeaves = 2;
// A barrier's `target` (it has no branch target): 1 when it is aligned.
constexpr uint32_t kAlignedBarrier = 1;

void branch_to(Warp& warp, uint32_t taken, uint32_t target, uint32_t reconverge) {
  SimtEntry& entry = warp.top();
  uint32_t not_taken = warp.active & ~taken;
  if (taken == 0) return;  // entry.pc is already the next instruction
  if (not_taken == 0) {
    entry.pc = target;
    return;
  }
  uint32_t fall_through = entry.pc;
  entry.pc = reconverge;  // this entry now waits for both sides
  auto& stack = warp.frames.back().stack;
  stack.push_back({fall_through, not_taken, reconverge});
  stack.push_back({target, taken, reconverge});
}

void run_bra(Warp& warp, const Inst& inst, uint32_t mask) {
  ++warp.counts.branches;
  if (mask != 0 && (warp.active & ~mask) != 0) ++warp.counts.divergent_branches;
  branch_to(warp, mask, inst.target, inst.reconverge);
}

void run_ret(Warp& warp, const Inst& inst, uint32_t mask) {
  if (warp.frames.size() == 1) {  // a kernel's return: those threads are done
    warp.exited |= mask;
    return;
  }
  branch_to(warp, mask, uint32_t(warp.function().code.size()), inst.reconverge);
}

void run_exit(Warp& warp, const Inst&, uint32_t mask) { warp.exited |= mask; }

void run_trap(Warp& warp, const Inst& inst, uint32_t mask) {
  if (mask) warp.fault(Fault::Trap, inst, __builtin_ctz(mask), "trap instruction executed");
}

void run_call(Warp& warp, const Inst& inst, uint32_t mask) {
  if (mask == 0) return;
  Frame& caller = warp.frames.back();
  const CallSite& site = caller.function->calls[inst.target];
  const Function& callee = *warp.launch->program->functions[site.callee];
  if (callee.is_declaration && callee.name == "vprintf") return run_vprintf(warp, inst, site, mask);
  if (callee.is_declaration)
    warp.fault(Fault::IllegalInstruction, inst, __builtin_ctz(mask),
               "call of '" + callee.name + "', which the module declares but does not define");
  warp.push_frame(callee, mask, &inst);
  Frame& frame = warp.frames.back();
  const Frame& from = warp.frames[warp.frames.size() - 2];
  for (const ParamCopy& copy : site.arguments)
    for_lanes(mask, [&](int lane) { copy_call_value(from, frame, copy, lane); });
}

// Inst layout of barriers: op[0] bar.red's destination, op[1] its predicate (negated when
// inst.count is 1), op[2] the barrier number, op[3] the thread count (kNoSlot: every thread);
// inst.size the ReductionOp, inst.offset 1 for barrier.arrive.
constexpr int kBarrierNumber = 2, kThreadCount = 3;
constexpr int kNoReduction = 0xFF;

// An operand every executing lane must agree on (the barrier number, the thread count).
uint32_t uniform_operand(Warp& warp, const Inst& inst, uint32_t mask, int index, const char* what) {
  const uint64_t* values = warp.reg(inst.op[index]);
  const uint32_t value = uint32_t(values[__builtin_ctz(mask)]);
  for_lanes(mask, [&](int lane) {
    if (uint32_t(values[lane]) != value)
      warp.fault(Fault::IllegalInstruction, inst, lane,
                 std::string("lanes of one warp name different ") + what + "s");
  });
  return value;
}

// The lanes arrive at one of the block's barriers (barriers.cpp): a sibling path of a divergent
// warp runs meanwhile (on Volta and later barrier.sync counts threads, so both sides of a
// branch may reach one), except at aligned barriers, where that is undefined and faults.
void run_barrier(Warp& warp, const Inst& inst, uint32_t mask) {
  if (mask == 0) return;
  const uint32_t id = uniform_operand(warp, inst, mask, kBarrierNumber, "barrier number");
  const uint32_t threads = inst.op[kThreadCount] == kNoSlot
                               ? 0
                               : uniform_operand(warp, inst, mask, kThreadCount, "thread count");
  int reduction = inst.size == kNoReduction ? -1 : int(inst.size);
  uint32_t holds = 0;
  if (reduction >= 0) {  // op[0] gets the result at the release
    const uint64_t* predicate = warp.reg(inst.op[1]);
    for_lanes(mask,
              [&](int lane) { holds |= uint32_t((predicate[lane] & 1) ^ inst.count) << lane; });
    warp.reductions.push_back({warp.frames.size() - 1, inst.op[0], mask, uint8_t(inst.size)});
  }
  arrive_at_barrier(warp, inst, mask, id, threads, inst.offset == 1, reduction, holds);
}

void run_fence(Warp&, const Inst&, uint32_t) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
void run_nothing(Warp&, const Inst&, uint32_t) {}

// nanosleep: the host thread gives way (a cooperative grid's blocks spin on
// each other's progress). A warp of a cooperative launch that has slept on
// and off for seconds while other blocks have ended waits for blocks that are
// gone: a hang on a GPU, a fault here. A fault elsewhere stops it too.
void run_nanosleep(Warp& warp, const Inst& inst, uint32_t mask) {
  std::this_thread::yield();
  const Launch& launch = *warp.launch;
  if (!launch.cooperative) return;
  if (launch.abort && launch.abort->load(std::memory_order_relaxed))
    warp.fault(Fault::Trap, inst, __builtin_ctz(mask), "stopped: another block faulted");
  using namespace std::chrono;
  const int64_t now = duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count();
  if (now - warp.last_sleep > 50'000'000) warp.sleeping_since = now;  // a new wait
  warp.last_sleep = now;
  if (now - warp.sleeping_since > 3'000'000'000 && launch.finished_blocks &&
      launch.finished_blocks->load(std::memory_order_relaxed) > 0)
    warp.fault(Fault::BarrierDeadlock, inst, __builtin_ctz(mask),
               "waits for blocks that have ended: the grid cannot meet at its sync (every "
               "block must sync the grid as often as the others; a GPU would hang here)");
}

void decode_bra(DecodeContext& c, Inst& inst) {
  if (c.operand_count() != 1) c.error("expects one label");
  inst.run = run_bra;
  inst.target = c.label(c.operand(0));
  inst.is_control = true;
  inst.aux = kToTarget;
}

void decode_ret(DecodeContext& c, Inst& inst) {
  if (c.operand_count() != 0) c.error("takes no operands");
  inst.run = run_ret;
  inst.is_control = true;
  inst.aux = kLeaves;
}

void decode_exit(DecodeContext& c, Inst& inst) {
  if (c.operand_count() != 0) c.error("takes no operands");
  inst.run = run_exit;
  inst.is_control = true;
  inst.aux = kLeaves;
}

void decode_trap(DecodeContext&, Inst& inst) { inst.run = run_trap; }

// call{.uni} (results), callee, (arguments)   -- either list may be absent
void decode_call(DecodeContext& c, Inst& inst) {
  const ptx::Operand *results = nullptr, *arguments = nullptr, *callee = nullptr;
  size_t i = 0;
  if (c.operand_count() > 0 && c.operand(0).kind == ptx::Operand::Kind::List)
    results = &c.operand(i++);
  callee = &c.operand(i++);
  if (i < c.operand_count()) {
    if (c.operand(i).kind != ptx::Operand::Kind::List) c.error("expects (arguments)");
    arguments = &c.operand(i++);
  }
  if (i != c.operand_count()) c.error("prototype calls are not supported");
  inst.target = c.call_site(*callee, results, arguments);
  inst.run = run_call;
  inst.is_control = true;
}

// barrier{.cta}.sync{.aligned} a{, b}     bar{.cta}.sync a{, b}
// barrier{.cta}.arrive{.aligned} a, b      bar{.cta}.arrive a, b
// barrier{.cta}.red.popc{.aligned}.u32 d, a{, b}, {!}c    bar.red.{and,or}.pred p, a{, b}, {!}c
// a: the barrier (0..15), b: the threads taking part (a multiple of the warp size; none: all).
void decode_barrier(DecodeContext& c, Inst& inst) {
  if (c.has("warp")) return opcode_table().at("bar.warp")(c, inst);
  inst.is_control = true;
  inst.run = run_barrier;
  inst.size = kNoReduction;
  // bar.sync, bar.arrive and bar.red are barrier.sync.aligned, .arrive.aligned, .red.aligned.
  if (c.instruction().opcode == "bar" || c.has("aligned")) inst.target = kAlignedBarrier;
  size_t first = 0, count = c.operand_count();
  if (c.has("red")) {
    if (count != 3 && count != 4) c.error("expects d, a{, b}, {!}c");
    if (c.has("popc") && c.has("u32"))
      inst.size = kReducePopc;
    else if (c.has("and") && c.has("pred"))
      inst.size = kReduceAnd;
    else if (c.has("or") && c.has("pred"))
      inst.size = kReduceOr;
    else
      c.unsupported();
    const ptx::Operand& predicate = c.operand(count - 1);
    inst.op[0] = c.reg(c.operand(0));
    inst.op[1] = c.value(predicate, "pred");
    inst.count = predicate.negated ? 1 : 0;
    first = 1, count -= 2;
  } else if (c.has("arrive")) {
    if (count != 2) c.error("expects a barrier and a thread count");
    inst.offset = 1;
  } else if (c.has("sync")) {
    if (count != 1 && count != 2) c.error("expects a barrier and an optional thread count");
  } else {
    c.unsupported();
  }
  inst.op[kBarrierNumber] = c.value(c.operand(first), "u32");
  if (count == 2) inst.op[kThreadCount] = c.value(c.operand(first + 1), "u32");
}

void decode_fence(DecodeContext&, Inst& inst) { inst.run = run_fence; }

// griddepcontrol.wait waits until the prerequisite grids have completed and their memory
// operations are visible; .launch_dependents lets dependent grids start early. A stream's
// launches run here one after the other, so the prerequisites are complete before this grid
// starts: wait is a fence, launch_dependents has nothing to do (PTX ISA 7.8, sm_90).
void decode_griddepcontrol(DecodeContext& c, Inst& inst) {
  c.require(90, 7, 8);
  if (c.operand_count() != 0 || c.instruction().modifiers.size() != 1) c.unsupported();
  if (c.has("wait"))
    inst.run = run_fence;
  else if (c.has("launch_dependents"))
    inst.run = run_nothing;
  else
    c.unsupported();
}
void decode_nothing(DecodeContext&, Inst& inst) { inst.run = run_nothing; }
void decode_nanosleep(DecodeContext&, Inst& inst) { inst.run = run_nanosleep; }

}  // namespace

void register_control_ops(OpcodeTable& table) {
  table["bra"] = decode_bra;
  table["ret"] = decode_ret;
  table["exit"] = decode_exit;
  table["trap"] = decode_trap;
  table["call"] = decode_call;
  table["bar"] = decode_barrier;
  table["barrier"] = decode_barrier;
  table["membar"] = decode_fence;
  table["fence"] = decode_fence;
  table["nanosleep"] = decode_nanosleep;
  table["griddepcontrol"] = decode_griddepcontrol;
  table["pmevent"] = decode_nothing;
}

}  // namespace cudajit::sim
