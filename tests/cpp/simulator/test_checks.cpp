// racecheck and initcheck (exec/checks.hpp): hazards on shared memory between threads that
// nothing orders, and reads of device memory nothing wrote, reported once each with the lines
// of both accesses; the kernel runs on.
#include <catch2/catch.hpp>

#include "exec/checks.hpp"
#include "sim_harness.hpp"

using namespace cudajit::sim;
using namespace cudajit::sim::testing;
using Catch::Matchers::Contains;

namespace {

// Each thread stores its index to cells[t] (race.py:10), then `between`, then loads
// cells[partner] (race.py:12) into out[t]. %t holds %tid.x.
std::string exchange_kernel(const std::string& partner, const std::string& between) {
  return ptx_module(
      ".file 1 \"race.py\"\n"
      ".shared .align 4 .b32 cells[64];\n"
      ".visible .entry k(.param .u64 out)\n{\n\t.reg .pred %p<4>;\n"
      "\t.reg .b32 %t, %r<8>;\n\t.reg .b64 %rd<8>;\n"
      "\tmov.u32 %t, %tid.x;\n\tmov.u32 %r1, cells;\n\tshl.b32 %r2, %t, 2;\n"
      "\tadd.u32 %r3, %r1, %r2;\n.loc 1 10 0\n\tst.shared.u32 [%r3], %t;\n" +
      between + "\n\t" + partner +
      "\n\tshl.b32 %r4, %r4, 2;\n\tadd.u32 %r5, %r1, %r4;\n"
      ".loc 1 12 0\n\tld.shared.u32 %r6, [%r5];\n.loc 1 13 0\n"
      "\tld.param.u64 %rd1, [out];\n\tmul.wide.u32 %rd2, %t, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
      "\tst.global.u32 [%rd3], %r6;\n\tret;\n}\n");
}

// Partners: the thread 32 further on (the other warp of 64 threads), the next lane (xor 1).
const char* kOtherWarp = "add.u32 %r4, %t, 32;\n\tand.b32 %r4, %r4, 63;";
const char* kNextLane = "xor.b32 %r4, %t, 1;";

struct Run {
  std::vector<uint32_t> out;
  std::vector<std::string> reports;
};

Run run_checked(const std::string& text, uint32_t threads, uint8_t checks = kRaceCheck) {
  auto program = load(text);
  instrument(*program, checks);
  TestMemory memory;
  uint32_t* out = memory.buffer(std::vector<uint32_t>(threads));
  uint64_t address = uint64_t(uintptr_t(out));
  LaunchStats stats = launch(*program, "k", {1, 1, 1}, {threads, 1, 1}, {&address}, memory.memory);
  return {std::vector<uint32_t>(out, out + threads), stats.check_reports};
}

}  // namespace

TEST_CASE("CUDAJIT_SIM_CHECK names race and init, in a comma list", "[simulator][checks]") {
  REQUIRE(parse_checks("race") == kRaceCheck);
  REQUIRE(parse_checks("init,race") == (kRaceCheck | kInitCheck));
  REQUIRE(parse_checks("racecheck,initcheck") == (kRaceCheck | kInitCheck));
  REQUIRE(parse_checks("all") == (kRaceCheck | kInitCheck));
  REQUIRE(parse_checks("") == kNoChecks);
  std::string unknown;
  REQUIRE(parse_checks("race,memcheck", &unknown) == kRaceCheck);
  REQUIRE(unknown == "memcheck");
}

TEST_CASE("racecheck reports a store and another warp's load with no barrier between",
          "[simulator][checks]") {
  Run run = run_checked(exchange_kernel(kOtherWarp, ""), 64);
  // Warp 0 loads cells 32..63 before warp 1 stores them, and warp 1 loads what warp 0 stored:
  // both orders are hazards, each reported once whatever the number of threads.
  REQUIRE(run.reports.size() == 2);
  std::string all = run.reports[0] + "\n" + run.reports[1];
  REQUIRE_THAT(all, Contains("write-after-read hazard on shared memory"));
  REQUIRE_THAT(all, Contains("read-after-write hazard on shared memory"));
  REQUIRE_THAT(all, Contains("kernel 'k', block (0, 0, 0)"));
  REQUIRE_THAT(all, Contains("thread (0, 0, 0) wrote at race.py:10 (PTX line"));
  REQUIRE_THAT(all, Contains("thread (32, 0, 0) reads at race.py:12 (PTX line"));
  REQUIRE_THAT(all, Contains("with no barrier between"));
}

TEST_CASE("racecheck is silent when bar.sync separates the accesses", "[simulator][checks]") {
  Run run = run_checked(exchange_kernel(kOtherWarp, "bar.sync 0;"), 64);
  REQUIRE(run.reports.empty());
  for (uint32_t t = 0; t < 64; ++t) REQUIRE(run.out[t] == (t + 32) % 64);
}

TEST_CASE("racecheck: named barriers order the warps that meet at them", "[simulator][checks]") {
  // Warps 0 and 1 meet at barrier 3 with a count of 64 threads: ordered.
  REQUIRE(run_checked(exchange_kernel(kOtherWarp, "bar.sync 3, 64;"), 64).reports.empty());
  // Warps 0-1 and 2-3 meet at barriers of their own: warp 0 reads warp 1's cell (ordered), but
  // nothing orders warps 1 and 2 when thread t reads cell (t + 32) % 128.
  auto text = exchange_kernel("add.u32 %r4, %t, 32;\n\tand.b32 %r4, %r4, 127;",
                              "shr.u32 %r7, %t, 6;\n\tadd.u32 %r7, %r7, 1;\n\tbar.sync %r7, 64;");
  text.replace(text.find("cells[64]"), 9, "cells[128]");
  Run run = run_checked(text, 128);
  REQUIRE(run.reports.size() == 2);
  std::string all = run.reports[0] + "\n" + run.reports[1];
  REQUIRE_THAT(all, Contains("thread (32, 0, 0) read at race.py:12"));
  REQUIRE_THAT(all, Contains("thread (64, 0, 0) writes at race.py:10"));
  REQUIRE_THAT(all, Contains("thread (0, 0, 0) wrote at race.py:10"));
  REQUIRE_THAT(all, Contains("thread (96, 0, 0) reads at race.py:12"));
}

TEST_CASE("racecheck: bar.arrive releases the producers' stores to the consumers",
          "[simulator][checks]") {
  // The PTX manual's producer/consumer: warp 0 stores and arrives at barrier 1, warp 1 waits
  // there and loads what it stored. A store after the arrival is not ordered with the load.
  std::string body =
      ".file 1 \"pc.py\"\n.shared .align 4 .b32 cells[32];\n"
      ".visible .entry k(.param .u64 out)\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %t, %r<8>;\n"
      "\tmov.u32 %t, %tid.x;\n\tand.b32 %r1, %t, 31;\n\tshl.b32 %r1, %r1, 2;\n"
      "\tmov.u32 %r2, cells;\n\tadd.u32 %r2, %r2, %r1;\n\tsetp.lt.u32 %p1, %t, 32;\n"
      "\t@!%p1 bra CONSUMER;\n.loc 1 5 0\n\tst.shared.u32 [%r2], %t;\n\tbar.arrive 1, 64;\n"
      "LATE\n\tbra.uni DONE;\nCONSUMER:\n\tbar.sync 1, 64;\n.loc 1 9 0\n"
      "\tld.shared.u32 %r3, [%r2];\nDONE:\n\tret;\n}\n";
  std::string ordered = body;
  ordered.replace(ordered.find("LATE"), 4, "");
  REQUIRE(run_checked(ptx_module(ordered), 64).reports.empty());
  std::string late = body;
  late.replace(late.find("LATE"), 4, ".loc 1 7 0\n\tst.shared.u32 [%r2], %r1;");
  Run run = run_checked(ptx_module(late), 64);
  REQUIRE(run.reports.size() == 1);
  REQUIRE_THAT(run.reports[0], Contains("wrote at pc.py:7"));
  REQUIRE_THAT(run.reports[0], Contains("reads at pc.py:9"));
}

TEST_CASE("racecheck reports lanes of one warp that no __syncwarp orders", "[simulator][checks]") {
  // On sm_70 and later a converged warp's lanes are not synchronised between instructions.
  Run run = run_checked(exchange_kernel(kNextLane, ""), 32);
  REQUIRE(run.reports.size() == 1);
  REQUIRE_THAT(run.reports[0], Contains("read-after-write"));
  REQUIRE_THAT(run.reports[0], Contains("lanes of one warp with no __syncwarp"));
  REQUIRE(run_checked(exchange_kernel(kNextLane, "bar.warp.sync -1;"), 32).reports.empty());
  REQUIRE(run_checked(exchange_kernel(kNextLane, "bar.sync 0;"), 32).reports.empty());
}

TEST_CASE("racecheck: lanes of one instruction and atomics are not hazards",
          "[simulator][checks]") {
  // Every thread stores to cells[0] in one instruction of its warp (one warp), then every
  // thread adds to cells[1] atomically, then reads cells[1] after a barrier.
  std::string text = ptx_module(
      ".shared .align 4 .b32 cells[2];\n"
      ".visible .entry k(.param .u64 out)\n{\n\t.reg .b32 %t, %r<8>;\n\t.reg .b64 %rd<4>;\n"
      "\tmov.u32 %t, %tid.x;\n\tmov.u32 %r1, cells;\n\tst.shared.u32 [%r1], %t;\n"
      "\tatom.shared.add.u32 %r2, [%r1+4], 1;\n\tred.shared.add.u32 [%r1+4], 1;\n"
      "\tcvta.shared.u64 %rd1, cells;\n\tatom.add.u32 %r3, [%rd1+4], 1;\n"
      "\tbar.sync 0;\n\tld.shared.u32 %r4, [%r1+4];\n"
      "\tld.param.u64 %rd2, [out];\n\tmul.wide.u32 %rd3, %t, 4;\n\tadd.s64 %rd2, %rd2, %rd3;\n"
      "\tst.global.u32 [%rd2], %r4;\n\tret;\n}\n");
  Run run = run_checked(text, 32);
  REQUIRE(run.reports.empty());
  REQUIRE(run.out[5] == 96);
  // Two warps storing to one word with no barrier between do race.
  Run two = run_checked(text, 64);
  REQUIRE(two.reports.size() == 1);
  REQUIRE_THAT(two.reports[0], Contains("write-after-write"));
}

TEST_CASE("racecheck sees shared memory through generic addresses", "[simulator][checks]") {
  std::string text = exchange_kernel(kOtherWarp, "");
  // The load goes through the generic window: cvta.shared, then ld without a space.
  const std::string load = "\tld.shared.u32 %r6, [%r5];";
  text.replace(text.find(load), load.size(),
               "\tcvt.u64.u32 %rd4, %r5;\n\tcvta.shared.u64 %rd5, %rd4;\n\tld.u32 %r6, [%rd5];");
  Run run = run_checked(text, 64);
  REQUIRE(run.reports.size() == 2);
}

TEST_CASE("initcheck reports a read of device memory nothing wrote, once per allocation",
          "[simulator][checks]") {
  std::string text = ptx_module(
      ".file 1 \"init.py\"\n"
      ".visible .entry k(.param .u64 out, .param .u64 in)\n{\n\t.reg .b32 %t, %r<4>;\n"
      "\t.reg .b64 %rd<8>;\n\tmov.u32 %t, %tid.x;\n\tmul.wide.u32 %rd1, %t, 4;\n"
      "\tld.param.u64 %rd2, [in];\n\tadd.s64 %rd3, %rd2, %rd1;\n.loc 1 4 0\n"
      "\tld.global.u32 %r1, [%rd3];\n\tld.param.u64 %rd4, [out];\n\tadd.s64 %rd5, %rd4, %rd1;\n"
      ".loc 1 5 0\n\tst.global.u32 [%rd5], %r1;\n\tret;\n}\n");
  auto program = load(text);
  instrument(*program, kInitCheck);
  TestMemory memory;
  uint32_t* out = memory.buffer(std::vector<uint32_t>(32));
  uint32_t* in = memory.buffer(std::vector<uint32_t>(32));
  uint64_t out_address = uint64_t(uintptr_t(out)), in_address = uint64_t(uintptr_t(in));
  // Both as cuMemAlloc leaves them; `in` then written but for its last word.
  memory.memory.add(out_address, 128, "a device allocation", true);
  memory.memory.add(in_address, 128, "a device allocation", true);
  memory.memory.mark_written(in_address, 124);
  LaunchStats stats =
      launch(*program, "k", {1, 1, 1}, {32, 1, 1}, {&out_address, &in_address}, memory.memory);
  REQUIRE(stats.check_reports.size() == 1);
  REQUIRE_THAT(stats.check_reports[0], Contains("initcheck: 4-byte read at"));
  REQUIRE_THAT(stats.check_reports[0], Contains("(offset 124 of a device allocation of 128"));
  REQUIRE_THAT(stats.check_reports[0], Contains("thread (31, 0, 0), init.py:4 (PTX line"));
  // The kernel's stores marked `out` written; `in` was reported already.
  std::swap(out_address, in_address);
  stats = launch(*program, "k", {1, 1, 1}, {32, 1, 1}, {&out_address, &in_address}, memory.memory);
  REQUIRE(stats.check_reports.empty());
}

TEST_CASE("without checks, programs keep their decoded handlers and report nothing",
          "[simulator][checks]") {
  auto program = load(exchange_kernel(kOtherWarp, ""));
  std::vector<Handler> decoded;
  for (const Inst& inst : program->functions[0]->code) decoded.push_back(inst.run);
  instrument(*program, kNoChecks);
  for (size_t pc = 0; pc < decoded.size(); ++pc)
    REQUIRE(program->functions[0]->code[pc].run == decoded[pc]);
  TestMemory memory;
  uint32_t* out = memory.buffer(std::vector<uint32_t>(64));
  uint64_t address = uint64_t(uintptr_t(out));
  REQUIRE(launch(*program, "k", {1, 1, 1}, {64, 1, 1}, {&address}, memory.memory)
              .check_reports.empty());
}
