// Control flow: bra, call, ret, exit, trap, barriers, fences.
#include <atomic>

#include "../decode_context.hpp"
#include "../warp.hpp"

namespace cudajit::sim {

namespace {

// Control instructions describe where they go for the decoder's post-dominator
// analysis: aux 1 = to `target`, 2 = out of the function, 0 = on to the next.
constexpr uint8_t kToTarget = 1, kLeaves = 2;

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
  if (callee.is_declaration)
    warp.fault(Fault::IllegalInstruction, inst, __builtin_ctz(mask),
               "call of '" + callee.name + "', which the module declares but does not define");
  warp.push_frame(callee, mask, &inst);
  Frame& frame = warp.frames.back();
  Frame& from = warp.frames[warp.frames.size() - 2];
  uint64_t from_stride = from.function->param_bytes, to_stride = callee.param_bytes;
  for (const ParamCopy& copy : site.arguments)
    for_lanes(mask, [&](int lane) {
      std::memcpy(frame.params.data() + lane * to_stride + copy.to,
                  from.params.data() + lane * from_stride + copy.from, copy.size);
    });
}

// The arriving lanes wait; a sibling path of a divergent warp not yet run gets to run first
// (on Volta and later a barrier counts threads, so both sides of a branch may reach one).
void run_barrier(Warp& warp, const Inst&, uint32_t mask) {
  auto& stack = warp.frames.back().stack;
  SimtEntry& entry = stack.back();
  entry.at_barrier = true;
  warp.barrier_mask |= mask;
  if (stack.size() >= 2) {
    SimtEntry& below = stack[stack.size() - 2];
    if (!below.at_barrier && below.reconverge == entry.reconverge && below.pc != below.reconverge) {
      std::swap(entry, below);
      return;
    }
  }
  warp.state = Warp::State::AtBarrier;
}

void run_fence(Warp&, const Inst&, uint32_t) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
void run_nothing(Warp&, const Inst&, uint32_t) {}

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

// bar{.cta}.sync 0 / barrier{.cta}.sync{.aligned} 0: the block's barrier 0 over all threads.
void decode_barrier(DecodeContext& c, Inst& inst) {
  if (c.has("warp")) return opcode_table().at("bar.warp")(c, inst);
  if (!c.has("sync")) c.unsupported();
  if (c.operand_count() != 1 || c.operand(0).kind != ptx::Operand::Kind::Integer ||
      c.operand(0).bits != 0)
    c.error("only barrier 0 over the whole block is supported");
  inst.run = run_barrier;
  inst.is_control = true;
}

void decode_fence(DecodeContext&, Inst& inst) { inst.run = run_fence; }
void decode_nothing(DecodeContext&, Inst& inst) { inst.run = run_nothing; }

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
  table["nanosleep"] = decode_nothing;
  table["pmevent"] = decode_nothing;
}

}  // namespace cudajit::sim
