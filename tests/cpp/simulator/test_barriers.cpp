// The block's sixteen barriers as the PTX ISA describes bar/barrier (9.7.12.1): a barrier number
// (an immediate or a register), an optional thread count (a multiple of the warp size; without
// it every thread of the block), .sync and .red waiting, .arrive not waiting.
#include <catch2/catch.hpp>

#include "sim_harness.hpp"

using namespace cudajit::sim;
using namespace cudajit::sim::testing;
using Catch::Matchers::Contains;

namespace {

// out[tid] = %v after `body`, for one block of `threads`; %t holds %tid.x, %w the warp index,
// %a the address of cells[%t] in a 256-word .shared array, %cells the array's address.
std::vector<uint32_t> run_block(const std::string& body, uint32_t threads) {
  std::string text =
      ".shared .align 4 .b32 cells[256];\n"
      ".visible .entry k(.param .u64 out)\n{\n\t.reg .pred %p<4>;\n"
      "\t.reg .b32 %t, %w, %v, %a, %cells, %r<8>;\n\t.reg .b64 %rd<4>;\n"
      "\tmov.u32 %t, %tid.x;\n\tshr.u32 %w, %t, 5;\n\tmov.u32 %v, 0;\n\tmov.u32 %cells, cells;\n"
      "\tshl.b32 %r1, %t, 2;\n\tadd.u32 %a, %cells, %r1;\n";
  text.append(body);
  text.append(
      "\n\tld.param.u64 %rd1, [out];\n\tmul.wide.u32 %rd2, %t, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
      "\tst.global.u32 [%rd3], %v;\n\tret;\n}\n");
  return run_with_output<uint32_t>(*load(ptx_module(text)), "k", threads, {threads, 1, 1});
}

ExecutionFault fault_of(const std::string& body, uint32_t threads) {
  try {
    run_block(body, threads);
  } catch (const ExecutionFault& e) {
    return e;
  }
  FAIL("no fault");
  throw;
}

}  // namespace

TEST_CASE("bar.arrive signals without waiting; bar.sync with the same count waits for it",
          "[simulator][barrier]") {
  // The manual's producer/consumer: warps 0-1 store and arrive at barrier 1 (128 threads), warps
  // 2-3 wait there and read what they stored; then everyone meets at barrier 2.
  auto v = run_block(
      "setp.lt.u32 %p1, %t, 64;\n\t@!%p1 bra CONSUMER;\n\tst.shared.u32 [%a], %t;\n\t"
      "bar.arrive 1, 128;\n\tbra.uni DONE;\nCONSUMER:\n\tbar.sync 1, 128;\n\t"
      "ld.shared.u32 %v, [%a+-256];\nDONE:\n\tbarrier.sync 2;",
      128);
  for (uint32_t i = 64; i < 128; ++i) REQUIRE(v[i] == i - 64);
}

TEST_CASE("named barriers with thread counts let groups of warps synchronise apart",
          "[simulator][barrier]") {
  // Warps 0-1 meet at barrier 1 and warps 2-3 at barrier 2 (64 threads each), never at the
  // other's; each thread reads the cell of its partner in the other warp of its pair.
  auto v = run_block(
      "add.u32 %r2, %t, 1000;\n\tst.shared.u32 [%a], %r2;\n\tshr.u32 %r3, %w, 1;\n\t"
      "add.u32 %r3, %r3, 1;\n\tbar.sync %r3, 64;\n\txor.b32 %r4, %t, 32;\n\tshl.b32 %r4, %r4, "
      "2;\n\t"
      "add.u32 %r4, %cells, %r4;\n\tld.shared.u32 %v, [%r4];",
      128);
  for (uint32_t i = 0; i < 128; ++i) REQUIRE(v[i] == (i ^ 32) + 1000);
}

TEST_CASE("barrier.sync takes its number from a register and counts threads",
          "[simulator][barrier]") {
  auto v = run_block(
      "st.shared.u32 [%a], %t;\n\tmov.u32 %r2, 15;\n\tmov.u32 %r3, 96;\n\t"
      "barrier.sync %r2, %r3;\n\tsub.u32 %r4, 95, %t;\n\tshl.b32 %r4, %r4, 2;\n\t"
      "add.u32 %r4, %cells, %r4;\n\tld.shared.u32 %v, [%r4];",
      96);
  for (uint32_t i = 0; i < 96; ++i) REQUIRE(v[i] == 95 - i);
}

TEST_CASE("bar.red reduces over the threads of its own barrier and count", "[simulator][barrier]") {
  // Warps 0-1 count odd threads at barrier 3 (64 threads), warp 2 at barrier 4 (32); then the
  // manual's `bar.red.and.pred r3,1,p` over the whole block.
  auto popc = run_block(
      "and.b32 %r2, %t, 1;\n\tsetp.eq.u32 %p1, %r2, 1;\n\tsetp.lt.u32 %p2, %w, 2;\n\t"
      "@%p2 bar.red.popc.u32 %v, 3, 64, %p1;\n\t@!%p2 bar.red.popc.u32 %v, 4, 32, !%p1;",
      96);
  for (uint32_t i = 0; i < 96; ++i) REQUIRE(popc[i] == (i < 64 ? 32u : 16u));
  auto all = run_block(
      "setp.lt.u32 %p1, %t, 96;\n\tbar.red.and.pred %p2, 1, %p1;\n\tselp.u32 %v, 1, 0, %p2;", 96);
  REQUIRE(all == std::vector<uint32_t>(96, 1));
}

TEST_CASE("a thread count past the block's warps, or not a multiple of 32, faults",
          "[simulator][barrier]") {
  ExecutionFault odd = fault_of("bar.sync 1, 48;", 64);
  REQUIRE(odd.fault() == Fault::IllegalInstruction);
  REQUIRE_THAT(std::string(odd.what()), Contains("not a multiple of the warp size"));
  ExecutionFault big = fault_of("bar.sync 1, 128;", 64);
  REQUIRE(big.fault() == Fault::BarrierDeadlock);
  REQUIRE_THAT(std::string(big.what()), Contains("cannot complete"));
  ExecutionFault sixteen = fault_of("mov.u32 %r2, 16;\n\tbarrier.sync %r2;", 32);
  REQUIRE_THAT(std::string(sixteen.what()), Contains("barrier 16 does not exist"));
}

TEST_CASE("warps naming one barrier with different thread counts fault", "[simulator][barrier]") {
  ExecutionFault e =
      fault_of("setp.eq.u32 %p1, %w, 0;\n\t@%p1 bar.sync 5, 64;\n\t@!%p1 bar.sync 5, 96;", 96);
  REQUIRE(e.fault() == Fault::IllegalInstruction);
  REQUIRE_THAT(std::string(e.what()), Contains("other warps named"));
}

TEST_CASE("a barrier its threads never all reach is a deadlock fault", "[simulator][barrier]") {
  // Warp 1 waits at barrier 1 for 64 threads; warp 0 goes to barrier 2.
  ExecutionFault e =
      fault_of("setp.eq.u32 %p1, %w, 0;\n\t@%p1 bar.sync 2, 64;\n\t@!%p1 bar.sync 1, 64;", 64);
  REQUIRE(e.fault() == Fault::BarrierDeadlock);
}

TEST_CASE("bar.arrive without a thread count is refused at load", "[simulator][barrier][ptx]") {
  REQUIRE_THROWS_WITH(run_block("bar.arrive 1;", 32),
                      Contains("expects a barrier and a thread count"));
}
