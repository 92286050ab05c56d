// What lowering knows of a function's variables before it lowers the body:
// which are ever assigned (the others are their parameter's value, with no
// stack slot), and which integer expressions can never be negative (an index
// that cannot be negative needs no wrap-around: a[i] with i < 0 is a[i + n]).
//
// Both are flow-insensitive: a variable is non-negative when every value
// assigned to it anywhere in the function is. An index that overflowed int64
// is out of bounds with or without the wrap, so sums and products of
// non-negative values count as non-negative.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cudajit/compiler/typed.hpp"

namespace cudajit::lower {

// `cuda.threadIdx.x` ... `cuda.warpsize`, `cuda.grid(n)`, `cuda.gridsize(n)`
// (a Call node's name): reads of the launch's index registers, never negative
// and free of effects (builtins::kIndexRegister in their rows).
bool reads_index_registers(std::string_view call);

class VariableFacts {
 public:
  explicit VariableFacts(const typing::TypedFunction& f);

  // Whether variable `name` lives in a stack slot: all do but the parameters
  // the body never assigns, which are their arguments' values.
  bool has_slot(const std::string& name) const {
    return assigned_.contains(name) || !is_parameter(name);
  }
  // `expr` (of integer or bool type) is never negative.
  bool nonnegative(const ir::Node& expr) const;

 private:
  // One assignment to a variable: `name = value` (or its `element`-th item
  // when unpacking), `name op= value`, or a for loop's target.
  struct Assignment {
    std::string name;
    const ir::Node* statement;
    const ir::Node* value;
    int element;  // -1: the whole value
  };

  bool is_parameter(const std::string& name) const;
  void collect(const std::vector<ir::NodePtr>& statements);
  void collect_target(const ir::Node& target, const ir::Node& statement, const ir::Node* value,
                      int element);
  bool assigns_nonnegative(const Assignment& a) const;
  bool nonnegative_item(const ir::Node& tuple, int element) const;
  bool nonnegative_binop(const std::string& op, const ir::Node& left, const ir::Node& right) const;

  const typing::TypedFunction& f_;
  std::vector<Assignment> assignments_;
  std::set<std::string> assigned_;
  std::set<std::string> nonnegative_;  // integer variables (parameters aside)
};

}  // namespace cudajit::lower
