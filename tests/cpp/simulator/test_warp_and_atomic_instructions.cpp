// Warp-level instructions (shfl, vote, match, activemask) in a converged warp; atomics are exact
// under contention from many blocks on several host threads.
#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>

#include "sim_harness.hpp"

using namespace cudajit::sim;
using namespace cudajit::sim::testing;
using Catch::Matchers::Contains;

namespace {

// out[tid] = `body`'s %v for each thread of one 32-thread warp; %t holds %tid.x.
std::vector<uint32_t> run_warp(const std::string& body, uint32_t threads = 32) {
  std::string text =
      ".visible .entry k(.param .u64 out)\n{\n\t.reg .pred %p<4>;\n\t.reg .b32 %t, %v, %r<8>;\n"
      "\t.reg .b64 %rd<4>;\n\tmov.u32 %t, %tid.x;\n\tmov.u32 %v, 0;\n";
  text.append(body);
  text.append(
      "\n\tld.param.u64 %rd1, [out];\n\tmul.wide.u32 %rd2, %t, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
      "\tst.global.u32 [%rd3], %v;\n\tret;\n}\n");
  return run_with_output<uint32_t>(*load(ptx_module(text)), "k", threads, {threads, 1, 1});
}

}  // namespace

TEST_CASE("shfl.sync reads the source lane PTX's formula names, or the lane's own value",
          "[simulator][warp]") {
  auto down = run_warp("mul.lo.u32 %r1, %t, 10;\n\tshfl.sync.down.b32 %v, %r1, 1, 31, -1;");
  auto up = run_warp("mul.lo.u32 %r1, %t, 10;\n\tshfl.sync.up.b32 %v, %r1, 2, 0, -1;");
  auto bfly = run_warp("mul.lo.u32 %r1, %t, 10;\n\tshfl.sync.bfly.b32 %v, %r1, 1, 31, -1;");
  auto idx = run_warp("mul.lo.u32 %r1, %t, 10;\n\tshfl.sync.idx.b32 %v, %r1, 35, 31, -1;");
  for (uint32_t i = 0; i < 32; ++i) {
    REQUIRE(down[i] == (i < 31 ? (i + 1) * 10 : i * 10));
    REQUIRE(up[i] == (i >= 2 ? (i - 2) * 10 : i * 10));
    REQUIRE(bfly[i] == (i ^ 1) * 10);
    REQUIRE(idx[i] == 30);  // the source lane is taken modulo 32
  }
}

TEST_CASE("shfl.sync's predicate says whether the source lane was in range", "[simulator][warp]") {
  auto in_range = run_warp("shfl.sync.down.b32 %r1|%p1, %t, 4, 31, -1;\n\tselp.u32 %v, 1, 0, %p1;");
  for (uint32_t i = 0; i < 32; ++i) REQUIRE(in_range[i] == (i + 4 <= 31 ? 1u : 0u));
}

TEST_CASE("vote.sync ballots, alls and anys over the executing lanes", "[simulator][warp]") {
  auto ballot = run_warp(
      "and.b32 %r1, %t, 1;\n\tsetp.eq.u32 %p1, %r1, 1;\n\t"
      "vote.sync.ballot.b32 %v, %p1, -1;");
  auto negated = run_warp(
      "and.b32 %r1, %t, 1;\n\tsetp.eq.u32 %p1, %r1, 1;\n\t"
      "vote.sync.ballot.b32 %v, !%p1, -1;");
  auto all = run_warp(
      "setp.lt.u32 %p1, %t, 32;\n\tvote.sync.all.pred %p2, %p1, -1;\n\t"
      "selp.u32 %v, 1, 0, %p2;");
  auto any = run_warp(
      "setp.eq.u32 %p1, %t, 7;\n\tvote.sync.any.pred %p2, %p1, -1;\n\t"
      "selp.u32 %v, 1, 0, %p2;");
  for (uint32_t i = 0; i < 32; ++i) {
    REQUIRE(ballot[i] == 0xAAAAAAAAu);
    REQUIRE(negated[i] == 0x55555555u);
    REQUIRE(all[i] == 1);
    REQUIRE(any[i] == 1);
  }
}

TEST_CASE("match.sync.any gives each lane the lanes holding its value", "[simulator][warp]") {
  auto groups = run_warp("and.b32 %r1, %t, 3;\n\tmatch.sync.any.b32 %v, %r1, -1;");
  for (uint32_t i = 0; i < 32; ++i) REQUIRE(groups[i] == (0x11111111u << (i % 4)));
  auto all = run_warp("match.sync.all.b32 %v|%p1, 5, -1;");
  for (uint32_t i = 0; i < 32; ++i) REQUIRE(all[i] == 0xFFFFFFFFu);
}

TEST_CASE("activemask inside a divergent branch is exactly that branch's lanes",
          "[simulator][warp]") {
  auto masks = run_warp(
      "and.b32 %r1, %t, 1;\n\tsetp.eq.u32 %p1, %r1, 1;\n\t@%p1 bra ODD;\n\t"
      "activemask.b32 %v;\n\tbra.uni JOIN;\nODD:\n\tactivemask.b32 %v;\nJOIN:");
  for (uint32_t i = 0; i < 32; ++i) REQUIRE(masks[i] == (i % 2 ? 0xAAAAAAAAu : 0x55555555u));
}

// Lanes 16-31 wait at END to reconverge; as on sm_70 and later they run on past it while the
// shuffle waits for them, and exit, which lets it complete without them.
TEST_CASE("a warp operation whose other members skip it and exit completes without them",
          "[simulator][warp]") {
  auto v = run_warp(
      "setp.lt.u32 %p1, %t, 16;\n\t@%p1 bra LOW;\n\tbra.uni END;\n"
      "LOW:\n\tadd.u32 %r1, %t, 5;\n\tshfl.sync.idx.b32 %v, %r1, 3, 31, -1;\nEND:");
  for (uint32_t i = 0; i < 32; ++i) REQUIRE(v[i] == (i < 16 ? 8u : 0u));
}

namespace {

// Every thread of a 16-block grid does atom.global.<op> on counter[0]; out[i] = the old value.
std::vector<uint64_t> contended(const std::string& atom, uint64_t* counter, unsigned threads) {
  std::string text =
      ".visible .entry k(.param .u64 counter, .param .u64 out)\n{\n\t.reg .b32 %r<6>;\n"
      "\t.reg .b16 %rs<4>;\n\t.reg .b64 %rd<8>;\n\tld.param.u64 %rd1, [counter];\n\tld.param.u64 "
      "%rd2, [out];\n"
      "\tmov.u32 %r1, %ctaid.x;\n\tmov.u32 %r2, %ntid.x;\n\tmov.u32 %r3, %tid.x;\n"
      "\tmad.lo.u32 %r4, %r1, %r2, %r3;\n\t";
  text.append(atom);
  text.append(
      "\n\tmul.wide.u32 %rd4, %r4, 8;\n\tadd.s64 %rd5, %rd2, %rd4;\n\tst.global.u64 [%rd5], %rd3;"
      "\n\tret;\n}\n");
  auto program = load(ptx_module(text));
  TestMemory memory;
  uint64_t n = 16 * 256;
  uint64_t* out = memory.buffer(std::vector<uint64_t>(n));
  memory.memory.add(uint64_t(uintptr_t(counter)), 8, "counter");
  uint64_t counter_address = uint64_t(uintptr_t(counter)), out_address = uint64_t(uintptr_t(out));
  launch(*program, "k", {16, 1, 1}, {256, 1, 1}, {&counter_address, &out_address}, memory.memory, 0,
         threads);
  return std::vector<uint64_t>(out, out + n);
}

}  // namespace

TEST_CASE(
    "atom.add from 4096 threads on two host threads loses no update, and each thread "
    "gets a distinct old value",
    "[simulator][atomic]") {
  alignas(8) uint64_t counter = 0;
  auto old = contended("atom.global.add.u64 %rd3, [%rd1], 1;", &counter, 2);
  REQUIRE(counter == 4096);
  std::sort(old.begin(), old.end());
  std::vector<uint64_t> tickets(4096);
  std::iota(tickets.begin(), tickets.end(), 0);
  REQUIRE(old == tickets);
}

TEST_CASE("atom.inc wraps to 0 past its limit; atom.cas swaps only on a match",
          "[simulator][atomic]") {
  alignas(8) uint64_t counter = 0;
  // inc.u32 with limit 9: the values cycle 0..9, so 4096 increments leave 4096 % 10.
  auto old =
      contended("atom.global.inc.u32 %r5, [%rd1], 9;\n\tcvt.u64.u32 %rd3, %r5;", &counter, 2);
  REQUIRE(counter == 4096 % 10);
  REQUIRE(*std::max_element(old.begin(), old.end()) == 9);
  alignas(8) uint64_t word = 7;
  auto swapped = contended("atom.global.cas.b64 %rd3, [%rd1], 7, 8;", &word, 1);
  REQUIRE(word == 8);
  REQUIRE(std::count(swapped.begin(), swapped.end(), 7u) == 1);  // one thread saw 7 and swapped
}

TEST_CASE("atom.add.noftz.f16 adds halves, rounded once, without losing an update",
          "[simulator][atomic]") {
  // 4096 threads add 1.0: exact up to 2048, where 2048 + 1 ties to even (2048) whatever the
  // order, so the sum stops there.
  alignas(8) uint64_t counter = 0;
  contended(
      "mov.b16 %rs1, 0x3C00;\n\tatom.global.add.noftz.f16 %rs2, [%rd1], %rs1;\n\t"
      "cvt.u64.u16 %rd3, %rs2;",
      &counter, 2);
  REQUIRE(uint16_t(counter) == 0x6800);  // 2048.0
  REQUIRE(counter >> 16 == 0);           // the neighbouring bytes are untouched
  for (const char* wrong :
       {"atom.global.add.f16 %rs2, [%rd1], %rs1;", "atom.global.add.noftz.f32 %r5, [%rd1], 1.0;"}) {
    CAPTURE(wrong);
    REQUIRE_THROWS_WITH(contended(wrong, &counter, 1), Contains("unsupported instruction"));
  }
}
