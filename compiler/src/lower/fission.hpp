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

}  // namespace cudajit::lower
