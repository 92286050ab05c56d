// The registry of builtins (compiler/src/builtins/registry.hpp): one row per IR name, found
// by its name or its family's prefix, with a typing rule and a lowering each.
#include <catch2/catch.hpp>
#include <set>
#include <stdexcept>
#include <string>

#include "../../compiler/src/builtins/registry.hpp"
#include "cudajit/compiler/builtins.hpp"

namespace builtins = cudajit::builtins;

namespace {

std::string found(std::string_view name) {
  const builtins::Builtin* row = builtins::registry().find(name);
  return row ? std::string(row->name) : "(none)";
}

}  // namespace

TEST_CASE("a builtin is found by its name, else by its family's prefix", "[builtins]") {
  CHECK(found("len") == "len");
  CHECK(found("math.sqrt") == "math.sqrt");
  CHECK(found("cuda.atomic.add") == "cuda.atomic.add");
  CHECK(found("cast.float32") == "cast.");
  CHECK(found("cuda.shared.array.record") == "cuda.shared.array.");
  CHECK(found("cuda.vector.float32x4") == "cuda.vector.");
  CHECK(found("debug.zerodiv.3") == "debug.");
  // Names no row has: typing's one error (unknown_builtin).
  CHECK(found("math.factorial") == "(none)");
  CHECK(found("cuda.syncgrid") == "(none)");
  CHECK(found("cuda.atomic.mul") == "(none)");
  CHECK(found("cuda.shared.array") == "(none)");  // the front end always names the dtype
  CHECK(found("input") == "(none)");
}

TEST_CASE("every builtin has a typing rule and, unless typing refuses it, a lowering",
          "[builtins]") {
  std::set<std::string> unlowered;
  for (const builtins::Builtin& row : builtins::registry().rows()) {
    CHECK(row.type != nullptr);
    if (row.lower == nullptr) unlowered.insert(std::string(row.name));
  }
  CHECK(unlowered == std::set<std::string>{"range", "cuda.cg.this_grid"});
}

TEST_CASE("a name registered twice is refused", "[builtins]") {
  builtins::Registry r;
  builtins::register_atomics(r);
  CHECK_THROWS_AS(builtins::register_atomics(r), std::logic_error);
  builtins::Registry casts;
  builtins::register_conversions(casts);
  CHECK_THROWS_AS(builtins::register_conversions(casts), std::logic_error);
}

TEST_CASE("builtin_names lists each row once, with the name intrinsics.py gives it", "[builtins]") {
  std::set<std::string> names;
  std::string shared_array, atomic_add, sqrt = "?";
  for (const cudajit::BuiltinName& b : cudajit::builtin_names()) {
    CHECK(names.insert(b.name).second);
    if (b.name == "cuda.shared.array.") shared_array = b.intrinsic;
    if (b.name == "cuda.atomic.add") atomic_add = b.intrinsic;
    if (b.name == "math.sqrt") sqrt = b.intrinsic;
  }
  CHECK(shared_array == "cuda.shared.array");
  CHECK(atomic_add == "cuda.atomic.add");
  CHECK(sqrt.empty());  // the front end makes math's names itself
}

TEST_CASE("rows carry what lowering knows of a call by its name", "[builtins]") {
  using builtins::has_fact;
  CHECK(has_fact("cuda.threadIdx.x", builtins::kIndexRegister));
  CHECK(has_fact("cuda.gridsize", builtins::kIndexRegister));
  CHECK_FALSE(has_fact("cuda.activemask", builtins::kIndexRegister));
  CHECK(has_fact("cuda.syncthreads_or", builtins::kBlockBarrier));
  CHECK(has_fact("cuda.cg.grid_sync", builtins::kBlockBarrier));
  CHECK_FALSE(has_fact("cuda.syncwarp", builtins::kBlockBarrier));
  CHECK_FALSE(has_fact("cuda.syncgrid", builtins::kBlockBarrier));  // no row
  size_t index_registers = 0, barriers = 0;
  for (const builtins::Builtin& row : builtins::registry().rows()) {
    index_registers += (row.facts & builtins::kIndexRegister) != 0;
    barriers += (row.facts & builtins::kBlockBarrier) != 0;
  }
  CHECK(index_registers == 16);  // 12 dim3 components, laneid, warpsize, grid, gridsize
  CHECK(barriers == 5);          // syncthreads and its three reductions, the grid's sync
}
