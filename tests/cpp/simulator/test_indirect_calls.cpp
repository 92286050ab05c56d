// Indirect calls as the PTX ISA writes them ("call", ".callprototype", ".calltargets"): a
// function's address from `mov.u64 %rd, f` or a call table's initialiser, called through a
// register with a prototype, a .calltargets list or the table as the call's targets; and
// malloc/free, the driver's functions that numba-cuda's runtime (NRT) calls.
#include <catch2/catch.hpp>

#include "sim_harness.hpp"

using namespace cudajit::sim;
using namespace cudajit::sim::testing;
using Catch::Matchers::Contains;

namespace {

// The kernel's epilogue: out[tid] = %rd7 (64-bit).
const char* kStoreResult = R"(
	ld.param.u64 %rd1, [out];
	mul.wide.u32 %rd2, %r1, 8;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u64 [%rd3], %rd7;
	ret;
}
)";

// Even lanes call `twice` (.param formals), odd lanes `square` (.reg formals) through one
// prototype written as NVVM writes them; the warp is whole again after the call (activemask).
const std::string kPrototypeCall = std::string(R"(
.func (.param .b64 r) twice (.param .b64 v)
{
	.reg .b64 %x;
	ld.param.b64 %x, [v];
	add.s64 %x, %x, %x;
	st.param.b64 [r], %x;
	ret;
}
.func (.reg .b64 r) square (.reg .b64 v)
{
	mul.lo.s64 r, v, v;
	ret;
}
.visible .entry k(.param .u64 out)
{
	.reg .pred %p;
	.reg .b32 %r<4>;
	.reg .b64 %rd<10>;
	mov.u32 %r1, %tid.x;
	cvt.u64.u32 %rd4, %r1;
	and.b32 %r2, %r1, 1;
	setp.eq.u32 %p, %r2, 0;
	mov.u64 %rd5, twice;
	mov.u64 %rd6, square;
	selp.b64 %rd5, %rd5, %rd6, %p;
	{ // callseq 0, 0
	.param .b64 param0;
	st.param.b64 [param0+0], %rd4;
	.param .b64 retval0;
	prototype_0 : .callprototype (.param .b64 _) _ (.param .b64 _);
	call (retval0), %rd5, (param0), prototype_0;
	ld.param.b64 %rd7, [retval0+0];
	}
	activemask.b32 %r3;
	cvt.u64.u32 %rd8, %r3;
	shl.b64 %rd8, %rd8, 32;
	or.b64 %rd7, %rd7, %rd8;)") +
                                   kStoreResult;

// The manual's jump table, with 64-bit addresses: `.global .u64 tbl[3] = {add1, add2, add3};`,
// called with the table as the call's targets and again through a .calltargets list. 1000 is
// added where the table's second entry equals `mov.u64 %rd, add2`.
const std::string kCallTable = std::string(R"(
.func (.reg .u32 rv) add1 (.reg .u32 a)
{
	add.u32 rv, a, 1;
	ret;
}
.func (.reg .u32 rv) add2 (.reg .u32 a)
{
	add.u32 rv, a, 2;
	ret;
}
.func (.reg .u32 rv) add3 (.reg .u32 a)
{
	add.u32 rv, a, 3;
	ret;
}
.global .u64 tbl[3] = {add1, add2, add3};
.visible .entry k(.param .u64 out)
{
	.reg .pred %p;
	.reg .b32 %r<6>;
	.reg .b64 %rd<12>;
	mov.u32 %r1, %tid.x;
	rem.u32 %r2, %r1, 3;
	mul.wide.u32 %rd4, %r2, 8;
	mov.u64 %rd5, tbl;
	add.s64 %rd5, %rd5, %rd4;
	ld.global.u64 %rd6, [%rd5];
	call (%r3), %rd6, (%r1), tbl;
Ftgt: .calltargets add1, add2, add3;
	call (%r4), %rd6, (%r3), Ftgt;
	mov.u64 %rd9, add2;
	ld.global.u64 %rd10, [tbl+8];
	setp.eq.u64 %p, %rd9, %rd10;
	selp.u32 %r5, 1000, 0, %p;
	add.u32 %r4, %r4, %r5;
	cvt.u64.u32 %rd7, %r4;)") +
                               kStoreResult;

// A kernel whose lanes call through %rd5 (set by `setup`) with a one-parameter prototype.
std::string call_through(const std::string& setup, const std::string& functions = "",
                         const std::string& prototype = "(.param .b64 _)") {
  return functions + R"(
.func one (.param .b64 a)
{
	ret;
}
.func two (.param .b64 a, .param .b64 b)
{
	ret;
}
.visible .entry k(.param .u64 out)
{
	.reg .pred %p;
	.reg .b32 %r<2>;
	.reg .b64 %rd<8>;
	mov.u32 %r1, %tid.x;
	)" +
         setup + R"(
	{
	.param .b64 param0;
	st.param.b64 [param0], 7;
	proto : .callprototype _ )" +
         prototype + R"(;
	call %rd5, (param0), proto;
	}
	mov.u64 %rd7, 1;)" +
         kStoreResult;
}

ExecutionFault fault_of(const std::string& ptx) {
  try {
    run_with_output<uint64_t>(*load(ptx_module(ptx)), "k", 32, {32, 1, 1});
  } catch (const ExecutionFault& e) {
    return e;
  }
  FAIL("no fault");
  throw;
}

}  // namespace

TEST_CASE("an indirect call through a .callprototype, lanes calling different functions",
          "[simulator][exec][call][indirect]") {
  auto out = run_with_output<uint64_t>(*load(ptx_module(kPrototypeCall)), "k", 32, {32, 1, 1});
  for (uint64_t i = 0; i < 32; ++i) {
    INFO("lane " << i);
    REQUIRE(out[i] == ((0xFFFFFFFFull << 32) | (i % 2 == 0 ? 2 * i : i * i)));
  }
}

TEST_CASE("a call table in a global initialiser, and .calltargets",
          "[simulator][exec][call][indirect]") {
  auto program = load(ptx_module(kCallTable));
  auto out = run_with_output<uint64_t>(*program, "k", 40, {40, 1, 1});
  for (uint64_t i = 0; i < 40; ++i) REQUIRE(out[i] == i + 2 * (i % 3 + 1) + 1000);
  // The table holds addresses in the function window, which no host pointer takes.
  const Program::Global& table = *program->globals.front();
  uint64_t first;
  std::memcpy(&first, table.storage.data(), 8);
  REQUIRE((first & kWindowMask) == kFunctionWindow);
}

TEST_CASE("a function's address holds no data", "[simulator][exec][call][indirect]") {
  ExecutionFault e = fault_of(call_through("mov.u64 %rd5, one;\n\tld.u32 %r1, [%rd5];"));
  REQUIRE(e.fault() == Fault::IllegalAddress);
  REQUIRE_THAT(e.what(), Contains("the address of a function"));
  REQUIRE_THROWS_WITH(load(ptx_module(call_through("ld.global.u32 %r1, [one];"))),
                      Contains("'one' is a function"));
  // With .address_size 64 an address takes 8 bytes: a .u32 table cannot hold one.
  REQUIRE_THROWS_WITH(
      load(ptx_module(call_through("mov.u64 %rd5, one;", ".global .u32 t[1] = {one};\n"))),
      Contains("addresses take 8 bytes"));
}

TEST_CASE("an indirect call of a function that does not match the prototype faults",
          "[simulator][exec][call][indirect]") {
  ExecutionFault e = fault_of(call_through("mov.u64 %rd5, two;"));
  REQUIRE(e.fault() == Fault::IllegalInstruction);
  REQUIRE_THAT(e.what(), Contains("'two'") && Contains("do not match prototype 'proto'") &&
                             Contains("PTX line"));
  // Sizes count, names do not: a .b32 parameter where the prototype has .b64.
  ExecutionFault narrow = fault_of(call_through("mov.u64 %rd5, one;", "", "(.param .b32 _)"));
  REQUIRE(narrow.fault() == Fault::IllegalInstruction);
  // A kernel is not a function to call.
  ExecutionFault kernel = fault_of(call_through("mov.u64 %rd5, k;"));
  REQUIRE(kernel.fault() == Fault::IllegalInstruction);
  REQUIRE_THAT(kernel.what(), Contains("kernel 'k'"));
}

TEST_CASE("an indirect call through a pointer that is not a function's faults",
          "[simulator][exec][call][indirect]") {
  ExecutionFault null = fault_of(call_through("mov.u64 %rd5, 0;"));
  REQUIRE(null.fault() == Fault::IllegalAddress);
  REQUIRE_THAT(null.what(), Contains("null pointer") && Contains("not the address of a function"));
  // A data address, and a function's address moved off its start.
  ExecutionFault data = fault_of(call_through("ld.param.u64 %rd5, [out];"));
  REQUIRE(data.fault() == Fault::IllegalAddress);
  ExecutionFault inside = fault_of(call_through("mov.u64 %rd5, one;\n\tadd.s64 %rd5, %rd5, 4;"));
  REQUIRE(inside.fault() == Fault::IllegalAddress);
  // Only lane 5 has a bad pointer: the others' call runs first, then lane 5's faults.
  ExecutionFault lane = fault_of(
      call_through("mov.u64 %rd5, one;\n\tsetp.eq.u32 %p, %r1, 5;\n\t@%p mov.u64 %rd5, 16;"));
  REQUIRE(lane.fault() == Fault::IllegalAddress);
  REQUIRE_THAT(lane.what(), Contains("thread (5, 0, 0)"));
}

TEST_CASE("a function listed by neither .calltargets nor the table faults when called",
          "[simulator][exec][call][indirect]") {
  std::string text = kCallTable;
  // Lane 1's pointer is add1's address moved to a function outside the list.
  text.replace(text.find("\tcall (%r3)"), 0,
               "\tsetp.eq.u32 %p, %r1, 1;\n\t@%p mov.u64 %rd6, outside;\n");
  text = ".func (.reg .u32 rv) outside (.reg .u32 a)\n{\n\tret;\n}\n" + text;
  try {
    run_with_output<uint64_t>(*load(ptx_module(text)), "k", 32, {32, 1, 1});
    FAIL("no fault");
  } catch (const ExecutionFault& e) {
    REQUIRE(e.fault() == Fault::IllegalInstruction);
    REQUIRE_THAT(e.what(), Contains("'outside'") && Contains("'tbl' does not list"));
  }
}

TEST_CASE("a function pointer from another loaded module", "[simulator][exec][call][indirect]") {
  // Module A writes its function's address; module B's kernel calls it, as code addresses are
  // the context's on hardware. Once A is unloaded, the address is no function's.
  auto a = load(ptx_module(R"(
.func (.param .b64 r) plus5 (.param .b64 v)
{
	.reg .b64 %x;
	ld.param.b64 %x, [v];
	add.s64 %x, %x, 5;
	st.param.b64 [r], %x;
	ret;
}
.visible .entry k(.param .u64 out)
{
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [out];
	mov.u64 %rd2, plus5;
	st.global.u64 [%rd1], %rd2;
	ret;
}
)"));
  auto pointer = run_with_output<uint64_t>(*a, "k", 1, {1, 1, 1});
  const std::string b_text = ptx_module(R"(
.visible .entry k(.param .u64 out, .param .u64 f)
{
	.reg .b32 %r1;
	.reg .b64 %rd<8>;
	mov.u32 %r1, %tid.x;
	ld.param.u64 %rd5, [f];
	{
	.param .b64 param0;
	st.param.b64 [param0], 37;
	.param .b64 retval0;
	proto : .callprototype (.param .b64 _) _ (.param .b64 _);
	call (retval0), %rd5, (param0), proto;
	ld.param.b64 %rd7, [retval0];
	})" + std::string(kStoreResult));
  auto b = load(b_text);
  REQUIRE(run_with_output<uint64_t>(*b, "k", 1, {1, 1, 1}, {&pointer[0]})[0] == 42);
  a.reset();
  REQUIRE_THROWS_AS(run_with_output<uint64_t>(*b, "k", 1, {1, 1, 1}, {&pointer[0]}),
                    ExecutionFault);
}

TEST_CASE("malloc and free: the device heap", "[simulator][exec][call][heap]") {
  // Each thread allocates 24 bytes, writes and reads them back, and frees them; thread 0 also
  // asks for more than the heap holds (NULL) and frees NULL (nothing).
  const char* text = R"(
.extern .func (.param .b64 func_retval0) malloc (.param .b64 size);
.extern .func free (.param .b64 p);
.visible .entry k(.param .u64 out)
{
	.reg .pred %p;
	.reg .b32 %r<2>;
	.reg .b64 %rd<12>;
	mov.u32 %r1, %tid.x;
	{
	.param .b64 param0;
	st.param.b64 [param0], 24;
	.param .b64 retval0;
	call.uni (retval0), malloc, (param0);
	ld.param.b64 %rd4, [retval0];
	}
	cvt.u64.u32 %rd5, %r1;
	st.u64 [%rd4+16], %rd5;
	ld.u64 %rd6, [%rd4+16];
	and.b64 %rd8, %rd4, 15;
	add.s64 %rd7, %rd6, %rd8;
	setp.ne.u32 %p, %r1, 0;
	@%p bra $L_free;
	{
	.param .b64 param0;
	st.param.b64 [param0], 1099511627776;
	.param .b64 retval0;
	call (retval0), malloc, (param0);
	ld.param.b64 %rd9, [retval0];
	}
	add.s64 %rd7, %rd7, %rd9;
	{
	.param .b64 param0;
	st.param.b64 [param0], 0;
	call free, (param0);
	}
$L_free:
	{
	.param .b64 param0;
	st.param.b64 [param0], %rd4;
	call.uni free, (param0);
	}
	ld.param.u64 %rd1, [out];
	mul.wide.u32 %rd2, %r1, 8;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u64 [%rd3], %rd7;
	ret;
}
)";
  auto program = load(ptx_module(text));
  for (int run = 0; run < 2; ++run) {  // what the first launch freed is free for the second
    auto out = run_with_output<uint64_t>(*program, "k", 64, {64, 1, 1});
    for (uint64_t i = 0; i < 64; ++i) REQUIRE(out[i] == i);
  }
  // A pointer malloc did not return.
  std::string bad_free = text;
  const std::string freed = "st.param.b64 [param0], %rd4;";
  bad_free.replace(bad_free.find(freed), freed.size(), "st.param.b64 [param0], 64;");
  try {
    run_with_output<uint64_t>(*load(ptx_module(bad_free)), "k", 1, {1, 1, 1});
    FAIL("no fault");
  } catch (const ExecutionFault& e) {
    REQUIRE(e.fault() == Fault::IllegalAddress);
    REQUIRE_THAT(e.what(), Contains("free of 0x40"));
  }
}

TEST_CASE("the manual's .callprototype and .calltargets forms load; misuse is a load error",
          "[simulator][ptx][call][indirect]") {
  const char* prototypes = R"(
.func fastsin (.param .f32 x)
{
	ret;
}
.func fastcos (.param .f32 x)
{
	ret;
}
.visible .entry k()
{
	.reg .b64 %r0;
	.reg .f32 %f1;
	.reg .b32 %val;
Fproto1: .callprototype  _ ;
Fproto2: .callprototype  _ (.param .f32 _);
Fproto3: .callprototype  (.param .u32 _) _ ;
Fproto4: .callprototype  (.param .u32 _) _ (.param .f32 _);
Fproto5: .callprototype _ (.param .b8 _[12]);
Fproto6: .callprototype  _ (.param .f32 _) .noreturn;
calltgt:  .calltargets  fastsin, fastcos;
	mov.u64 %r0, fastsin;
	mov.f32 %f1, 0f00000000;
	call %r0, Fproto1;
	call (%val), %r0, (%f1), Fproto4;
	call %r0, (%f1), calltgt;
	call %r0, (%f1), Fproto6;
	ret;
}
)";
  auto program = load(ptx_module(prototypes));
  REQUIRE(program->find("k")->calls.size() == 4);
  REQUIRE(program->find("k")->calls[1].results.size() == 1);
  auto with_call = [&](const std::string& directive, const std::string& call) {
    std::string text = prototypes;
    text.replace(text.find("calltgt:"), 0, directive + "\n");
    text.replace(text.rfind("\tret;"), 0, "\t" + call + "\n");
    return ptx_module(text);
  };
  REQUIRE_THROWS_WITH(load(with_call("", "call %r0, (%f1);")), Contains("names its targets"));
  REQUIRE_THROWS_WITH(
      load(with_call("bad: .calltargets fastsin, nowhere;", "call %r0, (%f1), bad;")),
      Contains("'nowhere', which is not a function"));
  REQUIRE_THROWS_WITH(load(with_call("", "call %r0, (%f1), nothing;")),
                      Contains("'nothing' is not a .callprototype"));
  REQUIRE_THROWS_WITH(load(with_call("", "call %r0, (%f1, %f1), Fproto2;")),
                      Contains("passes 2 arguments, it declares 1"));
  REQUIRE_THROWS_WITH(load(with_call("", "call fastsin, (%f1), Fproto2;")),
                      Contains("names call targets"));
  REQUIRE_THROWS_WITH(load(with_call("Fproto1: .callprototype _ ;", "")),
                      Contains("declared twice"));
  REQUIRE_THROWS_WITH(load(with_call("bad: .callprototype (.param .u32 _) _ .noreturn;", "")),
                      Contains(".noreturn"));
}
