#include "host_cpu.hpp"

#include <llvm/ADT/StringSet.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/TargetParser/Host.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>

#include "cudajit/compiler/errors.hpp"

namespace cudajit::target::detail {

namespace {

const char* environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

std::unique_ptr<llvm::MCSubtargetInfo> subtarget(const llvm::Target& target,
                                                 const llvm::Triple& triple, const std::string& cpu,
                                                 const std::string& features) {
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      target.createMCSubtargetInfo(triple.str(), cpu, features));
  if (!info) throw LlvmError("no subtarget information for " + triple.str());
  return info;
}

}  // namespace

HostCpu choose_host_cpu(const llvm::Triple& triple) {
  const char* chosen_name = environment("CUDAJIT_CPU_NAME");
  const char* chosen_features = environment("CUDAJIT_CPU_FEATURES");
  if (chosen_name != nullptr &&
      (std::string(chosen_name) == "native" || std::string(chosen_name) == "host"))
    chosen_name = nullptr;
  const llvm::StringMap<bool> host_features = llvm::sys::getHostCPUFeatures();
  HostCpu cpu;
  cpu.name = chosen_name != nullptr ? chosen_name : llvm::sys::getHostCPUName().str();
  if (chosen_name == nullptr)  // this machine's features, before any the environment changes
    for (const auto& feature : host_features)
      cpu.features.AddFeature(feature.getKey(), feature.getValue());
  if (chosen_name == nullptr && chosen_features == nullptr) return cpu;

  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple.str(), error);
  if (target == nullptr) throw LlvmError("no host target for " + triple.str() + ": " + error);
  // Checked against LLVM's tables first: an unknown name is only a warning on stderr to it.
  auto generic = subtarget(*target, triple, "generic", "");
  if (!generic->isCPUStringValid(cpu.name))
    throw std::invalid_argument("CUDAJIT_CPU_NAME='" + cpu.name + "' is not a CPU LLVM knows for " +
                                triple.str() +
                                " (e.g. haswell, skylake-avx512, znver3, x86-64-v3, native)");
  llvm::StringSet<> known;
  for (const llvm::SubtargetFeatureKV& feature : generic->getAllProcessorFeatures())
    known.insert(feature.Key);
  if (chosen_features != nullptr) {
    llvm::SmallVector<llvm::StringRef> items;
    llvm::StringRef(chosen_features).split(items, ',', -1, false);
    for (llvm::StringRef item : items) {
      item = item.trim();
      if (!llvm::SubtargetFeatures::hasFlag(item))
        throw std::invalid_argument("CUDAJIT_CPU_FEATURES: '" + item.str() +
                                    "' needs a + (add) or a - (remove), e.g. +avx2,-avx512f");
      if (!known.contains(item.drop_front()))
        throw std::invalid_argument("CUDAJIT_CPU_FEATURES: '" + item.str() +
                                    "' is not a feature LLVM knows for " + triple.str());
      cpu.features.AddFeature(item);
    }
  }
  // Code for a feature this machine lacks would stop at an illegal instruction.
  auto chosen = subtarget(*target, triple, cpu.name, cpu.features.getString());
  std::string missing;
  for (const auto& feature : host_features) {
    if (feature.getValue() || !known.contains(feature.getKey())) continue;
    std::string flag = "+";
    flag += feature.getKey();
    if (!chosen->checkFeatures(flag)) continue;
    if (!missing.empty()) missing += ", ";
    missing += feature.getKey();
  }
  if (missing.empty()) return cpu;
  std::string asked = chosen_name != nullptr ? "CUDAJIT_CPU_NAME='" + cpu.name + "'" : "";
  if (chosen_features != nullptr)
    asked += (asked.empty() ? "" : " with ") + std::string("CUDAJIT_CPU_FEATURES='") +
             chosen_features + "'";
  throw std::invalid_argument(asked + " asks for features this CPU (" +
                              llvm::sys::getHostCPUName().str() + ") lacks: " + missing);
}

}  // namespace cudajit::target::detail
