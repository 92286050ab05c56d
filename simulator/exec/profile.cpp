// The counters of exec/profile.hpp: sectors and bank conflicts of one warp-level access.
#include "profile.hpp"

#include <algorithm>

#include "warp.hpp"

namespace cudajit::sim {

namespace {

constexpr int kAddressBase = 5;  // op[5]: the address base of ld, st, atom and red
constexpr uint32_t kSectorBytes = 32;
constexpr uint32_t kBankCount = 32, kBankWidth = 4;

size_t sort_unique(uint64_t* values, size_t count) {
  std::sort(values, values + count);
  return size_t(std::unique(values, values + count) - values);
}

}  // namespace

#define CUDAJIT_PROFILE_COUNTER(name) \
  { #name, &Profile::name }
const ProfileCounter kProfileCounters[] = {
    CUDAJIT_PROFILE_COUNTER(warp_instructions), CUDAJIT_PROFILE_COUNTER(thread_instructions),
    CUDAJIT_PROFILE_COUNTER(branches),          CUDAJIT_PROFILE_COUNTER(divergent_branches),
    CUDAJIT_PROFILE_COUNTER(global_loads),      CUDAJIT_PROFILE_COUNTER(global_load_sectors),
    CUDAJIT_PROFILE_COUNTER(global_stores),     CUDAJIT_PROFILE_COUNTER(global_store_sectors),
    CUDAJIT_PROFILE_COUNTER(global_atomics),    CUDAJIT_PROFILE_COUNTER(global_atomic_sectors),
    CUDAJIT_PROFILE_COUNTER(shared_loads),      CUDAJIT_PROFILE_COUNTER(shared_stores),
    CUDAJIT_PROFILE_COUNTER(shared_atomics),    CUDAJIT_PROFILE_COUNTER(shared_bank_conflicts),
    CUDAJIT_PROFILE_COUNTER(local_accesses),
};
#undef CUDAJIT_PROFILE_COUNTER
const size_t kProfileCounterCount = sizeof kProfileCounters / sizeof kProfileCounters[0];

void Profile::add(const Profile& other) {
  for (const ProfileCounter& counter : kProfileCounters)
    this->*counter.field += other.*counter.field;
}

uint64_t sectors_touched(const uint64_t* addresses, uint32_t mask, uint32_t size) {
  uint64_t sectors[2 * kWarpSize];  // an aligned access of at most 32 bytes spans one
  size_t count = 0;
  for_lanes(mask, [&](int lane) {
    uint64_t first = addresses[lane] / kSectorBytes;
    uint64_t last = (addresses[lane] + std::max(size, 1u) - 1) / kSectorBytes;
    sectors[count++] = first;
    if (last != first) sectors[count++] = last;
  });
  return sort_unique(sectors, count);
}

uint64_t shared_bank_conflicts(const uint64_t* offsets, uint32_t mask, uint32_t size,
                               bool broadcast) {
  const uint32_t words_per_lane = std::max(1u, size / kBankWidth);  // 1, 2 or 4
  const int lanes_per_phase = kWarpSize / int(std::min(words_per_lane, 4u));
  uint64_t conflicts = 0;
  for (int phase = 0; phase < kWarpSize; phase += lanes_per_phase) {
    const uint32_t phase_lanes =
        lanes_per_phase == kWarpSize ? kFullMask : ((1u << lanes_per_phase) - 1) << phase;
    const uint32_t lanes = mask & phase_lanes;
    if (lanes == 0) continue;
    uint64_t words[kWarpSize * 4];
    size_t count = 0;
    for_lanes(lanes, [&](int lane) {
      for (uint32_t w = 0; w < words_per_lane; ++w) words[count++] = offsets[lane] / kBankWidth + w;
    });
    if (broadcast) count = sort_unique(words, count);
    uint32_t per_bank[kBankCount] = {};
    uint32_t wavefronts = 1;
    for (size_t i = 0; i < count; ++i)
      wavefronts = std::max(wavefronts, ++per_bank[words[i] % kBankCount]);
    conflicts += wavefronts - 1;
  }
  return conflicts;
}

void profile_access(Warp& warp, const Inst& inst, uint32_t mask, ProfiledSpace space, uint32_t size,
                    ProfiledAccess access) {
  Profile& p = warp.counts;
  const uint64_t* base = warp.reg(inst.op[kAddressBase]);
  uint64_t addresses[kWarpSize];
  uint32_t global = 0, shared = 0, local = 0;
  for_lanes(mask, [&](int lane) {
    uint64_t address = base[lane] + uint64_t(inst.offset);
    uint32_t bit = 1u << lane;
    switch (space) {
      case ProfiledSpace::kGlobal:
        global |= bit;
        break;
      case ProfiledSpace::kShared:
        shared |= bit;
        break;
      case ProfiledSpace::kLocal:
        local |= bit;
        break;
      case ProfiledSpace::kGeneric:
        if ((address & kWindowMask) == kSharedWindow)
          shared |= bit, address -= kSharedWindow;
        else if ((address & kWindowMask) == kLocalWindow)
          local |= bit;
        else
          global |= bit;
        break;
    }
    addresses[lane] = address;
  });
  if (global) {
    uint64_t sectors = sectors_touched(addresses, global, size);
    switch (access) {
      case ProfiledAccess::kLoad:
        ++p.global_loads, p.global_load_sectors += sectors;
        break;
      case ProfiledAccess::kStore:
        ++p.global_stores, p.global_store_sectors += sectors;
        break;
      case ProfiledAccess::kAtomic:
        ++p.global_atomics, p.global_atomic_sectors += sectors;
        break;
    }
  }
  if (shared) {
    switch (access) {
      case ProfiledAccess::kLoad:
        ++p.shared_loads;
        break;
      case ProfiledAccess::kStore:
        ++p.shared_stores;
        break;
      case ProfiledAccess::kAtomic:
        ++p.shared_atomics;
        break;
    }
    // Atomics on one word serialise: no broadcast.
    p.shared_bank_conflicts +=
        shared_bank_conflicts(addresses, shared, size, access != ProfiledAccess::kAtomic);
  }
  if (local) ++p.local_accesses;
}

}  // namespace cudajit::sim
