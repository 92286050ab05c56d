// Reads the kernel IR text form (docs/dev/kernel-ir.md) into ir::Module.
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <string>
#include <unordered_map>

#include "cudajit/compiler/ir.hpp"

namespace cudajit::ir {

namespace {

const std::unordered_map<std::string_view, NodeKind>& heads() {
  static const std::unordered_map<std::string_view, NodeKind> table = {
      {"assign", NodeKind::Assign},
      {"augassign", NodeKind::AugAssign},
      {"if", NodeKind::If},
      {"while", NodeKind::While},
      {"for", NodeKind::For},
      {"break", NodeKind::Break},
      {"continue", NodeKind::Continue},
      {"pass", NodeKind::Pass},
      {"return", NodeKind::Return},
      {"expr", NodeKind::ExprStmt},
      {"block", NodeKind::Block},
      {"raise", NodeKind::Raise},
      {"assert", NodeKind::Assert},
      {"int", NodeKind::Int},
      {"float", NodeKind::Float},
      {"bool", NodeKind::Bool},
      {"complex", NodeKind::Complex},
      {"name", NodeKind::Name},
      {"binop", NodeKind::BinOp},
      {"unary", NodeKind::Unary},
      {"not", NodeKind::Not},
      {"and", NodeKind::And},
      {"or", NodeKind::Or},
      {"compare", NodeKind::Compare},
      {"ifexp", NodeKind::IfExp},
      {"tuple", NodeKind::Tuple},
      {"subscript", NodeKind::Subscript},
      {"attr", NodeKind::Attr},
      {"method", NodeKind::Method},
      {"call", NodeKind::Call},
      {"callfn", NodeKind::CallFn},
      {"bytes", NodeKind::Bytes},
      {"star", NodeKind::Star},
  };
  return table;
}

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  Module module() {
    expect('(');
    Module m;
    if (symbol() != "module") fail("expected 'module'");
    m.file = string();
    while (peek() == '(') m.functions.push_back(function());
    expect(')');
    skip_space();
    if (pos_ != text_.size()) fail("text after the end of the module");
    if (m.functions.empty()) fail("a module needs at least one function");
    return m;
  }

 private:
  Function function() {
    expect('(');
    auto [head, loc] = head_and_loc();
    if (head != "func") fail("expected 'func', got '" + head + "'");
    Function f;
    f.loc = loc;
    f.name = symbol();
    if (peek() == '"') f.file = string();
    expect('(');
    if (symbol() != "params") fail("expected 'params'");
    while (peek() != ')') f.params.push_back(symbol());
    expect(')');
    if (peek() == '(' && text_.compare(pos_, 8, "(inline ") == 0) {
      expect('(');
      symbol();
      f.inline_mode = symbol();
      if (f.inline_mode != "always" && f.inline_mode != "force")
        fail("expected (inline always) or (inline force), got '" + f.inline_mode + "'");
      expect(')');
    }
    while (peek() == '(') f.body.push_back(node());
    expect(')');
    return f;
  }

  NodePtr node() {
    expect('(');
    auto [head, loc] = head_and_loc();
    auto it = heads().find(head);
    if (it == heads().end()) fail("unknown node '" + head + "'");
    auto n = std::make_unique<Node>(it->second, loc);
    switch (n->kind) {
      case NodeKind::Int:
      case NodeKind::Bool:
      case NodeKind::Raise:
      case NodeKind::Assert:
        n->int_value = integer();
        break;
      case NodeKind::Float:
        n->float_value = number();
        break;
      case NodeKind::Complex:
        n->float_value = number();
        n->imag_value = number();
        break;
      case NodeKind::Name:
      case NodeKind::Call:
      case NodeKind::CallFn:
      case NodeKind::BinOp:
      case NodeKind::Unary:
      case NodeKind::AugAssign:
        n->text = symbol();
        break;
      case NodeKind::Bytes:
        n->text = from_hex(string());
        break;
      default:
        break;
    }
    // Attr and Method name their attribute after the object.
    bool named_after_first = n->kind == NodeKind::Attr || n->kind == NodeKind::Method;
    while (peek() != ')') {
      if (peek() == '(') {
        n->children.push_back(node());
        if (named_after_first && n->children.size() == 1) n->text = symbol();
      } else if (n->kind == NodeKind::Compare) {
        n->ops.push_back(symbol());
      } else {
        fail("unexpected atom in '" + head + "'");
      }
    }
    expect(')');
    if (n->kind == NodeKind::Compare && n->ops.size() + 1 != n->children.size())
      fail("a compare needs one operator between each pair of operands");
    return n;
  }

  std::pair<std::string, SourceLoc> head_and_loc() {
    std::string word = symbol();
    SourceLoc loc;
    size_t at = word.find('@');
    if (at == std::string::npos) return {word, loc};
    std::string_view rest = std::string_view(word).substr(at + 1);
    size_t colon = rest.find(':');
    if (colon == std::string_view::npos) fail("a location is written LINE:COL");
    auto parse_int = [&](std::string_view s) {
      int v = 0;
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec != std::errc() || p != s.data() + s.size()) fail("bad location '" + word + "'");
      return v;
    };
    loc.line = parse_int(rest.substr(0, colon));
    loc.col = parse_int(rest.substr(colon + 1));
    return {word.substr(0, at), loc};
  }

  std::string symbol() {
    skip_space();
    size_t start = pos_;
    while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_])) &&
           text_[pos_] != '(' && text_[pos_] != ')' && text_[pos_] != '"')
      ++pos_;
    if (start == pos_) fail("expected a symbol");
    return std::string(text_.substr(start, pos_ - start));
  }

  int64_t integer() {
    std::string s = symbol();
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) fail("bad integer '" + s + "'");
    return v;
  }

  double number() {
    std::string s = symbol();
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size()) fail("bad number '" + s + "'");
    return v;
  }

  std::string from_hex(const std::string& hex) {
    if (hex.size() % 2 != 0) fail("bytes are written as an even number of hex digits");
    auto digit = [&](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      fail(std::string("bad hex digit '") + c + "' in bytes");
    };
    std::string out(hex.size() / 2, '\0');
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = static_cast<char>(digit(hex[2 * i]) * 16 + digit(hex[2 * i + 1]));
    return out;
  }

  std::string string() {
    expect('"');
    std::string s;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      s += text_[pos_++];
    }
    if (pos_ >= text_.size()) fail("unterminated string");
    ++pos_;
    return s;
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  char peek() {
    skip_space();
    if (pos_ >= text_.size()) fail("unexpected end of text");
    return text_[pos_];
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  [[noreturn]] void fail(const std::string& why) {
    throw IrSyntaxError("kernel IR, offset " + std::to_string(pos_) + ": " + why);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

Module parse_module(std::string_view text) { return Reader(text).module(); }

const Function* Module::find(std::string_view name) const {
  for (const Function& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

std::string_view kind_name(NodeKind kind) {
  for (const auto& [name, k] : heads())
    if (k == kind) return name;
  return "?";
}

}  // namespace cudajit::ir
