// racecheck: hazards between two accesses to one shared-memory byte by different threads of a
// block, at least one a write, with nothing ordering them (compute-sanitizer's racecheck).
//
// Happens-before is tracked with vector clocks at the two granularities CUDA synchronises:
// - between warps, a clock per warp over the block's warps: a barrier (bar/barrier .sync, .red,
//   .arrive, any of the sixteen, with or without a thread count) orders what its arriving warps
//   did before it with what its waiting warps do after it. A warp's arrival needs all its
//   lanes, so a barrier orders every lane of its warps.
// - within a warp, a clock per lane over the warp's lanes: bar.warp.sync (__syncwarp) orders its
//   lanes. As on sm_70 and later, lanes are not otherwise synchronised: two instructions of one
//   warp touching a byte from different lanes are a (warp-level) hazard, even when the warp ran
//   them converged. shfl/vote/match/redux order nothing (CUDA: "do not imply a memory barrier").
// Lanes of one instruction execution are not a hazard with each other. Atomics are not
// recorded: they neither race nor order. Each byte keeps its last write and its last reads by
// two different threads, so a write racing with an older read by a third thread can be missed.
#pragma once

#include <cstdint>
#include <vector>

#include "checks.hpp"

namespace cudajit::sim {

struct Warp;
struct Block;

class RaceShadow {
 public:
  // A new block: no byte accessed, no barrier passed.
  void begin_block(const Block& block);
  // Lanes `lanes` of `warp` access `size` bytes at shared offsets `offsets[lane]` (each inside
  // the block's shared memory) at instruction `site` (Function::site_base + pc + 1). Reports
  // hazards into the launch's CheckReports.
  void access(const Warp& warp, uint32_t site, uint32_t lanes, const uint64_t* offsets,
              uint32_t size, bool write);

  // barriers.cpp: warp `warp` counted at barrier `barrier` (what it did so far comes before the
  // barrier's completion); a warp waiting there is released; the barrier is reset.
  void arrive(uint32_t warp, uint32_t barrier);
  void release(uint32_t warp, uint32_t barrier);
  void reset(uint32_t barrier);
  // A bar.warp.sync of `lanes` of warp `warp` completed.
  void sync_lanes(uint32_t warp, uint32_t lanes);

 private:
  struct Access {
    uint32_t site = 0;  // 0: none
    uint32_t warp_time = 0, lane_time = 0;
    uint32_t thread = 0;  // linear index in the block
  };
  struct Cell {
    Access write, read, other_read;
  };
  bool ordered(const Access& before, uint32_t thread) const;
  void report(const Warp& warp, const Access& before, bool before_writes, uint32_t thread,
              uint32_t site, bool write, uint64_t offset, uint32_t size);

  uint32_t warps_ = 0;
  std::vector<Cell> cells_;
  std::vector<uint32_t> clocks_;       // [w * warps + v]: v's time up to which w is ordered
  std::vector<uint32_t> lane_clocks_;  // [(w * 32 + x) * 32 + y]: lane y's time for lane x
  std::vector<uint32_t> pending_;      // [b * warps + v]: the join of barrier b's arrivals
};

}  // namespace cudajit::sim
