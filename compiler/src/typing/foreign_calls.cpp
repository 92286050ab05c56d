// Calls of foreign device functions (cuda.declare_device): `extern.NAME`, whose first
// argument is the declaration as bytes (the ABI, the return type, then each parameter's type,
// one a line) and the rest the arguments, which the front end has cast to the declared scalar
// types.
#include <string>

#include "typer.hpp"

namespace cudajit::typing {

ForeignSignature foreign_signature(const ir::Node& call) {
  if (call.size() == 0 || call.child(0).kind != ir::NodeKind::Bytes)
    type_error(call, "internal: a foreign call carries its declaration first");
  std::vector<std::string> lines;
  const std::string& text = call.child(0).text;
  for (size_t at = 0; at <= text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  if (lines.size() < 2 || (lines[0] != "numba" && lines[0] != "c"))
    type_error(call, "internal: a malformed foreign declaration");
  ForeignSignature sig;
  sig.numba_abi = lines[0] == "numba";
  sig.name = call.text.substr(7);  // after "extern."
  try {
    sig.return_type = parse_type(lines[1]);
    for (size_t i = 2; i < lines.size(); ++i) sig.params.push_back(parse_type(lines[i]));
  } catch (const std::exception& e) {
    type_error(call, "foreign function '" + sig.name + "': " + e.what());
  }
  return sig;
}

Type type_foreign_call(const ir::Node& call, const std::vector<Type>& args) {
  ForeignSignature sig = foreign_signature(call);
  const size_t given = args.size() - 1;  // the declaration is not an argument
  if (given != sig.params.size())
    type_error(call, "foreign function '" + sig.name + "' takes " +
                         std::to_string(sig.params.size()) + " arguments, got " +
                         std::to_string(given));
  auto passable = [](const Type& t) {
    return (t.is_scalar() && !is_complex(t.scalar()) && t.scalar() != Scalar::BFloat16) ||
           t.is_pointer();
  };
  if (!sig.return_type.is_none() && !passable(sig.return_type))
    type_error(call, "foreign function '" + sig.name + "' returns " + sig.return_type.str() +
                         "; foreign functions return a real number, a bool or None");
  for (size_t i = 0; i < sig.params.size(); ++i) {
    const Type& want = sig.params[i];
    const ir::Node& arg = call.child(i + 1);
    if (!passable(want))
      type_error(arg, "foreign function '" + sig.name + "' declares parameter " +
                          std::to_string(i + 1) + " as " + want.str() +
                          "; foreign functions take real numbers, bools and CPointers");
    if (args[i + 1] != want)
      type_error(arg, "foreign function '" + sig.name + "' takes " + want.str() +
                          " as argument " + std::to_string(i + 1) + ", got " +
                          args[i + 1].str());
  }
  return sig.return_type;
}

}  // namespace cudajit::typing
