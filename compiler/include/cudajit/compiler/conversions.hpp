// Numba's conversions between scalar types (numba/core/typeconv/rules.py): one table for
// choosing among a kernel's declared signatures (python/src/dispatcher.cpp) and among a
// device function's overloads (typing/overloads.cpp), so both pick what Numba picks.
#pragma once

#include <array>
#include <compare>

#include "cudajit/compiler/types.hpp"

namespace cudajit {

// From best to worst; None: no conversion (a complex number to a real one).
enum class Conversion { Exact, Promote, Safe, Unsafe, None };

// Numba's kind of `from` -> `to`: the closure of its base rules, a chain of conversions
// being as bad as its worst step and the best chain counting.
Conversion conversion(Scalar from, Scalar to);

// How well a call's arguments fit one signature. Numba's choice is the signature needing
// the fewest unsafe conversions, then the fewest safe ones, then the fewest promotions;
// the first of equals.
struct ConversionRank {
  int unsafe = 0, safe = 0, promote = 0;

  // Counts one argument's conversion; false (and nothing counted) where there is none.
  bool add(Conversion c) {
    if (c == Conversion::None) return false;
    unsafe += c == Conversion::Unsafe;
    safe += c == Conversion::Safe;
    promote += c == Conversion::Promote;
    return true;
  }
  auto operator<=>(const ConversionRank&) const = default;
};

}  // namespace cudajit
