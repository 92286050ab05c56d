// Typing (typing::type_program) on hand-written kernel IR: Numba's promotion
// and unification rules, variables merging across control flow, tuples and
// array views, device-function specialisation, and the CompileErrors with
// their messages and source locations.
#include <catch2/catch.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cudajit/compiler/conversions.hpp"
#include "cudajit/compiler/errors.hpp"
#include "cudajit/compiler/ir.hpp"
#include "cudajit/compiler/typed.hpp"
#include "cudajit/compiler/types.hpp"

using Catch::Matchers::Contains;
using cudajit::CompileError;
using cudajit::Layout;
using cudajit::Scalar;
using cudajit::Type;
using cudajit::typing::arithmetic_result;
using cudajit::typing::promote;
using cudajit::typing::TypedFunction;
using cudajit::typing::TypedProgram;
using cudajit::typing::unify;

namespace {

Type T(const char* spelling) { return cudajit::parse_type(spelling); }

// A parsed module and its typing, kept together: the typing points into the module.
struct Typed {
  cudajit::ir::Module module;
  TypedProgram program;
  const TypedFunction& entry() const { return *program.entry; }
  const Type& local(const std::string& name) const { return program.entry->locals.at(name); }
};

std::unique_ptr<Typed> type_text(const std::string& text, const std::vector<Type>& args,
                                 bool is_kernel = true,
                                 std::optional<Type> declared_return = std::nullopt) {
  auto typed = std::make_unique<Typed>();
  typed->module = cudajit::ir::parse_module(text);
  typed->program = cudajit::typing::type_program(typed->module, args, is_kernel, declared_return);
  return typed;
}

// `(module "t.py" (func@1:0 NAME (params PARAMS) BODY) EXTRA)`.
std::string module(const std::string& params, const std::string& body,
                   const std::string& extra = "", const std::string& name = "k") {
  return "(module \"t.py\" (func@1:0 " + name + " (params " + params + ") " + body + ") " + extra +
         ")";
}

// The type of EXPR over parameters a, b, c (as many as `args`), as the
// return type of a device function `return EXPR`.
Type expr_type(const std::string& expr, const std::vector<Type>& args) {
  static const char* const names[] = {"a", "b", "c"};
  std::string params;
  for (size_t i = 0; i < args.size(); ++i) params += std::string(i ? " " : "") + names[i];
  auto typed = type_text(module(params, "(return@2:4 " + expr + ")", "", "f"), args, false);
  return typed->entry().return_type;
}

// The type EXPR gives a variable `r = EXPR` in a kernel over parameters a, b, c
// (for values a function may not return, such as array views).
Type assigned_type(const std::string& expr, const std::vector<Type>& args) {
  static const char* const names[] = {"a", "b", "c"};
  std::string params;
  for (size_t i = 0; i < args.size(); ++i) params += std::string(i ? " " : "") + names[i];
  auto typed = type_text(module(params, "(assign@2:4 (name@2:4 r) " + expr + ")"), args);
  return typed->local("r");
}

// The type of `a OP b`.
Type binop_type(const std::string& op, const Type& a, const Type& b) {
  return expr_type("(binop@2:11 " + op + " (name@2:11 a) (name@2:15 b))", {a, b});
}

// Types `text`, expecting a CompileError; returns it.
CompileError compile_error(const std::string& text, const std::vector<Type>& args,
                           bool is_kernel = true) {
  try {
    type_text(text, args, is_kernel);
  } catch (const CompileError& e) {
    return e;
  }
  FAIL("no CompileError for: " << text);
  return CompileError("", {});
}

#define CHECK_LOC(error, l, c)      \
  do {                              \
    CHECK((error).loc().line == l); \
    CHECK((error).loc().col == c);  \
  } while (0)

const Type i8 = Type::scalar(Scalar::Int8);
const Type i32 = Type::scalar(Scalar::Int32);
const Type i64 = Type::scalar(Scalar::Int64);
const Type u8 = Type::scalar(Scalar::UInt8);
const Type u32 = Type::scalar(Scalar::UInt32);
const Type u64 = Type::scalar(Scalar::UInt64);
const Type f32 = Type::scalar(Scalar::Float32);
const Type f64 = Type::scalar(Scalar::Float64);
const Type c64 = Type::scalar(Scalar::Complex64);
const Type c128 = Type::scalar(Scalar::Complex128);
const Type boolean = Type::scalar(Scalar::Bool);

}  // namespace

// --- the rule tables -------------------------------------------------------------------

TEST_CASE("conversions between scalars are Numba's, closed over chains", "[typing]") {
  // numba.core.typeconv.rules.default_type_manager.check_compatible(a, b) for every pair
  // (numba 0.68): 1 exact, 2 promote, 3 safe, 4 unsafe, 0 none.
  const Scalar order[] = {Scalar::Bool,      Scalar::Int8,      Scalar::Int16,   Scalar::Int32,
                          Scalar::Int64,     Scalar::UInt8,     Scalar::UInt16,  Scalar::UInt32,
                          Scalar::UInt64,    Scalar::Float16,   Scalar::Float32, Scalar::Float64,
                          Scalar::Complex64, Scalar::Complex128};
  const char* numba[] = {
      "13333333333333", "41222444433333", "44122444443333", "44412444444343", "44441444444343",
      "44333122243333", "44433412244343", "44443441244343", "44444444144343", "44444444412233",
      "44444444441233", "44444444444143", "00000000000012", "00000000000041",
  };
  using cudajit::Conversion;
  const Conversion kinds[] = {Conversion::None, Conversion::Exact, Conversion::Promote,
                              Conversion::Safe, Conversion::Unsafe};
  for (size_t a = 0; a < std::size(order); ++a)
    for (size_t b = 0; b < std::size(order); ++b) {
      INFO("from " << int(order[a]) << " to " << int(order[b]));
      CHECK(cudajit::conversion(order[a], order[b]) == kinds[numba[a][b] - '0']);
    }
  // Ours: bfloat16 converts as float16 does.
  CHECK(cudajit::conversion(Scalar::BFloat16, Scalar::Float32) == Conversion::Promote);
  CHECK(cudajit::conversion(Scalar::Int8, Scalar::BFloat16) == Conversion::Safe);
  CHECK(cudajit::conversion(Scalar::Float32, Scalar::BFloat16) == Conversion::Unsafe);
}

TEST_CASE("a conversion rank counts unsafe, then safe, then promoting conversions", "[typing]") {
  using cudajit::Conversion;
  cudajit::ConversionRank one_unsafe, two_safe;
  CHECK(one_unsafe.add(Conversion::Unsafe));
  CHECK(two_safe.add(Conversion::Safe));
  CHECK(two_safe.add(Conversion::Safe));
  CHECK(two_safe < one_unsafe);
  CHECK_FALSE(two_safe.add(Conversion::None));
  CHECK(two_safe.safe == 2);
}

TEST_CASE("promote follows NumPy for mixed signedness", "[typing]") {
  CHECK(promote(Scalar::Int64, Scalar::UInt64) == Scalar::Float64);
  CHECK(promote(Scalar::UInt64, Scalar::Int64) == Scalar::Float64);
  CHECK(promote(Scalar::Int32, Scalar::UInt32) == Scalar::Int64);
  CHECK(promote(Scalar::Int8, Scalar::UInt8) == Scalar::Int16);
  CHECK(promote(Scalar::UInt8, Scalar::Int16) == Scalar::Int16);
  CHECK(promote(Scalar::UInt16, Scalar::Int8) == Scalar::Int32);
}

TEST_CASE("promote keeps the wider type of the same signedness", "[typing]") {
  CHECK(promote(Scalar::Int8, Scalar::Int32) == Scalar::Int32);
  CHECK(promote(Scalar::UInt32, Scalar::UInt8) == Scalar::UInt32);
  CHECK(promote(Scalar::Int64, Scalar::Int64) == Scalar::Int64);
}

TEST_CASE("promote of a bool and anything is the other type", "[typing]") {
  CHECK(promote(Scalar::Bool, Scalar::Int8) == Scalar::Int8);
  CHECK(promote(Scalar::UInt16, Scalar::Bool) == Scalar::UInt16);
  CHECK(promote(Scalar::Bool, Scalar::Float32) == Scalar::Float32);
  CHECK(promote(Scalar::Bool, Scalar::Bool) == Scalar::Bool);
}

TEST_CASE("promote of an integer and a float takes a float that holds the integer", "[typing]") {
  CHECK(promote(Scalar::Int16, Scalar::Float32) == Scalar::Float32);
  CHECK(promote(Scalar::UInt16, Scalar::Float32) == Scalar::Float32);
  CHECK(promote(Scalar::Int32, Scalar::Float32) == Scalar::Float64);
  CHECK(promote(Scalar::Float32, Scalar::Int64) == Scalar::Float64);
  CHECK(promote(Scalar::Float32, Scalar::Float64) == Scalar::Float64);
}

TEST_CASE("promote with a complex gives the complex wide enough for both", "[typing]") {
  CHECK(promote(Scalar::Complex64, Scalar::Float32) == Scalar::Complex64);
  CHECK(promote(Scalar::Complex64, Scalar::Float64) == Scalar::Complex128);
  CHECK(promote(Scalar::Int16, Scalar::Complex64) == Scalar::Complex64);
  CHECK(promote(Scalar::Int32, Scalar::Complex64) == Scalar::Complex128);
  CHECK(promote(Scalar::Complex64, Scalar::Complex128) == Scalar::Complex128);
}

TEST_CASE("integer arithmetic is 64-bit, signed when either operand is", "[typing]") {
  CHECK(arithmetic_result(Scalar::Int32, Scalar::Int64) == Scalar::Int64);
  CHECK(arithmetic_result(Scalar::Int32, Scalar::Int32) == Scalar::Int64);
  CHECK(arithmetic_result(Scalar::Int8, Scalar::Int8) == Scalar::Int64);
  CHECK(arithmetic_result(Scalar::UInt64, Scalar::Int64) == Scalar::Int64);
  CHECK(arithmetic_result(Scalar::UInt8, Scalar::Int8) == Scalar::Int64);
  CHECK(arithmetic_result(Scalar::UInt32, Scalar::UInt32) == Scalar::UInt64);
  CHECK(arithmetic_result(Scalar::UInt8, Scalar::UInt16) == Scalar::UInt64);
  CHECK(arithmetic_result(Scalar::Bool, Scalar::Bool) == Scalar::Int64);
  CHECK(arithmetic_result(Scalar::Bool, Scalar::UInt32) == Scalar::Int64);
}

TEST_CASE("float arithmetic meets an integer as int64 does", "[typing]") {
  CHECK(arithmetic_result(Scalar::Float32, Scalar::Float32) == Scalar::Float32);
  CHECK(arithmetic_result(Scalar::Float32, Scalar::Int8) == Scalar::Float64);
  CHECK(arithmetic_result(Scalar::UInt16, Scalar::Float32) == Scalar::Float64);
  CHECK(arithmetic_result(Scalar::Float32, Scalar::Float64) == Scalar::Float64);
  CHECK(arithmetic_result(Scalar::Complex64, Scalar::Float32) == Scalar::Complex64);
  CHECK(arithmetic_result(Scalar::Complex64, Scalar::Int32) == Scalar::Complex128);
}

TEST_CASE("float16 promotes as NumPy's half and stays float16 only with itself", "[typing]") {
  CHECK(promote(Scalar::Float16, Scalar::Int8) == Scalar::Float16);
  CHECK(promote(Scalar::UInt8, Scalar::Float16) == Scalar::Float16);
  CHECK(promote(Scalar::Float16, Scalar::Int16) == Scalar::Float32);
  CHECK(promote(Scalar::Float16, Scalar::Float32) == Scalar::Float32);
  CHECK(promote(Scalar::Float16, Scalar::Complex64) == Scalar::Complex64);
  CHECK(promote(Scalar::Int8, Scalar::Float32) == Scalar::Float32);  // unchanged by float16
  CHECK(arithmetic_result(Scalar::Float16, Scalar::Float16) == Scalar::Float16);
  CHECK(arithmetic_result(Scalar::Float16, Scalar::Int32) == Scalar::Float64);
  CHECK(arithmetic_result(Scalar::Float16, Scalar::Bool) == Scalar::Float16);
  // bfloat16 is a value type (8800e6b): it meets float16 in float32, as JAX promotes.
  CHECK(promote(Scalar::BFloat16, Scalar::Float16) == Scalar::Float32);
}

TEST_CASE("unify merges scalars by promotion", "[typing]") {
  CHECK(unify(i32, f32) == f64);
  CHECK(unify(i64, u64) == f64);
  CHECK(unify(boolean, i8) == i8);
  CHECK(unify(f32, f32) == f32);
}

TEST_CASE("unify merges arrays of one dtype and ndim to layout A, readonly if either is",
          "[typing]") {
  CHECK(unify(T("array(float32, 2d, C)"), T("array(float32, 2d, F)")) ==
        T("array(float32, 2d, A)"));
  CHECK(unify(T("array(float32, 2d, C)"), T("array(float32, 2d, C)")) ==
        T("array(float32, 2d, C)"));
  CHECK(unify(T("readonly array(int8, 1d, C)"), T("array(int8, 1d, C)")) ==
        T("readonly array(int8, 1d, C)"));
  CHECK_FALSE(unify(T("array(float32, 1d, C)"), T("array(float64, 1d, C)")).has_value());
  CHECK_FALSE(unify(T("array(float32, 1d, C)"), T("array(float32, 2d, C)")).has_value());
}

TEST_CASE("unify merges tuples element by element", "[typing]") {
  CHECK(unify(Type::tuple({i32, f32}), Type::tuple({i64, f64})) == Type::tuple({i64, f64}));
  CHECK_FALSE(unify(Type::tuple({i32}), Type::tuple({i32, i32})).has_value());
  CHECK_FALSE(
      unify(Type::tuple({i32, T("array(float32, 1d, C)")}), Type::tuple({i32, f32})).has_value());
}

TEST_CASE("unify refuses a scalar with an array or a tuple", "[typing]") {
  CHECK_FALSE(unify(f32, T("array(float32, 1d, C)")).has_value());
  CHECK_FALSE(unify(i64, Type::tuple({i64})).has_value());
}

// --- operators, through type_program ---------------------------------------------------

TEST_CASE("int32 + int64 is int64", "[typing]") { CHECK(binop_type("+", i32, i64) == i64); }

TEST_CASE("int32 + int32 is int64", "[typing]") { CHECK(binop_type("+", i32, i32) == i64); }

TEST_CASE("uint64 + int64 is int64", "[typing]") { CHECK(binop_type("+", u64, i64) == i64); }

TEST_CASE("uint32 * uint32 is uint64", "[typing]") { CHECK(binop_type("*", u32, u32) == u64); }

TEST_CASE("int8 - uint8 is int64", "[typing]") { CHECK(binop_type("-", i8, u8) == i64); }

TEST_CASE("float32 op float32 is float32", "[typing]") {
  for (const char* op : {"+", "-", "*", "/", "//", "%", "**"}) {
    INFO(op);
    CHECK(binop_type(op, f32, f32) == f32);
  }
}

TEST_CASE("float32 * a float literal is float64", "[typing]") {
  CHECK(expr_type("(binop@2:11 * (name@2:11 a) (float@2:15 2.0))", {f32}) == f64);
}

TEST_CASE("float32 + an int literal is float64", "[typing]") {
  CHECK(expr_type("(binop@2:11 + (name@2:11 a) (int@2:15 1))", {f32}) == f64);
}

TEST_CASE("float32 + int32 is float64", "[typing]") { CHECK(binop_type("+", f32, i32) == f64); }

TEST_CASE("int / int is float64", "[typing]") {
  CHECK(binop_type("/", i32, i32) == f64);
  CHECK(binop_type("/", u8, i64) == f64);
  CHECK(binop_type("/", boolean, boolean) == f64);
}

TEST_CASE("int // int and int % int stay 64-bit integers", "[typing]") {
  CHECK(binop_type("//", i32, i32) == i64);
  CHECK(binop_type("%", u32, u32) == u64);
}

TEST_CASE("complex64 * float32 is complex64, complex64 * float64 complex128", "[typing]") {
  CHECK(binop_type("*", c64, f32) == c64);
  CHECK(binop_type("*", c64, f64) == c128);
}

TEST_CASE("shifts keep the left operand's signedness at 64 bits", "[typing]") {
  CHECK(binop_type("<<", u32, i64) == u64);
  CHECK(binop_type(">>", u8, i8) == u64);
  CHECK(binop_type(">>", i8, u64) == i64);
  CHECK(binop_type("<<", i32, u32) == i64);
  CHECK(binop_type("<<", boolean, u32) == i64);
}

TEST_CASE("bitwise and/or/xor compute in the arithmetic type; two bools stay bool", "[typing]") {
  CHECK(binop_type("&", i32, u8) == i64);
  CHECK(binop_type("|", u32, u8) == u64);
  CHECK(binop_type("^", boolean, boolean) == boolean);
  CHECK(binop_type("&", boolean, i32) == i64);
}

TEST_CASE("float32 ** int64 is float32", "[typing]") {
  CHECK(binop_type("**", f32, i64) == f32);
  CHECK(binop_type("**", f32, i32) == f32);
  CHECK(binop_type("**", f64, u8) == f64);
}

TEST_CASE("int ** int is int64 and int ** float is float64", "[typing]") {
  CHECK(binop_type("**", i32, i32) == i64);
  CHECK(binop_type("**", i32, f32) == f64);
  CHECK(binop_type("**", f32, f64) == f64);
}

TEST_CASE("unary minus widens integers to 64 bits and keeps floats", "[typing]") {
  CHECK(expr_type("(unary@2:11 - (name@2:12 a))", {i32}) == i64);
  CHECK(expr_type("(unary@2:11 - (name@2:12 a))", {f32}) == f32);
  CHECK(expr_type("(unary@2:11 + (name@2:12 a))", {c64}) == c64);
  CHECK(expr_type("(unary@2:11 ~ (name@2:12 a))", {u8}) == u64);
  CHECK(expr_type("(unary@2:11 ~ (name@2:12 a))", {boolean}) == boolean);
}

TEST_CASE("not and comparisons are bool", "[typing]") {
  CHECK(expr_type("(not@2:11 (name@2:15 a))", {f32}) == boolean);
  CHECK(expr_type("(compare@2:11 (name@2:11 a) < (name@2:15 b) < (int@2:19 3))", {i32, f32}) ==
        boolean);
  CHECK(expr_type("(compare@2:11 (name@2:11 a) == (name@2:16 b))", {c64, c128}) == boolean);
}

TEST_CASE("and/or take the unified type of their operands, as Python values", "[typing]") {
  CHECK(expr_type("(and@2:11 (name@2:11 a) (name@2:17 b))", {i32, f32}) == f64);
  CHECK(expr_type("(or@2:11 (name@2:11 a) (name@2:16 b))", {boolean, boolean}) == boolean);
  CHECK(expr_type("(or@2:11 (name@2:11 a) (name@2:16 b) (name@2:21 c))", {i8, u8, i8}) ==
        Type::scalar(Scalar::Int16));
}

TEST_CASE("a conditional expression unifies its branches", "[typing]") {
  CHECK(expr_type("(ifexp@2:11 (name@2:16 a) (name@2:11 b) (name@2:25 c))", {boolean, i32, f32}) ==
        f64);
}

// --- builtins --------------------------------------------------------------------------

TEST_CASE("math functions of float32 arguments use the float32 variants", "[typing]") {
  CHECK(expr_type("(call@2:11 math.sqrt (name@2:21 a))", {f32}) == f32);
  CHECK(expr_type("(call@2:11 math.sin (name@2:21 a))", {f32}) == f32);
  CHECK(expr_type("(call@2:11 math.atan2 (name@2:22 a) (name@2:25 b))", {f32, f32}) == f32);
}

TEST_CASE("math functions compute in float64 unless every argument is float32", "[typing]") {
  CHECK(expr_type("(call@2:11 math.sqrt (name@2:21 a))", {f64}) == f64);
  CHECK(expr_type("(call@2:11 math.exp (name@2:21 a))", {i32}) == f64);
  CHECK(expr_type("(call@2:11 math.atan2 (name@2:22 a) (name@2:25 b))", {f32, f64}) == f64);
  CHECK(expr_type("(call@2:11 math.pow (name@2:22 a) (int@2:25 2))", {f32}) == f64);
}

TEST_CASE("math.floor, ceil and trunc keep the float type", "[typing]") {
  CHECK(expr_type("(call@2:11 math.floor (name@2:22 a))", {f32}) == f32);
  CHECK(expr_type("(call@2:11 math.ceil (name@2:22 a))", {f64}) == f64);
  CHECK(expr_type("(call@2:11 math.trunc (name@2:22 a))", {f32}) == f32);
}

TEST_CASE("math.isnan, isinf and isfinite are bool", "[typing]") {
  CHECK(expr_type("(call@2:11 math.isnan (name@2:22 a))", {f32}) == boolean);
  CHECK(expr_type("(call@2:11 math.isfinite (name@2:22 a))", {i64}) == boolean);
}

TEST_CASE("abs of a complex is its part type; of a bool, int64", "[typing]") {
  CHECK(expr_type("(call@2:11 abs (name@2:15 a))", {c64}) == f32);
  CHECK(expr_type("(call@2:11 abs (name@2:15 a))", {i32}) == i32);
  CHECK(expr_type("(call@2:11 abs (name@2:15 a))", {boolean}) == i64);
}

TEST_CASE("round() is int64; round(x, n) keeps the float type", "[typing]") {
  CHECK(expr_type("(call@2:11 round (name@2:17 a))", {f32}) == i64);
  CHECK(expr_type("(call@2:11 round (name@2:17 a) (int@2:20 2))", {f32}) == f32);
  CHECK(expr_type("(call@2:11 round (name@2:17 a) (int@2:20 2))", {i32}) == i64);
}

TEST_CASE("min and max promote their arguments, or a tuple's elements", "[typing]") {
  CHECK(expr_type("(call@2:11 min (name@2:15 a) (name@2:18 b))", {i32, f32}) == f64);
  CHECK(expr_type("(call@2:11 max (name@2:15 a) (name@2:18 b) (name@2:21 c))", {u8, i8, boolean}) ==
        Type::scalar(Scalar::Int16));
  CHECK(expr_type("(call@2:11 max (tuple@2:15 (name@2:15 a) (name@2:18 b)))", {i32, i64}) == i64);
}

TEST_CASE("int, float, bool, complex and casts give their named types", "[typing]") {
  CHECK(expr_type("(call@2:11 int (name@2:15 a))", {f32}) == i64);
  CHECK(expr_type("(call@2:11 float (name@2:15 a))", {i8}) == f64);
  CHECK(expr_type("(call@2:11 bool (name@2:15 a))", {c64}) == boolean);
  CHECK(expr_type("(call@2:11 complex (name@2:19 a) (name@2:22 b))", {f32, f32}) == c64);
  CHECK(expr_type("(call@2:11 complex (name@2:19 a))", {i32}) == c128);
  CHECK(expr_type("(call@2:11 cast.float32 (name@2:24 a))", {i64}) == f32);
  CHECK(expr_type("(call@2:11 cast.uint8 (name@2:22 a))", {f64}) == u8);
  CHECK(expr_type("(call@2:11 cast.complex64 (name@2:26 a))", {c128}) == c64);
}

TEST_CASE("len of an array or a tuple is int64", "[typing]") {
  CHECK(expr_type("(call@2:11 len (name@2:15 a))", {T("array(int8, 3d, A)")}) == i64);
  CHECK(expr_type("(call@2:11 len (tuple@2:15 (name@2:15 a) (name@2:18 a)))", {f32}) == i64);
}

TEST_CASE("real and imag of a complex are its part type; of a real, its own type", "[typing]") {
  CHECK(expr_type("(attr@2:11 (name@2:11 a) real)", {c128}) == f64);
  CHECK(expr_type("(attr@2:11 (name@2:11 a) imag)", {c64}) == f32);
  CHECK(expr_type("(attr@2:11 (name@2:11 a) imag)", {i32}) == i32);
  CHECK(expr_type("(method@2:11 (name@2:11 a) conjugate)", {c64}) == c64);
}

TEST_CASE("CUDA index registers are int32; grid(1) and gridsize(1) int64", "[typing]") {
  CHECK(expr_type("(call@2:11 cuda.threadIdx.x)", {}) == i32);
  CHECK(expr_type("(call@2:11 cuda.blockDim.z)", {}) == i32);
  CHECK(expr_type("(call@2:11 cuda.laneid)", {}) == i32);
  CHECK(expr_type("(call@2:11 cuda.grid (int@2:21 1))", {}) == i64);
  CHECK(expr_type("(call@2:11 cuda.gridsize (int@2:25 1))", {}) == i64);
}

// --- variables -------------------------------------------------------------------------

TEST_CASE("a variable assigned int in one branch and float in the other is float64", "[typing]") {
  auto typed =
      type_text(module("a out",
                       "(if@2:4 (name@2:7 a)"
                       " (block@3:8 (assign@3:8 (name@3:8 x) (int@3:12 1)))"
                       " (block@5:8 (assign@5:8 (name@5:8 x) (float@5:12 2.5))))"
                       "(assign@6:4 (subscript@6:4 (name@6:4 out) (int@6:8 0)) (name@6:13 x))"),
                {boolean, T("array(float64, 1d, C)")});
  CHECK(typed->local("x") == f64);
}

TEST_CASE("a variable widened later in a loop body has the widened type everywhere", "[typing]") {
  // x = 0; for i in range(n): y = x; x = x + 0.5
  auto typed = type_text(
      module("n",
             "(assign@2:4 (name@2:4 x) (int@2:8 0))"
             "(for@3:4 (name@3:8 i) (int@3:17 0) (name@3:20 n) (int@3:17 1)"
             " (block@4:8 (assign@4:8 (name@4:8 y) (name@4:12 x))"
             "  (assign@5:8 (name@5:8 x) (binop@5:12 + (name@5:12 x) (float@5:16 0.5)))))"),
      {i32});
  CHECK(typed->local("x") == f64);
  CHECK(typed->local("y") == f64);
}

TEST_CASE("a for-range target is int64 whatever the bounds' types", "[typing]") {
  auto typed = type_text(module("n",
                                "(for@2:4 (name@2:8 i) (name@2:17 n) (name@2:20 n) (int@2:17 1)"
                                " (block@3:8 (pass@3:8)))"),
                         {u8});
  CHECK(typed->local("i") == i64);
  CHECK(typed->local("n") == u8);
}

TEST_CASE("a variable doubled in a while loop settles at int64", "[typing]") {
  // x = a (int32); while x < 100: x = x * 2
  auto typed = type_text(
      module("a",
             "(assign@2:4 (name@2:4 x) (name@2:8 a))"
             "(while@3:4 (compare@3:10 (name@3:10 x) < (int@3:14 100))"
             " (block@4:8 (assign@4:8 (name@4:8 x) (binop@4:12 * (name@4:12 x) (int@4:16 2)))))"),
      {i32});
  CHECK(typed->local("x") == i64);
  CHECK(typed->local("a") == i32);
}

TEST_CASE("x += 0.5 widens an integer variable to float64", "[typing]") {
  auto typed = type_text(module("",
                                "(assign@2:4 (name@2:4 x) (int@2:8 0))"
                                "(augassign@3:4 + (name@3:4 x) (float@3:9 0.5))"),
                         {});
  CHECK(typed->local("x") == f64);
}

TEST_CASE("a float32 accumulator over a float32 array stays float32", "[typing]") {
  auto typed = type_text(
      module("a",
             "(assign@2:4 (name@2:4 s) (call@2:8 cast.float32 (int@2:19 0)))"
             "(for@3:4 (name@3:8 i) (int@3:17 0) (call@3:17 len (name@3:21 a)) (int@3:17 1)"
             " (block@4:8 (augassign@4:8 + (name@4:8 s) (subscript@4:13 (name@4:13 a) (name@4:15 "
             "i)))))"),
      {T("array(float32, 1d, C)")});
  CHECK(typed->local("s") == f32);
}

TEST_CASE("a parameter reassigned with a wider value takes the unified type", "[typing]") {
  auto typed = type_text(module("a", "(assign@2:4 (name@2:4 a) (float@2:8 1.5))"), {i32});
  CHECK(typed->local("a") == f64);
  CHECK(typed->entry().arg_types[0] == i32);
}

// --- tuples and arrays -----------------------------------------------------------------

TEST_CASE("a tuple of mixed values is a Tuple; constant indices pick elements", "[typing]") {
  CHECK(expr_type("(tuple@2:11 (name@2:12 a) (name@2:15 b))", {i32, f32}) ==
        Type::tuple({i32, f32}));
  CHECK(expr_type("(subscript@2:11 (tuple@2:11 (name@2:12 a) (name@2:15 b)) (int@2:19 1))",
                  {i32, f32}) == f32);
  CHECK(expr_type(
            "(subscript@2:11 (tuple@2:11 (name@2:12 a) (name@2:15 b)) (unary@2:19 - (int@2:20 2)))",
            {i32, f32}) == i32);
}

TEST_CASE("a uniform tuple may be indexed by a variable", "[typing]") {
  CHECK(expr_type("(subscript@2:11 (tuple@2:11 (name@2:12 a) (name@2:15 a)) (name@2:19 b))",
                  {f32, i64}) == f32);
}

TEST_CASE("grid(2) is a UniTuple of two int64 that unpacks into two int64", "[typing]") {
  CHECK(expr_type("(call@2:11 cuda.grid (int@2:21 2))", {}) == Type::tuple({i64, i64}));
  CHECK(expr_type("(call@2:11 cuda.gridsize (int@2:25 3))", {}) == Type::tuple({i64, i64, i64}));
  CHECK(Type::tuple({i64, i64}).str() == "UniTuple(int64 x 2)");
  auto typed = type_text(
      module(
          "",
          "(assign@2:4 (tuple@2:4 (name@2:4 x) (name@2:7 y)) (call@2:11 cuda.grid (int@2:21 2)))"),
      {});
  CHECK(typed->local("x") == i64);
  CHECK(typed->local("y") == i64);
}

TEST_CASE("shape and strides are UniTuples of int64; ndim and size int64", "[typing]") {
  Type a = T("array(float32, 2d, F)");
  CHECK(expr_type("(attr@2:11 (name@2:11 a) shape)", {a}) == Type::tuple({i64, i64}));
  CHECK(expr_type("(attr@2:11 (name@2:11 a) strides)", {a}) == Type::tuple({i64, i64}));
  CHECK(expr_type("(attr@2:11 (name@2:11 a) ndim)", {a}) == i64);
  CHECK(expr_type("(attr@2:11 (name@2:11 a) size)", {a}) == i64);
}

TEST_CASE("indexing every dimension of an array gives its dtype", "[typing]") {
  Type a = T("array(uint16, 3d, C)");
  CHECK(expr_type(
            "(subscript@2:11 (name@2:11 a) (tuple@2:13 (int@2:13 0) (int@2:16 1) (name@2:19 b)))",
            {a, u8}) == Type::scalar(Scalar::UInt16));
}

TEST_CASE("indexing fewer dimensions of a C array gives a C view of the rest", "[typing]") {
  Type a = T("array(float32, 3d, C)");
  CHECK(assigned_type("(subscript@2:11 (name@2:11 a) (int@2:13 0))", {a}) ==
        T("array(float32, 2d, C)"));
  CHECK(assigned_type("(subscript@2:11 (name@2:11 a) (tuple@2:13 (int@2:13 0) (int@2:16 1)))",
                      {a}) == T("array(float32, 1d, C)"));
}

TEST_CASE("a view of an F or A array has layout A; readonly stays readonly", "[typing]") {
  CHECK(assigned_type("(subscript@2:11 (name@2:11 a) (int@2:13 0))",
                      {T("array(float32, 3d, F)")}) == T("array(float32, 2d, A)"));
  CHECK(assigned_type("(subscript@2:11 (name@2:11 a) (int@2:13 0))",
                      {T("readonly array(int8, 2d, A)")}) == T("readonly array(int8, 1d, A)"));
}

TEST_CASE("a tuple variable indexes an array as its elements do", "[typing]") {
  auto typed = type_text(module("a out",
                                "(assign@2:4 (name@2:4 ij) (call@2:9 cuda.grid (int@2:19 2)))"
                                "(assign@3:4 (subscript@3:4 (name@3:4 out) (name@3:8 ij))"
                                " (subscript@3:14 (name@3:14 a) (name@3:16 ij)))"),
                         {T("array(float64, 2d, C)"), T("array(float64, 2d, C)")});
  CHECK(typed->local("ij") == Type::tuple({i64, i64}));
}

TEST_CASE("indexing an array with a bool is rejected like a float", "[typing]") {
  CompileError e =
      compile_error(module("a", "(expr@2:4 (subscript@2:4 (name@2:4 a) (bool@2:6 1)))"),
                    {T("array(int32, 1d, C)")});
  CHECK_THAT(e.what(), Contains("array index must be an integer, got bool"));
}

// --- device functions ------------------------------------------------------------------

TEST_CASE("a device function is specialised once per argument types", "[typing]") {
  // out[0] = twice(a) + twice(b) + twice(a), twice(x) = x + x
  std::string text =
      module("a b out",
             "(assign@2:4 (subscript@2:4 (name@2:4 out) (int@2:8 0))"
             " (binop@2:13 + (binop@2:13 + (callfn@2:13 twice (name@2:19 a)) (callfn@2:24 twice "
             "(name@2:30 b)))"
             "  (callfn@2:35 twice (name@2:41 a))))",
             "(func@5:0 twice (params x) (return@6:4 (binop@6:11 + (name@6:11 x) (name@6:15 x))))");
  auto typed = type_text(text, {i32, f32, T("array(float64, 1d, C)")});
  const TypedProgram& p = typed->program;
  REQUIRE(p.functions.size() == 3);
  std::vector<const TypedFunction*> twice;
  for (const TypedFunction& f : p.functions)
    if (f.function->name == "twice") twice.push_back(&f);
  REQUIRE(twice.size() == 2);
  CHECK(twice[0]->symbol != twice[1]->symbol);
  for (const TypedFunction* f : twice) {
    if (f->arg_types[0] == i32) CHECK(f->return_type == i64);
    if (f->arg_types[0] == f32) CHECK(f->return_type == f32);
  }
  CHECK(twice[0]->arg_types[0] != twice[1]->arg_types[0]);

  // Both calls with `a` share one specialisation.
  const TypedFunction& k = typed->entry();
  CHECK(k.callees.size() == 3);
  const auto& sum = typed->module.functions[0].body[0]->child(1);
  const TypedFunction* first = k.callees.at(&sum.child(0).child(0));
  const TypedFunction* second = k.callees.at(&sum.child(0).child(1));
  const TypedFunction* third = k.callees.at(&sum.child(1));
  CHECK(first == third);
  CHECK(first != second);
}

TEST_CASE("a device function's returns unify", "[typing]") {
  std::string text = module("a",
                            "(if@2:4 (name@2:7 a) (block@3:8 (return@3:8 (int@3:15 1)))"
                            " (block@5:8 (return@5:8 (float@5:15 2.5))))",
                            "", "f");
  CHECK(type_text(text, {boolean}, false)->entry().return_type == f64);
}

TEST_CASE("a device function without a return value returns none", "[typing]") {
  CHECK(type_text(module("a", "(pass@2:4)", "", "f"), {i32}, false)->entry().return_type ==
        Type::none());
}

TEST_CASE("a declared return type replaces the inferred one", "[typing]") {
  std::string text = module("a", "(return@2:4 (binop@2:11 + (name@2:11 a) (int@2:15 1)))", "", "f");
  CHECK(type_text(text, {i32}, false, f32)->entry().return_type == f32);
}

TEST_CASE("a complex result cannot be declared to return a float", "[typing]") {
  std::string text = module("a", "(return@2:4 (name@2:11 a))", "", "f");
  try {
    type_text(text, {c64}, false, f32);
    FAIL("no CompileError");
  } catch (const CompileError& e) {
    CHECK_THAT(e.what(), Contains("'f' returns complex64, which cannot be converted to the "
                                  "declared return type float32"));
    CHECK_LOC(e, 1, 0);
  }
}

TEST_CASE("a recursive function is one specialisation, its return type from its other returns",
          "[typing]") {
  std::string text = module(
      "a out",
      "(assign@2:4 (subscript@2:4 (name@2:4 out) (int@2:8 0)) (callfn@2:13 fact (name@2:18 a)))",
      "(func@4:0 fact (params n)"
      " (if@5:4 (compare@5:7 (name@5:7 n) <= (int@5:12 1)) (block@6:8 (return@6:8 (int@6:15 1)))"
      "  (block@5:4))"
      " (return@7:4 (binop@7:11 * (name@7:11 n) (callfn@7:15 fact (binop@7:20 - (name@7:20 n) "
      "(int@7:24 1))))))");
  auto typed = type_text(text, {i64, T("array(int64, 1d, C)")});
  int facts = 0;
  for (const TypedFunction& f : typed->program.functions) {
    if (f.function->name != "fact") continue;
    ++facts;
    CHECK(f.return_type == i64);
  }
  CHECK(facts == 1);
}

TEST_CASE("recursion with other argument types is a CompileError at the call", "[typing]") {
  // f(n) calls f(n * 0.5): int64, then float64, then float64 again would be fine, but each
  // type change would need a specialisation inside one being typed.
  std::string text = module(
      "a", "(expr@2:4 (callfn@2:4 f (name@2:6 a)))",
      "(func@4:0 f (params n)"
      " (if@5:4 (compare@5:7 (name@5:7 n) < (int@5:11 1)) (block@6:8 (return@6:8 (name@6:15 n)))"
      "  (block@5:4))"
      " (return@7:4 (callfn@7:11 f (binop@7:13 * (name@7:13 n) (float@7:17 0.5)))))");
  CompileError e = compile_error(text, {i64});
  CHECK_THAT(e.what(), Contains("recursive call of device function 'f' with other argument "
                                "types than its own is not supported"));
  CHECK_LOC(e, 7, 11);
}

TEST_CASE("mutual recursion of functions that return nothing types", "[typing]") {
  std::string text = module("a", "(expr@2:4 (callfn@2:4 ping (name@2:9 a)))",
                            "(func@4:0 ping (params x) (expr@5:4 (callfn@5:4 pong (name@5:9 x))))"
                            "(func@7:0 pong (params y) (expr@8:4 (callfn@8:4 ping (name@8:9 y))))");
  auto typed = type_text(text, {i32});
  for (const TypedFunction& f : typed->program.functions)
    if (f.function->name != "k") CHECK(f.return_type.is_none());
}

TEST_CASE("runaway mutual recursion is a CompileError at the call that closes the cycle",
          "[typing]") {
  std::string text =
      module("a", "(expr@2:4 (callfn@2:4 ping (name@2:9 a)))",
             "(func@4:0 ping (params x) (return@5:4 (callfn@5:11 pong (name@5:16 x))))"
             "(func@7:0 pong (params y) (return@8:4 (callfn@8:11 ping (name@8:16 y))))");
  CompileError e = compile_error(text, {i32});
  CHECK_THAT(e.what(), Contains("cannot infer what device function 'ping' returns"));
  CHECK_LOC(e, 8, 11);
}

// --- errors: every CompileError with its message and location ---------------------------

TEST_CASE("writing a read-only array names the argument", "[typing]") {
  std::string text = module(
      "src dst", "(assign@3:4 (subscript@3:6 (name@3:6 src) (int@3:10 0)) (float@3:15 1.0))");
  CompileError e =
      compile_error(text, {T("readonly array(float32, 1d, C)"), T("array(float32, 1d, C)")});
  CHECK_THAT(e.what(), Contains("cannot write to read-only array 'src'") &&
                           Contains("readonly array(float32, 1d, C)"));
  CHECK_LOC(e, 3, 6);
  CHECK(e.file() == "t.py");
}

TEST_CASE("augmented assignment to a read-only array is a write", "[typing]") {
  std::string text =
      module("src", "(augassign@3:4 + (subscript@3:4 (name@3:4 src) (int@3:8 0)) (int@3:14 1))");
  CompileError e = compile_error(text, {T("readonly array(int32, 1d, C)")});
  CHECK_THAT(e.what(), Contains("cannot write to read-only array 'src'"));
  CHECK_LOC(e, 3, 4);
}

TEST_CASE("an unknown attribute names the type and the attribute", "[typing]") {
  CompileError e = compile_error(module("a", "(expr@2:4 (attr@2:9 (name@2:9 a) foo))"),
                                 {T("array(float32, 1d, C)")});
  CHECK_THAT(e.what(), Contains("array(float32, 1d, C) has no attribute 'foo'"));
  CHECK_LOC(e, 2, 9);
  CompileError scalar =
      compile_error(module("a", "(expr@2:4 (attr@2:9 (name@2:9 a) shape))"), {i32});
  CHECK_THAT(scalar.what(), Contains("int32 has no attribute 'shape'"));
}

TEST_CASE("an unknown method names the type and the method", "[typing]") {
  CompileError e = compile_error(module("a", "(expr@2:4 (method@2:9 (name@2:9 a) sum))"),
                                 {T("array(float32, 1d, C)")});
  CHECK_THAT(e.what(), Contains("has no method 'sum'"));
  CHECK_LOC(e, 2, 9);
}

TEST_CASE("a builtin called with the wrong number of arguments says how many it takes",
          "[typing]") {
  CompileError e = compile_error(
      module("a", "(expr@2:4 (call@2:8 math.sqrt (name@2:18 a) (name@2:21 a)))"), {f32});
  CHECK_THAT(e.what(), Contains("math.sqrt() takes 1 argument, got 2"));
  CHECK_LOC(e, 2, 8);
  CompileError atan2 =
      compile_error(module("a", "(expr@2:4 (call@2:8 math.atan2 (name@2:19 a)))"), {f32});
  CHECK_THAT(atan2.what(), Contains("math.atan2() takes 2 arguments, got 1"));
  CompileError round = compile_error(module("", "(expr@2:4 (call@2:8 round))"), {});
  CHECK_THAT(round.what(), Contains("round() takes 1 to 2 arguments, got 0"));
}

TEST_CASE("a device function called with the wrong number of arguments", "[typing]") {
  std::string text =
      module("a", "(expr@2:4 (callfn@2:8 add (name@2:12 a)))",
             "(func@4:0 add (params x y) (return@5:4 (binop@5:11 + (name@5:11 x) (name@5:15 y))))");
  CompileError e = compile_error(text, {i32});
  CHECK_THAT(e.what(), Contains("device function 'add' takes 2 arguments, got 1"));
  CHECK_LOC(e, 2, 8);
}

TEST_CASE("a signature of the wrong length is an error at the function", "[typing]") {
  CompileError e = compile_error(module("a b", "(pass@2:4)"), {i32});
  CHECK_THAT(e.what(), Contains("'k' takes 2 arguments, but the signature has 1"));
  CHECK_LOC(e, 1, 0);
  CHECK(e.file() == "t.py");
}

TEST_CASE("a none argument type is rejected, naming the argument; a tuple is taken", "[typing]") {
  CompileError e = compile_error(module("a", "(pass@2:4)"), {Type::none()});
  CHECK_THAT(e.what(), Contains("argument 'a' cannot be of type none"));
  const auto parsed = cudajit::ir::parse_module(module("a", "(pass@2:4)"));
  CHECK_NOTHROW(cudajit::typing::type_program(parsed, {Type::tuple({i32})}, true));
}

TEST_CASE("indexing a scalar names its type", "[typing]") {
  CompileError e =
      compile_error(module("a", "(expr@2:4 (subscript@2:6 (name@2:6 a) (int@2:8 0)))"), {i32});
  CHECK_THAT(e.what(), Contains("int32 cannot be indexed"));
  CHECK_LOC(e, 2, 6);
}

TEST_CASE("a float index is an error at the index", "[typing]") {
  CompileError e =
      compile_error(module("a", "(expr@2:4 (subscript@2:4 (name@2:4 a) (float@2:6 1.5)))"),
                    {T("array(int32, 1d, C)")});
  CHECK_THAT(e.what(), Contains("array index must be an integer, got float64"));
  CHECK_LOC(e, 2, 6);
}

TEST_CASE("too many indices name the array type and the count", "[typing]") {
  CompileError e = compile_error(
      module("a", "(expr@2:4 (subscript@2:4 (name@2:4 a) (tuple@2:6 (int@2:6 0) (int@2:9 0))))"),
      {T("array(int32, 1d, C)")});
  CHECK_THAT(e.what(), Contains("too many indices for array(int32, 1d, C): 2"));
  CHECK_LOC(e, 2, 4);
}

TEST_CASE("assigning to a view is an error: every dimension must be indexed", "[typing]") {
  CompileError e = compile_error(
      module("a", "(assign@2:4 (subscript@2:4 (name@2:4 a) (int@2:6 0)) (float@2:11 1.0))"),
      {T("array(float32, 2d, C)")});
  CHECK_THAT(e.what(), Contains("cannot assign to a 1-d view of array(float32, 2d, C)"));
  CHECK_LOC(e, 2, 4);
}

TEST_CASE("a tuple index out of range names the index and the tuple", "[typing]") {
  CompileError e = compile_error(
      module("a", "(expr@2:4 (subscript@2:4 (tuple@2:4 (name@2:5 a) (name@2:8 a)) (int@2:12 2)))"),
      {i32});
  CHECK_THAT(e.what(), Contains("tuple index 2 out of range for UniTuple(int32 x 2)"));
  CHECK_LOC(e, 2, 4);
}

TEST_CASE("a mixed tuple indexed by a variable is an error", "[typing]") {
  CompileError e = compile_error(
      module("a b",
             "(expr@2:4 (subscript@2:4 (tuple@2:4 (name@2:5 a) (name@2:8 b)) (name@2:12 a)))"),
      {i32, f32});
  CHECK_THAT(e.what(), Contains("a tuple of mixed types can only be indexed by a constant"));
}

TEST_CASE("assigning to a tuple element is an error", "[typing]") {
  CompileError e =
      compile_error(module("a",
                           "(assign@2:4 (name@2:4 t) (tuple@2:8 (name@2:9 a) (name@2:12 a)))"
                           "(assign@3:4 (subscript@3:4 (name@3:4 t) (int@3:6 0)) (int@3:11 1))"),
                    {i32});
  CHECK_THAT(e.what(), Contains("tuples are immutable"));
  CHECK_LOC(e, 3, 4);
}

TEST_CASE("a kernel returning a value is an error at the return", "[typing]") {
  CompileError e = compile_error(module("a", "(return@4:8 (name@4:15 a))"), {i32});
  CHECK_THAT(e.what(), Contains("a kernel cannot return a value"));
  CHECK_LOC(e, 4, 8);
}

TEST_CASE("a bare return in a kernel is fine", "[typing]") {
  auto typed =
      type_text(module("a", "(if@2:4 (name@2:7 a) (block@3:8 (return@3:8)) (block@2:4))"), {i32});
  CHECK(typed->entry().return_type == Type::none());
}

TEST_CASE("a device function cannot return an array", "[typing]") {
  CompileError e = compile_error(module("a", "(return@2:4 (name@2:11 a))", "", "f"),
                                 {T("array(int32, 1d, C)")}, false);
  CHECK_THAT(e.what(), Contains("a device function cannot return an array"));
  CHECK_LOC(e, 2, 4);
}

TEST_CASE("returning a number on some paths and falling off the end returns an optional",
          "[typing]") {
  std::string text = module(
      "a", "(if@3:4 (name@3:7 a) (block@4:8 (return@4:8 (int@4:15 1))) (block@3:4))", "", "f");
  CHECK(type_text(text, {i32}, false)->entry().return_type == Type::optional(i64));
}

TEST_CASE("returning a tuple on some paths and falling off the end is an error at the function",
          "[typing]") {
  std::string text = module("a",
                            "(if@3:4 (name@3:7 a) (block@4:8 (return@4:8 (tuple@4:15 (int@4:16 1)"
                            " (int@4:19 2)))) (block@3:4))",
                            "", "f");
  CompileError e = compile_error(text, {i32}, false);
  CHECK_THAT(e.what(),
             Contains("function 'f' returns a value on some paths and falls off the end"));
  CHECK_LOC(e, 1, 0);
}

TEST_CASE("a return after a for loop is needed: the loop may not run", "[typing]") {
  std::string text = module("n",
                            "(for@2:4 (name@2:8 i) (int@2:17 0) (name@2:20 n) (int@2:17 1)"
                            " (block@3:8 (return@3:8 (name@3:15 i))))",
                            "", "f");
  // None when n <= 0: an optional number, as Numba types it.
  CHECK(type_text(text, {i64}, false)->entry().return_type == Type::optional(i64));
}

TEST_CASE("while True ending only through return never falls off the end", "[typing]") {
  std::string text = module(
      "a",
      "(while@2:4 (bool@2:10 1)"
      " (block@3:8 (if@3:8 (name@3:11 a) (block@4:12 (return@4:12 (int@4:19 1))) (block@3:8))))",
      "", "f");
  CHECK(type_text(text, {i32}, false)->entry().return_type == i64);
}

TEST_CASE("while True left by break falls off the end", "[typing]") {
  // def f(a):
  //     while True:
  //         if a: return 1
  //         break
  // returns None when a is false: an optional number.
  std::string text = module(
      "a",
      "(while@2:4 (bool@2:10 1)"
      " (block@3:8 (if@3:8 (name@3:11 a) (block@3:14 (return@3:14 (int@3:21 1))) (block@3:8))"
      "  (break@4:8)))",
      "", "f");
  CHECK(type_text(text, {i32}, false)->entry().return_type == Type::optional(i64));
}

TEST_CASE("break outside a loop is an error at the break", "[typing]") {
  CompileError e = compile_error(module("", "(break@3:4)"), {});
  CHECK_THAT(e.what(), Contains("'break' outside a loop"));
  CHECK_LOC(e, 3, 4);
  CompileError c = compile_error(
      module("a", "(if@2:4 (name@2:7 a) (block@3:8 (continue@3:8)) (block@2:4))"), {i32});
  CHECK_THAT(c.what(), Contains("'continue' outside a loop"));
  CHECK_LOC(c, 3, 8);
}

TEST_CASE("break inside a loop nested in an if is fine", "[typing]") {
  CHECK_NOTHROW(type_text(
      module("a",
             "(while@2:4 (name@2:10 a) (block@3:8 (if@3:8 (name@3:11 a) (block@4:12 (break@4:12)) "
             "(block@3:8 (continue@5:12)))))"),
      {i32}));
}

TEST_CASE("a variable used before any assignment is an error at the use", "[typing]") {
  CompileError e = compile_error(module("", "(assign@2:4 (name@2:4 x) (name@2:8 y))"), {});
  CHECK_THAT(e.what(), Contains("variable 'y' is used before it is assigned"));
  CHECK_LOC(e, 2, 8);
}

TEST_CASE("a variable assigned types that do not unify is an error naming both", "[typing]") {
  CompileError e = compile_error(
      module("a", "(assign@2:4 (name@2:4 x) (int@2:8 1)) (assign@3:4 (name@3:4 x) (name@3:8 a))"),
      {T("array(float32, 1d, C)")});
  CHECK_THAT(
      e.what(),
      Contains("variable 'x' is assigned int64 and array(float32, 1d, C), which do not unify"));
  CHECK_LOC(e, 3, 4);
}

TEST_CASE("returns that do not unify are an error at the second return", "[typing]") {
  CompileError e =
      compile_error(module("a",
                           "(if@2:4 (name@2:7 a) (block@3:8 (return@3:8 (int@3:15 1))) (block@2:4))"
                           " (return@4:4 (tuple@4:11 (int@4:12 1) (int@4:15 2)))",
                           "", "f"),
                    {i32}, false);
  CHECK_THAT(e.what(),
             Contains("function 'f' returns int64 and UniTuple(int64 x 2), which do not unify"));
  CHECK_LOC(e, 4, 4);
}

TEST_CASE("a return of None and one of a number make an optional number", "[typing]") {
  auto typed =
      type_text(module("a",
                       "(if@2:4 (name@2:7 a) (block@3:8 (return@3:8 (float@3:15 1.5))) (block@2:4))"
                       " (return@4:4)",
                       "", "f"),
                {i32}, false);
  CHECK(typed->entry().return_type == Type::optional(f64));
  CHECK(typed->entry().return_type.str() == "OptionalType(float64)");
  CHECK(cudajit::parse_type("OptionalType(float64)") == Type::optional(f64));
}

TEST_CASE("ordering comparisons of complex numbers are errors", "[typing]") {
  CompileError e = compile_error(
      module("a b", "(expr@2:4 (compare@2:6 (name@2:6 a) < (name@2:10 b)))"), {c64, f32});
  CHECK_THAT(e.what(), Contains("complex numbers support only == and !=, not '<'"));
  CHECK_LOC(e, 2, 6);
}

TEST_CASE("comparing an array is an error naming the types", "[typing]") {
  CompileError e =
      compile_error(module("a", "(expr@2:4 (compare@2:6 (name@2:6 a) == (int@2:11 0)))"),
                    {T("array(float32, 1d, C)")});
  CHECK_THAT(e.what(), Contains("cannot compare array(float32, 1d, C) and int64"));
}

TEST_CASE("an array as a condition is ambiguous", "[typing]") {
  CompileError e =
      compile_error(module("a", "(if@2:4 (name@2:7 a) (block@3:8 (pass@3:8)) (block@2:4))"),
                    {T("array(float32, 1d, C)")});
  CHECK_THAT(e.what(), Contains("the truth value of array(float32, 1d, C) is ambiguous"));
  CHECK_LOC(e, 2, 7);
}

TEST_CASE("arithmetic on an array is an error naming the operator and types", "[typing]") {
  CompileError e = compile_error(module("a", "(expr@2:4 (binop@2:6 + (name@2:6 a) (int@2:10 1)))"),
                                 {T("array(float32, 1d, C)")});
  CHECK_THAT(e.what(),
             Contains("unsupported operand types for +: array(float32, 1d, C) and int64"));
  CHECK_LOC(e, 2, 6);
}

TEST_CASE("bitwise operators need integers", "[typing]") {
  CompileError e =
      compile_error(module("a", "(expr@2:4 (binop@2:6 & (name@2:6 a) (int@2:10 1)))"), {f32});
  CHECK_THAT(e.what(), Contains("'&' needs integer operands, got float32 and int64"));
  CHECK_LOC(e, 2, 6);
}

TEST_CASE("// and % are not defined for complex numbers", "[typing]") {
  CompileError e =
      compile_error(module("a", "(expr@2:4 (binop@2:6 // (name@2:6 a) (int@2:11 2)))"), {c128});
  CHECK_THAT(e.what(), Contains("'//' is not defined for complex numbers"));
}

TEST_CASE("~ needs an integer", "[typing]") {
  CompileError e = compile_error(module("a", "(expr@2:4 (unary@2:6 ~ (name@2:7 a)))"), {f64});
  CHECK_THAT(e.what(), Contains("'~' needs an integer operand, got float64"));
  CHECK_LOC(e, 2, 6);
}

TEST_CASE("storing a complex into a real array asks for .real or abs()", "[typing]") {
  CompileError e = compile_error(
      module("a z", "(assign@2:4 (subscript@2:4 (name@2:4 a) (int@2:6 0)) (name@2:11 z))"),
      {T("array(float64, 1d, C)"), c128});
  CHECK_THAT(e.what(), Contains("cannot store complex128 into an array of float64"));
  CHECK_LOC(e, 2, 4);
}

TEST_CASE("math of a complex asks for a real number", "[typing]") {
  CompileError e =
      compile_error(module("z", "(expr@2:4 (call@2:6 math.sin (name@2:15 z)))"), {c64});
  CHECK_THAT(e.what(),
             Contains("math.sin() needs a real number (int, float or bool), got complex64"));
  CHECK_LOC(e, 2, 6);
}

TEST_CASE("casting a complex to a real asks for .real", "[typing]") {
  CompileError e =
      compile_error(module("z", "(expr@2:4 (call@2:6 cast.float32 (name@2:19 z)))"), {c64});
  CHECK_THAT(e.what(), Contains("cannot convert complex64 to float32 (take .real first)"));
}

TEST_CASE("unsupported builtins, math and CUDA functions are named", "[typing]") {
  CHECK_THAT(compile_error(module("", "(expr@2:4 (call@2:6 input))"), {}).what(),
             Contains("input() is not supported in kernels"));
  CHECK_THAT(
      compile_error(module("", "(expr@2:4 (call@2:6 math.factorial (int@2:21 3)))"), {}).what(),
      Contains("math.factorial() is not supported in kernels"));
  CHECK_THAT(compile_error(module("", "(expr@2:4 (call@2:6 cuda.syncgrid))"), {}).what(),
             Contains("cuda.syncgrid is not supported in kernels"));
  CHECK_THAT(compile_error(module("", "(expr@2:4 (call@2:6 cuda.atomic.mul))"), {}).what(),
             Contains("cuda.atomic.mul is not supported in kernels"));
  CHECK_THAT(
      compile_error(module("", "(expr@2:4 (call@2:6 cast.float128 (int@2:19 3)))"), {}).what(),
      Contains("unknown cast 'cast.float128'"));
}

TEST_CASE("range() outside a for head is an error", "[typing]") {
  CompileError e =
      compile_error(module("", "(assign@2:4 (name@2:4 r) (call@2:8 range (int@2:14 3)))"), {});
  CHECK_THAT(e.what(), Contains("range() can only be used as the iterable of a for loop"));
  CHECK_LOC(e, 2, 8);
}

TEST_CASE("range() arguments must be integers", "[typing]") {
  CompileError e = compile_error(module("",
                                        "(for@2:4 (name@2:8 i) (int@2:17 0) (float@2:20 2.5) "
                                        "(int@2:17 1) (block@3:8 (pass@3:8)))"),
                                 {});
  CHECK_THAT(e.what(), Contains("range() arguments must be integers, got float64"));
  CHECK_LOC(e, 2, 20);
}

TEST_CASE("cuda.grid takes one literal 1, 2 or 3", "[typing]") {
  CompileError e = compile_error(module("", "(expr@2:4 (call@2:6 cuda.grid (int@2:16 4)))"), {});
  CHECK_THAT(e.what(), Contains("cuda.grid() takes one literal argument, 1, 2 or 3"));
  CHECK_LOC(e, 2, 6);
  CompileError variable =
      compile_error(module("n", "(expr@2:4 (call@2:6 cuda.grid (name@2:16 n)))"), {i64});
  CHECK_THAT(variable.what(), Contains("cuda.grid() takes one literal argument"));
}

TEST_CASE("a call of an unknown device function names it", "[typing]") {
  CompileError e = compile_error(module("", "(expr@2:4 (callfn@2:6 missing_1))"), {});
  CHECK_THAT(e.what(), Contains("call of unknown device function 'missing_1'"));
  CHECK_LOC(e, 2, 6);
}

TEST_CASE("assigning the result of a call returning None is an error", "[typing]") {
  CompileError e = compile_error(module("", "(assign@2:4 (name@2:4 x) (callfn@2:8 nothing))",
                                        "(func@4:0 nothing (params) (pass@5:4))"),
                                 {});
  CHECK_THAT(e.what(), Contains("cannot assign the result of a call returning None"));
  CHECK_LOC(e, 2, 4);
}

TEST_CASE("unpacking into the wrong number of targets names both", "[typing]") {
  CompileError e = compile_error(
      module(
          "",
          "(assign@2:4 (tuple@2:4 (name@2:4 x) (name@2:7 y)) (call@2:11 cuda.grid (int@2:21 3)))"),
      {});
  CHECK_THAT(e.what(), Contains("cannot unpack UniTuple(int64 x 3) into 2 targets"));
  CHECK_LOC(e, 2, 4);
}

TEST_CASE("an error inside a device function points into the device function", "[typing]") {
  std::string text =
      module("a", "(expr@2:4 (callfn@2:4 g (name@2:6 a)))",
             "(func@10:0 g (params x) (expr@11:4 (attr@11:10 (name@11:10 x) bogus)))");
  CompileError e = compile_error(text, {i32});
  CHECK_THAT(e.what(), Contains("int32 has no attribute 'bogus'"));
  CHECK_LOC(e, 11, 10);
  CHECK(e.file() == "t.py");
}

TEST_CASE("print_typed lists each specialisation with its arguments, return and locals",
          "[typing]") {
  auto typed = type_text(
      module("a", "(assign@2:4 (name@2:4 x) (binop@2:8 + (name@2:8 a) (int@2:12 1)))"), {i32});
  std::string text = cudajit::typing::print_typed(typed->program);
  CHECK_THAT(text, Contains("(a: int32) -> none"));
  CHECK_THAT(text, Contains("  x: int64"));
}

// --- records ---------------------------------------------------------------------------

namespace {

// Numba's spelling of np.dtype([("a", f8), ("b", i4), ("d", u1, 5)], align=True) and of a
// packed one with a nested 2-d array.
const char* const kRecord =
    "Record(a[type=float64;offset=0],b[type=int32;offset=8],d[type=nestedarray(uint8, (5,));"
    "offset=12];24;True)";
const char* const kPacked =
    "Record(x[type=int8;offset=0],z[type=nestedarray(float32, (3, 2));offset=1];25;False)";

std::string array_of(const char* record, const char* rest = "1d, C") {
  return std::string("array(") + record + ", " + rest + ")";
}

// parse_type refuses `text`, saying `why`.
void refused(const std::string& text, const std::string& why) {
  try {
    cudajit::parse_type(text);
    FAIL("parsed: " << text);
  } catch (const std::invalid_argument& e) {
    CHECK_THAT(e.what(), Contains(why));
  }
}

}  // namespace

TEST_CASE("record types parse from Numba's spelling and print it back", "[typing]") {
  for (std::string spelling :
       {std::string(kRecord), std::string(kPacked), array_of(kRecord),
        "readonly " + array_of(kRecord, "2d, A"), std::string("unaligned array(float32, 2d, A)")})
    CHECK(T(spelling.c_str()).str() == spelling);
  Type r = T(kRecord);
  REQUIRE(r.is_record());
  CHECK(r.itemsize() == 24);
  CHECK(r.record_layout()->find("d")->shape == std::vector<int64_t>{5});
  CHECK(T(array_of(kRecord).c_str()).is_record_array());
  CHECK(T(array_of(kRecord).c_str()).itemsize() == 24);
  CHECK(T(kRecord) != T(kPacked));
  // A record inside a record (aligned, as NumPy places it with align=True).
  const char* nested =
      "Record(n[type=int8;offset=0],inner[type=Record(x[type=float64;offset=0];8;True);offset=8];"
      "16;True)";
  CHECK(T(nested).str() == nested);
  CHECK(T(nested).record_layout()->find("inner")->record->size == 8);
  CHECK(T(nested).record_layout()->alignment() == 8);
}

TEST_CASE("character and byte fields parse as bytes kernels cannot use, and print back",
          "[typing]") {
  const char* spelling =
      "Record(a[type=float64;offset=0],d[type=[unichr x 5];offset=8],e[type=[char x 3];offset=28],"
      "f[type=[bytes x 2];offset=31];33;False)";
  Type r = T(spelling);
  CHECK(r.str() == spelling);
  const auto* d = r.record_layout()->find("d");
  CHECK(d->opaque == "[unichr x 5]");
  CHECK(d->shape == std::vector<int64_t>{20});  // 5 characters of 4 bytes
  CHECK(r.record_layout()->find("e")->shape == std::vector<int64_t>{3});
  CHECK(r.record_layout()->find("a")->opaque.empty());
  CHECK(T(spelling) != T("Record(a[type=float64;offset=0],d[type=nestedarray(uint8, (20,));"
                         "offset=8],e[type=[char x 3];offset=28],f[type=[bytes x 2];offset=31];"
                         "33;False)"));
  refused("Record(d[type=[wchar x 5];offset=0];20;False)", "expected [unichr x N]");
  refused("Record(d[type=[unichr x 0];offset=0];4;False)", "1 to 2**40 characters");
  refused("Record(d[type=[unichr x 5];offset=4];20;False)", "lies outside the record's 20 bytes");
}

TEST_CASE("arrays of NumPy 'U' and 'S' elements and of datetime64 parse and print back",
          "[typing]") {
  using cudajit::kGenericUnit;
  Type u = T("array([unichr x 12], 1d, C)");
  CHECK(u.str() == "array([unichr x 12], 1d, C)");
  CHECK(u.is_record_array());
  CHECK(cudajit::is_character_layout(*u.record_layout()));
  CHECK(u.itemsize() == 48);
  CHECK(T("readonly array([char x 3], 2d, A)").itemsize() == 3);
  refused("array([bytes x 3], 1d, C)", "expected [unichr x N] or [char x N]");
  CHECK(T("array(datetime64[D], 1d, C)").dtype() == cudajit::make_datetime(3));
  CHECK(T("array(timedelta64, 2d, A)").dtype() == cudajit::make_timedelta(kGenericUnit));
  CHECK(T("timedelta64[ms]").str() == "timedelta64[ms]");
  CHECK(T("Record(t[type=datetime64[s];offset=0];8;False)").str() ==
        "Record(t[type=datetime64[s];offset=0];8;False)");
  CHECK(cudajit::datetime_unit_factor(3, 9) == 86'400'000'000'000);  // days to nanoseconds
  CHECK(!cudajit::datetime_unit_factor(1, 3));      // months do not convert to days
  CHECK(cudajit::common_datetime_unit(0, 1) == 1);  // years and months meet in months
}

TEST_CASE("malformed record spellings are refused with the reason", "[typing]") {
  refused("Record(a[type=float64;offset=4];8;False)", "lies outside the record's 8 bytes");
  refused("Record(a[type=float64;offset=0],a[type=int8;offset=0];8;False)", "appears twice");
  refused("Record(a[type=bfloat16;offset=0];2;False)", "unknown field dtype");
  refused("Record(a[type=int8;offset=0];1;Maybe)", "expected True or False");
  refused("unaligned int32", "expected an array after 'unaligned'");
  refused(
      "Record(n[type=int8;offset=0],inner[type=Record(x[type=float64;offset=0];8;True);"
      "offset=1];9;False)",
      "a record inside a record needs both made with align=True");
  refused("Record(inner[type=Record(x[type=float64;offset=0];8;True);offset=4];16;True)",
          "not a multiple of its 8-byte alignment");
  refused("Record(a[type=float64;offset=99999999999999999999];8;False)", "expected a number");
  refused("Record(a[type=nestedarray(int8, (4294967296, 4294967296, 4));offset=0];8;False)",
          "lies outside the record's 8 bytes");  // the product would overflow
}

TEST_CASE("arrays have 0 to 8 dimensions", "[typing]") {
  CHECK(T("array(float64, 8d, A)").ndim() == 8);
  CHECK(T("array(float64, 8d, A)").str() == "array(float64, 8d, A)");
  CHECK(T("array(float64, 0d, C)").ndim() == 0);  // Numba's 0-d arrays, indexed by a[()]
  CHECK(T("array(float64, 0d, C)").str() == "array(float64, 0d, C)");
  refused("array(float64, 9d, A)", "ndim must be 0d to 8d");
}

TEST_CASE("tuple types parse from their spelling and print it back", "[typing]") {
  for (const char* spelling :
       {"UniTuple(float64 x 3)", "Tuple(int32, float32)", "Tuple()",
        "Tuple(UniTuple(int8 x 2), readonly array(float64, 1d, A))", "Point(x=int64, y=float64)"})
    CHECK(T(spelling).str() == spelling);
  CHECK(T("UniTuple(int64 x 2)") == Type::tuple({i64, i64}));
  CHECK(T("Point(x=int64)").fields() == std::vector<std::string>{"x"});
  refused("UniTuple(int64 x 0)", "a UniTuple has 1 to 1024 items");
  refused("UniTuple(int64 x 99999999999999999999)", "expected a number");
  refused("Tuple(int64,", "expected a scalar name");
  refused("Point()", "a named tuple needs at least one field");
  std::string deep;
  for (int i = 0; i < 40; ++i) deep += "Tuple(";
  refused(deep + "int64" + std::string(40, ')'), "nested more than 32 deep");
}

TEST_CASE("indexing a record array gives a record; fields give numbers and views", "[typing]") {
  std::vector<Type> args{T(array_of(kRecord).c_str())};
  CHECK(assigned_type("(subscript@2:8 (name@2:8 a) (int@2:10 0))", args) == T(kRecord));
  CHECK(assigned_type("(attr@2:8 (subscript@2:8 (name@2:8 a) (int@2:10 0)) b)", args) == i32);
  CHECK(assigned_type("(attr@2:8 (subscript@2:8 (name@2:8 a) (int@2:10 0)) d)", args) ==
        T("array(uint8, 1d, C)"));
  CHECK(assigned_type("(attr@2:8 (name@2:8 a) a)", args) == T("array(float64, 1d, A)"));
  CHECK(assigned_type("(attr@2:8 (name@2:8 a) d)", args) == T("array(uint8, 2d, A)"));
  // r[1]: the second field, as Numba indexes records by position
  CHECK(assigned_type("(subscript@2:8 (subscript@2:8 (name@2:8 a) (int@2:10 0)) (int@2:13 1))",
                      args) == i32);
}

TEST_CASE("a packed record's nested array is an unaligned view", "[typing]") {
  std::vector<Type> args{T(array_of(kPacked).c_str())};
  CHECK(assigned_type("(attr@2:8 (subscript@2:8 (name@2:8 a) (int@2:10 0)) z)", args) ==
        T("unaligned array(float32, 2d, C)"));
  CompileError e = compile_error(
      module("a",
             "(expr@2:4 (call@2:4 cuda.atomic.add (attr@2:23 (subscript@2:23 (name@2:23 a) "
             "(int@2:25 0)) z) (tuple@2:30 (int@2:30 0) (int@2:33 0)) (float@2:36 1.0)))"),
      args);
  CHECK_THAT(e.what(), Contains("needs aligned elements"));
}

TEST_CASE("records unify only with records of the same fields", "[typing]") {
  CHECK(unify(T(kRecord), T(("readonly " + std::string(kRecord)).c_str())) ==
        T(("readonly " + std::string(kRecord)).c_str()));
  CHECK_FALSE(unify(T(kRecord), T(kPacked)).has_value());
  CHECK_FALSE(unify(T(array_of(kRecord).c_str()), T(array_of(kPacked).c_str())).has_value());
  CHECK(unify(T("unaligned array(float32, 1d, C)"), T("array(float32, 1d, C)")) ==
        T("unaligned array(float32, 1d, C)"));
}

TEST_CASE("a named tuple's items are read by name, and its names are part of its type",
          "[typing]") {
  Type point = Type::named_tuple("Point", {i64, f64}, {"x", "y"});
  CHECK(point.str() == "Point(x=int64, y=float64)");
  CHECK(point != Type::tuple({i64, f64}));
  CHECK(assigned_type("(attr@2:8 (name@2:8 a) y)", {point}) == f64);
  CompileError e =
      compile_error(module("a", "(assign@2:4 (name@2:4 r) (attr@2:8 (name@2:8 a) z))"), {point});
  CHECK_THAT(e.what(), Contains("has no attribute 'z'"));
}
