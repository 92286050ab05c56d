#include "libdevice.hpp"

#include <llvm/ADT/SmallVector.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudajit/compiler/errors.hpp"
#include "cudajit/compiler/target.hpp"
#include "llvm_support.hpp"

namespace cudajit::target {

using detail::DiagnosticCapture;
using detail::error_message;
using detail::LibdeviceOptimizer;

namespace {

constexpr const char* kLibdeviceSuffix = "/nvvm/libdevice/libdevice.10.bc";

// Optimised functions kept, over all configurations: libdevice has about
// 500, and a program uses a few configurations (cc, fastmath).
constexpr std::size_t kMaxCachedFunctions = 4096;
// Sets of functions kept linked together (a few per kernel that uses math).
constexpr std::size_t kMaxCachedSets = 1024;

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

// The libdevice functions `names` and those they call, in one module of
// `context`. Parsing libdevice (lazily) costs about 1 ms; the subset, a tenth.
std::unique_ptr<llvm::Module> extract_subset(const std::vector<std::string>& names,
                                             llvm::LLVMContext& context) {
  auto lazy = llvm::getLazyBitcodeModule(libdevice_file().getMemBufferRef(), context,
                                         /*ShouldLazyLoadMetadata=*/true);
  if (!lazy) {
    throw LlvmError("cannot parse libdevice (" + libdevice_path() +
                    "): " + error_message(lazy.takeError()));
  }
  std::unique_ptr<llvm::Module> libdevice = std::move(*lazy);
  auto subset = std::make_unique<llvm::Module>("libdevice", context);
  subset->setTargetTriple(libdevice->getTargetTriple());
  subset->setDataLayout(libdevice->getDataLayout());
  std::string unknown;
  for (const std::string& name : names) {
    if (const llvm::Function* function = libdevice->getFunction(name)) {
      subset->getOrInsertFunction(name, function->getFunctionType());
    } else {
      unknown += (unknown.empty() ? "" : ", ") + name;
    }
  }
  if (!unknown.empty()) throw LlvmError("libdevice has no function " + unknown);
  DiagnosticCapture diagnostics(context);
  if (llvm::Linker::linkModules(*subset, std::move(libdevice), llvm::Linker::LinkOnlyNeeded)) {
    throw LlvmError("extracting functions from libdevice failed: " + diagnostics.errors());
  }
  return subset;
}

using CacheKey = std::pair<std::string, std::string>;  // configuration, function(s)

Bitcode write_bitcode(const llvm::Module& module) {
  Bitcode bitcode;
  llvm::raw_svector_ostream stream(bitcode);
  llvm::WriteBitcodeToFile(module, stream);
  return bitcode;
}

std::unique_ptr<llvm::Module> parse_bitcode(const Bitcode& bitcode, llvm::LLVMContext& context) {
  const llvm::MemoryBufferRef buffer(llvm::StringRef(bitcode.data(), bitcode.size()), "libdevice");
  auto parsed = llvm::parseBitcodeFile(buffer, context);
  if (!parsed) {
    throw LlvmError("cannot parse optimised libdevice functions: " +
                    error_message(parsed.takeError()));
  }
  return std::move(*parsed);
}

// One module defining every function of `functions` (bitcode each).
std::unique_ptr<llvm::Module> link_functions(
    const std::vector<std::shared_ptr<const Bitcode>>& functions, llvm::LLVMContext& context) {
  DiagnosticCapture diagnostics(context);
  std::unique_ptr<llvm::Module> linked;
  for (const auto& bitcode : functions) {
    std::unique_ptr<llvm::Module> function = parse_bitcode(*bitcode, context);
    if (!linked) {
      linked = std::move(function);
    } else if (llvm::Linker::linkModules(*linked, std::move(function))) {
      throw LlvmError("linking libdevice functions failed: " + diagnostics.errors());
    }
  }
  return linked;
}

// The globals `root` needs: itself, the functions it calls and the tables it
// reads, directly or not.
std::set<const llvm::GlobalValue*> needed_globals(const llvm::Function& root) {
  std::set<const llvm::GlobalValue*> needed{&root};
  std::vector<const llvm::GlobalValue*> pending{&root};
  std::set<const llvm::Constant*> seen_constants;
  // Operands, looking through constant expressions (a GEP into a table).
  auto visit = [&](const llvm::Value* operand, auto& self) -> void {
    if (const auto* global = llvm::dyn_cast<llvm::GlobalValue>(operand)) {
      if (needed.insert(global).second) pending.push_back(global);
    } else if (const auto* constant = llvm::dyn_cast<llvm::Constant>(operand)) {
      if (!seen_constants.insert(constant).second) return;
      for (const llvm::Value* inner : constant->operands()) self(inner, self);
    }
  };
  while (!pending.empty()) {
    const llvm::GlobalValue* global = pending.back();
    pending.pop_back();
    if (const auto* variable = llvm::dyn_cast<llvm::GlobalVariable>(global)) {
      if (variable->hasInitializer()) visit(variable->getInitializer(), visit);
    } else if (const auto* function = llvm::dyn_cast<llvm::Function>(global)) {
      for (const llvm::BasicBlock& block : *function) {
        for (const llvm::Instruction& instruction : block) {
          for (const llvm::Value* operand : instruction.operands()) visit(operand, visit);
        }
      }
    }
  }
  return needed;
}

struct OptimizedFunctions {
  std::map<std::string, Bitcode> each;       // a function with what it needs
  Bitcode all;                               // all of them in one module
  std::map<std::string, std::size_t> sizes;  // instructions in each function's own body
};

// Optimises the functions `names` of `subset` (extract_subset's) in one run,
// then clones each, with what it needs, into bitcode of its own. Everything
// but `names` is made linkonce_odr under its libdevice name first: the copies
// that two functions carry of a helper or a table merge when linked.
OptimizedFunctions optimize_and_split(llvm::Module& subset, const std::vector<std::string>& names,
                                      const llvm::Module& kernel_module,
                                      const LibdeviceOptimizer& optimize) {
  subset.setTargetTriple(kernel_module.getTargetTriple());
  subset.setDataLayout(kernel_module.getDataLayout());
  const std::set<std::string> exported(names.begin(), names.end());
  for (llvm::GlobalValue& value : subset.global_values()) {
    if (value.isDeclaration() || !value.hasName() || value.getName().starts_with("llvm.") ||
        exported.contains(value.getName().str())) {
      continue;
    }
    value.setLinkage(llvm::GlobalValue::LinkOnceODRLinkage);
    value.setVisibility(llvm::GlobalValue::DefaultVisibility);
  }
  optimize(subset);
  OptimizedFunctions out{.each = {}, .all = write_bitcode(subset), .sizes = {}};
  for (const std::string& name : names) {
    std::size_t size = 0;
    for (const llvm::BasicBlock& block : *subset.getFunction(name)) size += block.size();
    out.sizes.emplace(name, size);
    const std::set<const llvm::GlobalValue*> needed = needed_globals(*subset.getFunction(name));
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> function = llvm::CloneModule(
        subset, map, [&](const llvm::GlobalValue* value) { return needed.contains(value); });
    // Exported functions this one calls are declarations in its clone; the
    // kernel links their own bitcode.
    out.each.emplace(name, write_bitcode(*function));
  }
  return out;
}

// Bitcode by key, shared by the threads that compile; past `capacity`
// entries new ones are not kept (a program uses a few configurations).
class BitcodeCache {
 public:
  explicit BitcodeCache(std::size_t capacity) : capacity_(capacity) {}

  std::shared_ptr<const Bitcode> find(const CacheKey& key) const {
    std::lock_guard lock(mutex_);
    auto found = entries_.find(key);
    return found != entries_.end() ? found->second : nullptr;
  }

  void insert(const CacheKey& key, std::shared_ptr<const Bitcode> bitcode) {
    std::lock_guard lock(mutex_);
    if (entries_.size() < capacity_) entries_.emplace(key, std::move(bitcode));
  }

 private:
  mutable std::mutex mutex_;
  std::map<CacheKey, std::shared_ptr<const Bitcode>> entries_;
  std::size_t capacity_;
};

BitcodeCache function_cache(kMaxCachedFunctions);  // one function with what it needs
BitcodeCache set_cache(kMaxCachedSets);            // a kernel's functions, linked

// Each optimised function's size, read without loading its body.
std::mutex sizes_mutex;
std::map<CacheKey, std::size_t> function_sizes;

// The optimised bitcode of `names`, all linked in one module: from the
// per-function cache, optimising what it lacks.
Bitcode optimized_set(const std::vector<std::string>& names, const std::string& configuration,
                      const LibdeviceOptimizer& optimize, const llvm::Module& kernel_module) {
  std::vector<std::shared_ptr<const Bitcode>> found(names.size());
  std::vector<std::string> missing;
  for (std::size_t i = 0; i < names.size(); ++i) {
    found[i] = function_cache.find({configuration, names[i]});
    if (!found[i]) missing.push_back(names[i]);
  }
  llvm::LLVMContext context;
  if (!missing.empty()) {
    // Unlocked: optimising takes milliseconds. Two threads may both make one.
    const std::unique_ptr<llvm::Module> subset = extract_subset(missing, context);
    OptimizedFunctions made = optimize_and_split(*subset, missing, kernel_module, optimize);
    {
      std::lock_guard lock(sizes_mutex);
      for (const auto& [name, size] : made.sizes) function_sizes[{configuration, name}] = size;
    }
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (found[i]) continue;
      found[i] = std::make_shared<const Bitcode>(std::move(made.each.at(names[i])));
      function_cache.insert({configuration, names[i]}, found[i]);
    }
    if (missing.size() == names.size()) return std::move(made.all);  // no need to link
  }
  return write_bitcode(*link_functions(found, context));
}

}  // namespace

namespace {

std::mutex g_package_roots_mutex;
std::vector<std::string> g_package_roots;

}  // namespace

void set_libdevice_package_roots(std::vector<std::string> roots) {
  std::lock_guard lock(g_package_roots_mutex);
  g_package_roots = std::move(roots);
}

namespace {

// The files looked at, in order.
std::vector<std::string> libdevice_candidates() {
  const char* chosen = std::getenv("CUDAJIT_LIBDEVICE");
  if (chosen != nullptr && *chosen != '\0') return {chosen};  // the user's choice, alone
  std::vector<std::string> roots;
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* value = std::getenv(variable);
    if (value != nullptr && *value != '\0') roots.emplace_back(value);
  }
  {
    std::lock_guard lock(g_package_roots_mutex);
    roots.insert(roots.end(), g_package_roots.begin(), g_package_roots.end());
  }
#ifdef CUDAJIT_CUDA_HOME
  // The toolkit the build found, if the build system says so.
  if (*CUDAJIT_CUDA_HOME != '\0') roots.emplace_back(CUDAJIT_CUDA_HOME);
#endif
  roots.emplace_back("/usr/local/cuda");
  std::vector<std::string> files;
  for (const std::string& root : roots) files.push_back(root + kLibdeviceSuffix);
  return files;
}

}  // namespace

std::string libdevice_path() {
  std::string tried;
  for (const std::string& path : libdevice_candidates()) {
    if (llvm::sys::fs::is_regular_file(path)) return path;
    tried += (tried.empty() ? "" : ", ") + path;
  }
  throw std::runtime_error(
      "libdevice.10.bc, which kernels using math functions need on a GPU, was not found; tried " +
      tried +
      ". Install it with `pip install nvidia-nvvm` (CUDA 13; `nvidia-cuda-nvcc-cu12` for CUDA "
      "12), set CUDA_HOME to a CUDA toolkit's directory, or CUDAJIT_LIBDEVICE to the file.");
}

namespace detail {

std::vector<std::string> libdevice_declarations(const llvm::Module& module) {
  std::vector<std::string> names;
  for (const llvm::Function& function : module) {
    if (function.isDeclaration() && is_libdevice_function(function)) {
      names.push_back(function.getName().str());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::unique_ptr<llvm::Module> optimized_libdevice(const std::vector<std::string>& names,
                                                  const std::string& configuration,
                                                  const LibdeviceOptimizer& optimize,
                                                  const llvm::Module& kernel_module) {
  // Kernels use the same few sets of functions again and again; a set comes
  // linked, in one piece of bitcode, which parses in a fraction of the time
  // that parsing and linking its functions one by one takes.
  std::string set_name;
  for (const std::string& name : names) set_name += name + ",";
  const CacheKey key{configuration, set_name};
  std::shared_ptr<const Bitcode> linked = set_cache.find(key);
  if (!linked) {
    linked = std::make_shared<const Bitcode>(
        optimized_set(names, configuration, optimize, kernel_module));
    set_cache.insert(key, linked);
  }
  // Lazily: the kernel needs the declarations' attributes now and the bodies
  // of those it links only, which the linker reads.
  auto lazy = llvm::getOwningLazyBitcodeModule(
      llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(linked->data(), linked->size()),
                                           "libdevice"),
      kernel_module.getContext());
  if (!lazy) {
    throw LlvmError("cannot parse optimised libdevice functions: " +
                    error_message(lazy.takeError()));
  }
  std::unique_ptr<llvm::Module> libdevice = std::move(*lazy);
  libdevice->setTargetTriple(kernel_module.getTargetTriple());
  libdevice->setDataLayout(kernel_module.getDataLayout());
  return libdevice;
}

std::size_t libdevice_function_size(const std::string& configuration, const std::string& name) {
  std::lock_guard lock(sizes_mutex);
  auto found = function_sizes.find({configuration, name});
  if (found == function_sizes.end()) {
    throw LlvmError("internal: no size recorded for libdevice function " + name + " (" +
                    configuration + ")");
  }
  return found->second;
}

}  // namespace detail
}  // namespace cudajit::target
