// Linking PTX modules into one, as the driver's linker (cuLink*) and nvJitLink do before
// they compile: extern functions and variables resolve to another module's .visible (or
// .weak) definition, internal names that collide are renamed, and the result is one PTX
// text that cuModuleLoadData accepts. The simulated GPU executes PTX, so PTX is also what
// it links to; a cubin or fatbin that carries no PTX is refused.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudajit::sim::link {

// A link that cannot be made: the message names the symbol and the inputs involved.
class LinkError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What kind of image a buffer holds, told from its first bytes.
enum class ImageKind { Ptx, Elf, Fatbin, Unknown };
ImageKind image_kind(const void* data, size_t size);

class PtxLinker {
 public:
  // `arch`: the target the link is for (sm_90); empty takes the newest of the inputs'.
  explicit PtxLinker(std::string arch = {}) : arch_(std::move(arch)) {}

  // One module's PTX text, `name` for messages.
  void add_ptx(std::string text, std::string name);
  // A buffer of any kind the driver accepts: PTX text, or a fatbin whose PTX entries are
  // used; a cubin (ELF) or a fatbin without PTX is a LinkError saying why.
  void add_image(const void* data, size_t size, std::string name);

  // Every kernel of the link keeps within `registers` (CU_JIT_MAX_REGISTERS, -maxrregcount):
  // the linked PTX gives each entry a .maxnreg.
  void limit_registers(int registers) { max_registers_ = registers; }

  // The linked module, or LinkError.
  std::string link() const;

 private:
  struct Input {
    std::string name;
    std::string text;
  };
  std::string arch_;
  int max_registers_ = 0;
  std::vector<Input> inputs_;
};

// The PTX of a fatbin that a target runs: the entry of the newest virtual architecture not
// newer than `target_sm` (-1: the newest of all). Compressed entries are read (zstd).
std::string fatbin_ptx(const void* data, size_t size, const std::string& name, int target_sm);

}  // namespace cudajit::sim::link
