// Lowering, end to end on hand-written kernel IR: Program::compile_ptx (entry
// names, PTX ISA and target, ptxas, lazily linked libdevice) and
// Program::compile_host, whose entry is called directly with a parameter
// array built as compile.hpp's ParamLayout describes.
#include <unistd.h>

#include <array>
#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "cudajit/compiler/compile.hpp"
#include "cudajit/compiler/errors.hpp"
#include "cudajit/compiler/target.hpp"
#include "cudajit/compiler/types.hpp"
#include "ptxas.hpp"
#include "samples.hpp"

using cudajit::testing::kSaxpyIr;

using Catch::Matchers::Contains;
using cudajit::CompileOptions;
using cudajit::Program;
using cudajit::Scalar;
using cudajit::Type;

using cudajit::testing::libdevice_missing;

namespace {

Type T(const char* spelling) { return cudajit::parse_type(spelling); }

const Type i64 = Type::scalar(Scalar::Int64);
const Type f32 = Type::scalar(Scalar::Float32);
const Type f64 = Type::scalar(Scalar::Float64);
const Type boolean = Type::scalar(Scalar::Bool);

CompileOptions cc(int compute_capability) {
  CompileOptions options;
  options.cc = compute_capability;
  options.keep_llvm_ir = true;  // these tests read it
  return options;
}

// The flattened parameters of a host entry: one pointer per parameter, each
// to its value in memory form, in the order compile.hpp's ParamLayout gives.
class Params {
 public:
  template <class V>
  Params& scalar(V value) {
    auto& slot = slots_.emplace_back();
    static_assert(sizeof(V) <= sizeof(slot));
    std::memcpy(slot.data(), &value, sizeof value);
    pointers_.push_back(slot.data());
    return *this;
  }
  // data pointer, N extents, N byte strides
  template <class E>
  Params& array(E* data, std::vector<int64_t> shape, std::vector<int64_t> byte_strides) {
    scalar(static_cast<void*>(data));
    for (int64_t extent : shape) scalar(extent);
    for (int64_t stride : byte_strides) scalar(stride);
    return *this;
  }
  // A C-contiguous 1-d array over a vector.
  template <class E>
  Params& array(std::vector<E>& v) {
    return array(v.data(), {static_cast<int64_t>(v.size())}, {static_cast<int64_t>(sizeof(E))});
  }
  void** get() { return pointers_.data(); }
  size_t size() const { return pointers_.size(); }

 private:
  std::deque<std::array<unsigned char, 16>> slots_;
  std::vector<void*> pointers_;
};

// Compiles `ir` for the host and runs the whole grid on this thread.
void run_host(const std::string& ir, const std::vector<Type>& arg_types, Params& params,
              cudajit::target::LaunchDims dims = {{1, 1, 1}, {1, 1, 1}}) {
  Program program(ir);
  cudajit::HostArtifact artifact = program.compile_host(arg_types, CompileOptions{});
  REQUIRE(artifact.kernel.entry != nullptr);
  int flat = 0;
  for (const cudajit::ParamLayout& p : artifact.params) flat += p.param_count;
  REQUIRE(static_cast<size_t>(flat) == params.size());
  int64_t blocks = int64_t{dims.grid[0]} * dims.grid[1] * dims.grid[2];
  artifact.kernel.entry(params.get(), &dims, 0, blocks, nullptr);
}

// `(module "t.py" (func@1:0 NAME (params PARAMS) BODY) EXTRA)`.
std::string module(const std::string& params, const std::string& body,
                   const std::string& extra = "", const std::string& name = "k") {
  return "(module \"t.py\" (func@1:0 " + name + " (params " + params + ") " + body + ") " + extra +
         ")";
}

// i = cuda.grid(1); if i < out.size: BODY
std::string per_element(const std::string& params, const std::string& body,
                        const std::string& extra = "") {
  return module(params,
                "(assign@2:4 (name@2:4 i) (call@2:8 cuda.grid (int@2:18 1)))"
                "(if@3:4 (compare@3:7 (name@3:7 i) < (attr@3:11 (name@3:11 out) size))"
                " (block@4:8 " +
                    body + ") (block@3:4))",
                extra);
}

// ARRAY[i]
std::string element(const char* array) {
  return std::string("(subscript@4:8 (name@4:8 ") + array + ") (name@4:10 i))";
}

// k(a, b, q, out): q[i] = a[i] OP1 b[i]; out[i] = a[i] OP2 b[i]
std::string two_results(const std::string& op1, const std::string& op2) {
  return per_element("a b q out", "(assign@4:8 " + element("q") + " (binop@4:15 " + op1 + " " +
                                      element("a") + " " + element("b") + "))" + "(assign@5:8 " +
                                      element("out") + " (binop@5:15 " + op2 + " " + element("a") +
                                      " " + element("b") + "))");
}

std::vector<Type> saxpy_args() {
  Type v = T("array(float32, 1d, C)");
  return {f32, v, v, v};
}

// out[i] = math.FN(x[i])
std::string math_kernel(const std::string& fn) {
  return per_element("x out", "(assign@4:8 " + element("out") + " (call@4:17 math." + fn + " " +
                                  element("x") + "))");
}

}  // namespace

// --- PTX -------------------------------------------------------------------------------

TEST_CASE("a kernel is a .entry named as the Python function", "[lowering]") {
  if (libdevice_missing()) return;
  cudajit::PtxArtifact a = Program(kSaxpyIr).compile_ptx(saxpy_args(), false, cc(80));
  CHECK(a.entry_name == "saxpy");
  CHECK_THAT(a.ptx, Contains(".entry saxpy("));
  CHECK(a.return_type == Type::none());
}

TEST_CASE("PTX for sm_80 is ISA 7.0 and for sm_90 ISA 7.8", "[lowering]") {
  if (libdevice_missing()) return;
  Program program(kSaxpyIr);
  std::string sm80 = program.compile_ptx(saxpy_args(), false, cc(80)).ptx;
  CHECK_THAT(sm80, Contains(".version 7.0"));
  CHECK_THAT(sm80, Contains(".target sm_80"));
  std::string sm90 = program.compile_ptx(saxpy_args(), false, cc(90)).ptx;
  CHECK_THAT(sm90, Contains(".version 7.8"));
  CHECK_THAT(sm90, Contains(".target sm_90"));
}

TEST_CASE("a kernel's .entry takes 1 + 2N parameters per N-d array and one per scalar",
          "[lowering]") {
  if (libdevice_missing()) return;
  // k(s, a, n): a float32 scalar, a 2-d array (5 parameters) and an int64.
  std::string ir = module("s a n",
                          "(assign@2:4 (subscript@2:4 (name@2:4 a) (tuple@2:6 (int@2:6 0) "
                          "(int@2:9 0))) (binop@2:14 * (name@2:14 s) (name@2:18 n)))");
  cudajit::PtxArtifact art =
      Program(ir).compile_ptx({f32, T("array(float32, 2d, A)"), i64}, false, cc(80));
  REQUIRE(art.params.size() == 3);
  CHECK(art.params[0].first_param == 0);
  CHECK(art.params[0].param_count == 1);
  CHECK(art.params[1].first_param == 1);
  CHECK(art.params[1].param_count == 5);
  CHECK(art.params[2].first_param == 6);
  CHECK(art.params[2].param_count == 1);
  CHECK_THAT(art.ptx, Contains("k_param_6"));
  CHECK_THAT(art.ptx, !Contains("k_param_7"));
}

TEST_CASE("compile_ptx(device=True) gives a visible .func and no .entry", "[lowering]") {
  if (libdevice_missing()) return;
  std::string ir =
      module("x y", "(return@2:4 (binop@2:11 + (name@2:11 x) (name@2:15 y)))", "", "add");
  cudajit::PtxArtifact art = Program(ir).compile_ptx({f32, f32}, true, cc(80));
  CHECK(art.return_type == f32);
  CHECK_THAT(art.ptx, Contains(".visible .func"));
  CHECK_THAT(art.ptx, Contains(art.entry_name + "("));
  CHECK_THAT(art.entry_name, Contains("add"));
  CHECK_THAT(art.ptx, !Contains(".entry"));
}

TEST_CASE("a declared return type converts a device function's result", "[lowering]") {
  if (libdevice_missing()) return;
  std::string ir = module("x", "(return@2:4 (binop@2:11 + (name@2:11 x) (int@2:15 1)))", "", "inc");
  cudajit::PtxArtifact art =
      Program(ir).compile_ptx({Type::scalar(Scalar::Int32)}, true, cc(80), f32);
  CHECK(art.return_type == f32);
  CHECK_THAT(art.ptx, Contains("cvt.rn.f32.s64"));
  // LLVM 19 stores the result as .f32, LLVM 22 as .b32.
  CHECK_THAT(art.ptx, Contains("st.param.f32") || Contains("st.param.b32"));
}

TEST_CASE("ptxas accepts the PTX of kernels for sm_80 and sm_90", "[lowering][ptxas]") {
  if (libdevice_missing()) return;
  const std::string ptxas = cudajit::testing::ptxas_path();
  if (ptxas.empty()) {
    WARN("skipped: ptxas not found ($CUDA_HOME/bin or /usr/local/cuda/bin)");
    return;
  }
  struct Case {
    const char* what;
    std::string ir;
    std::vector<Type> args;
    bool device;
  };
  std::vector<Case> cases = {
      {"saxpy", kSaxpyIr, saxpy_args(), false},
      {"math.sin float32",
       math_kernel("sin"),
       {T("array(float32, 1d, C)"), T("array(float32, 1d, C)")},
       false},
      {"math.lgamma float64",
       math_kernel("lgamma"),
       {T("array(float64, 1d, C)"), T("array(float64, 1d, C)")},
       false},
      {"complex power",
       per_element("x out", "(assign@4:8 " + element("out") + " (binop@4:17 ** " + element("x") +
                                " (complex@4:25 0.5 1.0)))"),
       {T("array(complex64, 1d, C)"), T("array(complex64, 1d, C)")},
       false},
      {"device function",
       module("x y", "(return@2:4 (binop@2:11 // (name@2:11 x) (name@2:15 y)))", "", "fdiv"),
       {i64, i64},
       true},
  };
  for (const Case& c : cases) {
    for (int compute : {80, 90}) {
      for (bool fastmath : {false, true}) {
        CompileOptions options = cc(compute);
        options.fastmath = fastmath;
        std::string ptx = Program(c.ir).compile_ptx(c.args, c.device, options).ptx;
        std::string output;
        int status =
            cudajit::testing::run_ptxas(ptxas, ptx, cudajit::target::sm_name(compute), output);
        INFO(c.what << " sm_" << compute << (fastmath ? " fastmath" : "") << ": " << output);
        CHECK(status == 0);
      }
    }
  }
}

TEST_CASE("lineinfo gives PTX .file and .loc directives for the source lines", "[lowering]") {
  CompileOptions options = cc(80);
  CHECK_THAT(Program(kSaxpyIr).compile_ptx(saxpy_args(), false, options).ptx, !Contains(".loc"));
  options.lineinfo = true;
  const std::string ptx = Program(kSaxpyIr).compile_ptx(saxpy_args(), false, options).ptx;
  CHECK_THAT(ptx, Contains(".file\t1 \"examples/saxpy.py\""));
  CHECK_THAT(ptx, Contains(".loc\t1 3 "));  // i = cuda.grid(1)
  CHECK_THAT(ptx, Contains(".loc\t1 5 "));  // out[i] = a * x[i] + y[i]
  // Line tables only: no DWARF sections with content.
  CHECK_THAT(ptx, !Contains(".debug_info"));
}

TEST_CASE("the lowered LLVM IR is kept only when asked", "[lowering]") {
  CompileOptions options;
  CHECK(Program(kSaxpyIr).compile_ptx(saxpy_args(), false, options).llvm_ir.empty());
  options.keep_llvm_ir = true;
  CHECK_THAT(Program(kSaxpyIr).compile_ptx(saxpy_args(), false, options).llvm_ir,
             Contains("define"));
}

TEST_CASE("a kernel's body is its .entry, with no stack slot for unassigned parameters",
          "[lowering]") {
  const std::string llvm_ir = Program(kSaxpyIr).compile_ptx(saxpy_args(), false, cc(80)).llvm_ir;
  CHECK_THAT(llvm_ir, Contains("define ptx_kernel void @saxpy("));
  CHECK_THAT(llvm_ir, !Contains("alwaysinline"));
  CHECK_THAT(llvm_ir, !Contains("call void"));
  // Parameters' slots would be `%a.addr` beside the argument `%a` (named as in Python).
  for (const char* parameter : {"%a.addr = alloca", "%x.addr = alloca", "%y.addr = alloca",
                                "%out.addr = alloca", "%a = alloca"})
    CHECK_THAT(llvm_ir, !Contains(parameter));
  CHECK_THAT(llvm_ir, Contains("(float %a, ptr %x.data, i64 %x.shape.0, i64 %x.strides.0,"));
  CHECK_THAT(llvm_ir, Contains("%i = alloca"));  // assigned: a slot, as before
  // The arrays' fields are the .entry's parameters: nothing to extract.
  CHECK_THAT(llvm_ir, !Contains("extractvalue"));
}

TEST_CASE("an index from cuda.grid is not wrapped, one that may be negative is", "[lowering]") {
  const Type v = T("array(float32, 1d, C)");
  // out[i] = a[i]
  const std::string direct =
      per_element("a out", "(assign@4:8 " + element("out") + " " + element("a") + ")");
  CHECK_THAT(Program(direct).compile_ptx({v, v}, false, cc(80)).llvm_ir, !Contains("select"));
  // out[i] = a[i - 1]
  const std::string shifted = per_element(
      "a out", "(assign@4:8 " + element("out") +
                   " (subscript@4:15 (name@4:15 a) (binop@4:17 - (name@4:17 i) (int@4:21 1))))");
  CHECK_THAT(Program(shifted).compile_ptx({v, v}, false, cc(80)).llvm_ir, Contains("select"));
}

TEST_CASE("and/or and chained comparisons branch only around what may fault", "[lowering]") {
  const Type v = T("array(float32, 1d, C)");
  // out[i] = 0 < i < out.size and i != 3: nothing to guard, no branch but the if's
  const std::string names = per_element(
      "a out", "(assign@4:8 " + element("out") +
                   " (and@4:15 (compare@4:15 (int@4:15 0) < (name@4:19 i) < (attr@4:23 "
                   "(name@4:23 out) size)) (compare@4:35 (name@4:35 i) != (int@4:40 3))))");
  const std::string straight = Program(names).compile_ptx({v, v}, false, cc(80)).llvm_ir;
  CHECK_THAT(straight, !Contains("cmp.next"));
  CHECK_THAT(straight, !Contains("bool.next"));
  // out[i] = i > 0 and a[i - 1] > 0: the read may be out of bounds, so it is branched around
  const std::string guarded_read = per_element(
      "a out", "(assign@4:8 " + element("out") +
                   " (and@4:15 (compare@4:15 (name@4:15 i) > (int@4:19 0)) (compare@4:25 "
                   "(subscript@4:25 (name@4:25 a) (binop@4:27 - (name@4:27 i) (int@4:31 1))) > "
                   "(int@4:36 0))))");
  CHECK_THAT(Program(guarded_read).compile_ptx({v, v}, false, cc(80)).llvm_ir,
             Contains("bool.next"));
}

TEST_CASE("a kernel without math links no libdevice function", "[lowering]") {
  if (libdevice_missing()) return;
  cudajit::PtxArtifact art = Program(kSaxpyIr).compile_ptx(saxpy_args(), false, cc(80));
  CHECK_THAT(art.llvm_ir, !Contains("__nv_"));
  CHECK_THAT(art.ptx, !Contains("__nv_"));
  CHECK_THAT(art.ptx, !Contains("__internal"));
}

TEST_CASE("math.sin of float32 calls __nv_sinf, and no other libdevice function", "[lowering]") {
  if (libdevice_missing()) return;
  Type v = T("array(float32, 1d, C)");
  cudajit::PtxArtifact art = Program(math_kernel("sin")).compile_ptx({v, v}, false, cc(80));
  CHECK_THAT(art.llvm_ir, Contains("@__nv_sinf("));
  CHECK_THAT(art.llvm_ir, !Contains("@__nv_sin("));
  CHECK_THAT(art.llvm_ir, !Contains("__nv_cos"));
  // Linked and inlined: the call is gone from the PTX, and nothing else was left behind.
  CHECK_THAT(art.ptx, !Contains("call.uni"));
  CHECK_THAT(art.ptx, !Contains(".func"));
}

TEST_CASE("math.sin of float64 calls __nv_sin", "[lowering]") {
  if (libdevice_missing()) return;
  Type v = T("array(float64, 1d, C)");
  cudajit::PtxArtifact art = Program(math_kernel("sin")).compile_ptx({v, v}, false, cc(80));
  CHECK_THAT(art.llvm_ir, Contains("@__nv_sin("));
  CHECK_THAT(art.llvm_ir, !Contains("@__nv_sinf("));
}

TEST_CASE("math.sqrt is an LLVM intrinsic, not a libdevice call", "[lowering]") {
  if (libdevice_missing()) return;
  Type v = T("array(float32, 1d, C)");
  cudajit::PtxArtifact art = Program(math_kernel("sqrt")).compile_ptx({v, v}, false, cc(80));
  CHECK_THAT(art.llvm_ir, !Contains("__nv_"));
  CHECK_THAT(art.ptx, Contains("sqrt.rn.f32"));
}

TEST_CASE("fastmath makes float32 division approximate", "[lowering]") {
  if (libdevice_missing()) return;
  Type v = T("array(float32, 1d, C)");
  // out[i] = float32(3.0) / x[i]
  std::string ir =
      per_element("x out", "(assign@4:8 " + element("out") +
                               " (binop@4:17 / (call@4:17 cast.float32 (float@4:30 3.0)) " +
                               element("x") + "))");
  CompileOptions fast = cc(80);
  fast.fastmath = true;
  std::string precise_ptx = Program(ir).compile_ptx({v, v}, false, cc(80)).ptx;
  std::string fast_ptx = Program(ir).compile_ptx({v, v}, false, fast).ptx;
  CHECK_THAT(precise_ptx, Contains("div.rn.f32"));
  CHECK_THAT(fast_ptx, !Contains("div.rn.f32"));
}

TEST_CASE("a CompileError from compile_ptx carries the file and the location", "[lowering]") {
  std::string ir = module("a", "(return@3:4 (name@3:11 a))");
  try {
    Program(ir).compile_ptx({i64}, false, cc(80));
    FAIL("no CompileError");
  } catch (const cudajit::CompileError& e) {
    CHECK_THAT(e.what(), Contains("a kernel cannot return a value"));
    CHECK(e.file() == "t.py");
    CHECK(e.loc().line == 3);
    CHECK(e.loc().col == 4);
  }
}

TEST_CASE("Program::return_type types without lowering", "[lowering]") {
  std::string ir =
      module("x", "(return@2:4 (binop@2:11 / (name@2:11 x) (int@2:15 2)))", "", "half");
  CHECK(Program(ir).return_type({i64}, true) == f64);
}

// --- host code, run directly -----------------------------------------------------------

TEST_CASE("saxpy on the host computes a*x + y", "[lowering]") {
  std::vector<float> x = {1, 2, 3, 4, 5}, y = {10, 20, 30, 40, 50}, out(5, 0);
  Params p;
  p.scalar(2.0F).array(x).array(y).array(out);
  run_host(kSaxpyIr, saxpy_args(), p, {{2, 1, 1}, {4, 1, 1}});
  CHECK(out == std::vector<float>{12, 24, 36, 48, 60});
}

TEST_CASE("integer // and % floor towards negative infinity as in Python", "[lowering]") {
  std::string ir = two_results("//", "%");
  std::vector<int64_t> a = {-7, 7, -7, 7, -1, 1, 6, -6};
  std::vector<int64_t> b = {2, -2, -2, 2, 3, -3, 3, -3};
  std::vector<int64_t> q(8, 99), r(8, 99);
  Type v = T("array(int64, 1d, C)");
  Params p;
  p.array(a).array(b).array(q).array(r);
  run_host(ir, {v, v, v, v}, p, {{1, 1, 1}, {8, 1, 1}});
  CHECK(q == std::vector<int64_t>{-4, -4, 3, 3, -1, -1, 2, 2});
  CHECK(r == std::vector<int64_t>{1, -1, -1, 1, 2, -2, 0, 0});
}

TEST_CASE("integer division by zero gives 0 without trapping", "[lowering]") {
  // q[i] = a[i] // b[i]; out[i] = a[i] % b[i]
  std::string ir = two_results("//", "%");
  SECTION("int32") {
    std::vector<int32_t> a = {5, -5, 0}, b = {0, 0, 0}, q(3, 99), r(3, 99);
    Type v = T("array(int32, 1d, C)");
    Params p;
    p.array(a).array(b).array(q).array(r);
    run_host(ir, {v, v, v, v}, p, {{1, 1, 1}, {3, 1, 1}});
    CHECK(q == std::vector<int32_t>{0, 0, 0});
    CHECK(r == std::vector<int32_t>{0, 0, 0});
  }
  SECTION("uint64") {
    std::vector<uint64_t> a = {5, UINT64_MAX}, b = {0, 0}, q(2, 99), r(2, 99);
    Type v = T("array(uint64, 1d, C)");
    Params p;
    p.array(a).array(b).array(q).array(r);
    run_host(ir, {v, v, v, v}, p, {{1, 1, 1}, {2, 1, 1}});
    CHECK(q == std::vector<uint64_t>{0, 0});
    CHECK(r == std::vector<uint64_t>{0, 0});
  }
  SECTION("INT64_MIN // -1 wraps instead of trapping") {
    std::vector<int64_t> a = {std::numeric_limits<int64_t>::min()}, b = {-1}, q(1, 99), r(1, 99);
    Type v = T("array(int64, 1d, C)");
    Params p;
    p.array(a).array(b).array(q).array(r);
    run_host(ir, {v, v, v, v}, p);
    CHECK(q[0] == std::numeric_limits<int64_t>::min());
    CHECK(r[0] == 0);
  }
}

TEST_CASE("float // and % follow Python's signs", "[lowering]") {
  std::string ir = two_results("//", "%");
  std::vector<double> a = {-7.5, 7.5, -7.5, 6.0}, b = {2.0, -2.0, -2.0, -3.0}, q(4, 99), r(4, 99);
  Type v = T("array(float64, 1d, C)");
  Params p;
  p.array(a).array(b).array(q).array(r);
  run_host(ir, {v, v, v, v}, p, {{1, 1, 1}, {4, 1, 1}});
  CHECK(q == std::vector<double>{-4.0, -4.0, 3.0, -2.0});
  CHECK(r == std::vector<double>{0.5, -0.5, -1.5, 0.0});
}

TEST_CASE("float // and % give Python's signed zeros", "[lowering]") {
  // Python: 6.0 % -3.0 == -0.0, -6.0 % 3.0 == 0.0, -0.5 // -2.0 == 0.0
  std::string ir = two_results("//", "%");
  std::vector<double> a = {6.0, -6.0, -0.5}, b = {-3.0, 3.0, -2.0}, q(3, 99), r(3, 99);
  Type v = T("array(float64, 1d, C)");
  Params p;
  p.array(a).array(b).array(q).array(r);
  run_host(ir, {v, v, v, v}, p, {{1, 1, 1}, {3, 1, 1}});
  CHECK(std::signbit(r[0]));
  CHECK_FALSE(std::signbit(r[1]));
  CHECK(q[2] == 0.0);
  CHECK_FALSE(std::signbit(q[2]));
}

TEST_CASE("for range with a negative step counts down and leaves the last value", "[lowering]") {
  // s = 0; n = 0
  // for i in range(10, 0, -3): s += i
  // for j in range(0, 10, -1): n += 1
  // out[0] = s; out[1] = i; out[2] = n
  std::string ir =
      module("out",
             "(assign@2:4 (name@2:4 s) (int@2:8 0))"
             "(assign@3:4 (name@3:4 n) (int@3:8 0))"
             "(for@4:4 (name@4:8 i) (int@4:17 10) (int@4:21 0) (unary@4:24 - (int@4:25 3))"
             " (block@5:8 (augassign@5:8 + (name@5:8 s) (name@5:13 i))))"
             "(for@6:4 (name@6:8 j) (int@6:17 0) (int@6:20 10) (unary@6:24 - (int@6:25 1))"
             " (block@7:8 (augassign@7:8 + (name@7:8 n) (int@7:13 1))))"
             "(assign@8:4 (subscript@8:4 (name@8:4 out) (int@8:8 0)) (name@8:13 s))"
             "(assign@9:4 (subscript@9:4 (name@9:4 out) (int@9:8 1)) (name@9:13 i))"
             "(assign@10:4 (subscript@10:4 (name@10:4 out) (int@10:8 2)) (name@10:13 n))");
  std::vector<int64_t> out(3, -99);
  Params p;
  p.array(out);
  run_host(ir, {T("array(int64, 1d, C)")}, p);
  CHECK(out == std::vector<int64_t>{22, 1, 0});
}

TEST_CASE("reassigning the loop variable does not change the iterations", "[lowering]") {
  // for i in range(4): out[i] = i; i = 100
  std::string ir =
      module("out",
             "(for@2:4 (name@2:8 i) (int@2:17 0) (int@2:20 4) (int@2:17 1)"
             " (block@3:8 (assign@3:8 (subscript@3:8 (name@3:8 out) (name@3:12 i)) (name@3:17 i))"
             "  (assign@4:8 (name@4:8 i) (int@4:12 100))))");
  std::vector<int64_t> out(4, -1);
  Params p;
  p.array(out);
  run_host(ir, {T("array(int64, 1d, C)")}, p);
  CHECK(out == std::vector<int64_t>{0, 1, 2, 3});
}

TEST_CASE("break and continue in a while loop", "[lowering]") {
  // k = 0; s = 0
  // while True:
  //     k += 1
  //     if k > 10: break
  //     if k % 2 == 0: continue
  //     s += k
  // out[0] = s
  std::string ir = module(
      "out",
      "(assign@2:4 (name@2:4 k) (int@2:8 0))"
      "(assign@3:4 (name@3:4 s) (int@3:8 0))"
      "(while@4:4 (bool@4:10 1) (block@5:8"
      " (augassign@5:8 + (name@5:8 k) (int@5:13 1))"
      " (if@6:8 (compare@6:11 (name@6:11 k) > (int@6:15 10)) (block@6:19 (break@6:19)) (block@6:8))"
      " (if@7:8 (compare@7:11 (binop@7:11 % (name@7:11 k) (int@7:15 2)) == (int@7:20 0))"
      "  (block@7:23 (continue@7:23)) (block@7:8))"
      " (augassign@8:8 + (name@8:8 s) (name@8:13 k))))"
      "(assign@9:4 (subscript@9:4 (name@9:4 out) (int@9:8 0)) (name@9:13 s))");
  std::vector<int64_t> out(1, -1);
  Params p;
  p.array(out);
  run_host(ir, {T("array(int64, 1d, C)")}, p);
  CHECK(out[0] == 1 + 3 + 5 + 7 + 9);
}

TEST_CASE("an early return leaves the threads past the end untouched", "[lowering]") {
  // i = cuda.grid(1); if i >= n: return; out[i] = i * 2
  std::string ir = module(
      "out n",
      "(assign@2:4 (name@2:4 i) (call@2:8 cuda.grid (int@2:18 1)))"
      "(if@3:4 (compare@3:7 (name@3:7 i) >= (name@3:12 n)) (block@4:8 (return@4:8)) (block@3:4))"
      "(assign@5:4 (subscript@5:4 (name@5:4 out) (name@5:8 i)) (binop@5:13 * (name@5:13 i) "
      "(int@5:17 2)))");
  std::vector<int64_t> out(8, -1);
  Params p;
  p.array(out).scalar(int64_t{5});
  run_host(ir, {T("array(int64, 1d, C)"), i64}, p, {{2, 1, 1}, {4, 1, 1}});
  CHECK(out == std::vector<int64_t>{0, 2, 4, 6, 8, -1, -1, -1});
}

TEST_CASE("a device function returning early gives its value", "[lowering]") {
  // def sign(x): if x < 0: return -1; if x == 0: return 0; return 1
  std::string ir = per_element(
      "x out", "(assign@4:8 " + element("out") + " (callfn@4:17 sign " + element("x") + "))",
      "(func@10:0 sign (params v)"
      " (if@11:4 (compare@11:7 (name@11:7 v) < (int@11:11 0))"
      "  (block@11:14 (return@11:14 (unary@11:21 - (int@11:22 1)))) (block@11:4))"
      " (if@12:4 (compare@12:7 (name@12:7 v) == (int@12:12 0))"
      "  (block@12:15 (return@12:15 (int@12:22 0))) (block@12:4))"
      " (return@13:4 (int@13:11 1)))");
  std::vector<double> x = {-2.5, 0.0, 3.0};
  std::vector<int64_t> out(3, 99);
  Params p;
  p.array(x).array(out);
  run_host(ir, {T("array(float64, 1d, C)"), T("array(int64, 1d, C)")}, p, {{1, 1, 1}, {3, 1, 1}});
  CHECK(out == std::vector<int64_t>{-1, 0, 1});
}

TEST_CASE("complex multiply and divide", "[lowering]") {
  std::string ir = two_results("*", "/");
  SECTION("complex128") {
    using C = std::complex<double>;
    std::vector<C> a = {{1, 2}, {0, 1}}, b = {{3, -4}, {0, 1}}, prod(2), quot(2);
    Type v = T("array(complex128, 1d, C)");
    Params p;
    p.array(a).array(b).array(prod).array(quot);
    run_host(ir, {v, v, v, v}, p, {{1, 1, 1}, {2, 1, 1}});
    CHECK(prod[0] == C(11, 2));
    CHECK(prod[1] == C(-1, 0));
    CHECK(quot[0].real() == Approx(-0.2));
    CHECK(quot[0].imag() == Approx(0.4));
    CHECK(quot[1] == C(1, 0));
  }
  SECTION("complex64") {
    using C = std::complex<float>;
    std::vector<C> a = {{1, 2}}, b = {{3, 4}}, prod(1), quot(1);
    Type v = T("array(complex64, 1d, C)");
    Params p;
    p.array(a).array(b).array(prod).array(quot);
    run_host(ir, {v, v, v, v}, p);
    CHECK(prod[0] == C(-5, 10));
    CHECK(quot[0].real() == Approx(0.44F));
    CHECK(quot[0].imag() == Approx(0.08F));
  }
}

TEST_CASE("a 2-d array with negative strides is addressed through its byte strides", "[lowering]") {
  // for r in range(a.shape[0]): for c in range(a.shape[1]): out[r, c] = a[r, c]
  std::string ir =
      module("a out",
             "(for@2:4 (name@2:8 r) (int@2:17 0) (subscript@2:17 (attr@2:17 (name@2:17 a) shape) "
             "(int@2:25 0)) (int@2:17 1)"
             " (block@3:8 (for@3:8 (name@3:12 c) (int@3:21 0) (subscript@3:21 (attr@3:21 "
             "(name@3:21 a) shape) (int@3:29 1)) (int@3:21 1)"
             "  (block@4:12 (assign@4:12 (subscript@4:12 (name@4:12 out) (tuple@4:16 (name@4:16 r) "
             "(name@4:19 c)))"
             "   (subscript@4:24 (name@4:24 a) (tuple@4:26 (name@4:26 r) (name@4:29 c))))))))");
  // buffer = [[0, 1, 2, 3], [10, 11, 12, 13], [20, 21, 22, 23]] (C order)
  std::vector<double> buffer = {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23};
  std::vector<double> out(12, -1);
  Type a_type = T("array(float64, 2d, A)");
  Type out_type = T("array(float64, 2d, C)");
  SECTION("rows reversed: buffer[::-1]") {
    Params p;
    p.array(buffer.data() + 8, {3, 4}, {-32, 8}).array(out.data(), {3, 4}, {32, 8});
    run_host(ir, {a_type, out_type}, p);
    CHECK(out == std::vector<double>{20, 21, 22, 23, 10, 11, 12, 13, 0, 1, 2, 3});
  }
  SECTION("both reversed and transposed: buffer[::-1, ::-1].T") {
    Params p;
    p.array(buffer.data() + 11, {4, 3}, {-8, -32}).array(out.data(), {4, 3}, {24, 8});
    run_host(ir, {a_type, out_type}, p);
    CHECK(out == std::vector<double>{23, 13, 3, 22, 12, 2, 21, 11, 1, 20, 10, 0});
  }
}

TEST_CASE("negative indices wrap, on strided arrays too", "[lowering]") {
  // out[0] = a[-1, 0]; out[1] = a[0, -1]; out[2] = a.strides[0]
  std::string ir =
      module("a out",
             "(assign@2:4 (subscript@2:4 (name@2:4 out) (int@2:8 0)) (subscript@2:13 (name@2:13 a)"
             " (tuple@2:15 (unary@2:15 - (int@2:16 1)) (int@2:19 0))))"
             "(assign@3:4 (subscript@3:4 (name@3:4 out) (int@3:8 1)) (subscript@3:13 (name@3:13 a)"
             " (tuple@3:15 (int@3:15 0) (unary@3:18 - (int@3:19 1)))))"
             "(assign@4:4 (subscript@4:4 (name@4:4 out) (int@4:8 2)) (subscript@4:13 (attr@4:13 "
             "(name@4:13 a) strides) (int@4:23 0)))");
  std::vector<double> buffer = {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23};
  std::vector<double> out(3, -1);
  Params p;
  p.array(buffer.data() + 8, {3, 4}, {-32, 8}).array(out);  // buffer[::-1]
  run_host(ir, {T("array(float64, 2d, A)"), T("array(float64, 1d, C)")}, p);
  CHECK(out == std::vector<double>{0, 23, -32});
}

TEST_CASE("a row view of a strided array keeps its strides", "[lowering]") {
  // row = a[1]; for c in range(len(row)): out[c] = row[c]
  std::string ir =
      module("a out",
             "(assign@2:4 (name@2:4 row) (subscript@2:10 (name@2:10 a) (int@2:12 1)))"
             "(for@3:4 (name@3:8 c) (int@3:17 0) (call@3:17 len (name@3:21 row)) (int@3:17 1)"
             " (block@4:8 (assign@4:8 (subscript@4:8 (name@4:8 out) (name@4:12 c)) (subscript@4:17 "
             "(name@4:17 row) (name@4:21 c)))))");
  std::vector<int32_t> buffer = {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23};
  std::vector<int32_t> out(3, -1);
  Params p;
  // buffer.reshape(3, 4).T[::-1]: shape (4, 3), row r is column 3 - r
  p.array(buffer.data() + 3, {4, 3}, {-4, 16}).array(out);
  run_host(ir, {T("array(int32, 2d, A)"), T("array(int32, 1d, C)")}, p);
  CHECK(out == std::vector<int32_t>{2, 12, 22});
}

TEST_CASE("bool arrays hold one byte per element, 0 or 1", "[lowering]") {
  // out[i] = a[i] and not b[i]
  std::string ir = per_element("a b out", "(assign@4:8 " + element("out") + " (and@4:17 " +
                                              element("a") + " (not@4:27 " + element("b") + ")))");
  std::vector<uint8_t> a = {1, 1, 0, 0}, b = {0, 1, 0, 1}, out(4, 7);
  Type v = T("array(bool, 1d, C)");
  Params p;
  p.array(a).array(b).array(out);
  run_host(ir, {v, v, v}, p, {{1, 1, 1}, {4, 1, 1}});
  CHECK(out == std::vector<uint8_t>{1, 0, 0, 0});
}

TEST_CASE("storing an integer into a bool array stores 0 or 1", "[lowering]") {
  // out[i] = x[i]
  std::string ir = per_element("x out", "(assign@4:8 " + element("out") + " " + element("x") + ")");
  std::vector<int64_t> x = {0, 2, -1, 256};
  std::vector<uint8_t> out(4, 7);
  Params p;
  p.array(x).array(out);
  run_host(ir, {T("array(int64, 1d, C)"), T("array(bool, 1d, C)")}, p, {{1, 1, 1}, {4, 1, 1}});
  CHECK(out == std::vector<uint8_t>{0, 1, 1, 1});
}

TEST_CASE("a bool scalar argument is passed as one byte", "[lowering]") {
  // out[0] = 10 if flag else 20
  std::string ir = module("flag out",
                          "(assign@2:4 (subscript@2:4 (name@2:4 out) (int@2:8 0))"
                          " (ifexp@2:13 (name@2:19 flag) (int@2:13 10) (int@2:29 20)))");
  for (uint8_t flag : {uint8_t{0}, uint8_t{1}}) {
    std::vector<int64_t> out(1, -1);
    Params p;
    p.scalar(flag).array(out);
    run_host(ir, {boolean, T("array(int64, 1d, C)")}, p);
    CHECK(out[0] == (flag ? 10 : 20));
  }
}

TEST_CASE("and/or give Python's operand values", "[lowering]") {
  // out[0] = a or 5; out[1] = a and 5; out[2] = b or a
  std::string ir = module(
      "a b out",
      "(assign@2:4 (subscript@2:4 (name@2:4 out) (int@2:8 0)) (or@2:13 (name@2:13 a) (int@2:18 5)))"
      "(assign@3:4 (subscript@3:4 (name@3:4 out) (int@3:8 1)) (and@3:13 (name@3:13 a) (int@3:19 "
      "5)))"
      "(assign@4:4 (subscript@4:4 (name@4:4 out) (int@4:8 2)) (or@4:13 (name@4:13 b) (name@4:18 "
      "a)))");
  std::vector<double> out(3, -1);
  Params p;
  p.scalar(int64_t{0}).scalar(2.5).array(out);
  run_host(ir, {i64, f64, T("array(float64, 1d, C)")}, p);
  CHECK(out == std::vector<double>{5, 0, 2.5});
}

TEST_CASE("a chained comparison is true only when every link is", "[lowering]") {
  // out[i] = 0 <= x[i] < 10
  std::string ir = per_element("x out", "(assign@4:8 " + element("out") +
                                            " (compare@4:17 (int@4:17 0) <= " + element("x") +
                                            " < (int@4:30 10)))");
  std::vector<int64_t> x = {-1, 0, 9, 10};
  std::vector<uint8_t> out(4, 7);
  Params p;
  p.array(x).array(out);
  run_host(ir, {T("array(int64, 1d, C)"), T("array(bool, 1d, C)")}, p, {{1, 1, 1}, {4, 1, 1}});
  CHECK(out == std::vector<uint8_t>{0, 1, 1, 0});
}

TEST_CASE("shifting by 64 or more gives 0, or -1 for a negative signed value", "[lowering]") {
  // out[i] = x[i] << s[i] for the first half, x[i] >> s[i] for the rest
  std::string ir =
      per_element("x s out", "(assign@4:8 " + element("out") +
                                 " (ifexp@4:17 (compare@4:22 (name@4:22 i) < (int@4:26 2))"
                                 " (binop@4:17 << " +
                                 element("x") + " " + element("s") + ") (binop@4:30 >> " +
                                 element("x") + " " + element("s") + ")))");
  std::vector<int64_t> x = {1, 1, -8, -8}, s = {3, 64, 1, 70}, out(4, 99);
  Type v = T("array(int64, 1d, C)");
  Params p;
  p.array(x).array(s).array(out);
  run_host(ir, {v, v, v}, p, {{1, 1, 1}, {4, 1, 1}});
  CHECK(out == std::vector<int64_t>{8, 0, -4, -1});
}

TEST_CASE("integer ** uses exact integer arithmetic", "[lowering]") {
  // out[i] = x[i] ** e[i]
  std::string ir = per_element("x e out", "(assign@4:8 " + element("out") + " (binop@4:17 ** " +
                                              element("x") + " " + element("e") + "))");
  std::vector<int64_t> x = {3, 2, -2, 7, -1}, e = {4, 62, 3, 0, -3}, out(5, 99);
  Type v = T("array(int64, 1d, C)");
  Params p;
  p.array(x).array(e).array(out);
  run_host(ir, {v, v, v}, p, {{1, 1, 1}, {5, 1, 1}});
  CHECK(out[0] == 81);
  CHECK(out[1] == (int64_t{1} << 62));
  CHECK(out[2] == -8);
  CHECK(out[3] == 1);
  CHECK(out[4] == -1);
}

TEST_CASE("a float stored into an int array truncates, NaN saturates to 0", "[lowering]") {
  std::string ir = per_element("x out", "(assign@4:8 " + element("out") + " " + element("x") + ")");
  std::vector<double> x = {2.9, -2.9, std::nan(""), 1e300};
  std::vector<int32_t> out(4, 99);
  Params p;
  p.array(x).array(out);
  run_host(ir, {T("array(float64, 1d, C)"), T("array(int32, 1d, C)")}, p, {{1, 1, 1}, {4, 1, 1}});
  CHECK(out[0] == 2);
  CHECK(out[1] == -2);
  CHECK(out[2] == 0);
  CHECK(out[3] == std::numeric_limits<int32_t>::max());
}

TEST_CASE("cuda.grid(2) indexes a 2-d launch", "[lowering]") {
  // x, y = cuda.grid(2); if x < out.shape[0] and y < out.shape[1]: out[x, y] = x * 10 + y
  std::string ir =
      module("out",
             "(assign@2:4 (tuple@2:4 (name@2:4 x) (name@2:7 y)) (call@2:11 cuda.grid (int@2:21 2)))"
             "(if@3:4 (and@3:7 (compare@3:7 (name@3:7 x) < (subscript@3:11 (attr@3:11 (name@3:11 "
             "out) shape) (int@3:21 0)))"
             "                 (compare@3:28 (name@3:28 y) < (subscript@3:32 (attr@3:32 (name@3:32 "
             "out) shape) (int@3:42 1))))"
             " (block@4:8 (assign@4:8 (subscript@4:8 (name@4:8 out) (tuple@4:12 (name@4:12 x) "
             "(name@4:15 y)))"
             "  (binop@4:20 + (binop@4:20 * (name@4:20 x) (int@4:24 10)) (name@4:29 y))))"
             " (block@3:4))");
  std::vector<int64_t> out(3 * 5, -1);
  Params p;
  p.array(out.data(), {3, 5}, {40, 8});
  run_host(ir, {T("array(int64, 2d, C)")}, p, {{2, 3, 1}, {2, 2, 1}});
  for (int64_t x = 0; x < 3; ++x)
    for (int64_t y = 0; y < 5; ++y) {
      INFO("x=" << x << " y=" << y);
      CHECK(out[x * 5 + y] == x * 10 + y);
    }
}
