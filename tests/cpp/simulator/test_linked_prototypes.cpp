// Modules linked with another view of a function's prototype: the driver's linker joins the
// modules' machine code and checks no prototype (an ELF symbol has none), so a call as the
// caller's module declared it runs; what the callee does not return is undefined. numba-cuda's
// declare_device(..., abi="c") declares a void C function with a result.
#include <catch2/catch.hpp>

#include "link/ptx_linker.hpp"
#include "sim_harness.hpp"

using namespace cudajit::sim;
using namespace cudajit::sim::testing;
using Catch::Matchers::Contains;

namespace {

// The caller declares consume as returning a .b64, as numba-cuda does for a void C function.
const char* kCaller = R"(.version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b64 func_retval0) consume(.param .b32 consume_param_0);
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	{
	.param .b32 param0;
	st.param.b32 [param0], %r1;
	.param .b64 retval0;
	call.uni (retval0), consume, (param0);
	ld.param.b64 %rd2, [retval0];
	}
	shl.b32 %r2, %r1, 1;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd3, %rd1, %rd3;
	st.global.u32 [%rd3], %r2;
	ret;
}
)";

const char* kCallee = R"(.version 8.0
.target sm_80
.address_size 64
.visible .func consume(.param .b32 consume_param_0)
{
	.reg .b32 %r<2>;
	ld.param.u32 %r1, [consume_param_0];
	ret;
}
)";

}  // namespace

TEST_CASE("a call as another linked module declared its callee runs", "[simulator][link]") {
  link::PtxLinker linker;
  linker.add_ptx(kCaller, "caller.ptx");
  linker.add_ptx(kCallee, "callee.ptx");
  auto program = load(linker.link());
  auto out = run_with_output<uint32_t>(*program, "k", 32, {32, 1, 1});
  for (uint32_t t = 0; t < 32; ++t) REQUIRE(out[t] == 2 * t);
}

TEST_CASE("a call that matches neither the definition nor a declaration is refused",
          "[simulator][link]") {
  // Two arguments: no module declared consume so.
  std::string caller = kCaller;
  caller.replace(caller.find("(param0);"), 9, "(param0, param0);");
  link::PtxLinker linker;
  linker.add_ptx(caller, "caller.ptx");
  linker.add_ptx(kCallee, "callee.ptx");
  REQUIRE_THROWS_WITH(load(linker.link()), Contains("passes 2 arguments, it declares 1"));
}
