// debug=True's debug information (lower/debug_info.cpp, debug_types.cpp) on
// hand-written kernel IR: the variables and types in the LLVM IR, DWARF
// sections in the PTX that ptxas accepts at -O3 and -O0, and code generation
// that a debug or -O0 module leaves unchanged for the next one.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "cudajit/compiler/compile.hpp"
#include "cudajit/compiler/target.hpp"
#include "cudajit/compiler/types.hpp"
#include "ptxas.hpp"
#include "samples.hpp"

using Catch::Matchers::Contains;
using cudajit::CompileOptions;
using cudajit::Program;
using cudajit::Type;
using cudajit::testing::kSaxpyIr;

namespace {

std::vector<Type> saxpy_args() {
  const Type v = cudajit::parse_type("array(float32, 1d, C)");
  return {cudajit::parse_type("float32"), v, v, v};
}

CompileOptions debug_options(int opt_level) {
  CompileOptions options;
  options.debug = true;
  options.opt_level = opt_level;
  options.keep_llvm_ir = true;
  return options;
}

}  // namespace

TEST_CASE("debug describes each Python variable with its type and line", "[debug_info]") {
  const std::string llvm_ir =
      Program(kSaxpyIr).compile_ptx(saxpy_args(), false, debug_options(0)).llvm_ir;
  CHECK_THAT(llvm_ir, Contains("emissionKind: FullDebug"));
  CHECK_THAT(llvm_ir, Contains("isOptimized: false"));
  CHECK_THAT(llvm_ir, Contains("!DILocalVariable(name: \"a\", arg: 1, scope:"));
  CHECK_THAT(llvm_ir, Contains("!DILocalVariable(name: \"out\", arg: 4, scope:"));
  CHECK_THAT(llvm_ir, Contains("!DILocalVariable(name: \"i\", scope:"));
  CHECK_THAT(llvm_ir, Contains("line: 3, type:"));  // i = cuda.grid(1)
  CHECK_THAT(llvm_ir,
             Contains("!DIBasicType(name: \"float32\", size: 32, encoding: DW_ATE_float)"));
  CHECK_THAT(llvm_ir, Contains("name: \"array(float32, 1d, C)\", size: 192"));
}

TEST_CASE("debug makes a rebound variable one variable of a union in one slot", "[debug_info]") {
  // v = n; out[0] = v; v = 1.5; out[1] = v: two webs, int64 then float64, one slot.
  const char* ir = R"((module "rebound.py"
 (func@1:0 rebound (params n out)
  (assign@2:4 (name@2:4 v) (name@2:8 n))
  (assign@3:4 (subscript@3:4 (name@3:4 out) (int@3:8 0)) (name@3:13 v))
  (assign@4:4 (name@4:4 v) (float@4:8 1.5))
  (assign@5:4 (subscript@5:4 (name@5:4 out) (int@5:8 1)) (name@5:13 v))))
)";
  const std::vector<Type> args{cudajit::parse_type("int64"),
                               cudajit::parse_type("array(float64, 1d, C)")};
  const std::string llvm_ir = Program(ir).compile_ptx(args, false, debug_options(0)).llvm_ir;
  CHECK_THAT(llvm_ir, Contains("!DILocalVariable(name: \"v\", scope:"));
  CHECK_THAT(llvm_ir,
             Contains("tag: DW_TAG_union_type, name: \"union(float64, int64)\", size: 64"));
  CHECK_THAT(llvm_ir, Contains("!DIDerivedType(tag: DW_TAG_member, name: \"_float64\""));
  CHECK_THAT(llvm_ir, Contains("!DIDerivedType(tag: DW_TAG_member, name: \"_int64\""));
  CHECK_THAT(llvm_ir, Contains("%v = alloca i64, align 8"));
  CHECK_THAT(llvm_ir, Contains("store double 1.500000e+00, ptr %v,"));
  CHECK(llvm_ir.find("name: \"v#") == std::string::npos);
  CHECK(llvm_ir.find("#2\" = alloca") == std::string::npos);
}

TEST_CASE("debug PTX carries DWARF sections that ptxas accepts", "[debug_info]") {
  const std::string ptxas = cudajit::testing::ptxas_path();
  for (int opt_level : {3, 0}) {
    const std::string ptx =
        Program(kSaxpyIr).compile_ptx(saxpy_args(), false, debug_options(opt_level)).ptx;
    INFO("-O" << opt_level);
    CHECK_THAT(ptx, Contains(".target sm_80, debug"));
    CHECK_THAT(ptx, Contains(".section\t.debug_info"));
    CHECK_THAT(ptx, !Contains(".debug_pubnames"));  // needs PTX ISA 7.5
    if (ptxas.empty()) continue;
    std::string output;
    const int status = cudajit::testing::run_ptxas(ptxas, ptx, "sm_80", output);
    INFO(output);
    CHECK(status == 0);
  }
}

TEST_CASE("a debug or -O0 module leaves the next module's PTX as it was", "[debug_info]") {
  CompileOptions plain;
  CompileOptions lines;
  lines.lineinfo = true;
  const std::string before = Program(kSaxpyIr).compile_ptx(saxpy_args(), false, plain).ptx;
  const std::string before_lines = Program(kSaxpyIr).compile_ptx(saxpy_args(), false, lines).ptx;
  Program(kSaxpyIr).compile_ptx(saxpy_args(), false, debug_options(0));
  Program(kSaxpyIr).compile_ptx(saxpy_args(), false, debug_options(3));
  CHECK(Program(kSaxpyIr).compile_ptx(saxpy_args(), false, plain).ptx == before);
  CHECK(Program(kSaxpyIr).compile_ptx(saxpy_args(), false, lines).ptx == before_lines);
}
