#include "block_fibers.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <boost/context/detail/fcontext.hpp>
#include <cstdlib>
#include <new>

#include "cudajit/runtime/host_launch.hpp"

namespace cudajit::runtime {

namespace fctx = boost::context::detail;

namespace {

// Fiber stacks of one OS thread, made on first need and kept: mapping them
// anew for each launch would cost a system call and fresh pages per thread.
// Each has a guard page below it, so a stack overflow faults instead of
// corrupting the next one.
class FiberStacks {
 public:
  static constexpr size_t kBytes = 256 * 1024;  // room for local arrays and libm

  ~FiberStacks() {
    for (void* base : bases_) munmap(base, kBytes + page());
  }

  // The top (highest address) of stack i; stacks grow down.
  void* top(size_t i) {
    while (bases_.size() <= i) {
      void* base = mmap(nullptr, kBytes + page(), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (base == MAP_FAILED) throw std::bad_alloc();
      mprotect(base, page(), PROT_NONE);
      bases_.push_back(base);
    }
    return static_cast<unsigned char*>(bases_[i]) + page() + kBytes;
  }

 private:
  static size_t page() {
    static const size_t bytes = size_t(sysconf(_SC_PAGESIZE));
    return bytes;
  }
  std::vector<void*> bases_;
};

FiberStacks& thread_stacks() {
  thread_local FiberStacks stacks;
  return stacks;
}

struct FreeDeleter {
  void operator()(unsigned char* p) const { std::free(p); }
};

}  // namespace

unsigned char* thread_shared_buffer(uint64_t bytes) {
  thread_local std::unique_ptr<unsigned char, FreeDeleter> buffer;
  thread_local uint64_t capacity = 0;
  if (bytes > capacity) {
    uint64_t rounded = (bytes + 4095) / 4096 * 4096;
    buffer.reset(static_cast<unsigned char*>(std::aligned_alloc(64, rounded)));
    if (!buffer) throw std::bad_alloc();
    capacity = rounded;
  }
  return buffer.get();
}

struct BlockFibers::Fiber {
  enum class State : uint8_t { Ready, AtBarrier, AtWarpSync, Done };
  target::HostThreadContext thread;
  fctx::fcontext_t context = nullptr;    // where the fiber goes on
  fctx::fcontext_t scheduler = nullptr;  // where it hands control back
  State state = State::Ready;
  int32_t op = 0;
  int32_t predicate = 0;  // the barrier's predicate, or syncwarp's mask
  int32_t result = 0;
  BlockFibers* block = nullptr;
};

namespace {

using Fiber = BlockFibers::Fiber;
using State = Fiber::State;

// ctx->barrier: called by the kernel's code on the fiber's stack.
int32_t fiber_barrier(target::HostThreadContext* thread, int32_t op, int32_t predicate) {
  auto* fiber = static_cast<Fiber*>(thread->runtime);
  fiber->op = op;
  fiber->predicate = predicate;
  fiber->state = op == target::kWarpSync ? State::AtWarpSync : State::AtBarrier;
  fctx::transfer_t back = fctx::jump_fcontext(fiber->scheduler, nullptr);
  fiber->scheduler = back.fctx;
  return fiber->result;
}

void resume(Fiber& fiber) {
  fctx::transfer_t back = fctx::jump_fcontext(fiber.context, &fiber);
  fiber.context = back.fctx;
}

std::string dim3_text(const uint32_t v[3]) {
  return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) +
         ")";
}

}  // namespace

namespace {

// Runs the thread on its fiber, then hands control back for good.
void fiber_main(fctx::transfer_t from) {
  auto* fiber = static_cast<Fiber*>(from.data);
  fiber->scheduler = from.fctx;
  fiber->block->run_thread(&fiber->thread);
  fiber->state = State::Done;
  fctx::jump_fcontext(fiber->scheduler, nullptr);
}

}  // namespace

BlockFibers::BlockFibers(target::HostThreadEntry entry, void** params,
                         const target::LaunchDims& dims, unsigned char* shared,
                         uint64_t static_shared_bytes)
    : entry_(entry),
      params_(params),
      dims_(dims),
      shared_(shared),
      dynamic_shared_(shared ? shared + (static_shared_bytes + 15) / 16 * 16 : nullptr),
      fibers_(size_t(dims.block[0]) * dims.block[1] * dims.block[2]) {}

BlockFibers::~BlockFibers() = default;

void BlockFibers::run(int64_t linear_block) {
  const uint32_t gx = dims_.grid[0], gy = dims_.grid[1];
  const uint32_t bx = dims_.block[0], by = dims_.block[1];
  const uint32_t block_idx[3] = {uint32_t(linear_block % gx), uint32_t(linear_block / gx % gy),
                                 uint32_t(linear_block / (int64_t(gx) * gy))};
  FiberStacks& stacks = thread_stacks();
  for (size_t i = 0; i < fibers_.size(); ++i) {
    Fiber& f = fibers_[i];
    target::HostThreadContext& t = f.thread;
    t.thread_idx[0] = uint32_t(i % bx);
    t.thread_idx[1] = uint32_t(i / bx % by);
    t.thread_idx[2] = uint32_t(i / (size_t(bx) * by));
    for (int d = 0; d < 3; ++d) {
      t.block_dim[d] = dims_.block[d];
      t.block_idx[d] = block_idx[d];
      t.grid_dim[d] = dims_.grid[d];
    }
    t.errors = dims_.errors;
    t.shared = shared_;
    t.dynamic_shared = dynamic_shared_;
    t.dynamic_shared_bytes = dims_.dynamic_shared_bytes;
    t.barrier = fiber_barrier;
    t.runtime = &f;
    f.state = State::Ready;
    f.block = this;
    f.context = fctx::make_fcontext(stacks.top(i), FiberStacks::kBytes, fiber_main);
  }
  for (;;) {
    bool all_done = true;
    for (Fiber& f : fibers_) {
      if (f.state == State::Ready) resume(f);
      all_done = all_done && f.state == State::Done;
    }
    if (all_done) return;
    if (!release_barriers()) throw BarrierError(stuck_message());
  }
}

// Lets through every thread whose barrier is complete; false if none is.
bool BlockFibers::release_barriers() {
  bool released = false;
  // syncwarp(mask): a lane goes on once every lane of its mask is at a syncwarp.
  const size_t n = fibers_.size();
  std::vector<size_t> passing;
  for (size_t i = 0; i < n; ++i) {
    if (fibers_[i].state != State::AtWarpSync) continue;
    size_t warp = i / 32 * 32;
    auto mask = uint32_t(fibers_[i].predicate);
    bool complete = true;
    for (size_t lane = 0; lane < 32 && warp + lane < n; ++lane)
      if ((mask >> lane & 1u) && fibers_[warp + lane].state != State::AtWarpSync) complete = false;
    if (complete) passing.push_back(i);
  }
  for (size_t i : passing) fibers_[i].state = State::Ready;
  released = !passing.empty();

  // syncthreads: every thread of the block, none returned.
  size_t at_barrier = 0, count = 0, all = 0;
  for (const Fiber& f : fibers_) {
    if (f.state != State::AtBarrier) continue;
    ++at_barrier;
    count += f.predicate != 0;
  }
  if (at_barrier == n) {
    all = count == n;
    for (Fiber& f : fibers_) {
      f.result = f.op == target::kBarrierCount ? int32_t(count)
                 : f.op == target::kBarrierAnd ? int32_t(all)
                 : f.op == target::kBarrierOr  ? int32_t(count != 0)
                                               : 0;
      f.state = State::Ready;
    }
    released = true;
  }
  return released;
}

std::string BlockFibers::stuck_message() const {
  size_t counts[4] = {};
  const Fiber* first[4] = {};
  for (const Fiber& f : fibers_) {
    auto s = static_cast<size_t>(f.state);
    if (counts[s]++ == 0) first[s] = &f;
  }
  std::string message = "the threads of block " + dim3_text(fibers_[0].thread.block_idx) +
                        " cannot all meet at a barrier (undefined behaviour on a GPU):";
  const char* singular[4] = {"", "waits at cuda.syncthreads()", "waits at cuda.syncwarp()",
                             "has returned"};
  const char* plural[4] = {"", "wait at cuda.syncthreads()", "wait at cuda.syncwarp()",
                           "have returned"};
  const char* separator = " ";
  for (size_t s = 1; s < 4; ++s) {
    if (counts[s] == 0) continue;
    bool one = counts[s] == 1;
    message += separator + std::to_string(counts[s]) + (one ? " thread " : " threads ") +
               (one ? singular[s] : plural[s]) + " (the first: threadIdx " +
               dim3_text(first[s]->thread.thread_idx) + ")";
    separator = ", ";
  }
  return message;
}

}  // namespace cudajit::runtime
