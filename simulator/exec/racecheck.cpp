#include "racecheck.hpp"

#include <algorithm>
#include <cstdio>

#include "warp.hpp"

namespace cudajit::sim {

namespace {

enum Hazard : uint32_t { kReadAfterWrite, kWriteAfterRead, kWriteAfterWrite };

const char* hazard_name(Hazard hazard) {
  switch (hazard) {
    case kReadAfterWrite:
      return "read-after-write";
    case kWriteAfterRead:
      return "write-after-read";
    case kWriteAfterWrite:
      return "write-after-write";
  }
  return "";
}

std::string thread_name(const Dim3& block, uint32_t linear) {
  char text[64];
  std::snprintf(text, sizeof text, "thread (%u, %u, %u)", linear % block.x,
                linear / block.x % block.y, linear / (block.x * block.y));
  return text;
}

}  // namespace

void RaceShadow::begin_block(const Block& block) {
  warps_ = uint32_t(block.warps.size());
  cells_.assign(block.shared.size(), Cell{});
  clocks_.assign(size_t(warps_) * warps_, 0);
  lane_clocks_.assign(size_t(warps_) * kWarpSize * kWarpSize, 0);
  pending_.assign(size_t(kBarrierCount + 1) * warps_, 0);  // and the grid sync's
  // Own times start at 1, so an access is unordered with a thread that never synchronised.
  for (uint32_t w = 0; w < warps_; ++w) {
    clocks_[size_t(w) * warps_ + w] = 1;
    for (uint32_t l = 0; l < kWarpSize; ++l)
      lane_clocks_[(size_t(w) * kWarpSize + l) * kWarpSize + l] = 1;
  }
}

bool RaceShadow::ordered(const Access& before, uint32_t thread) const {
  if (before.thread == thread) return true;  // program order
  const uint32_t wa = before.thread / kWarpSize, wb = thread / kWarpSize;
  if (wa != wb) return clocks_[size_t(wb) * warps_ + wa] >= before.warp_time;
  if (clocks_[size_t(wb) * warps_ + wb] > before.warp_time) return true;  // a barrier since
  const uint32_t la = before.thread % kWarpSize, lb = thread % kWarpSize;
  return lane_clocks_[(size_t(wb) * kWarpSize + lb) * kWarpSize + la] >= before.lane_time;
}

void RaceShadow::access(const Warp& warp, uint32_t site, uint32_t lanes, const uint64_t* offsets,
                        uint32_t size, bool write) {
  const uint32_t w = warp.index;
  // Every lane is checked against what came before the instruction, then recorded: lanes of
  // one execution are not a hazard with each other.
  for_lanes(lanes, [&](int lane) {
    const uint32_t thread = w * kWarpSize + uint32_t(lane);
    uint32_t reported = 0;  // one report per earlier site and lane is plenty
    for (uint64_t b = offsets[lane]; b < offsets[lane] + size; ++b) {
      const Cell& cell = cells_[b];
      auto check = [&](const Access& before, bool before_writes) {
        if (before.site == 0 || before.site == reported || ordered(before, thread)) return;
        reported = before.site;
        report(warp, before, before_writes, thread, site, write, b, size);
      };
      check(cell.write, true);
      if (write) {
        check(cell.read, false);
        check(cell.other_read, false);
      }
    }
  });
  for_lanes(lanes, [&](int lane) {
    const uint32_t thread = w * kWarpSize + uint32_t(lane);
    const Access now{site, clocks_[size_t(w) * warps_ + w],
                     lane_clocks_[(size_t(w) * kWarpSize + lane) * kWarpSize + lane], thread};
    for (uint64_t b = offsets[lane]; b < offsets[lane] + size; ++b) {
      Cell& cell = cells_[b];
      if (write) {
        cell.write = now;
      } else {
        if (cell.read.site != 0 && cell.read.thread != thread) cell.other_read = cell.read;
        cell.read = now;
      }
    }
  });
}

void RaceShadow::report(const Warp& warp, const Access& before, bool before_writes, uint32_t thread,
                        uint32_t site, bool write, uint64_t offset, uint32_t size) {
  CheckReports* reports = warp.launch->reports;
  if (!reports) return;
  const Hazard hazard = !write          ? kReadAfterWrite
                        : before_writes ? kWriteAfterWrite
                                        : kWriteAfterRead;
  const std::tuple<uint32_t, uint32_t, uint32_t> key{before.site, site, hazard};
  if (reports->seen(key)) return;
  const Program& program = *warp.launch->program;
  const CheckSite first = find_site(program, before.site), second = find_site(program, site);
  const Dim3& dims = warp.launch->block;
  const Dim3& block = warp.block->index;
  const bool same_warp = before.thread / kWarpSize == thread / kWarpSize;
  char head[256];
  std::snprintf(head, sizeof head,
                "racecheck: %s hazard on shared memory (%u bytes at offset 0x%llx) in kernel "
                "'%s', block (%u, %u, %u): ",
                hazard_name(hazard), size, (unsigned long long)offset,
                warp.launch->kernel->name.c_str(), block.x, block.y, block.z);
  std::string text = head;
  text += thread_name(dims, before.thread) + (before_writes ? " wrote at " : " read at ") +
          program.where(*first.function, *first.inst) + ", " + thread_name(dims, thread) +
          (write ? " writes at " : " reads at ") + program.where(*second.function, *second.inst);
  text += same_warp ? ", lanes of one warp with no __syncwarp (bar.warp.sync) or barrier between"
                    : ", with no barrier between";
  reports->add(key, text);
}

void RaceShadow::arrive(uint32_t warp, uint32_t barrier) {
  uint32_t* join = &pending_[size_t(barrier) * warps_];
  uint32_t* own = &clocks_[size_t(warp) * warps_];
  for (uint32_t v = 0; v < warps_; ++v) join[v] = std::max(join[v], own[v]);
  own[warp] += 1;  // what the warp does next is not before the barrier
}

void RaceShadow::release(uint32_t warp, uint32_t barrier) {
  const uint32_t* join = &pending_[size_t(barrier) * warps_];
  uint32_t* own = &clocks_[size_t(warp) * warps_];
  for (uint32_t v = 0; v < warps_; ++v) own[v] = std::max(own[v], join[v]);
}

void RaceShadow::reset(uint32_t barrier) {
  std::fill_n(&pending_[size_t(barrier) * warps_], warps_, 0u);
}

void RaceShadow::sync_lanes(uint32_t warp, uint32_t lanes) {
  uint32_t* clocks = &lane_clocks_[size_t(warp) * kWarpSize * kWarpSize];
  uint32_t join[kWarpSize] = {};
  for_lanes(lanes, [&](int x) {
    for (int y = 0; y < kWarpSize; ++y) join[y] = std::max(join[y], clocks[x * kWarpSize + y]);
  });
  for_lanes(lanes, [&](int y) {
    std::copy_n(join, kWarpSize, clocks + y * kWarpSize);
    clocks[y * kWarpSize + y] += 1;
  });
}

}  // namespace cudajit::sim
