// The typed program: every function reachable from the entry point,
// specialised for the argument types it is called with, and the type of each
// expression node. Produced by type_program, consumed by lowering.
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "cudajit/compiler/ir.hpp"
#include "cudajit/compiler/types.hpp"

namespace cudajit::typing {

struct TypedFunction {
  const ir::Function* function = nullptr;
  std::string symbol;  // unique LLVM name of this specialisation
  std::vector<Type> arg_types;
  Type return_type;
  // Every local variable (parameters included) with its unified type.
  std::map<std::string, Type> locals;
  std::unordered_map<const ir::Node*, Type> expr_types;
  // The specialisation each CallFn node calls.
  std::unordered_map<const ir::Node*, const TypedFunction*> callees;
  // Integer value of expressions the typer folded (tuple indices, grid(N)).
  std::unordered_map<const ir::Node*, int64_t> constants;

  const Type& type_of(const ir::Node& n) const { return expr_types.at(&n); }
};

struct TypedProgram {
  std::deque<TypedFunction> functions;  // deque: stable addresses for callees
  const TypedFunction* entry = nullptr;
  std::string file;
};

// Types `module.functions[0]` for `arg_types`, and everything it calls; a
// kernel must return None. Throws CompileError (with the file set) for
// ill-typed or unsupported code.
// `declared_return`, when set, is the return type a signature declares: the
// entry's result is converted to it (as Numba does).
TypedProgram type_program(const ir::Module& module, const std::vector<Type>& arg_types,
                          bool is_kernel, std::optional<Type> declared_return = std::nullopt);

// Human-readable summary of the typing, for CUDAJIT_DUMP=typed.
std::string print_typed(const TypedProgram& program);

// Numba's rules, shared by typing and lowering.
// unify: the type two values of a variable merge to (NumPy's promote_types);
// std::nullopt when they cannot merge.
std::optional<Type> unify(const Type& a, const Type& b);
// The type +, -, *, //, % etc. compute in, for two scalar operands.
Scalar arithmetic_result(Scalar a, Scalar b);
// Scalar NumPy promotion of two scalars.
Scalar promote(Scalar a, Scalar b);

// A call of a foreign device function (cuda.declare_device), IR `extern.NAME`: its
// declaration, which the call carries as its first argument (bytes: the ABI, the return type,
// then each parameter's type, one a line). Throws CompileError at the call when malformed.
struct ForeignSignature {
  std::string name;
  bool numba_abi = true;  // Numba's: int32 status = f(result*, args...); C's: result = f(args...)
  Type return_type;
  std::vector<Type> params;
};
ForeignSignature foreign_signature(const ir::Node& call);

}  // namespace cudajit::typing
