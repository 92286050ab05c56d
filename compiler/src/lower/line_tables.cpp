#include "line_tables.hpp"

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/Support/Path.h>

#include <cstdint>

namespace cudajit::lower {

LineTables::LineTables(llvm::Module& module, const std::string& file)
    : builder_(module), module_file_(file) {
  // DebugDirectivesOnly: .file and .loc in the PTX, no DWARF sections.
  unit_ = builder_.createCompileUnit(static_cast<uint16_t>(llvm::dwarf::DW_LANG_Python),
                                     this->file(file), "cudajit", /*isOptimized=*/true,
                                     /*Flags=*/"", /*RV=*/0, /*SplitName=*/"",
                                     llvm::DICompileUnit::DebugDirectivesOnly);
  module.addModuleFlag(llvm::Module::Warning, "Debug Info Version", llvm::DEBUG_METADATA_VERSION);
}

llvm::DIFile* LineTables::file(const std::string& path) {
  llvm::DIFile*& found = files_[path];
  if (found == nullptr) {
    const std::string source = path.empty() ? "<unknown>" : path;
    found = builder_.createFile(llvm::sys::path::filename(source),
                                llvm::sys::path::parent_path(source));
  }
  return found;
}

llvm::DISubprogram* LineTables::describe(llvm::Function& function, const std::string& path,
                                         int line) {
  llvm::DIFile* source = file(path.empty() ? module_file_ : path);
  llvm::DISubroutineType* type = builder_.createSubroutineType(builder_.getOrCreateTypeArray({}));
  llvm::DISubprogram* subprogram = builder_.createFunction(
      source, function.getName(), function.getName(), source, static_cast<unsigned>(line), type,
      static_cast<unsigned>(line), llvm::DINode::FlagZero,
      llvm::DISubprogram::SPFlagDefinition | llvm::DISubprogram::SPFlagOptimized);
  function.setSubprogram(subprogram);
  return subprogram;
}

llvm::DILocation* LineTables::at(llvm::DISubprogram* scope, SourceLoc loc) const {
  return llvm::DILocation::get(scope->getContext(), static_cast<unsigned>(loc.line),
                               static_cast<unsigned>(loc.col + 1), scope);
}

}  // namespace cudajit::lower
