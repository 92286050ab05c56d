// Debug information for the GPU: LLVM debug metadata that the NVPTX backend
// turns into PTX .file/.loc directives (lineinfo=True and debug=True) and, with
// debug=True, DWARF sections (.debug_info ...) describing each function and
// each Python variable with its type, as nvcc -G does. Profilers (Nsight
// Compute's source view) and cuda-gdb map the machine code back to the Python
// source through them; the simulated GPU reads the .loc directives for its
// error messages and skips the sections.
#pragma once

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cudajit/compiler/ir.hpp"
#include "cudajit/compiler/types.hpp"
#include "debug_types.hpp"

namespace cudajit::lower {

enum class DebugLevel : uint8_t {
  Lines,  // lineinfo=True: .file/.loc only (DebugDirectivesOnly), as nvcc -lineinfo
  Full,   // debug=True: also functions, variables and types in DWARF sections
};

class DebugInfo {
 public:
  // `file`: the module's source file, for functions that do not name theirs.
  // `optimized`: the code is optimised (variables may be optimised out).
  DebugInfo(llvm::Module& module, const std::string& file, DebugLevel level, bool optimized);
  DebugInfo(const DebugInfo&) = delete;
  DebugInfo& operator=(const DebugInfo&) = delete;

  bool full() const { return level_ == DebugLevel::Full; }

  // Describes `function` as the Python function `name` defined at `line` of
  // `file` (empty: the module's), returning `result` and taking `params`.
  llvm::DISubprogram* describe(llvm::Function& function, const std::string& name,
                               const std::string& file, int line, const Type& result,
                               const std::vector<Type>& params);
  // The location of `loc` in `scope` (columns are 1-based in the table).
  llvm::DILocation* at(llvm::DISubprogram* scope, SourceLoc loc) const;
  // Full: the variable `name` of type `type`, first assigned at `line`, lives
  // in `slot` (llvm.dbg.declare at the end of `block`, located `at`: the
  // prologue); `arg` is its position among the parameters (from 1), 0 for a
  // local variable.
  void declare(llvm::AllocaInst* slot, llvm::DISubprogram* scope, const std::string& name,
               const Type& type, int line, unsigned arg, llvm::DILocation* at,
               llvm::BasicBlock* block);
  // The same for a slot that holds one of `types` in turn (a variable rebound to other
  // types): one variable, of their union.
  void declare(llvm::AllocaInst* slot, llvm::DISubprogram* scope, const std::string& name,
               const std::vector<Type>& types, int line, unsigned arg, llvm::DILocation* at,
               llvm::BasicBlock* block);
  // Completes the metadata; call once, after the last function.
  void finalize() { builder_.finalize(); }

 private:
  llvm::DIFile* file(const std::string& path);
  void declare_described(llvm::AllocaInst* slot, llvm::DISubprogram* scope, const std::string& name,
                         llvm::DIType* described, int line, unsigned arg, llvm::DILocation* at,
                         llvm::BasicBlock* block);

  llvm::DIBuilder builder_;
  DebugTypes types_;
  DebugLevel level_;
  bool optimized_;
  std::string module_file_;
  std::map<std::string, llvm::DIFile*> files_;
  llvm::DICompileUnit* unit_ = nullptr;
};

// Whether `name`, a variable of the kernel IR, is one of the Python
// function's (x, or x#2 when rebound to another type) rather than the front
// end's (iter.1, chain.2, exception.record); and its Python spelling.
bool is_python_variable(const std::string& name);
std::string python_variable_name(const std::string& name);

}  // namespace cudajit::lower
