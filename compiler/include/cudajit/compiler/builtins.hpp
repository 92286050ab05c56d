// The compiler's builtins by IR name, for checks from outside it: cudajit._core's
// builtin_names(), which tests/python/test_builtin_registry.py compares with the intrinsics
// python/cudajit/intrinsics.py defines.
#pragma once

#include <string>
#include <vector>

namespace cudajit {

struct BuiltinName {
  std::string name;       // the IR name; one ending in '.' stands for every name starting so
  std::string intrinsic;  // the name intrinsics.py lists it under; empty: none (math.*, len...)
};

std::vector<BuiltinName> builtin_names();

}  // namespace cudajit
