#include "variable_facts.hpp"

#include <algorithm>

#include "../builtins/registry.hpp"

namespace cudajit::lower {

using ir::Node;
using ir::NodeKind;

bool reads_index_registers(std::string_view call) {
  return builtins::has_fact(call, builtins::kIndexRegister);
}

namespace {

const Type* type_or_null(const typing::TypedFunction& f, const Node& n) {
  auto found = f.expr_types.find(&n);
  return found == f.expr_types.end() ? nullptr : &found->second;
}

bool is_integer_variable(const typing::TypedFunction& f, const std::string& name) {
  auto local = f.locals.find(name);
  return local != f.locals.end() && local->second.is_scalar() && is_integer(local->second.scalar());
}

}  // namespace

VariableFacts::VariableFacts(const typing::TypedFunction& f) : f_(f) {
  collect(f.function->body);
  // Optimistic: every integer variable (parameters aside) starts non-negative
  // and loses it when one of its assignments may not be; until nothing changes.
  for (const Assignment& a : assignments_) {
    if (is_integer_variable(f, a.name) && !is_parameter(a.name)) nonnegative_.insert(a.name);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (const Assignment& a : assignments_) {
      if (nonnegative_.contains(a.name) && !assigns_nonnegative(a)) {
        nonnegative_.erase(a.name);
        changed = true;
      }
    }
  }
}

bool VariableFacts::is_parameter(const std::string& name) const {
  const auto& params = f_.function->params;
  return std::find(params.begin(), params.end(), name) != params.end();
}

void VariableFacts::collect(const std::vector<ir::NodePtr>& statements) {
  for (const auto& s : statements) {
    switch (s->kind) {
      case NodeKind::Assign:
        collect_target(s->child(0), *s, &s->child(1), -1);
        break;
      case NodeKind::AugAssign:
      case NodeKind::For:
        collect_target(s->child(0), *s, nullptr, -1);
        break;
      case NodeKind::Block:
        collect(s->children);
        break;
      default:
        break;
    }
    // Nested statement blocks: if/else, loop bodies.
    for (const auto& c : s->children) {
      if (c->kind == NodeKind::Block) collect(c->children);
    }
  }
}

void VariableFacts::collect_target(const Node& target, const Node& statement, const Node* value,
                                   int element) {
  if (target.kind == NodeKind::Name) {
    assigned_.insert(target.text);
    assignments_.push_back({target.text, &statement, value, element});
  } else if (target.kind == NodeKind::Tuple) {
    // Unpacking: element i of the value; nested targets know only that it is
    // an item of the whole.
    for (size_t i = 0; i < target.size(); ++i) {
      collect_target(target.child(i), statement, element < 0 ? value : nullptr,
                     element < 0 ? static_cast<int>(i) : -1);
    }
  }
}

bool VariableFacts::assigns_nonnegative(const Assignment& a) const {
  const Node& s = *a.statement;
  if (s.kind == NodeKind::AugAssign) return nonnegative_binop(s.text, s.child(0), s.child(1));
  if (s.kind == NodeKind::For) {
    // range(start, stop, step): every value lies between start and stop.
    const Node& step = s.child(3);
    if (step.kind == NodeKind::Int)
      return nonnegative(step.int_value > 0 ? s.child(1) : s.child(2));
    const bool negative_literal =
        step.kind == NodeKind::Unary && step.text == "-" && step.child(0).kind == NodeKind::Int;
    return negative_literal && nonnegative(s.child(2));
  }
  if (a.value == nullptr) return false;
  return a.element < 0 ? nonnegative(*a.value) : nonnegative_item(*a.value, a.element);
}

bool VariableFacts::nonnegative(const Node& n) const {
  const Type* t = type_or_null(f_, n);
  if (t == nullptr || !t->is_scalar()) return false;
  if (t->scalar() == Scalar::Bool || (is_integer(t->scalar()) && !is_signed(t->scalar())))
    return true;
  if (!is_integer(t->scalar())) return false;
  auto is_nonnegative = [this](const ir::NodePtr& child) { return nonnegative(*child); };
  switch (n.kind) {
    case NodeKind::Int:
      return n.int_value >= 0;
    case NodeKind::Name:
      return nonnegative_.contains(n.text);
    case NodeKind::BinOp:
      return nonnegative_binop(n.text, n.child(0), n.child(1));
    case NodeKind::Unary:
      return n.text == "+" && nonnegative(n.child(0));
    case NodeKind::IfExp:
      return nonnegative(n.child(1)) && nonnegative(n.child(2));
    case NodeKind::And:
    case NodeKind::Or:
      return std::all_of(n.children.begin(), n.children.end(), is_nonnegative);
    case NodeKind::Attr:
      return n.text == "size" || n.text == "ndim";
    case NodeKind::Subscript: {
      auto constant = f_.constants.find(&n);
      return constant != f_.constants.end() &&
             nonnegative_item(n.child(0), static_cast<int>(constant->second));
    }
    case NodeKind::Call: {
      const std::string& name = n.text;
      if (reads_index_registers(name) || name == "len" || name == "abs") return true;
      if (name == "int") return nonnegative(n.child(0));
      if (n.size() < 2) return false;  // min(tuple), max(tuple): not followed
      if (name == "min") return std::all_of(n.children.begin(), n.children.end(), is_nonnegative);
      if (name == "max") return std::any_of(n.children.begin(), n.children.end(), is_nonnegative);
      return false;
    }
    default:
      return false;
  }
}

// Item `element` of a tuple-valued expression.
bool VariableFacts::nonnegative_item(const Node& tuple, int element) const {
  switch (tuple.kind) {
    case NodeKind::Tuple:
      return element < static_cast<int>(tuple.size()) && nonnegative(tuple.child(element));
    case NodeKind::Call:  // cuda.grid(n), cuda.gridsize(n)
      return reads_index_registers(tuple.text);
    case NodeKind::Attr:
      return tuple.text == "shape";
    default:
      return false;
  }
}

bool VariableFacts::nonnegative_binop(const std::string& op, const Node& left,
                                      const Node& right) const {
  if (op == "+" || op == "*" || op == "//" || op == "|" || op == "^" || op == "**")
    return nonnegative(left) && nonnegative(right);
  if (op == "%") return nonnegative(right);  // Python's %: the sign of the divisor
  if (op == "&") return nonnegative(left) || nonnegative(right);
  if (op == ">>") return nonnegative(left);
  return false;
}

}  // namespace cudajit::lower
