// A device function whose loop threads leave at different iterations (an escape-time
// function: `for n in range(k): if x * x + y * y > 4: return n`, then `return k`), called where a
// kernel's lockstep loop may stand (its top level, the body of an `if` without else), is
// inlined into the kernel's IR on the cpu device, so that its loop runs in lockstep
// (lockstep_loops.cpp) rather than one thread after another. The call statement
// `T = f(args)` becomes:
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

// The call a kernel statement makes as all it does (`T = f(...)`, `f(...)`), or null.
const Node* whole_call(const Node& s) {
  const Node* e = s.kind == NodeKind::Assign     ? &s.child(1)
                  : s.kind == NodeKind::ExprStmt ? &s.child(0)
                                                 : nullptr;
  return e != nullptr && e->kind == NodeKind::CallFn ? e : nullptr;
}

// The device function kernel statement `s` calls as all it does, where it is of the inlined
// shape (inlined_loop), or null.
const typing::TypedFunction* inlined_callee(const typing::TypedFunction& kernel, const Node& s) {
  const Node* call = whole_call(s);
  if (call == nullptr) return nullptr;
  auto found = kernel.callees.find(call);
  if (found == kernel.callees.end()) return nullptr;
  const typing::TypedFunction& f = *found->second;
  if (inlined_loop(f) == nullptr || call->size() != f.function->params.size() ||
      f.return_type.is_none())
    return nullptr;
  return &f;
}

// Whether `stmts` (the kernel's body where `top`) call one where an inlining may stand.
bool calls_inlined(const typing::TypedFunction& kernel, const std::vector<NodePtr>& stmts,
                   bool top) {
  for (const auto& s : stmts) {
    if (top && s->kind == NodeKind::If && s->child(2).children.empty() &&
        calls_inlined(kernel, s->child(1).children, false))
      return true;
    if (inlined_callee(kernel, *s) != nullptr) return true;
  }
  return false;
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
  bool expand(const Node& s, std::vector<NodePtr>& result) {
    const typing::TypedFunction* inlined = inlined_callee(kernel_, s);
    if (inlined == nullptr) return false;
    const typing::TypedFunction& f = *inlined;
    const Node* call = whole_call(s);
    const Node* loop = inlined_loop(f);
    InlinedCalls::Call record{&f, "#" + f.function->name + "." + std::to_string(++count_), nullptr};
    suffix_ = record.suffix;
    locals_ = &f.locals;
    substitutes_.clear();
    const SourceLoc at = s.loc;
    std::unordered_set<std::string> assigned;
    for (const auto& b : f.function->body) assigned_in(*b, assigned);
    for (size_t i = 0; i < call->size(); ++i) {
      const std::string& p = f.function->params[i];
      const Node& arg = call->child(i);
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
    NodePtr new_loop = renamed_loop(*loop, done, ret);
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
    if (s.kind == NodeKind::Assign)
      result.push_back(
          make(NodeKind::Assign, at, vec(clone(s.child(0)), make(NodeKind::Name, at, ret))));
    out_.calls.push_back(std::move(record));
    return true;
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

  // The loop, its returns now `.return = e; .done = True; break` (no loop inside it).
  NodePtr renamed_loop(const Node& loop, const std::string& done, const std::string& ret) const {
    NodePtr out = clone_shallow(loop);
    for (const auto& c : loop.children)
      out->children.push_back(c->kind == NodeKind::Block ? returns_as_breaks(*c, done, ret)
                                                         : renamed(*c));
    return out;
  }

  NodePtr returns_as_breaks(const Node& block, const std::string& done,
                            const std::string& ret) const {
    NodePtr out = clone_shallow(block);
    for (const auto& s : block.children) {
      if (s->kind == NodeKind::Return) {
        const SourceLoc at = s->loc;
        out->children.push_back(
            make(NodeKind::Assign, at, vec(make(NodeKind::Name, at, ret), renamed(s->child(0)))));
        out->children.push_back(
            make(NodeKind::Assign, at, vec(make(NodeKind::Name, at, done), flag(true, at))));
        out->children.push_back(make(NodeKind::Break, at));
        continue;
      }
      NodePtr copy = clone_shallow(*s);
      for (const auto& c : s->children)
        copy->children.push_back(c->kind == NodeKind::Block ? returns_as_breaks(*c, done, ret)
                                                            : renamed(*c));
      out->children.push_back(std::move(copy));
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
  if (kernel.locals.count(kExceptionRecord) || !calls_inlined(kernel, kernel.function->body, true))
    return std::nullopt;  // debug=True, or nothing to inline
  InlinedCalls out;
  out.module.file = module.file;
  for (const ir::Function& f : module.functions) {
    ir::Function& copy = out.module.functions.emplace_back();
    copy.name = f.name;
    copy.file = f.file;
    copy.loc = f.loc;
    copy.params = f.params;
    copy.inline_mode = f.inline_mode;
    if (&f != kernel.function) copy.body = clone_all(f.body);
  }
  Inliner inliner(kernel, out);
  auto entry = std::find_if(module.functions.begin(), module.functions.end(),
                            [&](const ir::Function& f) { return &f == kernel.function; });
  if (entry == module.functions.end()) return std::nullopt;
  out.module.functions[size_t(entry - module.functions.begin())].body =
      inliner.rewrite(kernel.function->body, true);
  if (out.calls.empty()) return std::nullopt;
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
