// For cudajit.libdevice and cudajit.cmath_impl (not Numba's API): cuda.reinterpret.<type>(x),
// x's bits as <type> (libdevice's float_as_int ...); cuda.libm.<j0 ...>, the Bessel functions
// libdevice and libm have (__nv_j0 ... on the GPU, j0 ... on the host); cuda.like.real and
// cuda.like.complex, values in the precision of a first argument; cuda.like.item, a value as
// an array's element type (cudajit.array_reductions' accumulators).
#include "../lower/lowering.hpp"
#include "rules.hpp"

namespace cudajit::builtins {

namespace {

using lower::FunctionLowering;

Type type_reinterpret(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  auto target = scalar_from_name(suffix(call, "cuda.reinterpret."));
  if (!target || !args[0].is_scalar() || args[0].is_scalar(Scalar::Bool) ||
      is_complex(args[0].scalar()) || bit_width(args[0].scalar()) != bit_width(*target))
    type_error(call, call.text + "() needs a number of the same width, got " + args[0].str());
  return Type::scalar(*target);
}

// For cudajit's cmath: a float, or a complex, of the precision of the first argument
// (float32 or complex64 give float32 / complex64; anything else 64 bits).
Type type_like(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  for (const Type& t : args)
    if (!t.is_scalar()) type_error(call, call.text + "() needs numbers, got " + t.str());
  bool single = args[0].is_scalar(Scalar::Float32) || args[0].is_scalar(Scalar::Complex64);
  if (call.text == "cuda.like.real")
    return Type::scalar(single ? Scalar::Float32 : Scalar::Float64);
  return Type::scalar(single ? Scalar::Complex64 : Scalar::Complex128);
}

// like.item(a, v): v as a's element type (the zero or one a reduction of `a` starts from).
Type type_like_item(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  if (!args[0].is_array() || !args[1].is_scalar())
    type_error(call, "cuda.like.item() needs an array and a number, got " + args[0].str() +
                         " and " + args[1].str());
  return Type::scalar(args[0].dtype());
}

Type type_bessel(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  expect_real(call, args[0]);
  return Type::scalar(math_float(args) == Scalar::Float32 ? Scalar::Float32 : Scalar::Float64);
}

// jn(n, x) and yn(n, x): an integer order first.
Type type_bessel_n(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  if (!args[0].is_scalar() || !is_integer(args[0].scalar()))
    type_error(call, call.text + "() needs an integer order, got " + args[0].str());
  expect_real(call, args[1]);
  return Type::scalar(args[1].is_scalar(Scalar::Float32) ? Scalar::Float32 : Scalar::Float64);
}

llvm::Value* lower_support(FunctionLowering& f, const Node& n) {
  return f.call_libdevice_support(n, suffix(n, "cuda."));
}

}  // namespace

void register_libdevice_support(Registry& r) {
  r.add({"cuda.reinterpret.", takes(1), type_reinterpret, lower_support, "cuda.reinterpret."});
  r.add({"cuda.like.real", takes(2), type_like, lower_support, "cuda.like.real"});
  r.add({"cuda.like.complex", takes(3), type_like, lower_support, "cuda.like.complex"});
  r.add({"cuda.like.item", takes(2), type_like_item, lower_support, "cuda.like.item"});
  for (std::string_view name : {"cuda.libm.j0", "cuda.libm.j1", "cuda.libm.y0", "cuda.libm.y1"})
    r.add({name, takes(1), type_bessel, lower_support, name});
  for (std::string_view name : {"cuda.libm.jn", "cuda.libm.yn"})
    r.add({name, takes(2), type_bessel_n, lower_support, name});
}

}  // namespace cudajit::builtins

namespace cudajit::lower {

using ir::Node;

// cuda.reinterpret.<type> (the bits, unchanged) and the Bessel functions of
// cuda.libm (libdevice's __nv_j0 ... on the GPU, libm's j0 ... on the host).
llvm::Value* FunctionLowering::call_libdevice_support(const Node& n, std::string_view name) {
  const Type& result = type_of(n);
  std::vector<Value> args;
  for (const auto& c : n.children) args.push_back({expr(*c), type_of(*c)});
  if (name.starts_with("reinterpret.")) return b_.CreateBitCast(args[0].v, m_.value_type(result));
  if (name == "like.real" || name == "like.item") return cast(args[1].v, args[1].type, result);
  if (name == "like.complex") {
    Type part = Type::scalar(complex_part(result.scalar()));
    return make_complex(cast(args[1].v, args[1].type, part), cast(args[2].v, args[2].type, part),
                        result.scalar());
  }
  const std::string function(name.substr(5));
  const Scalar f = result.scalar();
  if (function == "jn" || function == "yn") {
    llvm::Value* order = cast(args[0].v, args[0].type, Type::scalar(Scalar::Int32));
    llvm::Value* x = cast(args[1].v, args[1].type, result);
    llvm::Type* t = x->getType();
    auto callee =
        m_.module.getOrInsertFunction(m_.hooks.math_symbol(function, f == Scalar::Float32),
                                      llvm::FunctionType::get(t, {b_.getInt32Ty(), t}, false));
    return b_.CreateCall(callee, {order, x});
  }
  return call_math(function, f, {cast(args[0].v, args[0].type, result)});
}

}  // namespace cudajit::lower
