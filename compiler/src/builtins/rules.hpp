// Internal to builtins/: checks the typing rules share, and the registry's row types.
#pragma once

#include <algorithm>
#include <string>

#include "../typing/typer.hpp"
#include "registry.hpp"

namespace cudajit::builtins {

using ir::Node;
using typing::type_error;

inline bool is_real(const Type& t) { return t.is_scalar() && !is_complex(t.scalar()); }

inline void expect_args(const Node& call, const std::vector<Type>& args, size_t lo, size_t hi) {
  if (args.size() >= lo && args.size() <= hi) return;
  std::string want =
      lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
  type_error(call, call.text + "() takes " + want + " argument" + (hi == 1 ? "" : "s") + ", got " +
                       std::to_string(args.size()));
}

inline void expect_real(const Node& call, const Type& t) {
  if (!is_real(t))
    type_error(call, call.text + "() needs a real number (int, float or bool), got " + t.str());
}

inline void expect_integer_or_bool(const Node& call, std::string_view what, const Type& t) {
  if (t.is_scalar() && (is_integer(t.scalar()) || t.scalar() == Scalar::Bool)) return;
  type_error(call, std::string(what) + " needs an integer or bool, got " + t.str());
}

// The float type a math function computes in: float32 (or float16, or bfloat16) only when
// every argument is, as Numba picks the f32 libdevice variants.
inline Scalar math_float(const std::vector<Type>& args) {
  for (Scalar s : {Scalar::Float16, Scalar::BFloat16, Scalar::Float32}) {
    if (std::all_of(args.begin(), args.end(), [s](const Type& t) { return t.is_scalar(s); }))
      return s;
  }
  return Scalar::Float64;
}

// The IR name after its family's prefix: suffix(call, "cuda.atomic.") of cuda.atomic.add is
// "add".
inline std::string_view suffix(const Node& call, std::string_view prefix) {
  return std::string_view(call.text).substr(prefix.size());
}

}  // namespace cudajit::builtins
