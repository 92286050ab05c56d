// libdevice, NVIDIA's bitcode math library (__nv_sinf, __nv_pow, ...), linked
// into kernel modules function by function.
#pragma once

namespace llvm {
class Module;
}  // namespace llvm

namespace cudajit::target::detail {

// Links into `module` the libdevice functions it declares (__nv_*) and those
// they call, nothing else; does nothing when it declares none. The module's
// triple and data layout must be set. Throws std::runtime_error when libdevice
// is not found, LlvmError when it cannot be read or linked or when a __nv_
// function is not in it.
void link_libdevice(llvm::Module& module);

}  // namespace cudajit::target::detail
