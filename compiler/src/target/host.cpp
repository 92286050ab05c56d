// Native code for the cpu device: one process-wide ORC LLJIT that resolves
// external calls (sin, tgamma, memset, ...) against the running process.
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/InstrTypes.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include "../dump.hpp"
#include "cudajit/compiler/errors.hpp"
#include "cudajit/compiler/float16.hpp"
#include "cudajit/compiler/target.hpp"
#include "host_cpu.hpp"
#include "llvm_support.hpp"

namespace cudajit::target {

namespace {

template <typename T>
T unwrap(llvm::Expected<T> value, const std::string& what) {
  if (!value) throw LlvmError(what + ": " + detail::error_message(value.takeError()));
  return std::move(*value);
}

class HostJit {
 public:
  // Created on first use. Never destroyed: worker threads may still run
  // jitted code while the process exits, and the code must outlive them.
  static HostJit& instance() {
    static HostJit& jit = *std::make_unique<HostJit>().release();
    return jit;
  }

  const llvm::Triple& triple() const { return jit_->getTargetTriple(); }
  const llvm::TargetMachine& machine() const { return *optimizer_machine_; }
  bool masks_bytes() const { return masks_bytes_; }
  const llvm::DataLayout& data_layout() const { return jit_->getDataLayout(); }

  // Optimises and compiles `module` to an object file, which it loads; the object's
  // bytes are returned too (for a disk cache: load_object takes them back).
  HostObject compile(llvm::orc::ThreadSafeModule module, const std::string& entry_name) {
    // One compile at a time: the optimiser's TargetMachine and the JIT's
    // compiler are not thread-safe, and errors_ belongs to this compile.
    std::lock_guard lock(mutex_);
    errors_.clear();
    HostObject out;
    module.withModuleDo([&](llvm::Module& m) {
      {
        StageTimer timer("host optimisation");
        prepare(m, entry_name);
      }
      StageTimer timer("host code generation");
      llvm::SmallVector<char, 0> buffer;
      llvm::raw_svector_ostream stream(buffer);
      llvm::legacy::PassManager passes;
      if (optimizer_machine_->addPassesToEmitFile(passes, stream, nullptr,
                                                  llvm::CodeGenFileType::ObjectFile))
        throw LlvmError("the host target cannot emit object files");
      passes.run(m);
      out.object.assign(buffer.begin(), buffer.end());
    });
    StageTimer timer("host linking");
    out.address = load_locked(jit_->getMainJITDylib(), out.object, entry_name);
    return out;
  }

  // An object file compile() made, in this process or another: in a JITDylib of its own,
  // so that its entry's name never clashes with one compiled here.
  void* load_object(const std::string& object, const std::string& entry_name) {
    std::lock_guard lock(mutex_);
    errors_.clear();
    auto created = jit_->createJITDylib("cached." + std::to_string(++cached_objects_));
    if (!created)
      throw LlvmError("cannot create a JITDylib: " + detail::error_message(created.takeError()));
    llvm::orc::JITDylib& dylib = *created;
    dylib.addToLinkOrder(jit_->getMainJITDylib());  // the runtime's and the process's symbols
    return load_locked(dylib, object, entry_name);
  }

  HostJit() {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    detail::apply_llvm_options_from_environment();
    // Thread loops run a few vector iterations each (a block's row): a vectorised remainder
    // after them is compile time and code for little (the GPU's pipeline never vectorises
    // this wide). CUDAJIT_LLVM_OPTIONS may still turn it on.
    auto& options = llvm::cl::getRegisteredOptions();  // a StringMap, a DenseMap in LLVM 22
    auto epilogue = options.find("enable-epilogue-vectorization");
    if (epilogue != options.end() && epilogue->second->getNumOccurrences() == 0)
      static_cast<llvm::cl::opt<bool>*>(epilogue->second)->setValue(false);
    auto builder = unwrap(llvm::orc::JITTargetMachineBuilder::detectHost(), "cannot detect host");
    detail::HostCpu cpu = detail::choose_host_cpu(builder.getTargetTriple());
    builder.setCPU(cpu.name);
    builder.getFeatures() = cpu.features;
    // x86's bfloat16 conversions (VCVTNEPS2BF16) flush subnormals, where a GPU's
    // cvt.rn.bf16.f32 keeps them: narrowing to bfloat goes through __truncsfbf2 instead.
    builder.getFeatures().AddFeature("avx512bf16", false);
    builder.getFeatures().AddFeature("avxneconvert", false);
    builder.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
    optimizer_machine_ = unwrap(builder.createTargetMachine(), "cannot create host target");
    masks_bytes_ = optimizer_machine_->getTargetTriple().isX86() &&
                   optimizer_machine_->getMCSubtargetInfo()->checkFeatures("+avx512bw");
    jit_ = unwrap(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(builder).create(),
                  "cannot create host JIT");
    // Materialisation errors (an unresolved symbol) are reported here rather
    // than returned by lookup; only compile() runs JIT work, under mutex_.
    jit_->getExecutionSession().setErrorReporter([this](llvm::Error error) {
      errors_ += (errors_.empty() ? "" : "; ") + detail::error_message(std::move(error));
    });
    auto process_symbols = unwrap(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
                                      jit_->getDataLayout().getGlobalPrefix()),
                                  "cannot search the process's symbols");
    jit_->getMainJITDylib().addGenerator(std::move(process_symbols));
    define_runtime_symbols();
  }

 private:
  // Our definitions come before the process's (a generator only answers for
  // names nothing defines).
  void define_runtime_symbols() {
    llvm::orc::SymbolMap symbols;
    for (const auto& [name, address] : half_conversion_symbols()) {
      symbols[jit_->mangleAndIntern(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                              llvm::JITSymbolFlags::Exported};
    }
    if (llvm::Error error = jit_->getMainJITDylib().define(llvm::orc::absoluteSymbols(symbols)))
      throw LlvmError("cannot define the host runtime's symbols: " +
                      detail::error_message(std::move(error)));
  }

  void prepare(llvm::Module& module, const std::string& entry_name) {
    detail::set_target_triple(module, triple());
    module.setDataLayout(data_layout());
    detail::verify_module(module, "host module");
    const llvm::Function* entry = module.getFunction(entry_name);
    if (entry == nullptr || entry->isDeclaration()) {
      throw LlvmError("host module '" + module.getModuleIdentifier() + "' defines no function " +
                      entry_name);
    }
    // Helpers become internal, so equal names in two modules never clash.
    detail::internalize_except(
        module, [&](const llvm::GlobalValue& value) { return value.getName() == entry_name; });
    detail::DiagnosticCapture diagnostics(module.getContext());
    inline_kernel_body(module, *entry);
    // Masked loads and stores cost little with AVX-512 (on this project's Zen 4, a stream of
    // them is even 5% faster than plain ones); elsewhere a guarded loop runs unmasked.
    detail::optimize_module(
        module, *optimizer_machine_, 3,
        masks_bytes_ ? detail::HostLoops::KeepGuards : detail::HostLoops::NarrowToGuards);
    if (!diagnostics.errors().empty()) {
      throw LlvmError("optimising host module for " + entry_name +
                      " failed: " + diagnostics.errors());
    }
    if (dump_enabled("host")) {  // what the thread loops became: vectorised or not
      std::string text;
      llvm::raw_string_ostream os(text);
      module.print(os, nullptr);
      dump("host", entry_name, text);
    }
  }

  // The kernel's body, called once from its entry, is inlined before the pipeline: O3
  // would simplify it alone and then again inside the entry (mandelbrot's optimisation
  // 10% faster, the same code).
  void inline_kernel_body(llvm::Module& module, const llvm::Function& entry) {
    bool any = false;
    for (llvm::Function& f : module) {
      if (f.isDeclaration() || !f.hasLocalLinkage() || !f.hasOneUse() ||
          f.hasFnAttribute(llvm::Attribute::NoInline))
        continue;
      auto* call = llvm::dyn_cast<llvm::CallBase>(f.user_back());
      if (call == nullptr || call->getCalledFunction() != &f || call->getFunction() != &entry)
        continue;
      f.addFnAttr(llvm::Attribute::AlwaysInline);
      any = true;
    }
    if (any) detail::inline_always(module, *optimizer_machine_);
  }

  void* load_locked(llvm::orc::JITDylib& dylib, const std::string& object,
                    const std::string& entry_name) {
    auto buffer = llvm::MemoryBuffer::getMemBufferCopy(object, entry_name);
    if (llvm::Error error = jit_->addObjectFile(dylib, std::move(buffer))) {
      throw LlvmError("cannot add host object for " + entry_name + ": " +
                      detail::error_message(std::move(error)));
    }
    // Linking happens in this lookup, on this thread.
    auto address = jit_->lookup(dylib, entry_name);
    if (!address) {
      std::string message = detail::error_message(address.takeError());
      if (!errors_.empty()) message += "; " + errors_;
      throw LlvmError("cannot link host entry " + entry_name + ": " + message);
    }
    return address->toPtr<void*>();
  }

  std::mutex mutex_;
  int cached_objects_ = 0;
  std::unique_ptr<llvm::TargetMachine> optimizer_machine_;
  bool masks_bytes_ = false;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::string errors_;
};

}  // namespace

HostObject jit_host(std::unique_ptr<llvm::Module> module,
                    std::unique_ptr<llvm::LLVMContext> context, const std::string& entry_name) {
  if (!module || !context) throw std::invalid_argument("jit_host: module or context is null");
  if (&module->getContext() != context.get()) {
    throw std::invalid_argument("jit_host: the module does not belong to the given context");
  }
  // The ThreadSafeModule destroys the module before its context.
  llvm::orc::ThreadSafeModule owned(std::move(module), std::move(context));
  return HostJit::instance().compile(std::move(owned), entry_name);
}

void* load_host_object(const std::string& object, const std::string& entry_name) {
  return HostJit::instance().load_object(object, entry_name);
}

std::string host_triple() { return HostJit::instance().triple().str(); }

std::string host_cpu_identity() {
  const llvm::TargetMachine& machine = HostJit::instance().machine();
  llvm::SmallVector<llvm::StringRef> items;
  machine.getTargetFeatureString().split(items, ',', -1, false);
  std::map<std::string, char> features;  // the last sign of each wins, as in LLVM
  for (llvm::StringRef item : items) features[item.drop_front().str()] = item.front();
  std::string text = machine.getTargetTriple().str() + " " + machine.getTargetCPU().str();
  for (const auto& [name, sign] : features) text += std::string(" ") + sign + name;
  return text;
}

bool host_masks_bytes() { return HostJit::instance().masks_bytes(); }

std::string host_data_layout() {
  return HostJit::instance().data_layout().getStringRepresentation();
}

}  // namespace cudajit::target
