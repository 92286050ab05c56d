// A call of a device function declared with several signatures (IR `overload.N`): the
// signature whose conversions fit the arguments best, ranked as Numba ranks them.
#include <algorithm>

#include "typer.hpp"

namespace cudajit::typing {

namespace {

using ir::Node;
using ir::NodeKind;

// Significant bits a float type holds exactly (its mantissa and the hidden bit).
int exact_bits(Scalar f) {
  switch (f) {
    case Scalar::Float16:
      return 11;
    case Scalar::BFloat16:
      return 8;
    case Scalar::Float32:
      return 24;
    default:
      return 53;
  }
}

int integer_bits(Scalar s) { return bit_width(s) - (is_signed(s) ? 1 : 0); }

// Conversion::None where there is none (complex to real).
Conversion real_to_float(Scalar from, Scalar to) {
  if (is_integer(from))
    return integer_bits(from) <= exact_bits(to) ? Conversion::Safe : Conversion::Unsafe;
  if (exact_bits(from) == exact_bits(to)) return Conversion::Exact;
  return exact_bits(from) < exact_bits(to) ? Conversion::Promote : Conversion::Unsafe;
}

// A call's `cast.T(...)` wrapper: T, else nothing.
std::optional<Scalar> cast_type(const Node& n) {
  if (n.kind != NodeKind::Call || !n.text.starts_with("cast.")) return std::nullopt;
  return scalar_from_name(std::string_view(n.text).substr(5));
}

}  // namespace

Conversion conversion(Scalar from, Scalar to) {
  if (from == to) return Conversion::Exact;
  if (to == Scalar::Bool) return Conversion::Unsafe;
  if (from == Scalar::Bool) return Conversion::Safe;
  if (is_complex(from) && !is_complex(to)) return Conversion::None;
  if (is_integer(from) && is_integer(to)) {
    if (is_signed(from) == is_signed(to))
      return bit_width(to) > bit_width(from) ? Conversion::Promote : Conversion::Unsafe;
    return !is_signed(from) && bit_width(to) > bit_width(from) ? Conversion::Safe
                                                               : Conversion::Unsafe;
  }
  if (is_integer(to)) return Conversion::Unsafe;  // a float or complex to an integer
  Scalar target = is_complex(to) ? complex_part(to) : to;
  Scalar source = is_complex(from) ? complex_part(from) : from;
  Conversion c = real_to_float(source, target);
  // A real number into a complex one is at best safe, as in Numba.
  if (is_complex(to) && !is_complex(from) && c != Conversion::Unsafe) return Conversion::Safe;
  return c;
}

std::optional<std::vector<std::optional<Scalar>>> declared_parameters(const Node& call) {
  const Node* fn = &call;
  if (cast_type(*fn) && fn->size() == 1) fn = &fn->child(0);  // the result's conversion
  if (fn->kind != NodeKind::CallFn) return std::nullopt;
  std::vector<std::optional<Scalar>> params;
  for (const auto& arg : fn->children) params.push_back(cast_type(*arg));
  return params;
}

std::optional<Rank> rank_conversions(const std::vector<Type>& args,
                                     const std::vector<std::optional<Scalar>>& params) {
  if (params.size() < args.size()) return std::nullopt;
  Rank rank{};
  for (size_t i = 0; i < args.size(); ++i) {
    if (!params[i]) {  // an array parameter: arrays pass as they are
      if (args[i].is_scalar()) return std::nullopt;
      continue;
    }
    if (!args[i].is_scalar()) return std::nullopt;
    switch (conversion(args[i].scalar(), *params[i])) {
      case Conversion::None:
        return std::nullopt;
      case Conversion::Unsafe:
        ++rank[0];
        break;
      case Conversion::Safe:
        ++rank[1];
        break;
      case Conversion::Promote:
        ++rank[2];
        break;
      case Conversion::Exact:
        break;
    }
  }
  return rank;
}

}  // namespace cudajit::typing
