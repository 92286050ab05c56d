// split_variables: each web of a variable (the assignments that reach common reads) gets a
// name of its own, so that typing gives each its own type (compiler/src/ir/variable_webs.cpp).
#include <catch2/catch.hpp>

#include "cudajit/compiler/ir.hpp"

using namespace cudajit::ir;
using Catch::Matchers::Contains;

namespace {

// The function body after split_variables, printed.
std::string split(const std::string& params, const std::string& body) {
  Module m = parse_module("(module \"t.py\" (func@1:0 k (params " + params + ") " + body + "))");
  split_variables(m.functions[0]);
  return print_module(m);
}

}  // namespace

TEST_CASE("straight-line rebinding makes a second variable, read where it reaches", "[webs]") {
  std::string out = split("a",
                          "(assign@2:4 (name@2:4 x) (int@2:8 1))"
                          "(assign@3:4 (name@3:4 y) (name@3:8 x))"
                          "(assign@4:4 (name@4:4 x) (name@4:8 a))"
                          "(assign@5:4 (name@5:4 z) (name@5:8 x))");
  CHECK_THAT(out, Contains("(name@3:8 x)"));
  CHECK_THAT(out, Contains("(name@4:4 x#2)"));
  CHECK_THAT(out, Contains("(name@5:8 x#2)"));
}

TEST_CASE("assignments that reach one read stay one variable", "[webs]") {
  std::string out = split("a",
                          "(if@2:4 (name@2:7 a) (block@3:8 (assign@3:8 (name@3:8 x) (int@3:12 1)))"
                          " (block@5:8 (assign@5:8 (name@5:8 x) (name@5:12 a))))"
                          "(assign@6:4 (name@6:4 y) (name@6:8 x))");
  CHECK_THAT(out, !Contains("x#"));
}

TEST_CASE("a parameter keeps its name when it is rebound", "[webs]") {
  std::string out = split("a",
                          "(assign@2:4 (name@2:4 b) (name@2:8 a))"
                          "(assign@3:4 (name@3:4 a) (int@3:8 0))"
                          "(assign@4:4 (name@4:4 c) (name@4:8 a))");
  CHECK_THAT(out, Contains("(name@2:8 a)"));
  CHECK_THAT(out, Contains("(name@3:4 a#2)"));
  CHECK_THAT(out, Contains("(name@4:8 a#2)"));
}

TEST_CASE("a loop's back edge joins the value from before the loop and from its end", "[webs]") {
  // x = 0; while a: y = x; x = 1.5  -> the read of x sees both: one variable.
  std::string out = split("a",
                          "(assign@2:4 (name@2:4 x) (int@2:8 0))"
                          "(while@3:4 (name@3:10 a) (block@4:8"
                          " (assign@4:8 (name@4:8 y) (name@4:12 x))"
                          " (assign@5:8 (name@5:8 x) (float@5:12 1.5))))");
  CHECK_THAT(out, !Contains("x#"));
}

TEST_CASE("a value rebound inside each pass of a loop is its own variable", "[webs]") {
  // for t in range(a): t = a; y = t  -> the loop's t is never read: two variables.
  std::string out = split("a",
                          "(for@2:4 (name@2:8 t) (int@2:17 0) (name@2:20 a) (int@2:17 1)"
                          " (block@3:8 (assign@3:8 (name@3:8 t) (name@3:12 a))"
                          " (assign@4:8 (name@4:8 y) (name@4:12 t))))");
  CHECK_THAT(out, Contains("(name@2:8 t)"));
  CHECK_THAT(out, Contains("(name@3:8 t#2)"));
  CHECK_THAT(out, Contains("(name@4:12 t#2)"));
}

TEST_CASE("a loop variable read after the loop joins the value from before it", "[webs]") {
  // i = a; for i in range(a): pass; y = i  -> an empty range leaves i as it was.
  std::string out = split("a",
                          "(assign@2:4 (name@2:4 i) (name@2:8 a))"
                          "(for@3:4 (name@3:8 i) (int@3:17 0) (name@3:20 a) (int@3:17 1)"
                          " (block@4:8 (pass@4:8)))"
                          "(assign@5:4 (name@5:4 y) (name@5:8 i))");
  CHECK_THAT(out, !Contains("i#"));
}

TEST_CASE("what a break or a continue carries reaches the loop's exit or head", "[webs]") {
  // while a: x = 1; if a: break; x = 2.5; continue   then y = x after the loop: the read
  // sees the x of the break and, through the head, the x the continue carried.
  std::string body =
      "(while@2:4 (name@2:10 a) (block@3:8 (assign@3:8 (name@3:8 x) (int@3:12 1))"
      " (if@4:8 (name@4:11 a) (block@5:12 (break@5:12)) (block@4:8))"
      " (assign@6:8 (name@6:8 x) (float@6:12 2.5)) (continue@7:8)))";
  CHECK_THAT(split("a", body + "(assign@8:4 (name@8:4 y) (name@8:8 x))"), !Contains("x#"));
  // Without the read after the loop, the two values never meet: two variables.
  CHECK_THAT(split("a", body), Contains("(name@6:8 x#2)"));
}

TEST_CASE("an augmented assignment is one variable with what it updates", "[webs]") {
  std::string out = split("a",
                          "(assign@2:4 (name@2:4 x) (int@2:8 1))"
                          "(augassign@3:4 + (name@3:4 x) (float@3:9 0.5))"
                          "(assign@4:4 (name@4:4 y) (name@4:8 x))");
  CHECK_THAT(out, !Contains("x#"));
}

TEST_CASE("reads after a return see nothing and keep the name", "[webs]") {
  std::string out = split("a",
                          "(assign@2:4 (name@2:4 x) (int@2:8 1))"
                          "(return@3:4)"
                          "(assign@4:4 (name@4:4 y) (name@4:8 x))");
  CHECK_THAT(out, Contains("(name@4:8 x)"));
  CHECK(source_name("x#2") == "x");
  CHECK(source_name("exception.record") == "exception.record");
}
