// A variable that holds values of different types in turn (`arr = arr.reshape(6)` then
// `arr = arr.reshape(3, 2)`; a loop's `t` rebound to an array) is several variables, as
// Numba's SSA form makes it: each assignment is a definition, each read is reached by some
// of them (reaching definitions over the structured IR), and definitions that reach a
// common read are one variable (a web). Typing then sees one type per web, not per name.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "cudajit/compiler/ir.hpp"

namespace cudajit::ir {

namespace {

// name -> the definitions that may have given its current value; empty = unreachable code.
struct State {
  bool reachable = true;
  std::map<std::string, std::set<int>> defs;

  void merge(const State& other) {
    if (!other.reachable) return;
    if (!reachable) {
      *this = other;
      return;
    }
    for (const auto& [name, ids] : other.defs) defs[name].insert(ids.begin(), ids.end());
  }
  bool operator==(const State& other) const {
    return reachable == other.reachable && defs == other.defs;
  }
};

class Webs {
 public:
  explicit Webs(Function& fn) : fn_(fn) {}

  void split() {
    State state;
    for (const std::string& param : fn_.params) state.defs[param] = {define(param, nullptr)};
    block(fn_.body, state);
    rename();
  }

 private:
  struct Loop {
    State breaks{false, {}}, continues{false, {}};
  };

  int define(const std::string& name, Node* node) {
    if (node != nullptr) {
      auto found = def_of_.find(node);
      if (found != def_of_.end()) return found->second;
    }
    const int id = static_cast<int>(def_names_.size());
    def_names_.push_back(name);
    parent_.push_back(id);
    if (node != nullptr) def_of_[node] = id;
    return id;
  }

  int find(int id) {
    while (parent_[id] != id) id = parent_[id] = parent_[parent_[id]];
    return id;
  }
  void unite(int a, int b) { parent_[find(a)] = find(b); }

  // A read of `name` at `node` with the state's definitions: they are one web.
  void use(Node& node, const State& state) {
    auto found = state.defs.find(node.text);
    if (found == state.defs.end() || found->second.empty()) return;
    // The definitions are united, so any one of them stands for the web (a read visited
    // again in a loop's later pass reaches a superset, united with it too).
    const int first = *found->second.begin();
    for (int id : found->second) unite(id, first);
    use_of_.emplace(&node, first);
  }

  void expr(Node& n, const State& state) {
    if (n.kind == NodeKind::Name) return use(n, state);
    for (auto& child : n.children) expr(*child, state);
  }

  // An assignment's target: names are defined; a subscript's or a field's parts are read.
  void assign_target(Node& target, State& state) {
    if (target.kind == NodeKind::Name) {
      state.defs[target.text] = {define(target.text, &target)};
    } else if (target.kind == NodeKind::Tuple) {
      for (auto& item : target.children) assign_target(*item, state);
    } else {
      for (auto& child : target.children) expr(*child, state);
    }
  }

  void block(std::vector<NodePtr>& statements, State& state) {
    for (auto& s : statements) statement(*s, state);
  }

  void statement(Node& s, State& state) {
    switch (s.kind) {
      case NodeKind::Assign:
        expr(*s.children[1], state);
        assign_target(*s.children[0], state);
        return;
      case NodeKind::AugAssign: {
        Node& target = *s.children[0];
        expr(*s.children[1], state);
        if (target.kind != NodeKind::Name) return expr(target, state);
        // One node is both read and written: the new value is the same variable.
        use(target, state);
        const int id = define(target.text, &target);
        for (int old : state.defs[target.text]) unite(old, id);
        state.defs[target.text] = {id};
        return;
      }
      case NodeKind::If: {
        expr(*s.children[0], state);
        State otherwise = state;
        block(s.children[1]->children, state);
        block(s.children[2]->children, otherwise);
        state.merge(otherwise);
        return;
      }
      case NodeKind::While:
      case NodeKind::For:
        return loop(s, state);
      case NodeKind::Break:
      case NodeKind::Continue:
        if (!loops_.empty())
          (s.kind == NodeKind::Break ? loops_.back().breaks : loops_.back().continues).merge(state);
        state = State{false, {}};
        return;
      case NodeKind::Return:
      case NodeKind::Raise:
        for (auto& child : s.children) expr(*child, state);
        state = State{false, {}};
        return;
      case NodeKind::Block:
        return block(s.children, state);
      default:  // ExprStmt, Assert, Pass
        for (auto& child : s.children) expr(*child, state);
        return;
    }
  }

  // `while COND: BODY` and `for i in range(START, STOP, STEP): BODY` (i assigned at the top
  // of each pass): the head is reached from before the loop and from the end of each pass,
  // so the body is walked until what reaches the head stops growing.
  void loop(Node& s, State& state) {
    const bool is_for = s.kind == NodeKind::For;
    if (is_for)
      for (size_t i = 1; i <= 3; ++i) expr(*s.children[i], state);
    State head = state;
    for (;;) {
      if (!is_for) expr(*s.children[0], head);
      loops_.emplace_back();
      State body = head;
      if (is_for) assign_target(*s.children[0], body);
      block(s.children[is_for ? 4 : 1]->children, body);
      body.merge(loops_.back().continues);
      State breaks = std::move(loops_.back().breaks);
      loops_.pop_back();
      State next = head;
      next.merge(body);
      if (next == head) {
        head.merge(breaks);
        state = std::move(head);
        return;
      }
      head = std::move(next);
    }
  }

  // Every web of a name but one gets a name of its own: `name#2`, `name#3` ... (source_name()
  // gives `name` back). The one that keeps the name: a parameter's, else the first assigned.
  void rename() {
    std::map<std::string, std::vector<int>> roots;  // name -> its webs, in definition order
    for (int id = 0; id < static_cast<int>(def_names_.size()); ++id) {
      auto& webs = roots[def_names_[id]];
      const int root = find(id);
      if (std::find(webs.begin(), webs.end(), root) == webs.end()) webs.push_back(root);
    }
    std::unordered_map<int, std::string> new_name;  // root -> name
    for (const auto& [name, webs] : roots) {
      for (size_t k = 1; k < webs.size(); ++k)
        new_name[webs[k]] = name + "#" + std::to_string(k + 1);
    }
    if (new_name.empty()) return;
    for (auto& [node, id] : def_of_) {
      auto found = new_name.find(find(id));
      if (found != new_name.end()) node->text = found->second;
    }
    for (auto& [node, id] : use_of_) {
      auto found = new_name.find(find(id));
      if (found != new_name.end()) node->text = found->second;
    }
  }

  Function& fn_;
  std::vector<std::string> def_names_;  // by definition id
  std::vector<int> parent_;             // union-find of the definitions: a root per web
  std::unordered_map<Node*, int> def_of_;
  std::unordered_map<Node*, int> use_of_;  // a read: one definition of its web
  std::vector<Loop> loops_;
};

}  // namespace

void split_variables(Function& fn) { Webs(fn).split(); }

std::string_view source_name(std::string_view name) { return name.substr(0, name.find('#')); }

}  // namespace cudajit::ir
