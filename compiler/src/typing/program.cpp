// Typing a whole program: the entry specialised for the launch's argument types (and its
// declared return type), and print_typed's dump (CUDAJIT_DUMP=typed). The builtins' rules are
// in builtins/ (type_builtin_call: builtins/registry.cpp).
#include "typer.hpp"

namespace cudajit::typing {

TypedProgram type_program(const ir::Module& module, const std::vector<Type>& arg_types,
                          bool is_kernel, std::optional<Type> declared_return) {
  const ir::Function& entry = module.functions.at(0);
  if (entry.params.size() != arg_types.size())
    throw CompileError("'" + entry.name + "' takes " + std::to_string(entry.params.size()) +
                           " arguments, but the signature has " + std::to_string(arg_types.size()),
                       entry.loc, module.file);
  for (size_t i = 0; i < arg_types.size(); ++i)
    if (arg_types[i].is_none())
      throw CompileError(
          "argument '" + entry.params[i] + "' cannot be of type " + arg_types[i].str(), entry.loc,
          module.file);
  ProgramTyper typer(module);
  try {
    const TypedFunction& typed = typer.specialize(entry, arg_types, nullptr, is_kernel);
    if (declared_return && *declared_return != typed.return_type) {
      const Type& inferred = typed.return_type;
      bool convertible = inferred.is_scalar() && declared_return->is_scalar() &&
                         (!is_complex(inferred.scalar()) || is_complex(declared_return->scalar()));
      if (!convertible)
        throw CompileError("'" + entry.name + "' returns " + inferred.str() +
                               ", which cannot be converted to the declared return type " +
                               declared_return->str(),
                           entry.loc);
    }
    TypedProgram program = typer.take(&typed);
    if (declared_return) {
      // The entry is ours alone (no caller shares the specialisation): lowering
      // converts each returned value to the declared type.
      const_cast<TypedFunction*>(program.entry)->return_type = *declared_return;
    }
    return program;
  } catch (CompileError& e) {
    if (e.file().empty()) e.set_file(module.file);
    throw;
  }
}

std::string print_typed(const TypedProgram& program) {
  std::string out;
  for (const TypedFunction& f : program.functions) {
    out += f.symbol + "(";
    for (size_t i = 0; i < f.arg_types.size(); ++i)
      out += (i ? ", " : "") + f.function->params[i] + ": " + f.arg_types[i].str();
    out += ") -> " + f.return_type.str() + "\n";
    for (const auto& [name, type] : f.locals) out += "  " + name + ": " + type.str() + "\n";
  }
  return out;
}

}  // namespace cudajit::typing
