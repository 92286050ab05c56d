#include "block_fibers.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/context/detail/fcontext.hpp>
#include <cstdio>
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
  static constexpr size_t kBytes = BlockFibers::kStackBytes;  // room for local arrays and libm

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
    // Page-aligned: static shared arrays may ask for up to 1024 (alignment=).
    buffer.reset(static_cast<unsigned char*>(std::aligned_alloc(4096, rounded)));
    if (!buffer) throw std::bad_alloc();
    capacity = rounded;
  }
  return buffer.get();
}

struct BlockFibers::Fiber {
  enum class State : uint8_t { Ready, AtBarrier, AtWarp, AtConverge, Done };
  static constexpr int32_t kSyncWarp = -1;  // a warp operation that only waits
  target::HostThreadContext thread;
  fctx::fcontext_t context = nullptr;    // where the fiber goes on
  fctx::fcontext_t scheduler = nullptr;  // where it hands control back
  State state = State::Ready;
  int32_t op = 0;         // BarrierOp at a barrier; WarpOp or kSyncWarp at a warp operation
  int32_t predicate = 0;  // a barrier's predicate
  uint32_t mask = 0;      // a warp operation's lanes
  int64_t value = 0;      // and this lane's value
  int32_t arg = 0;
  int64_t result = 0;
  BlockFibers* block = nullptr;
};

namespace {

using Fiber = BlockFibers::Fiber;
using State = Fiber::State;

// Hands control back to the block's scheduler until the fiber's barrier or
// warp operation completes.
int64_t wait(Fiber& fiber) {
  fctx::transfer_t back = fctx::jump_fcontext(fiber.scheduler, nullptr);
  fiber.scheduler = back.fctx;
  return fiber.result;
}

// ctx->barrier and ctx->warp: called by the kernel's code on the fiber's stack.
int32_t fiber_barrier(target::HostThreadContext* thread, int32_t op, int32_t predicate) {
  auto* fiber = static_cast<Fiber*>(thread->runtime);
  if (op == target::kWarpSync) {
    fiber->op = Fiber::kSyncWarp;
    fiber->mask = uint32_t(predicate);
    fiber->state = State::AtWarp;
  } else if (op == target::kConverge) {
    fiber->op = op;
    fiber->predicate = predicate;  // the line of the branch or loop
    fiber->state = State::AtConverge;
  } else {
    fiber->op = op;
    fiber->predicate = predicate;
    fiber->state = State::AtBarrier;
  }
  return int32_t(wait(*fiber));
}

int64_t fiber_warp(target::HostThreadContext* thread, int32_t op, uint32_t mask, int64_t value,
                   int32_t arg) {
  auto* fiber = static_cast<Fiber*>(thread->runtime);
  fiber->op = op;
  fiber->mask = mask;
  fiber->value = value;
  fiber->arg = arg;
  fiber->state = State::AtWarp;
  return wait(*fiber);
}

// What warp operation `op` gives `lane` (0-31), from the values of the lanes
// taking part: `present` (bit per lane) of `values`.
int64_t warp_result(const Fiber& f, int lane, uint32_t present, const int64_t* values) {
  auto value_of = [&](int64_t source) {
    bool there = source >= 0 && source < 32 && (present >> source & 1u);
    return there ? values[source] : f.value;  // off the warp's edge: the caller's own value
  };
  // The lane or offset is the argument's low five bits (PTX's bval = b[4:0]): a delta of 33
  // shifts by 1, as on a GPU.
  const int32_t b = f.arg & 31;
  switch (f.op) {
    case target::kShflIdx:
      return value_of(b);
    case target::kShflUp:
      return value_of(int64_t(lane) - b);
    case target::kShflDown:
      return value_of(int64_t(lane) + b);
    case target::kShflXor:
      return value_of(int64_t(lane ^ b));
    default:
      break;
  }
  uint32_t lanes = f.mask & present, set = 0, same = 0;
  for (int l = 0; l < 32; ++l) {
    if (!(lanes >> l & 1u)) continue;
    if (values[l] != 0) set |= 1u << l;
    if (values[l] == f.value) same |= 1u << l;
  }
  switch (f.op) {
    case target::kVoteAll:
      return set == lanes;
    case target::kVoteAny:
      return set != 0;
    case target::kVoteUni:
      return set == lanes || set == 0;
    case target::kBallot:
      return set;
    case target::kMatchAny:
      return same;
    case target::kMatchAll:
      return same == lanes ? int64_t(lanes) | (int64_t(1) << 32) : 0;
    default:  // kSyncWarp
      return 0;
  }
}

void resume(Fiber& fiber) {
  fctx::transfer_t back = fctx::jump_fcontext(fiber.context, &fiber);
  fiber.context = back.fctx;
}

std::string hex(uint32_t v) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%x", v);
  return text;
}

std::string dim3_text(const uint32_t v[3]) {
  std::string text = "(";  // appended: GCC 12 warns falsely about "(" + ... (-Wrestrict)
  text += std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]);
  return text + ")";
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
                         unsigned char* dynamic_shared, GridBarrier* grid)
    : entry_(entry),
      params_(params),
      dims_(dims),
      shared_(shared),
      dynamic_shared_(dynamic_shared),
      grid_(grid),
      fibers_(size_t(dims.block[0]) * dims.block[1] * dims.block[2]) {}

BlockFibers::~BlockFibers() = default;

namespace {

alignas(4) const int32_t kNeverAbandoned = 0;  // the flag of launches that cannot be abandoned

}  // namespace

void BlockFibers::run(int64_t linear_block) {
  const uint32_t gx = dims_.grid[0], gy = dims_.grid[1];
  const uint32_t bx = dims_.block[0], by = dims_.block[1];
  const uint32_t block_idx[3] = {uint32_t(linear_block % gx), uint32_t(linear_block / gx % gy),
                                 uint32_t(linear_block / (int64_t(gx) * gy))};
  FiberStacks& stacks = thread_stacks();
  grid_syncs_ = 0;
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
    t.warp = fiber_warp;
    t.runtime = &f;
    t.raised = 0;
    t.stack_limit = reinterpret_cast<uintptr_t>(stacks.top(i)) - BlockFibers::kRecursionBytes;
    t.stack_overflow = dims_.stack_overflow;
    t.abandon = dims_.abandon ? dims_.abandon : &kNeverAbandoned;
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
    // An abandoned launch (a Ctrl-C): threads returned at loop back-edges while others may
    // wait at barriers they will never complete. The waiting fibers are dropped, as a
    // BarrierError drops them (their stacks hold no objects to destroy).
    if (dims_.abandon && std::atomic_ref<const int32_t>(*dims_.abandon).load() != 0) return;
    if (!release_barriers()) throw BarrierError(stuck_message());
  }
}

// Lets through every thread whose barrier or warp operation is complete;
// false if none is.
bool BlockFibers::release_barriers() {
  bool released = false;
  const size_t n = fibers_.size();
  // Warp operations: a lane goes on once every lane of its mask is at the same
  // operation with the same mask (activemask: once every live lane of the
  // warp waits somewhere; its result is the lanes at the same call site, the
  // lanes that are together there).
  for (size_t warp = 0; warp < n; warp += 32) {
    const int width = int(std::min<size_t>(32, n - warp));
    uint32_t present = 0, parked_or_done = 0;
    int64_t values[32] = {};
    for (int l = 0; l < width; ++l) {
      const Fiber& f = fibers_[warp + size_t(l)];
      if (f.state == State::AtWarp) present |= 1u << l;
      if (f.state != State::Ready) parked_or_done |= 1u << l;
      values[l] = f.value;
    }
    if (present == 0) continue;
    const uint32_t all_lanes = width == 32 ? ~0u : (1u << width) - 1;
    int64_t results[32] = {};
    uint32_t passing = 0;
    for (int l = 0; l < width; ++l) {
      const Fiber& f = fibers_[warp + size_t(l)];
      if (!(present >> l & 1u)) continue;
      if (f.op == target::kActiveMask) {
        if (parked_or_done != all_lanes) continue;
        uint32_t together = 0;
        for (int k = 0; k < width; ++k) {
          const Fiber& other = fibers_[warp + size_t(k)];
          if ((present >> k & 1u) && other.op == target::kActiveMask && other.arg == f.arg)
            together |= 1u << k;
        }
        results[l] = together;
      } else {
        if (!(f.mask >> l & 1u)) throw BarrierError(lane_outside_mask(warp, l, f.mask));
        // Its partners: the lanes of the mask at the same operation with the same mask.
        uint32_t needed = f.mask & all_lanes, partners = 0;
        for (int k = 0; k < width; ++k) {
          const Fiber& other = fibers_[warp + size_t(k)];
          if ((present >> k & 1u) && other.op == f.op && other.mask == f.mask) partners |= 1u << k;
        }
        if ((needed & partners) != needed) continue;
        results[l] = warp_result(f, l, partners, values);
      }
      passing |= 1u << l;
    }
    for (int l = 0; l < width; ++l) {
      if (!(passing >> l & 1u)) continue;
      Fiber& f = fibers_[warp + size_t(l)];
      f.result = results[l];
      f.state = State::Ready;
      released = true;
    }
  }

  // Where a branch or loop around a block barrier ends: the lanes of a warp go on once
  // each has returned or is there (lanes that skipped the barrier wait for those at it).
  for (size_t warp = 0; warp < n; warp += 32) {
    const size_t end = std::min(n, warp + 32);
    bool met = true, any = false;
    for (size_t i = warp; i < end; ++i) {
      met = met && (fibers_[i].state == State::AtConverge || fibers_[i].state == State::Done);
      any = any || fibers_[i].state == State::AtConverge;
    }
    if (!met || !any) continue;
    for (size_t i = warp; i < end; ++i)
      if (fibers_[i].state == State::AtConverge) fibers_[i].state = State::Ready;
    released = true;
  }

  // syncthreads: every thread of the block that has not returned, as on a GPU
  // (where threads that exited do not hold a barrier up: Numba's own tiled
  // matmul example returns early before its barriers).
  size_t at_barrier = 0, done = 0, count = 0, at_grid = 0;
  for (const Fiber& f : fibers_) {
    done += f.state == State::Done;
    if (f.state != State::AtBarrier) continue;
    ++at_barrier;
    count += f.predicate != 0;
    at_grid += f.op == target::kGridSync;
  }
  if (at_barrier > 0 && at_barrier + done == n) {
    if (at_grid != 0 && at_grid != at_barrier) {
      std::string message = "the threads of block ";  // appended: GCC 12 -Wrestrict
      message += dim3_text(fibers_[0].thread.block_idx);
      message += " cannot meet at a barrier (undefined behaviour on a GPU): ";
      message += std::to_string(at_grid) + " wait at the grid's sync(), ";
      message += std::to_string(at_barrier - at_grid) + " at cuda.syncthreads()";
      throw BarrierError(message);
    }
    if (at_grid != 0) {
      // The whole block is here: it waits, on its OS thread, for the other blocks.
      if (grid_ == nullptr)
        throw BarrierError("cuda.cg.this_grid().sync() in a kernel launched without a grid");
      grid_->arrive_and_wait();
      ++grid_syncs_;
    }
    const bool all = count == at_barrier;
    for (Fiber& f : fibers_) {
      if (f.state != State::AtBarrier) continue;
      f.result = f.op == target::kBarrierCount ? int64_t(count)
                 : f.op == target::kBarrierAnd ? int64_t(all)
                 : f.op == target::kBarrierOr  ? int64_t(count != 0)
                                               : 0;
      f.state = State::Ready;
    }
    released = true;
  }
  return released;
}

std::string BlockFibers::lane_outside_mask(size_t warp, int lane, uint32_t mask) const {
  return "lane " + std::to_string(lane) + " of warp " + std::to_string(warp / 32) + " of block " +
         dim3_text(fibers_[warp].thread.block_idx) + " called a warp operation whose mask " +
         hex(mask) + " leaves it out (an illegal instruction on a GPU)";
}

std::string BlockFibers::stuck_message() const {
  constexpr size_t kStates = 5;
  size_t counts[kStates] = {};
  const Fiber* first[kStates] = {};
  for (const Fiber& f : fibers_) {
    auto s = static_cast<size_t>(f.state);
    if (counts[s]++ == 0) first[s] = &f;
  }
  std::string message = "the threads of block " + dim3_text(fibers_[0].thread.block_idx) +
                        " cannot meet at a barrier (undefined behaviour on a GPU):";
  // Threads at barriers, named after the first: all at syncthreads, or all at the grid's sync.
  const bool grid = first[1] != nullptr && first[1]->op == target::kGridSync;
  // Threads that skipped a barrier wait where the branch or loop around it ends.
  const std::string skipped =
      first[3] ? " where the branch or loop at line " + std::to_string(first[3]->predicate) +
                     " ends, having skipped the barrier the others of their warp wait at"
               : std::string();
  const std::string singular[kStates] = {
      "", grid ? "waits at the grid's sync()" : "waits at cuda.syncthreads()",
      "waits at a warp operation (syncwarp, shuffle, vote, match)", "waits" + skipped,
      "has returned"};
  const std::string plural[kStates] = {
      "", grid ? "wait at the grid's sync()" : "wait at cuda.syncthreads()",
      "wait at a warp operation (syncwarp, shuffle, vote, match)", "wait" + skipped,
      "have returned"};
  const char* separator = " ";
  for (size_t s = 1; s < kStates; ++s) {
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
