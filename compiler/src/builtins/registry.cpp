// The registry of builtins (registry.hpp): its lookup, the one error for an unknown name,
// and typing's side of the lookup (lowering's is FunctionLowering::call_builtin).
#include "registry.hpp"

#include <stdexcept>

#include "cudajit/compiler/builtins.hpp"
#include "rules.hpp"

namespace cudajit::builtins {

void Registry::add(const Builtin& row) {
  const size_t index = rows_.size();
  const bool fresh = row.name.ends_with('.')
                         ? std::none_of(prefixes_.begin(), prefixes_.end(),
                                        [&](size_t p) { return rows_[p].name == row.name; })
                         : exact_.emplace(row.name, index).second;
  if (!fresh || row.type == nullptr)
    throw std::logic_error("builtin '" + std::string(row.name) + "' registered twice or untyped");
  if (row.name.ends_with('.')) prefixes_.push_back(index);
  rows_.push_back(row);
}

const Builtin* Registry::find(std::string_view name) const {
  if (auto it = exact_.find(name); it != exact_.end()) return &rows_[it->second];
  const Builtin* best = nullptr;
  for (size_t p : prefixes_) {
    const Builtin& row = rows_[p];
    if (name.starts_with(row.name) && (!best || row.name.size() > best->name.size())) best = &row;
  }
  return best;
}

const Registry& registry() {
  static const Registry table = [] {
    Registry r;
    register_python_builtins(r);
    register_conversions(r);
    register_math(r);
    register_bit_math(r);
    register_libdevice_support(r);
    register_thread_indexing(r);
    register_memory(r);
    register_atomics(r);
    register_cache_hints(r);
    register_synchronization(r);
    register_warp(r);
    register_front_end_forms(r);
    return r;
  }();
  return table;
}

bool has_fact(std::string_view name, Fact fact) {
  const Builtin* row = registry().find(name);
  return row != nullptr && (row->facts & fact) != 0;
}

void unknown_builtin(const Node& call) {
  const std::string& name = call.text;
  if (name.starts_with("cuda.")) type_error(call, name + " is not supported in kernels");
  type_error(call, name + "() is not supported in kernels");  // math.factorial(), input()
}

}  // namespace cudajit::builtins

namespace cudajit::typing {

Type type_builtin_call(const ir::Node& call, const std::vector<Type>& args, TypedFunction& out) {
  const builtins::Builtin* row = builtins::registry().find(call.text);
  if (row == nullptr) builtins::unknown_builtin(call);
  if (row->arity.lo != builtins::Arity::kAny)
    builtins::expect_args(call, args, row->arity.lo, row->arity.hi);
  return row->type(call, args, out);
}

}  // namespace cudajit::typing

namespace cudajit {

std::vector<BuiltinName> builtin_names() {
  std::vector<BuiltinName> names;
  for (const builtins::Builtin& row : builtins::registry().rows())
    names.push_back({std::string(row.name), std::string(row.intrinsic)});
  return names;
}

}  // namespace cudajit
