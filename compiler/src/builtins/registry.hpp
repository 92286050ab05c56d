// Internal to the compiler: the builtins a kernel may call, one row each, keyed by the IR
// name the front end writes (`len`, `math.sqrt`, `cast.int32`, `cuda.atomic.add`...). A row
// holds the arity, the typing rule and the lowering; each family file of builtins/ registers
// its rows (registry.cpp lists the families), as the simulator registers its opcode families.
// Typing (type_builtin_call) and lowering (FunctionLowering::call_builtin) look a call up
// here once; a name no row has is one error, unknown_builtin(). How to add one:
// docs/dev/architecture.md, "How to add an intrinsic".
#pragma once

#include <cstddef>
#include <limits>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cudajit/compiler/typed.hpp"

namespace llvm {
class Value;
}

namespace cudajit::lower {
class FunctionLowering;
}

namespace cudajit::builtins {

// The call's type from its arguments' types; throws CompileError (typing::type_error) for
// a bad call. `out` receives what the call folds to a constant (cuda.grid's dimensions).
using TypeRule = Type (*)(const ir::Node& call, const std::vector<Type>& args,
                          typing::TypedFunction& out);
// The call's value (nullptr when it has none).
using LowerRule = llvm::Value* (*)(lower::FunctionLowering& f, const ir::Node& call);

// The number of arguments, checked before the typing rule runs ("len() takes 1 argument,
// got 2"); kAny where the rule checks them itself (print, min, a cast's own messages).
struct Arity {
  static constexpr size_t kAny = std::numeric_limits<size_t>::max();
  size_t lo = kAny;
  size_t hi = kAny;
};
constexpr Arity takes(size_t n) { return {n, n}; }
constexpr Arity takes(size_t lo, size_t hi) { return {lo, hi}; }
inline constexpr Arity kRuleChecksArity{};

// What the rest of lowering may know of a call by its name alone.
enum Fact : unsigned {
  kNoFacts = 0,
  kIndexRegister = 1u << 0,  // reads the launch's index registers: never negative, no effects
  kBlockBarrier = 1u << 1,   // waits for the block (or grid): the cpu device's lanes meet after
};

struct Builtin {
  // The IR name; one ending in '.' is a family of names that start with it, the rest of the
  // name a parameter its rules read (cast.float32, cuda.shared.array.int64).
  std::string_view name;
  Arity arity;
  TypeRule type;
  LowerRule lower;  // nullptr for a name typing always refuses (range(), cuda.cg.this_grid())
  // The name python/cudajit/intrinsics.py lists it under (ending in '.': the names there
  // that start with it); empty for names the front end makes itself (math.*, len, the
  // front end's own forms). tests/python/test_builtin_registry.py compares the two lists.
  std::string_view intrinsic = {};
  unsigned facts = kNoFacts;
};

class Registry {
 public:
  // A name registered twice is a bug in a family file: std::logic_error.
  void add(const Builtin& row);
  // The row of `name`: its own, else the longest family prefix it starts with.
  const Builtin* find(std::string_view name) const;
  const std::vector<Builtin>& rows() const { return rows_; }

 private:
  std::vector<Builtin> rows_;
  std::unordered_map<std::string_view, size_t> exact_;
  std::vector<size_t> prefixes_;  // a handful (cast., cuda.vector. ...): scanned
};

// Every family's rows, registered on first use.
const Registry& registry();

// Whether the builtin `name` is registered with `fact` (false for a name no row has).
bool has_fact(std::string_view name, Fact fact);

// The one error for a call of a name no row has ("math.factorial() is not supported in
// kernels", "cuda.syncgrid is not supported in kernels").
[[noreturn]] void unknown_builtin(const ir::Node& call);

// The families, one file each (builtins/<family>.cpp).
void register_python_builtins(Registry& r);    // len, min, max, abs, round, print, range
void register_conversions(Registry& r);        // cast.*, int, float, bool, complex
void register_math(Registry& r);               // math.*
void register_bit_math(Registry& r);           // cuda.popc, brev, clz, ffs, fma, cbrt, selp
void register_libdevice_support(Registry& r);  // cuda.reinterpret.*, cuda.libm.*, cuda.like.*
void register_thread_indexing(Registry& r);    // cuda.threadIdx.x ..., laneid, grid, gridsize
void register_memory(Registry& r);             // cuda.shared/local/const/captured arrays
void register_atomics(Registry& r);            // cuda.atomic.*
void register_cache_hints(Registry& r);        // cuda.ldca ... ldcv, stcg ... stwt
void register_synchronization(Registry& r);    // barriers, fences, grid groups
void register_warp(Registry& r);               // shuffles, votes, match, activemask
void register_front_end_forms(Registry& r);    // vectors, ufunc loops, debug.*, extern.*

}  // namespace cudajit::builtins
