// Thread indices and math symbols: NVVM special registers and libdevice on
// the GPU; the host grid loop's thread context and libm on the cpu device.
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include <array>

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

  bool has_thread_ctx() const override { return false; }
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
};

}  // namespace

std::unique_ptr<TargetHooks> make_hooks(TargetKind kind) {
  if (kind == TargetKind::Nvptx) return std::make_unique<NvptxHooks>();
  return std::make_unique<HostHooks>();
}

}  // namespace cudajit::lower
