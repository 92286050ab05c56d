// Conversions: cast.<type> (cuda.int32(x), np.float32(x)...), Python's int, float, bool and
// complex.
#include "../lower/lowering.hpp"
#include "rules.hpp"

namespace cudajit::builtins {

namespace {

using lower::FunctionLowering;

Type type_cast(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  std::string_view name = call.text;
  auto target = scalar_from_name(name.substr(5));
  if (!target) type_error(call, "unknown cast '" + std::string(name) + "'");
  expect_args(call, args, 1, 1);
  if (!args[0].is_scalar())
    type_error(call, std::string(name.substr(5)) + "() needs a number, got " + args[0].str());
  if (is_complex(args[0].scalar()) && !is_complex(*target))
    type_error(call, "cannot convert " + args[0].str() + " to " + std::string(name.substr(5)) +
                         " (take .real first)");
  return Type::scalar(*target);
}

// Numba's rule: int() of an integer and float() of a float keep its type (float(x) of a
// float32 stays float32, not a float64 computation on the GPU); otherwise int64 or float64.
Type type_int_float(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  expect_real(call, args[0]);
  const Scalar s = args[0].scalar();
  if (call.text == "int") return is_integer(s) ? args[0] : Type::scalar(Scalar::Int64);
  return is_float(s) ? args[0] : Type::scalar(Scalar::Float64);
}

Type type_bool(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  if (!args[0].is_scalar()) type_error(call, "bool() needs a number, got " + args[0].str());
  return Type::scalar(Scalar::Bool);
}

// The argument converted to the call's type.
llvm::Value* lower_cast(FunctionLowering& f, const Node& n) {
  std::vector<lower::Value> args = f.argument_values(n);
  return f.cast(args[0].v, args[0].type, f.type_of(n));
}

Type type_complex(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  for (const Type& t : args) expect_real(call, t);
  bool all_f32 = std::all_of(args.begin(), args.end(),
                             [](const Type& t) { return t.is_scalar(Scalar::Float32); });
  return Type::scalar(all_f32 ? Scalar::Complex64 : Scalar::Complex128);  // as Numba
}

llvm::Value* lower_complex(FunctionLowering& f, const Node& n) {
  std::vector<lower::Value> args = f.argument_values(n);
  const Type& result = f.type_of(n);
  Type part = Type::scalar(complex_part(result.scalar()));
  llvm::Value* im =
      args.size() > 1 ? f.cast(args[1].v, args[1].type, part) : f.float_const(part.scalar(), 0.0);
  return f.make_complex(f.cast(args[0].v, args[0].type, part), im, result.scalar());
}

}  // namespace

void register_conversions(Registry& r) {
  r.add({"cast.", kRuleChecksArity, type_cast, lower_cast});
  r.add({"int", takes(1), type_int_float, lower_cast});
  r.add({"float", takes(1), type_int_float, lower_cast});
  r.add({"bool", takes(1), type_bool, lower_cast});
  r.add({"complex", takes(1, 2), type_complex, lower_complex});
}

}  // namespace cudajit::builtins
