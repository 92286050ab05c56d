// StreamingStores (compiler/src/target/streaming_stores.cpp) on vectorised loops written in
// IR: which loops stream their stores, and how. Results against NumPy are tested by
// tests/python/test_cpu_streaming_stores.py.
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/Support/raw_ostream.h>

#include <catch2/catch.hpp>
#include <string>

#include "../../compiler/src/target/streaming_stores.hpp"
#include "function_pass.hpp"

namespace {

// A host entry whose loop runs `body` 64 times over float vectors of 16 at byte offset %o
// (%o.next the next one's) of parameter 1's array `out` (and parameter 2's `in`), then
// branches to %latch.
std::string entry_of(const std::string& body) {
  return R"(
define void @entry(ptr %params, ptr %dims, i64 %begin, i64 %end, ptr %shared) #0 {
entry:
  %slot.out = getelementptr i8, ptr %params, i64 8
  %at.out = load ptr, ptr %slot.out
  %out = load ptr, ptr %at.out
  %slot.in = getelementptr i8, ptr %params, i64 16
  %at.in = load ptr, ptr %slot.in
  %in = load ptr, ptr %at.in
  br label %loop
loop:
  %o = phi i64 [ 0, %entry ], [ %o.next, %latch ]
  %o.next = add nuw nsw i64 %o, 64
)" + body +
         R"(
latch:
  %done = icmp eq i64 %o.next, 4096
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
attributes #0 = { "cudajit-host-entry" }
)";
}

struct Streamed : PassedFunction {
  unsigned non_temporal = 0;  // stores marked !nontemporal
  unsigned fences = 0;        // SFENCEs

  explicit Streamed(const std::string& ir)
      : PassedFunction(ir, "entry", cudajit::target::detail::StreamingStores()) {
    for (llvm::Instruction& inst : llvm::instructions(*function)) {
      if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst);
          store && store->getMetadata(llvm::LLVMContext::MD_nontemporal)) {
        CHECK(store->getAlign().value() == 16);  // NumPy's arrays are 16 bytes past a page
        ++non_temporal;
      }
      if (auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst);
          call && call->getIntrinsicID() == llvm::Intrinsic::x86_sse_sfence)
        ++fences;
    }
  }
};

}  // namespace

TEST_CASE("a loop that writes an array from end to end streams its stores", "[target][host]") {
  Streamed result(entry_of(R"(
  %src = getelementptr i8, ptr %in, i64 %o
  %v = load <16 x float>, ptr %src, align 4
  %dst = getelementptr i8, ptr %out, i64 %o
  store <16 x float> %v, ptr %dst, align 4
  br label %latch
)"));
  CHECK(result.non_temporal == 1);
  CHECK(result.fences == 1);
  std::string text;
  llvm::raw_string_ostream os(text);
  result.module->print(os, nullptr);
  CHECK(text.find("%large_arrays = load i64") != std::string::npos);
  CHECK(text.find("lshr i64 %large_arrays, 1") != std::string::npos);  // parameter 1's bit
}

TEST_CASE("a masked store streams where every lane stores", "[target][host]") {
  Streamed result(entry_of(R"(
  %dst = getelementptr i8, ptr %out, i64 %o
  %lane = trunc i64 %o to i16
  %bits = bitcast i16 %lane to <16 x i1>
  call void @llvm.masked.store.v16f32.p0(<16 x float> zeroinitializer, ptr %dst, i32 4, <16 x i1> %bits)
  br label %latch
)"));
  CHECK(result.non_temporal == 1);
}

TEST_CASE("a loop that also reads the array it writes keeps its stores", "[target][host]") {
  Streamed result(entry_of(R"(
  %dst = getelementptr i8, ptr %out, i64 %o
  %v = load <16 x float>, ptr %dst, align 4
  store <16 x float> %v, ptr %dst, align 4
  br label %latch
)"));
  CHECK(result.non_temporal == 0);
  CHECK(result.fences == 0);
}

TEST_CASE("a loop that reads neighbours (a stencil) keeps its stores", "[target][host]") {
  Streamed result(entry_of(R"(
  %src = getelementptr i8, ptr %in, i64 %o
  %left = getelementptr i8, ptr %src, i64 -4
  %a = load <16 x float>, ptr %src, align 4
  %b = load <16 x float>, ptr %left, align 4
  %v = fadd <16 x float> %a, %b
  %dst = getelementptr i8, ptr %out, i64 %o
  store <16 x float> %v, ptr %dst, align 4
  br label %latch
)"));
  CHECK(result.non_temporal == 0);
}

TEST_CASE("stores that leave gaps are not a stream", "[target][host]") {
  Streamed result(entry_of(R"(
  %dst = getelementptr i8, ptr %out, i64 %o
  store <8 x float> zeroinitializer, ptr %dst, align 4
  br label %latch
)"));
  CHECK(result.non_temporal == 0);
}
