// Where threads wait for each other: a block's sixteen barriers (bar/barrier .sync, .arrive,
// .red, PTX ISA 9.7.12.1) and the meetings of a warp's lanes at warp-synchronous instructions.
#include <algorithm>
#include <cstdio>

#include "grid_sync.hpp"
#include "racecheck.hpp"
#include "warp.hpp"

namespace cudajit::sim {

namespace {

const char* kind_name(uint32_t id, bool aligned, bool arrive_only, int reduction) {
  if (id == kGridSyncBarrier) return "grid sync";
  if (arrive_only) return "barrier.arrive";
  return reduction >= 0 ? "barrier.red" : aligned ? "bar.sync" : "barrier.sync";
}

void release_entries(Warp& warp) {
  for (Frame& frame : warp.frames)
    for (SimtEntry& entry : frame.stack) entry.at_barrier = false;
}

// The block's threads have met for a grid sync: the block waits for the grid's other blocks.
// Returns false when the launch stops instead (the warps stay waiting; run_block returns).
bool wait_for_grid(Block& block) {
  const Launch& launch = *block.launch;
  switch (launch.grid_sync->arrive_and_wait(launch.abort)) {
    case GridSync::Outcome::Released:
      return true;
    case GridSync::Outcome::Aborted:
      return false;
    case GridSync::Outcome::Deadlock:
      break;
  }
  for (const Warp& warp : block.warps)
    if (warp.arrival.counted && warp.arrival.barrier == kGridSyncBarrier)
      warp.fault(Fault::BarrierDeadlock, *warp.arrival.at,
                 __builtin_ctz(warp.arrival.lanes & ~warp.exited),
                 "the grid sync waits for blocks that have ended without reaching it (every "
                 "block must sync the grid as often as the others; a GPU would hang here)");
  throw ExecutionFault(Fault::BarrierDeadlock, "barrier deadlock: the grid sync cannot complete");
}

// The barrier's waiting warps go on; it is reset for its next use.
void complete(Block& block, uint32_t id) {
  if (id == kGridSyncBarrier && !wait_for_grid(block)) return;
  BlockBarrier& barrier = block.barriers[id];
  for (Warp& warp : block.warps) {
    const Warp::Arrival& arrival = warp.arrival;
    if (!arrival.counted || arrival.barrier != id) continue;
    for (const auto& r : warp.reductions) {
      uint64_t value = r.op == kReducePopc  ? barrier.reduction_true
                       : r.op == kReduceAnd ? uint64_t(barrier.reduction_true == barrier.threads)
                                            : uint64_t(barrier.reduction_true != 0);
      uint64_t* slot = warp.reg(r.frame, r.slot);
      for_lanes(r.lanes, [&](int lane) { slot[lane] = value; });
    }
    if (block.race) block.race->release(warp.index, id);
    warp.reductions.clear();
    warp.arrival = {};
    release_entries(warp);
    if (warp.state == Warp::State::AtBarrier) warp.state = Warp::State::Running;
  }
  barrier = {};
  if (block.race) block.race->reset(id);
}

// Without a thread count every thread of the block that has not exited takes part; with one,
// the barrier completes when that many have arrived, counted in whole warps as the count is a
// multiple of the warp size ("marks warps' arrival at barrier").
void try_complete(Block& block, uint32_t id) {
  const BlockBarrier& barrier = block.barriers[id];
  if (barrier.warps == 0) return;
  bool done;
  if (barrier.expected == 0) {
    uint32_t live = 0;
    for (const Warp& warp : block.warps) live += warp.exited != kFullMask;
    done = barrier.warps >= live;
  } else {
    done = uint64_t(barrier.warps) * kWarpSize >= barrier.expected;
  }
  if (done) complete(block, id);
}

// Counts the warp at its barrier once every lane that has not exited has arrived.
void count_arrival(Warp& warp) {
  Warp::Arrival& arrival = warp.arrival;
  if (arrival.lanes == 0 || arrival.counted || (arrival.lanes | warp.exited) != kFullMask) return;
  const uint32_t id = arrival.barrier;
  BlockBarrier& barrier = warp.block->barriers[id];
  if (barrier.warps > 0 && barrier.expected != arrival.threads)
    warp.fault(Fault::IllegalInstruction, *arrival.at, __builtin_ctz(arrival.lanes),
               "barrier " + std::to_string(arrival.barrier) + " reached with thread count " +
                   std::to_string(arrival.threads) + " while other warps named " +
                   std::to_string(barrier.expected));
  if (barrier.warps > 0 && barrier.reduction != arrival.reduction)
    warp.fault(Fault::IllegalInstruction, *arrival.at, __builtin_ctz(arrival.lanes),
               "barrier " + std::to_string(arrival.barrier) +
                   " mixes barrier.red with another operation or form (unpredictable, says "
                   "the PTX ISA)");
  barrier.warps += 1;
  barrier.threads += uint64_t(__builtin_popcount(arrival.lanes & ~warp.exited));
  barrier.expected = arrival.threads;
  barrier.reduction = arrival.reduction;
  barrier.reduction_true += arrival.reduction_true;
  arrival.counted = true;
  if (warp.block->race) warp.block->race->arrive(warp.index, id);
  if (arrival.arrive_only) {  // barrier.arrive: the warp's lanes go on
    arrival = {};
    release_entries(warp);
  }
  try_complete(*warp.block, id);
}

}  // namespace

namespace {

// A warp's lanes arrive at barrier `id` (kGridSyncBarrier for a grid sync): see
// arrive_at_barrier.
void arrive(Warp& warp, const Inst& inst, uint32_t lanes, uint32_t id, uint32_t threads,
            bool arrive_only, int reduction, uint32_t holds, bool aligned) {
  Warp::Arrival& arrival = warp.arrival;
  const int lane = __builtin_ctz(lanes);
  if (arrival.lanes != 0) {
    // The warp's other lanes arrived first, on another path: the same barrier and form, and
    // the same instruction when either is aligned (undefined otherwise; an H200 hung on it).
    char masks[96];
    std::snprintf(masks, sizeof masks, "lanes 0x%08x of a warp whose lanes 0x%08x wait at another",
                  lanes, arrival.lanes);
    if ((aligned || arrival.aligned) && arrival.at != &inst)
      warp.fault(Fault::IllegalInstruction, inst, lane,
                 std::string("an aligned barrier (bar.sync, bar.red, barrier.sync.aligned) "
                             "reached by ") +
                     masks +
                     ": undefined on a GPU (it can hang); every thread of a warp must reach "
                     "syncthreads at the same call");
    if (arrival.barrier != id || arrival.threads != threads || arrival.arrive_only != arrive_only ||
        arrival.reduction != reduction)
      warp.fault(Fault::IllegalInstruction, inst, lane,
                 std::string(kind_name(id, aligned, arrive_only, reduction)) +
                     (id == kGridSyncBarrier ? "" : " " + std::to_string(id)) + " reached by " +
                     masks + " (a barrier waits for every thread of the warp: they would hang)");
  } else {
    arrival.at = &inst;
    arrival.barrier = id;
    arrival.threads = threads;
    arrival.arrive_only = arrive_only;
    arrival.reduction = reduction;
    arrival.aligned = aligned;
  }
  arrival.lanes |= lanes;
  arrival.reduction_true += uint64_t(__builtin_popcount(holds));
  warp.top().at_barrier = true;  // until the warp's other lanes arrive, or the barrier completes
  count_arrival(warp);
}

}  // namespace

void arrive_at_barrier(Warp& warp, const Inst& inst, uint32_t lanes, uint32_t id, uint32_t threads,
                       bool arrive_only, int reduction, uint32_t holds) {
  const int lane = __builtin_ctz(lanes);
  if (id >= kBarrierCount)
    warp.fault(Fault::IllegalInstruction, inst, lane,
               "barrier " + std::to_string(id) + " does not exist (a block has 16, 0..15)");
  if (threads % kWarpSize != 0 || (arrive_only && threads == 0))
    warp.fault(Fault::IllegalInstruction, inst, lane,
               "thread count " + std::to_string(threads) +
                   (threads % kWarpSize ? " is not a multiple of the warp size"
                                        : ": barrier.arrive needs a non-zero thread count"));
  if (threads > warp.block->warps.size() * kWarpSize)
    warp.fault(Fault::BarrierDeadlock, inst, lane,
               "thread count " + std::to_string(threads) + " is more than the block's " +
                   std::to_string(warp.block->warps.size()) + " warps hold: it cannot complete");
  // A barrier's `target` (it has no branch target) is 1 when it is aligned (ops/control.cpp).
  arrive(warp, inst, lanes, id, threads, arrive_only, reduction, holds, inst.target == 1);
}

void arrive_at_grid_sync(Warp& warp, const Inst& inst, uint32_t lanes) {
  arrive(warp, inst, lanes, kGridSyncBarrier, 0, false, -1, 0, false);
}

bool settle_barriers(Block& block) {
  bool released = false;
  for (Warp& warp : block.warps) {
    if (warp.state == Warp::State::Done) continue;
    count_arrival(warp);
    released |= warp.complete_meetings();
  }
  for (uint32_t id = 0; id <= kGridSyncBarrier; ++id) try_complete(block, id);
  for (Warp& warp : block.warps) {
    bool waits = false;
    for (const Frame& frame : warp.frames)
      for (const SimtEntry& entry : frame.stack) waits |= entry.at_barrier || entry.at_warp_sync;
    if (warp.state == Warp::State::AtBarrier && !waits) warp.state = Warp::State::Running;
    released |= warp.state == Warp::State::Running;
  }
  return released;
}

// ---- warp-synchronous meetings

WarpRendezvous& Warp::join_meeting(const Inst& inst, uint32_t members, uint32_t lanes,
                                   WarpRendezvous::Finish finish) {
  auto it = std::find_if(meetings.begin(), meetings.end(),
                         [&](const WarpRendezvous& m) { return m.members == members; });
  if (it == meetings.end()) {
    it = meetings.emplace(meetings.end());
    it->members = members;
    it->kind = inst.run;
  } else if (it->kind != inst.run) {
    char text[200];
    std::snprintf(text, sizeof text,
                  "lanes of membermask 0x%08x wait at warp-synchronous instructions with "
                  "different opcodes or qualifiers: on a GPU each waits for the other for ever",
                  members);
    fault(Fault::BarrierDeadlock, inst, __builtin_ctz(lanes), text);
  }
  it->arrived |= lanes;
  it->groups[it->group_count++] = {frames.size() - 1, &inst, lanes, finish};
  return *it;
}

bool Warp::complete_meetings() {
  bool any = false;
  for (size_t i = 0; i < meetings.size();) {
    WarpRendezvous& meeting = meetings[i];
    if ((meeting.members & ~exited & ~meeting.arrived) != 0) {
      ++i;
      continue;
    }
    for (uint32_t g = 0; g < meeting.group_count; ++g)
      meeting.groups[g].finish(*this, meeting, meeting.groups[g]);
    sync_waiting &= ~meeting.arrived;
    meetings.erase(meetings.begin() + ptrdiff_t(i));
    any = true;
  }
  if (any)
    for (Frame& frame : frames)
      for (SimtEntry& entry : frame.stack)
        if (entry.at_warp_sync && (entry.mask & sync_waiting & ~exited) == 0)
          entry.at_warp_sync = false;
  return any;
}

}  // namespace cudajit::sim
