// Line tables (lineinfo=True): LLVM debug locations that the NVPTX backend
// turns into PTX .file/.loc directives, and no other debug information, as
// nvcc -lineinfo does. Profilers (Nsight Compute's source view) and
// cuda-gdb map the machine code back to the Python source through them.
#pragma once

#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

#include <map>
#include <string>

#include "cudajit/compiler/ir.hpp"

namespace cudajit::lower {

class LineTables {
 public:
  // `file`: the module's source file, for functions that do not name theirs.
  LineTables(llvm::Module& module, const std::string& file);
  LineTables(const LineTables&) = delete;
  LineTables& operator=(const LineTables&) = delete;

  // Describes `function` as defined at `line` of `file` (empty: the module's).
  llvm::DISubprogram* describe(llvm::Function& function, const std::string& file, int line);
  // The location of `loc` in `scope` (columns are 1-based in the table).
  llvm::DILocation* at(llvm::DISubprogram* scope, SourceLoc loc) const;
  // Completes the metadata; call once, after the last function.
  void finalize() { builder_.finalize(); }

 private:
  llvm::DIFile* file(const std::string& path);

  llvm::DIBuilder builder_;
  std::string module_file_;
  std::map<std::string, llvm::DIFile*> files_;
  llvm::DICompileUnit* unit_ = nullptr;
};

}  // namespace cudajit::lower
