// Python's builtins in kernels: len, min, max, abs, round, print, isinstance, a.ctypes.data
// (array.address), and range() outside a for loop (refused). int, float, bool and complex
// are conversions (conversions.cpp).
#include <llvm/IR/Intrinsics.h>

#include "../lower/lowering.hpp"
#include "rules.hpp"

namespace cudajit::builtins {

namespace {

using lower::FunctionLowering;

Type type_address(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  if (args[0].is_array()) return Type::scalar(Scalar::UInt64);  // a.ctypes.data
  type_error(call, ".ctypes.data needs an array, got " + args[0].str());
}

llvm::Value* lower_address(FunctionLowering& f, const Node& n) {
  std::vector<lower::Value> args = f.argument_values(n);
  return f.builder().CreatePtrToInt(f.extract(args[0].v, {0}), f.builder().getInt64Ty());
}

// ffi.from_buffer(a), Numba's rule: a contiguous array's data as a CPointer of its dtype
// (a multidimensional one C-contiguous, so that the pointer walks it in index order).
Type type_pointer(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  const Type& a = args[0];
  if (!a.is_array() || a.is_record_array() || a.ndim() == 0)
    type_error(call, "from_buffer() expected an array of numbers, got " + a.str());
  if (a.layout() == Layout::A || (a.layout() == Layout::F && a.ndim() > 1))
    type_error(call, "from_buffer() needs a C-contiguous array (its pointer walks the elements "
                     "in index order), got " + a.str());
  return Type::pointer(a.dtype());
}

llvm::Value* lower_pointer(FunctionLowering& f, const Node& n) {
  return f.extract(f.argument_values(n)[0].v, {0});
}

Type type_len(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  if (args[0].is_array() && args[0].ndim() == 0)
    type_error(call, "len() of unsized object: " + args[0].str() + " has no first dimension");
  if (args[0].is_array() || args[0].is_tuple()) return Type::scalar(Scalar::Int64);
  type_error(call, "len() needs an array or a tuple, got " + args[0].str());
}

llvm::Value* lower_len(FunctionLowering& f, const Node& n) {
  std::vector<lower::Value> args = f.argument_values(n);
  if (args[0].type.is_tuple()) return f.int64(static_cast<int64_t>(args[0].type.elements().size()));
  return f.extract(args[0].v, {1, 0});
}

Type type_min_max(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  bool from_tuple = args.size() == 1 && args[0].is_tuple();
  std::vector<Type> values = from_tuple ? args[0].elements() : args;
  if (values.empty() || (!from_tuple && values.size() < 2))
    type_error(call, call.text + "() needs at least two numbers, or one tuple");
  Type result = values[0];
  for (const Type& t : values) {
    expect_real(call, t);
    result = Type::scalar(typing::promote(result.scalar(), t.scalar()));
  }
  return result;
}

Type type_abs(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  if (!args[0].is_scalar()) type_error(call, "abs() needs a number, got " + args[0].str());
  Scalar s = args[0].scalar();
  if (is_complex(s)) return Type::scalar(complex_part(s));
  if (s == Scalar::Bool) return Type::scalar(Scalar::Int64);
  return args[0];
}

llvm::Value* lower_abs(FunctionLowering& f, const Node& n) {
  std::vector<lower::Value> args = f.argument_values(n);
  const Type& result = f.type_of(n);
  llvm::IRBuilder<>& b = f.builder();
  Scalar s = args[0].type.scalar();
  if (is_complex(s))
    return f.call_math("hypot", complex_part(s), {f.re(args[0].v), f.im(args[0].v)});
  llvm::Value* v = f.cast(args[0].v, args[0].type, result);
  if (is_float(s)) return f.intrinsic(llvm::Intrinsic::fabs, {v->getType()}, {v});
  if (!is_signed(result.scalar())) return v;
  return b.CreateSelect(b.CreateICmpSLT(v, llvm::ConstantInt::get(v->getType(), 0)), b.CreateNeg(v),
                        v);
}

Type type_round(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  expect_real(call, args[0]);
  if (args.size() == 1) return Type::scalar(Scalar::Int64);
  if (!args[1].is_scalar() || !is_integer(args[1].scalar()))
    type_error(call, "round() ndigits must be an integer, got " + args[1].str());
  return is_float(args[0].scalar()) ? args[0] : Type::scalar(Scalar::Int64);
}

llvm::Value* lower_round(FunctionLowering& f, const Node& n) {
  std::vector<lower::Value> args = f.argument_values(n);
  const Type& result = f.type_of(n);
  Scalar s = args[0].type.scalar();
  if (!is_float(s)) return f.cast(args[0].v, args[0].type, result);
  llvm::Value* ndigits =
      args.size() > 1 ? f.cast(args[1].v, args[1].type, Type::scalar(Scalar::Int64)) : nullptr;
  llvm::Value* r = f.round(args[0].v, s, ndigits);
  return f.cast(r, args[0].type, result);
}

// isinstance.<kind>(x), the front end's isinstance(x, T) for each type T: a scalar type
// (cudajit's, NumPy's or Numba's, by its name), or Python's int, float or complex (any integer,
// float or complex number; bool is neither, as Numba types it) or bool. Known when compiling.
bool is_instance(const Type& t, std::string_view kind) {
  if (!t.is_scalar()) return false;
  const Scalar s = t.scalar();
  if (kind == "int") return is_integer(s);
  if (kind == "float") return is_float(s);
  if (kind == "complex") return is_complex(s);
  if (kind == "bool") return s == Scalar::Bool;
  return scalar_from_name(kind) == s;
}

Type type_isinstance(const Node& call, const std::vector<Type>&, typing::TypedFunction&) {
  std::string_view kind = suffix(call, "isinstance.");
  if (kind != "int" && kind != "float" && kind != "complex" && kind != "bool" &&
      !scalar_from_name(kind))
    type_error(call, "isinstance() in kernels takes a number type, got " + std::string(kind));
  return Type::scalar(Scalar::Bool);
}

llvm::Value* lower_isinstance(FunctionLowering& f, const Node& n) {
  std::vector<lower::Value> args = f.argument_values(n);  // evaluated, as Python does
  return f.builder().getInt1(is_instance(args[0].type, suffix(n, "isinstance.")));
}

Type type_range(const Node& call, const std::vector<Type>&, typing::TypedFunction&) {
  type_error(call, "range() can only be used as the iterable of a for loop");
}

// Numbers, bools and tuples of them (nested too), and string literals.
Type type_print(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  auto printable = [](const Type& t, auto& self) -> bool {
    if (t.is_tuple())
      return std::all_of(t.elements().begin(), t.elements().end(),
                         [&](const Type& e) { return self(e, self); });
    return t.is_scalar() && !is_complex(t.scalar());
  };
  for (size_t i = 0; i < args.size(); ++i) {
    if (call.child(i).kind == ir::NodeKind::Bytes) continue;  // a string literal
    if (!printable(args[i], printable))
      type_error(call.child(i),
                 "print() in kernels takes numbers, bools, tuples of them and string "
                 "literals, got " +
                     args[i].str());
  }
  return Type::none();
}

}  // namespace

void register_python_builtins(Registry& r) {
  r.add({"array.address", takes(1), type_address, lower_address});
  r.add({"array.pointer", takes(1), type_pointer, lower_pointer});
  r.add({"len", takes(1), type_len, lower_len});
  r.add({"min", kRuleChecksArity, type_min_max, [](FunctionLowering& f, const Node& n) {
           return f.min_max(n, true, f.argument_values(n));
         }});
  r.add({"max", kRuleChecksArity, type_min_max, [](FunctionLowering& f, const Node& n) {
           return f.min_max(n, false, f.argument_values(n));
         }});
  r.add({"abs", takes(1), type_abs, lower_abs});
  r.add({"round", takes(1, 2), type_round, lower_round});
  r.add({"range", kRuleChecksArity, type_range, nullptr});
  r.add({"isinstance.", takes(1), type_isinstance, lower_isinstance});
  r.add({"print", kRuleChecksArity, type_print,
         [](FunctionLowering& f, const Node& n) -> llvm::Value* {
           f.print(n);
           return nullptr;
         }});
}

}  // namespace cudajit::builtins

namespace cudajit::lower {

using ir::Node;

// Round half to even, as Python's round(); with ndigits, Numba's algorithm:
// scale by 10**ndigits, round, scale back.
llvm::Value* FunctionLowering::round(llvm::Value* x, Scalar s, llvm::Value* ndigits) {
  llvm::Type* t = x->getType();
  if (!ndigits) return intrinsic(llvm::Intrinsic::rint, {t}, {x});
  llvm::Value* negative = b_.CreateICmpSLT(ndigits, int64(0));
  llvm::Value* digits = b_.CreateSelect(negative, b_.CreateNeg(ndigits), ndigits);
  llvm::Value* scale = call_math("pow", s, {float_const(s, 10.0), b_.CreateSIToFP(digits, t)});
  llvm::Value* up =
      b_.CreateFDiv(intrinsic(llvm::Intrinsic::rint, {t}, {b_.CreateFMul(x, scale)}), scale);
  llvm::Value* down =
      b_.CreateFMul(intrinsic(llvm::Intrinsic::rint, {t}, {b_.CreateFDiv(x, scale)}), scale);
  llvm::Value* rounded = b_.CreateSelect(negative, down, up);
  // Scaling overflowed (huge ndigits or x): x is already exact at that precision.
  llvm::Value* finite = b_.CreateFCmpOLT(intrinsic(llvm::Intrinsic::fabs, {t}, {rounded}),
                                         llvm::ConstantFP::getInfinity(t));
  return b_.CreateSelect(finite, rounded, x);
}

llvm::Value* FunctionLowering::min_max(const Node& n, bool is_min, std::vector<Value> args) {
  const Type& result = type_of(n);
  if (args.size() == 1) {  // min(tuple)
    Value tuple = args[0];
    args.clear();
    for (unsigned i = 0; i < tuple.type.elements().size(); ++i)
      args.push_back({extract(tuple.v, {i}), tuple.type.elements()[i]});
  }
  // Two float32/float64 numbers: numba-cuda's fmin/fmax (min.f64/max.f64 in PTX), which
  // ignore a NaN operand. Otherwise Python's rule: the first of equal values, and a NaN
  // met first, is kept.
  auto is_float = [](const Value& v) {
    return v.type.is_scalar() &&
           (v.type.scalar() == Scalar::Float32 || v.type.scalar() == Scalar::Float64);
  };
  if (args.size() == 2 && is_float(args[0]) && is_float(args[1])) {
    llvm::Value* a = cast(args[0].v, args[0].type, result);
    llvm::Value* b = cast(args[1].v, args[1].type, result);
    return intrinsic(is_min ? llvm::Intrinsic::minnum : llvm::Intrinsic::maxnum, {a->getType()},
                     {a, b});
  }
  llvm::Value* best = cast(args[0].v, args[0].type, result);
  for (size_t i = 1; i < args.size(); ++i) {
    llvm::Value* v = cast(args[i].v, args[i].type, result);
    llvm::Value* better = compare(is_min ? "<" : ">", v, result, best, result);
    best = b_.CreateSelect(better, v, best);
  }
  return best;
}

}  // namespace cudajit::lower
