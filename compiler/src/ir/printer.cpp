// Writes ir::Module back to its text form, one statement a line, for dumps.
#include <cstdio>
#include <string>

#include "cudajit/compiler/ir.hpp"

namespace cudajit::ir {

namespace {

std::string format_double(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // keep it a float atom
  return s;
}

bool is_statement(NodeKind k) { return k <= NodeKind::Block; }

std::string escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

void print_node(const Node& n, int depth, std::string& out) {
  out += '(';
  out += kind_name(n.kind);
  out += '@' + std::to_string(n.loc.line) + ':' + std::to_string(n.loc.col);
  switch (n.kind) {
    case NodeKind::Int:
    case NodeKind::Bool:
    case NodeKind::Raise:
    case NodeKind::Assert:
      out += ' ' + std::to_string(n.int_value);
      break;
    case NodeKind::Float:
      out += ' ' + format_double(n.float_value);
      break;
    case NodeKind::Complex:
      out += ' ' + format_double(n.float_value) + ' ' + format_double(n.imag_value);
      break;
    case NodeKind::Name:
    case NodeKind::Call:
    case NodeKind::CallFn:
    case NodeKind::BinOp:
    case NodeKind::Unary:
    case NodeKind::AugAssign:
      out += ' ' + n.text;
      break;
    case NodeKind::Bytes: {
      static const char* kHex = "0123456789abcdef";
      out += " \"";
      for (unsigned char c : n.text) out += {kHex[c >> 4], kHex[c & 15]};
      out += '"';
      break;
    }
    default:
      break;
  }
  for (size_t i = 0; i < n.children.size(); ++i) {
    const Node& c = *n.children[i];
    if (n.kind == NodeKind::Compare && i > 0) out += ' ' + n.ops[i - 1];
    if (is_statement(c.kind)) {
      out += '\n' + std::string(2 * (depth + 1), ' ');
      print_node(c, depth + 1, out);
    } else {
      out += ' ';
      print_node(c, depth, out);
    }
    if ((n.kind == NodeKind::Attr || n.kind == NodeKind::Method) && i == 0) out += ' ' + n.text;
  }
  out += ')';
}

}  // namespace

std::string print_module(const Module& module) {
  std::string out = "(module \"" + escaped(module.file) + '"';
  for (const Function& f : module.functions) {
    out += "\n (func@" + std::to_string(f.loc.line) + ':' + std::to_string(f.loc.col) + ' ' +
           f.name + (f.file.empty() ? "" : " \"" + escaped(f.file) + "\"") + " (params";
    for (const std::string& p : f.params) out += ' ' + p;
    out += ')';
    if (!f.inline_mode.empty()) out += " (inline " + f.inline_mode + ')';
    for (const NodePtr& s : f.body) {
      out += "\n  ";
      print_node(*s, 1, out);
    }
    out += ')';
  }
  return out + ")\n";
}

}  // namespace cudajit::ir
