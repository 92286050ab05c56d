// Kernels built with IRBuilder that call math functions, shared by the C++
// tests of the NVPTX target (test_target.cpp, test_ptx_inline.cpp).
#pragma once

#include <llvm/IR/CallingConv.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <memory>
#include <string>
#include <vector>

namespace cudajit::testing {

// kernel void k(T* out, T x[, T y]): out[i] = callees[i](x[, y]), where T is
// float (or double with `f64`) and each callee takes `arity` (1 or 2) Ts.
inline std::unique_ptr<llvm::Module> make_math_calls_kernel(llvm::LLVMContext& context,
                                                            const std::vector<std::string>& callees,
                                                            int arity = 1, bool f64 = false) {
  auto module = std::make_unique<llvm::Module>("math_calls", context);
  llvm::IRBuilder<> b(context);
  llvm::Type* real = f64 ? b.getDoubleTy() : b.getFloatTy();
  const std::vector<llvm::Type*> reals(arity, real);
  std::vector<llvm::Type*> params{b.getPtrTy()};
  params.insert(params.end(), reals.begin(), reals.end());
  auto* type = llvm::FunctionType::get(b.getVoidTy(), params, false);
  auto* kernel = llvm::Function::Create(type, llvm::Function::ExternalLinkage, "k", *module);
  kernel->setCallingConv(llvm::CallingConv::PTX_Kernel);
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", kernel));
  std::vector<llvm::Value*> arguments;
  for (int i = 1; i <= arity; ++i) arguments.push_back(kernel->getArg(i));
  for (std::size_t i = 0; i < callees.size(); ++i) {
    llvm::FunctionCallee callee =
        module->getOrInsertFunction(callees[i], llvm::FunctionType::get(real, reals, false));
    b.CreateStore(b.CreateCall(callee, arguments),
                  b.CreateConstGEP1_64(real, kernel->getArg(0), i));
  }
  b.CreateRetVoid();
  return module;
}

}  // namespace cudajit::testing
