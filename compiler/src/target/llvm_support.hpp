// LLVM plumbing shared by the nvptx and host targets: shims over the LLVM
// versions we build against (19 to 22), the verifier, diagnostics capture and
// the new-pass-manager optimisation pipeline.
//
// Linking: the files in compiler/src/target/ need these LLVM components
// (static libraries; CMake: llvm_map_components_to_libnames, or
// `llvm-config --link-static --libs <components>`):
//
//   nvptx native orcjit passes linker bitreader bitwriter
//
// `nvptx` expands to nvptxcodegen nvptxdesc nvptxinfo; `native` to the host
// backend (x86codegen x86desc x86info on x86-64); everything else
// (target, codegen, transformutils, ipo, analysis, core, support, jitlink,
// ...) comes in transitively. Add `llvm-config --link-static --system-libs`.
// LLVM's --cxxflags carry -fno-exceptions and -std=c++17: do not use them as
// they are; take the include directory (as a system include, LLVM's headers
// are not -Wextra clean) and the -D flags.
#pragma once

#include <llvm/Config/llvm-config.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/CodeGen.h>
#include <llvm/Support/Error.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Triple.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace llvm {
class Loop;
class LoopInfo;
class SCEVExpander;
class ScalarEvolution;
}  // namespace llvm

namespace cudajit::target::detail {

// The loops without loops inside, outermost first: the host loop passes' candidates, taken
// before a pass changes any (a version's copy is not visited again).
std::vector<llvm::Loop*> innermost_loops(llvm::LoopInfo& loops);

// A SCEVExpander for `module`'s code, its new values named `name` (LLVM 22 takes the data
// layout from the code it expands into).
llvm::SCEVExpander scev_expander(llvm::ScalarEvolution& scev, const llvm::Module& module,
                                 const char* name);

// The message of an llvm::Error, which is consumed.
std::string error_message(llvm::Error error);

// Module::setTargetTriple takes a string before LLVM 21, a Triple after.
void set_target_triple(llvm::Module& module, const llvm::Triple& triple);

// Looks the target up in the registry (initialised by the caller) and creates
// a TargetMachine. Throws LlvmError.
std::unique_ptr<llvm::TargetMachine> create_target_machine(const llvm::Triple& triple,
                                                           const std::string& cpu,
                                                           const std::string& features,
                                                           const llvm::TargetOptions& options,
                                                           llvm::CodeGenOptLevel level);

// CUDAJIT_LLVM_OPTIONS="-time-passes ..." goes to LLVM's command-line parser,
// once per process: a developer's window into the passes. Call after the
// targets are initialised, so that their options exist.
void apply_llvm_options_from_environment();

// 0..3 to the code generator's level; throws std::invalid_argument otherwise.
llvm::CodeGenOptLevel codegen_opt_level(int opt_level);

// Throws LlvmError carrying the verifier's report when `module` is malformed.
// `what` names the module in the message ("kernel module", ...).
void verify_module(const llvm::Module& module, std::string_view what);

// What the cpu device's pipeline adds before the loop vectoriser: BoundsCheckVersioning,
// and where the CPU has no cheap vector masks (AVX-512's) NarrowToGuard too.
enum class HostLoops { None, KeepGuards, NarrowToGuards };

// Runs the default new-pass-manager pipeline at `opt_level` (0..3), with the
// target's own passes (for NVPTX: NVVMReflect) and cost model, and for the cpu
// device the passes `host_loops` names.
void optimize_module(llvm::Module& module, llvm::TargetMachine& machine, int opt_level,
                     HostLoops host_loops = HostLoops::None);

// Inlines the calls to alwaysinline functions (libdevice's) and drops the
// functions no longer called; a few passes, not a pipeline.
void inline_always(llvm::Module& module, llvm::TargetMachine& machine);

// A short pipeline for library code that was optimised when it was built
// (libdevice): inlining its always-inline helpers and cleaning up after
// constants were substituted (__nvvm_reflect's answers). A fifth of O3's time,
// for the same PTX within a few instructions.
void optimize_library_code(llvm::Module& module, llvm::TargetMachine& machine);

// Gives every definition other than those `keep` accepts internal linkage, so
// that the optimiser may inline and drop them and that two modules' helpers
// never clash. Intrinsic globals (llvm.used, llvm.global_ctors) are kept.
template <typename Keep>
void internalize_except(llvm::Module& module, Keep keep) {
  for (llvm::GlobalValue& value : module.global_values()) {
    if (value.isDeclaration() || value.hasLocalLinkage() || value.getName().starts_with("llvm.") ||
        keep(value)) {
      continue;
    }
    value.setLinkage(llvm::GlobalValue::InternalLinkage);
  }
}

// While alive, collects the error diagnostics of `context` (the linker's, the
// code generator's) instead of letting LLVM print them and exit(1); warnings
// and remarks are dropped rather than printed on stderr. Restores the
// context's previous handler on destruction.
class DiagnosticCapture {
 public:
  explicit DiagnosticCapture(llvm::LLVMContext& context);
  ~DiagnosticCapture();
  DiagnosticCapture(const DiagnosticCapture&) = delete;
  DiagnosticCapture& operator=(const DiagnosticCapture&) = delete;

  // The errors reported so far, one per line; empty if none.
  const std::string& errors() const { return *errors_; }

 private:
  llvm::LLVMContext& context_;
  std::unique_ptr<llvm::DiagnosticHandler> previous_;
  std::shared_ptr<std::string> errors_;
};

}  // namespace cudajit::target::detail
