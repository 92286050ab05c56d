// The compile pipeline: parse -> type -> lower -> PTX or host code, with each
// stage printable through CUDAJIT_DUMP=ir,typed,llvm,ptx (to stderr).
#include "cudajit/compiler/compile.hpp"

#include <dlfcn.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "cudajit/compiler/typed.hpp"
#include "dump.hpp"
#include "lower/lowering.hpp"

namespace cudajit {

namespace {

std::string module_text(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return text;
}

std::string signature_text(const std::string& name, const std::vector<Type>& args) {
  std::string s = name + "(";
  for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i].str();
  return s + ")";
}

struct Lowered {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  std::string entry_name;
  lower::LoweredProgram program;
  std::string llvm_ir;
  std::string typed_ir;  // if keep_llvm_ir (inspect_types)
  Type return_type;
};

Lowered lower_for_target(const ir::Module& ir_module, const std::vector<Type>& arg_types,
                         bool device, lower::TargetKind target, const CompileOptions& options,
                         std::optional<Type> declared_return = std::nullopt) {
  std::string what = signature_text(ir_module.functions.at(0).name, arg_types);
  std::optional<StageTimer> timer(std::in_place, "typing");
  typing::TypedProgram typed = typing::type_program(ir_module, arg_types, !device, declared_return);
  // The cpu device runs a device function's divergent loop in lockstep once it is inlined;
  // the inlined module must outlive the program typed from it.
  std::optional<lower::InlinedCalls> inlined;
  if (target == lower::TargetKind::Host && !device && cudajit::target::host_masks_bytes())
    inlined = lower::inline_lockstep_calls(ir_module, typed);
  if (inlined) {
    try {  // the kernel as written compiles whatever the inlined copy's typing finds
      typing::TypedProgram again = typing::type_program(inlined->module, arg_types, true);
      if (lower::inlined_in_lockstep(*inlined, again)) typed = std::move(again);
    } catch (const std::exception&) {
    }
  }
  timer.emplace("lowering");
  Lowered out;
  if (options.keep_llvm_ir || dump_enabled("typed")) out.typed_ir = typing::print_typed(typed);
  dump("typed", what, out.typed_ir);
  out.context = std::make_unique<llvm::LLVMContext>();
  out.module = std::make_unique<llvm::Module>(ir_module.functions[0].name, *out.context);
  out.program = lower::lower_program(typed, *out.module, target, device, options);
  out.entry_name = out.program.entry_name;
  timer.reset();
  if (options.keep_llvm_ir || dump_enabled("llvm")) out.llvm_ir = module_text(*out.module);
  out.return_type = typed.entry->return_type;
  dump("llvm", what, out.llvm_ir);
  return out;
}

}  // namespace

namespace {

// "<path> <size> <modification time>" of a file; "<path> missing" if absent.
std::string file_stamp(const std::string& path) {
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(path, status) || !llvm::sys::fs::is_regular_file(status))
    return path + " missing";
  return path + " " + std::to_string(status.getSize()) + " " +
         std::to_string(status.getLastModificationTime().time_since_epoch().count());
}

}  // namespace

std::string compiler_identity() {
  static const std::string identity = [] {
#ifdef CUDAJIT_VERSION
    std::string text = "cudajit " CUDAJIT_VERSION;
#else
    std::string text = "cudajit";
#endif
    // The library holding this code: any rebuild or reinstall changes it.
    Dl_info library{};
    if (dladdr(reinterpret_cast<void*>(&compiler_identity), &library) != 0 &&
        library.dli_fname != nullptr) {
      text += ' ';  // (not " " + ...: GCC 12 warns falsely, -Wrestrict)
      text += file_stamp(library.dli_fname);
    }
    text += "; LLVM " LLVM_VERSION_STRING;
    try {
      text += "; libdevice ";
      text += file_stamp(target::libdevice_path());
    } catch (const std::exception&) {
      text += "; no libdevice";
    }
    return text;
  }();
  return identity;
}

Program::Program(std::string_view ir_text) : module_(ir::parse_module(ir_text)) {
  for (ir::Function& fn : module_.functions) ir::split_variables(fn);
  dump("ir", module_.functions[0].name, ir::print_module(module_));
}

Type Program::return_type(const std::vector<Type>& arg_types, bool device) const {
  return typing::type_program(module_, arg_types, !device).entry->return_type;
}

PtxArtifact Program::compile_ptx(const std::vector<Type>& arg_types, bool device,
                                 const CompileOptions& options,
                                 std::optional<Type> declared_return) const {
  Lowered l = lower_for_target(module_, arg_types, device, lower::TargetKind::Nvptx, options,
                               declared_return);
  if (device && !options.export_name.empty()) {
    llvm::Function* entry = l.module->getFunction(l.entry_name);
    entry->setName(options.export_name);
    if (entry->getName() != options.export_name)  // LLVM renamed it: the name is taken
      throw std::invalid_argument("cannot name the device function '" + options.export_name +
                                  "': a function it calls has that name");
    l.entry_name = options.export_name;
  }
  PtxArtifact out;
  out.llvm_ir = std::move(l.llvm_ir);
  out.typed_ir = std::move(l.typed_ir);
  out.entry_name = l.entry_name;
  out.return_type = l.return_type;
  out.params = param_layout(arg_types);
  out.cooperative = l.program.cooperative;
  {
    StageTimer timer("ptx (total)");
    out.ptx = target::emit_ptx(std::move(l.module), {.cc = options.cc,
                                                     .fastmath = options.fastmath,
                                                     .opt_level = options.opt_level,
                                                     .max_registers = options.max_registers,
                                                     .launch_bounds = options.launch_bounds});
  }
  dump("ptx", signature_text(module_.functions[0].name, arg_types), out.ptx);
  return out;
}

bool boundscheck_allowed() {
  static const bool allowed = [] {
    const char* v = std::getenv("CUDAJIT_BOUNDSCHECK");
    return !(v && std::string(v) == "0");
  }();
  return allowed;
}

HostArtifact Program::compile_host(const std::vector<Type>& arg_types,
                                   const CompileOptions& options) const {
  CompileOptions host_options = options;
  host_options.boundscheck = options.boundscheck && boundscheck_allowed();
  Lowered l = lower_for_target(module_, arg_types, false, lower::TargetKind::Host, host_options);
  // One process-wide JIT: every entry needs a name of its own.
  static std::atomic<int> counter{0};
  std::string unique = l.entry_name + "_" + std::to_string(counter++);
  l.module->getFunction(l.entry_name)->setName(unique);
  HostArtifact out;
  out.boundscheck = host_options.boundscheck;
  out.llvm_ir = std::move(l.llvm_ir);
  out.entry_name = unique;
  out.params = param_layout(arg_types);
  StageTimer timer("host jit");
  out.kernel.static_shared_bytes = l.program.static_shared_bytes;
  out.kernel.cooperative = l.program.cooperative;
  target::HostObject compiled = target::jit_host(std::move(l.module), std::move(l.context), unique);
  if (l.program.per_thread_entry)
    out.kernel.thread_entry = reinterpret_cast<target::HostThreadEntry>(compiled.address);
  else
    out.kernel.entry = reinterpret_cast<target::HostEntry>(compiled.address);
  out.object = std::move(compiled.object);
  return out;
}

}  // namespace cudajit
