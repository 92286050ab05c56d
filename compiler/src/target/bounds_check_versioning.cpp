#include "bounds_check_versioning.hpp"

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PatternMatch.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/Local.h>
#include <llvm/Transforms/Utils/LoopSimplify.h>
#include <llvm/Transforms/Utils/LoopUtils.h>
#include <llvm/Transforms/Utils/ScalarEvolutionExpander.h>

#include <optional>
#include <vector>

namespace cudajit::target::detail {

namespace {

using namespace llvm::PatternMatch;

// One bounds check the fast copy drops: `cmp` is `index <u extent`, where the
// index may first wrap negatives (`wrap`: select(i < 0, i + extent, i), which
// is `i` once i is known to be in [0, extent)).
struct Check {
  llvm::ICmpInst* cmp = nullptr;
  llvm::Instruction* wrap = nullptr;
  llvm::Value* unwrapped = nullptr;
  const llvm::SCEV* index = nullptr;
  const llvm::SCEV* extent = nullptr;
  const llvm::SCEV* low = nullptr;  // the index's least and greatest value in the loop
  const llvm::SCEV* high = nullptr;
};

// The branch lowering's guard() makes: in bounds, or to the failure report.
bool is_bounds_branch(const llvm::BranchInst* branch) {
  return branch->isConditional() &&
         branch->getSuccessor(1)->getName().starts_with("index.out_of_bounds");
}

void and_leaves(llvm::Value* v, llvm::SmallVectorImpl<llvm::Value*>& out) {
  llvm::Value *a, *b;
  if (match(v, m_LogicalAnd(m_Value(a), m_Value(b)))) {
    and_leaves(a, out);
    and_leaves(b, out);
    return;
  }
  out.push_back(v);
}

// `i` when `v` is the negative-index wrap select(i < 0, i + extent, i), or the form
// InstCombine makes of it, i + select(i < 0, extent, 0).
llvm::Value* wrapped_index(llvm::Value* v, llvm::Value* extent) {
  llvm::Value* i = nullptr;
  llvm::ICmpInst::Predicate predicate;
  if (match(v, m_Select(m_ICmp(predicate, m_Value(i), m_Zero()),
                        m_c_Add(m_Deferred(i), m_Specific(extent)), m_Deferred(i))) &&
      predicate == llvm::ICmpInst::ICMP_SLT)
    return i;
  if (match(v,
            m_c_Add(m_Select(m_ICmp(predicate, m_Value(i), m_Zero()), m_Specific(extent), m_Zero()),
                    m_Deferred(i))) &&
      predicate == llvm::ICmpInst::ICMP_SLT)
    return i;
  return nullptr;
}

class LoopVersioner {
 public:
  LoopVersioner(llvm::Function& f, llvm::LoopInfo& loops, llvm::DominatorTree& dominators,
                llvm::ScalarEvolution& scev, llvm::AssumptionCache& assumptions)
      : function_(f),
        loops_(loops),
        dominators_(dominators),
        scev_(scev),
        assumptions_(assumptions) {}

  // The fast copies' blocks, whose branches fold once every loop is versioned
  // (folding sooner would leave the dominator tree stale for the next loop).
  const std::vector<llvm::BasicBlock*>& fast_blocks() const { return fast_blocks_; }

  bool version(llvm::Loop& loop) {
    llvm::simplifyLoop(&loop, &dominators_, &loops_, &scev_, &assumptions_, nullptr, false);
    if (!loop.getLoopPreheader() || !loop.getUniqueExitBlock() || !loop.getExitingBlock())
      return false;
    const llvm::SCEV* trips = scev_.getBackedgeTakenCount(&loop);
    if (llvm::isa<llvm::SCEVCouldNotCompute>(trips)) return false;
    std::vector<Check> checks = find_checks(loop);
    if (checks.empty()) return false;

    llvm::BasicBlock* test_block = loop.getLoopPreheader();
    llvm::Instruction* at = test_block->getTerminator();
    llvm::SCEVExpander expander(scev_, function_.getParent()->getDataLayout(), "bounds");
    if (!expander.isSafeToExpandAt(trips, at)) return false;
    for (Check& c : checks) {
      ends(c, trips);
      if (!expander.isSafeToExpandAt(c.low, at) || !expander.isSafeToExpandAt(c.high, at) ||
          !expander.isSafeToExpandAt(c.extent, at))
        return false;
    }
    llvm::Value* in_bounds = range_test(checks, trips, expander, at);

    llvm::formLCSSARecursively(loop, dominators_, &loops_, &scev_);
    llvm::BasicBlock* fast_preheader =
        llvm::SplitBlock(test_block, at, &dominators_, &loops_, nullptr, "bounds.fast");
    llvm::ValueToValueMapTy map;
    llvm::SmallVector<llvm::BasicBlock*, 16> checked_blocks;
    llvm::Loop* checked = llvm::cloneLoopWithPreheader(
        fast_preheader, test_block, &loop, map, ".checked", &loops_, &dominators_, checked_blocks);
    llvm::remapInstructionsInBlocks(checked_blocks, map);
    llvm::Instruction* old = test_block->getTerminator();
    llvm::IRBuilder<>(old).CreateCondBr(in_bounds, fast_preheader, checked->getLoopPreheader());
    old->eraseFromParent();
    llvm::BasicBlock* exit = loop.getUniqueExitBlock();
    dominators_.changeImmediateDominator(exit, test_block);
    for (llvm::PHINode& phi : exit->phis()) {  // LCSSA: the checked copy's values arrive too
      for (unsigned k = 0, n = phi.getNumIncomingValues(); k < n; ++k) {
        llvm::BasicBlock* from = phi.getIncomingBlock(k);
        if (!loop.contains(from)) continue;
        llvm::Value* v = phi.getIncomingValue(k);
        auto mapped = map.find(v);
        phi.addIncoming(mapped != map.end() ? static_cast<llvm::Value*>(mapped->second) : v,
                        llvm::cast<llvm::BasicBlock>(map[from]));
      }
    }
    drop_checks(loop, checks);
    return true;
  }

 private:
  std::vector<Check> find_checks(llvm::Loop& loop) {
    std::vector<Check> checks;
    llvm::SmallPtrSet<llvm::Value*, 16> seen;
    for (llvm::BasicBlock* block : loop.blocks()) {
      auto* branch = llvm::dyn_cast<llvm::BranchInst>(block->getTerminator());
      if (!branch || !is_bounds_branch(branch)) continue;
      llvm::SmallVector<llvm::Value*, 4> leaves;
      and_leaves(branch->getCondition(), leaves);
      for (llvm::Value* leaf : leaves) {
        if (!seen.insert(leaf).second) continue;
        if (auto check = analyse(loop, leaf)) checks.push_back(*check);
      }
    }
    return checks;
  }

  std::optional<Check> analyse(llvm::Loop& loop, llvm::Value* leaf) {
    llvm::ICmpInst::Predicate predicate;
    llvm::Value *index, *extent;
    auto* cmp = llvm::dyn_cast<llvm::ICmpInst>(leaf);
    if (!cmp || !match(cmp, m_ICmp(predicate, m_Value(index), m_Value(extent))))
      return std::nullopt;
    if (predicate == llvm::ICmpInst::ICMP_UGT)
      std::swap(index, extent);
    else if (predicate != llvm::ICmpInst::ICMP_ULT)
      return std::nullopt;
    Check c;
    c.cmp = cmp;
    if (llvm::Value* i = wrapped_index(index, extent)) {
      c.wrap = llvm::dyn_cast<llvm::Instruction>(index);
      c.unwrapped = i;
      index = i;
    }
    c.index = scev_.getSCEV(index);
    c.extent = scev_.getSCEV(extent);
    if (!scev_.isLoopInvariant(c.extent, &loop)) return std::nullopt;
    if (scev_.isLoopInvariant(c.index, &loop)) return c;
    auto* rec = llvm::dyn_cast<llvm::SCEVAddRecExpr>(c.index);
    if (!rec || rec->getLoop() != &loop || !rec->isAffine()) return std::nullopt;
    auto* step = llvm::dyn_cast<llvm::SCEVConstant>(rec->getStepRecurrence(scev_));
    if (!step || step->getAPInt().abs().getActiveBits() > 30) return std::nullopt;
    return c;
  }

  // Both ends of an affine index's range over the loop, in order; an invariant one is both.
  void ends(Check& c, const llvm::SCEV* trips) {
    c.low = c.high = c.index;
    auto* rec = llvm::dyn_cast<llvm::SCEVAddRecExpr>(c.index);
    if (!rec) return;
    c.low = rec->getStart();
    c.high = rec->evaluateAtIteration(scev_.getTruncateOrZeroExtend(trips, rec->getType()), scev_);
    if (llvm::cast<llvm::SCEVConstant>(rec->getStepRecurrence(scev_))->getAPInt().isNegative())
      std::swap(c.low, c.high);
  }

  // Every index of every iteration in [0, extent): for an affine index, both
  // ends of its range, in order (no wrap-around: at most 2^31 iterations of a
  // step below 2^30); an invariant one once.
  llvm::Value* range_test(const std::vector<Check>& checks, const llvm::SCEV* trips,
                          llvm::SCEVExpander& expander, llvm::Instruction* at) {
    llvm::IRBuilder<> b(at);
    llvm::Value* trip_count = expander.expandCodeFor(trips, nullptr, at);
    llvm::Value* ok = b.CreateICmpULT(
        trip_count, llvm::ConstantInt::get(trip_count->getType(), uint64_t(1) << 31));
    for (const Check& c : checks) {
      llvm::Value* extent = expander.expandCodeFor(c.extent, nullptr, at);
      llvm::Value* lo = expander.expandCodeFor(c.low, extent->getType(), at);
      llvm::Value* hi = expander.expandCodeFor(c.high, extent->getType(), at);
      ok = b.CreateAnd(ok, b.CreateAnd(b.CreateICmpULE(lo, hi), b.CreateICmpULT(hi, extent)));
    }
    return ok;
  }

  // In the fast copy each dropped check holds, and a wrapped index is the index itself.
  void drop_checks(llvm::Loop& loop, const std::vector<Check>& checks) {
    auto inside = [&](llvm::Use& use) {
      auto* user = llvm::dyn_cast<llvm::Instruction>(use.getUser());
      return user && loop.contains(user);
    };
    for (const Check& c : checks) {
      c.cmp->replaceUsesWithIf(llvm::ConstantInt::getTrue(c.cmp->getContext()), inside);
      if (c.wrap) c.wrap->replaceUsesWithIf(c.unwrapped, inside);
    }
    for (llvm::BasicBlock* block : loop.blocks()) fast_blocks_.push_back(block);
  }

  llvm::Function& function_;
  llvm::LoopInfo& loops_;
  llvm::DominatorTree& dominators_;
  llvm::ScalarEvolution& scev_;
  llvm::AssumptionCache& assumptions_;
  std::vector<llvm::BasicBlock*> fast_blocks_;
};

}  // namespace

llvm::PreservedAnalyses BoundsCheckVersioning::run(llvm::Function& function,
                                                   llvm::FunctionAnalysisManager& analyses) {
  auto& loops = analyses.getResult<llvm::LoopAnalysis>(function);
  auto& dominators = analyses.getResult<llvm::DominatorTreeAnalysis>(function);
  auto& scev = analyses.getResult<llvm::ScalarEvolutionAnalysis>(function);
  std::vector<llvm::Loop*> innermost;
  for (llvm::Loop* loop : loops.getLoopsInPreorder())
    if (loop->isInnermost()) innermost.push_back(loop);
  auto& assumptions = analyses.getResult<llvm::AssumptionAnalysis>(function);
  LoopVersioner versioner(function, loops, dominators, scev, assumptions);
  bool changed = false;
  for (llvm::Loop* loop : innermost) {
    if (versioner.version(*loop)) {
      changed = true;
      scev.forgetAllLoops();  // the cloned blocks' values are new to it
    }
  }
  if (!changed) return llvm::PreservedAnalyses::all();
  for (llvm::BasicBlock* block : versioner.fast_blocks()) llvm::ConstantFoldTerminator(block);
  llvm::removeUnreachableBlocks(function);
  return llvm::PreservedAnalyses::none();
}

}  // namespace cudajit::target::detail
