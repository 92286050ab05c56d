// Calls as the PTX ISA writes them (5.1.6.4 "Device Function Parameters", 7.1 "Function
// declarations and definitions"): formal parameters and returns in .reg or .param space,
// arguments that are .param variables, registers or constants.
#include <catch2/catch.hpp>

#include "sim_harness.hpp"

using namespace cudajit::sim;
using namespace cudajit::sim::testing;
using Catch::Matchers::Contains;

namespace {

// The manual's `.func (.reg .b32 rval) foo (.reg .b32 N, .reg .f64 dbl)`, called with registers
// and with constants: out[i] = foo(i, 2.5 * i) + foo(7, 2.0) = (i + trunc(2.5 i)) + 9.
const char* kRegisterParameters = R"(
.func (.reg .b32 rval) foo (.reg .b32 N, .reg .f64 dbl)
{
	.reg .b32 localVar;
	cvt.rzi.s32.f64 localVar, dbl;
	add.s32 rval, N, localVar;
	ret;
}
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<5>;
	.reg .f64 %fd<3>;
	.reg .b64 %rd<4>;
	mov.u32 %r1, %tid.x;
	cvt.rn.f64.u32 %fd1, %r1;
	mul.f64 %fd2, %fd1, 0d4004000000000000;
	call (%r2), foo, (%r1, %fd2);
	call (%r3), foo, (7, 0d4000000000000000);
	add.s32 %r4, %r2, %r3;
	ld.param.u64 %rd1, [out];
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r4;
	ret;
}
)";

// The manual's struct example: `.func (.reg .s32 out) bar (.reg .s32 x, .param .align 8 .b8
// y[12])`, the byte array filled in a call block; out[i] = x + (int)y.f64 + y[8] + y[11].
const char* kMixedParameters = R"(
.func (.reg .s32 out) bar (.reg .s32 x, .param .align 8 .b8 y[12])
{
	.reg .f64 f1;
	.reg .b32 c1, c4, t;
	ld.param.f64 f1, [y+0];
	ld.param.b8 c1, [y+8];
	ld.param.b8 c4, [y+11];
	cvt.rzi.s32.f64 t, f1;
	add.s32 t, t, x;
	add.s32 t, t, c1;
	add.s32 out, t, c4;
	ret;
}
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .f64 %fd1;
	.reg .b64 %rd<4>;
	mov.u32 %r1, %tid.x;
	cvt.rn.f64.u32 %fd1, %r1;
	{
	.param .align 8 .b8 py[12];
	st.param.f64 [py+0], %fd1;
	st.param.b8 [py+8], 3;
	st.param.b8 [py+11], 40;
	call (%r2), bar, (%r1, py);
	}
	ld.param.u64 %rd1, [out];
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r2;
	ret;
}
)";

// A .param formal with a register argument, and a .param return read into a register.
const char* kParamFormalRegisterActual = R"(
.func (.param .b64 r) twice (.param .b64 v)
{
	.reg .b64 %x;
	ld.param.b64 %x, [v];
	add.s64 %x, %x, %x;
	st.param.b64 [r], %x;
	ret;
}
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r1;
	.reg .b64 %rd<6>;
	mov.u32 %r1, %tid.x;
	cvt.u64.u32 %rd4, %r1;
	add.s64 %rd4, %rd4, 4294967296;
	call (%rd5), twice, (%rd4);
	ld.param.u64 %rd1, [out];
	mul.wide.u32 %rd2, %r1, 8;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u64 [%rd3], %rd5;
	ret;
}
)";

}  // namespace

TEST_CASE("a .func takes and returns .reg parameters, from registers and from constants",
          "[simulator][exec][call]") {
  auto out = run_with_output<uint32_t>(*load(ptx_module(kRegisterParameters)), "k", 40, {40, 1, 1});
  for (uint32_t i = 0; i < 40; ++i) REQUIRE(out[i] == i + uint32_t(2.5 * i) + 9);
}

TEST_CASE("a .reg parameter and a .param byte array in one call", "[simulator][exec][call]") {
  auto out = run_with_output<uint32_t>(*load(ptx_module(kMixedParameters)), "k", 33, {33, 1, 1});
  for (uint32_t i = 0; i < 33; ++i) REQUIRE(out[i] == 2 * i + 43);
}

TEST_CASE("a register passed for a .param formal, a .param return read into a register",
          "[simulator][exec][call]") {
  auto out =
      run_with_output<uint64_t>(*load(ptx_module(kParamFormalRegisterActual)), "k", 32, {32, 1, 1});
  for (uint64_t i = 0; i < 32; ++i) REQUIRE(out[i] == 2 * (i + (1ull << 32)));
}

TEST_CASE(".reg parameters must be scalars of 32 bits or more, and never a kernel's",
          "[simulator][ptx][call]") {
  REQUIRE_THROWS_WITH(load(ptx_module(".func f (.reg .b16 h)\n{\n\tret;\n}\n")),
                      Contains("PTX line 5") && Contains("at least 32 bits"));
  REQUIRE_THROWS_WITH(load(ptx_module(".visible .entry k (.reg .b32 n)\n{\n\tret;\n}\n")),
                      Contains("must be in .param space"));
}
