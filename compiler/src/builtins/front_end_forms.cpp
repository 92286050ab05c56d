// Calls the front end makes for its own constructs: CUDA's vector types
// (cuda.vector.float32x4 ..., from cuda.float32x4(...)); a NumPy ufunc's loop over an output
// array (cuda.ufunc.size, item, store); debug=True's checks around an expression (debug.*,
// lower/exceptions.cpp); calls of foreign device functions (extern.NAME, foreign_calls.cpp).
#include "../lower/lowering.hpp"
#include "rules.hpp"

namespace cudajit::builtins {

namespace {

using lower::FunctionLowering;

// A NumPy ufunc called with an output array in a kernel (np.sin(x, out)): the front end
// loops over out's ufunc.size(out) elements; ufunc.item(x, out, i) is x's element at out's i-th
// position (NumPy's broadcasting: x's axes align with out's last ones, extents of 1 repeat), or x
// itself for a number; ufunc.store(out, i, v) writes out's i-th element (C order).
Type type_ufunc_loop(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  const std::string_view name = suffix(call, "cuda.");
  const Type& out = name == "ufunc.item" ? args[1] : args[0];
  if (!out.is_array())
    type_error(call, "a NumPy ufunc's output in a kernel must be an array, got " + out.str());
  if (name == "ufunc.size") return Type::scalar(Scalar::Int64);
  const Type& index = name == "ufunc.item" ? args[2] : args[1];
  if (!index.is_scalar() || !is_integer(index.scalar()))
    type_error(call, "internal: ufunc position must be an integer, got " + index.str());
  if (name == "ufunc.store") {
    if (out.readonly()) type_error(call, "a NumPy ufunc cannot write its output into " + out.str());
    if (!args[2].is_scalar())
      type_error(call, "a NumPy ufunc computed " + args[2].str() + ", not a number");
    // NumPy's same_kind casting: never from complex to real, nor from a float to an integer.
    auto kind = [](Scalar s) {
      return s == Scalar::Bool ? 0 : is_integer(s) ? 1 : is_complex(s) ? 3 : 2;
    };
    if (kind(args[2].scalar()) > kind(out.dtype()))
      type_error(call, "a NumPy ufunc cannot store " + args[2].str() + " results in an array of " +
                           std::string(scalar_name(out.dtype())) + " (NumPy's same_kind casting)");
    return Type::none();
  }
  const Type& x = args[0];
  if (x.is_array()) {
    if (x.ndim() > out.ndim())
      type_error(call, "a NumPy ufunc's input " + x.str() +
                           " has more dimensions than its output " + out.str());
    return Type::scalar(x.dtype());
  }
  if (!x.is_scalar())
    type_error(call, "a NumPy ufunc in a kernel takes numbers and arrays, got " + x.str());
  return x;
}

// cuda.vector.<base>x<n>(...): CUDA's vector type, from numbers and smaller vectors of the same
// base type, n components in all; a named tuple with fields x, y, z, w (as Numba's).
Type type_vector(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  const std::string_view name = suffix(call, "cuda.vector.");
  const size_t x = name.rfind('x');
  auto base = scalar_from_name(name.substr(0, x));
  const size_t count =
      x == std::string_view::npos ? 0 : std::stoul(std::string(name.substr(x + 1)));
  if (!base || count < 1 || count > 4)
    type_error(call, "unknown vector type '" + std::string(name) + "'");
  size_t given = 0;
  for (const Type& a : args) {
    if (a.is_scalar() && !is_complex(a.scalar())) {
      ++given;
    } else if (a.is_tuple() && a.tuple_name().starts_with(std::string(name.substr(0, x)) + "x") &&
               a.fields().size() == a.elements().size()) {
      given += a.elements().size();  // a smaller vector of the same type
    } else {
      type_error(call, "cuda." + std::string(name) + "() takes numbers and vectors of " +
                           std::string(scalar_name(*base)) + "; got " + a.str());
    }
  }
  if (given != count)
    type_error(call, "cuda." + std::string(name) + "() needs " + std::to_string(count) +
                         " components; got " + std::to_string(given));
  static const char* const kFields[] = {"x", "y", "z", "w"};
  return Type::named_tuple(std::string(name), std::vector<Type>(count, Type::scalar(*base)),
                           std::vector<std::string>(kFields, kFields + count));
}

Type type_checked(const Node&, const std::vector<Type>& args, typing::TypedFunction&) {
  return args[0];  // debug.*: the checked expression's own type
}

}  // namespace

void register_front_end_forms(Registry& r) {
  r.add({"cuda.vector.", kRuleChecksArity, type_vector,
         [](FunctionLowering& f, const Node& n) { return f.vector_value(n); }});
  r.add({"cuda.ufunc.size", takes(1), type_ufunc_loop,
         [](FunctionLowering& f, const Node& n) { return f.ufunc_size(n); }, "cuda.ufunc.size"});
  r.add({"cuda.ufunc.item", takes(3), type_ufunc_loop,
         [](FunctionLowering& f, const Node& n) { return f.ufunc_item(n); }, "cuda.ufunc.item"});
  r.add({"cuda.ufunc.store", takes(3), type_ufunc_loop,
         [](FunctionLowering& f, const Node& n) -> llvm::Value* {
           f.ufunc_store(n);
           return nullptr;
         },
         "cuda.ufunc.store"});
  r.add({"debug.", takes(1), type_checked,
         [](FunctionLowering& f, const Node& n) { return f.checked(n); }});
  r.add({"extern.", kRuleChecksArity,
         [](const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
           return typing::type_foreign_call(call, args);
         },
         [](FunctionLowering& f, const Node& n) { return f.call_foreign(n); }});
}

}  // namespace cudajit::builtins

namespace cudajit::lower {

using ir::Node;

// A vector: its components, smaller vectors' spread out.
llvm::Value* FunctionLowering::vector_value(const Node& n) {
  const Type& result = type_of(n);
  const Type& component = result.elements()[0];
  llvm::Value* vector = llvm::UndefValue::get(m_.value_type(result));
  unsigned next = 0;
  for (const auto& c : n.children) {
    const Type& t = type_of(*c);
    llvm::Value* v = expr(*c);
    if (!t.is_tuple()) {
      vector = b_.CreateInsertValue(vector, cast(v, t, component), {next++});
      continue;
    }
    for (unsigned k = 0; k < t.elements().size(); ++k)
      vector =
          b_.CreateInsertValue(vector, cast(extract(v, {k}), t.elements()[k], component), {next++});
  }
  return vector;
}

// The number of elements of the ufunc's output array.
llvm::Value* FunctionLowering::ufunc_size(const Node& n) {
  llvm::Value* out = expr(n.child(0));
  llvm::Value* size = int64(1);
  for (unsigned d = 0; d < static_cast<unsigned>(type_of(n.child(0)).ndim()); ++d)
    size = b_.CreateMul(size, extract(out, {1, d}));
  return size;
}

}  // namespace cudajit::lower
