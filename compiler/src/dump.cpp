#include "dump.hpp"

#include <cstdio>
#include <cstdlib>

namespace cudajit {

bool dump_enabled(std::string_view stage) {
  static const std::string dump = [] {
    const char* v = std::getenv("CUDAJIT_DUMP");
    return std::string(v ? v : "");
  }();
  if (dump.empty()) return false;
  if (dump == "all") return true;
  size_t start = 0;
  while (start <= dump.size()) {
    size_t end = dump.find(',', start);
    if (end == std::string::npos) end = dump.size();
    if (std::string_view(dump).substr(start, end - start) == stage) return true;
    start = end + 1;
  }
  return false;
}

void dump(std::string_view stage, const std::string& what, const std::string& text) {
  if (!dump_enabled(stage)) return;
  std::fprintf(stderr, "=== cudajit %.*s: %s ===\n%s\n", static_cast<int>(stage.size()),
               stage.data(), what.c_str(), text.c_str());
}

StageTimer::~StageTimer() {
  if (!dump_enabled("timing")) return;
  auto elapsed = std::chrono::steady_clock::now() - start_;
  std::fprintf(stderr, "cudajit timing: %-14s %8.3f ms\n", name_,
               std::chrono::duration<double, std::milli>(elapsed).count());
}

}  // namespace cudajit
