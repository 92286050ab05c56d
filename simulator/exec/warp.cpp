// The SIMT loop of a warp and the scheduling of a block's warps around barriers.
#include "warp.hpp"

#include <algorithm>
#include <chrono>

#include "racecheck.hpp"
#include "special_registers.hpp"

namespace cudajit::sim {

namespace {

void fill_special_registers(Warp& warp, Frame& frame) {
  const Launch& launch = *warp.launch;
  const Block& block = *warp.block;
  uint64_t* regs = frame.regs.data() + size_t(frame.function->special_base) * kWarpSize;
  auto slot = [&](uint32_t which) { return regs + size_t(which) * kWarpSize; };
  auto fill = [&](uint32_t which, uint64_t value) { std::fill_n(slot(which), kWarpSize, value); };
  // The thread index, lane by lane: lane 0's divided out once, then counted up (every frame
  // of every warp of every block takes this: divisions per lane were most of a small block's
  // cost).
  const uint64_t block_threads = launch.block.count();
  const uint64_t first = uint64_t(warp.index) * kWarpSize;
  uint32_t x = uint32_t(first % launch.block.x);
  uint32_t y = uint32_t(first / launch.block.x % launch.block.y);
  uint32_t z = uint32_t(first / (uint64_t(launch.block.x) * launch.block.y));
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const bool present = first + uint64_t(lane) < block_threads;
    slot(kTidX)[lane] = present ? x : 0, slot(kTidY)[lane] = present ? y : 0;
    slot(kTidZ)[lane] = present ? z : 0;
    if (++x == launch.block.x) {
      x = 0;
      if (++y == launch.block.y) y = 0, ++z;
    }
    slot(kLaneId)[lane] = uint64_t(lane);
    const uint32_t bit = 1u << lane;
    slot(kLanemaskEq)[lane] = bit;
    slot(kLanemaskLe)[lane] = bit | (bit - 1);
    slot(kLanemaskLt)[lane] = bit - 1;
    slot(kLanemaskGe)[lane] = ~(bit - 1);
    slot(kLanemaskGt)[lane] = ~(bit | (bit - 1));
  }
  fill(kNtidX, launch.block.x), fill(kNtidY, launch.block.y), fill(kNtidZ, launch.block.z);
  fill(kCtaidX, block.index.x), fill(kCtaidY, block.index.y), fill(kCtaidZ, block.index.z);
  fill(kNctaidX, launch.grid.x), fill(kNctaidY, launch.grid.y), fill(kNctaidZ, launch.grid.z);
  fill(kWarpId, warp.index);
  fill(kNwarpId, uint64_t(block.warps.size()));
  const uint64_t sms = uint64_t(std::max(1, launch.sm_count));
  fill(kSmId, (uint64_t(block.index.x) + block.index.y + block.index.z) % sms);
  fill(kNsmId, sms);
  fill(kGridId, 1);
  fill(kDynamicSmemSize, launch.dynamic_shared_bytes);
  fill(kTotalSmemSize, block.shared.size());
}

const char* fault_name(Fault fault) {
  switch (fault) {
    case Fault::IllegalAddress:
      return "illegal address";
    case Fault::MisalignedAddress:
      return "misaligned address";
    case Fault::IllegalInstruction:
      return "illegal instruction";
    case Fault::Trap:
      return "trap";
    case Fault::HardwareStack:
      return "call stack overflow";
    case Fault::BarrierDeadlock:
      return "barrier deadlock";
    case Fault::InvalidParameter:
      return "invalid parameter";
  }
  return "fault";
}

// Whether pc is where the warp's threads finish: in the kernel's own frame (not a device
// function's), its end or an unguarded ret/exit (control instructions that leave the
// function, see ops/control.cpp).
bool leaves_kernel(const Warp& warp, uint32_t pc) {
  if (warp.frames.size() != 1) return false;
  const auto& code = warp.frames.back().function->code;
  if (pc >= code.size()) return true;
  const Inst& inst = code[pc];
  return inst.is_control && inst.aux == 2 && inst.guard == kNoSlot;
}

// A meeting that cannot complete: where the members it waits for are.
[[noreturn]] void report_stuck_meeting(const Warp& w) {
  const WarpRendezvous& meeting = w.meetings.front();
  const uint32_t missing = meeting.members & ~meeting.arrived & ~w.exited;
  const char* where = (missing & w.arrival.lanes)  ? "wait at a block barrier"
                      : (missing & w.sync_waiting) ? "wait at a warp-synchronous instruction "
                                                     "with another membermask or kind"
                                                   : "wait to reconverge at the end of a "
                                                     "called function or in its caller";
  char text[320];
  std::snprintf(text, sizeof text,
                "lanes 0x%08x wait at a warp-synchronous instruction (membermask 0x%08x) for "
                "lanes 0x%08x of it, which %s and cannot reach one (see docs/dev/simulator.md)",
                meeting.arrived & ~w.exited, meeting.members, missing, where);
  // The instruction of a group in the running frame, so that where() names its function.
  const Inst* at = &w.function().code[w.frames.back().stack.back().pc - 1];
  for (uint32_t g = 0; g < meeting.group_count; ++g)
    if (meeting.groups[g].frame == w.frames.size() - 1) at = meeting.groups[g].inst;
  w.fault(Fault::BarrierDeadlock, *at, __builtin_ctz(meeting.arrived & ~w.exited), text);
}

[[noreturn]] void report_deadlock(const Warp& w, uint64_t waiting, uint64_t live) {
  if (!w.meetings.empty()) report_stuck_meeting(w);
  const SimtEntry& top = w.frames.back().stack.back();
  const Inst& at = w.function().code[top.pc - 1];
  const Inst& barrier = w.arrival.at ? *w.arrival.at : at;
  w.fault(Fault::BarrierDeadlock, barrier, __builtin_ctz(w.arrival.lanes | (w.arrival.lanes == 0)),
          std::to_string(waiting) + " of the block's " + std::to_string(live) +
              " threads reached barriers and the others cannot (they exited, wait on another "
              "path of a divergent warp, or at another barrier)");
}

}  // namespace

void Warp::push_frame(const Function& callee, uint32_t mask, const Inst* call) {
  if (frames.size() >= 1024)
    fault(Fault::HardwareStack, *call, __builtin_ctz(mask), "more than 1024 nested calls");
  uint64_t local_base = 0;
  if (!frames.empty()) local_base = frames.back().local_base + frames.back().function->local_bytes;
  if (call != nullptr && local_base + callee.local_bytes > local_stride)  // only recursion
    fault(Fault::HardwareStack, *call, __builtin_ctz(mask),
          "stack overflow: the calls need more than " + std::to_string(local_stride) +
              " bytes of local memory per thread");
  if (spare_frames.empty()) {
    frames.emplace_back();
  } else {  // a frame popped before: its buffers are reused
    frames.push_back(std::move(spare_frames.back()));
    spare_frames.pop_back();
    frames.back().stack.clear();
  }
  Frame& frame = frames.back();
  frame.function = &callee;
  frame.call = call;
  frame.local_base = local_base;
  frame.regs.assign(size_t(callee.slot_count) * kWarpSize, 0);
  frame.params.assign(size_t(callee.param_bytes) * kWarpSize, 0);
  for (const auto& [slot, value] : callee.constants)
    std::fill_n(frame.regs.data() + size_t(slot) * kWarpSize, kWarpSize, value);
  for (const auto& local : callee.local_symbols)
    std::fill_n(frame.regs.data() + size_t(local.slot) * kWarpSize, kWarpSize,
                local_base + local.offset);
  fill_special_registers(*this, frame);
  uint32_t end = uint32_t(callee.code.size());
  frame.stack.push_back({0, mask, end});
}

std::string Warp::where(const Inst& inst, int lane) const {
  const Launch& l = *launch;
  uint64_t linear = uint64_t(index) * kWarpSize + lane;
  char text[256];
  std::snprintf(text, sizeof text, "kernel '%s', block (%u, %u, %u), thread (%u, %u, %u), ",
                l.kernel->name.c_str(), block->index.x, block->index.y, block->index.z,
                unsigned(linear % l.block.x), unsigned(linear / l.block.x % l.block.y),
                unsigned(linear / (uint64_t(l.block.x) * l.block.y)));
  return text + l.program->where(function(), inst);
}

void Warp::fault(Fault kind, const Inst& inst, int lane, const std::string& what) const {
  throw ExecutionFault(
      kind, std::string(fault_name(kind)) + ": " + what + " (in " + where(inst, lane) + ")");
}

// Volta and later schedule the paths of a divergent warp independently, and barrier.sync
// counts threads: while some lanes wait at a barrier, the warp's other paths run on, also
// paths the reconvergence stack holds below the waiting one (a thread-0-only branch left
// behind while its siblings reached the barrier). The stack is a tree laid out depth first:
// an entry's diverged paths lie above it and hold some of its lanes, so an entry with no
// lane in common with any entry above it is a path of its own, and moving it to the top
// keeps it above the entry that waits for it to reconverge.
bool Warp::run_another_path() {
  auto& stack = frames.back().stack;
  uint32_t above = 0;
  for (size_t i = stack.size(); i-- > 1;) {
    const SimtEntry& entry = stack[i];
    const uint32_t lanes = entry.mask & ~exited;
    const bool waits = entry.at_barrier || entry.at_warp_sync;
    const bool own_path = !waits && lanes != 0 && (lanes & above) == 0;
    if (own_path && entry.pc != entry.reconverge) {
      std::rotate(stack.begin() + ptrdiff_t(i), stack.begin() + ptrdiff_t(i) + 1, stack.end());
      return true;
    }
    if (own_path && leaves_kernel(*this, entry.pc)) {
      exited |= lanes;  // lanes done but for reconverging where the kernel ends: they end
      return true;
    }
    above |= entry.mask;
  }
  return false;
}

// On sm_70 and later, lanes waiting at a reconvergence point are not held there while the
// lanes they wait for wait at a warp meeting that names them: they run on, and reach the
// meeting or exit (numba-cuda's reduction: `if tid < 2: ...; syncwarp()`). The stack's entry E
// {pc J, lanes M, reconverge R} whose lanes W wait at J (no path above holds them) becomes
// three: {R, M, R}, where E's paths meet again; {J, M & ~W, R}, below E's diverged paths; and
// {J, W, R} on top, which runs now. An entry at its reconvergence point holds lanes that wait
// where the entry below it does, so they are taken from there.
bool Warp::run_past_reconvergence() {
  uint32_t wanted = 0;
  for (const WarpRendezvous& meeting : meetings) wanted |= meeting.members & ~meeting.arrived;
  wanted &= ~exited;
  auto& stack = frames.back().stack;
  uint32_t above = 0;
  for (size_t i = stack.size(); i-- > 0;) {
    SimtEntry& entry = stack[i];
    const bool waits = entry.at_barrier || entry.at_warp_sync;
    if (!waits && entry.pc == entry.reconverge) continue;
    const uint32_t lanes = waits ? 0 : entry.mask & ~above & wanted;
    if (lanes == 0) {
      above |= entry.mask;
      continue;
    }
    const SimtEntry rest{entry.pc, entry.mask & ~lanes, entry.reconverge};
    for (size_t j = i + 1; j < stack.size(); ++j) stack[j].mask &= ~lanes;  // see above
    entry = {entry.reconverge, entry.mask, entry.reconverge};
    stack.insert(stack.begin() + ptrdiff_t(i) + 1, rest);
    stack.push_back({rest.pc, lanes, rest.reconverge});
    return true;
  }
  return false;
}

void Warp::run() {
  // A launch stopped elsewhere (a fault in another block, or abandoned by a Ctrl-C through
  // cudajitSimAbandonGrids): the warp stops within kAbortCheck instructions, even in a loop
  // that never ends; run_block sees the flag and returns.
  constexpr uint32_t kAbortCheck = 4096;
  uint32_t until_check = kAbortCheck;
  while (state == State::Running) {
    if (--until_check == 0) {
      until_check = kAbortCheck;
      if (launch->abort && launch->abort->load(std::memory_order_relaxed)) return;
    }
    Frame& frame = frames.back();
    SimtEntry& entry = frame.stack.back();
    if (entry.at_warp_sync && complete_meetings()) continue;  // members may have exited
    if (entry.at_barrier || entry.at_warp_sync) {
      if (run_another_path()) continue;
      if (!meetings.empty() && run_past_reconvergence()) continue;
      state = State::AtBarrier;
      return;
    }
    uint32_t live = entry.mask & ~exited;
    if (live == 0 || entry.pc == entry.reconverge) {
      // Lanes waiting to reconverge where the kernel returns have finished: they exit now,
      // so a barrier the other lanes reach does not wait for them (as on Volta and later,
      // where `if (i >= n) return;` before __syncthreads() is common).
      if (live != 0 && leaves_kernel(*this, entry.pc)) exited |= live;
      if (frame.stack.size() > 1) {
        frame.stack.pop_back();
        continue;
      }
      // The function's bottom entry reached its end: return to the caller, or finish.
      if (frames.size() == 1) {
        exited = kFullMask;
        state = State::Done;
        return;
      }
      const Inst* call = frame.call;
      Frame& caller = frames[frames.size() - 2];
      const CallSite& site = caller.function->calls[uint32_t(call->target)];
      for (size_t i = 0; i < site.results.size(); ++i) {
        ParamCopy copy = site.results[i];
        if (site.indirect) {  // the callee's side is where this callee keeps the result
          const Formal& formal = frame.function->formal_returns[i];
          copy.from_place = formal.place, copy.from = formal.at;
        }
        for_lanes(entry.mask & ~exited,
                  [&](int lane) { copy_call_value(frame, caller, copy, lane); });
      }
      spare_frames.push_back(std::move(frames.back()));
      frames.pop_back();
      continue;
    }
    const Function& function = *frame.function;
    const Inst& inst = function.code[entry.pc];
    active = live;
    uint32_t mask = live;
    if (inst.guard != kNoSlot) {
      const uint64_t* guard = reg(inst.guard);
      uint32_t holds = 0;
      for_lanes(live, [&](int lane) { holds |= uint32_t(guard[lane] & 1) << lane; });
      mask = inst.guard_negated ? live & ~holds : holds;
    }
    ++entry.pc;
    ++counts.warp_instructions;  // issued, as on hardware, whether or not its guard holds
    if (mask != 0 || inst.is_control) {
      instructions += __builtin_popcount(mask);
      inst.run(*this, inst, mask);
    }
  }
}

void run_block(const Launch& launch, Block& block, uint64_t* instructions) {
  const Function& kernel = *launch.kernel;
  uint64_t threads = launch.block.count();
  uint32_t warp_count = uint32_t((threads + kWarpSize - 1) / kWarpSize);
  block.launch = &launch;
  // Dynamic shared memory (extern .shared arrays) starts at its own aligned offset.
  uint64_t shared_bytes = launch.dynamic_shared_bytes
                              ? kernel.dynamic_shared_offset + launch.dynamic_shared_bytes
                              : kernel.static_shared_bytes;
  block.shared.assign(shared_bytes, 0);
  block.warps.resize(warp_count);
  for (BlockBarrier& barrier : block.barriers) barrier = {};
  for (uint32_t w = 0; w < warp_count; ++w) {
    Warp& warp = block.warps[w];
    // A warp starts afresh, but keeps the buffers of the one this host thread ran before
    // (allocating and first touching them was most of a small block's cost).
    std::vector<Frame> spare = std::move(warp.spare_frames);
    for (Frame& frame : warp.frames) spare.push_back(std::move(frame));
    std::vector<uint8_t> local = std::move(warp.local);
    warp = Warp{};
    warp.spare_frames = std::move(spare);
    warp.local = std::move(local);
    warp.block = &block;
    warp.launch = &launch;
    warp.index = w;
    uint64_t first = uint64_t(w) * kWarpSize;
    uint32_t lanes = uint32_t(std::min<uint64_t>(kWarpSize, threads - first));
    uint32_t present = lanes == 32 ? kFullMask : (1u << lanes) - 1;
    warp.exited = ~present;
    warp.local_stride = kernel.max_local_bytes;
    warp.local.assign(size_t(kernel.max_local_bytes) * kWarpSize, 0);
    warp.profiled = launch.profile;
    warp.push_frame(kernel, present, nullptr);
  }
  if (block.race) block.race->begin_block(block);
  for (;;) {
    for (Warp& warp : block.warps) {
      if (warp.state != Warp::State::Running) continue;
      warp.run();
      if (warp.state == Warp::State::Yielded) warp.state = Warp::State::Running;
      if (launch.abort && launch.abort->load(std::memory_order_relaxed)) return;
    }
    // Every warp is done or waits: lanes that exited may complete a warp's arrival at a
    // barrier or a meeting at a warp-synchronous instruction, and complete barriers release.
    if (settle_barriers(block)) continue;
    if (launch.abort && launch.abort->load(std::memory_order_relaxed)) return;  // a grid sync
    const Warp* stuck = nullptr;
    uint64_t waiting = 0, live = 0;
    for (const Warp& warp : block.warps) {
      live += __builtin_popcount(~warp.exited);
      if (warp.state != Warp::State::AtBarrier) continue;
      waiting += __builtin_popcount(warp.arrival.lanes & ~warp.exited);
      if (!stuck || (stuck->meetings.empty() && !warp.meetings.empty())) stuck = &warp;
    }
    if (!stuck) break;  // all done
    report_deadlock(*stuck, waiting, live);
  }
  for (const Warp& warp : block.warps) {
    *instructions += warp.instructions;
    block.counts.add(warp.counts);
  }
}

}  // namespace cudajit::sim
