// Internal to typing/: the per-function typer and the builtin signatures.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cudajit/compiler/conversions.hpp"
#include "cudajit/compiler/typed.hpp"

namespace cudajit::typing {

[[noreturn]] void type_error(const ir::Node& node, const std::string& message);

// Types a call of a builtin (`len`, `math.sqrt`, `cuda.grid`, `cast.int32`...),
// given the types of its arguments. Throws CompileError for a bad call.
// `out` receives constants the call folds (cuda.grid's dimension count).
Type type_builtin_call(const ir::Node& call, const std::vector<Type>& args, TypedFunction& out);

// foreign_calls.cpp: the type of a call of a foreign device function (IR `extern.NAME`).
Type type_foreign_call(const ir::Node& call, const std::vector<Type>& args);

// function_facts.cpp. True when control cannot fall off the end of `stmts`; whether a
// `return VALUE` is among them (nested blocks too); a function's name as its Python source
// spells it ("scale_3" is "scale", "test__locals__inner_4" "inner").
bool always_returns(const std::vector<ir::NodePtr>& stmts);
bool returns_a_value(const std::vector<ir::NodePtr>& stmts);
std::string python_name(const std::string& ir_name);

// An integer or a bool (which indexes and counts as one).
inline bool is_int_like(const Type& t) {
  return t.is_scalar() && (is_integer(t.scalar()) || t.scalar() == Scalar::Bool);
}

// views.cpp. a[i, j] (or p[i] of a CPointer), read or written (`store`): the element's type,
// or a view of the dimensions fewer indices leave.
Type element_type(const ir::Node& n, const Type& v, const Type& index, bool store);
// r.f (or r['f']) of a record: a number, a view of a nested array, or a record
// inside it; a.f of an array of records: that field in every record, a strided view.
Type field_type(const ir::Node& n, const Type& v);
Type field_type(const ir::Node& n, const Type& v, const RecordField* f);
std::string field_list(const Type& v);  // "; its fields: .a .b", for messages
// a.reshape(...) (method reshape.CODE, `args` the extents' types: ints or one tuple of them)
// and a.view(dtype) (view.DTYPE.CODE): views of the array's memory, C order for reshape.
Type array_method_type(const ir::Node& n, const Type& v, const std::vector<Type>& args);

// A converting call of a device function declared with several signatures (overload.N):
// the declared type of each parameter (nothing for an array). Nothing if not such a call.
std::optional<std::vector<std::optional<Scalar>>> declared_parameters(const ir::Node& call);

// How well `args` fit `params` (Numba's conversions, cudajit/compiler/conversions.hpp);
// nothing where one cannot convert.
std::optional<ConversionRank> rank_conversions(const std::vector<Type>& args,
                                     const std::vector<std::optional<Scalar>>& params);

// Specialises the functions of one module, each once per argument types.
class ProgramTyper {
 public:
  explicit ProgramTyper(const ir::Module& module) : module_(module) {}

  // The specialisation of `fn` for `args`, typing it on first request.
  const TypedFunction& specialize(const ir::Function& fn, const std::vector<Type>& args,
                                  const ir::Node* call_site, bool is_kernel = false);
  TypedProgram take(const TypedFunction* entry);
  // A function's return type; for one still being typed (a recursive call), what its
  // returns have shown so far (nothing yet: unknown, and typing goes round again).
  std::optional<Type> return_type_of(const TypedFunction& fn) const;

 private:
  const ir::Module& module_;
  std::deque<TypedFunction> functions_;
  std::map<std::pair<std::string, std::vector<std::string>>, const TypedFunction*> done_;
  // Functions being typed, by name: their argument types, and their return type so far.
  struct InProgress {
    std::vector<std::string> key;
    const TypedFunction* function;
    const std::optional<Type>* return_type;
  };
  std::map<std::string, InProgress> in_progress_;
};

}  // namespace cudajit::typing
