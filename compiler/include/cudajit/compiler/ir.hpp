// Kernel IR: an untyped, Python-shaped tree with source locations. Its text
// form is specified in docs/dev/kernel-ir.md; parse_module reads it.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cudajit/compiler/errors.hpp"

namespace cudajit::ir {

enum class NodeKind {
  // statements
  Assign,
  AugAssign,
  If,
  While,
  For,
  Break,
  Continue,
  Pass,
  Return,
  ExprStmt,
  Raise,   // `raise E(...)`: int_value is the exception's code in the kernel's table
  Assert,  // `assert COND, msg` (debug only): int_value the code, child(0) the condition
  Block,
  // expressions
  Int,
  Float,
  Bool,
  Complex,
  Name,
  BinOp,
  Unary,
  Not,
  And,
  Or,
  Compare,
  IfExp,
  Tuple,
  Subscript,
  Attr,
  Method,
  Call,
  CallFn,
  Bytes,  // raw data (a frozen array's contents), in `text`; written as hex
  Star,   // *TUPLE among a call's arguments (child 0): the tuple's items, as arguments
};

// One node of the tree. Every node has a kind, a location and children; a few
// carry a payload: `text` (operator, name, builtin, attribute), `int_value`,
// `float_value` (and `imag_value` for complex literals).
struct Node {
  NodeKind kind;
  SourceLoc loc;
  std::string text;
  int64_t int_value = 0;
  double float_value = 0;
  double imag_value = 0;
  std::vector<std::unique_ptr<Node>> children;
  // Compare only: the operators between children ("<", "<=", ...).
  std::vector<std::string> ops;

  Node(NodeKind k, SourceLoc l) : kind(k), loc(l) {}
  const Node& child(size_t i) const { return *children.at(i); }
  size_t size() const { return children.size(); }
};

using NodePtr = std::unique_ptr<Node>;

// A slice in a subscript, `a[start:stop:step]`: the call `slice.PPP`, one P per part, 1 where
// the part is given (its value a child, in order) and 0 where it is left out.
inline bool is_slice(const Node& n) {
  return n.kind == NodeKind::Call && n.text.size() == 9 && n.text.starts_with("slice.");
}
inline std::string_view slice_parts(const Node& n) { return std::string_view(n.text).substr(6); }
// A str or bytes constant stored into a record's 'U' or 'S' field, `r.f = "abc"`, or into an
// element of such an array, `a[i] = "abc"`: the call
// `chars.unichr` (or `chars.char`) of (bytes@ ...) holding the text as NumPy stores it (UTF-32
// or the bytes); only ever the value of an assignment.
inline bool is_character_constant(const Node& n) {
  return n.kind == NodeKind::Call && (n.text == "chars.unichr" || n.text == "chars.char");
}
// A subscript's index as its parts: a tuple's items, or the index itself.
inline std::vector<const Node*> index_parts(const Node& index) {
  std::vector<const Node*> parts;
  if (index.kind != NodeKind::Tuple) return {&index};
  for (const auto& c : index.children) parts.push_back(c.get());
  return parts;
}
inline bool has_slice(const Node& index) {
  for (const Node* part : index_parts(index))
    if (is_slice(*part)) return true;
  return false;
}

struct Function {
  std::string name;
  std::string file;  // empty: the module's file
  SourceLoc loc;
  std::vector<std::string> params;
  // Numba's inlining of a device function: "always" (jit(inline="always")) inlines every
  // call after lowering, so the kernel's LLVM IR has none; "force" (forceinline=True) marks
  // the LLVM function alwaysinline; empty: LLVM's optimiser decides. IR: (inline always).
  std::string inline_mode;
  std::vector<NodePtr> body;  // statements
};

struct Module {
  std::string file;
  std::vector<Function> functions;  // functions[0] is the entry point

  const Function* find(std::string_view name) const;
};

// Reads the text form. Throws IrSyntaxError with the offset on malformed text.
Module parse_module(std::string_view text);

// Gives each web of a variable (the assignments that reach common reads) a name of its own:
// `x` for the first, `x#2`, `x#3` ... for the others, so that a name rebound to a value of
// another type is another variable, as in Numba's SSA form (variable_webs.cpp).
void split_variables(Function& fn);
// The name the source spelled: `x` for `x#2`.
std::string_view source_name(std::string_view name);

// Writes the text form back (normalised spacing), for dumps and tests.
std::string print_module(const Module& module);

std::string_view kind_name(NodeKind kind);

}  // namespace cudajit::ir
