// The kernel IR text form (docs/dev/kernel-ir.md): parse_module and print_module.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <string>

#include "cudajit/compiler/errors.hpp"
#include "cudajit/compiler/ir.hpp"
#include "samples.hpp"

using cudajit::IrSyntaxError;
using namespace cudajit::ir;
using Catch::Matchers::Contains;

namespace {

// Bit-for-bit equality of doubles (so -0.0 != 0.0), with every NaN equal.
bool same_double(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0;
}

bool same_node(const Node& a, const Node& b) {
  if (a.kind != b.kind || a.loc.line != b.loc.line || a.loc.col != b.loc.col || a.text != b.text ||
      a.int_value != b.int_value || !same_double(a.float_value, b.float_value) ||
      !same_double(a.imag_value, b.imag_value) || a.ops != b.ops || a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!same_node(a.child(i), b.child(i))) return false;
  return true;
}

bool same_module(const Module& a, const Module& b) {
  if (a.file != b.file || a.functions.size() != b.functions.size()) return false;
  for (size_t f = 0; f < a.functions.size(); ++f) {
    const Function& x = a.functions[f];
    const Function& y = b.functions[f];
    if (x.name != y.name || x.params != y.params || x.loc.line != y.loc.line ||
        x.loc.col != y.loc.col || x.body.size() != y.body.size())
      return false;
    for (size_t s = 0; s < x.body.size(); ++s)
      if (!same_node(*x.body[s], *y.body[s])) return false;
  }
  return true;
}

void collect_kinds(const Node& n, std::set<NodeKind>& kinds) {
  kinds.insert(n.kind);
  for (const auto& c : n.children) collect_kinds(*c, kinds);
}

// A module whose one function returns EXPR, for checking literal payloads.
const Node& returned_expr(const Module& m) { return m.functions.at(0).body.at(0)->child(0); }

Module parse_returned(const std::string& expr) {
  return parse_module("(module \"f.py\" (func@1:0 f (params) (return@2:4 " + expr + ")))");
}

// Parses `text`, expecting an IrSyntaxError; returns its message.
std::string syntax_error(const std::string& text) {
  try {
    parse_module(text);
  } catch (const IrSyntaxError& e) {
    return e.what();
  }
  FAIL("no IrSyntaxError for: " << text);
  return {};
}

std::string offset(size_t n) { return "offset " + std::to_string(n) + ":"; }

// Every node kind the IR has, each at least once.
const char* const kEveryKind = R"IR(
(module "all.py"
 (func@1:0 k (params a b)
  (assign@2:4 (name@2:4 x) (int@2:8 -5))
  (augassign@3:4 + (name@3:4 x) (float@3:9 2.5))
  (if@4:4 (not@4:7 (bool@4:11 0))
   (block@5:8 (pass@5:8))
   (block@4:4))
  (while@6:4 (and@6:10 (name@6:10 x) (or@6:16 (name@6:16 x) (bool@6:21 1)))
   (block@7:8 (break@7:8) (continue@8:8)))
  (for@9:4 (name@9:8 i) (int@9:17 0) (int@9:20 10) (int@9:24 1)
   (block@10:8 (expr@10:8 (callfn@10:8 helper_1 (name@10:15 i)))))
  (assign@11:4 (tuple@11:4 (name@11:4 p) (name@11:7 q))
   (tuple@11:11 (complex@11:11 1.0 -2.0) (unary@11:20 - (name@11:21 x))))
  (assign@12:4 (subscript@12:4 (name@12:4 a) (tuple@12:6 (int@12:6 0) (int@12:9 1)))
   (ifexp@12:14 (compare@12:19 (name@12:19 x) < (int@12:23 3) <= (int@12:28 4))
    (attr@12:14 (name@12:14 b) real) (method@12:34 (name@12:34 b) conjugate)))
  (expr@13:4 (call@13:4 math.sqrt (binop@13:14 // (name@13:14 x) (int@13:19 2))))
  (assert@13:4 2 (name@13:11 x))
  (expr@13:4 (call@13:4 print (bytes@13:10 "6869")))
  (raise@13:4 1)
  (return@14:4))
 (func@16:0 helper_1 (params u) (return@17:4 (name@17:11 u))))
)IR";

}  // namespace

// --- reading ---------------------------------------------------------------------------

TEST_CASE("a module reads its file, its functions in order, their names and parameters", "[ir]") {
  Module m = parse_module(R"((module "examples/saxpy.py"
    (func@2:0 saxpy (params a x y out) (pass@3:4))
    (func@9:0 helper_1 (params) (pass@10:4))))");
  CHECK(m.file == "examples/saxpy.py");
  REQUIRE(m.functions.size() == 2);
  CHECK(m.functions[0].name == "saxpy");
  CHECK(m.functions[0].params == std::vector<std::string>{"a", "x", "y", "out"});
  CHECK(m.functions[1].name == "helper_1");
  CHECK(m.functions[1].params.empty());
  CHECK(m.find("helper_1") == &m.functions[1]);
  CHECK(m.find("saxpy") == &m.functions[0]);
  CHECK(m.find("nope") == nullptr);
}

TEST_CASE("a device function's inlining reads after its parameters and prints back", "[ir]") {
  const std::string text = R"((module "f.py"
 (func@1:0 k (params a)
  (pass@2:4))
 (func@4:0 helper_1 (params x) (inline always)
  (pass@5:4))
 (func@7:0 helper_2 (params) (inline force)
  (pass@8:4))))";
  Module m = parse_module(text);
  CHECK(m.functions[0].inline_mode.empty());
  CHECK(m.functions[1].inline_mode == "always");
  CHECK(m.functions[1].body.size() == 1);
  CHECK(m.functions[2].inline_mode == "force");
  CHECK(print_module(m) == text + "\n");
  CHECK_THROWS_WITH(parse_module(R"((module "f.py" (func@1:0 k (params) (inline sometimes))))"),
                    Contains("expected (inline always) or (inline force)"));
}

TEST_CASE("every node carries the LINE:COL written after its head", "[ir]") {
  Module m = parse_module(
      "(module \"f.py\" (func@12:3 f (params a) "
      "(assign@40:7 (name@40:8 x) (binop@41:0 + (name@41:99 a) (int@1234:5678 1)))))");
  const Function& f = m.functions[0];
  CHECK(f.loc.line == 12);
  CHECK(f.loc.col == 3);
  const Node& assign = *f.body[0];
  CHECK(assign.kind == NodeKind::Assign);
  CHECK(assign.loc.line == 40);
  CHECK(assign.loc.col == 7);
  CHECK(assign.child(0).loc.col == 8);
  const Node& binop = assign.child(1);
  CHECK(binop.loc.line == 41);
  CHECK(binop.loc.col == 0);
  CHECK(binop.child(0).loc.col == 99);
  CHECK(binop.child(1).loc.line == 1234);
  CHECK(binop.child(1).loc.col == 5678);
}

TEST_CASE("a head without a location reads as line 0, column 0", "[ir]") {
  // The front end writes nodes without a position this way (IRNode.loc is None).
  Module m = parse_module("(module \"f.py\" (func@1:0 f (params) (pass)))");
  CHECK(m.functions[0].body[0]->kind == NodeKind::Pass);
  CHECK(m.functions[0].body[0]->loc.line == 0);
  CHECK(m.functions[0].body[0]->loc.col == 0);
}

TEST_CASE("newlines and runs of whitespace mean nothing", "[ir]") {
  Module a = parse_module("(module \"f.py\" (func@1:0 f (params x) (return@2:4 (name@2:11 x))))");
  Module b = parse_module(
      "\n\t (module   \"f.py\"\n(func@1:0\n f\t(params\n x )\n\n(return@2:4\n(name@2:11 "
      "x)\n)\n)\n)\n\n");
  CHECK(same_module(a, b));
}

TEST_CASE("every node kind parses, with its payload", "[ir]") {
  Module m = parse_module(kEveryKind);
  REQUIRE(m.functions.size() == 2);
  std::set<NodeKind> kinds;
  for (const Function& f : m.functions)
    for (const auto& s : f.body) collect_kinds(*s, kinds);
  CHECK(kinds.size() == static_cast<size_t>(NodeKind::Bytes) + 1);

  const auto& body = m.functions[0].body;
  CHECK(body[0]->child(1).int_value == -5);
  CHECK(body[1]->kind == NodeKind::AugAssign);
  CHECK(body[1]->text == "+");
  CHECK(body[1]->child(1).float_value == 2.5);
  const Node& if_stmt = *body[2];
  CHECK(if_stmt.child(1).kind == NodeKind::Block);
  CHECK(if_stmt.child(2).size() == 0);  // an empty else block
  CHECK(body[3]->child(0).child(1).kind == NodeKind::Or);
  const Node& for_stmt = *body[4];
  CHECK(for_stmt.size() == 5);
  CHECK(for_stmt.child(3).int_value == 1);
  const Node& callfn = for_stmt.child(4).child(0).child(0);
  CHECK(callfn.kind == NodeKind::CallFn);
  CHECK(callfn.text == "helper_1");
  const Node& complex = body[5]->child(1).child(0);
  CHECK(complex.float_value == 1.0);
  CHECK(complex.imag_value == -2.0);
  CHECK(body[5]->child(1).child(1).text == "-");
  const Node& ifexp = body[6]->child(1);
  const Node& compare = ifexp.child(0);
  CHECK(compare.size() == 3);
  CHECK(compare.ops == std::vector<std::string>{"<", "<="});
  CHECK(ifexp.child(1).kind == NodeKind::Attr);
  CHECK(ifexp.child(1).text == "real");
  CHECK(ifexp.child(1).size() == 1);
  CHECK(ifexp.child(2).text == "conjugate");
  const Node& call = body[7]->child(0);
  CHECK(call.text == "math.sqrt");
  CHECK(call.child(0).text == "//");
  CHECK(body.back()->kind == NodeKind::Return);
  CHECK(body.back()->size() == 0);
  const auto& tail = m.functions[0].body;
  const Node& assertion = *tail[tail.size() - 4];
  CHECK(assertion.kind == NodeKind::Assert);
  CHECK(assertion.int_value == 2);
  CHECK(assertion.child(0).text == "x");
  CHECK(tail[tail.size() - 3]->child(0).child(0).text == "hi");  // bytes decoded from hex
  CHECK(tail[tail.size() - 2]->kind == NodeKind::Raise);
  CHECK(tail[tail.size() - 2]->int_value == 1);
}

TEST_CASE("kind_name spells each kind as its head in the text form", "[ir]") {
  CHECK(kind_name(NodeKind::Assign) == "assign");
  CHECK(kind_name(NodeKind::AugAssign) == "augassign");
  CHECK(kind_name(NodeKind::ExprStmt) == "expr");
  CHECK(kind_name(NodeKind::IfExp) == "ifexp");
  CHECK(kind_name(NodeKind::CallFn) == "callfn");
  std::set<std::string_view> names;
  for (int k = 0; k <= static_cast<int>(NodeKind::CallFn); ++k) {
    std::string_view name = kind_name(static_cast<NodeKind>(k));
    CHECK(name != "?");
    names.insert(name);
  }
  CHECK(names.size() == static_cast<size_t>(NodeKind::CallFn) + 1);
}

TEST_CASE("a method call keeps its name after the object and its arguments after that", "[ir]") {
  Module m = parse_returned("(method@2:11 (name@2:11 z) conjugate (int@2:24 1) (int@2:27 2))");
  const Node& method = returned_expr(m);
  CHECK(method.text == "conjugate");
  REQUIRE(method.size() == 3);
  CHECK(method.child(0).text == "z");
  CHECK(method.child(2).int_value == 2);
}

TEST_CASE("dotted symbols are single names", "[ir]") {
  Module m = parse_module(R"((module "f.py" (func@1:0 f (params)
    (assign@2:4 (name@2:4 chain.1) (call@2:14 cuda.threadIdx.x))
    (assign@3:4 (name@3:4 y) (call@3:8 cast.float32 (name@3:21 chain.1))))))");
  const auto& body = m.functions[0].body;
  CHECK(body[0]->child(0).text == "chain.1");
  CHECK(body[0]->child(1).text == "cuda.threadIdx.x");
  CHECK(body[0]->child(1).size() == 0);
  CHECK(body[1]->child(1).text == "cast.float32");
  CHECK(body[1]->child(1).child(0).text == "chain.1");
}

TEST_CASE("integers span the whole int64 range", "[ir]") {
  CHECK(returned_expr(parse_returned("(int@2:11 9223372036854775807)")).int_value ==
        std::numeric_limits<int64_t>::max());
  CHECK(returned_expr(parse_returned("(int@2:11 -9223372036854775808)")).int_value ==
        std::numeric_limits<int64_t>::min());
  CHECK(returned_expr(parse_returned("(int@2:11 0)")).int_value == 0);
  CHECK(returned_expr(parse_returned("(bool@2:11 1)")).int_value == 1);
}

TEST_CASE("floats read Python's repr: exponents, inf, nan and negative zero", "[ir]") {
  auto value = [](const std::string& atom) {
    return returned_expr(parse_returned("(float@2:11 " + atom + ")")).float_value;
  };
  CHECK(value("1e+300") == 1e300);
  CHECK(value("1e-07") == 1e-7);
  CHECK(value("2.5") == 2.5);
  CHECK(value("-1.5e-310") == -1.5e-310);  // subnormal
  CHECK(value("inf") == std::numeric_limits<double>::infinity());
  CHECK(value("-inf") == -std::numeric_limits<double>::infinity());
  CHECK(std::isnan(value("nan")));
  double negative_zero = value("-0.0");
  CHECK(negative_zero == 0.0);
  CHECK(std::signbit(negative_zero));
  CHECK_FALSE(std::signbit(value("0.0")));
}

TEST_CASE("a complex literal reads its real and imaginary parts", "[ir]") {
  Module m = parse_returned("(complex@2:11 -0.0 inf)");
  const Node& c = returned_expr(m);
  CHECK(c.kind == NodeKind::Complex);
  CHECK(std::signbit(c.float_value));
  CHECK(std::isinf(c.imag_value));
}

TEST_CASE("strings unescape \\\" and \\\\", "[ir]") {
  Module m = parse_module(R"((module "dir\\my \"file\".py" (func@1:0 f (params) (pass@2:4))))");
  CHECK(m.file == "dir\\my \"file\".py");
}

TEST_CASE("a string may hold parentheses, spaces and @", "[ir]") {
  Module m = parse_module(R"((module "a (b) @1:2.py" (func@1:0 f (params) (pass@2:4))))");
  CHECK(m.file == "a (b) @1:2.py");
}

// --- writing ---------------------------------------------------------------------------

TEST_CASE("print_module writes one statement a line, expressions inline", "[ir]") {
  Module m = parse_module(
      "(module \"f.py\" (func@1:0 k (params a) "
      "(assign@2:4 (name@2:4 x) (binop@2:8 + (name@2:8 a) (int@2:12 1)))"
      "(if@3:4 (name@3:7 x) (block@4:8 (pass@4:8)) (block@3:4))))");
  CHECK(print_module(m) ==
        "(module \"f.py\"\n"
        " (func@1:0 k (params a)\n"
        "  (assign@2:4 (name@2:4 x) (binop@2:8 + (name@2:8 a) (int@2:12 1)))\n"
        "  (if@3:4 (name@3:7 x)\n"
        "    (block@4:8\n"
        "      (pass@4:8))\n"
        "    (block@3:4))))\n");
}

TEST_CASE("printing then parsing gives the same tree, for every node kind", "[ir]") {
  Module first = parse_module(kEveryKind);
  std::string printed = print_module(first);
  Module second = parse_module(printed);
  CHECK(same_module(first, second));
  CHECK(print_module(second) == printed);
}

TEST_CASE("the saxpy example of docs/dev/kernel-ir.md round-trips", "[ir]") {
  const char* saxpy = cudajit::testing::kSaxpyIr;
  Module first = parse_module(saxpy);
  Module second = parse_module(print_module(first));
  CHECK(same_module(first, second));
}

TEST_CASE("floats print so that they read back bit for bit", "[ir]") {
  for (const char* atom : {"1e+300", "1e-07", "0.1", "-0.0", "inf", "-inf", "nan", "100.0",
                           "5e-324", "1.7976931348623157e+308", "2.5"}) {
    INFO(atom);
    Module first = parse_returned(std::string("(complex@2:11 ") + atom + " " + atom + ")");
    std::string printed = print_module(first);
    Module second = parse_module(printed);
    const Node& a = returned_expr(first);
    const Node& b = returned_expr(second);
    CHECK(same_double(a.float_value, b.float_value));
    CHECK(same_double(a.imag_value, b.imag_value));
  }
}

TEST_CASE("a whole float prints as a float atom, not an integer", "[ir]") {
  std::string printed = print_module(parse_returned("(float@2:11 100.0)"));
  CHECK_THAT(printed, Contains("(float@2:11 100.0)"));
  CHECK_THAT(print_module(parse_returned("(float@2:11 -0.0)")), Contains("(float@2:11 -0.0)"));
  CHECK_THAT(print_module(parse_returned("(float@2:11 inf)")), Contains("(float@2:11 inf)"));
}

TEST_CASE("the file name prints with its quotes and backslashes escaped", "[ir]") {
  Module m = parse_module(R"((module "a\"b\\c.py" (func@1:0 f (params) (pass@2:4))))");
  std::string printed = print_module(m);
  CHECK_THAT(printed, Contains(R"((module "a\"b\\c.py")"));
  CHECK(parse_module(printed).file == "a\"b\\c.py");
}

TEST_CASE("dotted names and compare chains print back unchanged", "[ir]") {
  Module m = parse_returned(
      "(compare@2:11 (name@2:11 chain.1) < (call@2:20 cuda.threadIdx.x) != (int@2:40 -3))");
  CHECK_THAT(print_module(m),
             Contains("(compare@2:11 (name@2:11 chain.1) < (call@2:20 cuda.threadIdx.x) != "
                      "(int@2:40 -3))"));
}

// --- malformed text --------------------------------------------------------------------

TEST_CASE("malformed IR is an IrSyntaxError, not a CompileError", "[ir]") {
  CHECK_THROWS_AS(parse_module("(module"), IrSyntaxError);
  try {
    parse_module("(module");
  } catch (const cudajit::CompileError&) {
    FAIL("a CompileError for malformed IR");
  } catch (const IrSyntaxError&) {
  }
}

TEST_CASE("an unknown node head is named, at the offset after it", "[ir]") {
  std::string text = "(module \"f.py\" (func@1:0 k (params) (bogus@2:4)))";
  std::string message = syntax_error(text);
  CHECK_THAT(message, Contains("unknown node 'bogus'"));
  CHECK_THAT(message, Contains(offset(text.find("bogus") + std::strlen("bogus@2:4"))));
}

TEST_CASE("text cut short is an error at the end of the text", "[ir]") {
  std::string text = "(module \"f.py\" (func@1:0 k (params) (pass@2:4))";
  std::string message = syntax_error(text);
  CHECK_THAT(message, Contains("unexpected end of text"));
  CHECK_THAT(message, Contains(offset(text.size())));
}

TEST_CASE("text after the module is an error where it starts", "[ir]") {
  std::string text = "(module \"f.py\" (func@1:0 k (params) (pass@2:4)))  junk";
  std::string message = syntax_error(text);
  CHECK_THAT(message, Contains("text after the end of the module"));
  CHECK_THAT(message, Contains(offset(text.find("junk"))));
}

TEST_CASE("a module without functions is an error", "[ir]") {
  std::string text = "(module \"f.py\")";
  CHECK_THAT(syntax_error(text),
             Contains("at least one function") && Contains(offset(text.size())));
}

TEST_CASE("the text must start with (module", "[ir]") {
  CHECK_THAT(syntax_error("(modul \"f.py\" (func@1:0 k (params)))"),
             Contains("expected 'module'") && Contains(offset(6)));
  CHECK_THAT(syntax_error("module \"f.py\""), Contains("expected '('") && Contains(offset(0)));
}

TEST_CASE("a function must be written (func NAME (params ...) ...)", "[ir]") {
  std::string text = "(module \"f.py\" (function@1:0 k (params)))";
  CHECK_THAT(syntax_error(text),
             Contains("expected 'func', got 'function'") && Contains(offset(text.find(" k"))));
  std::string no_params = "(module \"f.py\" (func@1:0 k (a b)))";
  CHECK_THAT(syntax_error(no_params),
             Contains("expected 'params'") && Contains(offset(no_params.find(" b"))));
}

TEST_CASE("an atom where a statement belongs is an error at the atom", "[ir]") {
  std::string text = "(module \"f.py\" (func@1:0 k (params) x))";
  CHECK_THAT(syntax_error(text), Contains("expected ')'") && Contains(offset(text.find("x)"))));
}

TEST_CASE("a stray atom inside a node is an error at the atom", "[ir]") {
  std::string text =
      "(module \"f.py\" (func@1:0 k (params) (expr@2:4 (binop@2:4 + (int@2:4 1) 2))))";
  CHECK_THAT(syntax_error(text),
             Contains("unexpected atom in 'binop'") && Contains(offset(text.find("2))"))));
}

TEST_CASE("a bad integer is named, including one past int64", "[ir]") {
  std::string text = "(module \"f.py\" (func@1:0 k (params) (return@2:4 (int@2:11 12x))))";
  CHECK_THAT(syntax_error(text),
             Contains("bad integer '12x'") && Contains(offset(text.find("12x") + 3)));
  CHECK_THAT(syntax_error("(module \"f.py\" (func@1:0 k (params) (return@2:4 "
                          "(int@2:11 9223372036854775808))))"),
             Contains("bad integer '9223372036854775808'"));
  CHECK_THAT(syntax_error("(module \"f.py\" (func@1:0 k (params) (return@2:4 (int@2:11 1.5))))"),
             Contains("bad integer '1.5'"));
}

TEST_CASE("a bad float is named", "[ir]") {
  std::string text = "(module \"f.py\" (func@1:0 k (params) (return@2:4 (float@2:11 1.5.2))))";
  CHECK_THAT(syntax_error(text),
             Contains("bad number '1.5.2'") && Contains(offset(text.find("1.5.2") + 5)));
  CHECK_THAT(syntax_error("(module \"f.py\" (func@1:0 k (params) (return@2:4 (float@2:11 x))))"),
             Contains("bad number 'x'"));
}

TEST_CASE("a complex literal needs two float atoms", "[ir]") {
  std::string text = "(module \"f.py\" (func@1:0 k (params) (return@2:4 (complex@2:11 1.0))))";
  CHECK_THAT(syntax_error(text),
             Contains("expected a symbol") && Contains(offset(text.find("1.0)") + 3)));
}

TEST_CASE("a location must be LINE:COL in decimal", "[ir]") {
  std::string no_colon = "(module \"f.py\" (func@1:0 k (params) (pass@7)))";
  CHECK_THAT(syntax_error(no_colon), Contains("a location is written LINE:COL") &&
                                         Contains(offset(no_colon.find("@7") + 2)));
  std::string bad_col = "(module \"f.py\" (func@1:0 k (params) (pass@7:x)))";
  CHECK_THAT(syntax_error(bad_col),
             Contains("bad location 'pass@7:x'") && Contains(offset(bad_col.find("@7:x") + 4)));
  CHECK_THAT(syntax_error("(module \"f.py\" (func@1:z k (params) (pass@1:0)))"),
             Contains("bad location 'func@1:z'"));
}

TEST_CASE("an unterminated string is an error at the end of the text", "[ir]") {
  std::string text = "(module \"f.py (func@1:0 k (params) (pass@2:4)))";
  CHECK_THAT(syntax_error(text), Contains("unterminated string") && Contains(offset(text.size())));
}

TEST_CASE("the module's file must be a string", "[ir]") {
  std::string text = "(module f.py (func@1:0 k (params) (pass@2:4)))";
  CHECK_THAT(syntax_error(text), Contains("expected '\"'") && Contains(offset(text.find("f.py"))));
}

TEST_CASE("a compare needs one operator between each pair of operands", "[ir]") {
  std::string extra =
      "(module \"f.py\" (func@1:0 k (params) (return@2:4 "
      "(compare@2:11 (name@2:11 a) < (name@2:15 b) <))))";
  CHECK_THAT(syntax_error(extra), Contains("one operator between each pair") &&
                                      Contains(offset(extra.find("<))))") + 2)));
  std::string missing =
      "(module \"f.py\" (func@1:0 k (params) (return@2:4 "
      "(compare@2:11 (name@2:11 a) (name@2:15 b)))))";
  CHECK_THAT(syntax_error(missing), Contains("one operator between each pair"));
}

TEST_CASE("an empty head is an error", "[ir]") {
  std::string text = "(module \"f.py\" (func@1:0 k (params) ()))";
  CHECK_THAT(syntax_error(text),
             Contains("expected a symbol") && Contains(offset(text.find("()") + 1)));
}

TEST_CASE("a function from another file names it, and prints it back", "[ir]") {
  const std::string text =
      "(module \"k.py\"\n (func@1:0 k (params a) (expr@2:4 (callfn@2:4 h_1 (name@2:6 a))))\n"
      " (func@3:0 h_1 \"other \\\"dir\\\"/h.py\" (params x) (return@4:4 (name@4:11 x))))\n";
  Module m = parse_module(text);
  CHECK(m.functions[0].file.empty());
  CHECK(m.functions[1].file == "other \"dir\"/h.py");
  CHECK(parse_module(print_module(m)).functions[1].file == m.functions[1].file);
}
