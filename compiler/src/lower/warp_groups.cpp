// A split block's thread loops between two block barriers that warp functions or syncwarp
// divide (a warp group), run warp by warp on the cpu device: for each warp of the block, the
// group's loops over its 32 lanes one after another, instead of each loop over all the
// block's threads. Only a warp's own lanes see its warp functions and syncwarp, and other
// warps' threads meet a warp's only at block barriers, which end the group: every lane
// still sees what it would on a GPU. Values a lane carries from one of these loops to the
// next that the group alone uses live in arrays of the warp's 32 lanes instead of the
// block's threads; once LLVM unrolls the lane loops they are registers, a shuffle is a
// register's move, and lanes whose results nothing reads are never computed (a warp
// reduction adds 31 numbers for its lane 0, as a loop over the 32 would).
//
// Two shapes, chosen per block: where blockDim.x is a multiple of 32 a warp is 32 consecutive
// threads of one row (threadIdx.x = 32 * w + lane), its lane loops unrolled where small;
// otherwise the warps are the block's threads 32 at a time in order of their linear index
// (the last maybe short, a warp maybe across rows, as on a GPU), their lane loops not
// unrolled. Either is a warp's code alone, in arrays of its own (a block-wide copy of the
// loops beside them, sharing arrays, cost more compile time than this second shape).
#include "../target/bounds_check_versioning.hpp"
#include "fission.hpp"
#include "lowering.hpp"

namespace cudajit::lower {

using ir::Node;
using ir::NodeKind;

namespace {

constexpr uint64_t kLanes = 32;  // a warp's

// for (i = begin; i < end; ++i) body(i), known to run at least once; `unrolled`: LLVM
// unrolls it fully once its bounds checks are versioned (a loop of 32 copies of each check
// would cost a warp reduction half its compile time).
void count_up(llvm::IRBuilder<>& b, llvm::Value* begin, llvm::Value* end,
              const std::function<void(llvm::Value*)>& body, bool unrolled = false) {
  llvm::BranchInst* latch = counted_loop(b, begin, end, body, /*runs=*/true);
  if (unrolled) set_loop_hint(latch, target::detail::kUnrollAfterChecks);
}

void count_names(const Node& s, std::unordered_map<std::string, int>& counts) {
  visit(s, [&](const Node& n) {
    if (n.kind == NodeKind::Name) ++counts[n.text];
  });
}

// Whether the group's lane loops are unrolled fully (32 copies of each): small ones, with
// no loop of their own.
bool unroll_lanes(const std::vector<std::vector<const Node*>>& runs) {
  constexpr size_t kMostNodes = 400;
  size_t nodes = 0;
  bool loops = false;
  for (const auto& run : runs)
    for (const Node* s : run)
      visit(*s, [&](const Node& n) {
        ++nodes;
        loops |= n.kind == NodeKind::For || n.kind == NodeKind::While;
      });
  return !loops && nodes <= kMostNodes;
}

}  // namespace

void FunctionLowering::split_group(const WarpGroup& group) {
  auto end_of = [&](size_t k) { return k < group.ends.size() ? group.ends[k] : nullptr; };
  if (group.ends.empty() || !fusable(group)) {
    for (size_t k = 0; k < group.runs.size(); ++k)
      split_run(group.runs[k], end_of(k), group.guards[k], true);
    return;
  }
  // Block scalars' assignments, every run's, once before either form (fusable: they may).
  WarpGroup rest;
  rest.runs.clear();
  for (const auto& run : group.runs) {
    rest.runs.emplace_back();
    for (const Node* s : run) {
      if (!hoisted_.count(s)) {
        rest.runs.back().push_back(s);
        continue;
      }
      block_scalar_assignment(*s);
    }
  }
  rest.ends = group.ends;
  rest.guards = group.guards;
  llvm::Value* dim_x =
      b_.CreateLoad(b_.getInt32Ty(), b_.CreateConstGEP1_32(b_.getInt32Ty(), thread_ctx_, 3));
  auto* whole_rows = llvm::BasicBlock::Create(m_.context, "warps", fn_);
  auto* any_shape = llvm::BasicBlock::Create(m_.context, "warps.any_shape", fn_);
  auto* merge = llvm::BasicBlock::Create(m_.context, "warps.end", fn_);
  b_.CreateCondBr(b_.CreateICmpEQ(b_.CreateAnd(dim_x, b_.getInt32(31)), b_.getInt32(0)), whole_rows,
                  any_shape);
  b_.SetInsertPoint(whole_rows);
  warp_loops(rest, true);
  b_.CreateBr(merge);
  b_.SetInsertPoint(any_shape);
  warp_loops(rest, false);
  b_.CreateBr(merge);
  b_.SetInsertPoint(merge);
}

// Whether the group may run warp by warp: its block scalars' assignments can all go before
// its first loop (none assigns a name an earlier run's loop mentions, or reads one it
// assigns), and no thread returns early.
bool FunctionLowering::fusable(const WarpGroup& group) const {
  if (returned_ != nullptr) return false;
  std::unordered_set<std::string> mentioned, assigned;
  for (size_t k = 0; k < group.runs.size(); ++k) {
    for (const Node* s : group.runs[k]) {
      if (!hoisted_.count(s)) continue;
      std::unordered_set<std::string> target, reads;
      targets(s->child(0), target);
      names_in(s->child(1), reads);
      for (const std::string& t : target)
        if (mentioned.count(t)) return false;
      for (const std::string& r : reads)
        if (assigned.count(r)) return false;
    }
    for (const Node* s : group.runs[k])
      if (!hoisted_.count(s)) {
        names_in(*s, mentioned);
        assigned_in(*s, assigned);
      }
  }
  return true;
}

// The variables only the group's statements mention, where the group runs once per block
// (in no split loop): each lane's values can live in its warp's arrays. Not with debug
// information (a debugger reads the block's arrays), not what a block scalar reads.
std::unordered_set<std::string> FunctionLowering::warp_local_names(const WarpGroup& group) const {
  std::unordered_set<std::string> out;
  if (split_loop_depth_ > 0 || subprogram_ != nullptr) return out;
  std::unordered_map<std::string, int> everywhere, here;
  for (const auto& s : f_.function->body) count_names(*s, everywhere);
  std::unordered_set<std::string> read_once;
  for (const auto& run : group.runs)
    for (const Node* s : run) {
      count_names(*s, here);
      if (hoisted_.count(s)) names_in(*s, read_once);
    }
  const auto& params = f_.function->params;
  for (const auto& [name, count] : here) {
    if (everywhere[name] != count || !slots_.count(name) || recomputed_names_.count(name) ||
        read_once.count(name) || std::find(params.begin(), params.end(), name) != params.end())
      continue;
    out.insert(name);
  }
  return out;
}

// The group's runs for one warp, each a loop over its `width` lanes (i32): `start()` before
// it, `enter(lane)` giving the lane its thread's indices, `leave()` moving them on to the
// next lane's.
void FunctionLowering::warp_runs(const WarpGroup& group, llvm::Value* width, bool unrolled,
                                 const std::function<void()>& start,
                                 const std::function<void(llvm::Value*)>& enter,
                                 const std::function<void()>& leave) {
  llvm::BasicBlock* warp_start = b_.GetInsertBlock();
  warp_width_ = b_.CreateZExt(width, b_.getInt64Ty());
  for (size_t k = 0; k < group.runs.size(); ++k) {
    const Node* end = k < group.ends.size() ? group.ends[k] : nullptr;
    if (group.runs[k].empty() && end == nullptr) continue;
    start();
    count_up(
        b_, b_.getInt32(0), width,
        [&](llvm::Value* lane) {
          enter(lane);
          warp_lane_ = b_.CreateZExt(lane, b_.getInt64Ty());
          for (const Node* s : recomputed_) stmt(*s);
          guarded(group.guards[k], [&] {
            for (const Node* s : group.runs[k]) stmt(*s);
            if (end != nullptr) store_warp_operands(*end);
          });
          leave();
        },
        unrolled);
  }
  // The warp's arrays hold nothing from one warp to the next: what a lane leaves in them
  // that the group does not read again is dead, and LLVM drops its computation.
  llvm::IRBuilder<> at_start(warp_start, warp_start->getFirstInsertionPt());
  std::vector<llvm::AllocaInst*> arrays;
  for (const auto& [_, array] : warp_slots_) arrays.push_back(array);
  for (const auto& [_, array] : warp_exchanges_) arrays.push_back(array);
  for (llvm::AllocaInst* array : arrays) {
    at_start.CreateLifetimeStart(array);
    b_.CreateLifetimeEnd(array);
  }
}

// Rows of whole warps (blockDim.x a multiple of 32): for tz, ty, and each warp w of the row,
// the group's runs over its 32 lanes (tx = 32 * w + lane), unrolled where small.
// Otherwise: the block's threads in order of their linear index, 32 to a warp, the last
// warp maybe short and warps maybe across rows, as on a GPU; lane loops not unrolled.
void FunctionLowering::warp_loops(const WarpGroup& group, bool whole_rows) {
  auto* i32 = b_.getInt32Ty();
  auto* i64 = b_.getInt64Ty();
  auto index_slot = [&](int k) { return b_.CreateConstGEP1_32(i32, thread_ctx_, k); };
  llvm::Value* dims[3];
  for (int d = 0; d < 3; ++d) dims[d] = b_.CreateLoad(i32, index_slot(3 + d));
  warp_local_ = warp_local_names(group);
  auto nothing = [] {};
  if (whole_rows) {
    llvm::Value* warps = b_.CreateLShr(dims[0], b_.getInt32(5));
    count_up(b_, b_.getInt32(0), dims[2], [&](llvm::Value* tz) {
      b_.CreateStore(tz, index_slot(2));
      count_up(b_, b_.getInt32(0), dims[1], [&](llvm::Value* ty) {
        b_.CreateStore(ty, index_slot(1));
        llvm::Value* row = b_.CreateMul(
            b_.CreateAdd(b_.CreateMul(b_.CreateZExt(tz, i64), b_.CreateZExt(dims[1], i64)),
                         b_.CreateZExt(ty, i64)),
            b_.CreateZExt(dims[0], i64));
        count_up(b_, b_.getInt32(0), warps, [&](llvm::Value* w) {
          // No wrap (a row has at most 32 warps of 32): SCEV sees tx affine in the lane.
          llvm::Value* first = b_.CreateShl(w, b_.getInt32(5), "", true, true);
          warp_runs(
              group, b_.getInt32(kLanes), unroll_lanes(group.runs), nothing,
              [&](llvm::Value* lane) {
                llvm::Value* tx = b_.CreateAdd(first, lane, "", true, true);
                b_.CreateStore(tx, index_slot(0));
                thread_id_ = b_.CreateAdd(row, b_.CreateZExt(tx, i64));
              },
              nothing);
        });
      });
    });
  } else {
    // The lane's (tx, ty, tz), counted on from the warp's first thread's.
    llvm::AllocaInst* at[3];
    {
      llvm::IRBuilderBase::InsertPointGuard guard(b_);
      b_.SetInsertPoint(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
      for (auto& a : at) a = b_.CreateAlloca(i32, nullptr, "warp.thread");
    }
    llvm::Value* rows = b_.CreateMul(dims[0], dims[1]);
    llvm::Value* threads = b_.CreateMul(rows, dims[2]);
    llvm::Value* warps = b_.CreateLShr(b_.CreateAdd(threads, b_.getInt32(31)), b_.getInt32(5));
    count_up(b_, b_.getInt32(0), warps, [&](llvm::Value* w) {
      llvm::Value* first = b_.CreateShl(w, b_.getInt32(5), "", true, true);
      llvm::Value* width = b_.CreateBinaryIntrinsic(
          llvm::Intrinsic::umin, b_.CreateSub(threads, first), b_.getInt32(kLanes));
      auto start = [&] {
        b_.CreateStore(b_.CreateURem(first, dims[0]), at[0]);
        b_.CreateStore(b_.CreateURem(b_.CreateUDiv(first, dims[0]), dims[1]), at[1]);
        b_.CreateStore(b_.CreateUDiv(first, rows), at[2]);
      };
      auto enter = [&](llvm::Value* lane) {
        for (int d = 0; d < 3; ++d) b_.CreateStore(b_.CreateLoad(i32, at[d]), index_slot(d));
        thread_id_ = b_.CreateZExt(b_.CreateAdd(first, lane, "", true, true), i64);
      };
      auto leave = [&] {  // tx + 1, carried into ty and tz at a row's and a plane's end
        llvm::Value* carry = b_.getTrue();
        for (int d = 0; d < 3; ++d) {
          llvm::Value* v = b_.CreateLoad(i32, at[d]);
          llvm::Value* next = b_.CreateAdd(v, b_.getInt32(1));
          llvm::Value* wraps = b_.CreateICmpEQ(next, dims[d]);
          b_.CreateStore(b_.CreateSelect(carry, b_.CreateSelect(wraps, b_.getInt32(0), next), v),
                         at[d]);
          carry = b_.CreateAnd(carry, wraps);
        }
      };
      warp_runs(group, width, false, start, enter, leave);
    });
  }
  thread_id_ = nullptr;
  warp_lane_ = nullptr;
  warp_width_ = nullptr;
  warp_local_.clear();
  // Each warp loop nest its own arrays: LLVM's memory analyses (GVN, DSE) then need not look
  // through one nest's loads and stores for another's (the two shapes shared them: 1.4x the
  // compile time of a warp reduction).
  warp_slots_.clear();
  warp_exchanges_.clear();
}

// Variable `name`'s element for the current thread (+ offset, i64): its lane's in its warp's
// array in a group's warp loops, else its thread's in the block's; of a complex variable kept
// as two arrays (split_parts), the real (part 0) or imaginary (1) part's.
llvm::Value* FunctionLowering::slot_element(const std::string& name, llvm::Value* offset,
                                            int part) {
  llvm::AllocaInst* array = slots_.at(name);
  llvm::Value* index = thread_id_;
  if (warp_lane_ != nullptr && warp_local_.count(name)) {
    llvm::AllocaInst*& lanes = warp_slots_[name];
    if (lanes == nullptr) {  // the lanes and as many spare: shfl_down reads lane + delta
      llvm::IRBuilderBase::InsertPointGuard guard(b_);
      b_.SetInsertPoint(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
      llvm::Type* element = array->getAllocatedType()->getArrayElementType();
      const std::string lanes_name = name + ".lanes";
      lanes = split_parts(array)
                  ? thread_array(llvm::ArrayType::get(element->getArrayElementType(), 2 * kLanes),
                                 2, lanes_name.c_str())
                  : thread_array(element, 2 * kLanes, lanes_name.c_str());
    }
    array = lanes;
    index = warp_lane_;
  }
  if (offset != nullptr) index = b_.CreateAdd(index, offset);
  if (part >= 0)
    return b_.CreateInBoundsGEP(array->getAllocatedType(), array,
                                {b_.getInt64(0), b_.getInt64(part), index});
  return b_.CreateInBoundsGEP(array->getAllocatedType(), array, {b_.getInt64(0), index});
}

}  // namespace cudajit::lower
