// The PTX parser: directives, declarations, scoped names, and errors naming the line.
#include <catch2/catch.hpp>

#include "ptx/module.hpp"
#include "sim_harness.hpp"

using namespace cudajit::sim;

TEST_CASE("the parser reads a kernel's header, registers and instructions", "[simulator][ptx]") {
  auto module = ptx::parse(testing::ptx_module(R"(
.visible .entry k(
	.param .u64 .ptr .global .align 1 k_param_0,
	.param .u32 k_param_1
)
.reqntid 64, 1, 1
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<3>;
	ld.param.u64 	%rd1, [k_param_0];
	@%p1 bra 	$L__BB0_2;
	add.s32 	%r2, %r1, -1;
$L__BB0_2:
	ret;
}
)"));
  REQUIRE(module.version_major == 7);
  REQUIRE(module.target == "sm_80");
  const ptx::Function* k = module.find_function("k");
  REQUIRE(k != nullptr);
  REQUIRE(k->is_entry);
  REQUIRE(k->params.size() == 2);
  REQUIRE(k->registers.size() == 2 + 4 + 3);
  REQUIRE(k->reqntid[0] == 64);
  REQUIRE(k->body.size() == 4);
  REQUIRE(k->body[1].guard == "%p1");
  REQUIRE(k->body[2].opcode == "add");
  REQUIRE(k->body[2].modifiers == std::vector<std::string>{"s32"});
  REQUIRE(int64_t(k->body[2].operands[2].bits) == -1);
  REQUIRE(k->labels.at("$L__BB0_2") == 3);
}

TEST_CASE("names declared in a call block are unique per block", "[simulator][ptx]") {
  auto module = ptx::parse(testing::ptx_module(R"(
.func (.param .b32 f_retval0) f(.param .b32 f_param_0)
{
	.reg .b32 %r<2>;
	ld.param.b32 %r1, [f_param_0];
	st.param.b32 [f_retval0], %r1;
	ret;
}
.visible .entry k()
{
	.reg .b32 %r<3>;
	{ .param .b32 param0; st.param.b32 [param0], %r1;
	.param .b32 retval0;
	call.uni (retval0), f, (param0); ld.param.b32 %r2, [retval0]; }
	{ .param .b32 param0; st.param.b32 [param0], %r2; }
	ret;
}
)"));
  const ptx::Function* k = module.find_function("k");
  REQUIRE(k->call_params.size() == 3);
  REQUIRE(k->call_params[0].name != k->call_params[2].name);
  REQUIRE(k->body[0].operands[0].name == k->call_params[0].name);
  REQUIRE(k->body[3].operands[0].name == k->call_params[2].name);
}

TEST_CASE("an unknown instruction is an error naming its line", "[simulator][ptx]") {
  std::string text = testing::ptx_module(R"(.visible .entry k()
{
	frobnicate.u32 %r1;
	ret;
}
)");
  try {
    testing::load(text);
    FAIL("no error");
  } catch (const ptx::PtxError& e) {
    REQUIRE(e.line() == 7);
    REQUIRE(std::string(e.what()).find("frobnicate") != std::string::npos);
  }
}

TEST_CASE("a module without .version or .target is refused", "[simulator][ptx]") {
  REQUIRE_THROWS_WITH(ptx::parse(".target sm_80\n"), Catch::Contains("missing .version"));
  REQUIRE_THROWS_WITH(ptx::parse(".version 7.0\n"), Catch::Contains("missing .target"));
}

TEST_CASE("declared names follow PTX's identifier grammar", "[simulator][ptx]") {
  // LLVM uniquing "shared_array" to "shared_array.1" is not valid PTX; ptxas refuses it too.
  REQUIRE_THROWS_WITH(ptx::parse(testing::ptx_module(".shared .align 4 .b8 shared_array.1[16];\n")),
                      Catch::Contains("invalid identifier 'shared_array.1' for a name"));
  REQUIRE_THROWS_WITH(ptx::parse(testing::ptx_module(".visible .entry k.x()\n{\n\tret;\n}\n")),
                      Catch::Contains("invalid identifier 'k.x' for a function name"));
  REQUIRE_THROWS_WITH(ptx::parse(testing::ptx_module(".global .b8 _[1];\n")),
                      Catch::Contains("invalid identifier '_'"));
  REQUIRE_NOTHROW(
      ptx::parse(testing::ptx_module(".global .b8 $name_$_1[1];\n.global .b8 x9[1];\n")));
}

TEST_CASE("directives written together and scoped state spaces read as ptxas reads them",
          "[simulator][ptx]") {
  // cuda_fp16.h's inline PTX declares "{.reg.b16 low, high; ...}"; newer PTX writes
  // ld.shared::cta for the executing CTA's shared memory.
  auto program = testing::load(testing::ptx_module(R"(
.visible .entry k(.param .u64 out) {
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	.shared .align 4 .b32 cell;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, 0x00050003;
	{.reg.b16 low, high;
	mov.b32 {low, high}, %r1;
	cvt.u32.u16 %r2, high;
	}
	st.shared::cta.u32 [cell], %r2;
	ld.shared::cta.u32 %r3, [cell];
	st.global.u32 [%rd1], %r3;
	ret;
}
)"));
  REQUIRE(testing::run_with_output<uint32_t>(*program, "k", 1, {1, 1, 1})[0] == 5u);
}
