// Per-launch counters for judging generated code without a GPU: executed warp and thread
// instructions, branches and divergent branches, global-memory sectors (how well a warp's
// accesses coalesce) and shared-memory bank conflicts. They are deterministic, unlike timings.
//
// Instruction and branch counts cost one increment per warp instruction and are always kept.
// Memory counts look at every active lane's address, so they are kept only when a launch asks
// for them (Launch::profile: CUDAJIT_SIM_PROFILE=1 or cudajitSimSetProfiling).
#pragma once

#include <cstddef>
#include <cstdint>

namespace cudajit::sim {

struct Warp;
struct Inst;

struct Profile {
  uint64_t warp_instructions = 0;    // instructions a warp reached (predicated-off ones too)
  uint64_t thread_instructions = 0;  // lanes that executed them
  uint64_t branches = 0;             // bra executed by a warp
  uint64_t divergent_branches = 0;   // bra whose active lanes went both ways
  // Warp-level requests and the distinct 32-byte sectors their active lanes touched.
  uint64_t global_loads = 0, global_load_sectors = 0;
  uint64_t global_stores = 0, global_store_sectors = 0;
  uint64_t global_atomics = 0, global_atomic_sectors = 0;
  // Warp-level requests and the wavefronts they need beyond the ideal (Nsight Compute's
  // l1tex__data_bank_conflicts_pipe_lsu_mem_shared).
  uint64_t shared_loads = 0, shared_stores = 0, shared_atomics = 0;
  uint64_t shared_bank_conflicts = 0;
  uint64_t local_accesses = 0;  // warp-level loads and stores of .local (stack) memory

  void add(const Profile& other);
};

// The counters by name, in the order cudajitSimLaunchProfile reports them.
struct ProfileCounter {
  const char* name;
  uint64_t Profile::*field;
};
extern const ProfileCounter kProfileCounters[];
extern const size_t kProfileCounterCount;

// What a memory instruction's address operand names.
enum class ProfiledSpace : uint8_t { kGeneric, kGlobal, kShared, kLocal };
enum class ProfiledAccess : uint8_t { kLoad, kStore, kAtomic };

// Counts one warp-level access of `size` bytes per lane at op[5] + offset for the lanes of
// `mask` into warp.counts (called only when warp.profiled). Generic addresses are split by the
// window each lane's address lies in. Reads the addresses before the access runs, since a
// load may overwrite its base register.
void profile_access(Warp& warp, const Inst& inst, uint32_t mask, ProfiledSpace space, uint32_t size,
                    ProfiledAccess access);

// Shared-memory wavefronts beyond the ideal for one warp-level access: accesses wider than
// 4 bytes run in phases of 32 / (size / 4) consecutive lanes (as 64- and 128-bit accesses do
// on hardware); in each phase, a bank serves one 4-byte word per wavefront, and lanes reading
// the same word share it when `broadcast` (loads and stores; atomics on one word serialise).
// `offsets` holds each lane's byte offset.
uint64_t shared_bank_conflicts(const uint64_t* offsets, uint32_t mask, uint32_t size,
                               bool broadcast = true);

// Distinct 32-byte sectors the lanes of `mask` touch with `size`-byte accesses at `addresses`.
uint64_t sectors_touched(const uint64_t* addresses, uint32_t mask, uint32_t size);

}  // namespace cudajit::sim
