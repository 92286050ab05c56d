#include "libdevice.hpp"

#include <llvm/ADT/SmallVector.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudajit/compiler/errors.hpp"
#include "cudajit/compiler/target.hpp"
#include "llvm_support.hpp"

namespace cudajit::target {

namespace {

constexpr const char* kLibdeviceSuffix = "/nvvm/libdevice/libdevice.10.bc";

// Distinct sets of libdevice functions whose bitcode is kept; past this,
// new sets are extracted on every compile rather than cached.
constexpr std::size_t kMaxCachedSubsets = 1024;

using Bitcode = llvm::SmallVector<char, 0>;

bool is_libdevice_function(const llvm::Function& function) {
  return function.getName().starts_with("__nv_");
}

// The file's bytes, read once per process.
const llvm::MemoryBuffer& libdevice_file() {
  static std::mutex mutex;
  static std::unique_ptr<llvm::MemoryBuffer> bitcode;
  std::lock_guard lock(mutex);
  if (!bitcode) {
    const std::string path = libdevice_path();
    auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
    if (!file) {
      throw LlvmError("cannot read libdevice at " + path + ": " + file.getError().message());
    }
    bitcode = std::move(*file);
  }
  return *bitcode;
}

// Bitcode of the libdevice functions `names` and those they call. Parsing
// libdevice (lazily) costs about 1 ms; parsing this subset a tenth of that.
Bitcode extract_subset(const std::vector<std::string>& names) {
  llvm::LLVMContext context;
  auto lazy = llvm::getLazyBitcodeModule(libdevice_file().getMemBufferRef(), context,
                                         /*ShouldLazyLoadMetadata=*/true);
  if (!lazy) {
    throw LlvmError("cannot parse libdevice (" + libdevice_path() +
                    "): " + detail::error_message(lazy.takeError()));
  }
  std::unique_ptr<llvm::Module> libdevice = std::move(*lazy);
  auto subset = std::make_unique<llvm::Module>("libdevice", context);
  subset->setTargetTriple(libdevice->getTargetTriple());
  subset->setDataLayout(libdevice->getDataLayout());
  for (const std::string& name : names) {
    // Unknown names stay undefined in the kernel module and are reported there.
    if (const llvm::Function* function = libdevice->getFunction(name)) {
      subset->getOrInsertFunction(name, function->getFunctionType());
    }
  }
  detail::DiagnosticCapture diagnostics(context);
  if (llvm::Linker::linkModules(*subset, std::move(libdevice), llvm::Linker::LinkOnlyNeeded)) {
    throw LlvmError("extracting functions from libdevice failed: " + diagnostics.errors());
  }
  Bitcode bitcode;
  llvm::raw_svector_ostream stream(bitcode);
  llvm::WriteBitcodeToFile(*subset, stream);
  return bitcode;
}

// Subsets are cached per process, keyed by the sorted names: a program
// calls the same few combinations of math functions again and again.
std::shared_ptr<const Bitcode> subset_bitcode(const std::vector<std::string>& names) {
  static std::mutex mutex;
  static std::map<std::vector<std::string>, std::shared_ptr<const Bitcode>> cache;
  {
    std::lock_guard lock(mutex);
    if (auto found = cache.find(names); found != cache.end()) return found->second;
  }
  auto bitcode = std::make_shared<const Bitcode>(extract_subset(names));  // unlocked: slow
  std::lock_guard lock(mutex);
  if (cache.size() < kMaxCachedSubsets) cache.emplace(names, bitcode);
  return bitcode;
}

}  // namespace

std::string libdevice_path() {
  std::vector<std::string> roots;
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* value = std::getenv(variable);
    if (value != nullptr && *value != '\0') roots.emplace_back(value);
  }
#ifdef CUDAJIT_CUDA_HOME
  // The toolkit the build found, if the build system says so.
  if (*CUDAJIT_CUDA_HOME != '\0') roots.emplace_back(CUDAJIT_CUDA_HOME);
#endif
  roots.emplace_back("/usr/local/cuda");

  std::string tried;
  for (const std::string& root : roots) {
    std::string path = root + kLibdeviceSuffix;
    std::error_code error;
    if (std::filesystem::is_regular_file(path, error)) return path;
    tried += (tried.empty() ? "" : ", ") + path;
  }
  throw std::runtime_error(
      "libdevice.10.bc, which kernels using math functions need, was not found; tried " + tried +
      ". Set CUDA_HOME to the CUDA toolkit's directory.");
}

namespace detail {

void link_libdevice(llvm::Module& module) {
  std::vector<std::string> names;
  for (const llvm::Function& function : module) {
    if (function.isDeclaration() && is_libdevice_function(function)) {
      names.push_back(function.getName().str());
    }
  }
  if (names.empty()) return;
  std::sort(names.begin(), names.end());

  const std::shared_ptr<const Bitcode> bitcode = subset_bitcode(names);
  const llvm::MemoryBufferRef buffer(llvm::StringRef(bitcode->data(), bitcode->size()),
                                     "libdevice");
  auto parsed = llvm::parseBitcodeFile(buffer, module.getContext());
  if (!parsed) {
    throw LlvmError("cannot parse libdevice functions: " + error_message(parsed.takeError()));
  }
  std::unique_ptr<llvm::Module> libdevice = std::move(*parsed);
  // libdevice says nvptx64-nvidia-gpulibs and an older layout; matching them
  // keeps the linker from warning.
  libdevice->setTargetTriple(module.getTargetTriple());
  libdevice->setDataLayout(module.getDataLayout());

  DiagnosticCapture diagnostics(module.getContext());
  if (llvm::Linker::linkModules(module, std::move(libdevice), llvm::Linker::LinkOnlyNeeded)) {
    throw LlvmError("linking libdevice failed: " + diagnostics.errors());
  }

  std::string unknown;
  for (const llvm::Function& function : module) {
    if (function.isDeclaration() && is_libdevice_function(function) && !function.use_empty()) {
      unknown += (unknown.empty() ? "" : ", ") + function.getName().str();
    }
  }
  if (!unknown.empty()) {
    throw LlvmError("libdevice has no function " + unknown);
  }
}

}  // namespace detail
}  // namespace cudajit::target
