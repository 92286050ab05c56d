#include "guarded_loops.hpp"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PatternMatch.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/ScalarEvolutionExpander.h>

#include <algorithm>
#include <utility>
#include <vector>

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

  // Runs the iterations [first, last] where every guard holds: the index starts at the
  // first, the exit test stops after the last, and a test before the loop skips it when
  // no iteration is kept.
  bool narrow(llvm::Loop& loop) {
    llvm::BasicBlock* preheader = loop.getLoopPreheader();
    llvm::BasicBlock* header = loop.getHeader();
    llvm::BasicBlock* latch = loop.getLoopLatch();
    llvm::BasicBlock* exit = loop.getUniqueExitBlock();
    if (!preheader || !latch || latch == header || loop.getExitingBlock() != latch || !exit)
      return false;
    // A skipped iteration changes nothing: only the index goes from one iteration to the
    // next, no value leaves the loop, and the latch only counts.
    if (std::distance(header->phis().begin(), header->phis().end()) != 1) return false;
    llvm::PHINode* index = &*header->phis().begin();
    if (!counts_up_by_one(scev_.getSCEV(index), loop)) return false;
    for (llvm::BasicBlock* block : loop.blocks())
      for (llvm::Instruction& i : *block)
        for (const llvm::User* user : i.users())
          if (!loop.contains(llvm::cast<llvm::Instruction>(user))) return false;
    for (llvm::Instruction& i : *latch)
      if (llvm::isa<llvm::PHINode>(i) || i.mayHaveSideEffects()) return false;
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
    for (llvm::BasicBlock* block = header;;) {
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
      if (next->getSinglePredecessor() != block) break;
      block = next;
    }
    if (guards.empty()) return false;

#if LLVM_VERSION_MAJOR >= 22
    llvm::SCEVExpander expander(scev_, "guard");
#else
    llvm::SCEVExpander expander(scev_, function_.getParent()->getDataLayout(), "guard");
#endif
    llvm::Instruction* at = preheader->getTerminator();
    auto* counted = llvm::cast<llvm::SCEVAddRecExpr>(counter);
    if (!expander.isSafeToExpandAt(trips_, at) ||
        !expander.isSafeToExpandAt(counted->getStart(), at))
      return false;
    for (const Condition& c : conditions_) {
      if (!expander.isSafeToExpandAt(c.varying ? c.varying->getStart() : c.lhs, at) ||
          !expander.isSafeToExpandAt(c.rhs, at))
        return false;
    }

    llvm::IRBuilder<> b(at);
    auto [first, end_iteration, any] = kept_iterations(b, expander, at);
    llvm::Type* type = index->getType();
    first = b.CreateTrunc(first, type);
    llvm::Value* last = b.CreateTrunc(b.CreateSub(end_iteration, b.getInt64(1)), type);
    llvm::Value* start = b.CreateAdd(index->getIncomingValueForBlock(preheader), first);
    llvm::Value* end = b.CreateAdd(expander.expandCodeFor(counted->getStart(), type, at), last);

    llvm::BasicBlock* entry = llvm::SplitEdge(preheader, header, &dominators_, &loops_);
    preheader->getTerminator()->eraseFromParent();
    llvm::IRBuilder<>(preheader).CreateCondBr(any, entry, exit);
    for (llvm::PHINode& phi : exit->phis())  // values from outside the loop, as from the latch
      phi.addIncoming(phi.getIncomingValueForBlock(latch), preheader);
    index->setIncomingValueForBlock(entry, start);
    exit_test->setOperand(end_operand, end);
    for (const Guard& g : guards) {
      llvm::IRBuilder<>(g.branch).CreateBr(g.branch->getSuccessor(g.take));
      g.branch->eraseFromParent();
    }
    dominators_.recalculate(function_);
    scev_.forgetLoop(&loop);
    return true;
  }

 private:
  // The and-ed comparisons of a guard's condition (the or-ed ones, negated, where the
  // loop keeps its false edge); false where one is not a Condition.
  bool conditions_of(const llvm::Loop& loop, llvm::Value* v, bool negated) {
    llvm::Value *x, *y;
    if (negated ? match(v, m_LogicalOr(m_Value(x), m_Value(y)))
                : match(v, m_LogicalAnd(m_Value(x), m_Value(y))))
      return conditions_of(loop, x, negated) && conditions_of(loop, y, negated);
    auto* cmp = llvm::dyn_cast<llvm::ICmpInst>(v);
    if (!cmp) return false;
    Condition c{negated ? cmp->getInversePredicate() : cmp->getPredicate(),
                scev_.getSCEV(cmp->getOperand(0)), scev_.getSCEV(cmp->getOperand(1))};
    if (scev_.isLoopInvariant(c.lhs, &loop)) {
      std::swap(c.lhs, c.rhs);
      c.predicate = llvm::CmpInst::getSwappedPredicate(c.predicate);
    }
    if (!scev_.isLoopInvariant(c.rhs, &loop)) return false;
    // InstCombine's form of `0 < j` for a j it knows is not negative.
    if (c.predicate == llvm::CmpInst::ICMP_NE && c.rhs->isZero())
      c.predicate = llvm::CmpInst::ICMP_UGT;
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

  struct Kept {
    llvm::Value* first;  // iterations counted from 0, in 64 bits
    llvm::Value* end;    // one past the last
    llvm::Value* any;    // first < end, and every invariant condition holds
  };

  // Iteration m satisfies g + m < y when m < y - g, and so on. The difference d = y - g is
  // taken in 64 bits, exact for narrower types; for 64-bit ones it saturates (signed) or is
  // -1 where y < g (unsigned), which the m in [0, 2^62) of a loop compare with alike.
  Kept kept_iterations(llvm::IRBuilder<>& b, llvm::SCEVExpander& expander, llvm::Instruction* at) {
    llvm::Type* i64 = b.getInt64Ty();
    llvm::Value* one = b.getInt64(1);
    llvm::Value* first = b.getInt64(0);
    llvm::Value* end =
        b.CreateAdd(b.CreateZExtOrTrunc(expander.expandCodeFor(trips_, nullptr, at), i64), one);
    llvm::Value* invariant = b.getTrue();
    for (const Condition& c : conditions_) {
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
  llvm::PreservedAnalyses kept;
  kept.preserve<llvm::LoopAnalysis>();
  kept.preserve<llvm::DominatorTreeAnalysis>();
  return kept;
}

}  // namespace cudajit::target::detail
