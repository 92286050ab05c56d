#include "guarded_loops.hpp"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PatternMatch.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ScalarEvolutionExpander.h>

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

#include "bounds_check_versioning.hpp"
#include "llvm_support.hpp"

namespace cudajit::target::detail {

namespace {

using namespace llvm::PatternMatch;

// A comparison every kept iteration satisfies: `lhs predicate rhs`, rhs invariant, lhs
// invariant too or {g,+,1} of the loop, which does not wrap over the loop's iterations.
struct Condition {
  llvm::CmpInst::Predicate predicate;
  const llvm::SCEV* lhs;
  const llvm::SCEV* rhs;
  const llvm::SCEVAddRecExpr* varying = nullptr;  // lhs where it is the loop's {g,+,1}
};

// A branch to fold: the iterations the loop keeps all take its edge `take`.
struct Guard {
  llvm::BranchInst* branch;
  unsigned take;
};

enum class Relation { Less, AtMost, Greater, AtLeast, Equal };

// What a predicate other than NE says, signed or not.
Relation relation(llvm::CmpInst::Predicate predicate) {
  switch (predicate) {
    case llvm::CmpInst::ICMP_SLT:
    case llvm::CmpInst::ICMP_ULT:
      return Relation::Less;
    case llvm::CmpInst::ICMP_SLE:
    case llvm::CmpInst::ICMP_ULE:
      return Relation::AtMost;
    case llvm::CmpInst::ICMP_SGT:
    case llvm::CmpInst::ICMP_UGT:
      return Relation::Greater;
    case llvm::CmpInst::ICMP_SGE:
    case llvm::CmpInst::ICMP_UGE:
      return Relation::AtLeast;
    default:
      return Relation::Equal;
  }
}

bool counts_up_by_one(const llvm::SCEV* s, const llvm::Loop& loop) {
  auto* rec = llvm::dyn_cast<llvm::SCEVAddRecExpr>(s);
  return rec && rec->getLoop() == &loop && rec->isAffine() &&
         llvm::isa<llvm::SCEVConstant>(rec->getOperand(1)) &&
         llvm::cast<llvm::SCEVConstant>(rec->getOperand(1))->getAPInt().isOne();
}

class GuardNarrower {
 public:
  GuardNarrower(llvm::Function& f, llvm::LoopInfo& loops, llvm::DominatorTree& dominators,
                llvm::ScalarEvolution& scev)
      : function_(f), loops_(loops), dominators_(dominators), scev_(scev) {}

  // Runs the iterations [first, end) where every guard holds: the index starts at the
  // first, the exit test stops before the end, and a test before the loop skips it when no
  // iteration is kept. Where the body then has a two-sided `if` on the index, the loop runs
  // as three, before, inside and after the range where it holds.
  bool narrow(llvm::Loop& loop) {
    llvm::BasicBlock* preheader = loop.getLoopPreheader();
    llvm::BasicBlock* header = loop.getHeader();
    llvm::BasicBlock* latch = loop.getLoopLatch();
    llvm::BasicBlock* exit = loop.getUniqueExitBlock();
    if (!preheader || !latch || latch == header || loop.getExitingBlock() != latch || !exit)
      return false;
    // Only the index goes from one iteration to the next and no value leaves the loop: its
    // iterations may run as consecutive loops, or be skipped where they would do nothing.
    if (std::distance(header->phis().begin(), header->phis().end()) != 1) return false;
    llvm::PHINode* index = &*header->phis().begin();
    if (!counts_up_by_one(scev_.getSCEV(index), loop)) return false;
    for (llvm::BasicBlock* block : loop.blocks())
      for (llvm::Instruction& i : *block)
        for (const llvm::User* user : i.users())
          if (!loop.contains(llvm::cast<llvm::Instruction>(user))) return false;
    // Iterations may be skipped only where the latch just counts.
    bool skippable = std::none_of(latch->begin(), latch->end(), [](const llvm::Instruction& i) {
      return llvm::isa<llvm::PHINode>(i) || i.mayHaveSideEffects();
    });
    trips_ = scev_.getBackedgeTakenCount(&loop);
    if (llvm::isa<llvm::SCEVCouldNotCompute>(trips_) || trips_->getType() != index->getType() ||
        trips_->getType()->getIntegerBitWidth() > 64 ||
        scev_.getUnsignedRangeMax(trips_).getActiveBits() > 62)
      return false;

    // The exit: the latch leaves once a counter {c,+,1} reaches an invariant end.
    auto* exit_branch = llvm::dyn_cast<llvm::BranchInst>(latch->getTerminator());
    if (!exit_branch || !exit_branch->isConditional()) return false;
    auto* exit_test = llvm::dyn_cast<llvm::ICmpInst>(exit_branch->getCondition());
    if (!exit_test || !exit_test->hasOneUse()) return false;
    unsigned end_operand = 1;
    llvm::CmpInst::Predicate exit_predicate = exit_test->getPredicate();
    if (!scev_.isLoopInvariant(scev_.getSCEV(exit_test->getOperand(1)), &loop)) {
      end_operand = 0;
      exit_predicate = llvm::CmpInst::getSwappedPredicate(exit_predicate);
    }
    const llvm::SCEV* counter = scev_.getSCEV(exit_test->getOperand(1 - end_operand));
    if (!scev_.isLoopInvariant(scev_.getSCEV(exit_test->getOperand(end_operand)), &loop) ||
        !counts_up_by_one(counter, loop) || counter->getType() != index->getType())
      return false;
    bool leaves_when_true = exit_branch->getSuccessor(0) == exit;
    if (leaves_when_true ? exit_predicate != llvm::CmpInst::ICMP_EQ
                         : exit_predicate != llvm::CmpInst::ICMP_NE &&
                               exit_predicate != llvm::CmpInst::ICMP_ULT &&
                               exit_predicate != llvm::CmpInst::ICMP_SLT)
      return false;

    // The guards: the header's branch to the latch, then those of the blocks that only
    // the previous guard leads to, each in a block without side effects (a skipped
    // iteration ran them).
    std::vector<Guard> guards;
    conditions_.clear();
    llvm::BasicBlock* body_start = header;  // the first block the kept iterations run alone
    for (llvm::BasicBlock* block = header; skippable;) {
      if (std::any_of(block->begin(), block->end(),
                      [](const llvm::Instruction& i) { return i.mayHaveSideEffects(); }))
        break;
      auto* branch = llvm::dyn_cast<llvm::BranchInst>(block->getTerminator());
      if (!branch || !branch->isConditional()) break;
      unsigned skip = branch->getSuccessor(0) == latch ? 0 : 1;
      if (branch->getSuccessor(skip) != latch || branch->getSuccessor(1 - skip) == latch) break;
      size_t before = conditions_.size();
      if (!conditions_of(loop, branch->getCondition(), /*negated=*/skip == 0)) {
        conditions_.resize(before);
        break;
      }
      guards.push_back({branch, 1 - skip});
      llvm::BasicBlock* next = branch->getSuccessor(1 - skip);
      body_start = next;
      if (next->getSinglePredecessor() != block) break;
      block = next;
    }
    std::vector<Condition> kept_conditions = std::move(conditions_);
    conditions_.clear();
    // Then the first two-sided `if` of what they run (`v = s[t - d] if t >= d else 0`, after
    // the blocks that lead to it alone): the loop is split at the range where it holds.
    llvm::BranchInst* two_sided = nullptr;
    {
      llvm::BasicBlock* block = body_start;
      for (auto* next = block->getSingleSuccessor(); next && next != latch && loop.contains(next);
           next = block->getSingleSuccessor())
        block = next;
      auto* branch = llvm::dyn_cast<llvm::BranchInst>(block->getTerminator());
      // (A bounds check is versioned instead, after this pass.)
      if (branch && branch->isConditional() && block != latch && !is_bounds_branch(branch) &&
          loop.contains(branch->getSuccessor(0)) && loop.contains(branch->getSuccessor(1)) &&
          conditions_of(loop, branch->getCondition(), /*negated=*/false))
        two_sided = branch;
    }
    std::vector<Condition> split_conditions =
        two_sided ? std::move(conditions_) : std::vector<Condition>{};
    if (guards.empty() && !two_sided) return false;

    llvm::SCEVExpander expander = scev_expander(scev_, *function_.getParent(), "guard");
    llvm::Instruction* at = preheader->getTerminator();
    auto* counted = llvm::cast<llvm::SCEVAddRecExpr>(counter);
    if (!expander.isSafeToExpandAt(trips_, at) ||
        !expander.isSafeToExpandAt(counted->getStart(), at))
      return false;
    for (const auto* conditions : {&kept_conditions, &split_conditions})
      for (const Condition& c : *conditions)
        if (!expander.isSafeToExpandAt(c.varying ? c.varying->getStart() : c.lhs, at) ||
            !expander.isSafeToExpandAt(c.rhs, at))
          return false;

    llvm::IRBuilder<> b(at);
    Kept kept = kept_iterations(b, expander, at, kept_conditions);
    Shape shape{&loop,
                index,
                exit_test,
                end_operand,
                exit,
                index->getIncomingValueForBlock(preheader),
                expander.expandCodeFor(counted->getStart(), index->getType(), at)};
    if (two_sided)
      split_at(shape, guards, two_sided, kept, kept_iterations(b, expander, at, split_conditions),
               b);
    else
      narrow_to(shape, guards, kept, b);
    dominators_.recalculate(function_);
    scev_.forgetLoop(&loop);
    return true;
  }

 private:
  // What the transforms change in a loop: where the index starts, where the exit test
  // stops it (a counter that starts at `counted_from`), and where it leaves to.
  struct Shape {
    llvm::Loop* loop;
    llvm::PHINode* index;
    llvm::ICmpInst* exit_test;
    unsigned end_operand;
    llvm::BasicBlock* exit;
    llvm::Value* start;
    llvm::Value* counted_from;
  };

  struct Kept {
    llvm::Value* first;  // iterations counted from 0, in 64 bits
    llvm::Value* end;    // one past the last
    llvm::Value* any;    // first < end, and every invariant condition holds
  };

  // The loop runs iterations [from, to) (64-bit iteration numbers from 0), `preheader`
  // its preheader: the index starts and the exit test stops accordingly.
  static void run_iterations(llvm::IRBuilder<>& b, const Shape& shape, llvm::PHINode* index,
                             llvm::ICmpInst* exit_test, llvm::BasicBlock* preheader,
                             llvm::Value* from, llvm::Value* to) {
    llvm::Type* type = index->getType();
    index->setIncomingValueForBlock(preheader, b.CreateAdd(shape.start, b.CreateTrunc(from, type)));
    llvm::Value* last = b.CreateTrunc(b.CreateSub(to, b.getInt64(1)), type);
    exit_test->setOperand(shape.end_operand, b.CreateAdd(shape.counted_from, last));
  }

  static void fold(llvm::BranchInst* branch, unsigned take) {
    llvm::IRBuilder<>(branch).CreateBr(branch->getSuccessor(take));
    branch->eraseFromParent();
  }

  // Only the kept iterations run, without their guards; none where none is kept.
  void narrow_to(const Shape& shape, const std::vector<Guard>& guards, const Kept& kept,
                 llvm::IRBuilder<>& b) {
    llvm::BasicBlock* preheader = shape.loop->getLoopPreheader();
    llvm::BasicBlock* latch = shape.loop->getLoopLatch();
    llvm::BasicBlock* entry =
        llvm::SplitEdge(preheader, shape.loop->getHeader(), &dominators_, &loops_);
    b.SetInsertPoint(preheader->getTerminator());
    run_iterations(b, shape, shape.index, shape.exit_test, entry, kept.first, kept.end);
    preheader->getTerminator()->eraseFromParent();
    llvm::IRBuilder<>(preheader).CreateCondBr(kept.any, entry, shape.exit);
    for (llvm::PHINode& phi : shape.exit->phis())  // values from outside, as from the latch
      phi.addIncoming(phi.getIncomingValueForBlock(latch), preheader);
    for (const Guard& g : guards) fold(g.branch, g.take);
  }

  // Three copies of the loop one after the other, over the iterations before the range
  // where `branch`'s condition holds, the range, and those after it, each with the branch
  // folded and each skipped when it has no iteration. The order of the iterations is the
  // loop's: nothing needs to be independent.
  void split_at(const Shape& shape, const std::vector<Guard>& guards, llvm::BranchInst* branch,
                const Kept& kept, const Kept& within, llvm::IRBuilder<>& b) {
    llvm::Loop& loop = *shape.loop;
    llvm::BasicBlock* preheader = loop.getLoopPreheader();
    llvm::BasicBlock* latch = loop.getLoopLatch();
    // The kept iterations [low, high) in three parts: below [low, from), the range where
    // `branch` holds [from, to), above [to, high).
    llvm::Value* zero = b.getInt64(0);
    llvm::Value* low = b.CreateSelect(kept.any, kept.first, zero);
    llvm::Value* high = b.CreateSelect(kept.any, kept.end, zero);
    auto clamp = [&](llvm::Value* v) {
      return b.CreateBinaryIntrinsic(llvm::Intrinsic::smin,
                                     b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, v, low), high);
    };
    llvm::Value* from = clamp(b.CreateSelect(within.any, within.first, high));
    llvm::Value* to = clamp(b.CreateSelect(within.any, within.end, high));

    llvm::BasicBlock* entry = llvm::SplitEdge(preheader, loop.getHeader(), &dominators_, &loops_);
    b.SetInsertPoint(preheader->getTerminator());
    struct Copy {
      llvm::Loop* loop;
      llvm::ValueToValueMapTy map;
      llvm::BasicBlock* preheader;  // entry's copy (without a predecessor yet)
    } below, above;
    for (auto [copy, place, suffix] :
         {std::tuple{&below, entry, ".below"}, std::tuple{&above, shape.exit, ".above"}}) {
      llvm::SmallVector<llvm::BasicBlock*, 16> blocks;
      copy->loop = llvm::cloneLoopWithPreheader(place, preheader, &loop, copy->map, suffix, &loops_,
                                                &dominators_, blocks);
      llvm::remapInstructionsInBlocks(blocks, copy->map);
      copy->preheader = llvm::cast<llvm::BasicBlock>(copy->map[entry]);
    }
    auto index_of = [&](Copy& copy) { return llvm::cast<llvm::PHINode>(copy.map[shape.index]); };
    auto test_of = [&](Copy& copy) {
      return llvm::cast<llvm::ICmpInst>(copy.map[shape.exit_test]);
    };
    run_iterations(b, shape, index_of(below), test_of(below), below.preheader, low, from);
    run_iterations(b, shape, shape.index, shape.exit_test, entry, from, to);
    run_iterations(b, shape, index_of(above), test_of(above), above.preheader, to, high);
    for (const Guard& g : guards) {  // copies first: the maps forget what is erased
      fold(llvm::cast<llvm::BranchInst>(below.map[g.branch]), g.take);
      fold(llvm::cast<llvm::BranchInst>(above.map[g.branch]), g.take);
      fold(g.branch, g.take);
    }
    fold(llvm::cast<llvm::BranchInst>(below.map[branch]), 1);
    fold(llvm::cast<llvm::BranchInst>(above.map[branch]), 1);
    fold(branch, 0);

    // preheader -> [below] -> [range] -> [above] -> exit, each entered when it has iterations.
    llvm::LLVMContext& context = function_.getContext();
    auto test = [&](const char* name, llvm::Value* begin, llvm::Value* end, llvm::BasicBlock* run,
                    llvm::BasicBlock* skip) {
      auto* block = llvm::BasicBlock::Create(context, name, &function_, run);
      if (llvm::Loop* parent = loop.getParentLoop()) parent->addBasicBlockToLoop(block, loops_);
      llvm::IRBuilder<>(block).CreateCondBr(b.CreateICmpSLT(begin, end), run, skip);
      return block;
    };
    llvm::BasicBlock* to_above = test("split.above", to, high, above.preheader, shape.exit);
    llvm::BasicBlock* to_range = test("split.range", from, to, entry, to_above);
    llvm::BasicBlock* to_below = test("split.below", low, from, below.preheader, to_range);
    preheader->getTerminator()->setSuccessor(0, to_below);
    below.loop->getLoopLatch()->getTerminator()->replaceSuccessorWith(shape.exit, to_range);
    latch->getTerminator()->replaceSuccessorWith(shape.exit, to_above);
    for (llvm::PHINode& phi : shape.exit->phis()) {  // values from outside the loop
      llvm::Value* v = phi.getIncomingValueForBlock(latch);
      phi.removeIncomingValue(latch, /*DeletePHIIfEmpty=*/false);
      phi.addIncoming(v, above.loop->getLoopLatch());
      phi.addIncoming(v, to_above);
    }
  }

  // The and-ed comparisons of a guard's condition (the or-ed ones, negated, where the
  // loop keeps its false edge); false where one is not a Condition.
  bool conditions_of(const llvm::Loop& loop, llvm::Value* v, bool negated) {
    llvm::Value *x, *y;
    if (negated ? match(v, m_LogicalOr(m_Value(x), m_Value(y)))
                : match(v, m_LogicalAnd(m_Value(x), m_Value(y))))
      return conditions_of(loop, x, negated) && conditions_of(loop, y, negated);
    auto* cmp = llvm::dyn_cast<llvm::ICmpInst>(v);
    if (!cmp) {  // a flag the same in every iteration (`if active and i < n`)
      if (!v->getType()->isIntegerTy(1) || !scev_.isLoopInvariant(scev_.getSCEV(v), &loop))
        return false;
      conditions_.push_back({negated ? llvm::CmpInst::ICMP_EQ : llvm::CmpInst::ICMP_NE,
                             scev_.getSCEV(v), scev_.getZero(v->getType())});
      return true;
    }
    Condition c{negated ? cmp->getInversePredicate() : cmp->getPredicate(),
                scev_.getSCEV(cmp->getOperand(0)), scev_.getSCEV(cmp->getOperand(1))};
    if (scev_.isLoopInvariant(c.lhs, &loop)) {
      std::swap(c.lhs, c.rhs);
      c.predicate = llvm::CmpInst::getSwappedPredicate(c.predicate);
    }
    if (!scev_.isLoopInvariant(c.rhs, &loop)) return false;
    c.predicate = ordered(c.predicate, c.rhs);
    if (!scev_.isLoopInvariant(c.lhs, &loop)) {
      if (!counts_up_by_one(c.lhs, loop) || c.predicate == llvm::CmpInst::ICMP_NE) return false;
      c.varying = llvm::cast<llvm::SCEVAddRecExpr>(c.lhs);
      if (!free_of_wrap(c.varying, c.predicate)) return false;
    }
    conditions_.push_back(c);
    return true;
  }

  // {g,+,1} over the loop's iterations stays within its type, as the predicate reads it
  // (SCEV's ranges: a thread loop's g is blockIdx * blockDim, whose loads carry !range).
  bool free_of_wrap(const llvm::SCEVAddRecExpr* rec, llvm::CmpInst::Predicate predicate) {
    unsigned bits = rec->getType()->getIntegerBitWidth();
    llvm::APInt most = scev_.getUnsignedRangeMax(trips_);
    if (most.getActiveBits() >= bits) return false;
    most = most.zextOrTrunc(bits);
    bool overflow = false;
    if (llvm::CmpInst::isSigned(predicate))
      (void)scev_.getSignedRangeMax(rec->getStart()).sadd_ov(most, overflow);
    else
      (void)scev_.getUnsignedRangeMax(rec->getStart()).uadd_ov(most, overflow);
    return !overflow;
  }

  // Iteration m satisfies g + m < y when m < y - g, and so on. The difference d = y - g is
  // taken in 64 bits, exact for narrower types; for 64-bit ones it saturates (signed) or is
  // -1 where y < g (unsigned), which the m in [0, 2^62) of a loop compare with alike.
  Kept kept_iterations(llvm::IRBuilder<>& b, llvm::SCEVExpander& expander, llvm::Instruction* at,
                       const std::vector<Condition>& conditions) {
    llvm::Type* i64 = b.getInt64Ty();
    llvm::Value* one = b.getInt64(1);
    llvm::Value* first = b.getInt64(0);
    llvm::Value* end =
        b.CreateAdd(b.CreateZExtOrTrunc(expander.expandCodeFor(trips_, nullptr, at), i64), one);
    llvm::Value* invariant = b.getTrue();
    for (const Condition& c : conditions) {
      llvm::Value* rhs = expander.expandCodeFor(c.rhs, nullptr, at);
      if (!c.varying) {
        llvm::Value* lhs = expander.expandCodeFor(c.lhs, nullptr, at);
        invariant = b.CreateAnd(invariant, b.CreateICmp(c.predicate, lhs, rhs));
        continue;
      }
      llvm::Value* g = expander.expandCodeFor(c.varying->getStart(), nullptr, at);
      bool is_signed = llvm::CmpInst::isSigned(c.predicate);
      llvm::Value* d;
      if (rhs->getType()->getIntegerBitWidth() < 64) {
        auto extend = [&](llvm::Value* v) {
          return is_signed ? b.CreateSExt(v, i64) : b.CreateZExt(v, i64);
        };
        d = b.CreateSub(extend(rhs), extend(g));
      } else if (is_signed) {
        d = b.CreateBinaryIntrinsic(llvm::Intrinsic::ssub_sat, rhs, g);
      } else {
        d = b.CreateSelect(b.CreateICmpULT(rhs, g), b.getInt64(-1),
                           b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, b.CreateSub(rhs, g),
                                                   b.getInt64(INT64_MAX)));
      }
      llvm::Value* d_plus_one = b.CreateBinaryIntrinsic(llvm::Intrinsic::sadd_sat, d, one);
      auto below = [&](llvm::Value* v) {
        end = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, end, v);
      };
      auto from = [&](llvm::Value* v) {
        first = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, first, v);
      };
      switch (relation(c.predicate)) {
        case Relation::Less:
          below(d);
          break;
        case Relation::AtMost:
          below(d_plus_one);
          break;
        case Relation::Greater:
          from(d_plus_one);
          break;
        case Relation::AtLeast:
          from(d);
          break;
        case Relation::Equal:
          from(d);
          below(d_plus_one);
          break;
      }
    }
    return {first, end, b.CreateAnd(invariant, b.CreateICmpSLT(first, end))};
  }

  llvm::Function& function_;
  llvm::LoopInfo& loops_;
  llvm::DominatorTree& dominators_;
  llvm::ScalarEvolution& scev_;
  const llvm::SCEV* trips_ = nullptr;
  std::vector<Condition> conditions_;
};

}  // namespace

llvm::PreservedAnalyses NarrowToGuard::run(llvm::Function& function,
                                           llvm::FunctionAnalysisManager& analyses) {
  auto& loops = analyses.getResult<llvm::LoopAnalysis>(function);
  auto& dominators = analyses.getResult<llvm::DominatorTreeAnalysis>(function);
  auto& scev = analyses.getResult<llvm::ScalarEvolutionAnalysis>(function);
  GuardNarrower narrower(function, loops, dominators, scev);
  bool changed = false;
  for (llvm::Loop* loop : innermost_loops(loops)) changed |= narrower.narrow(*loop);
  if (!changed) return llvm::PreservedAnalyses::all();
  return llvm::PreservedAnalyses::none();
}

}  // namespace cudajit::target::detail
