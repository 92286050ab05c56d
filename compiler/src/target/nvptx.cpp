// PTX generation: libdevice linking, the O3 pipeline with NVVMReflect, and the
// NVPTX code generator. Kernels are the functions whose calling convention is
// PTX_Kernel; everything else is internal to the module.
#include <llvm/ADT/SmallString.h>
#include <llvm/IR/CallingConv.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "cudajit/compiler/errors.hpp"
#include "cudajit/compiler/target.hpp"
#include "libdevice.hpp"
#include "../dump.hpp"
#include "llvm_support.hpp"

namespace cudajit::target {

namespace {

// Compute capability and the first PTX ISA version that supports it (the
// PTX ISA manual's release history; LLVM's NVPTX.td agrees).
struct SmVersion {
  int cc;
  int ptx;  // major*10+minor
};
constexpr SmVersion kSmVersions[] = {{50, 40}, {52, 41}, {53, 42}, {60, 50}, {61, 50},
                                     {62, 50}, {70, 60}, {72, 61}, {75, 63}, {80, 70},
                                     {86, 71}, {87, 74}, {89, 78}, {90, 78}};

// The oldest PTX ISA LLVM's NVPTX backend emits (FeaturePTX in NVPTX.td).
constexpr int kLlvmMinPtx = 32;

constexpr const char* kNvptxTriple = "nvptx64-nvidia-cuda";

const SmVersion& sm_version(int cc) {
  for (const SmVersion& version : kSmVersions) {
    if (version.cc == cc) return version;
  }
  std::string supported;
  for (const SmVersion& version : kSmVersions) {
    supported += (supported.empty() ? "" : ", ") + std::to_string(version.cc);
  }
  throw std::invalid_argument("unsupported compute capability " + std::to_string(cc) +
                              " (major*10+minor); supported: " + supported);
}

}  // namespace

int ptx_cc_for_device(int device_cc) {
  int best = 0;
  for (const SmVersion& version : kSmVersions)
    if (version.cc <= device_cc) best = version.cc;
  if (best == 0) sm_version(device_cc);  // throws, listing the supported ones
  return best;
}

namespace {

void initialize_nvptx() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

std::unique_ptr<llvm::TargetMachine> create_nvptx_machine(int cc, bool fastmath) {
  initialize_nvptx();
  llvm::TargetOptions options;
  // Contract a*b+c into fma, as nvcc (--fmad=true) and Numba do by default.
  options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  if (fastmath) {
    options.NoInfsFPMath = true;
    options.NoNaNsFPMath = true;
    options.NoSignedZerosFPMath = true;
#if LLVM_VERSION_MAJOR < 22
    options.UnsafeFPMath = true;  // approximate div and sqrt
    options.ApproxFuncFPMath = true;
#endif
  }
  return detail::create_target_machine(llvm::Triple(kNvptxTriple), sm_name(cc),
                                       "+" + ptx_feature(cc), options,
                                       llvm::CodeGenOptLevel::Aggressive);
}

// One TargetMachine per (cc, fastmath) and thread: creating one costs, and
// code generation writes to it (TargetMachine::resetTargetOptions), so two
// threads may not share one.
llvm::TargetMachine& nvptx_machine(int cc, bool fastmath) {
  thread_local std::map<std::pair<int, bool>, std::unique_ptr<llvm::TargetMachine>> machines;
  std::unique_ptr<llvm::TargetMachine>& machine = machines[{cc, fastmath}];
  if (!machine) machine = create_nvptx_machine(cc, fastmath);
  return *machine;
}

bool is_kernel(const llvm::Function& function) {
  return function.getCallingConv() == llvm::CallingConv::PTX_Kernel;
}

#if LLVM_VERSION_MAJOR < 20
// Before LLVM 20, !nvvm.annotations is how NVPTX learns which functions are
// kernels (the calling convention is only its fallback), so say it there too.
void annotate_kernels(llvm::Module& module) {
  llvm::LLVMContext& context = module.getContext();
  llvm::NamedMDNode* annotations = module.getOrInsertNamedMetadata("nvvm.annotations");
  std::set<const llvm::Value*> annotated;
  for (const llvm::MDNode* node : annotations->operands()) {
    if (node->getNumOperands() < 2) continue;
    const auto* kind = llvm::dyn_cast_or_null<llvm::MDString>(node->getOperand(1).get());
    const auto* value = llvm::dyn_cast_or_null<llvm::ValueAsMetadata>(node->getOperand(0).get());
    if (kind != nullptr && value != nullptr && kind->getString() == "kernel") {
      annotated.insert(value->getValue());
    }
  }
  llvm::Metadata* kernel_tag = llvm::MDString::get(context, "kernel");
  llvm::Metadata* one =
      llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(context), 1));
  for (llvm::Function& function : module) {
    if (is_kernel(function) && !annotated.contains(&function)) {
      annotations->addOperand(
          llvm::MDNode::get(context, {llvm::ValueAsMetadata::get(&function), kernel_tag, one}));
    }
  }
}
#endif

// Kernels stay visible, and so do device globals marked externally_initialized
// (the host may write them, e.g. through cuModuleGetGlobal).
// compile_ptx(device=True) marks its function so: it stays a visible .func.
constexpr const char* kExportAttribute = "cudajit-export";

bool keeps_external_linkage(const llvm::GlobalValue& value) {
  if (const auto* function = llvm::dyn_cast<llvm::Function>(&value))
    return is_kernel(*function) || function->hasFnAttribute(kExportAttribute);
  if (const auto* variable = llvm::dyn_cast<llvm::GlobalVariable>(&value)) {
    return variable->isExternallyInitialized();
  }
  return false;
}

// Instruction flags are the lowering's; these function attributes are what
// the code generator reads for approximate division and square root and for
// flushing float denormals (ftz). Set after linking so that libdevice's own
// "unsafe-fp-math"="false" does not win when it is inlined.
void add_fastmath_attributes(llvm::Module& module) {
  for (llvm::Function& function : module) {
    if (function.isDeclaration()) continue;
    function.addFnAttr("unsafe-fp-math", "true");
    function.addFnAttr("no-infs-fp-math", "true");
    function.addFnAttr("no-nans-fp-math", "true");
    function.addFnAttr("no-signed-zeros-fp-math", "true");
    function.addFnAttr("approx-func-fp-math", "true");
    function.addFnAttr("denormal-fp-math-f32", "preserve-sign,preserve-sign");
  }
}

std::string generate_ptx(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream stream(ptx);
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, stream, nullptr, llvm::CodeGenFileType::AssemblyFile)) {
    throw LlvmError("the NVPTX target cannot emit PTX assembly");
  }
  passes.run(module);
  return std::string(ptx.str());
}

}  // namespace

std::string sm_name(int cc) { return "sm_" + std::to_string(sm_version(cc).cc); }

std::string ptx_feature(int cc) {
  return "ptx" + std::to_string(std::max(kLlvmMinPtx, sm_version(cc).ptx));
}

std::string emit_ptx(std::unique_ptr<llvm::Module> module, const PtxOptions& options) {
  if (!module) throw std::invalid_argument("emit_ptx: the module is null");
  const llvm::CodeGenOptLevel codegen_level = detail::codegen_opt_level(options.opt_level);
  llvm::TargetMachine& machine = nvptx_machine(options.cc, options.fastmath);
  machine.setOptLevel(codegen_level);

  detail::set_target_triple(*module, machine.getTargetTriple());
  module->setDataLayout(machine.createDataLayout());
  detail::verify_module(*module, "kernel module");

#if LLVM_VERSION_MAJOR < 20
  annotate_kernels(*module);
#endif
  {
    StageTimer timer("libdevice");
    detail::link_libdevice(*module);
  }
  detail::internalize_except(*module, keeps_external_linkage);
  // libdevice asks __nvvm_reflect("__CUDA_FTZ"); NVVMReflect answers from this.
  module->setModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", options.fastmath ? 1U : 0U);
  if (options.fastmath) add_fastmath_attributes(*module);

  detail::DiagnosticCapture diagnostics(module->getContext());
  {
    StageTimer timer("optimize");
    detail::optimize_module(*module, machine, options.opt_level);
  }
  std::optional<StageTimer> codegen(std::in_place, "codegen");
  std::string ptx = generate_ptx(*module, machine);
  codegen.reset();
  if (!diagnostics.errors().empty()) {
    throw LlvmError("NVPTX code generation for " + sm_name(options.cc) +
                    " failed: " + diagnostics.errors());
  }
  return ptx;
}

}  // namespace cudajit::target
