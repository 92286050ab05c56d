#include "streaming_stores.hpp"

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/DenseSet.h>
#include <llvm/ADT/STLExtras.h>
#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/LoopSimplify.h>
#include <llvm/Transforms/Utils/ScalarEvolutionExpander.h>

#include <cstddef>
#include <optional>
#include <vector>

#include "cudajit/compiler/target.hpp"
#include "llvm_support.hpp"

namespace cudajit::target::detail {

namespace {

// The parameter `data` is the value of: `load (load params + 8 k)`, params the entry's first
// argument (HostEntry: cuLaunchKernel's array of pointers to the values). Only the first 64
// have a bit in LaunchDims::large_arrays.
std::optional<unsigned> parameter_of(const llvm::Value* data, const llvm::Function& entry) {
  auto* value = llvm::dyn_cast<llvm::LoadInst>(data);
  auto* slot = value ? llvm::dyn_cast<llvm::LoadInst>(value->getPointerOperand()) : nullptr;
  if (slot == nullptr || !value->isSimple() || !slot->isSimple()) return std::nullopt;
  llvm::APInt offset(64, 0);
  const llvm::Value* params = slot->getPointerOperand()->stripAndAccumulateConstantOffsets(
      entry.getParent()->getDataLayout(), offset, /*AllowNonInbounds=*/true);
  if (params != entry.getArg(0) || offset.urem(8) != 0 || offset.uge(64 * 8)) return std::nullopt;
  return unsigned(offset.getZExtValue() / 8);
}

bool is_masked_store(const llvm::Instruction& inst) {
  auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst);
  return call && call->getIntrinsicID() == llvm::Intrinsic::masked_store;
}

// Whether `loop` stores a vector to an array passed to the kernel (whose data pointer is
// loaded, not a thread's or the block's own array): a stream's candidate.
bool stores_vectors(const llvm::Loop& loop) {
  for (const llvm::BasicBlock* block : loop.blocks())
    for (const llvm::Instruction& inst : *block) {
      auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst);
      bool vector =
          is_masked_store(inst) || (store && store->getValueOperand()->getType()->isVectorTy());
      if (vector && llvm::isa<llvm::LoadInst>(llvm::getUnderlyingObject(inst.getOperand(1))))
        return true;
    }
  return false;
}

// The address an instruction reads or writes, if it is a load or store of one (masked too).
const llvm::Value* address_of(const llvm::Instruction& inst) {
  if (auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst)) return load->getPointerOperand();
  if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst)) return store->getPointerOperand();
  if (auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst)) {
    if (call->getIntrinsicID() == llvm::Intrinsic::masked_load) return call->getArgOperand(0);
    if (call->getIntrinsicID() == llvm::Intrinsic::masked_store) return call->getArgOperand(1);
  }
  return nullptr;
}

// A load or store of a whole vector whose address advances by a constant each iteration of a
// loop.
struct VectorAccess {
  llvm::Instruction* inst;
  const llvm::SCEVAddRecExpr* address;
  uint64_t bytes;
};

// The stores of one loop that write one array's elements from end to end: each iteration
// they tile [p, p + step) and the next starts at p + step.
struct Stream {
  unsigned parameter = 0;
  const llvm::SCEV* start = nullptr;  // p in the first iteration
  uint64_t step = 0;                  // bytes per iteration
  bool masked = false;                // some stores are masked (llvm.masked.store)
  std::vector<llvm::Instruction*> stores;
};

// A streamed store's address is a multiple of this: NumPy's arrays are 16 bytes past a page,
// and LLVM writes an under-aligned 32- or 64-byte non-temporal store as 16-byte ones
// (MOVNTPS xmm needs 16), as fast here as whole ones (saxpy in C, 4.2-4.4 ms either way).
constexpr uint64_t kStreamAlign = 16;

// A masked stream runs where each entry of its loop writes at least this much: a masked
// store that is partial (an `if` on the index, false for some lanes) stays an ordinary one,
// and short runs with partial ends (a 3-D stencil's rows of 64 threads, 256 bytes, the first
// and last vectors partial) ran 1.2-1.5x slower streamed than cached. Partial vectors at an
// array's end only (saxpy's blocks of 256 threads, 1 KiB) cost nothing measurable.
constexpr uint64_t kMaskedRunBytes = 1024;

class StreamFinder {
 public:
  StreamFinder(llvm::Function& entry, llvm::ScalarEvolution& scev) : entry_(entry), scev_(scev) {}

  // The loop's streams; none where it reads memory other than by loads (a call), or reads
  // an array other than as a stream too (a stencil's neighbours: such a loop is bound by its
  // loads from the caches, and streaming its stores made a 3-D stencil 1.8x slower), or
  // reads an array it streams (its lines are in the caches already).
  std::vector<Stream> find(const llvm::Loop& loop) {
    llvm::DenseMap<const llvm::Value*, std::vector<VectorAccess>> stores_of, loads_of;
    llvm::DenseSet<const llvm::Value*> excluded;  // stored to otherwise
    for (llvm::BasicBlock* block : loop.blocks()) {
      for (llvm::Instruction& inst : *block) {
        const llvm::Value* address = address_of(inst);
        if (address == nullptr) {
          if (inst.mayReadOrWriteMemory()) return {};
          continue;
        }
        const llvm::Value* base = base_of(address);
        std::optional<VectorAccess> access = vector_access(inst, address, loop);
        if (!inst.mayWriteToMemory()) {
          if (loop.isLoopInvariant(address)) continue;  // a value the same for every thread
          if (!access) return {};
          loads_of[base ? base : address].push_back(*access);
        } else if (base == nullptr) {
          return {};  // it may write an array we stream
        } else if (access) {
          stores_of[base].push_back(*access);
        } else {
          excluded.insert(base);
        }
      }
    }
    for (auto& [base, loads] : loads_of)
      if (!tiled(loads, 0)) return {};
    std::vector<Stream> streams;
    for (auto& [base, stores] : stores_of) {
      if (excluded.contains(base) || loads_of.contains(base)) continue;
      std::optional<unsigned> parameter = parameter_of(base, entry_);
      if (!parameter) continue;
      if (std::optional<Stream> stream = tiled(stores, *parameter)) streams.push_back(*stream);
    }
    return streams;
  }

 private:
  const llvm::Value* base_of(const llvm::Value* address) {
    auto* base = llvm::dyn_cast<llvm::SCEVUnknown>(
        scev_.getPointerBase(scev_.getSCEV(const_cast<llvm::Value*>(address))));
    return base ? base->getValue() : nullptr;
  }

  // An address as SCEV sees it, or, where its offset is a lane of a vector (the vectoriser
  // indexes masked stores by lane 0 of its vector induction variable), as that lane's scalar.
  const llvm::SCEV* address_scev(const llvm::Value* address, const llvm::Loop& loop) {
    const llvm::SCEV* plain = scev_.getSCEV(const_cast<llvm::Value*>(address));
    if (llvm::isa<llvm::SCEVAddRecExpr>(plain)) return plain;
    auto* gep = llvm::dyn_cast<llvm::GEPOperator>(address);
    if (gep == nullptr || gep->getNumIndices() != 1) return nullptr;
    const llvm::SCEV* base = address_scev(gep->getPointerOperand(), loop);
    if (base == nullptr) base = scev_.getSCEV(const_cast<llvm::Value*>(gep->getPointerOperand()));
    const llvm::SCEV* index = scalar(gep->getOperand(1), loop, 0);
    if (index == nullptr) return nullptr;
    uint64_t scale =
        entry_.getParent()->getDataLayout().getTypeAllocSize(gep->getSourceElementType());
    llvm::Type* offset_type = scev_.getEffectiveSCEVType(base->getType());
    return scev_.getAddExpr(base,
                            scev_.getMulExpr(scev_.getTruncateOrSignExtend(index, offset_type),
                                             scev_.getConstant(offset_type, scale)));
  }

  // An integer as SCEV, looking through the lanes of vectors (lane_of).
  const llvm::SCEV* scalar(const llvm::Value* v, const llvm::Loop& loop, int depth) {
    if (depth > 8) return nullptr;
    if (auto* extract = llvm::dyn_cast<llvm::ExtractElementInst>(v)) {
      auto* lane = llvm::dyn_cast<llvm::ConstantInt>(extract->getIndexOperand());
      return lane ? lane_of(extract->getVectorOperand(), lane->getZExtValue(), loop, depth + 1)
                  : nullptr;
    }
    if (auto* op = llvm::dyn_cast<llvm::BinaryOperator>(v))
      return binary(op, [&](const llvm::Value* x) { return scalar(x, loop, depth + 1); });
    return scev_.getSCEV(const_cast<llvm::Value*>(v));
  }

  // Lane `k` of an integer vector as SCEV: constants, splats, adds, multiplies and shifts of
  // them, and the vectoriser's induction variable (a header phi stepped by a splat).
  const llvm::SCEV* lane_of(const llvm::Value* v, uint64_t k, const llvm::Loop& loop, int depth) {
    if (depth > 8 || !v->getType()->isVectorTy()) return nullptr;
    if (auto* c = llvm::dyn_cast<llvm::Constant>(v)) {
      auto* element =
          llvm::dyn_cast_or_null<llvm::ConstantInt>(c->getAggregateElement(unsigned(k)));
      return element ? scev_.getConstant(element) : nullptr;
    }
    if (auto* insert = llvm::dyn_cast<llvm::InsertElementInst>(v)) {
      auto* at = llvm::dyn_cast<llvm::ConstantInt>(insert->getOperand(2));
      if (at == nullptr) return nullptr;
      return at->getZExtValue() == k ? scalar(insert->getOperand(1), loop, depth + 1)
                                     : lane_of(insert->getOperand(0), k, loop, depth + 1);
    }
    if (auto* shuffle = llvm::dyn_cast<llvm::ShuffleVectorInst>(v)) {
      int from = shuffle->getMaskValue(unsigned(k));
      if (from < 0) return nullptr;
      auto n =
          llvm::cast<llvm::FixedVectorType>(shuffle->getOperand(0)->getType())->getNumElements();
      return unsigned(from) < n ? lane_of(shuffle->getOperand(0), from, loop, depth + 1)
                                : lane_of(shuffle->getOperand(1), from - n, loop, depth + 1);
    }
    if (auto* op = llvm::dyn_cast<llvm::BinaryOperator>(v))
      return binary(op, [&](const llvm::Value* x) { return lane_of(x, k, loop, depth + 1); });
    auto* phi = llvm::dyn_cast<llvm::PHINode>(v);
    if (phi == nullptr || phi->getParent() != loop.getHeader() || phi->getNumIncomingValues() != 2)
      return nullptr;
    const llvm::BasicBlock* preheader = loop.getLoopPreheader();
    const llvm::BasicBlock* latch = loop.getLoopLatch();
    if (preheader == nullptr || latch == nullptr) return nullptr;
    auto* next = llvm::dyn_cast<llvm::BinaryOperator>(phi->getIncomingValueForBlock(latch));
    if (next == nullptr || next->getOpcode() != llvm::Instruction::Add ||
        next->getOperand(0) != phi || !loop.isLoopInvariant(next->getOperand(1)))
      return nullptr;
    const llvm::SCEV* start = lane_of(phi->getIncomingValueForBlock(preheader), k, loop, depth + 1);
    const llvm::SCEV* step = lane_of(next->getOperand(1), k, loop, depth + 1);
    if (start == nullptr || step == nullptr) return nullptr;
    return scev_.getAddRecExpr(start, step, &loop, llvm::SCEV::FlagAnyWrap);
  }

  template <class Operand>
  const llvm::SCEV* binary(const llvm::BinaryOperator* op, Operand operand) {
    const llvm::SCEV* a = operand(op->getOperand(0));
    const llvm::SCEV* b = a ? operand(op->getOperand(1)) : nullptr;
    if (b == nullptr) return nullptr;
    switch (op->getOpcode()) {
      case llvm::Instruction::Add:
        return scev_.getAddExpr(a, b);
      case llvm::Instruction::Mul:
        return scev_.getMulExpr(a, b);
      case llvm::Instruction::Shl: {
        auto* bits = llvm::dyn_cast<llvm::SCEVConstant>(b);
        if (bits == nullptr || bits->getAPInt().uge(a->getType()->getScalarSizeInBits()))
          return nullptr;
        return scev_.getMulExpr(a, scev_.getConstant(llvm::APInt::getOneBitSet(
                                       a->getType()->getScalarSizeInBits(),
                                       unsigned(bits->getAPInt().getZExtValue()))));
      }
      default:
        return nullptr;
    }
  }

  // `inst` as a VectorAccess in `loop`, of 16 to 64 bytes.
  std::optional<VectorAccess> vector_access(llvm::Instruction& inst, const llvm::Value* address,
                                            const llvm::Loop& loop) {
    const llvm::DataLayout& layout = entry_.getParent()->getDataLayout();
    llvm::Type* type = nullptr;
    if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst)) {
      if (store->isSimple()) type = store->getValueOperand()->getType();
    } else if (auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst)) {
      if (load->isSimple()) type = load->getType();
    } else if (is_masked_store(inst)) {
      type = llvm::cast<llvm::CallInst>(inst).getArgOperand(0)->getType();
    } else {
      type = inst.getType();  // llvm.masked.load
    }
    if (type == nullptr || !llvm::isa<llvm::FixedVectorType>(type)) return std::nullopt;
    uint64_t bytes = layout.getTypeStoreSize(type).getFixedValue();
    if (bytes < 16 || bytes > 64 || !llvm::isPowerOf2_64(bytes) ||
        layout.getTypeAllocSize(type).getFixedValue() != bytes)
      return std::nullopt;
    auto* rec = llvm::dyn_cast_or_null<llvm::SCEVAddRecExpr>(address_scev(address, loop));
    if (rec == nullptr || rec->getLoop() != &loop || !rec->isAffine() ||
        !llvm::isa<llvm::SCEVConstant>(rec->getStepRecurrence(scev_)))
      return std::nullopt;
    return VectorAccess{&inst, rec, bytes};
  }

  // The accesses as a stream: all of one size, their first addresses a constant apart,
  // together covering one step of their addresses without gap or overlap.
  std::optional<Stream> tiled(const std::vector<VectorAccess>& stores, unsigned parameter) {
    const VectorAccess& first = stores.front();
    auto* step = llvm::cast<llvm::SCEVConstant>(first.address->getStepRecurrence(scev_));
    std::vector<std::pair<int64_t, llvm::Instruction*>> offsets;
    for (const VectorAccess& s : stores) {
      if (s.bytes != first.bytes || s.address->getStepRecurrence(scev_) != step)
        return std::nullopt;
      auto* offset = llvm::dyn_cast<llvm::SCEVConstant>(
          scev_.getMinusSCEV(s.address->getStart(), first.address->getStart()));
      if (offset == nullptr) return std::nullopt;
      offsets.emplace_back(offset->getAPInt().getSExtValue(), s.inst);
    }
    llvm::sort(offsets, [](const auto& a, const auto& b) { return a.first < b.first; });
    int64_t next = offsets.front().first;
    for (const auto& [offset, inst] : offsets) {
      if (offset != next) return std::nullopt;
      next += int64_t(first.bytes);
    }
    if (next - offsets.front().first != step->getAPInt().getSExtValue()) return std::nullopt;
    Stream stream{parameter, nullptr, uint64_t(step->getAPInt().getSExtValue()), false, {}};
    stream.start = scev_.getAddExpr(first.address->getStart(),
                                    scev_.getConstant(llvm::APInt(64, offsets.front().first)));
    for (const auto& [offset, inst] : offsets) {
      stream.stores.push_back(inst);
      stream.masked = stream.masked || is_masked_store(*inst);
    }
    return stream;
  }

  llvm::Function& entry_;
  llvm::ScalarEvolution& scev_;
};

// Where every stream's array is large, its stores aligned and, if masked, its run long
// enough (the loop runs `backedges` + 1 iterations), in the loop's preheader.
llvm::Value* streaming_condition(const std::vector<Stream>& streams, llvm::Value* dims,
                                 const llvm::SCEV* backedges, llvm::SCEVExpander& expander,
                                 llvm::Instruction* at) {
  llvm::IRBuilder<> b(at);
  llvm::Value* large = b.CreateLoad(
      b.getInt64Ty(),
      b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), dims, offsetof(LaunchDims, large_arrays)),
      "large_arrays");
  llvm::Value* taken = nullptr;  // backedges, where a stream is masked
  if (llvm::any_of(streams, [](const Stream& s) { return s.masked; }))
    taken = expander.expandCodeFor(backedges, nullptr, at);
  llvm::Value* ok = nullptr;
  for (const Stream& s : streams) {
    llvm::Value* bit = b.CreateAnd(b.CreateLShr(large, s.parameter), 1);
    llvm::Value* address =
        b.CreatePtrToInt(expander.expandCodeFor(s.start, nullptr, at), b.getInt64Ty());
    llvm::Value* misaligned = b.CreateAnd(address, kStreamAlign - 1);
    llvm::Value* stream = b.CreateAnd(b.CreateIsNotNull(bit), b.CreateIsNull(misaligned));
    if (s.masked) {
      uint64_t iterations = (kMaskedRunBytes + s.step - 1) / s.step;
      stream = b.CreateAnd(
          stream, b.CreateICmpUGE(taken, llvm::ConstantInt::get(taken->getType(), iterations - 1)));
    }
    ok = ok ? b.CreateAnd(ok, stream) : stream;
  }
  return ok;
}

// The store, where `condition` holds (and for a masked one, x86 having no masked
// non-temporal store, where every lane stores), a non-temporal one aligned to kStreamAlign
// (the condition tested it); as it was elsewhere. A branch on a value the same for the whole loop
// costs less than a copy of the loop, which took saxpy's compile 3.5 ms longer.
void make_non_temporal(llvm::Instruction* store, llvm::Value* condition) {
  llvm::IRBuilder<> b(store);
  llvm::Value* value = store->getOperand(0);
  llvm::Value* address = store->getOperand(1);  // a store's and llvm.masked.store's
  if (is_masked_store(*store)) {
    auto* masked = llvm::cast<llvm::CallInst>(store);
    condition =
        b.CreateAnd(condition, b.CreateAndReduce(masked->getArgOperand(masked->arg_size() - 1)));
  }
  llvm::Instruction *stream = nullptr, *keep = nullptr;
  llvm::SplitBlockAndInsertIfThenElse(condition, store->getIterator(), &stream, &keep);
  llvm::StoreInst* streamed =
      llvm::IRBuilder<>(stream).CreateAlignedStore(value, address, llvm::Align(kStreamAlign));
  streamed->setMetadata(
      llvm::LLVMContext::MD_nontemporal,
      llvm::MDNode::get(store->getContext(), llvm::ConstantAsMetadata::get(b.getInt32(1))));
  store->moveBefore(keep);
}

}  // namespace

llvm::PreservedAnalyses StreamingStores::run(llvm::Function& function,
                                             llvm::FunctionAnalysisManager& analyses) {
  if (!function.hasFnAttribute(kHostEntryAttribute) || function.arg_size() != 5)
    return llvm::PreservedAnalyses::all();
  auto& loops = analyses.getResult<llvm::LoopAnalysis>(function);
  auto& dominators = analyses.getResult<llvm::DominatorTreeAnalysis>(function);
  auto& scev = analyses.getResult<llvm::ScalarEvolutionAnalysis>(function);
  auto& assumptions = analyses.getResult<llvm::AssumptionAnalysis>(function);
  StreamFinder finder(function, scev);
  // The streams and where they run, found before any store becomes two (which changes the
  // loops' blocks).
  std::vector<std::pair<Stream, llvm::Value*>> streamed;
  for (llvm::Loop* loop : innermost_loops(loops)) {
    if (!stores_vectors(*loop)) continue;  // most loops: no SCEV asked about them
    llvm::simplifyLoop(loop, &dominators, &loops, &scev, &assumptions, nullptr, false);
    if (!loop->getLoopPreheader()) continue;
    std::vector<Stream> streams = finder.find(*loop);
    if (streams.empty()) continue;
    llvm::Instruction* at = loop->getLoopPreheader()->getTerminator();
    llvm::SCEVExpander expander = scev_expander(scev, *function.getParent(), "stream");
    const llvm::SCEV* backedges = scev.getBackedgeTakenCount(loop);
    bool masked = llvm::any_of(streams, [](const Stream& s) { return s.masked; });
    if (masked && (llvm::isa<llvm::SCEVCouldNotCompute>(backedges) ||
                   !expander.isSafeToExpandAt(backedges, at)))
      continue;
    if (!llvm::all_of(streams,
                      [&](const Stream& s) { return expander.isSafeToExpandAt(s.start, at); }))
      continue;
    llvm::Value* condition =
        streaming_condition(streams, function.getArg(1), backedges, expander, at);
    for (Stream& s : streams) streamed.emplace_back(std::move(s), condition);
  }
  if (streamed.empty()) return llvm::PreservedAnalyses::all();
  for (const auto& [s, condition] : streamed)
    for (llvm::Instruction* store : s.stores) make_non_temporal(store, condition);
  // Non-temporal stores are weakly ordered: fenced before the runtime tells another thread
  // that the blocks ran.
  for (llvm::BasicBlock& block : function)
    if (auto* ret = llvm::dyn_cast<llvm::ReturnInst>(block.getTerminator()))
      llvm::IRBuilder<>(ret).CreateIntrinsic(llvm::Intrinsic::x86_sse_sfence,
                                             llvm::ArrayRef<llvm::Type*>{},
                                             llvm::ArrayRef<llvm::Value*>{});
  return llvm::PreservedAnalyses::none();
}

}  // namespace cudajit::target::detail
