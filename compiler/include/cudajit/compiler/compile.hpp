// Compile entry points: kernel IR text + argument types -> PTX, or native
// code for the cpu device. Each stage can be dumped (CUDAJIT_DUMP=ir,typed,llvm,ptx).
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cudajit/compiler/ir.hpp"
#include "cudajit/compiler/target.hpp"
#include "cudajit/compiler/types.hpp"

namespace cudajit {

struct CompileOptions {
  bool fastmath = false;
  bool lineinfo = false;  // PTX line tables (.file/.loc) to the Python source
  bool debug = false;     // line tables and DWARF: functions, variables, types
  // The PTX's optimisation: 3, or 0 for Numba's opt=False (debug=True's code as cuda-gdb
  // steps through it: every variable in its slot). Host code is always optimised.
  int opt_level = 3;
  int cc = 80;                         // compute capability for PTX, major*10+minor
  int max_registers = 0;               // .maxnreg of kernels (Numba's max_registers); 0: none
  std::array<int, 3> launch_bounds{};  // PtxOptions::launch_bounds (Numba's launch_bounds)
  // compile_ptx(device=True, abi="c"): the visible .func's name; empty: the compiler's.
  std::string export_name;
  // Host code checks every index against its extent and reports the first
  // failure (IndexErrorRecord) instead of touching memory out of bounds.
  // Off with CUDAJIT_BOUNDSCHECK=0; PTX is not checked (as Numba's).
  bool boundscheck = true;
  // Keep the typed IR and the lowered LLVM IR as text in the artifact
  // (inspect_types, inspect_llvm); printing them costs a tenth of a small compile.
  bool keep_llvm_ir = false;
};

// How one kernel argument is passed: the flattened parameters of the kernel
// entry (cuLaunchKernel's kernelParams and the host entry's `params` alike).
// A scalar is one parameter in its memory form (bool as one byte); an array of
// ndim N is 1 + 2N parameters: data pointer, N extents, N byte strides (int64).
struct ParamLayout {
  Type type;
  int first_param = 0;  // index of its first flattened parameter
  int param_count = 1;
};

struct PtxArtifact {
  std::string ptx;
  std::string llvm_ir;     // as lowered, before optimisation; if keep_llvm_ir
  std::string typed_ir;    // the typed kernel IR (every expression's type); if keep_llvm_ir
  std::string entry_name;  // the .entry (or .func for device functions)
  Type return_type;
  std::vector<ParamLayout> params;
  // The kernel syncs its grid: launched cooperatively, with the grid
  // workspace (two zeroed u64) as a last parameter after `params`.
  bool cooperative = false;
};

struct HostArtifact {
  target::HostKernel kernel;
  bool boundscheck = false;  // reports through LaunchDims::errors
  std::string llvm_ir;       // if keep_llvm_ir
  std::string entry_name;
  std::vector<ParamLayout> params;
  std::string object;  // the object file kernel's code came from (target::load_host_object)
};

// A parsed kernel IR module, compiled for as many signatures as asked.
class Program {
 public:
  explicit Program(std::string_view ir_text);
  const ir::Module& module() const { return module_; }

  // `device`: compile the entry as a device function (.func) rather than a kernel.
  // `declared_return`: the return type a signature declares (device functions).
  PtxArtifact compile_ptx(const std::vector<Type>& arg_types, bool device,
                          const CompileOptions& options,
                          std::optional<Type> declared_return = std::nullopt) const;
  HostArtifact compile_host(const std::vector<Type>& arg_types,
                            const CompileOptions& options) const;
  // The return type of the entry for these argument types (typing only).
  Type return_type(const std::vector<Type>& arg_types, bool device) const;

 private:
  ir::Module module_;
};

// What the PTX of a kernel IR depends on besides the IR and the options: this
// build of cudajit, the LLVM version and the libdevice file (path, size and
// modification time). A kernel cache on disk keys on it, so that a new
// cudajit or toolkit compiles anew.
std::string compiler_identity();

// False where CUDAJIT_BOUNDSCHECK=0 compiles host code's bounds checks out (whatever
// CompileOptions::boundscheck says).
bool boundscheck_allowed();

// The flattened parameter layout of a kernel taking `arg_types`.
std::vector<ParamLayout> param_layout(const std::vector<Type>& arg_types);

}  // namespace cudajit
