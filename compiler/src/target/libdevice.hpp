// libdevice, NVIDIA's bitcode math library (__nv_sinf, __nv_pow, ...), taken
// function by function and optimised once per process and target
// configuration, so that a kernel's compile does not optimise sinf's body again.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace cudajit::target::detail {

// Optimises a module holding one libdevice function for one target
// configuration (__nvvm_reflect's answers, fastmath attributes, passes).
using LibdeviceOptimizer = std::function<void(llvm::Module&)>;

// The libdevice functions (__nv_*) `module` declares, sorted.
std::vector<std::string> libdevice_declarations(const llvm::Module& module);

// A module in `context` (triple and data layout those of `kernel_module`)
// defining the libdevice functions `names`, optimised by `optimize`, with
// external linkage; the noinline helpers and tables they use are linkonce_odr
// under their libdevice names, so that two functions' copies merge when
// linked. Each function is optimised once per process and `configuration` (a
// key saying what `optimize` depends on) and kept as bitcode.
//
// The module is loaded lazily: a function's body is read when the linker
// needs it or on Module::materializeAll.
//
// Throws std::runtime_error when libdevice is not found, LlvmError when it
// cannot be read or when a name is not in it.
std::unique_ptr<llvm::Module> optimized_libdevice(const std::vector<std::string>& names,
                                                  const std::string& configuration,
                                                  const LibdeviceOptimizer& optimize,
                                                  const llvm::Module& kernel_module);

// The number of instructions in the optimised body of `name` (not counting the
// helpers it calls), once optimized_libdevice has given it for `configuration`.
std::size_t libdevice_function_size(const std::string& configuration, const std::string& name);

}  // namespace cudajit::target::detail
