// Exceptions the compiler throws. The binding layer translates each one to a
// Python exception in one place (python/src/errors.cpp).
#pragma once

#include <stdexcept>
#include <string>

namespace cudajit {

// A position in the user's source file; line is 1-based, col 0-based (as ast).
struct SourceLoc {
  int line = 0;
  int col = 0;
};

// Unsupported or ill-typed kernel code. Carries the location of the offending
// node so Python can show the source line with a caret.
class CompileError : public std::runtime_error {
 public:
  CompileError(const std::string& message, SourceLoc loc, std::string file = {})
      : std::runtime_error(message), loc_(loc), file_(std::move(file)) {}
  SourceLoc loc() const { return loc_; }
  const std::string& file() const { return file_; }
  void set_file(std::string file) { file_ = std::move(file); }

 private:
  SourceLoc loc_;
  std::string file_;
};

// Malformed kernel IR text (a front-end bug, or a hand-written IR mistake).
class IrSyntaxError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// LLVM refused something (verifier, target lookup, code generation).
class LlvmError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace cudajit
