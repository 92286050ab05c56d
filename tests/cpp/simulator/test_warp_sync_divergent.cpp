// Warp-synchronous instructions on the paths of a divergent warp. The PTX ISA (shfl.sync,
// vote.sync, match.sync, redux.sync, bar.warp.sync): each thread "wait[s] until all non-exited
// threads corresponding to membermask have executed [the instruction] with the same qualifiers
// and same membermask value"; on sm_70 and later those threads may be on other paths.
#include <catch2/catch.hpp>

#include "sim_harness.hpp"

using namespace cudajit::sim;
using namespace cudajit::sim::testing;
using Catch::Matchers::Contains;

namespace {

// out[tid] = %v after `body` for one block of `threads` threads; %t holds %tid.x, %lo whether
// %t < 16. `cells` is a 32-word .shared array.
std::vector<uint32_t> run_warp(const std::string& body, uint32_t threads = 32) {
  std::string text =
      ".shared .align 4 .b32 cells[32];\n"
      ".visible .entry k(.param .u64 out)\n{\n\t.reg .pred %p<4>, %lo;\n"
      "\t.reg .b32 %t, %v, %r<8>;\n\t.reg .b64 %rd<4>;\n\tmov.u32 %t, %tid.x;\n"
      "\tmov.u32 %v, 0;\n\tsetp.lt.u32 %lo, %t, 16;\n";
  text.append(body);
  text.append(
      "\n\tld.param.u64 %rd1, [out];\n\tmul.wide.u32 %rd2, %t, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
      "\tst.global.u32 [%rd3], %v;\n\tret;\n}\n");
  return run_with_output<uint32_t>(*load(ptx_module(text)), "k", threads, {threads, 1, 1});
}

// if (%t < 16) { LOW } else { HIGH }, reconverging at JOIN.
std::string branches(const std::string& low, const std::string& high) {
  return "\t@%lo bra LOW;\n\t" + high + "\n\tbra.uni JOIN;\nLOW:\n\t" + low + "\nJOIN:";
}

}  // namespace

TEST_CASE("shfl.sync on both sides of a branch exchanges values between the paths",
          "[simulator][warp][divergent]") {
  // Low lanes read lane 20's a (from the other path's instruction), high lanes lane 3's.
  auto v =
      run_warp(branches("mul.lo.u32 %r1, %t, 10;\n\tshfl.sync.idx.b32 %v, %r1, 20, 31, -1;",
                        "mad.lo.u32 %r1, %t, 10, 1;\n\tshfl.sync.idx.b32 %v, %r1, 3, 31, -1;"));
  for (uint32_t i = 0; i < 32; ++i) REQUIRE(v[i] == (i < 16 ? 201u : 30u));
}

TEST_CASE("vote.sync and redux.sync on both sides of a branch count every member",
          "[simulator][warp][divergent]") {
  // Every third lane's predicate holds; each side ballots, then each side adds up %t.
  auto ballot =
      run_warp("rem.u32 %r1, %t, 3;\n\tsetp.eq.u32 %p1, %r1, 0;\n" +
               branches("vote.sync.ballot.b32 %v, %p1, -1;", "vote.sync.ballot.b32 %v, %p1, -1;"));
  auto sum = run_warp(branches("redux.sync.add.u32 %v, %t, -1;", "redux.sync.add.u32 %v, %t, -1;"));
  for (uint32_t i = 0; i < 32; ++i) {
    REQUIRE(ballot[i] == 0x49249249u);
    REQUIRE(sum[i] == 496u);
  }
}

TEST_CASE("match.sync on both sides of a branch compares values across the paths",
          "[simulator][warp][divergent]") {
  auto groups = run_warp("and.b32 %r1, %t, 7;\n" + branches("match.sync.any.b32 %v, %r1, -1;",
                                                            "match.sync.any.b32 %v, %r1, -1;"));
  for (uint32_t i = 0; i < 32; ++i) REQUIRE(groups[i] == (0x01010101u << (i % 8)));
}

TEST_CASE("bar.warp.sync on both sides of a branch orders their shared-memory accesses",
          "[simulator][warp][divergent]") {
  // Each lane stores to cells[t], meets the other path at bar.warp.sync, then reads its
  // partner's cell (t ^ 16), which the other path stored.
  const std::string side =
      "mov.u32 %r1, cells;\n\tshl.b32 %r2, %t, 2;\n\tadd.u32 %r3, %r1, %r2;\n\t"
      "add.u32 %r4, %t, 100;\n\tst.shared.u32 [%r3], %r4;\n\tbar.warp.sync -1;\n\t"
      "xor.b32 %r2, %r2, 64;\n\tadd.u32 %r3, %r1, %r2;\n\tld.shared.u32 %v, [%r3];";
  auto v = run_warp(branches(side, side));
  for (uint32_t i = 0; i < 32; ++i) REQUIRE(v[i] == (i ^ 16) + 100);
}

TEST_CASE("lanes may name different membermasks: each mask's lanes meet on their own",
          "[simulator][warp][divergent]") {
  // A cooperative group's 16-lane tile, as nvcc writes it: mask 0xFFFF << (laneid & 16), and
  // c = 0x101F makes each half-warp a segment; every lane reads lane 0 of its tile.
  const std::string tile_shuffle =
      "mov.u32 %r1, %laneid;\n\tand.b32 %r2, %r1, 16;\n\tshl.b32 %r3, 65535, %r2;\n\t"
      "mad.lo.u32 %r4, %t, 3, 7;\n\tshfl.sync.idx.b32 %v, %r4, 0, 4127, %r3;";
  auto converged = run_warp(tile_shuffle);
  auto divergent = run_warp(branches(tile_shuffle, tile_shuffle));
  for (uint32_t i = 0; i < 32; ++i) {
    REQUIRE(converged[i] == (i & 16) * 3 + 7);
    REQUIRE(divergent[i] == (i & 16) * 3 + 7);
  }
}

TEST_CASE("members that exited do not hold a warp-synchronous instruction up",
          "[simulator][warp][divergent]") {
  auto v = run_warp("@!%lo ret;\n\tredux.sync.add.u32 %v, 1, -1;");
  for (uint32_t i = 0; i < 16; ++i) REQUIRE(v[i] == 16u);
}

TEST_CASE("paths meeting at warp-synchronous instructions with other qualifiers fault",
          "[simulator][warp][divergent]") {
  try {
    run_warp(
        branches("shfl.sync.idx.b32 %v, %t, 0, 31, -1;", "shfl.sync.up.b32 %v, %t, 1, 0, -1;"));
    FAIL("no fault");
  } catch (const ExecutionFault& e) {
    REQUIRE(e.fault() == Fault::BarrierDeadlock);
    REQUIRE_THAT(std::string(e.what()), Contains("different opcodes or qualifiers"));
  }
}

TEST_CASE("an executing lane missing from its own membermask is a fault", "[simulator][warp]") {
  REQUIRE_THROWS_WITH(run_warp("vote.sync.ballot.b32 %v, %lo, 0xFFFF;"),
                      Contains("not in its membermask"));
}

// ---- lanes waiting to reconverge run on to a meeting that names them
//
// On sm_70 and later a warp's lanes are scheduled independently: lanes that wait at a
// reconvergence point while the lanes they wait for wait at a warp-synchronous instruction
// naming them go on, and reach one (the meeting completes) or exit ("non-exited threads").

namespace {

// numba-cuda's device_reduce_full_block ends so: cells[t] = t + 1 for every lane, then
//   if t < 2: cells[t] += cells[t + 2]; syncwarp()
//   if t == 0: v = cells[0] + cells[1]
// `skip_first` puts the lanes that skip the branch on its taken side (they run first);
// `after_join` runs after the branch's reconvergence point.
std::string reduction_tail(bool skip_first, const std::string& after_join = "") {
  const std::string pair =
      "ld.shared.u32 %r4, [%r3];\n\tld.shared.u32 %r5, [%r3+8];\n\tadd.u32 %r4, %r4, %r5;\n\t"
      "st.shared.u32 [%r3], %r4;\n\tbar.warp.sync -1;\n";
  return "setp.lt.u32 %p1, %t, 2;\n\tmov.u32 %r1, cells;\n\tshl.b32 %r2, %t, 2;\n\t"
         "add.u32 %r3, %r1, %r2;\n\tadd.u32 %r4, %t, 1;\n\tst.shared.u32 [%r3], %r4;\n\t"
         "bar.warp.sync -1;\n\t" +
         (skip_first ? "@!%p1 bra JOIN;\n\t" + pair
                     : "@%p1 bra PAIR;\n\tbra.uni JOIN;\nPAIR:\n\t" + pair) +
         "JOIN:\n\t" + after_join +
         "\n\tsetp.eq.u32 %p2, %t, 0;\n\t@!%p2 bra DONE;\n\tld.shared.u32 %r4, [cells];\n\t"
         "ld.shared.u32 %r5, [cells+4];\n\tadd.u32 %v, %r4, %r5;\nDONE:";
}

}  // namespace

TEST_CASE("bar.warp.sync in a branch completes once the lanes that skipped it exit",
          "[simulator][warp][divergent]") {
  for (bool skip_first : {true, false}) {
    auto v = run_warp(reduction_tail(skip_first));
    REQUIRE(v[0] == (1u + 3u) + (2u + 4u));
    for (uint32_t i = 1; i < 32; ++i) REQUIRE(v[i] == 0u);
  }
}

TEST_CASE("lanes that skipped a bar.warp.sync meet it at a later one past the reconvergence point",
          "[simulator][warp][divergent]") {
  // Lanes 2-31 read cells[0], which lanes 0-1 wrote before the meeting (lane 0 then sums).
  auto v = run_warp(reduction_tail(true, "@!%p1 bar.warp.sync -1;\n\tld.shared.u32 %v, [cells];"));
  REQUIRE(v[0] == 10u);
  for (uint32_t i = 1; i < 32; ++i) REQUIRE(v[i] == 4u);
  // The meeting holds every lane: a reduction across the reconvergence point counts all 32.
  auto sum = run_warp(
      "setp.lt.u32 %p1, %t, 2;\n\t@!%p1 bra JOIN;\n\tredux.sync.add.u32 %v, %t, -1;\n"
      "JOIN:\n\t@!%p1 redux.sync.add.u32 %v, %t, -1;");
  for (uint32_t i = 0; i < 32; ++i) REQUIRE(sum[i] == 496u);
}

TEST_CASE("lanes that ran past a reconvergence point to a meeting rejoin at the enclosing one",
          "[simulator][warp][divergent]") {
  // if t < 16 { if t < 2 { bar.warp.sync 0xFFFF } ; if t >= 2 { bar.warp.sync 0xFFFF } }
  // Lanes 2-15 leave the inner reconvergence point for their meeting and wait at the outer
  // one, where the whole warp is together again.
  auto v = run_warp(
      "setp.lt.u32 %p1, %t, 2;\n\t@!%lo bra OUTER;\n\t@!%p1 bra INNER;\n\t"
      "bar.warp.sync 0xFFFF;\nINNER:\n\t@!%p1 bar.warp.sync 0xFFFF;\nOUTER:\n\t"
      "activemask.b32 %v;");
  for (uint32_t i = 0; i < 32; ++i) REQUIRE(v[i] == 0xFFFFFFFFu);
}

// shfl.sync: "wait until all non-exited threads corresponding to membermask have executed"
// it, and "results are undefined if a thread sources a register from an inactive thread". The
// simulator gives the value the exited lane's register last held (docs/dev/simulator.md).
TEST_CASE("shfl.sync with a full mask completes without members that exited before it",
          "[simulator][warp][divergent]") {
  auto v = run_warp(
      "mul.lo.u32 %r1, %t, 10;\n\t@!%lo ret;\n\txor.b32 %r2, %t, 8;\n\t"
      "setp.eq.u32 %p1, %t, 0;\n\tselp.b32 %r2, 20, %r2, %p1;\n\t"
      "shfl.sync.idx.b32 %v, %r1, %r2, 31, -1;");
  REQUIRE(v[0] == 200u);  // lane 0 reads exited lane 20: undefined on a GPU
  for (uint32_t i = 1; i < 16; ++i) REQUIRE(v[i] == (i ^ 8) * 10);
  for (uint32_t i = 16; i < 32; ++i) REQUIRE(v[i] == 0u);  // exited before storing
}

TEST_CASE("lanes that ran past a reconvergence point to a block barrier deadlock a meeting",
          "[simulator][warp][divergent]") {
  // Lanes 0-1 wait at bar.warp.sync for lanes 2-31, which run on to barrier.sync 0 and wait
  // there for lanes 0-1: on a GPU the warp hangs.
  try {
    run_warp(
        "setp.lt.u32 %p1, %t, 2;\n\t@!%p1 bra JOIN;\n\tbar.warp.sync -1;\nJOIN:\n\t"
        "barrier.sync 0;");
    FAIL("no fault");
  } catch (const ExecutionFault& e) {
    REQUIRE(e.fault() == Fault::BarrierDeadlock);
    REQUIRE_THAT(std::string(e.what()),
                 Contains("lanes 0x00000003 wait at a warp-synchronous instruction (membermask "
                          "0xffffffff) for lanes 0xfffffffc of it, which wait at a block barrier"));
  }
}
