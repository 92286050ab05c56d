// Internal to the split block's files (fission_analysis.cpp, barrier_fission.cpp,
// warp_groups.cpp, lockstep_loops.cpp): a split block's sizes, walks over a kernel's
// statements, and the analyses that decide how a block is split.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "cudajit/compiler/typed.hpp"

namespace cudajit::lower {

inline constexpr uint64_t kMaxThreads = 1024;  // a block's most threads: each variable's elements
// A warp function's exchange array: an element per thread, 32 spare at each end so that
// shfl_up/down's neighbour (lane +- delta, |delta| < 32) is a load in bounds for any thread.
inline constexpr uint64_t kExchangePad = 32;
inline constexpr uint64_t kExchangeElements = kMaxThreads + 2 * kExchangePad;
// Lockstep loops run a block in chunks of this many threads (lockstep_chunks): a chunk leaves a
// loop when its own threads are done, so a thread that runs long holds up 63 others rather
// than a whole block, and 64 lanes (4 vectors of 16) pay an iteration's overhead once
// (32, 64 and 128 measured: docs/dev/architecture.md).
inline constexpr uint32_t kLockstepChunk = 64;

template <typename Visit>
void visit(const ir::Node& n, const Visit& f) {
  f(n);
  for (const auto& c : n.children) visit(*c, f);
}

// The names an assignment's target binds.
void targets(const ir::Node& t, std::unordered_set<std::string>& out);
// Every name `n` mentions.
void names_in(const ir::Node& n, std::unordered_set<std::string>& out);
// Every name an assignment or `for` within `s` (itself included) binds.
void assigned_in(const ir::Node& s, std::unordered_set<std::string>& out);

// Whether `n` holds a barrier or a warp function: where thread loops split.
bool holds_barrier(const ir::Node& n);

// Values that may differ between the threads of a block (a thread's index, memory, calls).
bool differs_between_threads(const ir::Node& n);

// Which of a kernel's names may hold different values in different threads of a block.
class Uniformity {
 public:
  explicit Uniformity(const ir::Function& kernel);
  bool uniform_name(const std::string& name) const { return !specific_.count(name); }
  // `e` is the same in every thread: no thread-specific name, index, memory read or call.
  bool uniform(const ir::Node& e) const;

 private:
  bool mark(const ir::Node& s, bool under_specific);
  std::unordered_set<std::string> specific_;
};

// Barrier statements: syncthreads(), or syncwarp() with a full mask (or none).
bool is_syncwarp(const ir::Node& s);
bool is_barrier_statement(const ir::Node& s);
// A statement whose own expressions call warp functions, its bodies none and no barrier;
// its warp calls in evaluation order.
bool is_warp_statement(const ir::Node& s);
std::vector<const ir::Node*> warp_calls(const ir::Node& s);
// Names the kernel computes once, at its top level, as threadIdx.x // 32 (or >> 5).
std::unordered_set<std::string> warp_index_names(const std::vector<const ir::Node*>& recomputed);
// An `if` on a condition the same in all lanes of a warp whose branches join the warp group.
bool is_warp_if(const ir::Node& s, const Uniformity& u,
                const std::unordered_set<std::string>& warp_index);

// Uniform variables a split block keeps once per block (not in `excluded`), and their
// assignments, which run once before their thread loop.
struct BlockScalarSet {
  std::unordered_set<std::string> names;
  std::unordered_set<const ir::Node*> hoisted;
};
BlockScalarSet block_scalars(const ir::Function& kernel, const Uniformity& u,
                             const std::unordered_set<std::string>& excluded);

// `if C: return` at a kernel's top level: a bare return, no else. Where the statements after
// it run in lockstep (lockstep_statements), it is a lockstep statement: they run where C fails.
bool is_early_return(const ir::Node& s);

// The variables of lockstep `for` loops (lockstep_loops.cpp) that nothing but their loop
// mentions and their body does not assign: in an iteration every thread still in the loop
// has the same value, so one slot for the block holds it (a register once optimised; a
// body that assigns it would make the vectoriser store a varying value to one address).
std::unordered_set<std::string> lockstep_counters(const ir::Function& kernel,
                                                  const std::unordered_set<const ir::Node*>& loops);

}  // namespace cudajit::lower
