#include "debug_info.hpp"

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/Support/Path.h>

#include <cstdint>

namespace cudajit::lower {

namespace {

// DWARF 2, as clang emits for NVPTX: the version ptxas and cuda-gdb read.
constexpr uint32_t kDwarfVersion = 2;

}  // namespace

DebugInfo::DebugInfo(llvm::Module& module, const std::string& file, DebugLevel level,
                     bool optimized)
    : builder_(module), types_(builder_), level_(level), optimized_(optimized), module_file_(file) {
  // Full debug information says C++, as Numba's does: cuda-gdb evaluates
  // `print x` in the unit's language, and gdb has no Python source language.
  const auto language = full() ? llvm::dwarf::DW_LANG_C_plus_plus : llvm::dwarf::DW_LANG_Python;
  unit_ = builder_.createCompileUnit(
      static_cast<uint16_t>(language), this->file(file), "cudajit", optimized_,
      /*Flags=*/"", /*RV=*/0, /*SplitName=*/"",
      full() ? llvm::DICompileUnit::FullDebug : llvm::DICompileUnit::DebugDirectivesOnly,
      /*DWOId=*/0, /*SplitDebugInlining=*/true, /*DebugInfoForProfiling=*/false,
      // No .debug_pubnames: its label differences need PTX ISA 7.5, above the
      // lowest ISA the code may otherwise target (and cuda-gdb does not need it).
      llvm::DICompileUnit::DebugNameTableKind::None);
  module.addModuleFlag(llvm::Module::Warning, "Debug Info Version", llvm::DEBUG_METADATA_VERSION);
  if (full()) module.addModuleFlag(llvm::Module::Warning, "Dwarf Version", kDwarfVersion);
}

llvm::DIFile* DebugInfo::file(const std::string& path) {
  llvm::DIFile*& found = files_[path];
  if (found == nullptr) {
    const std::string source = path.empty() ? "<unknown>" : path;
    found = builder_.createFile(llvm::sys::path::filename(source),
                                llvm::sys::path::parent_path(source));
  }
  return found;
}

llvm::DISubprogram* DebugInfo::describe(llvm::Function& function, const std::string& name,
                                        const std::string& path, int line, const Type& result,
                                        const std::vector<Type>& params) {
  llvm::DIFile* source = file(path.empty() ? module_file_ : path);
  std::vector<llvm::Metadata*> signature;
  if (full()) {
    signature.push_back(types_.get(result));  // null: returns nothing
    for (const Type& t : params) signature.push_back(types_.get(t));
  }
  llvm::DISubroutineType* type =
      builder_.createSubroutineType(builder_.getOrCreateTypeArray(signature));
  auto flags = llvm::DISubprogram::SPFlagDefinition;
  if (optimized_) flags |= llvm::DISubprogram::SPFlagOptimized;
  llvm::DISubprogram* subprogram = builder_.createFunction(
      source, name, function.getName(), source, static_cast<unsigned>(line), type,
      static_cast<unsigned>(line), llvm::DINode::FlagPrototyped, flags);
  function.setSubprogram(subprogram);
  return subprogram;
}

llvm::DILocation* DebugInfo::at(llvm::DISubprogram* scope, SourceLoc loc) const {
  return llvm::DILocation::get(scope->getContext(), static_cast<unsigned>(loc.line),
                               static_cast<unsigned>(loc.col + 1), scope);
}

void DebugInfo::declare(llvm::AllocaInst* slot, llvm::DISubprogram* scope, const std::string& name,
                        const Type& type, int line, unsigned arg, llvm::DILocation* at,
                        llvm::BasicBlock* block) {
  if (!full()) return;
  declare_described(slot, scope, name, types_.get(type), line, arg, at, block);
}

void DebugInfo::declare(llvm::AllocaInst* slot, llvm::DISubprogram* scope, const std::string& name,
                        const std::vector<Type>& types, int line, unsigned arg,
                        llvm::DILocation* at, llvm::BasicBlock* block) {
  if (!full()) return;
  declare_described(slot, scope, name, types_.union_of(types), line, arg, at, block);
}

void DebugInfo::declare_described(llvm::AllocaInst* slot, llvm::DISubprogram* scope,
                                  const std::string& name, llvm::DIType* described, int line,
                                  unsigned arg, llvm::DILocation* at, llvm::BasicBlock* block) {
  if (described == nullptr) return;
  llvm::DIFile* source = scope->getFile();
  const auto at_line = static_cast<unsigned>(line > 0 ? line : 0);
  llvm::DILocalVariable* variable =
      arg > 0 ? builder_.createParameterVariable(scope, python_variable_name(name), arg, source,
                                                 at_line, described, /*AlwaysPreserve=*/true)
              : builder_.createAutoVariable(scope, python_variable_name(name), source, at_line,
                                            described, /*AlwaysPreserve=*/true);
  builder_.insertDeclare(slot, variable, builder_.createExpression(), at, block);
}

bool is_python_variable(const std::string& name) {
  const std::string spelled = python_variable_name(name);
  if (spelled.empty() || (spelled[0] >= '0' && spelled[0] <= '9')) return false;
  for (char c : spelled)
    if (!(c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
      return false;
  return true;
}

std::string python_variable_name(const std::string& name) { return name.substr(0, name.find('#')); }

}  // namespace cudajit::lower
