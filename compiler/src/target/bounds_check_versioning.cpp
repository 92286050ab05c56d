#include "bounds_check_versioning.hpp"

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/STLExtras.h>
#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Config/llvm-config.h>
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
#include <utility>
#include <vector>

#include "llvm_support.hpp"

namespace cudajit::target::detail {

bool is_bounds_branch(const llvm::BranchInst* branch) {
  return branch->isConditional() &&
         (branch->getSuccessor(1)->getName().starts_with("index.out_of_bounds") ||
          branch->getSuccessor(0)->getName().starts_with("index.out_of_bounds"));
}

llvm::CmpInst::Predicate ordered(llvm::CmpInst::Predicate predicate, const llvm::SCEV* rhs) {
  return predicate == llvm::CmpInst::ICMP_NE && rhs->isZero() ? llvm::CmpInst::ICMP_UGT : predicate;
}

namespace {

using namespace llvm::PatternMatch;

// What m_ICmp binds: since LLVM 20 a CmpPredicate (the predicate and its samesign flag).
#if LLVM_VERSION_MAJOR >= 20
using MatchedPredicate = llvm::CmpPredicate;
#else
using MatchedPredicate = llvm::ICmpInst::Predicate;
#endif

// One bounds check the fast copy drops: `cmp` is `index <u extent`, where the
// index may first wrap negatives (`wrap`: select(i < 0, i + extent, i), which
// is `i` once i is known to be in [0, extent)).
// A condition under which a check's block runs: `lhs predicate rhs`, where rhs is
// invariant and lhs is {g,+,1} of the loop (signed predicates) or invariant too.
struct Guard {
  llvm::ICmpInst::Predicate predicate;
  const llvm::SCEV* lhs;
  const llvm::SCEV* rhs;
  // An unsigned comparison of {g,+,1}, taken as the signed one: the range test then
  // also requires g >= 0 and rhs >= 0, where the two agree.
  bool nonnegative = false;
};

struct Check {
  llvm::ICmpInst* cmp = nullptr;
  llvm::Instruction* wrap = nullptr;
  llvm::Value* unwrapped = nullptr;
  bool fails = false;  // `cmp` is true out of bounds (an inverted branch)
  const llvm::SCEV* index = nullptr;
  const llvm::SCEV* extent = nullptr;
  std::vector<Guard> guards;  // what the iterations that reach the check satisfy
  // The first and last iteration that may reach the check (empty when first > last),
  // and the index's least and greatest value over them.
  const llvm::SCEV* first = nullptr;
  const llvm::SCEV* last = nullptr;
  const llvm::SCEV* low = nullptr;
  const llvm::SCEV* high = nullptr;
};

// InstCombine may invert a bounds check (`index >u extent - 1` to the report), when the
// branch is `failing`.
bool failing(const llvm::BranchInst* branch) {
  return branch->getSuccessor(0)->getName().starts_with("index.out_of_bounds");
}

// The and-ed parts of an in-bounds condition, or the or-ed parts of a failing one.
void leaves_of(llvm::Value* v, bool fails, llvm::SmallVectorImpl<llvm::Value*>& out) {
  llvm::Value *a, *b;
  if (fails ? match(v, m_LogicalOr(m_Value(a), m_Value(b)))
            : match(v, m_LogicalAnd(m_Value(a), m_Value(b)))) {
    leaves_of(a, fails, out);
    leaves_of(b, fails, out);
    return;
  }
  out.push_back(v);
}

// `i` when `v` is the negative-index wrap select(i < 0, i + extent, i), or the form
// InstCombine makes of it, i + select(i < 0, extent, 0).
llvm::Value* wrapped_index(llvm::Value* v, llvm::Value* extent) {
  llvm::Value* i = nullptr;
  MatchedPredicate predicate;
  if (match(v, m_Select(m_ICmp(predicate, m_Value(i), m_Zero()),
                        m_c_Add(m_Deferred(i), m_Specific(extent)), m_Deferred(i))) &&
      predicate == llvm::ICmpInst::ICMP_SLT)
    return i;
  if (match(v,
            m_c_Add(m_Select(m_ICmp(predicate, m_Value(i), m_Zero()), m_Specific(extent), m_Zero()),
                    m_Deferred(i))) &&
      predicate == llvm::ICmpInst::ICMP_SLT)
    return i;
  // And InstCombine's form for a power-of-two extent 2^k: i + ((i >>u (63 - k)) & 2^k), or
  // i + ((i >>s 63) & 2^k): the sign bit moved to the extent's.
  const llvm::APInt* shift = nullptr;
  const llvm::APInt* mask = nullptr;
  auto* e = llvm::dyn_cast<llvm::ConstantInt>(extent);
  if (e == nullptr || !e->getValue().isPowerOf2() || e->getBitWidth() != 64) return nullptr;
  const unsigned k = e->getValue().logBase2();
  if (match(v, m_c_Add(m_And(m_LShr(m_Value(i), m_APInt(shift)), m_APInt(mask)), m_Deferred(i))) &&
      *shift == 63 - k && *mask == e->getValue())
    return i;
  if (match(v, m_c_Add(m_And(m_AShr(m_Value(i), m_APInt(shift)), m_APInt(mask)), m_Deferred(i))) &&
      *shift == 63 && *mask == e->getValue())
    return i;
  return nullptr;
}

// `s` as {g,+,step} of `loop`, or null: an index or guard that varies with an outer loop
// only is the same in every iteration of this one.
const llvm::SCEVAddRecExpr* varying_in(const llvm::SCEV* s, const llvm::Loop& loop) {
  auto* rec = llvm::dyn_cast<llvm::SCEVAddRecExpr>(s);
  return rec && rec->getLoop() == &loop ? rec : nullptr;
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
    llvm::SCEVExpander expander = scev_expander(scev_, *function_.getParent(), "bounds");
    if (!expander.isSafeToExpandAt(trips, at)) return false;
    for (Check& c : checks) {
      ends(c, trips, loop);
      if (!expandable(c, loop, expander, at)) return false;
    }
    llvm::Value* in_bounds = range_test(checks, trips, loop, expander, at);

    llvm::formLCSSARecursively(loop, dominators_, &loops_, &scev_);
    llvm::BasicBlock* fast_preheader =
        llvm::SplitBlock(test_block, at, &dominators_, &loops_, nullptr, "bounds.fast");
    llvm::ValueToValueMapTy map;
    llvm::SmallVector<llvm::BasicBlock*, 16> checked_blocks;
    llvm::Loop* checked = llvm::cloneLoopWithPreheader(
        fast_preheader, test_block, &loop, map, ".checked", &loops_, &dominators_, checked_blocks);
    llvm::remapInstructionsInBlocks(checked_blocks, map);
    // The checked copy runs at an array's edge: not worth unrolling or vectorising
    // (it cannot be), which would only cost compile time and code. A warp's lane loop is
    // unrolled all the same: its arrays become registers only if no access to them is a
    // loop's.
    if (!llvm::findStringMetadataForLoop(&loop, kUnrollAfterChecks))
      checked->setLoopAlreadyUnrolled();
    llvm::addStringMetadataToLoop(checked, "llvm.loop.vectorize.enable", 0);
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
  // The checks of the loop's bounds branches whose every use can be dropped (a leaf
  // shared by two branches is tested under each one's guards, or not dropped).
  std::vector<Check> find_checks(llvm::Loop& loop) {
    std::vector<Check> found;
    llvm::DenseMap<llvm::Value*, bool> droppable;
    std::vector<std::pair<llvm::BranchInst*, llvm::SmallVector<llvm::Value*, 4>>> branches;
    for (llvm::BasicBlock* block : loop.blocks()) {
      auto* branch = llvm::dyn_cast<llvm::BranchInst>(block->getTerminator());
      if (!branch || !is_bounds_branch(branch)) continue;
      auto& [br, leaves] = branches.emplace_back(branch, llvm::SmallVector<llvm::Value*, 4>{});
      leaves_of(branch->getCondition(), failing(branch), leaves);
      for (llvm::Value* leaf : leaves) {
        std::optional<Check> check = analyse(loop, leaf, failing(branch));
        auto [it, fresh] = droppable.try_emplace(leaf, check.has_value());
        if (!fresh) it->second = it->second && check.has_value();
        if (!check) continue;
        check->guards = guards_of(loop, block);
        found.push_back(*check);
      }
    }
    std::vector<Check> checks;
    for (Check& c : found)
      if (droppable.lookup(c.cmp)) checks.push_back(std::move(c));
    proven_.clear();  // the branch itself folds, wherever LICM put its condition
    for (auto& [branch, leaves] : branches)
      if (llvm::all_of(leaves, [&](llvm::Value* leaf) { return droppable.lookup(leaf); }))
        proven_.push_back(branch);
    return checks;
  }

  // The conditions on the way to `block`: the and-ed comparisons of each branch in
  // the loop whose true edge dominates it, and the negated or-ed ones of each branch
  // whose false edge does.
  std::vector<Guard> guards_of(llvm::Loop& loop, llvm::BasicBlock* block) {
    std::vector<Guard> guards;
    for (llvm::DomTreeNode* node = dominators_.getNode(block)->getIDom();
         node && loop.contains(node->getBlock()); node = node->getIDom()) {
      auto* branch = llvm::dyn_cast<llvm::BranchInst>(node->getBlock()->getTerminator());
      if (!branch || !branch->isConditional() || is_bounds_branch(branch)) continue;
      bool negated;
      if (dominators_.dominates(llvm::BasicBlockEdge(node->getBlock(), branch->getSuccessor(0)),
                                block))
        negated = false;
      else if (dominators_.dominates(
                   llvm::BasicBlockEdge(node->getBlock(), branch->getSuccessor(1)), block))
        negated = true;
      else
        continue;
      llvm::SmallVector<llvm::Value*, 4> leaves;
      leaves_of(branch->getCondition(), negated, leaves);
      for (llvm::Value* leaf : leaves)
        if (auto guard = as_guard(loop, leaf, negated)) guards.push_back(*guard);
    }
    return guards;
  }

  std::optional<Guard> as_guard(llvm::Loop& loop, llvm::Value* leaf, bool negated) {
    MatchedPredicate predicate;
    llvm::Value *x, *y;
    if (!match(leaf, m_ICmp(predicate, m_Value(x), m_Value(y)))) return std::nullopt;
    if (negated) predicate = llvm::ICmpInst::getInversePredicate(predicate);
    Guard g{predicate, scev_.getSCEV(x), scev_.getSCEV(y)};
    if (g.lhs->getType() != g.rhs->getType()) return std::nullopt;
    if (scev_.isLoopInvariant(g.lhs, &loop) && !scev_.isLoopInvariant(g.rhs, &loop)) {
      std::swap(g.lhs, g.rhs);
      g.predicate = llvm::ICmpInst::getSwappedPredicate(g.predicate);
    }
    if (!scev_.isLoopInvariant(g.rhs, &loop)) return std::nullopt;
    if (scev_.isLoopInvariant(g.lhs, &loop)) return g;
    g.predicate = ordered(g.predicate, g.rhs);
    auto* rec = llvm::dyn_cast<llvm::SCEVAddRecExpr>(g.lhs);
    if (!rec || rec->getLoop() != &loop || !rec->isAffine() || !rec->getType()->isIntegerTy(64) ||
        !rec->getStepRecurrence(scev_)->isOne() || g.predicate == llvm::ICmpInst::ICMP_EQ ||
        g.predicate == llvm::ICmpInst::ICMP_NE)
      return std::nullopt;
    if (llvm::ICmpInst::isUnsigned(g.predicate)) {
      g.predicate = llvm::ICmpInst::getSignedPredicate(g.predicate);
      g.nonnegative = true;
    }
    return g;
  }

  // `leaf` as `index <u extent` (in bounds), or where `fails`, as its negation: `index >=u
  // extent`, or `index >u c` of a constant c (extent c + 1).
  std::optional<Check> analyse(llvm::Loop& loop, llvm::Value* leaf, bool fails) {
    MatchedPredicate predicate;
    llvm::Value *index, *extent;
    auto* cmp = llvm::dyn_cast<llvm::ICmpInst>(leaf);
    if (!cmp || !match(cmp, m_ICmp(predicate, m_Value(index), m_Value(extent))))
      return std::nullopt;
    if (fails) predicate = llvm::ICmpInst::getInversePredicate(predicate);
    // Index on the left: index <u extent, or (failing) index <=u c.
    if (predicate == llvm::ICmpInst::ICMP_UGT || predicate == llvm::ICmpInst::ICMP_UGE) {
      std::swap(index, extent);
      predicate = llvm::ICmpInst::getSwappedPredicate(predicate);
    }
    if (predicate == llvm::ICmpInst::ICMP_ULE) {
      auto* c = llvm::dyn_cast<llvm::ConstantInt>(extent);
      if (!c || c->isMinusOne()) return std::nullopt;
      extent = llvm::ConstantInt::get(c->getType(), c->getValue() + 1);
    } else if (predicate != llvm::ICmpInst::ICMP_ULT) {
      return std::nullopt;
    }
    Check c;
    c.cmp = cmp;
    c.fails = fails;
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

  // The iterations that may reach the check, under its affine guards on {g,+,1}:
  // g + m > y means m >= y - g + 1, and so on; then the index's ends over them.
  void ends(Check& c, const llvm::SCEV* trips, const llvm::Loop& loop) {
    llvm::Type* i64 = llvm::Type::getInt64Ty(function_.getContext());
    const llvm::SCEV* one = scev_.getOne(i64);
    c.first = scev_.getZero(i64);
    c.last = scev_.getZeroExtendExpr(trips, i64);
    for (const Guard& g : c.guards) {
      auto* rec = varying_in(g.lhs, loop);
      if (!rec) continue;
      const llvm::SCEV* d = scev_.getMinusSCEV(g.rhs, rec->getStart());
      switch (g.predicate) {
        case llvm::ICmpInst::ICMP_SGT:
          c.first = scev_.getSMaxExpr(c.first, scev_.getAddExpr(d, one));
          break;
        case llvm::ICmpInst::ICMP_SGE:
          c.first = scev_.getSMaxExpr(c.first, d);
          break;
        case llvm::ICmpInst::ICMP_SLT:
          c.last = scev_.getSMinExpr(c.last, scev_.getMinusSCEV(d, one));
          break;
        default:  // SLE
          c.last = scev_.getSMinExpr(c.last, d);
          break;
      }
    }
    c.low = c.high = c.index;
    auto* rec = varying_in(c.index, loop);
    if (!rec) return;
    c.low = rec->evaluateAtIteration(scev_.getTruncateOrZeroExtend(c.first, rec->getType()), scev_);
    c.high = rec->evaluateAtIteration(scev_.getTruncateOrZeroExtend(c.last, rec->getType()), scev_);
    if (llvm::cast<llvm::SCEVConstant>(rec->getStepRecurrence(scev_))->getAPInt().isNegative())
      std::swap(c.low, c.high);
  }

  bool expandable(const Check& c, const llvm::Loop& loop, llvm::SCEVExpander& expander,
                  llvm::Instruction* at) {
    for (const llvm::SCEV* s : {c.first, c.last, c.low, c.high, c.extent})
      if (!expander.isSafeToExpandAt(s, at)) return false;
    for (const Guard& g : c.guards) {
      auto* rec = varying_in(g.lhs, loop);
      if (!expander.isSafeToExpandAt(rec ? rec->getStart() : g.lhs, at) ||
          !expander.isSafeToExpandAt(g.rhs, at))
        return false;
    }
    return true;
  }

  // Every index of every iteration that reaches its check in [0, extent): both ends
  // of an affine index's range, in order (no wrap-around: at most 2^31 iterations of
  // a step below 2^30; guards' g and y within 2^62, so g + m and y - g do not wrap);
  // none when no iteration reaches it, or an invariant guard fails.
  llvm::Value* range_test(const std::vector<Check>& checks, const llvm::SCEV* trips,
                          const llvm::Loop& loop, llvm::SCEVExpander& expander,
                          llvm::Instruction* at) {
    llvm::IRBuilder<> b(at);
    llvm::Value* trip_count = expander.expandCodeFor(trips, nullptr, at);
    llvm::Value* ok = b.CreateICmpULT(
        trip_count, llvm::ConstantInt::get(trip_count->getType(), uint64_t(1) << 31));
    auto small = [&](const llvm::SCEV* s) {
      llvm::Value* v = expander.expandCodeFor(s, nullptr, at);
      return b.CreateICmpULT(b.CreateAdd(v, b.getInt64(int64_t(1) << 62)),
                             b.getInt64(uint64_t(1) << 63));
    };
    for (const Check& c : checks) {
      llvm::Value* extent = expander.expandCodeFor(c.extent, nullptr, at);
      llvm::Value* lo = expander.expandCodeFor(c.low, extent->getType(), at);
      llvm::Value* hi = expander.expandCodeFor(c.high, extent->getType(), at);
      llvm::Value* first = expander.expandCodeFor(c.first, nullptr, at);
      llvm::Value* last = expander.expandCodeFor(c.last, nullptr, at);
      llvm::Value* holds = b.CreateAnd(b.CreateICmpULE(lo, hi), b.CreateICmpULT(hi, extent));
      llvm::Value* vacuous = b.CreateICmpSGT(first, last);
      for (const Guard& g : c.guards) {
        auto* rec = varying_in(g.lhs, loop);
        if (rec) {
          ok = b.CreateAnd(ok, b.CreateAnd(small(rec->getStart()), small(g.rhs)));
          if (g.nonnegative)
            for (const llvm::SCEV* side : {rec->getStart(), g.rhs})
              ok = b.CreateAnd(
                  ok, b.CreateICmpSGE(expander.expandCodeFor(side, nullptr, at), b.getInt64(0)));
          continue;
        }
        llvm::Value* lhs = expander.expandCodeFor(g.lhs, nullptr, at);
        llvm::Value* rhs = expander.expandCodeFor(g.rhs, nullptr, at);
        vacuous = b.CreateOr(vacuous, b.CreateNot(b.CreateICmp(g.predicate, lhs, rhs)));
      }
      ok = b.CreateAnd(ok, b.CreateOr(vacuous, holds));
    }
    return ok;
  }

  // In the fast copy each dropped check holds, and a wrapped index is the index itself.
  void drop_checks(llvm::Loop& loop, const std::vector<Check>& checks) {
    auto inside = [&](llvm::Use& use) {
      auto* user = llvm::dyn_cast<llvm::Instruction>(use.getUser());
      return user && loop.contains(user);
    };
    for (llvm::BranchInst* branch : proven_)
      branch->setCondition(llvm::ConstantInt::getBool(branch->getContext(), !failing(branch)));
    for (const Check& c : checks) {
      c.cmp->replaceUsesWithIf(llvm::ConstantInt::getBool(c.cmp->getContext(), !c.fails), inside);
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
  std::vector<llvm::BranchInst*> proven_;  // the loop's checks whose every part is tested
};

}  // namespace

llvm::PreservedAnalyses BoundsCheckVersioning::run(llvm::Function& function,
                                                   llvm::FunctionAnalysisManager& analyses) {
  auto& loops = analyses.getResult<llvm::LoopAnalysis>(function);
  auto& dominators = analyses.getResult<llvm::DominatorTreeAnalysis>(function);
  auto& scev = analyses.getResult<llvm::ScalarEvolutionAnalysis>(function);
  auto& assumptions = analyses.getResult<llvm::AssumptionAnalysis>(function);
  LoopVersioner versioner(function, loops, dominators, scev, assumptions);
  bool changed = false;
  for (llvm::Loop* loop : innermost_loops(loops)) {
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

llvm::PreservedAnalyses UnrollAfterChecks::run(llvm::Function& function,
                                               llvm::FunctionAnalysisManager& analyses) {
  auto& loops = analyses.getResult<llvm::LoopAnalysis>(function);
  bool changed = false;
  for (llvm::Loop* loop : loops.getLoopsInPreorder()) {
    if (!llvm::findStringMetadataForLoop(loop, kUnrollAfterChecks) ||
        llvm::findStringMetadataForLoop(loop, "llvm.loop.unroll.disable"))
      continue;
    llvm::addStringMetadataToLoop(loop, "llvm.loop.unroll.full");
    changed = true;
  }
  return changed ? llvm::PreservedAnalyses::allInSet<llvm::CFGAnalyses>()
                 : llvm::PreservedAnalyses::all();
}

}  // namespace cudajit::target::detail
