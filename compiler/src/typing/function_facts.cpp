// What a function's statements tell before any typing: whether control may fall off its
// end, whether it returns a value anywhere; and its name as the source spells it.
#include <algorithm>
#include <functional>

#include "typer.hpp"

namespace cudajit::typing {

using ir::Node;
using ir::NodeKind;

namespace {

// True when `stmts` hold a break of the loop they are the body of (breaks of
// nested loops do not count).
bool breaks_out(const std::vector<ir::NodePtr>& stmts) {
  for (const ir::NodePtr& s : stmts) {
    if (s->kind == NodeKind::Break) return true;
    if (s->kind == NodeKind::If &&
        (breaks_out(s->child(1).children) || breaks_out(s->child(2).children)))
      return true;
    if (s->kind == NodeKind::Block && breaks_out(s->children)) return true;
  }
  return false;
}

bool stmt_always_returns(const Node& s) {
  switch (s.kind) {
    case NodeKind::Return:
    case NodeKind::Raise:  // the thread stops
      return true;
    case NodeKind::If:
      return always_returns(s.child(1).children) && always_returns(s.child(2).children);
    case NodeKind::While: {
      // `while True:` only ends through return (a break would make it fall through).
      const Node& c = s.child(0);
      bool forever = (c.kind == NodeKind::Bool || c.kind == NodeKind::Int) && c.int_value != 0;
      return forever && !breaks_out(s.child(1).children);
    }
    default:
      return false;
  }
}

}  // namespace

bool always_returns(const std::vector<ir::NodePtr>& stmts) {
  return std::any_of(stmts.begin(), stmts.end(),
                     [](const ir::NodePtr& s) { return stmt_always_returns(*s); });
}

// A function's name as its Python source spells it: the IR's name less the front end's
// numbering and enclosing functions ("scale_3" is "scale", "test__locals__inner_4" "inner").
std::string python_name(const std::string& ir_name) {
  std::string name = ir_name;
  const size_t cut = name.find_last_of('_');
  if (cut != std::string::npos && cut + 1 < name.size() &&
      name.find_first_not_of("0123456789", cut + 1) == std::string::npos)
    name.resize(cut);
  const std::string locals = "__locals__";
  if (const size_t at = name.rfind(locals); at != std::string::npos)
    name = name.substr(at + locals.size());
  return name;
}

bool returns_a_value(const std::vector<ir::NodePtr>& stmts) {
  std::function<bool(const Node&)> has = [&](const Node& n) {
    if (n.kind == NodeKind::Return && n.size() == 1) return true;
    return std::any_of(n.children.begin(), n.children.end(),
                       [&](const ir::NodePtr& c) { return c && has(*c); });
  };
  return std::any_of(stmts.begin(), stmts.end(), [&](const ir::NodePtr& s) { return has(*s); });
}

}  // namespace cudajit::typing
