// Thread indices and math symbols: NVVM special registers and libdevice on
// the GPU; the host grid loop's thread context and libm on the cpu device.
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include <algorithm>
#include <array>

#include "cudajit/compiler/target.hpp"
#include "lowering.hpp"

namespace cudajit::lower {

namespace {

// Index of a register in the host thread context (see host_kernel).
int register_slot(std::string_view name) {
  static constexpr std::array<std::string_view, 4> kGroups = {"threadIdx", "blockDim", "blockIdx",
                                                              "gridDim"};
  size_t dot = name.find('.');
  std::string_view group = name.substr(0, dot);
  int axis = name.back() - 'x';
  for (size_t g = 0; g < kGroups.size(); ++g)
    if (kGroups[g] == group) return static_cast<int>(g) * 3 + axis;
  return -1;
}

std::string_view libm_name(std::string_view name) { return name == "gamma" ? "tgamma" : name; }

// A PTX statement as inline assembly: the same text under every LLVM version
// (the NVVM barrier intrinsics were renamed after LLVM 19). Barriers are
// convergent: no transformation may make them depend on more or fewer threads.
llvm::Value* ptx_asm(llvm::IRBuilder<>& b, llvm::Type* result, std::string_view text,
                     std::string_view constraints, std::vector<llvm::Value*> args,
                     bool side_effects, bool convergent) {
  std::vector<llvm::Type*> arg_types;
  for (llvm::Value* a : args) arg_types.push_back(a->getType());
  auto* type = llvm::FunctionType::get(result, arg_types, false);
  auto* code = llvm::InlineAsm::get(type, text, constraints, side_effects);
  llvm::CallInst* call = b.CreateCall(type, code, args);
  if (convergent) call->addFnAttr(llvm::Attribute::Convergent);
  return call;
}

// A new global's name: `stem_N`, as PTX names may not contain the '.' LLVM's
// uniquing adds to repeated names.
std::string unused_name(const llvm::Module& module, const std::string& stem) {
  for (int n = 0;; ++n) {
    std::string name = stem + "_" + std::to_string(n);
    if (module.getNamedValue(name) == nullptr) return name;
  }
}

// Read-only bytes as an internal constant global in `space`.
llvm::GlobalVariable* constant_global(llvm::Module& module, const std::string& bytes,
                                      unsigned space) {
  auto* data = llvm::ConstantDataArray::getString(module.getContext(), bytes, false);
  auto* global = new llvm::GlobalVariable(
      module, data->getType(), true, llvm::GlobalValue::InternalLinkage, data,
      unused_name(module, "const_array"), nullptr, llvm::GlobalValue::NotThreadLocal, space);
  global->setAlignment(llvm::Align(16));
  return global;
}

class NvptxHooks final : public TargetHooks {
 public:
  llvm::Value* special_register(llvm::IRBuilder<>& b, std::string_view name,
                                llvm::Value*) override {
    using namespace llvm;
    static const std::array<Intrinsic::ID, 12> kRegisters = {
        Intrinsic::nvvm_read_ptx_sreg_tid_x,    Intrinsic::nvvm_read_ptx_sreg_tid_y,
        Intrinsic::nvvm_read_ptx_sreg_tid_z,    Intrinsic::nvvm_read_ptx_sreg_ntid_x,
        Intrinsic::nvvm_read_ptx_sreg_ntid_y,   Intrinsic::nvvm_read_ptx_sreg_ntid_z,
        Intrinsic::nvvm_read_ptx_sreg_ctaid_x,  Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
        Intrinsic::nvvm_read_ptx_sreg_ctaid_z,  Intrinsic::nvvm_read_ptx_sreg_nctaid_x,
        Intrinsic::nvvm_read_ptx_sreg_nctaid_y, Intrinsic::nvvm_read_ptx_sreg_nctaid_z};
    Intrinsic::ID id;
    if (name == "laneid")
      id = Intrinsic::nvvm_read_ptx_sreg_laneid;
    else if (name == "warpsize")
      return b.getInt32(32);  // 32 on every NVIDIA GPU; a constant lets LLVM fold it
    else
      id = kRegisters.at(register_slot(name));
    Module* module = b.GetInsertBlock()->getModule();
#if LLVM_VERSION_MAJOR >= 20
    return b.CreateCall(Intrinsic::getOrInsertDeclaration(module, id));
#else
    return b.CreateCall(Intrinsic::getDeclaration(module, id));
#endif
  }

  std::string math_symbol(std::string_view name, bool f32) const override {
    return "__nv_" + std::string(libm_name(name)) + (f32 ? "f" : "");
  }

  std::string fast_math_symbol(std::string_view name) const override {
    // numba-cuda's mathimpl.py: the functions libdevice has __nv_fast_*f versions of.
    static constexpr std::array<std::string_view, 8> kFast = {"cos", "sin", "tan", "exp",
                                                              "log", "log2", "log10", "pow"};
    if (std::find(kFast.begin(), kFast.end(), name) == kFast.end()) return {};
    return "__nv_fast_" + std::string(name) + "f";
  }

  llvm::Value* fast_math_instruction(llvm::IRBuilder<>& b, std::string_view name,
                                     llvm::ArrayRef<llvm::Value*> args, int cc) const override {
    // numba-cuda's mathimpl.py: tanhf under fastmath is PTX's tanh.approx.f32 from sm_75
    // (libdevice has no fast tanh); before sm_75 the instruction does not exist.
    if (name != "tanh" || cc < 75 || args.size() != 1) return nullptr;
    auto* type = llvm::FunctionType::get(b.getFloatTy(), {b.getFloatTy()}, false);
    auto* tanh = llvm::InlineAsm::get(type, "tanh.approx.f32 $0, $1;", "=f,f", false);
    return b.CreateCall(type, tanh, args);
  }

  bool has_thread_ctx() const override { return false; }

  llvm::Value* static_shared(ModuleLowering& m, llvm::IRBuilder<>& b, llvm::ArrayType* storage,
                             uint64_t, uint64_t alignment, llvm::Value*) override {
    // The module owns its globals (LLVM's ownership, not ours to delete).
    // External: see keeps_external_linkage in target/nvptx.cpp.
    auto* array = new llvm::GlobalVariable(
        m.module, storage, false, llvm::GlobalValue::ExternalLinkage,
        llvm::UndefValue::get(storage), unused_name(m.module, "shared_array"), nullptr,
        llvm::GlobalValue::NotThreadLocal, kSharedSpace);
    array->setAlignment(llvm::Align(alignment));
    return b.CreateAddrSpaceCast(array, b.getPtrTy());
  }

  llvm::Value* constant_data(ModuleLowering& m, llvm::IRBuilder<>& b,
                             const std::string& bytes) override {
    constexpr unsigned kConstSpace = 4;
    return b.CreateAddrSpaceCast(constant_global(m.module, bytes, kConstSpace), b.getPtrTy());
  }

  llvm::Value* constant_string(ModuleLowering& m, llvm::IRBuilder<>& b, const std::string& if_true,
                               const std::string& if_false, llvm::Value* condition) override {
    // vprintf reads strings through generic pointers to global memory, as nvcc makes them.
    auto text = [&](const std::string& s) {
      return b.CreateAddrSpaceCast(constant_global(m.module, s + '\0', kGlobalSpace), b.getPtrTy());
    };
    return b.CreateSelect(condition, text(if_true), text(if_false));
  }

  void print(ModuleLowering& m, llvm::IRBuilder<>& b, const std::string& format,
             const std::vector<llvm::Value*>& args) override {
    // vprintf(format, buffer): the arguments laid out in a local buffer, 8 bytes each.
    llvm::Value* buffer = llvm::ConstantPointerNull::get(b.getPtrTy());
    if (!args.empty()) {
      std::vector<llvm::Type*> fields;
      for (llvm::Value* a : args) fields.push_back(a->getType());
      auto* layout = llvm::StructType::get(b.getContext(), fields);
      llvm::Function* fn = b.GetInsertBlock()->getParent();
      llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
      buffer = entry.CreateAlloca(layout, nullptr, "printf.args");
      for (unsigned i = 0; i < args.size(); ++i)
        b.CreateStore(args[i], b.CreateStructGEP(layout, buffer, i));
    }
    llvm::FunctionCallee vprintf = m.module.getOrInsertFunction(
        "vprintf", llvm::FunctionType::get(b.getInt32Ty(), {b.getPtrTy(), b.getPtrTy()}, false));
    llvm::Value* text =
        b.CreateAddrSpaceCast(constant_global(m.module, format + '\0', kGlobalSpace), b.getPtrTy());
    b.CreateCall(vprintf, {text, buffer});
  }

  llvm::Value* dynamic_shared(ModuleLowering& m, llvm::IRBuilder<>& b, llvm::Value*) override {
    // `.extern .shared .align 16 .b8 cudajit_dynamic_shared[]`: after the static arrays.
    constexpr const char* kName = "cudajit_dynamic_shared";
    llvm::GlobalVariable* array = m.module.getNamedGlobal(kName);
    if (array == nullptr) {
      auto* type = llvm::ArrayType::get(b.getInt8Ty(), 0);
      array = new llvm::GlobalVariable(m.module, type, false, llvm::GlobalValue::ExternalLinkage,
                                       nullptr, kName, nullptr, llvm::GlobalValue::NotThreadLocal,
                                       kSharedSpace);
      array->setAlignment(llvm::Align(16));
    }
    return b.CreateAddrSpaceCast(array, b.getPtrTy());
  }

  llvm::Value* dynamic_shared_bytes(ModuleLowering&, llvm::IRBuilder<>& b, llvm::Value*) override {
    llvm::Value* bytes =
        ptx_asm(b, b.getInt32Ty(), "mov.u32 $0, %dynamic_smem_size;", "=r", {}, false, false);
    return b.CreateZExt(bytes, b.getInt64Ty());
  }

  llvm::Value* barrier(ModuleLowering&, llvm::IRBuilder<>& b, int op, llvm::Value* predicate,
                       llvm::Value*) override {
    switch (op) {
      case target::kBarrierSync:
        return ptx_asm(b, b.getVoidTy(), "bar.sync 0;", "~{memory}", {}, true, true);
      case target::kWarpSync:
        return ptx_asm(b, b.getVoidTy(), "bar.warp.sync $0;", "r,~{memory}", {predicate}, true,
                       true);
      case target::kBarrierCount:
        return ptx_asm(b, b.getInt32Ty(),
                       "{ .reg .pred p; setp.ne.u32 p, $1, 0; bar.red.popc.u32 $0, 0, p; }",
                       "=r,r,~{memory}", {predicate}, true, true);
      default: {
        std::string reduction = op == target::kBarrierAnd ? "and" : "or";
        return ptx_asm(b, b.getInt32Ty(),
                       "{ .reg .pred p, q; setp.ne.u32 p, $1, 0; bar.red." + reduction +
                           ".pred q, 0, p; selp.u32 $0, 1, 0, q; }",
                       "=r,r,~{memory}", {predicate}, true, true);
      }
    }
  }

  llvm::Value* warp(ModuleLowering&, llvm::IRBuilder<>& b, int op, llvm::Value* mask,
                    llvm::Value* value, llvm::Value* arg, llvm::Value*) override {
    auto* i32 = b.getInt32Ty();
    auto asm_call = [&](llvm::Type* result, const std::string& text, std::string_view constraints,
                        std::vector<llvm::Value*> args) {
      return ptx_asm(b, result, text, constraints, std::move(args), true, true);
    };
    switch (op) {
      case target::kShflIdx:
      case target::kShflUp:
      case target::kShflDown:
      case target::kShflXor: {
        static const char* kModes[] = {"idx", "up", "down", "bfly"};
        // c: lanes clamp at 31 (idx, down, bfly) or 0 (up), one 32-lane segment.
        llvm::Value* c = b.getInt32(op == target::kShflUp ? 0 : 0x1f);
        std::string text = std::string("shfl.sync.") + kModes[op] + ".b32 $0, $1, $2, $3, $4;";
        auto shuffle = [&](llvm::Value* half) {
          return asm_call(i32, text, "=r,r,r,r,r", {half, arg, c, mask});
        };
        if (value->getType()->getIntegerBitWidth() == 32) return shuffle(value);
        llvm::Value* low = shuffle(b.CreateTrunc(value, i32));
        llvm::Value* high = shuffle(b.CreateTrunc(b.CreateLShr(value, 32), i32));
        return b.CreateOr(b.CreateZExt(low, b.getInt64Ty()),
                          b.CreateShl(b.CreateZExt(high, b.getInt64Ty()), 32));
      }
      case target::kVoteAll:
      case target::kVoteAny:
      case target::kVoteUni: {
        std::string mode = op == target::kVoteAll ? "all" : op == target::kVoteAny ? "any" : "uni";
        return asm_call(i32,
                        "{ .reg .pred p, q; setp.ne.u32 p, $1, 0; vote.sync." + mode +
                            ".pred q, p, $2; selp.u32 $0, 1, 0, q; }",
                        "=r,r,r", {value, mask});
      }
      case target::kBallot:
        return asm_call(i32,
                        "{ .reg .pred p; setp.ne.u32 p, $1, 0; vote.sync.ballot.b32 $0, p, $2; }",
                        "=r,r,r", {value, mask});
      case target::kMatchAny: {
        bool wide = value->getType()->getIntegerBitWidth() == 64;
        return asm_call(i32,
                        wide ? "match.any.sync.b64 $0, $1, $2;" : "match.any.sync.b32 $0, $1, $2;",
                        wide ? "=r,l,r" : "=r,r,r", {value, mask});
      }
      case target::kMatchAll: {
        bool wide = value->getType()->getIntegerBitWidth() == 64;
        auto* pair_type = llvm::StructType::get(b.getContext(), {i32, i32});
        llvm::Value* pair =
            asm_call(pair_type,
                     std::string("{ .reg .pred p; match.all.sync.") + (wide ? "b64" : "b32") +
                         " $0|p, $2, $3; selp.u32 $1, 1, 0, p; }",
                     wide ? "=r,=r,l,r" : "=r,=r,r,r", {value, mask});
        llvm::Value* lanes = b.CreateZExt(b.CreateExtractValue(pair, {0}), b.getInt64Ty());
        llvm::Value* all = b.CreateZExt(b.CreateExtractValue(pair, {1}), b.getInt64Ty());
        return b.CreateOr(lanes, b.CreateShl(all, 32));
      }
      default:  // kActiveMask
        return asm_call(i32, "activemask.b32 $0;", "=r", {});
    }
  }

  bool stop_thread(ModuleLowering&, llvm::IRBuilder<>& b, llvm::Value*) override {
    ptx_asm(b, b.getVoidTy(), "exit;", "", {}, true, false);
    return true;
  }

  llvm::Value* raised(ModuleLowering&, llvm::IRBuilder<>& b, llvm::Value*) override {
    return b.getFalse();  // never asked: a raising thread exits
  }

  void fence(llvm::IRBuilder<>& b, std::string_view scope) override {
    std::string_view text = scope == "block"    ? "membar.cta;"
                            : scope == "system" ? "membar.sys;"
                                                : "membar.gl;";
    ptx_asm(b, b.getVoidTy(), text, "~{memory}", {}, true, false);
  }

  // A generation barrier on the launch's workspace {arrivals, generation}: the
  // block meets at bar.sync, its thread (0,0,0) arrives; the last block to
  // arrive resets the count and bumps the generation, the others wait for the
  // bump (nanosleep between looks), then the block meets again. The count is
  // 0 between barriers, so a workspace serves every barrier of its launch.
  void grid_sync(ModuleLowering& m, llvm::IRBuilder<>& b, llvm::Value* workspace) override {
    llvm::Function* fn = b.GetInsertBlock()->getParent();
    auto block = [&](const char* name) { return llvm::BasicBlock::Create(m.context, name, fn); };
    llvm::BasicBlock *lead = block("grid.lead"), *last = block("grid.last"),
                     *wait = block("grid.wait"), *led = block("grid.led"),
                     *after = block("grid.after");
    auto* i64 = b.getInt64Ty();
    // barrier.sync without .aligned: the threads of a warp may reach the grid's sync at
    // different calls (a device function on one side of a branch, inline on the other),
    // which bar.sync leaves undefined (an H200 hung on it).
    auto block_barrier = [&] {
      ptx_asm(b, b.getVoidTy(), "barrier.sync 0;", "~{memory}", {}, true, true);
    };
    block_barrier();
    llvm::Value* tid = b.CreateOr(b.CreateOr(special_register(b, "threadIdx.x", nullptr),
                                             special_register(b, "threadIdx.y", nullptr)),
                                  special_register(b, "threadIdx.z", nullptr));
    b.CreateCondBr(b.CreateICmpEQ(tid, b.getInt32(0)), lead, after);

    b.SetInsertPoint(lead);
    fence(b, "device");  // the block's writes before its arrival
    llvm::Value* blocks = b.getInt64(1);
    for (const char* axis : {"gridDim.x", "gridDim.y", "gridDim.z"})
      blocks = b.CreateMul(blocks, b.CreateZExt(special_register(b, axis, nullptr), i64));
    llvm::Value* generation_at = b.CreateConstGEP1_64(i64, workspace, 1);
    llvm::LoadInst* generation = b.CreateAlignedLoad(i64, generation_at, llvm::Align(8), true);
    llvm::Value* arrived = b.CreateAtomicRMW(llvm::AtomicRMWInst::Add, workspace, b.getInt64(1),
                                             llvm::Align(8), llvm::AtomicOrdering::Monotonic);
    b.CreateCondBr(b.CreateICmpEQ(arrived, b.CreateSub(blocks, b.getInt64(1))), last, wait);

    b.SetInsertPoint(last);
    b.CreateAlignedStore(b.getInt64(0), workspace, llvm::Align(8), true);
    fence(b, "device");  // the reset before the release
    b.CreateAtomicRMW(llvm::AtomicRMWInst::Add, generation_at, b.getInt64(1), llvm::Align(8),
                      llvm::AtomicOrdering::Monotonic);
    b.CreateBr(led);

    b.SetInsertPoint(wait);
    ptx_asm(b, b.getVoidTy(), "nanosleep.u32 100;", "~{memory}", {}, true, false);
    llvm::Value* now = b.CreateAlignedLoad(i64, generation_at, llvm::Align(8), true);
    b.CreateCondBr(b.CreateICmpEQ(now, generation), wait, led);

    b.SetInsertPoint(led);
    fence(b, "device");  // the other blocks' writes after it
    b.CreateBr(after);

    b.SetInsertPoint(after);
    block_barrier();
  }

 private:
  static constexpr unsigned kGlobalSpace = 1;
  static constexpr unsigned kSharedSpace = 3;
};

class HostHooks final : public TargetHooks {
 public:
  llvm::Value* special_register(llvm::IRBuilder<>& b, std::string_view name,
                                llvm::Value* ctx) override {
    auto* i32 = b.getInt32Ty();
    if (name == "warpsize") return b.getInt32(32);
    if (name == "laneid") {
      // Linear thread index within the block, modulo the warp size.
      auto load = [&](int slot) { return b.CreateLoad(i32, b.CreateConstGEP1_32(i32, ctx, slot)); };
      llvm::Value* linear = b.CreateAdd(
          load(0), b.CreateMul(load(3), b.CreateAdd(load(1), b.CreateMul(load(4), load(2)))));
      return b.CreateURem(linear, b.getInt32(32));
    }
    return b.CreateLoad(i32, b.CreateConstGEP1_32(i32, ctx, register_slot(name)));
  }

  std::string math_symbol(std::string_view name, bool f32) const override {
    return std::string(libm_name(name)) + (f32 ? "f" : "");
  }

  bool has_thread_ctx() const override { return true; }

  llvm::Value* static_shared(ModuleLowering& m, llvm::IRBuilder<>& b, llvm::ArrayType*,
                             uint64_t bytes, uint64_t alignment, llvm::Value* ctx) override {
    // Each array at its own offset of the block's buffer (4096-byte aligned), at least
    // 16-byte aligned.
    uint64_t offset = (m.static_shared_bytes + alignment - 1) / alignment * alignment;
    m.static_shared_bytes = offset + bytes;
    return b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), field(m, b, ctx, kShared), offset);
  }

  llvm::Value* dynamic_shared(ModuleLowering& m, llvm::IRBuilder<>& b, llvm::Value* ctx) override {
    return field(m, b, ctx, kDynamicShared);
  }

  llvm::Value* constant_data(ModuleLowering& m, llvm::IRBuilder<>&,
                             const std::string& bytes) override {
    return constant_global(m.module, bytes, 0);
  }

  llvm::Value* constant_string(ModuleLowering& m, llvm::IRBuilder<>& b, const std::string& if_true,
                               const std::string& if_false, llvm::Value* condition) override {
    return b.CreateSelect(condition, constant_global(m.module, if_true + '\0', 0),
                          constant_global(m.module, if_false + '\0', 0));
  }

  void print(ModuleLowering& m, llvm::IRBuilder<>& b, const std::string& format,
             const std::vector<llvm::Value*>& args) override {
    // dprintf(1, format, ...): glibc formats the line and writes it in one write(2),
    // so lines of threads running at once do not mix.
    llvm::FunctionCallee dprintf = m.module.getOrInsertFunction(
        "dprintf", llvm::FunctionType::get(b.getInt32Ty(), {b.getInt32Ty(), b.getPtrTy()}, true));
    std::vector<llvm::Value*> call_args{b.getInt32(1), constant_global(m.module, format + '\0', 0)};
    call_args.insert(call_args.end(), args.begin(), args.end());
    b.CreateCall(dprintf, call_args);
  }

  llvm::Value* dynamic_shared_bytes(ModuleLowering& m, llvm::IRBuilder<>& b,
                                    llvm::Value* ctx) override {
    return b.CreateLoad(b.getInt64Ty(),
                        b.CreateStructGEP(m.thread_ctx_type(), ctx, kDynamicSharedBytes));
  }

  llvm::Value* barrier(ModuleLowering& m, llvm::IRBuilder<>& b, int op, llvm::Value* predicate,
                       llvm::Value* ctx) override {
    // ctx->barrier(ctx, op, predicate): the runtime switches to the block's next fiber.
    auto* type = llvm::FunctionType::get(b.getInt32Ty(),
                                         {b.getPtrTy(), b.getInt32Ty(), b.getInt32Ty()}, false);
    return b.CreateCall(type, field(m, b, ctx, kBarrier), {ctx, b.getInt32(op), predicate});
  }

  llvm::Value* warp(ModuleLowering& m, llvm::IRBuilder<>& b, int op, llvm::Value* mask,
                    llvm::Value* value, llvm::Value* arg, llvm::Value* ctx) override {
    // ctx->warp(ctx, op, mask, value, arg): the runtime gathers the lanes' values.
    auto* i64 = b.getInt64Ty();
    auto* type = llvm::FunctionType::get(
        i64, {b.getPtrTy(), b.getInt32Ty(), b.getInt32Ty(), i64, b.getInt32Ty()}, false);
    llvm::Value* bits = value ? b.CreateZExt(value, i64) : b.getInt64(0);
    llvm::Value* r = b.CreateCall(type, field(m, b, ctx, kWarp),
                                  {ctx, b.getInt32(op), mask, bits, arg ? arg : b.getInt32(0)});
    if (op == target::kMatchAll) return r;
    bool shuffle = op <= target::kShflXor;
    return b.CreateTrunc(r, shuffle ? value->getType() : b.getInt32Ty());
  }

  bool stop_thread(ModuleLowering& m, llvm::IRBuilder<>& b, llvm::Value* ctx) override {
    b.CreateStore(b.getInt32(1), b.CreateStructGEP(m.thread_ctx_type(), ctx, kRaised));
    return false;
  }

  llvm::Value* raised(ModuleLowering& m, llvm::IRBuilder<>& b, llvm::Value* ctx) override {
    llvm::Value* mark =
        b.CreateLoad(b.getInt32Ty(), b.CreateStructGEP(m.thread_ctx_type(), ctx, kRaised));
    return b.CreateICmpNE(mark, b.getInt32(0));
  }

  void grid_sync(ModuleLowering& m, llvm::IRBuilder<>& b, llvm::Value* ctx) override {
    barrier(m, b, target::kGridSync, b.getInt32(0), ctx);
  }

  void converge(ModuleLowering& m, llvm::IRBuilder<>& b, int line, llvm::Value* ctx) override {
    barrier(m, b, target::kConverge, b.getInt32(line), ctx);
  }

  void fence(llvm::IRBuilder<>& b, std::string_view scope) override {
    // The threads of a block are fibers of one OS thread: the compiler must
    // only keep memory accesses in order; other blocks run on other threads.
    b.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent,
                  scope == "block" ? llvm::SyncScope::SingleThread : llvm::SyncScope::System);
  }

 private:
  static llvm::Value* field(ModuleLowering& m, llvm::IRBuilder<>& b, llvm::Value* ctx,
                            HostContextField f) {
    return b.CreateLoad(b.getPtrTy(), b.CreateStructGEP(m.thread_ctx_type(), ctx, f));
  }
};

}  // namespace

std::unique_ptr<TargetHooks> make_hooks(TargetKind kind) {
  if (kind == TargetKind::Nvptx) return std::make_unique<NvptxHooks>();
  return std::make_unique<HostHooks>();
}

}  // namespace cudajit::lower
