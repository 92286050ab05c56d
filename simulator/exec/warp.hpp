// A warp of 32 threads in SIMT lockstep. Each call frame has its registers
// (slot-major: 32 lanes of a slot side by side, so one instruction runs as a
// loop over adjacent values) and a reconvergence stack: the top entry runs;
// a divergent branch turns it into the entry that waits at the branch's
// immediate post-dominator and pushes one entry per side.
#pragma once

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "memory.hpp"
#include "profile.hpp"
#include "program.hpp"

namespace cudajit::sim {

constexpr int kWarpSize = 32;
constexpr uint32_t kFullMask = 0xFFFFFFFFu;

class CheckReports;
class DeviceHeap;
class GridSync;
class RaceShadow;

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
};

// What every block of a launch shares (read-only while it runs).
// The lines printf wrote during a launch, written to stdout when it ends.
struct PrintfOutput {
  std::mutex mutex;
  std::string text;
};

struct Launch {
  const Program* program = nullptr;
  const Function* kernel = nullptr;
  GlobalMemory* memory = nullptr;
  Dim3 grid, block;
  uint64_t dynamic_shared_bytes = 0;
  std::vector<uint8_t> params;         // the kernel's .param area, as packed from kernelParams
  std::atomic<bool>* abort = nullptr;  // set when a block faults: the others stop early
  int sm_count = 1;
  bool profile = false;             // count memory accesses (exec/profile.hpp)
  PrintfOutput* printf = nullptr;   // set by execute()
  CheckReports* reports = nullptr;  // set by execute() when the program is instrumented
  DeviceHeap* heap = nullptr;       // malloc and free (exec/device_heap.hpp); none: malloc faults
  // cuLaunchCooperativeKernel: every block runs at once (a host thread each),
  // so blocks may wait for each other; when the first block ended (steady-clock ns, 0 while
  // none has), set by execute().
  bool cooperative = false;
  std::atomic<int64_t>* first_block_end_ns = nullptr;
  GridSync* grid_sync = nullptr;  // a cooperative launch's grid barrier, set by execute()
};

struct Block;

// The steady clock in nanoseconds: nanosleep's watch for a cooperative grid that cannot meet.
inline int64_t steady_now_ns() {
  using namespace std::chrono;
  return duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count();
}

struct SimtEntry {
  uint32_t pc;
  uint32_t mask;
  uint32_t reconverge;
  bool at_barrier = false;    // its lanes executed a barrier instruction and wait (barriers.cpp)
  bool at_warp_sync = false;  // its lanes wait at a warp-synchronous instruction for others
};

struct Frame {
  const Function* function = nullptr;
  std::vector<uint64_t> regs;   // slot_count x 32
  std::vector<uint8_t> params;  // 32 x function->param_bytes
  std::vector<SimtEntry> stack;
  uint64_t local_base = 0;     // this frame's locals in each thread's local window
  const Inst* call = nullptr;  // the caller's call instruction (null for the kernel)
};

// A call's argument (caller -> callee) or result (callee -> caller) for one lane.
inline void copy_call_value(const Frame& from, Frame& to, const ParamCopy& copy, int lane) {
  const uint64_t from_stride = from.function->param_bytes, to_stride = to.function->param_bytes;
  if (copy.from_place == ParamCopy::kParamArea && copy.to_place == ParamCopy::kParamArea) {
    std::memcpy(to.params.data() + lane * to_stride + copy.to,
                from.params.data() + lane * from_stride + copy.from, copy.size);
    return;
  }
  uint64_t value = 0;  // at most 8 bytes: one side is a register or a constant
  if (copy.from_place == ParamCopy::kConstant)
    value = copy.from;
  else if (copy.from_place == ParamCopy::kRegister)
    value = from.regs[size_t(copy.from) * kWarpSize + size_t(lane)];
  else
    std::memcpy(&value, from.params.data() + lane * from_stride + copy.from, copy.size);
  if (copy.size < 8) value &= (uint64_t(1) << (8 * copy.size)) - 1;
  if (copy.to_place == ParamCopy::kRegister)
    to.regs[size_t(copy.to) * kWarpSize + size_t(lane)] = value;
  else
    std::memcpy(to.params.data() + lane * to_stride + copy.to, &value, copy.size);
}

struct Warp;

// Lanes of a warp meeting at warp-synchronous instructions (shfl.sync, vote.sync, match.sync,
// redux.sync, bar.warp.sync) with one membermask: on sm_70 and later each lane waits until
// every non-exited lane of the mask has executed an instruction of the same kind with the same
// mask (PTX ISA 9.7.8.6, 9.7.12.2, ...), whichever path of a divergent warp it is on. Each
// lane's sources are taken when it arrives; results are written when the last one does.
struct WarpRendezvous {
  struct Group;
  using Finish = void (*)(Warp& warp, const WarpRendezvous& meeting, const Group& group);
  struct Group {  // the lanes that arrived at one instruction
    size_t frame;
    const Inst* inst;
    uint32_t lanes;
    Finish finish;  // computes and writes this group's results
  };
  uint32_t members = 0;  // the membermask
  uint32_t arrived = 0;
  Handler kind = nullptr;  // the instruction's handler: the same opcode and qualifiers
  uint32_t group_count = 0;
  Group groups[kWarpSize];
  uint64_t a[kWarpSize], b[kWarpSize], c[kWarpSize];  // each lane's sources
};

struct Warp {
  // AtBarrier: every path waits. Yielded: an instruction (nanosleep, an mbarrier wait that
  // found its phase incomplete) lets the block's other warps run first; still runnable.
  enum class State { Running, AtBarrier, Done, Yielded };

  Block* block = nullptr;
  const Launch* launch = nullptr;
  uint32_t index = 0;   // warp index in its block
  uint32_t exited = 0;  // lanes that have exited (or never existed)
  uint32_t active = 0;  // lanes running the current instruction (before the guard)
  State state = State::Running;
  // The block barrier this warp's lanes arrive at. A barrier instruction waits for all the
  // non-exited threads of the warp before the warp's arrival counts (PTX ISA 9.7.12.1), so a
  // warp arrives at one barrier at a time.
  struct Arrival {
    uint32_t lanes = 0;           // lanes that executed a barrier instruction
    const Inst* at = nullptr;     // the instruction the first of them executed
    uint32_t barrier = 0;         // 0..15
    uint32_t threads = 0;         // the thread count operand (0: every thread of the block)
    bool arrive_only = false;     // barrier.arrive: the lanes go on once the warp has arrived
    bool aligned = false;         // bar.sync, bar.red, barrier.sync.aligned
    int reduction = -1;           // bar.red's ReductionOp, -1 for sync and arrive
    bool counted = false;         // every lane arrived: the block's barrier counts this warp
    uint64_t reduction_true = 0;  // bar.red: lanes whose predicate held
  } arrival;
  // bar.red destinations waiting for the barrier's result: written at its release.
  struct PendingReduction {
    size_t frame;
    uint32_t slot;
    uint32_t lanes;
    uint8_t op;  // ReductionOp
  };
  std::vector<PendingReduction> reductions;
  std::vector<WarpRendezvous> meetings;  // warp-synchronous instructions some lanes wait at
  uint32_t sync_waiting = 0;             // the lanes that wait at one of them
  std::vector<Frame> frames;
  std::vector<Frame> spare_frames;  // popped frames, whose buffers later calls reuse
  std::vector<uint8_t> local;       // 32 x the kernel's max_local_bytes
  uint64_t local_stride = 0;
  Range cached_range;         // last global range an access hit
  uint64_t instructions = 0;  // thread-instructions executed
  Profile counts;             // warp instructions and branches; memory when `profiled`
  bool profiled = false;      // the launch counts memory accesses (Launch::profile)
  // nanosleep: when this warp's current run of sleeps began, and its last sleep (ns).
  int64_t sleeping_since = 0, last_sleep = 0;

  uint64_t* reg(uint32_t slot) { return frames.back().regs.data() + size_t(slot) * kWarpSize; }
  uint64_t* reg(size_t frame, uint32_t slot) {
    return frames[frame].regs.data() + size_t(slot) * kWarpSize;
  }
  SimtEntry& top() { return frames.back().stack.back(); }
  const Function& function() const { return *frames.back().function; }

  // Runs until the warp finishes, waits at a barrier, or faults (throws ExecutionFault).
  void run();
  // The top entry's lanes wait at a barrier: moves a path of this frame that can still run
  // (not at the barrier, not waiting to reconverge, no diverged paths of its own above it)
  // to the top and returns true, or returns false when there is none.
  bool run_another_path();
  // No path can run, and a warp meeting waits for lanes that wait to reconverge: those lanes
  // go on past their reconvergence point as a path of their own (independent thread
  // scheduling, sm_70 and later); returns false when no meeting waits for such lanes.
  bool run_past_reconvergence();
  // Lanes `lanes` of the top frame join the meeting of membermask `members` at `inst`; they
  // wait unless that completes it. Faults when lanes of another kind wait on that mask.
  WarpRendezvous& join_meeting(const Inst& inst, uint32_t members, uint32_t lanes,
                               WarpRendezvous::Finish finish);
  // Completes the meetings whose non-exited members have all arrived; returns whether any did.
  bool complete_meetings();
  // Pushes a frame for `callee` (lanes `mask`), its stack ready to run from pc 0.
  void push_frame(const Function& callee, uint32_t mask, const Inst* call);
  // "kernel 'k', block (x,y,z), thread (x,y,z), file.py:12 (PTX line 40): "
  std::string where(const Inst& inst, int lane) const;
  [[noreturn]] void fault(Fault fault, const Inst& inst, int lane, const std::string& what) const;
};

// bar.red's operations: the count of threads whose predicate holds, all, any.
enum ReductionOp : uint8_t { kReducePopc, kReduceAnd, kReduceOr };

// One of a block's sixteen barriers, between its reuses.
struct BlockBarrier {
  uint32_t warps = 0;           // warps that have arrived
  uint64_t threads = 0;         // their non-exited threads
  uint32_t expected = 0;        // the thread count the arrivals named (0: every thread)
  uint64_t reduction_true = 0;  // arrived threads whose bar.red predicate held
  int reduction = -1;           // the bar.red operation of its arrivals, -1 for sync/arrive
};

constexpr uint32_t kBarrierCount = 16;
// After the sixteen: where a block's threads meet for a grid-wide sync (cooperative groups'
// grid.sync() by every thread); its completion waits for the grid's other blocks.
constexpr uint32_t kGridSyncBarrier = kBarrierCount;

struct Block {
  Dim3 index;
  const Launch* launch = nullptr;
  std::vector<uint8_t> shared;  // static, then dynamic shared memory
  std::vector<Warp> warps;
  BlockBarrier barriers[kBarrierCount + 1];  // the last: kGridSyncBarrier
  RaceShadow* race = nullptr;                // racecheck's state, when on (exec/racecheck.hpp)
  Profile counts;  // its warps' counts, summed over the blocks this host thread ran
};

// barriers.cpp: a warp's lanes arrive at barrier `barrier` (expecting `threads`, 0: all) at
// `inst`; they wait (barrier_wait) unless `arrive_only`, and the warp counts once all its
// non-exited lanes have arrived. Faults on what the PTX ISA leaves undefined.
void arrive_at_barrier(Warp& warp, const Inst& inst, uint32_t lanes, uint32_t barrier,
                       uint32_t threads, bool arrive_only, int reduction, uint32_t holds);
// A warp's lanes call the driver's grid sync (every thread of the grid calls it): they wait
// until every non-exited thread of the block has, and then until every block of the grid has.
void arrive_at_grid_sync(Warp& warp, const Inst& inst, uint32_t lanes);
// The warps whose last lanes exited count at their barrier, and complete barriers release
// their waiting warps; returns whether any warp was released.
bool settle_barriers(Block& block);

// Runs one block to completion; throws ExecutionFault.
void run_block(const Launch& launch, Block& block, uint64_t* instructions);

// ---- lane helpers for handlers

template <class F>
inline void for_lanes(uint32_t mask, F&& f) {
  if (mask == kFullMask) {
    for (int lane = 0; lane < kWarpSize; ++lane) f(lane);
  } else {
    while (mask) {
      int lane = __builtin_ctz(mask);
      mask &= mask - 1;
      f(lane);
    }
  }
}

// Registers hold a value's bits in the low bytes of 64, zero-extended.
template <class T>
inline T get(const uint64_t* slot, int lane) {
  if constexpr (sizeof(T) == 8) {
    T value;
    std::memcpy(&value, &slot[lane], 8);
    return value;
  } else {
    using Bits = std::conditional_t<sizeof(T) == 4, uint32_t,
                                    std::conditional_t<sizeof(T) == 2, uint16_t, uint8_t>>;
    Bits bits = Bits(slot[lane]);
    T value;
    std::memcpy(&value, &bits, sizeof(T));
    return value;
  }
}

template <class T>
inline void put(uint64_t* slot, int lane, T value) {
  using Bits =
      std::conditional_t<sizeof(T) == 8, uint64_t,
                         std::conditional_t<sizeof(T) == 4, uint32_t,
                                            std::conditional_t<sizeof(T) == 2, uint16_t, uint8_t>>>;
  Bits bits;
  std::memcpy(&bits, &value, sizeof(T));
  slot[lane] = bits;
}

}  // namespace cudajit::sim
