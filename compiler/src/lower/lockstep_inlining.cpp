// A device function whose loop threads leave at different iterations (an escape-time
// function: `for n in range(k): if x * x + y * y > 4: return n`, then `return k`), called where a
// kernel's lockstep loop may stand (its top level, the body of an `if` without else), is
// inlined into the kernel's IR on the cpu device, so that its loop runs in lockstep
// (lockstep_loops.cpp) rather than one thread after another. The call statement
// `T = f(args)` becomes (a call inside the statement's value, `T = 2 * f(args)`, of a function
// that writes nothing, alike, the statement then reading `.return`):
//
//     p = arg                 (each parameter; a literal or name argument is used in place
//                              of a parameter f never assigns, so a range it bounds stays
//                              the same in every thread)
//     <f's statements before its loop>
//     .done = False
//     <f's loop, each `return e` in it now `.return = e; .done = True; break`>
//     if not .done:
//         <f's statements after its loop>
//         .return = e_last
//     T = .return
//
// f's names take the suffix `#f.k` (source_name still gives the name f wrote). The kernel is
// typed again; the inlining stands only where every name has the type it had in f, the
// result f's return type, and the loop is a lockstep loop of the new kernel; otherwise the
// kernel compiles as written. Not with debug=True (its errors name the line and function).
#include <algorithm>

#include "../builtins/registry.hpp"
#include "fission.hpp"
#include "lowering.hpp"

namespace cudajit::lower {

using ir::Node;
using ir::NodeKind;
using ir::NodePtr;

namespace {

NodePtr make(NodeKind kind, SourceLoc loc, std::string text = {}) {
  auto n = std::make_unique<Node>(kind, loc);
  n->text = std::move(text);
  return n;
}

NodePtr make(NodeKind kind, SourceLoc loc, std::vector<NodePtr> children) {
  NodePtr n = make(kind, loc);
  n->children = std::move(children);
  return n;
}

template <typename... Nodes>
std::vector<NodePtr> vec(Nodes... nodes) {
  std::vector<NodePtr> v;
  (v.push_back(std::move(nodes)), ...);
  return v;
}

// `n` without its children.
NodePtr clone_shallow(const Node& n) {
  auto out = std::make_unique<Node>(n.kind, n.loc);
  out->text = n.text;
  out->int_value = n.int_value;
  out->float_value = n.float_value;
  out->imag_value = n.imag_value;
  out->ops = n.ops;
  return out;
}

NodePtr clone(const Node& n) {
  NodePtr out = clone_shallow(n);
  for (const auto& c : n.children) out->children.push_back(clone(*c));
  return out;
}

std::vector<NodePtr> clone_all(const std::vector<NodePtr>& stmts) {
  std::vector<NodePtr> out;
  for (const auto& s : stmts) out.push_back(clone(*s));
  return out;
}

bool mentions(const Node& n, NodeKind kind) {
  bool found = false;
  visit(n, [&](const Node& x) { found |= x.kind == kind; });
  return found;
}

bool is_loop(const Node& n) { return n.kind == NodeKind::For || n.kind == NodeKind::While; }

// The one loop of f's body whose returns an inlining turns into breaks, or null where f's body
// is not of the inlined shape: statements without loops or returns, the loop (no loop inside
// it, a value in each of its returns), statements without loops or returns, `return e`.
const Node* inlined_loop(const typing::TypedFunction& f) {
  const auto& body = f.function->body;
  if (body.empty() || body.back()->kind != NodeKind::Return || body.back()->size() != 1)
    return nullptr;
  const Node* loop = nullptr;
  for (size_t k = 0; k + 1 < body.size(); ++k) {
    const Node& s = *body[k];
    if (is_loop(s)) {
      if (loop != nullptr) return nullptr;
      loop = &s;
      bool ok = true;
      for (const auto& c : s.children.back()->children)
        visit(*c, [&](const Node& n) {
          ok &= !is_loop(n) && !(n.kind == NodeKind::Return && n.size() != 1);
        });
      if (!ok) return nullptr;
    } else if (mentions(s, NodeKind::For) || mentions(s, NodeKind::While) ||
               mentions(s, NodeKind::Return)) {
      return nullptr;
    }
  }
  bool ok = loop != nullptr;
  for (const auto& s : body)
    visit(*s, [&](const Node& n) {
      ok &= n.kind != NodeKind::Raise && n.kind != NodeKind::Assert && n.kind != NodeKind::Star;
    });
  return ok ? loop : nullptr;
}

// The value a kernel statement computes (`T = e`, `T += e`, `e`), or null.
const Node* statement_value(const Node& s) {
  if (s.kind == NodeKind::Assign || s.kind == NodeKind::AugAssign) return &s.child(1);
  return s.kind == NodeKind::ExprStmt ? &s.child(0) : nullptr;
}

// Device function `f` of the inlined shape (inlined_loop) that `call` calls, or null.
const typing::TypedFunction* inlined_callee(const typing::TypedFunction& kernel, const Node& call) {
  auto found = kernel.callees.find(&call);
  if (found == kernel.callees.end()) return nullptr;
  const typing::TypedFunction& f = *found->second;
  if (inlined_loop(f) == nullptr || call.size() != f.function->params.size() ||
      f.return_type.is_none())
    return nullptr;
  return &f;
}

// Whether `f` stores to no array, calls no device function and no CUDA function but the index
// registers: its body may run before the rest of the expression that calls it.
bool writes_nothing(const typing::TypedFunction& f) {
  bool ok = true;
  for (const auto& s : f.function->body)
    visit(*s, [&](const Node& n) {
      if (n.kind == NodeKind::Assign || n.kind == NodeKind::AugAssign)
        ok &= !mentions(n.child(0), NodeKind::Subscript);
      ok &= n.kind != NodeKind::CallFn;
      if (n.kind == NodeKind::Call && n.text.starts_with("cuda."))
        ok &= builtins::has_fact(n.text, builtins::kIndexRegister);
    });
  return ok;
}

// The calls kernel statement `s` makes that an inlining replaces, in the order they run: its
// whole value (`T = f(...)`), or calls inside it that run whenever it does (not under `and`,
// `or`, an `if` expression or a chained comparison) of functions that write nothing.
void inlined_calls(const typing::TypedFunction& kernel, const Node& e, bool whole,
                   std::vector<const Node*>& out) {
  if (e.kind == NodeKind::CallFn) {
    const typing::TypedFunction* f = inlined_callee(kernel, e);
    if (f != nullptr && (whole || writes_nothing(*f))) {
      out.push_back(&e);
      return;
    }
  }
  bool eager = e.kind == NodeKind::BinOp || e.kind == NodeKind::Unary || e.kind == NodeKind::Not ||
               e.kind == NodeKind::Call || e.kind == NodeKind::Tuple ||
               e.kind == NodeKind::Subscript || e.kind == NodeKind::Attr ||
               (e.kind == NodeKind::Compare && e.size() == 2);
  if (!eager) return;
  for (const auto& c : e.children) inlined_calls(kernel, *c, false, out);
}

std::vector<const Node*> inlined_calls(const typing::TypedFunction& kernel, const Node& s) {
  std::vector<const Node*> out;
  // `x += f(...)` reads x before f runs: f must write nothing there too.
  if (const Node* value = statement_value(s))
    inlined_calls(kernel, *value, s.kind != NodeKind::AugAssign, out);
  return out;
}

class Inliner {
 public:
  Inliner(const typing::TypedFunction& kernel, InlinedCalls& out) : kernel_(kernel), out_(out) {}

  // `stmts` with each inlinable call statement expanded (and in an `if` without else's body
  // where `top`).
  std::vector<NodePtr> rewrite(const std::vector<NodePtr>& stmts, bool top) {
    std::vector<NodePtr> result;
    for (const auto& s : stmts) {
      if (top && s->kind == NodeKind::If && s->child(2).children.empty()) {
        NodePtr copy = make(NodeKind::If, s->loc);
        copy->children.push_back(clone(s->child(0)));
        copy->children.push_back(
            make(NodeKind::Block, s->child(1).loc, rewrite(s->child(1).children, false)));
        copy->children.push_back(clone(s->child(2)));
        result.push_back(std::move(copy));
        continue;
      }
      if (!expand(*s, result)) result.push_back(clone(*s));
    }
    return result;
  }

 private:
  // `s` as the inlined bodies of the calls it makes (inlined_calls), then `s` reading their
  // results; false where it makes none.
  bool expand(const Node& s, std::vector<NodePtr>& result) {
    const std::vector<const Node*> calls = inlined_calls(kernel_, s);
    if (calls.empty()) return false;
    std::unordered_map<const Node*, std::string> results;
    for (const Node* call : calls) results[call] = inline_call(*call, s.loc, result);
    if (s.kind == NodeKind::ExprStmt && calls[0] == &s.child(0)) return true;  // f(...) alone
    result.push_back(with_results(s, results));
    return true;
  }

  // f's statements for `call`, appended to `result`; the name that holds its result.
  std::string inline_call(const Node& call, SourceLoc at, std::vector<NodePtr>& result) {
    const typing::TypedFunction& f = *kernel_.callees.at(&call);
    const Node* loop = inlined_loop(f);
    InlinedCalls::Call record{&f, "#" + f.function->name + "." + std::to_string(++count_), nullptr};
    suffix_ = record.suffix;
    locals_ = &f.locals;
    substitutes_.clear();
    std::unordered_set<std::string> assigned;
    for (const auto& b : f.function->body) assigned_in(*b, assigned);
    for (size_t i = 0; i < call.size(); ++i) {
      const std::string& p = f.function->params[i];
      const Node& arg = call.child(i);
      bool simple = arg.kind == NodeKind::Name || arg.kind == NodeKind::Int ||
                    arg.kind == NodeKind::Float || arg.kind == NodeKind::Bool;
      if (simple && !assigned.count(p)) {
        substitutes_[p] = &arg;
        continue;
      }
      result.push_back(make(NodeKind::Assign, at, vec(name(p, at), clone(arg))));
    }
    const std::string done = ".done" + suffix_, ret = ".return" + suffix_;
    const auto& body = f.function->body;
    size_t k = 0;
    for (; body[k].get() != loop; ++k) result.push_back(renamed(*body[k]));
    result.push_back(
        make(NodeKind::Assign, at, vec(make(NodeKind::Name, at, done), flag(false, at))));
    NodePtr new_loop = returns_as_breaks(*loop, done, ret);
    record.loop = new_loop.get();
    result.push_back(std::move(new_loop));
    std::vector<NodePtr> after;
    for (++k; k + 1 < body.size(); ++k) after.push_back(renamed(*body[k]));
    after.push_back(make(NodeKind::Assign, body.back()->loc,
                         vec(make(NodeKind::Name, at, ret), renamed(body.back()->child(0)))));
    NodePtr not_done = make(NodeKind::Not, at, vec(make(NodeKind::Name, at, done)));
    result.push_back(make(NodeKind::If, at,
                          vec(std::move(not_done), make(NodeKind::Block, at, std::move(after)),
                              make(NodeKind::Block, at))));
    out_.calls.push_back(std::move(record));
    return ret;
  }

  // A copy of the kernel's node `n` with each inlined call replaced by its result's name.
  static NodePtr with_results(const Node& n,
                              const std::unordered_map<const Node*, std::string>& results) {
    auto found = results.find(&n);
    if (found != results.end()) return make(NodeKind::Name, n.loc, found->second);
    NodePtr out = clone_shallow(n);
    for (const auto& c : n.children) out->children.push_back(with_results(*c, results));
    return out;
  }

  static NodePtr flag(bool value, SourceLoc at) {
    NodePtr n = make(NodeKind::Bool, at);
    n->int_value = value ? 1 : 0;
    return n;
  }

  NodePtr name(const std::string& n, SourceLoc at) const {
    return make(NodeKind::Name, at, n + suffix_);
  }

  // A copy of f's node `n` with f's names renamed and substituted parameters replaced.
  NodePtr renamed(const Node& n) const {
    if (n.kind == NodeKind::Name) {
      auto sub = substitutes_.find(n.text);
      if (sub != substitutes_.end()) return clone(*sub->second);
      if (locals_->count(n.text)) return name(n.text, n.loc);
    }
    NodePtr out = clone_shallow(n);
    for (const auto& c : n.children) out->children.push_back(renamed(*c));
    return out;
  }

  // A copy of f's statement `s` (the loop, a statement in it), renamed, the returns in its
  // blocks now `.return = e; .done = True; break` (the loop holds no loop: each breaks it).
  NodePtr returns_as_breaks(const Node& s, const std::string& done, const std::string& ret) const {
    NodePtr out = clone_shallow(s);
    for (const auto& c : s.children) {
      if (c->kind != NodeKind::Block) {
        out->children.push_back(renamed(*c));
        continue;
      }
      NodePtr block = clone_shallow(*c);
      for (const auto& b : c->children) {
        if (b->kind != NodeKind::Return) {
          block->children.push_back(returns_as_breaks(*b, done, ret));
          continue;
        }
        const SourceLoc at = b->loc;
        block->children.push_back(
            make(NodeKind::Assign, at, vec(make(NodeKind::Name, at, ret), renamed(b->child(0)))));
        block->children.push_back(
            make(NodeKind::Assign, at, vec(make(NodeKind::Name, at, done), flag(true, at))));
        block->children.push_back(make(NodeKind::Break, at));
      }
      out->children.push_back(std::move(block));
    }
    return out;
  }

  const typing::TypedFunction& kernel_;
  InlinedCalls& out_;
  int count_ = 0;
  std::string suffix_;
  const std::map<std::string, Type>* locals_ = nullptr;
  std::unordered_map<std::string, const Node*> substitutes_;
};

}  // namespace

std::optional<InlinedCalls> inline_lockstep_calls(const ir::Module& module,
                                                  const typing::TypedProgram& typed) {
  const typing::TypedFunction& kernel = *typed.entry;
  if (kernel.locals.count(kExceptionRecord)) return std::nullopt;  // debug=True
  InlinedCalls out;
  std::vector<NodePtr> body = Inliner(kernel, out).rewrite(kernel.function->body, true);
  if (out.calls.empty()) return std::nullopt;
  out.module.file = module.file;
  for (const ir::Function& f : module.functions) {
    ir::Function& copy = out.module.functions.emplace_back();
    copy.name = f.name;
    copy.file = f.file;
    copy.loc = f.loc;
    copy.params = f.params;
    copy.inline_mode = f.inline_mode;
    copy.body = &f == kernel.function ? std::move(body) : clone_all(f.body);
  }
  return out;
}

bool inlined_in_lockstep(const InlinedCalls& inlined, const typing::TypedProgram& retyped) {
  const typing::TypedFunction& kernel = *retyped.entry;
  const std::unordered_set<const Node*> lockstep = lockstep_statements(kernel);
  for (const InlinedCalls::Call& call : inlined.calls) {
    if (!lockstep.count(call.loop)) return false;
    auto result = kernel.locals.find(".return" + call.suffix);
    if (result == kernel.locals.end() || !(result->second == call.callee->return_type))
      return false;
    for (const auto& [name, type] : call.callee->locals) {
      auto renamed = kernel.locals.find(name + call.suffix);
      bool substituted =
          renamed == kernel.locals.end() &&
          std::find(call.callee->function->params.begin(), call.callee->function->params.end(),
                    name) != call.callee->function->params.end();
      if (!substituted && (renamed == kernel.locals.end() || !(renamed->second == type)))
        return false;
    }
  }
  return true;
}

}  // namespace cudajit::lower
