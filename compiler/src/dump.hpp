// CUDAJIT_DUMP=ir,typed,llvm,ptx,timing (or "all"): what the compile stages
// print to stderr, so a bug report can carry the stage where things went wrong.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

namespace cudajit {

bool dump_enabled(std::string_view stage);
void dump(std::string_view stage, const std::string& what, const std::string& text);

// Prints "timing: <name> <ms>" when it goes out of scope, if CUDAJIT_DUMP has "timing".
class StageTimer {
 public:
  explicit StageTimer(const char* name) : name_(name), start_(std::chrono::steady_clock::now()) {}
  ~StageTimer();
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

 private:
  const char* name_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace cudajit
