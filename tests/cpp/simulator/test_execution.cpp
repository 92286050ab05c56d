// The execution model: SIMT divergence and reconvergence, calls, barriers, local
// memory, and the faults a bad access or a bad launch raises.
#include <catch2/catch.hpp>

#include "sim_harness.hpp"

using namespace cudajit::sim;
using namespace cudajit::sim::testing;
using Catch::Matchers::Contains;

namespace {

// Each thread i: out[i] = (i odd ? 100 + i : 200 + i) via a divergent if/else, then
// out[i] += %lanemask_lt's popcount of active lanes after reconvergence (the whole warp).
const char* kDivergence = R"(
.visible .entry k(.param .u64 out, .param .u32 n)
{
	.reg .pred %p<3>;
	.reg .b32 %r<10>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 1;
	setp.eq.s32 %p1, %r2, 1;
	@%p1 bra ODD;
	add.s32 %r3, %r1, 200;
	bra.uni JOIN;
ODD:
	add.s32 %r3, %r1, 100;
JOIN:
	activemask.b32 %r4;
	popc.b32 %r5, %r4;
	add.s32 %r6, %r3, %r5;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r6;
	ret;
}
)";

}  // namespace

TEST_CASE("divergent branches reconverge at their post-dominator", "[simulator][exec]") {
  uint32_t n = 64;
  auto out = run_with_output<uint32_t>(*load(ptx_module(kDivergence)), "k", 64, {64, 1, 1}, {&n});
  for (uint32_t i = 0; i < 64; ++i) REQUIRE(out[i] == (i % 2 ? 100 + i : 200 + i) + 32);
}

namespace {

// out[tid] = square(tid) through a .func, called only by even threads (odd ones store 7).
const char* kCall = R"(
.func (.param .b32 sq_ret) square(.param .b32 sq_x)
{
	.reg .b32 %r<3>;
	ld.param.b32 %r1, [sq_x];
	mul.lo.s32 %r2, %r1, %r1;
	st.param.b32 [sq_ret], %r2;
	ret;
}
.visible .entry k(.param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r3, 7;
	and.b32 %r4, %r1, 1;
	setp.ne.s32 %p1, %r4, 0;
	@%p1 bra STORE;
	{
	.param .b32 param0;
	st.param.b32 [param0], %r1;
	.param .b32 retval0;
	call.uni (retval0), square, (param0);
	ld.param.b32 %r3, [retval0];
	}
STORE:
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	ret;
}
)";

}  // namespace

TEST_CASE("a call passes .param values in and its result out, per thread", "[simulator][exec]") {
  auto out = run_with_output<uint32_t>(*load(ptx_module(kCall)), "k", 40, {40, 1, 1});
  for (uint32_t i = 0; i < 40; ++i) REQUIRE(out[i] == (i % 2 ? 7 : i * i));
}

namespace {

// Shared-memory reversal across warps: needs the barrier to be honoured.
const char* kReverse = R"(
.shared .align 4 .b32 tile[256];
.visible .entry k(.param .u64 data)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [data];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	ld.global.u32 %r2, [%rd3];
	mov.u32 %r3, tile;
	shl.b32 %r4, %r1, 2;
	add.s32 %r5, %r3, %r4;
	st.shared.u32 [%r5], %r2;
	bar.sync 0;
	sub.s32 %r6, 1020, %r4;
	add.s32 %r7, %r3, %r6;
	ld.shared.u32 %r2, [%r7];
	st.global.u32 [%rd3], %r2;
	ret;
}
)";

// A barrier inside a branch only some threads take: hardware would hang.
const char* kDivergentBarrier = R"(
.visible .entry k()
{
	.reg .pred %p<2>;
	.reg .b32 %r<2>;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra SKIP;
	bar.sync 0;
SKIP:
	ret;
}
)";

}  // namespace

TEST_CASE("bar.sync makes every warp's shared stores visible to the block", "[simulator][exec]") {
  auto program = load(ptx_module(kReverse));
  TestMemory memory;
  std::vector<uint32_t> values(256);
  for (uint32_t i = 0; i < 256; ++i) values[i] = i * 3 + 1;
  uint32_t* data = memory.buffer(values);
  uint64_t address = uint64_t(uintptr_t(data));
  launch(*program, "k", {1, 1, 1}, {256, 1, 1}, {&address}, memory.memory);
  for (uint32_t i = 0; i < 256; ++i) REQUIRE(data[i] == (255 - i) * 3 + 1);
}

TEST_CASE("function-scope .shared (LLVM's demoted variables) is per block and per name",
          "[simulator][exec]") {
  // The same reversal with the array declared in the kernel's body, beside a
  // module-scope array and another function's array of the same name.
  std::string text = kReverse;
  auto replace = [&](const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
  };
  replace(".shared .align 4 .b32 tile[256];",
          ".shared .align 4 .b32 other[4];\n.visible .func f()\n{\n"
          "\t.shared .align 4 .b32 tile[256];\n\tret;\n}");
  replace("\t.reg .b32 %r<8>;", "\t.shared .align 4 .b32 tile[256];\n\t.reg .b32 %r<8>;");
  auto program = load(ptx_module(text.c_str()));
  TestMemory memory;
  std::vector<uint32_t> values(256);
  for (uint32_t i = 0; i < 256; ++i) values[i] = i * 5;
  uint32_t* data = memory.buffer(values);
  uint64_t address = uint64_t(uintptr_t(data));
  launch(*program, "k", {1, 1, 1}, {256, 1, 1}, {&address}, memory.memory);
  for (uint32_t i = 0; i < 256; ++i) REQUIRE(data[i] == (255 - i) * 5);
}

TEST_CASE("threads that exited do not hold a barrier up", "[simulator][exec]") {
  auto program = load(ptx_module(kDivergentBarrier));
  TestMemory memory;
  // 64 threads: lanes 0-15 of warp 0 exit without the barrier; the other 48 pass it.
  REQUIRE_NOTHROW(launch(*program, "k", {1, 1, 1}, {64, 1, 1}, {}, memory.memory));
}

namespace {

// Even and odd threads each store to shared memory and pass a different barrier.sync of the
// same barrier (BARRIER, filled in below); after it each reads its neighbour's value.
const char* kTwoSidedBarrier = R"(
.shared .align 4 .b32 cells[64];
.visible .entry k(.param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<10>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, cells;
	shl.b32 %r3, %r1, 2;
	add.s32 %r4, %r2, %r3;
	and.b32 %r5, %r1, 1;
	setp.eq.s32 %p1, %r5, 1;
	@%p1 bra ODD;
	add.s32 %r6, %r1, 1000;
	st.shared.u32 [%r4], %r6;
	BARRIER 0;
	bra.uni JOIN;
ODD:
	add.s32 %r6, %r1, 2000;
	st.shared.u32 [%r4], %r6;
	BARRIER 0;
JOIN:
	xor.b32 %r7, %r3, 4;
	add.s32 %r8, %r2, %r7;
	ld.shared.u32 %r9, [%r8];
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r9;
	ret;
}
)";

std::string two_sided_barrier(const std::string& barrier) {
  std::string text = kTwoSidedBarrier;
  for (size_t at; (at = text.find("BARRIER")) != std::string::npos;) text.replace(at, 7, barrier);
  return text;
}

}  // namespace

TEST_CASE("both sides of a divergent branch may meet at the block's barrier.sync",
          "[simulator][exec]") {
  auto out = run_with_output<uint32_t>(*load(ptx_module(two_sided_barrier("barrier.sync"))), "k",
                                       64, {64, 1, 1});
  for (uint32_t i = 0; i < 64; ++i) {
    uint32_t neighbour = i ^ 1;
    REQUIRE(out[i] == neighbour + (neighbour % 2 ? 2000 : 1000));
  }
}

TEST_CASE("a warp reaching two different aligned barriers faults (undefined on a GPU)",
          "[simulator][exec]") {
  for (const char* barrier : {"bar.sync", "barrier.sync.aligned"}) {
    auto program = load(ptx_module(two_sided_barrier(barrier)));
    TestMemory memory;
    uint32_t* out = memory.buffer(std::vector<uint32_t>(64));
    uint64_t address = uint64_t(uintptr_t(out));
    try {
      launch(*program, "k", {1, 1, 1}, {64, 1, 1}, {&address}, memory.memory);
      FAIL("no fault with " << barrier);
    } catch (const ExecutionFault& e) {
      REQUIRE(e.fault() == Fault::IllegalInstruction);
      REQUIRE_THAT(std::string(e.what()), Contains("an aligned barrier") &&
                                              Contains("wait at another") &&
                                              Contains("kernel 'k'"));
    }
  }
}

namespace {

// out[tid] = tid, writing one element past the buffer for the last thread.
const char* kOutOfBounds = R"(
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	add.s32 %r2, %r1, 1;
	mul.wide.u32 %rd2, %r2, 4;
	add.s64 %rd3, %rd1, %rd2;
	.loc 1 7 5
	st.global.u32 [%rd3], %r1;
	ret;
}
)";

}  // namespace

TEST_CASE("an access past an allocation faults naming the kernel, thread and source line",
          "[simulator][exec]") {
  auto program = load(ptx_module(".file 1 \"/tmp/kernels.py\"\n" + std::string(kOutOfBounds)));
  TestMemory memory;
  uint32_t* out = memory.buffer(std::vector<uint32_t>(32));
  uint64_t address = uint64_t(uintptr_t(out));
  try {
    launch(*program, "k", {1, 1, 1}, {32, 1, 1}, {&address}, memory.memory);
    FAIL("no fault");
  } catch (const ExecutionFault& e) {
    REQUIRE(e.fault() == Fault::IllegalAddress);
    std::string text = e.what();
    REQUIRE_THAT(text, Contains("kernel 'k'"));
    REQUIRE_THAT(text, Contains("thread (31, 0, 0)"));
    REQUIRE_THAT(text, Contains("/tmp/kernels.py:7"));
    REQUIRE_THAT(text, Contains("0 bytes past the end"));
  }
}

TEST_CASE("a launch whose parameter count differs from the entry's is refused",
          "[simulator][exec]") {
  auto program = load(ptx_module(kOutOfBounds));
  TestMemory memory;
  REQUIRE_THROWS_WITH(launch(*program, "k", {1, 1, 1}, {1, 1, 1}, {}, memory.memory),
                      Contains("takes 1 parameters, the launch passed 0"));
}

namespace {

// out[tid] = bar.red.<op> over the block of (tid < limit), for 96 threads (3 warps).
std::vector<uint32_t> block_reduction(const std::string& reduce, uint32_t limit) {
  std::string text =
      ".visible .entry k(.param .u64 out, .param .u32 limit)\n{\n\t.reg .pred %p<3>;\n"
      "\t.reg .b32 %r<5>;\n\t.reg .b64 %rd<4>;\n\tmov.u32 %r1, %tid.x;\n"
      "\tld.param.u32 %r2, [limit];\n\tsetp.lt.u32 %p1, %r1, %r2;\n\t";
  text.append(reduce);
  text.append(
      "\n\tld.param.u64 %rd1, [out];\n\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;"
      "\n\tst.global.u32 [%rd3], %r3;\n\tret;\n}\n");
  return run_with_output<uint32_t>(*load(ptx_module(text)), "k", 96, {96, 1, 1}, {&limit});
}

}  // namespace

TEST_CASE("bar.red counts, ands and ors a predicate over the whole block", "[simulator][exec]") {
  REQUIRE(block_reduction("bar.red.popc.u32 %r3, 0, %p1;", 40) == std::vector<uint32_t>(96, 40));
  REQUIRE(block_reduction("bar.red.popc.u32 %r3, 0, !%p1;", 40) == std::vector<uint32_t>(96, 56));
  const char* all = "bar.red.and.pred %p2, 0, %p1;\n\tselp.u32 %r3, 1, 0, %p2;";
  const char* any = "bar.red.or.pred %p2, 0, %p1;\n\tselp.u32 %r3, 1, 0, %p2;";
  REQUIRE(block_reduction(all, 96) == std::vector<uint32_t>(96, 1));
  REQUIRE(block_reduction(all, 95) == std::vector<uint32_t>(96, 0));
  REQUIRE(block_reduction(any, 1) == std::vector<uint32_t>(96, 1));
  REQUIRE(block_reduction(any, 0) == std::vector<uint32_t>(96, 0));
}
