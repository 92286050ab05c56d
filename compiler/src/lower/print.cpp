// print() in kernels: one line per call, as Numba formats it: items separated
// by spaces, integers as %lld (%llu unsigned), floats as %f, booleans as
// True/False, tuples as Python writes them, string literals as written. The GPU prints through
// vprintf (its buffer reaches stdout when the host synchronises); the cpu device writes each line
// to stdout at once.
#include "lowering.hpp"

namespace cudajit::lower {

using ir::Node;

namespace {

std::string escape_percent(const std::string& text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '%') out += '%';
  }
  return out;
}

}  // namespace

void FunctionLowering::print(const Node& n) {
  std::string format;
  std::vector<llvm::Value*> args;
  for (size_t i = 0; i < n.size(); ++i) {
    if (i) format += ' ';
    const Node& item = n.child(i);
    if (item.kind == ir::NodeKind::Bytes) {
      format += escape_percent(item.text);
      continue;
    }
    print_value(expr(item), type_of(item), format, args);
  }
  format += '\n';
  m_.hooks.print(m_, b_, format, args);
}

// One value into the format: a tuple as Python writes it, "(1, (2.0, 3), (4,))".
void FunctionLowering::print_value(llvm::Value* v, const Type& t, std::string& format,
                                   std::vector<llvm::Value*>& args) {
  if (t.is_tuple()) {
    const std::vector<Type>& items = t.elements();
    format += '(';
    for (unsigned k = 0; k < items.size(); ++k) {
      if (k) format += ", ";
      print_value(b_.CreateExtractValue(v, {k}), items[k], format, args);
    }
    format += items.size() == 1 ? ",)" : ")";
    return;
  }
  Scalar s = t.scalar();
  if (s == Scalar::Bool) {
    format += "%s";
    args.push_back(m_.hooks.constant_string(m_, b_, "True", "False", v));
  } else if (is_float(s)) {
    format += "%f";
    args.push_back(b_.CreateFPExt(v, b_.getDoubleTy()));
  } else {
    format += is_signed(s) ? "%lld" : "%llu";
    args.push_back(is_signed(s) ? b_.CreateSExt(v, b_.getInt64Ty())
                                : b_.CreateZExt(v, b_.getInt64Ty()));
  }
}

}  // namespace cudajit::lower
