// The launch profile (exec/profile.hpp): sectors, bank conflicts, divergent branches and
// instruction counts on hand-made accesses whose figures are known.
#include <catch2/catch.hpp>

#include "sim_harness.hpp"

using namespace cudajit::sim;
using namespace cudajit::sim::testing;

namespace {

// One warp: v = in[tid * stride]; shared[tid * sstride] = v; w = shared[bcast]; then odd lanes
// take a branch; out[tid] = v + w.
const char* kAccesses = R"(
.visible .entry k(.param .u64 out, .param .u64 in, .param .u32 stride, .param .u32 sstride)
{
	.shared .align 4 .b8 tile[4096];
	.reg .pred %p<2>;
	.reg .b32 %r<12>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [in];
	ld.param.u32 %r1, [stride];
	ld.param.u32 %r2, [sstride];
	mov.u32 %r3, %tid.x;
	mul.lo.s32 %r4, %r3, %r1;
	mul.wide.u32 %rd3, %r4, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.f32 %f1, [%rd4];
	mul.lo.s32 %r5, %r3, %r2;
	shl.b32 %r6, %r5, 2;
	mov.u32 %r7, tile;
	add.s32 %r8, %r7, %r6;
	st.shared.f32 [%r8], %f1;
	ld.shared.f32 %f2, [tile+8];
	and.b32 %r9, %r3, 1;
	setp.eq.s32 %p1, %r9, 1;
	@%p1 bra ODD;
	add.f32 %f2, %f2, 0f3F800000;
ODD:
	add.f32 %f3, %f1, %f2;
	mul.wide.u32 %rd5, %r3, 4;
	add.s64 %rd6, %rd1, %rd5;
	st.global.f32 [%rd6], %f3;
	ret;
}
)";

Profile run_profiled(uint32_t stride, uint32_t shared_stride, bool profile = true) {
  auto program = load(ptx_module(kAccesses));
  TestMemory memory;
  float* out = memory.buffer(std::vector<float>(32));
  // 32-byte aligned, so that the sector counts do not depend on where the buffer lies.
  std::vector<float> input(32 * 32 + 8);
  float* in = memory.buffer(input);
  uint64_t in_address = (uint64_t(uintptr_t(in)) + 31) & ~uint64_t(31);
  uint64_t out_address = uint64_t(uintptr_t(out));
  std::vector<void*> args = {&out_address, &in_address, &stride, &shared_stride};
  Launch l;
  l.program = program.get();
  l.kernel = program->find("k");
  l.memory = &memory.memory;
  l.block = {32, 1, 1};
  l.params = pack_params(*l.kernel, args.data(), long(args.size()));
  l.profile = profile;
  return execute(l, 1).profile;
}

}  // namespace

TEST_CASE("a coalesced 32-lane float load touches 4 sectors", "[simulator][profile]") {
  Profile p = run_profiled(1, 1);
  CHECK(p.global_loads == 1);
  CHECK(p.global_load_sectors == 4);
}

TEST_CASE("a stride-32 float load touches a sector per lane", "[simulator][profile]") {
  Profile p = run_profiled(32, 1);
  CHECK(p.global_load_sectors == 32);
}

TEST_CASE("stores count their own sectors", "[simulator][profile]") {
  Profile p = run_profiled(32, 1);
  CHECK(p.global_stores == 1);
  // out is a vector's buffer, aligned to 16 bytes: 128 bytes span 4 or 5 sectors.
  CHECK(p.global_store_sectors >= 4);
  CHECK(p.global_store_sectors <= 5);
}

TEST_CASE("consecutive shared words have no bank conflict; a stride of 2 words has a 2-way one",
          "[simulator][profile]") {
  CHECK(run_profiled(1, 1).shared_bank_conflicts == 0);  // the broadcast load adds none
  Profile two_way = run_profiled(1, 2);
  CHECK(two_way.shared_stores == 1);
  CHECK(two_way.shared_loads == 1);
  CHECK(two_way.shared_bank_conflicts == 1);
  CHECK(run_profiled(1, 32).shared_bank_conflicts == 31);  // every lane in bank 0
}

TEST_CASE("a branch that splits the warp counts as divergent", "[simulator][profile]") {
  Profile p = run_profiled(1, 1);
  CHECK(p.branches == 1);
  CHECK(p.divergent_branches == 1);
  // 24 instructions on the even lanes' path, 23 on the odd ones'; the warp issues 24. The
  // guarded bra and the even lanes' add run for 16 lanes each.
  CHECK(p.warp_instructions == 24);
  CHECK(p.thread_instructions == 22 * 32 + 16 + 16);
}

TEST_CASE("memory counters stay zero unless the launch profiles", "[simulator][profile]") {
  Profile p = run_profiled(32, 2, false);
  CHECK(p.global_load_sectors == 0);
  CHECK(p.shared_bank_conflicts == 0);
  CHECK(p.warp_instructions == 24);  // always counted
}

TEST_CASE("shared bank conflicts of wide accesses are counted per phase", "[simulator][profile]") {
  uint64_t offsets[32];
  for (int lane = 0; lane < 32; ++lane) offsets[lane] = uint64_t(lane) * 8;
  CHECK(shared_bank_conflicts(offsets, kFullMask, 8) == 0);  // two conflict-free half-warps
  for (int lane = 0; lane < 32; ++lane) offsets[lane] = uint64_t(lane) * 16;
  CHECK(shared_bank_conflicts(offsets, kFullMask, 8) == 2);  // each half-warp 2-way
  for (int lane = 0; lane < 32; ++lane) offsets[lane] = 0;
  CHECK(shared_bank_conflicts(offsets, kFullMask, 4) == 0);          // broadcast
  CHECK(shared_bank_conflicts(offsets, kFullMask, 4, false) == 31);  // atomics serialise
}
