// PTX generation: libdevice's functions (answered __nvvm_reflect, optimised
// apart, inlined after), the O3 pipeline, and the NVPTX code generator.
// Kernels are the functions whose calling convention is PTX_Kernel;
// everything else is internal to the module.
#include <llvm/ADT/SmallString.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/CallingConv.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassTimingInfo.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Pass.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../dump.hpp"
#include "cudajit/compiler/errors.hpp"
#include "cudajit/compiler/target.hpp"
#include "libdevice.hpp"
#include "llvm_support.hpp"
#include "ptx_inline.hpp"

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
  detail::apply_llvm_options_from_environment();
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
  std::string features = "+";  // (not "+" + ...: GCC 12 warns falsely, -Wrestrict)
  features += ptx_feature(cc);
  return detail::create_target_machine(llvm::Triple(kNvptxTriple), sm_name(cc), features, options,
                                       llvm::CodeGenOptLevel::Aggressive);
}

// The code generator's pass pipeline, built once and run on module after
// module: building it (addPassesToEmitFile) is ~0.35 ms, a third of a small
// kernel's code generation. LLVM's pieces start afresh for each module in
// doInitialization (the NVPTX printer its globals, the machine-module info
// its MC context); the PTX of several hundred kernels, libdevice sets and
// device functions, with and without line tables, is byte for byte that of
// a fresh pipeline (but for DWARF sections: see emit_ptx).
class CodeGenPipeline {
 public:
  explicit CodeGenPipeline(llvm::TargetMachine& machine) {
    if (machine.addPassesToEmitFile(passes_, stream_, nullptr,
                                    llvm::CodeGenFileType::AssemblyFile)) {
      throw LlvmError("the NVPTX target cannot emit PTX assembly");
    }
  }

  std::string run(llvm::Module& module) {
    ptx_.clear();
    passes_.run(module);
    if (llvm::TimePassesIsEnabled) llvm::reportAndResetTimings();
    return std::string(ptx_.str());
  }

 private:
  llvm::SmallString<0> ptx_;
  llvm::raw_svector_ostream stream_{ptx_};  // the printer writes here
  llvm::legacy::PassManager passes_;
};

// One TargetMachine per (cc, fastmath) and thread: creating one costs, and
// code generation writes to it (TargetMachine::resetTargetOptions), so two
// threads may not share one. With it, its code generators, one per level.
struct NvptxTarget {
  std::unique_ptr<llvm::TargetMachine> machine;
  // Declared after `machine`, so destroyed before it: they use it.
  std::map<llvm::CodeGenOptLevel, std::unique_ptr<CodeGenPipeline>> pipelines;

  // For the machine's current level.
  CodeGenPipeline& pipeline() {
    std::unique_ptr<CodeGenPipeline>& found = pipelines[machine->getOptLevel()];
    if (!found) found = std::make_unique<CodeGenPipeline>(*machine);
    return *found;
  }
  // After a run that reported errors: the next one starts from a new pipeline.
  void drop_pipeline() { pipelines.erase(machine->getOptLevel()); }
};

// Whether the PTX of `module` gets DWARF sections (.debug_info ...), not only .loc.
bool has_dwarf_sections(const llvm::Module& module) {
  for (const llvm::DICompileUnit* unit : module.debug_compile_units()) {
    const auto kind = unit->getEmissionKind();
    if (kind == llvm::DICompileUnit::FullDebug || kind == llvm::DICompileUnit::LineTablesOnly)
      return true;
  }
  return false;
}

NvptxTarget& nvptx_target(int cc, bool fastmath) {
  thread_local std::map<std::pair<int, bool>, NvptxTarget> targets;
  NvptxTarget& target = targets[{cc, fastmath}];
  if (!target.machine) target.machine = create_nvptx_machine(cc, fastmath);
  return target;
}

bool is_kernel(const llvm::Function& function) {
  return function.getCallingConv() == llvm::CallingConv::PTX_Kernel;
}

// A kernel's register limit: the nvvm.maxnreg function attribute since LLVM
// 21, a !nvvm.annotations entry before; either becomes .maxnreg in the PTX.
void limit_registers(llvm::Module& module, int max_registers) {
  if (max_registers == 0) return;
  if (max_registers < 0) {
    throw std::invalid_argument("max_registers must be positive, got " +
                                std::to_string(max_registers));
  }
  for (llvm::Function& function : module) {
    if (!is_kernel(function)) continue;
#if LLVM_VERSION_MAJOR >= 21
    function.addFnAttr("nvvm.maxnreg", std::to_string(max_registers));
#else
    llvm::LLVMContext& context = module.getContext();
    llvm::Metadata* limit = llvm::ConstantAsMetadata::get(
        llvm::ConstantInt::get(llvm::Type::getInt32Ty(context), max_registers));
    module.getOrInsertNamedMetadata("nvvm.annotations")
        ->addOperand(llvm::MDNode::get(context, {llvm::ValueAsMetadata::get(&function),
                                                 llvm::MDString::get(context, "maxnreg"), limit}));
#endif
  }
}

// Numba's launch_bounds on every kernel: function attributes since LLVM 21, as for
// .maxnreg; !nvvm.annotations before. .maxclusterrank exists from sm_90 (PTX ISA 7.8).
void bound_launches(llvm::Module& module, const std::array<int, 3>& bounds, int cc) {
  const auto [threads, min_blocks, cluster_blocks] = bounds;
  if (threads == 0) return;
  const bool clusters = cluster_blocks != 0 && cc >= 90;
  for (llvm::Function& function : module) {
    if (!is_kernel(function)) continue;
#if LLVM_VERSION_MAJOR >= 21
    function.addFnAttr("nvvm.maxntid", std::to_string(threads));
    if (min_blocks != 0) function.addFnAttr("nvvm.minctasm", std::to_string(min_blocks));
    if (clusters) function.addFnAttr("nvvm.maxclusterrank", std::to_string(cluster_blocks));
#else
    llvm::LLVMContext& context = module.getContext();
    std::vector<llvm::Metadata*> operands{llvm::ValueAsMetadata::get(&function)};
    auto add = [&](const char* key, int value) {
      operands.push_back(llvm::MDString::get(context, key));
      operands.push_back(llvm::ConstantAsMetadata::get(
          llvm::ConstantInt::get(llvm::Type::getInt32Ty(context), value)));
    };
    add("maxntidx", threads);
    if (min_blocks != 0) add("minctasm", min_blocks);
    if (clusters) add("maxclusterrank", cluster_blocks);
    module.getOrInsertNamedMetadata("nvvm.annotations")
        ->addOperand(llvm::MDNode::get(context, operands));
#endif
  }
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
    // Shared arrays stay `.visible .shared`: LLVM 19's PTX printer "demotes"
    // an internal one into the function using it and remembers it by
    // Function* across modules, which a reused code generator (CodeGenPipeline)
    // would then print for a later function at the same address.
    constexpr unsigned kSharedSpace = 3;
    return variable->isExternallyInitialized() || variable->getAddressSpace() == kSharedSpace;
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

// What libdevice asks __nvvm_reflect, answered here rather than by LLVM's
// NVVMReflect, which (before LLVM 21) answers 0 to __CUDA_PREC_SQRT: that
// would give hypotf and friends the approximate square root outside fastmath.
// The answers are nvcc's for --use_fast_math on or off.
void resolve_nvvm_reflect(llvm::Module& module, const PtxOptions& options) {
  llvm::Function* reflect = module.getFunction("__nvvm_reflect");
  if (reflect == nullptr) return;
  llvm::Type* i32 = llvm::Type::getInt32Ty(module.getContext());
  for (llvm::User* user : llvm::make_early_inc_range(reflect->users())) {
    auto* call = llvm::dyn_cast<llvm::CallInst>(user);
    llvm::StringRef query;
    if (call == nullptr || call->arg_size() != 1 ||
        !llvm::getConstantStringInfo(call->getArgOperand(0), query)) {
      throw LlvmError("libdevice calls __nvvm_reflect in a way cudajit does not understand");
    }
    int answer = 0;  // unknown queries: 0, as NVVMReflect answers
    if (query == "__CUDA_FTZ") answer = options.fastmath ? 1 : 0;
    if (query == "__CUDA_PREC_SQRT") answer = options.fastmath ? 0 : 1;
    if (query == "__CUDA_ARCH") answer = sm_version(options.cc).cc * 10;
    call->replaceAllUsesWith(llvm::ConstantInt::get(i32, answer));
    call->eraseFromParent();
  }
}

// Inlined size, in instructions, past which a loop calling libdevice is not
// unrolled: about that of a handful of arithmetic helpers (fabsf, fminf).
constexpr std::size_t kRolledLoopLibdeviceSize = 32;

// The optimiser sees a call where libdevice's body will be: a loop around
// sinf looks small, and unrolling it would copy sinf's body four times after
// inlining. Loops whose calls to libdevice would inline to more than a few
// instructions are marked llvm.loop.unroll.disable (what inlining first, as
// NVVM does, leads the unroller to decide). User device functions are
// inlined first, so that their calls count in the caller's loops.
void keep_loops_around_libdevice_rolled(llvm::Module& module, const llvm::Module& libdevice,
                                        const std::string& configuration,
                                        llvm::TargetMachine& machine) {
  std::map<const llvm::Function*, std::size_t> inlined_size;
  for (const llvm::Function& definition : libdevice) {
    if (definition.isDeclaration() || definition.hasFnAttribute(llvm::Attribute::NoInline)) {
      continue;
    }
    if (const llvm::Function* declaration = module.getFunction(definition.getName())) {
      inlined_size[declaration] =
          detail::libdevice_function_size(configuration, definition.getName().str());
    }
  }
  detail::inline_always(module, machine);
  llvm::LLVMContext& context = module.getContext();
  llvm::Metadata* disable =
      llvm::MDNode::get(context, llvm::MDString::get(context, "llvm.loop.unroll.disable"));
  for (llvm::Function& function : module) {
    if (function.isDeclaration()) continue;
    llvm::DominatorTree dominators(function);
    llvm::LoopInfo loops(dominators);
    for (llvm::Loop* loop : loops.getLoopsInPreorder()) {
      std::size_t size = 0;
      for (const llvm::BasicBlock* block : loop->blocks()) {
        for (const llvm::Instruction& instruction : *block) {
          const auto* call = llvm::dyn_cast<llvm::CallBase>(&instruction);
          if (call == nullptr) continue;
          auto found = inlined_size.find(call->getCalledFunction());
          if (found != inlined_size.end()) size += found->second;
        }
      }
      if (size <= kRolledLoopLibdeviceSize) continue;
      llvm::SmallVector<llvm::Metadata*, 4> operands{nullptr};
      if (llvm::MDNode* existing = loop->getLoopID()) {
        operands.append(existing->op_begin() + 1, existing->op_end());
      }
      operands.push_back(disable);
      llvm::MDNode* id = llvm::MDNode::getDistinct(context, operands);
      id->replaceOperandWith(0, id);
      loop->setLoopID(id);
    }
  }
}

// The reflect answers and the attributes the optimiser and the code
// generator read. resolve_nvvm_reflect leaves no __nvvm_reflect call, so
// NVVMReflect (and its nvvm-reflect-ftz flag) has nothing to do.
void prepare_for_optimisation(llvm::Module& module, const PtxOptions& options) {
  resolve_nvvm_reflect(module, options);
  if (options.fastmath) add_fastmath_attributes(module);
}

// --- libdevice functions inlined as PTX (ptx_inline.hpp) ---------------------

// The inline asm constraint of a libdevice parameter or result type; 0 for a
// type the copy cannot take (pointers, i1, void).
char register_constraint(const llvm::Type* type) {
  if (type->isFloatTy()) return 'f';
  if (type->isDoubleTy()) return 'd';
  if (type->isIntegerTy(32)) return 'r';
  if (type->isIntegerTy(64)) return 'l';
  return 0;
}

// Functions inlined as PTX: those that would inline big (small ones cost
// little to select again, and the code generator folds them into their
// surroundings) and that take and give scalars.
bool inlines_as_ptx(const llvm::Function& definition, const std::string& configuration) {
  const std::string name = definition.getName().str();
  if (detail::libdevice_function_size(configuration, name) <= kRolledLoopLibdeviceSize) {
    return false;
  }
  const llvm::FunctionType* type = definition.getFunctionType();
  if (type->isVarArg() || register_constraint(type->getReturnType()) == 0) return false;
  for (const llvm::Type* parameter : type->params()) {
    if (register_constraint(parameter) == 0) return false;
  }
  return true;
}

using CachedPtxFunction = std::shared_ptr<const std::optional<detail::PtxFunction>>;

// The PTX of libdevice functions, for copying (nullopt inside for one that
// ptx_inline cannot copy), generated once per process and configuration:
// those not yet made are generated together, in one module.
std::map<std::string, CachedPtxFunction> libdevice_functions_ptx(
    const std::vector<std::string>& names, const std::string& configuration,
    const detail::LibdeviceOptimizer& optimize, const llvm::Module& kernel_module,
    NvptxTarget& target) {
  llvm::TargetMachine& machine = *target.machine;
  static std::mutex mutex;
  static std::map<std::pair<std::string, std::string>, CachedPtxFunction> cache;
  std::map<std::string, CachedPtxFunction> found;
  std::vector<std::string> missing;
  {
    std::lock_guard lock(mutex);
    for (const std::string& name : names) {
      auto cached = cache.find({configuration, name});
      if (cached != cache.end()) {
        found.emplace(name, cached->second);
      } else {
        missing.push_back(name);
      }
    }
  }
  if (missing.empty()) return found;
  // Unlocked: generating takes milliseconds. Two threads may both make one.
  std::unique_ptr<llvm::Module> functions =
      detail::optimized_libdevice(missing, configuration, optimize, kernel_module);
  if (llvm::Error error = functions->materializeAll()) {
    throw LlvmError("cannot read libdevice functions: " + detail::error_message(std::move(error)));
  }
  const std::set<std::string> exported(missing.begin(), missing.end());
  detail::internalize_except(*functions, [&](const llvm::GlobalValue& value) {
    return exported.contains(value.getName().str());
  });
  detail::inline_always(*functions, machine);  // also drops the helpers no longer called
  const std::string ptx = target.pipeline().run(*functions);
  std::lock_guard lock(mutex);
  for (const std::string& name : missing) {
    auto parsed = std::make_shared<const std::optional<detail::PtxFunction>>(
        detail::parse_ptx_function(ptx, name));
    found.emplace(name, cache.emplace(std::pair{configuration, name}, parsed).first->second);
  }
  return found;
}

// Replaces each call to `function` by an inline asm statement that prints
// ptx_inline's marker with the registers of the result and the arguments.
void call_through_marker(llvm::Function& function) {
  llvm::FunctionType* type = function.getFunctionType();
  std::string text = std::string(detail::kInlineMarker) + function.getName().str() + " $0";
  std::string constraints = std::string("=") + register_constraint(type->getReturnType());
  for (unsigned i = 0; i < type->getNumParams(); ++i) {
    text += ", $" + std::to_string(i + 1);
    constraints += std::string(",") + register_constraint(type->getParamType(i));
  }
  llvm::InlineAsm* marker = llvm::InlineAsm::get(type, text, constraints, /*hasSideEffects=*/false);
  for (llvm::User* user : llvm::make_early_inc_range(function.users())) {
    auto* call = llvm::cast<llvm::CallInst>(user);
    llvm::SmallVector<llvm::Value*, 4> arguments(call->args());
    auto* replacement = llvm::CallInst::Create(type, marker, arguments, "", call->getIterator());
    call->replaceAllUsesWith(replacement);
    call->eraseFromParent();
  }
  function.eraseFromParent();
}

}  // namespace

std::string sm_name(int cc) { return "sm_" + std::to_string(sm_version(cc).cc); }

std::string ptx_feature(int cc) {
  return "ptx" + std::to_string(std::max(kLlvmMinPtx, sm_version(cc).ptx));
}

std::string emit_ptx(std::unique_ptr<llvm::Module> module, const PtxOptions& options) {
  if (!module) throw std::invalid_argument("emit_ptx: the module is null");
  // The code generator at Aggressive differs from Default, for NVPTX, by two
  // GVN passes where EarlyCSE runs: the same PTX on our kernels (ptxas
  // optimises after), 10% more time.
  const llvm::CodeGenOptLevel codegen_level =
      detail::codegen_opt_level(std::min(options.opt_level, 2));
  NvptxTarget& target = nvptx_target(options.cc, options.fastmath);
  llvm::TargetMachine& machine = *target.machine;
  machine.setOptLevel(codegen_level);
  // Building an O0 pipeline (opt=False) turns the machine's fast instruction
  // selector on, and nothing turns it off for the next optimised module: each
  // module says which it wants, as a fresh pipeline would choose.
  machine.setFastISel(codegen_level == llvm::CodeGenOptLevel::None);
  // opt=False is unoptimised code as Numba's (NVVM's -opt=0): a*b+c stays a multiply and an
  // add (fastmath's own contract flags still allow fusing them).
  machine.Options.AllowFPOpFusion =
      options.opt_level == 0 ? llvm::FPOpFusion::Standard : llvm::FPOpFusion::Fast;

  detail::set_target_triple(*module, machine.getTargetTriple());
  module->setDataLayout(machine.createDataLayout());
  detail::verify_module(*module, "kernel module");

#if LLVM_VERSION_MAJOR < 20
  annotate_kernels(*module);
#endif
  limit_registers(*module, options.max_registers);
  bound_launches(*module, options.launch_bounds, options.cc);
  // libdevice's functions are optimised on their own, once per process and
  // configuration (libdevice.hpp); the kernel is optimised with their
  // declarations, which carry the definitions' attributes (memory(none), ...)
  // so that calls can be moved, merged or dropped, and the bodies are inlined
  // after. O3 over sinf's inlined body on every compile costs ten times the
  // kernel's own optimisation.
  const std::vector<std::string> libdevice_names = detail::libdevice_declarations(*module);
  const std::string configuration = sm_name(options.cc) + (options.fastmath ? "+fastmath" : "") +
                                    "-O" + std::to_string(options.opt_level);
  const detail::LibdeviceOptimizer optimize_libdevice = [&](llvm::Module& functions) {
    prepare_for_optimisation(functions, options);
    if (options.opt_level == 0) {
      detail::optimize_module(functions, machine, 0);
    } else {
      detail::optimize_library_code(functions, machine);
    }
  };
  std::unique_ptr<llvm::Module> libdevice;
  if (!libdevice_names.empty()) {
    StageTimer timer("libdevice");
    libdevice =
        detail::optimized_libdevice(libdevice_names, configuration, optimize_libdevice, *module);
    for (const std::string& name : libdevice_names) {
      module->getFunction(name)->setAttributes(libdevice->getFunction(name)->getAttributes());
    }
    keep_loops_around_libdevice_rolled(*module, *libdevice, configuration, machine);
  }
  detail::internalize_except(*module, keeps_external_linkage);
  prepare_for_optimisation(*module, options);

  detail::DiagnosticCapture diagnostics(module->getContext());
  {
    StageTimer timer("optimize");
    detail::optimize_module(*module, machine, options.opt_level);
  }
  // The big libdevice functions are copied into the PTX after code
  // generation (ptx_inline.hpp), the others linked and inlined here.
  std::map<std::string, CachedPtxFunction> ptx_functions;
  if (libdevice) {
    StageTimer timer("inline libdevice");
    std::vector<std::string> big;
    for (const std::string& name : libdevice_names) {
      if (options.opt_level > 0 && module->getFunction(name) != nullptr &&
          inlines_as_ptx(*libdevice->getFunction(name), configuration)) {
        big.push_back(name);
      }
    }
    if (!big.empty()) {
      ptx_functions =
          libdevice_functions_ptx(big, configuration, optimize_libdevice, *module, target);
      std::erase_if(ptx_functions, [](const auto& entry) { return !entry.second->has_value(); });
    }
    for (const auto& [name, ptx] : ptx_functions) call_through_marker(*module->getFunction(name));
    if (llvm::Linker::linkModules(*module, std::move(libdevice), llvm::Linker::LinkOnlyNeeded)) {
      throw LlvmError("linking libdevice functions failed: " + diagnostics.errors());
    }
    detail::internalize_except(*module, keeps_external_linkage);
    detail::inline_always(*module, machine);
  }
  std::optional<StageTimer> codegen(std::in_place, "codegen");
  // NVPTX's target streamer remembers from module to module that it opened a
  // DWARF section and closes it again ("}") in every later module's PTX: a
  // module with DWARF sections (debug=True) gets a pipeline of its own.
  std::string ptx = has_dwarf_sections(*module) ? CodeGenPipeline(machine).run(*module)
                                                : target.pipeline().run(*module);
  codegen.reset();
  if (!diagnostics.errors().empty()) {
    target.drop_pipeline();
    throw LlvmError("NVPTX code generation for " + sm_name(options.cc) +
                    " failed: " + diagnostics.errors());
  }
  if (!ptx_functions.empty()) {
    StageTimer timer("inline libdevice PTX");
    ptx = detail::inline_ptx_functions(ptx, [&](const std::string& name) {
      auto found = ptx_functions.find(name);
      return found == ptx_functions.end() ? nullptr : &**found->second;
    });
  }
  return ptx;
}

}  // namespace cudajit::target
