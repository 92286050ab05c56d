// Control flow: bra, call, ret, exit, trap, barriers, fences.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "../decode_context.hpp"
#include "../warp.hpp"
#include "driver_functions.hpp"
#include "memory_access.hpp"

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

// The lanes of `mask` enter `callee` with the site's arguments: a direct call's copies name the
// callee's places, an indirect call's take them from the callee's formals.
void enter(Warp& warp, const Inst& inst, const CallSite& site, const Function& callee,
           uint32_t mask) {
  if (callee.is_declaration) {
    if (run_driver_function(warp, inst, site, callee, mask)) return;
    warp.fault(Fault::IllegalInstruction, inst, __builtin_ctz(mask),
               "call of '" + callee.name + "', which the module declares but does not define");
  }
  warp.push_frame(callee, mask, &inst);
  Frame& frame = warp.frames.back();
  const Frame& from = warp.frames[warp.frames.size() - 2];
  for (size_t i = 0; i < site.arguments.size(); ++i) {
    ParamCopy copy = site.arguments[i];
    if (site.indirect)
      copy.to_place = callee.formal_params[i].place, copy.to = callee.formal_params[i].at;
    for_lanes(mask, [&](int lane) { copy_call_value(from, frame, copy, lane); });
  }
}

std::string describe_signature(const std::vector<uint64_t>& params,
                               const std::vector<uint64_t>& returns) {
  auto list = [](const std::vector<uint64_t>& sizes) {
    std::string text = "(";
    for (size_t i = 0; i < sizes.size(); ++i)
      text += (i ? ", " : "") + std::to_string(sizes[i]) + " bytes";
    return text + ")";
  };
  return list(returns) + " _ " + list(params);
}

// call (results), %fptr, (arguments), proto: the lanes whose pointer is the first lane's call
// that function now; the others execute the call again once these have returned, and all go on
// after it together (a divergent call, as the manual allows without .uni). The PTX ISA leaves a
// call of a function that does not match the prototype, or is not among the listed targets,
// undefined: here it faults, as does a pointer that is not a function's address.
void run_indirect_call(Warp& warp, const Inst& inst, const CallSite& site, uint32_t mask) {
  const uint64_t* pointer = warp.reg(site.pointer);
  const int first = __builtin_ctz(mask);
  const uint64_t address = pointer[first];
  const Program& program = *warp.launch->program;
  const Function* callee = find_function_at(program, address);
  if (!callee)
    warp.fault(Fault::IllegalAddress, inst, first,
               "indirect call through " + hex(address) + (address == 0 ? " (a null pointer)" : "") +
                   ", which is not the address of a function of a loaded module");
  if (callee->is_entry)
    warp.fault(Fault::IllegalInstruction, inst, first,
               "indirect call of kernel '" + callee->name + "': an .entry cannot be called");
  if (!site.allowed.empty()) {
    bool listed = false;
    for (uint32_t index : site.allowed) listed |= program.functions[index].get() == callee;
    if (!listed)
      warp.fault(Fault::IllegalInstruction, inst, first,
                 "indirect call of '" + callee->name + "', which '" + site.signature +
                     "' does not list among the call's targets");
  }
  auto same = [](const std::vector<Formal>& formals, const std::vector<ParamCopy>& copies) {
    if (formals.size() != copies.size()) return false;
    for (size_t i = 0; i < formals.size(); ++i)
      if (formals[i].size != copies[i].size) return false;
    return true;
  };
  if (!same(callee->formal_params, site.arguments) || !same(callee->formal_returns, site.results)) {
    std::vector<uint64_t> params, returns, expected_params, expected_returns;
    for (const Formal& f : callee->formal_params) params.push_back(f.size);
    for (const Formal& f : callee->formal_returns) returns.push_back(f.size);
    for (const ParamCopy& c : site.arguments) expected_params.push_back(c.size);
    for (const ParamCopy& c : site.results) expected_returns.push_back(c.size);
    warp.fault(Fault::IllegalInstruction, inst, first,
               "indirect call of '" + callee->name + "', whose parameters " +
                   describe_signature(params, returns) + " do not match prototype '" +
                   site.signature + "' " + describe_signature(expected_params, expected_returns));
  }
  uint32_t lanes = 0;
  for_lanes(mask, [&](int lane) { lanes |= uint32_t(pointer[lane] == address) << lane; });
  if (lanes != mask) {
    auto& stack = warp.frames.back().stack;
    const uint32_t after = stack.back().pc;  // the instruction after the call
    stack.push_back({after - 1, mask & ~lanes, after});
    stack.push_back({after, lanes, after});
  }
  enter(warp, inst, site, *callee, lanes);
}

void run_call(Warp& warp, const Inst& inst, uint32_t mask) {
  if (mask == 0) return;
  const CallSite& site = warp.frames.back().function->calls[inst.target];
  if (site.indirect) return run_indirect_call(warp, inst, site, mask);
  enter(warp, inst, site, *warp.launch->program->functions[site.callee], mask);
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

// nanosleep: the warp gives way to the block's others, and the host thread to
// other blocks (a cooperative grid's blocks spin on each other's progress). A warp of a cooperative
// launch that has slept on and off for seconds since a block ended waits for blocks that are
// gone: a hang on a GPU, a fault here. Time is counted from the later of the wait's start and the
// first block's end: a grid sync releases every block before any ends, so a waiter that read
// the barrier just before the release (on a loaded host, seconds into its wait) sleeps once
// more and then sees it. A fault elsewhere stops the warp too.
void run_nanosleep(Warp& warp, const Inst& inst, uint32_t mask) {
  std::this_thread::yield();
  warp.state = Warp::State::Yielded;  // the block's other warps run while this one sleeps
  const Launch& launch = *warp.launch;
  if (!launch.cooperative) return;
  if (launch.abort && launch.abort->load(std::memory_order_relaxed))
    warp.fault(Fault::Trap, inst, __builtin_ctz(mask), "stopped: another block faulted");
  const int64_t now = steady_now_ns();
  if (now - warp.last_sleep > 50'000'000) warp.sleeping_since = now;  // a new wait
  warp.last_sleep = now;
  const int64_t ended =
      launch.first_block_end_ns ? launch.first_block_end_ns->load(std::memory_order_relaxed) : 0;
  if (ended != 0 && now - std::max(warp.sleeping_since, ended) > 3'000'000'000)
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

// call{.uni} (results), func, (arguments)                -- either list may be absent
// call{.uni} (results), fptr, (arguments), proto|flist   -- fptr a register (PTX ISA "call")
void decode_call(DecodeContext& c, Inst& inst) {
  using Kind = ptx::Operand::Kind;
  const ptx::Operand *results = nullptr, *arguments = nullptr, *targets = nullptr;
  size_t i = 0;
  if (c.operand_count() > 0 && c.operand(0).kind == Kind::List) results = &c.operand(i++);
  const ptx::Operand& callee = c.operand(i++);
  if (i < c.operand_count() && c.operand(i).kind == Kind::List) arguments = &c.operand(i++);
  if (i < c.operand_count() && c.operand(i).kind == Kind::Symbol) targets = &c.operand(i++);
  if (i != c.operand_count()) c.error("expects (results), a function, (arguments), targets");
  inst.target = c.call_site(callee, results, arguments, targets);
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
