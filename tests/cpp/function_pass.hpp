// One function pass run on a function written in IR, checked by the verifier: the tests of
// the host target's loop passes (test_guarded_loops.cpp, test_streaming_stores.cpp).
#pragma once

#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include <catch2/catch.hpp>
#include <memory>
#include <string>

struct PassedFunction {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module;
  llvm::Function* function = nullptr;
  // After the module, so destroyed before it; cleared after the pass, for fresh analyses.
  llvm::LoopAnalysisManager loop_analyses;
  llvm::FunctionAnalysisManager function_analyses;
  llvm::CGSCCAnalysisManager cgscc_analyses;
  llvm::ModuleAnalysisManager module_analyses;

  // Parses `ir` and runs `pass` on its function `name`.
  template <class Pass>
  PassedFunction(const std::string& ir, const char* name, Pass pass) {
    llvm::SMDiagnostic error;
    module = llvm::parseAssemblyString(ir, error, context);
    REQUIRE(module != nullptr);
    function = module->getFunction(name);
    REQUIRE(function != nullptr);
    llvm::PassBuilder builder;
    builder.registerModuleAnalyses(module_analyses);
    builder.registerCGSCCAnalyses(cgscc_analyses);
    builder.registerFunctionAnalyses(function_analyses);
    builder.registerLoopAnalyses(loop_analyses);
    builder.crossRegisterProxies(loop_analyses, function_analyses, cgscc_analyses, module_analyses);
    llvm::FunctionPassManager passes;
    passes.addPass(std::move(pass));
    passes.run(*function, function_analyses);
    std::string report;
    llvm::raw_string_ostream stream(report);
    INFO(report);
    REQUIRE_FALSE(llvm::verifyFunction(*function, &stream));
    function_analyses.clear();
  }
};
