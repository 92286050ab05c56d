// setp and set (exec/ops/compare.cpp): each case runs a small PTX kernel over a few inputs
// and checks the predicates (as bits of the stored result) against C++ comparisons.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>

#include "element_kernel.hpp"

using namespace cudajit::sim;
using namespace cudajit::sim::testing;
using Catch::Matchers::Contains;

namespace {

// A body that sets bit k of %d to `setp.<comparisons[k]>.<type> %a, %b`.
std::string compare_bits(const std::vector<std::string>& comparisons, const std::string& type) {
  std::string body;
  for (size_t k = 0; k < comparisons.size(); ++k)
    body += "\tsetp." + comparisons[k] + "." + type + " %p1, %a, %b;\n\tselp.u32 %r1, " +
            std::to_string(1u << k) + ", 0, %p1;\n\tor.b32 %d, %d, %r1;\n";
  return body;
}

// For each pair, the bits of `rules` (one per comparison) as compare_bits sets them.
template <class T>
std::vector<uint32_t> expected_bits(const std::vector<T>& a, const std::vector<T>& b,
                                    const std::vector<std::function<bool(T, T)>>& rules) {
  std::vector<uint32_t> result;
  for (size_t i = 0; i < a.size(); ++i) {
    uint32_t bits = 0;
    for (size_t k = 0; k < rules.size(); ++k) bits |= uint32_t(rules[k](a[i], b[i])) << k;
    result.push_back(bits);
  }
  return result;
}

// Runs a compare_bits body: %d starts at 0 and collects one bit per comparison.
template <class T>
std::vector<uint32_t> run_compare(const std::string& in, const std::string& body,
                                  const std::vector<T>& a, const std::vector<T>& b) {
  return run<uint32_t, T, T>(in, "u32", "\tmov.u32 %d, 0;\n" + body, a, b);
}

std::string decode_error(const std::string& instruction) {
  try {
    load(
        ptx_module(".visible .entry k()\n{\n.reg .b32 %r<4>;\n.reg .f64 %fd<4>;\n"
                   ".reg .pred %p<4>;\n" +
                   instruction + "\nret;\n}\n"));
  } catch (const ptx::PtxError& e) {
    return e.what();
  }
  return "";
}

template <class T>
const std::vector<std::function<bool(T, T)>> kOrdered = {
    [](T x, T y) { return x == y; }, [](T x, T y) { return x != y && x == x && y == y; },
    [](T x, T y) { return x < y; },  [](T x, T y) { return x <= y; },
    [](T x, T y) { return x > y; },  [](T x, T y) { return x >= y; }};

const std::vector<std::string> kOrderedNames = {"eq", "ne", "lt", "le", "gt", "ge"};

}  // namespace

TEST_CASE("setp compares s32 as signed and u32 as unsigned", "[simulator][compare]") {
  std::vector<int32_t> a = {-1, 1, 5, std::numeric_limits<int32_t>::min(), 0};
  std::vector<int32_t> b = {1, -1, 5, std::numeric_limits<int32_t>::max(), 0};
  REQUIRE(run_compare<int32_t>("s32", compare_bits(kOrderedNames, "s32"), a, b) ==
          expected_bits(a, b, kOrdered<int32_t>));
  std::vector<uint32_t> ua(a.begin(), a.end()), ub(b.begin(), b.end());
  REQUIRE(run_compare<uint32_t>("u32", compare_bits(kOrderedNames, "u32"), ua, ub) ==
          expected_bits(ua, ub, kOrdered<uint32_t>));
  // -1 < 1 as s32, not as u32.
  REQUIRE((run_compare<int32_t>("s32", compare_bits({"lt"}, "s32"), a, b)[0] == 1 &&
           run_compare<uint32_t>("u32", compare_bits({"lt"}, "u32"), ua, ub)[0] == 0));
}

TEST_CASE("setp on 16- and 64-bit integers compares at their width", "[simulator][compare]") {
  std::vector<int16_t> a = {-32768, 7, -1};
  std::vector<int16_t> b = {32767, 7, 1};
  REQUIRE(run_compare<int16_t>("s16", compare_bits(kOrderedNames, "s16"), a, b) ==
          expected_bits(a, b, kOrdered<int16_t>));
  std::vector<uint16_t> ua(a.begin(), a.end()), ub(b.begin(), b.end());
  REQUIRE(run_compare<uint16_t>("u16", compare_bits(kOrderedNames, "u16"), ua, ub) ==
          expected_bits(ua, ub, kOrdered<uint16_t>));
  std::vector<int64_t> la = {std::numeric_limits<int64_t>::min(), 1ll << 40, -5};
  std::vector<int64_t> lb = {0, 1, -5};
  REQUIRE(run_compare<int64_t>("s64", compare_bits(kOrderedNames, "s64"), la, lb) ==
          expected_bits(la, lb, kOrdered<int64_t>));
  std::vector<uint64_t> ula(la.begin(), la.end()), ulb(lb.begin(), lb.end());
  REQUIRE(run_compare<uint64_t>("u64", compare_bits(kOrderedNames, "u64"), ula, ulb) ==
          expected_bits(ula, ulb, kOrdered<uint64_t>));
}

TEST_CASE("lo, ls, hi and hs are the unsigned lt, le, gt and ge", "[simulator][compare]") {
  std::vector<uint32_t> a = {0xFFFFFFFFu, 1, 4};
  std::vector<uint32_t> b = {1, 0xFFFFFFFFu, 4};
  REQUIRE(run_compare<uint32_t>("u32", compare_bits({"lo", "ls", "hi", "hs"}, "u32"), a, b) ==
          expected_bits<uint32_t>(a, b,
                                  {[](uint32_t x, uint32_t y) { return x < y; },
                                   [](uint32_t x, uint32_t y) { return x <= y; },
                                   [](uint32_t x, uint32_t y) { return x > y; },
                                   [](uint32_t x, uint32_t y) { return x >= y; }}));
}

TEST_CASE("b16, b32 and b64 compare their bits for eq and ne", "[simulator][compare]") {
  std::vector<uint32_t> a = {0x80000000u, 3};
  std::vector<uint32_t> b = {0x80000000u, 4};
  REQUIRE(run_compare<uint32_t>("b32", compare_bits({"eq", "ne"}, "b32"), a, b) ==
          std::vector<uint32_t>{1, 2});
  REQUIRE(run_compare<uint64_t>("b64", compare_bits({"eq", "ne"}, "b64"), {1ull << 63, 5},
                                {1, 5}) == std::vector<uint32_t>{2, 1});
  REQUIRE(run_compare<uint16_t>("b16", compare_bits({"eq", "ne"}, "b16"), {0xFFFF}, {0xFFFF}) ==
          std::vector<uint32_t>{1});
}

TEST_CASE(
    "float comparisons: ordered ones are false on NaN, unordered ones true; num and nan "
    "test for NaN",
    "[simulator][compare]") {
  const float nan = std::nanf(""), inf = std::numeric_limits<float>::infinity();
  std::vector<float> a = {1.0f, nan, 2.0f, nan, -0.0f, -inf, 3.0f};
  std::vector<float> b = {2.0f, 1.0f, nan, nan, 0.0f, inf, 3.0f};
  std::vector<std::string> names = {"eq",  "ne",  "lt",  "le",  "gt",  "ge",  "equ",
                                    "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
  auto unordered = [](auto rule) {
    return [rule](auto x, auto y) { return std::isnan(x) || std::isnan(y) || rule(x, y); };
  };
  auto rules = [&]<class T>(std::vector<std::function<bool(T, T)>> ordered) {
    auto all = ordered;
    for (const auto& rule : ordered) all.push_back(unordered(rule));
    all.push_back([](T x, T y) { return !std::isnan(x) && !std::isnan(y); });
    all.push_back([](T x, T y) { return std::isnan(x) || std::isnan(y); });
    return all;
  };
  auto expected = expected_bits(a, b, rules(kOrdered<float>));
  REQUIRE(run_compare<float>("f32", compare_bits(names, "f32"), a, b) == expected);
  // Spot checks: eq is false and neu true on NaN; -0 == 0.
  REQUIRE((expected[1] & 1) == 0);
  REQUIRE(((expected[1] >> 7) & 1) == 1);
  REQUIRE((expected[4] & 1) == 1);
  std::vector<double> da(a.begin(), a.end()), db(b.begin(), b.end());
  REQUIRE(run_compare<double>("f64", compare_bits(names, "f64"), da, db) ==
          expected_bits(da, db, rules(kOrdered<double>)));
}

TEST_CASE("setp.ftz.f32 reads subnormal inputs as zeros of their sign", "[simulator][compare]") {
  const float tiny = std::numeric_limits<float>::denorm_min();
  std::vector<float> a = {tiny, -tiny, tiny, 1e-30f};
  std::vector<float> b = {0.0f, 0.0f, -tiny, 0.0f};
  // bits: eq, lt, gt
  REQUIRE(run_compare<float>("f32", compare_bits({"eq", "lt", "gt"}, "f32"), a, b) ==
          std::vector<uint32_t>{4, 2, 4, 4});
  REQUIRE(run_compare<float>("f32", compare_bits({"eq.ftz", "lt.ftz", "gt.ftz"}, "f32"), a, b) ==
          std::vector<uint32_t>{1, 1, 1, 4});
}

TEST_CASE("setp.and, .or and .xor combine the comparison with a predicate, possibly negated",
          "[simulator][compare]") {
  // c is a's low bit; the comparison is a < b.
  std::vector<int32_t> a = {1, 2, 3, 4};
  std::vector<int32_t> b = {5, 6, 0, 0};
  std::string body = "and.b32 %r2, %a, 1;\n\tsetp.ne.u32 %p2, %r2, 0;\n";
  const char* forms[] = {"and.s32 %p1, %a, %b, %p2", "and.s32 %p1, %a, %b, !%p2",
                         "or.s32 %p1, %a, %b, %p2",  "or.s32 %p1, %a, %b, !%p2",
                         "xor.s32 %p1, %a, %b, %p2", "xor.s32 %p1, %a, %b, !%p2"};
  for (int k = 0; k < 6; ++k)
    body += std::string("\tsetp.lt.") + forms[k] + ";\n\tselp.u32 %r1, " + std::to_string(1 << k) +
            ", 0, %p1;\n\tor.b32 %d, %d, %r1;\n";
  std::vector<uint32_t> expected;
  for (size_t i = 0; i < a.size(); ++i) {
    bool t = a[i] < b[i], c = a[i] & 1;
    expected.push_back(uint32_t(t && c) | uint32_t(t && !c) << 1 | uint32_t(t || c) << 2 |
                       uint32_t(t || !c) << 3 | uint32_t(t != c) << 4 | uint32_t(t != !c) << 5);
  }
  REQUIRE(run_compare<int32_t>("s32", body, a, b) == expected);
}

TEST_CASE("setp p|q writes the comparison's result to p and its complement's to q",
          "[simulator][compare]") {
  std::vector<int32_t> a = {1, 2, 3, 4};
  std::vector<int32_t> b = {5, 6, 0, 0};
  // Plain: q = !(a < b); with .and c: q = !(a < b) && c, where c is a's low bit.
  std::string body = R"(
	and.b32 %r2, %a, 1;
	setp.ne.u32 %p3, %r2, 0;
	setp.lt.s32 %p1|%p2, %a, %b;
	setp.lt.and.s32 %p4|%p5, %a, %b, %p3;
	selp.u32 %r1, 1, 0, %p1;
	selp.u32 %r3, 2, 0, %p2;
	selp.u32 %r4, 4, 0, %p4;
	selp.u32 %r5, 8, 0, %p5;
	or.b32 %d, %r1, %r3;
	or.b32 %d, %d, %r4;
	or.b32 %d, %d, %r5;)";
  std::vector<uint32_t> expected;
  for (size_t i = 0; i < a.size(); ++i) {
    bool t = a[i] < b[i], c = a[i] & 1;
    expected.push_back(uint32_t(t) | uint32_t(!t) << 1 | uint32_t(t && c) << 2 |
                       uint32_t(!t && c) << 3);
  }
  REQUIRE(run_compare<int32_t>("s32", body, a, b) == expected);
}

// (The parser does not read `_|%q` yet: `_` ends the operand before the `|`.)
TEST_CASE("the second destination of p|q may be the sink '_'", "[simulator][compare]") {
  std::vector<int32_t> a = {1, 9};
  std::vector<int32_t> b = {5, 6};
  REQUIRE(run_compare<int32_t>("s32", "setp.lt.s32 %p1|_, %a, %b;\n\tselp.u32 %d, 1, 0, %p1;", a,
                               b) == std::vector<uint32_t>{1, 0});
}

TEST_CASE("set writes 0xffffffff or 0 to an integer destination and 1.0f or 0 to f32",
          "[simulator][compare]") {
  std::vector<int32_t> a = {-1, 7, 3};
  std::vector<int32_t> b = {1, 2, 3};
  REQUIRE(run_compare<int32_t>("s32", "set.lt.u32.s32 %d, %a, %b;", a, b) ==
          std::vector<uint32_t>{0xFFFFFFFFu, 0, 0});
  uint32_t one;
  float f = 1.0f;
  std::memcpy(&one, &f, 4);
  REQUIRE(run_compare<int32_t>("s32", "set.ge.f32.s32 %d, %a, %b;", a, b) ==
          std::vector<uint32_t>{0, one, one});
  // Combined with a negated predicate: (a <= b) || !(a == 3).
  REQUIRE(run_compare<int32_t>("s32",
                               "setp.eq.s32 %p1, %a, 3;\n\tset.le.or.s32.s32 %d, %a, %b, !%p1;", a,
                               b) == std::vector<uint32_t>{0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu});
  std::vector<float> fa = {1.0f, std::nanf("")};
  std::vector<float> fb = {2.0f, 2.0f};
  REQUIRE(run_compare<float>("f32", "set.ltu.u32.f32 %d, %a, %b;", fa, fb) ==
          std::vector<uint32_t>{0xFFFFFFFFu, 0xFFFFFFFFu});
  REQUIRE(run_compare<float>("f32", "set.lt.u32.f32 %d, %a, %b;", fa, fb) ==
          std::vector<uint32_t>{0xFFFFFFFFu, 0});
}

TEST_CASE("a comparison its type does not have is refused", "[simulator][compare]") {
  for (const char* instruction :
       {"setp.lo.s32 %p1, %r1, %r2;", "setp.lt.b32 %p1, %r1, %r2;", "setp.equ.s32 %p1, %r1, %r2;",
        "setp.lt.ftz.f64 %p1, %fd1, %fd2;", "setp.lt.ftz.s32 %p1, %r1, %r2;",
        "setp.lt.and.or.s32 %p1, %r1, %r2, %p2;", "setp.lt.gt.s32 %p1, %r1, %r2;",
        "setp.s32 %p1, %r1, %r2;", "set.lt.f64.s32 %fd1, %r1, %r2;", "set.lt.s32 %r1, %r1, %r2;",
        "setp.lt.ftz.bf16 %p1, %r1, %r2;"}) {
    CAPTURE(instruction);
    REQUIRE_THAT(decode_error(instruction), Contains("unsupported instruction"));
  }
  REQUIRE_THAT(decode_error("setp.lt.and.s32 %p1, %r1, %r2;"), Contains("predicate c"));
  REQUIRE_THAT(decode_error("setp.lt.s32 %p1, !%p2, %r2;"), Contains("negated"));
}

TEST_CASE("setp.f16 and setp.bf16 compare the values the bits hold; .ftz flushes f16",
          "[simulator][compare]") {
  // 1.0 < 2.0; NaN against 1.0; -0.0 == +0.0; the smallest subnormal against zero.
  std::vector<uint16_t> a = {0x3C00, 0x7E00, 0x8000, 0x0001};
  std::vector<uint16_t> b = {0x4000, 0x3C00, 0x0000, 0x0000};
  std::vector<uint32_t> plain =
      run_compare<uint16_t>("b16", compare_bits({"lt", "eq", "nan", "gtu"}, "f16"), a, b);
  REQUIRE(plain == std::vector<uint32_t>{0b0001, 0b1100, 0b0010, 0b1000});
  std::vector<uint32_t> flushed =
      run_compare<uint16_t>("b16", compare_bits({"eq"}, "ftz.f16"), {0x0001}, {0x0000});
  REQUIRE(flushed == std::vector<uint32_t>{1});
  // bfloat16: 1.0 (0x3F80) < 2.0 (0x4000).
  REQUIRE(run_compare<uint16_t>("b16", compare_bits({"lt"}, "bf16"), {0x3F80}, {0x4000}) ==
          std::vector<uint32_t>{1});
}

namespace {

// Runs an element_kernel body in a module for sm_90 (the bf16 forms of set require it).
template <class R, class A>
std::vector<R> run_sm90(const std::string& in, const std::string& out, const std::string& body,
                        const std::vector<A>& a, const std::vector<A>& b) {
  std::string text = element_kernel(in, out, body);
  text.replace(text.find("sm_80"), 5, "sm_90");
  return run_binary<R, A, A>(text, a, b);
}

}  // namespace

// PTX ISA "Half Precision Comparison Instructions: set": true is 1.0 in the destination's
// format for .f16 (0x3C00) and .bf16 (0x3F80), 0xffff for .u16/.s16, 0xffffffff for .u32/.s32.
TEST_CASE("set with a half destination writes 1.0 or 0.0 in that format", "[simulator][compare]") {
  // 1.0 == 1.0; 1.0 against NaN; -0.0 == +0.0.
  std::vector<uint16_t> a = {0x3C00, 0x3C00, 0x8000};
  std::vector<uint16_t> b = {0x3C00, 0x7E00, 0x0000};
  REQUIRE(run<uint16_t, uint16_t>("b16", "b16", "set.eq.f16.f16 %d, %a, %b;", a, b) ==
          std::vector<uint16_t>{0x3C00, 0, 0x3C00});
  REQUIRE(run<uint16_t, uint16_t>("b16", "b16", "set.neu.u16.f16 %d, %a, %b;", a, b) ==
          std::vector<uint16_t>{0, 0xFFFF, 0});
  REQUIRE(run<uint32_t, uint16_t>("b16", "b32", "set.nan.s32.f16 %d, %a, %b;", a, b) ==
          std::vector<uint32_t>{0, 0xFFFFFFFFu, 0});
  // A 32-bit source with an .f16 destination, combined with a predicate: (a < b) xor (a == 3).
  std::vector<int32_t> ia = {1, 3, 5};
  std::vector<int32_t> ib = {2, 4, 4};
  REQUIRE(run<uint16_t, int32_t>("s32", "b16",
                                 "setp.eq.s32 %p1, %a, 3;\n\tset.lt.xor.f16.s32 %d, %a, %b, %p1;",
                                 ia, ib) == std::vector<uint16_t>{0x3C00, 0, 0});
  // bfloat16: 1.0 (0x3F80) against 2.0 (0x4000) and NaN (0x7FC0).
  std::vector<uint16_t> ba = {0x3F80, 0x3F80};
  std::vector<uint16_t> bb = {0x4000, 0x7FC0};
  REQUIRE(run_sm90<uint16_t, uint16_t>("b16", "b16", "set.nan.bf16.bf16 %d, %a, %b;", ba, bb) ==
          std::vector<uint16_t>{0, 0x3F80});
  REQUIRE(run_sm90<uint16_t, uint16_t>("b16", "b16", "set.lt.f16.bf16 %d, %a, %b;", ba, bb) ==
          std::vector<uint16_t>{0x3C00, 0});
}

TEST_CASE("set and setp on .f16x2 and .bf16x2 compare each half on its own",
          "[simulator][compare]") {
  // Low halves 1.0 < 2.0 (true), high halves 3.0 < 1.0 (false); then both equal.
  std::vector<uint32_t> a = {0x42003C00u, 0x3C003C00u};
  std::vector<uint32_t> b = {0x3C004000u, 0x3C003C00u};
  REQUIRE(run<uint32_t, uint32_t>("b32", "b32", "set.lt.f16x2.f16x2 %d, %a, %b;", a, b) ==
          std::vector<uint32_t>{0x00003C00u, 0});
  REQUIRE(run<uint32_t, uint32_t>("b32", "b32", "set.le.u32.f16x2 %d, %a, %b;", a, b) ==
          std::vector<uint32_t>{0x0000FFFFu, 0xFFFFFFFFu});
  // setp: p the low half's result, q the high half's.
  REQUIRE(run<uint32_t, uint32_t>("b32", "b32",
                                  "setp.lt.f16x2 %p1|%p2, %a, %b;\n\tselp.u32 %r1, 1, 0, %p1;\n"
                                  "\tselp.u32 %r2, 2, 0, %p2;\n\tor.b32 %d, %r1, %r2;",
                                  a, b) == std::vector<uint32_t>{1, 0});
  // bfloat16 pairs: low 1.0 == 1.0, high 2.0 == 1.0.
  REQUIRE(run_sm90<uint32_t, uint32_t>("b32", "b32", "set.eq.bf16x2.bf16x2 %d, %a, %b;",
                                       {0x40003F80u},
                                       {0x3F803F80u}) == std::vector<uint32_t>{0x00003F80u});
}

TEST_CASE("set refuses destination and source types the manual does not pair",
          "[simulator][compare]") {
  for (const char* instruction :
       {"set.eq.f32.f16 %r1, %r1, %r2;", "set.eq.u16.f32 %r1, %r1, %r2;",
        "set.eq.f16x2.bf16x2 %r1, %r1, %r2;", "set.eq.f32.f16x2 %r1, %r1, %r2;",
        "set.eq.u16.f16x2 %r1, %r1, %r2;"}) {
    CAPTURE(instruction);
    REQUIRE_THAT(decode_error(instruction), Contains("unsupported instruction"));
  }
  // The bf16 forms came with PTX ISA 7.8 for sm_90; decode_error's module targets sm_80.
  REQUIRE_THAT(decode_error("set.eq.bf16.bf16 %r1, %r1, %r2;"), Contains("requires sm_90"));
  REQUIRE_THAT(decode_error("setp.lt.f16x2 %p1, %r1, %r2;"), Contains("p|q"));
}
