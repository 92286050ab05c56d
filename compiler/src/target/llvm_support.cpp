#include "llvm_support.hpp"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/PassTimingInfo.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Pass.h>
#include <llvm/Passes/OptimizationLevel.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/StandardInstrumentations.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>
#include <llvm/Transforms/IPO/FunctionAttrs.h>
#include <llvm/Transforms/IPO/GlobalDCE.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/ADCE.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/LoopPassManager.h>
#include <llvm/Transforms/Scalar/LoopUnrollPass.h>
#include <llvm/Transforms/Scalar/SCCP.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>
#include <llvm/Transforms/Utils/ScalarEvolutionExpander.h>

#include <cstdlib>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "cudajit/compiler/errors.hpp"

#include "bounds_check_versioning.hpp"
#include "guarded_loops.hpp"
#include "streaming_stores.hpp"

namespace cudajit::target::detail {

std::string error_message(llvm::Error error) { return llvm::toString(std::move(error)); }

void set_target_triple(llvm::Module& module, const llvm::Triple& triple) {
#if LLVM_VERSION_MAJOR >= 21
  module.setTargetTriple(triple);
#else
  module.setTargetTriple(triple.str());
#endif
}

std::unique_ptr<llvm::TargetMachine> create_target_machine(const llvm::Triple& triple,
                                                           const std::string& cpu,
                                                           const std::string& features,
                                                           const llvm::TargetOptions& options,
                                                           llvm::CodeGenOptLevel level) {
  std::string error;
#if LLVM_VERSION_MAJOR >= 21
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
#else
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple.str(), error);
#endif
  if (target == nullptr) {
    throw LlvmError("no LLVM target for " + triple.str() + ": " + error);
  }
#if LLVM_VERSION_MAJOR >= 21
  const llvm::Triple& triple_arg = triple;
#else
  const std::string triple_arg = triple.str();
#endif
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple_arg, cpu, features, options, std::nullopt, std::nullopt, level));
  if (!machine) {
    throw LlvmError("LLVM cannot create a target machine for " + triple.str() + " (cpu " + cpu +
                    ", features " + features + ")");
  }
  return machine;
}

namespace {

const char* llvm_options() {
  static const char* const options = std::getenv("CUDAJIT_LLVM_OPTIONS");
  return options != nullptr && *options != '\0' ? options : nullptr;
}

}  // namespace

void apply_llvm_options_from_environment() {
  // Parsed once; a bad option fails every compile with the same message. Nothing is thrown
  // through std::call_once: with libstdc++ an exception leaving call_once is not portable
  // across library versions (on a GPU machine whose libstdc++ is newer than ours it ended
  // the process with "free(): invalid pointer").
  static std::once_flag once;
  static std::string error;
  std::call_once(once, [] {
    const char* options = llvm_options();
    if (options == nullptr) return;
    std::vector<std::string> words{"cudajit"};
    std::istringstream stream(options);
    for (std::string word; stream >> word;) words.push_back(word);
    std::vector<const char*> argv;
    for (const std::string& word : words) argv.push_back(word.c_str());
    llvm::raw_string_ostream error_stream(error);
    if (!llvm::cl::ParseCommandLineOptions(static_cast<int>(argv.size()), argv.data(), "",
                                           &error_stream)) {
      error_stream.flush();
      if (error.empty()) error = "LLVM refused the options";
    }
  });
  if (!error.empty()) throw LlvmError("CUDAJIT_LLVM_OPTIONS: " + error);
}

llvm::CodeGenOptLevel codegen_opt_level(int opt_level) {
  switch (opt_level) {
    case 0:
      return llvm::CodeGenOptLevel::None;
    case 1:
      return llvm::CodeGenOptLevel::Less;
    case 2:
      return llvm::CodeGenOptLevel::Default;
    case 3:
      return llvm::CodeGenOptLevel::Aggressive;
    default:
      throw std::invalid_argument("optimisation level must be 0, 1, 2 or 3, got " +
                                  std::to_string(opt_level));
  }
}

std::vector<llvm::Loop*> innermost_loops(llvm::LoopInfo& loops) {
  std::vector<llvm::Loop*> innermost;
  for (llvm::Loop* loop : loops.getLoopsInPreorder())
    if (loop->isInnermost()) innermost.push_back(loop);
  return innermost;
}

llvm::SCEVExpander scev_expander(llvm::ScalarEvolution& scev, const llvm::Module& module,
                                 const char* name) {
#if LLVM_VERSION_MAJOR >= 22
  (void)module;
  return llvm::SCEVExpander(scev, name);
#else
  return llvm::SCEVExpander(scev, module.getDataLayout(), name);
#endif
}

void verify_module(const llvm::Module& module, std::string_view what) {
  std::string report;
  llvm::raw_string_ostream stream(report);
  if (llvm::verifyModule(module, &stream)) {
    stream.flush();
    throw LlvmError("invalid LLVM IR in " + std::string(what) + " '" +
                    module.getModuleIdentifier() + "':\n" + report);
  }
}

namespace {

// What a pass pipeline runs with: the analyses (with `machine`'s cost model
// and target passes) and, when CUDAJIT_LLVM_OPTIONS is set (-time-passes,
// -print-after=...), the instrumentation, which costs on every compile.
class PipelineContext {
 public:
  PipelineContext(llvm::Module& module, llvm::TargetMachine& machine) {
    if (llvm_options() != nullptr) {
      callbacks_.emplace();
      instrumentations_.emplace(module.getContext(), /*DebugLogging=*/false);
      instrumentations_->registerCallbacks(*callbacks_, &module_analyses_);
    }
    builder_.emplace(&machine, llvm::PipelineTuningOptions(), std::nullopt,
                     callbacks_ ? &*callbacks_ : nullptr);
    machine.registerPassBuilderCallbacks(*builder_);
    builder_->registerModuleAnalyses(module_analyses_);
    builder_->registerCGSCCAnalyses(cgscc_analyses_);
    builder_->registerFunctionAnalyses(function_analyses_);
    builder_->registerLoopAnalyses(loop_analyses_);
    builder_->crossRegisterProxies(loop_analyses_, function_analyses_, cgscc_analyses_,
                                   module_analyses_);
  }

  llvm::PassBuilder& builder() { return *builder_; }

  void run(llvm::ModulePassManager& passes, llvm::Module& module) {
    passes.run(module, module_analyses_);
    if (llvm::TimePassesIsEnabled) llvm::reportAndResetTimings();
  }

 private:
  // Declared in this order so that they are destroyed in the reverse one.
  llvm::LoopAnalysisManager loop_analyses_;
  llvm::FunctionAnalysisManager function_analyses_;
  llvm::CGSCCAnalysisManager cgscc_analyses_;
  llvm::ModuleAnalysisManager module_analyses_;
  std::optional<llvm::PassInstrumentationCallbacks> callbacks_;
  std::optional<llvm::StandardInstrumentations> instrumentations_;
  std::optional<llvm::PassBuilder> builder_;
};

}  // namespace

void optimize_module(llvm::Module& module, llvm::TargetMachine& machine, int opt_level,
                     HostLoops host_loops) {
  static const llvm::OptimizationLevel kLevels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1, llvm::OptimizationLevel::O2,
      llvm::OptimizationLevel::O3};
  codegen_opt_level(opt_level);  // validates the level

  PipelineContext pipeline(module, machine);
  const llvm::OptimizationLevel level = kLevels[opt_level];
  if (host_loops != HostLoops::None)  // after inlining: the thread loops hold the accesses
    pipeline.builder().registerVectorizerStartEPCallback(
        [host_loops](llvm::FunctionPassManager& passes, llvm::OptimizationLevel at) {
          // First, so that the checks' ranges are the narrowed loops'.
          if (host_loops == HostLoops::NarrowToGuards) passes.addPass(NarrowToGuard());
          passes.addPass(BoundsCheckVersioning());
          passes.addPass(llvm::SimplifyCFGPass());  // the folded checks' blocks merge
          // The range tests repeat their parts (each check's guards): once per block is enough.
          passes.addPass(llvm::EarlyCSEPass());
          // Lane loops unrolled now, without their checks; their arrays become registers.
          passes.addPass(UnrollAfterChecks());
          passes.addPass(llvm::createFunctionToLoopPassAdaptor(
              llvm::LoopFullUnrollPass(at.getSpeedupLevel())));
          passes.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
          passes.addPass(llvm::EarlyCSEPass());
        });
  if (host_loops != HostLoops::None && machine.getTargetTriple().isX86())
    pipeline.builder().registerOptimizerLastEPCallback(  // LLVM 20 adds an LTO phase
        [](llvm::ModulePassManager& passes, llvm::OptimizationLevel, auto...) {
          passes.addPass(llvm::createModuleToFunctionPassAdaptor(StreamingStores()));
        });
  llvm::ModulePassManager passes = opt_level == 0
                                       ? pipeline.builder().buildO0DefaultPipeline(level)
                                       : pipeline.builder().buildPerModuleDefaultPipeline(level);
  pipeline.run(passes, module);
}

void inline_always(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::ModulePassManager passes;
  passes.addPass(llvm::AlwaysInlinerPass(/*InsertLifetimeIntrinsics=*/false));
  passes.addPass(llvm::GlobalDCEPass());
  PipelineContext(module, machine).run(passes, module);
}

void optimize_library_code(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::FunctionPassManager cleanup;
  cleanup.addPass(llvm::SCCPPass());
  cleanup.addPass(llvm::SimplifyCFGPass());
  // No fixpoint check: LLVM 19 aborts the process when InstCombine would
  // need another iteration, which is no error here.
  cleanup.addPass(llvm::InstCombinePass(llvm::InstCombineOptions().setVerifyFixpoint(false)));
  cleanup.addPass(llvm::SimplifyCFGPass());
  cleanup.addPass(llvm::ADCEPass());
  llvm::ModulePassManager passes;
  passes.addPass(llvm::AlwaysInlinerPass(/*InsertLifetimeIntrinsics=*/false));
  passes.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(cleanup)));
  passes.addPass(llvm::GlobalDCEPass());
  // memory(none), willreturn, ...: copied onto the declarations a kernel is
  // optimised against, they let loads move across and calls be merged.
  passes.addPass(llvm::createModuleToPostOrderCGSCCPassAdaptor(llvm::PostOrderFunctionAttrsPass()));
  PipelineContext(module, machine).run(passes, module);
}

namespace {

// Records errors; returns true for every diagnostic so LLVM neither prints
// it nor exits.
class CollectingHandler : public llvm::DiagnosticHandler {
 public:
  explicit CollectingHandler(std::shared_ptr<std::string> errors) : errors_(std::move(errors)) {}

  bool handleDiagnostics(const llvm::DiagnosticInfo& info) override {
    if (info.getSeverity() == llvm::DS_Error) {
      llvm::raw_string_ostream stream(*errors_);
      llvm::DiagnosticPrinterRawOStream printer(stream);
      info.print(printer);
      stream << '\n';
    }
    return true;
  }

 private:
  std::shared_ptr<std::string> errors_;
};

}  // namespace

DiagnosticCapture::DiagnosticCapture(llvm::LLVMContext& context)
    : context_(context),
      previous_(context.getDiagnosticHandler()),
      errors_(std::make_shared<std::string>()) {
  context_.setDiagnosticHandler(std::make_unique<CollectingHandler>(errors_));
}

DiagnosticCapture::~DiagnosticCapture() { context_.setDiagnosticHandler(std::move(previous_)); }

}  // namespace cudajit::target::detail
