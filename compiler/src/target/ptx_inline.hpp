// Inlining at the level of PTX text: a libdevice function's PTX, generated
// once, is copied into each kernel that calls it, in place of a marker the
// kernel's code generation left where the call was. This is what LLVM's
// inliner followed by code generation gives (ptxas makes the same SASS of
// both, within a few instructions), without selecting sinf's thousand
// instructions again for every kernel: instruction selection of inlined
// libdevice bodies was three quarters of a math-heavy kernel's compile.
// ptxas itself does not inline these functions: left as .func, each would
// cost a call.
//
// The PTX is LLVM NVPTX's own output, which this reads: top-level entities
// start at column 0, a function body is the lines between a "{" line and a
// "}" line, registers are declared with .reg, and parameters are read once
// with ld.param and the result written with st.param.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cudajit::target::detail {

// A module-level PTX entity a function needs: a helper function's
// declaration or definition, or a global (libdevice's tables).
struct PtxEntity {
  std::string name;
  bool is_definition = false;  // a function definition or an initialised global
  std::string text;            // whole, with its final newline
};

// A function's PTX, ready to be copied into a kernel.
struct PtxFunction {
  std::string name;
  std::vector<std::string> parameters;  // .param names, in order
  std::string code;                     // the body, ready to copy (ptx_inline.cpp)
  std::vector<PtxEntity> needs;         // what the body refers to, in definition order
};

// The comment the kernel's code carries where `function` was called:
// "// cudajit-inline <name> <result>, <argument>, ...", written by an inline
// asm statement whose operands are the result and the arguments.
inline constexpr const char* kInlineMarker = "// cudajit-inline ";

// Reads `function` out of `ptx`, a module LLVM generated holding it (as a
// .func) and its helpers. nullopt when the function's PTX does something
// this inliner does not reproduce: parameters that are not 32- or 64-bit
// scalars read once each with ld.param, or a result not written with
// st.param. Throws LlvmError when `function` is not defined in `ptx`.
std::optional<PtxFunction> parse_ptx_function(const std::string& ptx, const std::string& function);

// `kernel_ptx` with each marker replaced by a copy of the function's body in
// a block of its own (registers, labels and local memory renamed apart, the
// parameters read from the marker's operands, each return a move to the
// result and a branch to the block's end), and the entities the copies need
// added after the header, each once and only when `kernel_ptx` does not
// already define it. `lookup` gives the function for a marker's name.
// Throws LlvmError when a marker names a function `lookup` does not have.
using PtxFunctionLookup = std::function<const PtxFunction*(const std::string& name)>;
std::string inline_ptx_functions(const std::string& kernel_ptx, const PtxFunctionLookup& lookup);

}  // namespace cudajit::target::detail
