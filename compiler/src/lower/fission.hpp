// Internal to barrier_fission.cpp and warp_groups.cpp: a split block's sizes, and walks over
// a kernel's statements.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>

#include "cudajit/compiler/typed.hpp"

namespace cudajit::lower {

inline constexpr uint64_t kMaxThreads = 1024;  // a block's most threads: each variable's elements
// A warp function's exchange array: an element per thread, 32 spare at each end so that
// shfl_up/down's neighbour (lane +- delta, |delta| < 32) is a load in bounds for any thread.
inline constexpr uint64_t kExchangePad = 32;
inline constexpr uint64_t kExchangeElements = kMaxThreads + 2 * kExchangePad;

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

}  // namespace cudajit::lower
