// Calls of builtins: the front end's special forms (overload.N, choose.complex.N, isnone,
// notnone), then one lookup in the registry of builtins (builtins/registry.hpp), whose rows
// hold each builtin's lowering next to its typing rule.
#include "../builtins/registry.hpp"
#include "lowering.hpp"

namespace cudajit::lower {

using ir::Node;

llvm::Value* FunctionLowering::call_builtin(const Node& n) {
  std::string_view name = n.text;
  // A device function's declared signature that typing chose (typing/overloads.cpp),
  // and the call for real or complex numbers of a NumPy math ufunc (choose.complex.N).
  if (name.starts_with("overload.") || name.starts_with("choose."))
    return expr(n.child(f_.constants.at(&n)));
  if (name == "isnone" || name == "notnone") {  // x is None: a constant, or the optional's flag
    auto known = f_.constants.find(&n);
    if (known != f_.constants.end()) return b_.getInt1(known->second != 0);
    llvm::Value* present = extract(expr(n.child(0)), {1});
    return name == "isnone" ? b_.CreateNot(present) : present;
  }
  const builtins::Builtin* row = builtins::registry().find(name);
  if (row == nullptr || row->lower == nullptr)
    throw CompileError("internal: no lowering for builtin " + n.text, n.loc);
  return row->lower(*this, n);
}

}  // namespace cudajit::lower
