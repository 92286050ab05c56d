// Calls of foreign device functions (cuda.declare_device): an external declaration that the
// driver's linker resolves against the code linked with the kernel (PTX, CUDA C++ compiled
// by NVRTC, cubins). The conventions are numba-cuda's, so the same foreign code serves both:
//   numba: extern "C" __device__ int f(T* result, args...)  (the int is a status, 0 for success)
//   c:     extern "C" __device__ T f(args...)
// Numbers and bools pass by value (bool as one byte, as C's bool), CPointers as generic
// addresses. The host has no linker for them: a kernel calling one runs on the cuda device.
#include "lowering.hpp"

namespace cudajit::lower {

namespace {

// A foreign value as C sees it: bool is a byte.
llvm::Type* abi_type(ModuleLowering& m, const Type& t) {
  if (t.is_scalar()) return m.memory_type(t.scalar());
  return m.value_type(t);  // a CPointer: ptr
}

}  // namespace

llvm::Value* FunctionLowering::call_foreign(const ir::Node& n) {
  typing::ForeignSignature sig = typing::foreign_signature(n);
  if (m_.hooks.has_thread_ctx())
    throw CompileError("'" + sig.name +
                           "' is a foreign device function (cuda.declare_device): its code is "
                           "linked by the CUDA driver, so kernels that call it run on the cuda "
                           "device only, not the cpu device; select a GPU (CUDAJIT_DEVICE=cuda) "
                           "or the simulated GPU (CUDAJIT_DEVICE=sim)",
                       n.loc);
  llvm::LLVMContext& context = m_.context;
  const bool returns = !sig.return_type.is_none();
  std::vector<llvm::Type*> params;
  if (sig.numba_abi) params.push_back(b_.getPtrTy());
  for (const Type& p : sig.params) params.push_back(abi_type(m_, p));
  llvm::Type* result = sig.numba_abi ? b_.getInt32Ty()
                       : returns     ? abi_type(m_, sig.return_type)
                                     : llvm::Type::getVoidTy(context);
  auto* type = llvm::FunctionType::get(result, params, false);
  llvm::Function* callee = m_.module.getFunction(sig.name);
  if (callee == nullptr) {
    callee = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, sig.name, m_.module);
  } else if (callee->getFunctionType() != type) {
    throw CompileError("foreign function '" + sig.name +
                           "' is declared with two different signatures in one kernel",
                       n.loc);
  }

  llvm::AllocaInst* slot = nullptr;
  if (sig.numba_abi) {
    // The result slot, in the entry block so that a loop reuses it. A function returning None
    // still gets one (numba-cuda passes it too).
    llvm::IRBuilderBase::InsertPointGuard guard(b_);
    b_.SetInsertPoint(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    slot = b_.CreateAlloca(returns ? abi_type(m_, sig.return_type) : b_.getInt8Ty(), nullptr,
                           sig.name + ".result");
  }
  std::vector<llvm::Value*> args;
  if (slot) args.push_back(slot);
  for (size_t i = 0; i < sig.params.size(); ++i) {
    llvm::Value* v = expr(n.child(i + 1));  // already of the declared type (typing checked)
    if (sig.params[i].is_scalar() && sig.params[i].scalar() == Scalar::Bool)
      v = b_.CreateZExt(v, b_.getInt8Ty());
    args.push_back(v);
  }
  // The status of Numba's convention is not read: cudajit's device functions raise no
  // exceptions through it (foreign code returns 0, as numba-cuda's documentation asks).
  llvm::Value* value = b_.CreateCall(callee, args);
  if (!returns) return nullptr;
  if (slot) value = b_.CreateLoad(abi_type(m_, sig.return_type), slot);
  if (sig.return_type.is_scalar() && sig.return_type.scalar() == Scalar::Bool)
    value = b_.CreateICmpNE(value, b_.getInt8(0));
  return value;
}

}  // namespace cudajit::lower
