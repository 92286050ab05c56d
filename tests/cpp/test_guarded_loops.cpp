// NarrowToGuard (compiler/src/target/guarded_loops.cpp) on loops written in IR: what it
// narrows, what it splits, what it leaves. Its results are tested against NumPy by
// tests/python/test_cpu_guarded_loops.py (kernels compiled for x86-64-v3).
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Instructions.h>

#include <catch2/catch.hpp>
#include <string>

#include "../../compiler/src/target/guarded_loops.hpp"
#include "function_pass.hpp"

namespace {

// A loop over i in [0, 256) of the body `body` (which ends by branching to %latch), for a
// thread loop's index g = base + i, base below 2^32 as blockIdx * blockDim is; %active is a
// flag the same in every iteration.
std::string loop_of(const std::string& body) {
  return R"(
define void @kernel(ptr %out, ptr %in, i64 %n, i32 %b, i1 %active) {
entry:
  %base = zext i32 %b to i64
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %g = add nuw nsw i64 %base, %i
)" + body +
         R"(
latch:
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, 256
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
)";
}

struct Narrowed : PassedFunction {
  unsigned loops = 0;             // innermost loops after the pass
  unsigned guarded_branches = 0;  // conditional branches on an `icmp` of %g left in them

  explicit Narrowed(const std::string& ir)
      : PassedFunction(ir, "kernel", cudajit::target::detail::NarrowToGuard()) {
    auto& info = function_analyses.getResult<llvm::LoopAnalysis>(*function);
    for (llvm::Loop* loop : info.getLoopsInPreorder()) {
      if (!loop->isInnermost()) continue;
      ++loops;
      for (llvm::BasicBlock* block : loop->blocks()) {
        auto* branch = llvm::dyn_cast<llvm::BranchInst>(block->getTerminator());
        if (branch == nullptr || !branch->isConditional() || block == loop->getLoopLatch())
          continue;
        ++guarded_branches;
      }
    }
  }
};

}  // namespace

TEST_CASE("a loop whose body is `if g < n` runs only the g that pass, untested", "[target][host]") {
  Narrowed result(loop_of(R"(
  %c = icmp slt i64 %g, %n
  br i1 %c, label %body, label %latch
body:
  %p = getelementptr float, ptr %out, i64 %g
  store float 1.0, ptr %p
  br label %latch
)"));
  CHECK(result.loops == 1);
  CHECK(result.guarded_branches == 0);
}

TEST_CASE("an `if` with two sides on the index splits the loop in three", "[target][host]") {
  Narrowed result(loop_of(R"(
  %c = icmp sge i64 %g, %n
  br i1 %c, label %then, label %else
then:
  %q = getelementptr float, ptr %in, i64 %g
  %v = load float, ptr %q
  br label %join
else:
  br label %join
join:
  %x = phi float [ %v, %then ], [ 0.0, %else ]
  %p = getelementptr float, ptr %out, i64 %g
  store float %x, ptr %p
  br label %latch
)"));
  CHECK(result.loops == 3);
  CHECK(result.guarded_branches == 0);
}

TEST_CASE("a flag the same in every iteration joins the guard's range test", "[target][host]") {
  Narrowed result(loop_of(R"(
  %below = icmp slt i64 %g, %n
  %c = select i1 %active, i1 %below, i1 false
  br i1 %c, label %body, label %latch
body:
  %p = getelementptr float, ptr %out, i64 %g
  store float 1.0, ptr %p
  br label %latch
)"));
  CHECK(result.loops == 1);
  CHECK(result.guarded_branches == 0);
}

TEST_CASE("a guard that reads memory stays a test in each iteration", "[target][host]") {
  Narrowed result(loop_of(R"(
  %q = getelementptr float, ptr %in, i64 %g
  %v = load float, ptr %q
  %c = fcmp ogt float %v, 0.0
  br i1 %c, label %body, label %latch
body:
  %p = getelementptr float, ptr %out, i64 %g
  store float %v, ptr %p
  br label %latch
)"));
  CHECK(result.loops == 1);
  CHECK(result.guarded_branches == 1);
}

TEST_CASE("an index whose wrap-around SCEV cannot rule out is left alone", "[target][host]") {
  // g = n + i for an unbounded n: g may wrap past 2^63, where `g < m` is not a range of i.
  std::string ir = loop_of(R"(
  %h = add i64 %n, %i
  %c = icmp slt i64 %h, 1000
  br i1 %c, label %body, label %latch
body:
  %p = getelementptr float, ptr %out, i64 %g
  store float 1.0, ptr %p
  br label %latch
)");
  Narrowed result(ir);
  CHECK(result.loops == 1);
  CHECK(result.guarded_branches == 1);
}
