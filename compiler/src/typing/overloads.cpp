// A call of a device function declared with several signatures (IR `overload.N`): the
// signature whose conversions fit the arguments best, ranked as Numba ranks them.
#include <algorithm>

#include "typer.hpp"

namespace cudajit::typing {

namespace {

using ir::Node;
using ir::NodeKind;

// A call's `cast.T(...)` wrapper: T, else nothing.
std::optional<Scalar> cast_type(const Node& n) {
  if (n.kind != NodeKind::Call || !n.text.starts_with("cast.")) return std::nullopt;
  return scalar_from_name(std::string_view(n.text).substr(5));
}

}  // namespace

std::optional<std::vector<std::optional<Scalar>>> declared_parameters(const Node& call) {
  const Node* fn = &call;
  if (cast_type(*fn) && fn->size() == 1) fn = &fn->child(0);  // the result's conversion
  if (fn->kind != NodeKind::CallFn) return std::nullopt;
  std::vector<std::optional<Scalar>> params;
  for (const auto& arg : fn->children) params.push_back(cast_type(*arg));
  return params;
}

std::optional<ConversionRank> rank_conversions(const std::vector<Type>& args,
                                               const std::vector<std::optional<Scalar>>& params) {
  if (params.size() < args.size()) return std::nullopt;
  ConversionRank rank;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!params[i]) {  // an array parameter: arrays pass as they are
      if (args[i].is_scalar()) return std::nullopt;
      continue;
    }
    if (!args[i].is_scalar() || !rank.add(conversion(args[i].scalar(), *params[i])))
      return std::nullopt;
  }
  return rank;
}

}  // namespace cudajit::typing
