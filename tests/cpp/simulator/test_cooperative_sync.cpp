// Grid-wide synchronisation of cooperative launches, through the driver's functions that the
// device runtime (libcudadevrt's cudaCGGetIntrinsicHandle, cudaCGSynchronize,
// cudaCGSynchronizeGrid) calls: __cuda_syscall_CGS_*. And mbarrier objects (PTX ISA 9.7.12.11),
// which cuda::barrier and cooperative groups use in shared memory.
#include <catch2/catch.hpp>

#include "sim_harness.hpp"

using namespace cudajit::sim;
using namespace cudajit::sim::testing;
using Catch::Matchers::Contains;

namespace {

// The declarations libcudadevrt's PTX makes of the driver's cooperative-groups calls.
const char* kSyscalls = R"(
.extern .func (.param .b64 func_retval0) __cuda_syscall_CGS_get_intrinsic_handle
(
	.param .b32 __cuda_syscall_CGS_get_intrinsic_handle_param_0
)
;
.extern .func (.param .b32 func_retval0) __cuda_syscall_CGS_sync
(
	.param .b64 __cuda_syscall_CGS_sync_param_0,
	.param .b32 __cuda_syscall_CGS_sync_param_1
)
;
.extern .func (.param .b32 func_retval0) __cuda_syscall_CGS_get_rank
(
	.param .b64 __cuda_syscall_CGS_get_rank_param_0,
	.param .b64 __cuda_syscall_CGS_get_rank_param_1,
	.param .b64 __cuda_syscall_CGS_get_rank_param_2
)
;
)";

// %h = the grid handle; then `body`; %t is the thread's index in the grid, %n the grid's threads,
// %m the u32 array `m` (one word per thread), %e the error returned by the last sync.
std::string grid_kernel(const std::string& body) {
  return ptx_module(std::string(kSyscalls) +
                    ".visible .entry k(.param .u64 m)\n{\n\t.reg .pred %p<4>;\n"
                    "\t.reg .b32 %t, %n, %e, %r<12>;\n\t.reg .b64 %h, %m, %rd<12>;\n"
                    "\tld.param.u64 %m, [m];\n\tmov.u32 %r1, %ctaid.x;\n\tmov.u32 %r2, %ntid.x;\n"
                    "\tmov.u32 %r3, %tid.x;\n\tmad.lo.u32 %t, %r1, %r2, %r3;\n"
                    "\tmov.u32 %r4, %nctaid.x;\n\tmul.lo.u32 %n, %r4, %r2;\n\tmov.u32 %e, 77;\n"
                    "\t{\n\t.param .b32 param0;\n\tst.param.b32 [param0], 1;\n"
                    "\t.param .b64 retval0;\n\tcall.uni (retval0), "
                    "__cuda_syscall_CGS_get_intrinsic_handle, (param0);\n"
                    "\tld.param.b64 %h, [retval0];\n\t}\n" +
                    body + "\n\tret;\n}\n");
}

// A grid sync with `flags`, its result in %e.
std::string sync_call(const char* flags) {
  return std::string(
             "\t{\n\t.param .b64 param0;\n\tst.param.b64 [param0], %h;\n"
             "\t.param .b32 param1;\n\tst.param.b32 [param1], ") +
         flags +
         ";\n\t.param .b32 retval0;\n\tcall.uni (retval0), __cuda_syscall_CGS_sync, "
         "(param0, param1);\n\tld.param.b32 %e, [retval0];\n\t}\n";
}

// Every thread stores t + 1 at m[t], syncs the grid, and replaces it with the value of the
// thread opposite it (n - 1 - t), which another block stored: right only if every block's
// stores were done before any block read.
std::string opposite_after_sync(const char* sync) {
  return std::string(
             "\tmul.wide.u32 %rd1, %t, 4;\n\tadd.s64 %rd2, %m, %rd1;\n\tadd.u32 %r5, %t, 1;\n"
             "\tst.global.u32 [%rd2], %r5;\n") +
         sync +
         "\tsub.u32 %r6, %n, %t;\n\tsub.u32 %r6, %r6, 1;\n\tmul.wide.u32 %rd3, %r6, 4;\n"
         "\tadd.s64 %rd4, %m, %rd3;\n\tld.global.u32 %r7, [%rd4];\n" +
         sync +
         "\tmul.lo.u32 %r8, %r7, 1000;\n\tadd.u32 %r8, %r8, %e;\n\tst.global.u32 [%rd2], %r8;";
}

std::vector<uint32_t> run_grid(const std::string& ptx, uint32_t blocks, uint32_t threads,
                               bool cooperative = true) {
  auto program = load(ptx);
  TestMemory memory;
  uint32_t* m = memory.buffer(std::vector<uint32_t>(blocks * threads));
  uint64_t address = uint64_t(uintptr_t(m));
  std::vector<void*> args{&address};
  Launch l;
  l.program = program.get();
  l.kernel = program->find("k");
  l.memory = &memory.memory;
  l.grid = {blocks, 1, 1};
  l.block = {threads, 1, 1};
  l.cooperative = cooperative;
  l.params = pack_params(*l.kernel, args.data(), 1);
  execute(l, 2);
  return std::vector<uint32_t>(m, m + blocks * threads);
}

ExecutionFault grid_fault(const std::string& ptx, uint32_t blocks, uint32_t threads,
                          bool cooperative = true) {
  try {
    run_grid(ptx, blocks, threads, cooperative);
  } catch (const ExecutionFault& e) {
    return e;
  }
  FAIL("no fault");
  throw;
}

}  // namespace

TEST_CASE("every thread's grid sync (cudaCGSynchronize) orders all blocks' memory",
          "[simulator][cooperative]") {
  // 8 blocks of 96 threads (three warps, which meet in the block before the block waits for
  // the grid), more blocks than the two host threads the launch is given.
  auto m = run_grid(grid_kernel(opposite_after_sync(sync_call("0").c_str())), 8, 96);
  const uint32_t n = 8 * 96;
  for (uint32_t t = 0; t < n; ++t) REQUIRE(m[t] == (n - t) * 1000);  // (n-1-t)+1, cudaSuccess
}

TEST_CASE("cudaCGSynchronizeGrid's form: one thread per block syncs between bar.sync 0",
          "[simulator][cooperative]") {
  // As libcudadevrt writes it: bar.sync 0; thread (0,0,0) calls with flags | 1; bar.sync 0.
  auto sync = [](const std::string& label) {
    return "\tbar.sync 0;\n\tsetp.ne.u32 %p1, %r3, 0;\n\t@%p1 bra " + label + ";\n" +
           sync_call("1") + label + ":\n\tbar.sync 0;\n";
  };
  std::string body = opposite_after_sync("#");
  body.replace(body.find('#'), 1, sync("FIRST"));
  body.replace(body.find('#'), 1, sync("SECOND"));
  auto m = run_grid(grid_kernel(body), 6, 64);
  const uint32_t n = 6 * 64;
  // Only thread 0 of each block got cudaSuccess from the call; the others keep 77.
  for (uint32_t t = 0; t < n; ++t) REQUIRE(m[t] == (n - t) * 1000 + (t % 64 == 0 ? 0 : 77));
}

TEST_CASE("the grid handle is 0 outside a cooperative launch, and a sync there faults",
          "[simulator][cooperative]") {
  // grid_group::is_valid() is handle != 0: only cooperative launches can sync the grid.
  auto m = run_grid(grid_kernel("\tcvt.u32.u64 %r9, %h;\n\tmul.wide.u32 %rd1, %t, 4;\n"
                                "\tadd.s64 %rd2, %m, %rd1;\n\tst.global.u32 [%rd2], %r9;"),
                    2, 32, false);
  for (uint32_t v : m) REQUIRE(v == 0);
  auto cooperative = run_grid(grid_kernel("\tsetp.ne.u64 %p1, %h, 0;\n\tselp.u32 %r9, 1, 0, %p1;\n"
                                          "\tmul.wide.u32 %rd1, %t, 4;\n\tadd.s64 %rd2, %m, %rd1;\n"
                                          "\tst.global.u32 [%rd2], %r9;"),
                              2, 32);
  for (uint32_t v : cooperative) REQUIRE(v == 1);
  auto e = grid_fault(grid_kernel("\tmov.u64 %h, 64;\n" + sync_call("0")), 2, 32, false);
  REQUIRE_THAT(e.what(), Contains("not cooperative"));
}

TEST_CASE("a grid sync that blocks which have ended never reach is a deadlock fault",
          "[simulator][cooperative]") {
  // Block 1 returns before the sync: on a GPU the others would wait for ever.
  auto e = grid_fault(
      grid_kernel("\tsetp.eq.u32 %p1, %r1, 1;\n\t@%p1 bra DONE;\n" + sync_call("0") + "DONE:"), 4,
      32);
  REQUIRE(e.fault() == Fault::BarrierDeadlock);
  REQUIRE_THAT(e.what(), Contains("blocks that have ended"));
}

TEST_CASE("threads that exit before a grid sync do not hold their block back",
          "[simulator][cooperative]") {
  // Odd threads exit; the even ones store, sync, and read the even thread 64 further on, in
  // the next block.
  std::string body =
      "\tand.b32 %r10, %t, 1;\n\tsetp.ne.u32 %p2, %r10, 0;\n\t@%p2 bra DONE;\n"
      "\tmul.wide.u32 %rd1, %t, 4;\n\tadd.s64 %rd2, %m, %rd1;\n\tadd.u32 %r5, %t, 1;\n"
      "\tst.global.u32 [%rd2], %r5;\n" +
      sync_call("0") +
      "\tadd.u32 %r6, %t, 64;\n\trem.u32 %r6, %r6, %n;\n\tmul.wide.u32 %rd3, %r6, 4;\n"
      "\tadd.s64 %rd4, %m, %rd3;\n\tld.global.u32 %r7, [%rd4];\n" +
      sync_call("0") + "\tst.global.u32 [%rd2], %r7;\nDONE:";
  auto m = run_grid(grid_kernel(body), 4, 64);
  const uint32_t n = 4 * 64;
  for (uint32_t t = 0; t < n; t += 2) REQUIRE(m[t] == (t + 64) % n + 1);
  for (uint32_t t = 1; t < n; t += 2) REQUIRE(m[t] == 0);
}

TEST_CASE("cudaCGGetRank's driver call gives the thread's rank in the grid",
          "[simulator][cooperative]") {
  auto m = run_grid(grid_kernel("\tmul.wide.u32 %rd1, %t, 4;\n\tadd.s64 %rd2, %m, %rd1;\n"
                                "\t{\n\t.param .b64 param0;\n\tst.param.b64 [param0], %rd2;\n"
                                "\t.param .b64 param1;\n\tst.param.b64 [param1], 0;\n"
                                "\t.param .b64 param2;\n\tst.param.b64 [param2], %h;\n"
                                "\t.param .b32 retval0;\n\tcall.uni (retval0), "
                                "__cuda_syscall_CGS_get_rank, (param0, param1, param2);\n\t}"),
                    3, 40);
  for (uint32_t t = 0; t < 3 * 40; ++t) REQUIRE(m[t] == t);
}

// ---- mbarrier

namespace {

// out[tid] = %v after `body`, for one block of `threads`; %t holds %tid.x, %b the mbarrier's
// shared address (a 32-bit .shared offset), %cells a 256-word .shared array.
std::vector<uint32_t> run_mbarrier(const std::string& body, uint32_t threads,
                                   const std::string& target = "sm_80",
                                   const std::string& version = "7.8") {
  std::string text =
      ".version " + version + "\n.target " + target +
      "\n.address_size 64\n\n.shared .align 8 .b64 bar;\n.shared .align 4 .b32 cells[256];\n"
      ".visible .entry k(.param .u64 out)\n{\n\t.reg .pred %p<4>;\n"
      "\t.reg .b32 %t, %v, %b, %cells, %r<12>;\n\t.reg .b64 %s, %rd<8>;\n"
      "\tmov.u32 %t, %tid.x;\n\tmov.u32 %v, 0;\n\tmov.u32 %b, bar;\n\tmov.u32 %cells, cells;\n" +
      body +
      "\n\tld.param.u64 %rd1, [out];\n\tmul.wide.u32 %rd2, %t, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
      "\tst.global.u32 [%rd3], %v;\n\tret;\n}\n";
  return run_with_output<uint32_t>(*load(text), "k", threads, {threads, 1, 1});
}

ExecutionFault mbarrier_fault(const std::string& body, uint32_t threads) {
  try {
    run_mbarrier(body, threads);
  } catch (const ExecutionFault& e) {
    return e;
  }
  FAIL("no fault");
  throw;
}

// Thread 0 initialises the barrier for `count` arrivals; the block meets before using it.
std::string init(const char* count) {
  return std::string("\tsetp.eq.u32 %p1, %t, 0;\n\t@%p1 mbarrier.init.shared.b64 [%b], ") + count +
         ";\n\tbar.sync 0;\n";
}

}  // namespace

TEST_CASE("mbarrier: the manual's thread synchronisation with arrive and test_wait",
          "[simulator][mbarrier]") {
  // Each thread stores its cell, arrives and polls test_wait (sleeping between polls, as the
  // manual's example 1); then it reads the cell of the thread opposite it, in another warp.
  auto v = run_mbarrier(init("128") +
                            "\tshl.b32 %r1, %t, 2;\n\tadd.u32 %r2, %cells, %r1;\n"
                            "\tadd.u32 %r3, %t, 1;\n\tst.shared.u32 [%r2], %r3;\n"
                            "\tmbarrier.arrive.shared.b64 %s, [%b];\nWAIT:\n"
                            "\tmbarrier.test_wait.shared.b64 %p2, [%b], %s;\n"
                            "\t@!%p2 nanosleep.u32 20;\n\t@!%p2 bra WAIT;\n"
                            "\tsub.u32 %r4, 127, %t;\n\tshl.b32 %r4, %r4, 2;\n"
                            "\tadd.u32 %r4, %cells, %r4;\n\tld.shared.u32 %v, [%r4];",
                        128);
  for (uint32_t t = 0; t < 128; ++t) REQUIRE(v[t] == 128 - t);
}

TEST_CASE("mbarrier: phases by parity, reused without reinitialising", "[simulator][mbarrier]") {
  // Three rounds of two phases: each thread stores its cell and arrives, the warps meet at
  // test_wait.parity with the phase's parity (tracked in %r6), read the partner's cell, and
  // meet again (test_wait with the state) before the cells change. Generic addressing.
  auto v = run_mbarrier(init("64") +
                            "\tcvta.shared.u64 %rd5, bar;\n\tshl.b32 %r1, %t, 2;\n"
                            "\tadd.u32 %r2, %cells, %r1;\n\tmov.u32 %r5, 0;\n\tmov.u32 %r6, 0;\n"
                            "PHASE:\n\tadd.u32 %r3, %t, %r5;\n\tst.shared.u32 [%r2], %r3;\n"
                            "\tmbarrier.arrive.b64 _, [%rd5];\nWAIT:\n"
                            "\tmbarrier.test_wait.parity.b64 %p2, [%rd5], %r6;\n"
                            "\t@!%p2 bra WAIT;\n\txor.b32 %r6, %r6, 1;\n\txor.b32 %r7, %t, 32;\n"
                            "\tshl.b32 %r7, %r7, 2;\n\tadd.u32 %r7, %cells, %r7;\n"
                            "\tld.shared.u32 %r8, [%r7];\n\tadd.u32 %v, %v, %r8;\n"
                            "\tmbarrier.arrive.b64 %s, [%rd5];\nSECOND:\n"
                            "\tmbarrier.test_wait.b64 %p2, [%rd5], %s;\n\t@!%p2 bra SECOND;\n"
                            "\txor.b32 %r6, %r6, 1;\n\tadd.u32 %r5, %r5, 1;\n"
                            "\tsetp.lt.u32 %p3, %r5, 3;\n\t@%p3 bra PHASE;",
                        64);
  for (uint32_t t = 0; t < 64; ++t) REQUIRE(v[t] == 3 * (t ^ 32) + 3);
}

TEST_CASE("mbarrier: counts, .noComplete, pending_count and arrive_drop", "[simulator][mbarrier]") {
  // Thread 0 alone: pending_count reads the count before each arrive-on.
  auto v = run_mbarrier(
      "\tmbarrier.init.shared.b64 [%b], 39;\n"
      "\tmbarrier.arrive.noComplete.shared.b64 %s, [%b], 8;\n"
      "\tmbarrier.pending_count.b64 %r1, %s;\n"
      "\tmbarrier.arrive.noComplete.shared.b64 %s, [%b], 30;\n"
      "\tmbarrier.pending_count.b64 %r2, %s;\n\tmbarrier.arrive.shared.b64 %s, [%b];\n"
      "\tmbarrier.test_wait.shared.b64 %p1, [%b], %s;\n\tselp.u32 %r3, 1, 0, %p1;\n"
      "\tmad.lo.u32 %v, %r1, 10000, %r3;\n\tmad.lo.u32 %v, %r2, 10, %v;",
      1);
  REQUIRE(v[0] == 39 * 10000 + 31 * 10 + 1);
  // Warp 1 drops out after the first phase; warp 0 goes on alone in the second.
  auto d = run_mbarrier(init("64") +
                            "\tsetp.ge.u32 %p2, %t, 32;\n\t@%p2 bra DROP;\n"
                            "\tmbarrier.arrive.shared.b64 %s, [%b];\nW1:\n"
                            "\tmbarrier.test_wait.shared.b64 %p3, [%b], %s;\n\t@!%p3 bra W1;\n"
                            "\tmbarrier.arrive.shared.b64 %s, [%b];\nW2:\n"
                            "\tmbarrier.test_wait.shared.b64 %p3, [%b], %s;\n\t@!%p3 bra W2;\n"
                            "\tmov.u32 %v, 2;\n\tbra.uni END;\nDROP:\n"
                            "\tmbarrier.arrive_drop.shared.b64 _, [%b];\n\tmov.u32 %v, 1;\nEND:",
                        64);
  for (uint32_t t = 0; t < 64; ++t) REQUIRE(d[t] == (t < 32 ? 2u : 1u));
}

TEST_CASE("mbarrier: what the manual leaves undefined is a fault", "[simulator][mbarrier]") {
  auto e = mbarrier_fault("\tmbarrier.arrive.shared.b64 %s, [%b];", 32);
  REQUIRE_THAT(e.what(), Contains("not initialised"));
  e = mbarrier_fault(
      "\tmbarrier.init.shared.b64 [%b], 4;\n"
      "\tmbarrier.arrive.noComplete.shared.b64 %s, [%b], 4;",
      1);
  REQUIRE_THAT(e.what(), Contains(".noComplete"));
  e = mbarrier_fault("\tmbarrier.init.shared.b64 [%b], 0;", 1);
  REQUIRE_THAT(e.what(), Contains("[1, 2^20 - 1]"));
  e = mbarrier_fault("\tmov.u64 %rd5, 64;\n\tmbarrier.init.b64 [%rd5], 1;", 1);
  REQUIRE_THAT(e.what(), Contains("outside shared memory"));
  REQUIRE_THROWS_WITH(run_mbarrier("\tmbarrier.try_wait.shared.b64 %p1, [%b], %s;", 1),
                      Contains("requires sm_90"));
}

TEST_CASE("mbarrier: sm_90's arrive with a count and try_wait, as cuda::barrier writes them",
          "[simulator][mbarrier]") {
  // CCCL's barrier<thread_scope_block>::arrive()/wait() on sm_90 (nvcc 13): isspacep of the
  // cluster's shared window, arrive with a count of 1 (no .noComplete), try_wait polling.
  auto v = run_mbarrier(init("96") +
                            "\tcvta.shared.u64 %rd5, bar;\n"
                            "\tisspacep.shared::cluster %p2, %rd5;\n\tselp.u32 %r9, 100, 0, %p2;\n"
                            "\tshl.b32 %r1, %t, 2;\n\tadd.u32 %r2, %cells, %r1;\n"
                            "\tst.shared.u32 [%r2], %t;\n\tmov.u32 %r5, 1;\n"
                            "\tmbarrier.arrive.shared::cta.b64 %s, [%b], %r5;\nWAIT:\n"
                            "\t{\n\t.reg .pred p;\n\tmbarrier.try_wait.shared.b64 p, [%b], %s;\n"
                            "\tselp.b32 %r6, 1, 0, p;\n\t}\n\tsetp.eq.u32 %p3, %r6, 0;\n"
                            "\t@%p3 bra WAIT;\n\tsub.u32 %r4, 95, %t;\n\tshl.b32 %r4, %r4, 2;\n"
                            "\tadd.u32 %r4, %cells, %r4;\n\tld.shared.u32 %v, [%r4];\n"
                            "\tadd.u32 %v, %v, %r9;",
                        96, "sm_90", "8.0");
  for (uint32_t t = 0; t < 96; ++t) REQUIRE(v[t] == 95 - t + 100);
}
