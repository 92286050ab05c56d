// Integer instructions (exec/ops/integer.cpp): each case runs a small PTX kernel over a few
// inputs and checks the results against values worked out here, edge cases first.
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>

#include "element_kernel.hpp"

using namespace cudajit::sim;
using namespace cudajit::sim::testing;
using Catch::Matchers::Contains;

namespace {

constexpr int32_t kIntMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kIntMax = std::numeric_limits<int32_t>::max();
constexpr int64_t kLongMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kLongMax = std::numeric_limits<int64_t>::max();

// Whether decoding `instruction` (with %r1..%r3 b32, %rd1..%rd3 b64, %p1 pred) is refused.
std::string decode_error(const std::string& instruction) {
  try {
    load(
        ptx_module(".visible .entry k()\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n"
                   ".reg .pred %p<2>;\n" +
                   instruction + "\nret;\n}\n"));
  } catch (const ptx::PtxError& e) {
    return e.what();
  }
  return "";
}

uint64_t u64(int64_t v) { return uint64_t(v); }

}  // namespace

// ---- add, sub, mul, mad

TEST_CASE("add wraps around at the type's width", "[simulator][integer]") {
  REQUIRE(run<uint32_t, uint32_t>("u32", "u32", "add.u32 %d, %a, %b;",
                                  {0xFFFFFFFFu, 5, 0x80000000u},
                                  {1, 7, 0x80000000u}) == std::vector<uint32_t>{0, 12, 0});
  REQUIRE(run<int64_t, int64_t>("s64", "s64", "add.s64 %d, %a, %b;", {kLongMax, -5}, {1, 3}) ==
          std::vector<int64_t>{kLongMin, -2});
  REQUIRE(run<uint16_t, uint16_t>("u16", "u16", "add.u16 %d, %a, %b;", {0xFFFF, 0x8000},
                                  {2, 0x8000}) == std::vector<uint16_t>{1, 0});
  // An immediate is read at the type's width: -1 is all ones.
  REQUIRE(run<uint32_t, uint32_t>("u32", "u32", "add.s32 %d, %a, -1;", {0, 10}) ==
          std::vector<uint32_t>{0xFFFFFFFFu, 9});
}

TEST_CASE("sub wraps around below zero", "[simulator][integer]") {
  REQUIRE(run<uint32_t, uint32_t>("u32", "u32", "sub.u32 %d, %a, %b;", {0, 7}, {1, 9}) ==
          std::vector<uint32_t>{0xFFFFFFFFu, 0xFFFFFFFEu});
  REQUIRE(run<int32_t, int32_t>("s32", "s32", "sub.s32 %d, %a, %b;", {kIntMin}, {1}) ==
          std::vector<int32_t>{kIntMax});
}

TEST_CASE("add.sat.s32 and sub.sat.s32 clamp to INT_MIN..INT_MAX", "[simulator][integer]") {
  std::vector<int32_t> a = {kIntMax, kIntMin, 5, -7, kIntMax};
  std::vector<int32_t> b = {1, -1, 6, 3, kIntMax};
  REQUIRE(run<int32_t, int32_t>("s32", "s32", "add.sat.s32 %d, %a, %b;", a, b) ==
          std::vector<int32_t>{kIntMax, kIntMin, 11, -4, kIntMax});
  REQUIRE(run<int32_t, int32_t>("s32", "s32", "sub.sat.s32 %d, %a, %b;", a, b) ==
          std::vector<int32_t>{kIntMax - 1, kIntMin + 1, -1, -10, 0});
  REQUIRE(run<int32_t, int32_t>("s32", "s32", "sub.sat.s32 %d, %a, %b;", {kIntMin, 0},
                                {1, kIntMin}) == std::vector<int32_t>{kIntMin, kIntMax});
}

TEST_CASE("mul.lo keeps the low half of the product and mul.hi the high half, signed or not",
          "[simulator][integer]") {
  std::vector<int32_t> a = {-3, 100000, kIntMin, -1, 7};
  std::vector<int32_t> b = {5, 300000, kIntMin, -1, -9};
  std::vector<int32_t> lo, hi;
  for (size_t i = 0; i < a.size(); ++i) {
    int64_t product = int64_t(a[i]) * b[i];
    lo.push_back(int32_t(uint32_t(uint64_t(product))));
    hi.push_back(int32_t(uint32_t(uint64_t(product) >> 32)));
  }
  REQUIRE(run<int32_t, int32_t>("s32", "s32", "mul.lo.s32 %d, %a, %b;", a, b) == lo);
  REQUIRE(run<int32_t, int32_t>("s32", "s32", "mul.hi.s32 %d, %a, %b;", a, b) == hi);
  // The same bits as unsigned: the high half differs.
  std::vector<uint32_t> ua(a.begin(), a.end()), ub(b.begin(), b.end()), uhi;
  for (size_t i = 0; i < a.size(); ++i) uhi.push_back(uint32_t(uint64_t(ua[i]) * ub[i] >> 32));
  REQUIRE(run<uint32_t, uint32_t>("u32", "u32", "mul.hi.u32 %d, %a, %b;", ua, ub) == uhi);
}

TEST_CASE("mul.hi of 64-bit operands is the top of the 128-bit product", "[simulator][integer]") {
  std::vector<int64_t> a = {-3, kLongMin, kLongMax, int64_t(0x123456789ABCDEFll)};
  std::vector<int64_t> b = {5, kLongMin, -2, int64_t(0x0FEDCBA987654321ll)};
  std::vector<int64_t> hi;
  std::vector<uint64_t> uhi;
  for (size_t i = 0; i < a.size(); ++i) {
    hi.push_back(int64_t(__int128(a[i]) * __int128(b[i]) >> 64));
    uhi.push_back(uint64_t((unsigned __int128)uint64_t(a[i]) * uint64_t(b[i]) >> 64));
  }
  REQUIRE(run<int64_t, int64_t>("s64", "s64", "mul.hi.s64 %d, %a, %b;", a, b) == hi);
  REQUIRE(run<uint64_t, int64_t>("s64", "u64", "mul.hi.u64 %d, %a, %b;", a, b) == uhi);
}

TEST_CASE("mul.wide gives the whole product at twice the width", "[simulator][integer]") {
  REQUIRE(run<uint64_t, uint32_t>("u32", "u64", "mul.wide.u32 %d, %a, %b;", {0xFFFFFFFFu, 3},
                                  {0xFFFFFFFFu, 4}) ==
          std::vector<uint64_t>{0xFFFFFFFE00000001ull, 12});
  REQUIRE(run<int64_t, int32_t>("s32", "s64", "mul.wide.s32 %d, %a, %b;", {kIntMin, -3},
                                {kIntMin, 100}) == std::vector<int64_t>{int64_t(1) << 62, -300});
  REQUIRE(run<int32_t, int16_t>("s16", "s32", "mul.wide.s16 %d, %a, %b;", {-32768, 300},
                                {-32768, -300}) == std::vector<int32_t>{1 << 30, -90000});
}

TEST_CASE("mad adds c to the low or high half, or to the wide product", "[simulator][integer]") {
  REQUIRE(run<uint32_t, uint32_t>("u32", "u32", "mad.lo.u32 %d, %a, %b, 7;", {0x10000, 3},
                                  {0x10000, 5}) == std::vector<uint32_t>{7, 22});
  REQUIRE(run<int32_t, int32_t>("s32", "s32", "mad.hi.s32 %d, %a, %b, %a;", {-2, 0x40000000},
                                {3, 8}) == std::vector<int32_t>{-1 + -2, 2 + 0x40000000});
  REQUIRE(run<int64_t, int32_t>("s32", "s64", "mad.wide.s32 %d, %a, %b, -5;", {-100000, 7},
                                {100000, 6}) == std::vector<int64_t>{-10000000000ll - 5, 37});
}

TEST_CASE("mad.hi.sat.s32 saturates the sum of the high half and c", "[simulator][integer]") {
  // hi(0x40000000 * 8) = 2; 2 + INT_MAX saturates; hi(-1 * 1) = -1; -1 + INT_MIN saturates.
  std::vector<int32_t> a = {0x40000000, -1, 0x40000000};
  std::vector<int32_t> b = {8, 1, 8};
  REQUIRE(run<int32_t, int32_t>("s32", "s32",
                                "setp.gt.s32 %p1, %a, 0;\n"
                                "selp.b32 %r1, 2147483647, -2147483648, %p1;\n"
                                "mad.hi.sat.s32 %d, %a, %b, %r1;",
                                a, b) == std::vector<int32_t>{kIntMax, kIntMin, kIntMax});
  REQUIRE(run<int32_t, int32_t>("s32", "s32", "mad.hi.sat.s32 %d, %a, %b, 5;", {0x40000000}, {8}) ==
          std::vector<int32_t>{7});
}

TEST_CASE("mul24 multiplies the low 24 bits, sign-extended for s32; .hi returns bits 47..16",
          "[simulator][integer]") {
  // 0xFF800000 has low 24 bits 0x800000: -8388608 as s32's 24-bit value, 8388608 as u32's.
  std::vector<uint32_t> a = {0xFF800000u, 0x00FFFFFFu, 3};
  std::vector<uint32_t> b = {2, 0x00FFFFFFu, 0x01000005u};
  std::vector<uint32_t> slo, shi, ulo, uhi;
  for (size_t i = 0; i < a.size(); ++i) {
    auto s24 = [](uint32_t v) { return int64_t(v & 0x7FFFFF) - int64_t(v & 0x800000); };
    int64_t s = s24(a[i]) * s24(b[i]);
    uint64_t u = uint64_t(a[i] & 0xFFFFFF) * (b[i] & 0xFFFFFF);
    slo.push_back(uint32_t(uint64_t(s))), shi.push_back(uint32_t(uint64_t(s) >> 16));
    ulo.push_back(uint32_t(u)), uhi.push_back(uint32_t(u >> 16));
  }
  REQUIRE(run<uint32_t, uint32_t>("u32", "u32", "mul24.lo.s32 %d, %a, %b;", a, b) == slo);
  REQUIRE(run<uint32_t, uint32_t>("u32", "u32", "mul24.hi.s32 %d, %a, %b;", a, b) == shi);
  REQUIRE(run<uint32_t, uint32_t>("u32", "u32", "mul24.lo.u32 %d, %a, %b;", a, b) == ulo);
  REQUIRE(run<uint32_t, uint32_t>("u32", "u32", "mul24.hi.u32 %d, %a, %b;", a, b) == uhi);
  std::vector<uint32_t> mad;
  for (uint32_t v : ulo) mad.push_back(v + 1);
  REQUIRE(run<uint32_t, uint32_t>("u32", "u32", "mad24.lo.u32 %d, %a, %b, 1;", a, b) == mad);
}

// ---- the carry chain

TEST_CASE("add.cc and addc chain two 32-bit adds into a 64-bit add", "[simulator][integer]") {
  std::vector<uint64_t> a = {0xFFFFFFFFull, 0xFFFFFFFFFFFFFFFFull, 0x00000001FFFFFFFFull, 12};
  std::vector<uint64_t> b = {1, 1, 0x00000001FFFFFFFFull, 30};
  std::vector<uint64_t> sum;
  for (size_t i = 0; i < a.size(); ++i) sum.push_back(a[i] + b[i]);
  REQUIRE(run<uint64_t, uint64_t>("u64", "u64",
                                  "mov.b64 {%r1, %r2}, %a;\n"
                                  "mov.b64 {%r3, %r4}, %b;\n"
                                  "add.cc.u32 %r5, %r1, %r3;\n"
                                  "addc.u32 %r6, %r2, %r4;\n"
                                  "mov.b64 %d, {%r5, %r6};",
                                  a, b) == sum);
}

TEST_CASE("sub.cc and subc chain two 32-bit subtractions through the borrow",
          "[simulator][integer]") {
  std::vector<uint64_t> a = {0x100000000ull, 0, 0x500000003ull, 5};
  std::vector<uint64_t> b = {1, 1, 0x200000004ull, 5};
  std::vector<uint64_t> difference;
  for (size_t i = 0; i < a.size(); ++i) difference.push_back(a[i] - b[i]);
  REQUIRE(run<uint64_t, uint64_t>("u64", "u64",
                                  "mov.b64 {%r1, %r2}, %a;\n"
                                  "mov.b64 {%r3, %r4}, %b;\n"
                                  "sub.cc.u32 %r5, %r1, %r3;\n"
                                  "subc.u32 %r6, %r2, %r4;\n"
                                  "mov.b64 %d, {%r5, %r6};",
                                  a, b) == difference);
}

TEST_CASE("addc.cc carries through every word of a 128-bit add of 64-bit parts",
          "[simulator][integer]") {
  // x = (a, b) and y = (b, a) as (high, low) words; the result is the high word of x + y + 1,
  // the + 1 entering as a third word's carry would (through a first add.cc of all ones + 1).
  std::vector<uint64_t> a = {0xFFFFFFFFFFFFFFFFull, 1, 0x8000000000000000ull};
  std::vector<uint64_t> b = {0, 0xFFFFFFFFFFFFFFFFull, 0x8000000000000000ull};
  std::vector<uint64_t> high;
  for (size_t i = 0; i < a.size(); ++i) {
    unsigned __int128 x = ((unsigned __int128)a[i] << 64) | b[i];
    unsigned __int128 y = ((unsigned __int128)b[i] << 64) | a[i];
    high.push_back(uint64_t((x + y + 1) >> 64));
  }
  REQUIRE(run<uint64_t, uint64_t>("u64", "u64",
                                  "add.cc.u64 %rd1, -1, 1;\n"
                                  "addc.cc.u64 %rd2, %b, %a;\n"
                                  "addc.u64 %d, %a, %b;",
                                  a, b) == high);
}

TEST_CASE("mad.lo.cc, madc.hi and addc compute a 64x64-bit product from 32-bit words",
          "[simulator][integer]") {
  // The ISA's example: [r3,r2,r1,r0] = [r5,r4] * [r7,r6]; the result here is [r3,r2].
  std::vector<uint64_t> a = {0xFFFFFFFFFFFFFFFFull, 0x123456789ABCDEF0ull, 0x100000000ull, 7};
  std::vector<uint64_t> b = {0xFFFFFFFFFFFFFFFFull, 0x0FEDCBA987654321ull, 0x100000000ull, 9};
  std::vector<uint64_t> high;
  for (size_t i = 0; i < a.size(); ++i)
    high.push_back(uint64_t((unsigned __int128)a[i] * b[i] >> 64));
  REQUIRE(run<uint64_t, uint64_t>("u64", "u64",
                                  "mov.b64 {%r4, %r5}, %a;\n"
                                  "mov.b64 {%r6, %r7}, %b;\n"
                                  "mul.lo.u32 %r0, %r4, %r6;\n"
                                  "mul.hi.u32 %r1, %r4, %r6;\n"
                                  "mad.lo.cc.u32 %r1, %r5, %r6, %r1;\n"
                                  "madc.hi.u32 %r2, %r5, %r6, 0;\n"
                                  "mad.lo.cc.u32 %r1, %r4, %r7, %r1;\n"
                                  "madc.hi.cc.u32 %r2, %r4, %r7, %r2;\n"
                                  "addc.u32 %r3, 0, 0;\n"
                                  "mad.lo.cc.u32 %r2, %r5, %r7, %r2;\n"
                                  "madc.hi.u32 %r3, %r5, %r7, %r3;\n"
                                  "mov.b64 %d, {%r2, %r3};",
                                  a, b) == high);
}

// ---- div, rem, abs, neg, min, max

TEST_CASE("div and rem round toward zero; INT_MIN / -1 is INT_MIN and INT_MIN % -1 is 0",
          "[simulator][integer]") {
  std::vector<int32_t> a = {7, -7, 7, -7, kIntMin, kIntMin, 0};
  std::vector<int32_t> b = {2, 2, -2, -2, -1, 1, 5};
  REQUIRE(run<int32_t, int32_t>("s32", "s32", "div.s32 %d, %a, %b;", a, b) ==
          std::vector<int32_t>{3, -3, -3, 3, kIntMin, kIntMin, 0});
  REQUIRE(run<int32_t, int32_t>("s32", "s32", "rem.s32 %d, %a, %b;", a, b) ==
          std::vector<int32_t>{1, -1, 1, -1, 0, 0, 0});
  REQUIRE(run<int64_t, int64_t>("s64", "s64", "div.s64 %d, %a, %b;", {kLongMin, -9}, {-1, 4}) ==
          std::vector<int64_t>{kLongMin, -2});
  REQUIRE(run<int16_t, int16_t>("s16", "s16", "rem.s16 %d, %a, %b;", {-32768, -9}, {-1, 4}) ==
          std::vector<int16_t>{0, -1});
  REQUIRE(run<uint16_t, uint16_t>("u16", "u16", "div.u16 %d, %a, %b;", {0xFFFF, 9}, {2, 4}) ==
          std::vector<uint16_t>{0x7FFF, 2});
}

TEST_CASE("division by zero gives all ones from div and rem, signed or not, as NVIDIA GPUs do",
          "[simulator][integer]") {
  REQUIRE(run<uint32_t, uint32_t>("u32", "u32", "div.u32 %d, %a, %b;", {5, 0}, {0, 0}) ==
          std::vector<uint32_t>{0xFFFFFFFFu, 0xFFFFFFFFu});
  REQUIRE(run<uint32_t, uint32_t>("u32", "u32", "rem.u32 %d, %a, %b;", {5}, {0}) ==
          std::vector<uint32_t>{0xFFFFFFFFu});
  REQUIRE(run<int32_t, int32_t>("s32", "s32", "div.s32 %d, %a, %b;", {-5, 5}, {0, 0}) ==
          std::vector<int32_t>{-1, -1});
  REQUIRE(run<int32_t, int32_t>("s32", "s32", "rem.s32 %d, %a, %b;", {-5}, {0}) ==
          std::vector<int32_t>{-1});
  REQUIRE(run<uint64_t, uint64_t>("u64", "u64", "div.u64 %d, %a, %b;", {5}, {0}) ==
          std::vector<uint64_t>{~0ull});
  REQUIRE(run<uint16_t, uint16_t>("u16", "u16", "rem.u16 %d, %a, %b;", {5}, {0}) ==
          std::vector<uint16_t>{0xFFFF});
}

TEST_CASE("abs and neg wrap: both leave INT_MIN as it is", "[simulator][integer]") {
  std::vector<int32_t> a = {kIntMin, -5, 0, kIntMax};
  REQUIRE(run<int32_t, int32_t>("s32", "s32", "abs.s32 %d, %a;", a) ==
          std::vector<int32_t>{kIntMin, 5, 0, kIntMax});
  REQUIRE(run<int32_t, int32_t>("s32", "s32", "neg.s32 %d, %a;", a) ==
          std::vector<int32_t>{kIntMin, 5, 0, -kIntMax});
  REQUIRE(run<int64_t, int64_t>("s64", "s64", "neg.s64 %d, %a;", {kLongMin, 3}) ==
          std::vector<int64_t>{kLongMin, -3});
  REQUIRE(run<int16_t, int16_t>("s16", "s16", "abs.s16 %d, %a;", {-32768, -2}) ==
          std::vector<int16_t>{-32768, 2});
}

TEST_CASE("min and max compare as signed or unsigned, as the type says", "[simulator][integer]") {
  std::vector<int32_t> a = {-1, 5, kIntMin};
  std::vector<int32_t> b = {1, 3, kIntMax};
  REQUIRE(run<int32_t, int32_t>("s32", "s32", "min.s32 %d, %a, %b;", a, b) ==
          std::vector<int32_t>{-1, 3, kIntMin});
  REQUIRE(run<int32_t, int32_t>("s32", "s32", "max.s32 %d, %a, %b;", a, b) ==
          std::vector<int32_t>{1, 5, kIntMax});
  // As u32, -1 is the largest value.
  REQUIRE(run<int32_t, int32_t>("s32", "s32", "min.u32 %d, %a, %b;", a, b) ==
          std::vector<int32_t>{1, 3, kIntMax});
  REQUIRE(run<uint64_t, uint64_t>("u64", "u64", "max.u64 %d, %a, %b;", {~0ull}, {1}) ==
          std::vector<uint64_t>{~0ull});
  REQUIRE(run<int64_t, int64_t>("s64", "s64", "max.s64 %d, %a, %b;", {-1}, {1}) ==
          std::vector<int64_t>{1});
}

// ---- logic and shifts

TEST_CASE("and, or, xor, not and cnot act on the bits of their type", "[simulator][integer]") {
  std::vector<uint32_t> a = {0xF0F0F0F0u, 0, 0x12345678u};
  std::vector<uint32_t> b = {0xFF00FF00u, 0, 0xFFFFFFFFu};
  auto each = [&](auto f) {
    std::vector<uint32_t> r;
    for (size_t i = 0; i < a.size(); ++i) r.push_back(f(a[i], b[i]));
    return r;
  };
  REQUIRE(run<uint32_t, uint32_t>("b32", "b32", "and.b32 %d, %a, %b;", a, b) ==
          each([](uint32_t x, uint32_t y) { return x & y; }));
  REQUIRE(run<uint32_t, uint32_t>("b32", "b32", "or.b32 %d, %a, %b;", a, b) ==
          each([](uint32_t x, uint32_t y) { return x | y; }));
  REQUIRE(run<uint32_t, uint32_t>("b32", "b32", "xor.b32 %d, %a, %b;", a, b) ==
          each([](uint32_t x, uint32_t y) { return x ^ y; }));
  REQUIRE(run<uint32_t, uint32_t>("b32", "b32", "not.b32 %d, %a;", a, b) ==
          each([](uint32_t x, uint32_t) { return ~x; }));
  REQUIRE(run<uint32_t, uint32_t>("b32", "b32", "cnot.b32 %d, %a;", a, b) ==
          std::vector<uint32_t>{0, 1, 0});
  REQUIRE(run<uint16_t, uint16_t>("b16", "b16", "not.b16 %d, %a;", {0x00FF}) ==
          std::vector<uint16_t>{0xFF00});
  REQUIRE(run<uint64_t, uint64_t>("b64", "b64", "xor.b64 %d, %a, %b;", {~0ull}, {1}) ==
          std::vector<uint64_t>{~1ull});
}

TEST_CASE("and.pred, or.pred, xor.pred, not.pred and mov.pred combine predicates",
          "[simulator][integer]") {
  // d's bits: and, or, xor, not a, mov a.
  std::string body = R"(
	setp.ne.u32 %p1, %a, 0;
	setp.ne.u32 %p2, %b, 0;
	and.pred %p3, %p1, %p2;
	or.pred %p4, %p1, %p2;
	xor.pred %p5, %p1, %p2;
	not.pred %p6, %p1;
	mov.pred %p7, %p1;
	selp.u32 %r1, 1, 0, %p3;
	selp.u32 %r2, 2, 0, %p4;
	selp.u32 %r3, 4, 0, %p5;
	selp.u32 %r4, 8, 0, %p6;
	selp.u32 %r5, 16, 0, %p7;
	or.b32 %d, %r1, %r2;
	or.b32 %d, %d, %r3;
	or.b32 %d, %d, %r4;
	or.b32 %d, %d, %r5;)";
  std::vector<uint32_t> a = {0, 0, 1, 1}, b = {0, 1, 0, 1}, expected;
  for (size_t i = 0; i < a.size(); ++i) {
    bool x = a[i], y = b[i];
    expected.push_back((x && y) | ((x || y) << 1) | ((x != y) << 2) | ((!x) << 3) | (x << 4));
  }
  REQUIRE(run<uint32_t, uint32_t>("u32", "u32", body, a, b) == expected);
}

TEST_CASE("shl and shr clamp the shift at the width; shr.s fills with the sign",
          "[simulator][integer]") {
  std::vector<uint32_t> a = {0x80000001u, 0x80000001u, 0x80000001u, 0x80000001u, 0x40000000u};
  std::vector<uint32_t> n = {1, 31, 32, 0xFFFFFFFFu, 40};
  REQUIRE(run<uint32_t, uint32_t>("b32", "b32", "shl.b32 %d, %a, %b;", a, n) ==
          std::vector<uint32_t>{2, 0x80000000u, 0, 0, 0});
  REQUIRE(run<uint32_t, uint32_t>("b32", "b32", "shr.u32 %d, %a, %b;", a, n) ==
          std::vector<uint32_t>{0x40000000u, 1, 0, 0, 0});
  REQUIRE(run<uint32_t, uint32_t>("b32", "b32", "shr.b32 %d, %a, %b;", a, n) ==
          std::vector<uint32_t>{0x40000000u, 1, 0, 0, 0});
  REQUIRE(run<uint32_t, uint32_t>("b32", "b32", "shr.s32 %d, %a, %b;", a, n) ==
          std::vector<uint32_t>{0xC0000000u, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0});
}

TEST_CASE("shifts of 16- and 64-bit values clamp at their own width", "[simulator][integer]") {
  // The value is a's low half, the amount b.
  REQUIRE(run<uint16_t, uint32_t>("b32", "b16",
                                  "mov.b32 {%h1, _}, %a;\n"
                                  "shl.b16 %d, %h1, %b;",
                                  {0x8001, 0x8001}, {1, 16}) == std::vector<uint16_t>{2, 0});
  REQUIRE(run<int16_t, uint32_t>("b32", "s16",
                                 "mov.b32 {%h1, _}, %a;\n"
                                 "shr.s16 %d, %h1, %b;",
                                 {0x8000, 0x8000, 0x4000},
                                 {15, 16, 20}) == std::vector<int16_t>{-1, -1, 0});
  REQUIRE(run<uint64_t, uint64_t>("b64", "b64",
                                  "mov.b64 {%r1, _}, %b;\n"
                                  "shl.b64 %d, %a, %r1;",
                                  {1, 1, 3}, {63, 64, 1}) ==
          std::vector<uint64_t>{0x8000000000000000ull, 0, 6});
  REQUIRE(run<int64_t, int64_t>("s64", "s64", "shr.s64 %d, %a, 70;", {kLongMin, 5}) ==
          std::vector<int64_t>{-1, 0});
}

// ---- bit fields and bit counts

namespace {

// bfe as the ISA's pseudo-code states it, bit by bit.
template <class T>
T reference_bfe(T a, uint32_t b, uint32_t c) {
  using U = std::make_unsigned_t<T>;
  const uint32_t msb = 8 * sizeof(T) - 1;
  uint32_t pos = b & 0xFF, len = c & 0xFF;
  auto bit = [&](uint32_t i) { return (U(a) >> i) & 1; };
  U sbit = (std::is_unsigned_v<T> || len == 0) ? 0 : bit(std::min(pos + len - 1, msb));
  U d = 0;
  for (uint32_t i = 0; i <= msb; ++i)
    d |= U((i < len && pos + i <= msb) ? bit(pos + i) : sbit) << i;
  return T(d);
}

// bfi likewise.
template <class U>
U reference_bfi(U a, U b, uint32_t c, uint32_t d) {
  const uint32_t msb = 8 * sizeof(U) - 1;
  uint32_t pos = c & 0xFF, len = d & 0xFF;
  U f = b;
  for (uint32_t i = 0; i < len && pos + i <= msb; ++i)
    f = U((f & ~(U(1) << (pos + i))) | (((a >> i) & 1) << (pos + i)));
  return f;
}

}  // namespace

TEST_CASE(
    "bfe extracts a field, sign-extending for .s32; length 0 gives 0; bits past the msb "
    "read as the field's sign",
    "[simulator][integer]") {
  // b's low byte is the position, the next byte the length.
  std::vector<uint32_t> a = {0x0000F0F0u, 0x0000F0F0u, 0x80000000u, 0x12345678u,
                             0x80000000u, 0x7FFFFFFFu, 0xFFFFFFFFu, 0xABCDEF01u};
  std::vector<uint32_t> b = {0x0404, 0x0804, 0x0000 | 8, 0x2000, 0x0A1E, 0x0520, 0x00FF, 0x1F01};
  std::string body = "and.b32 %r1, %b, 255;\nshr.u32 %r2, %b, 8;\n";
  std::vector<uint32_t> u, s;
  for (size_t i = 0; i < a.size(); ++i) {
    u.push_back(reference_bfe<uint32_t>(a[i], b[i] & 0xFF, b[i] >> 8));
    s.push_back(uint32_t(reference_bfe<int32_t>(int32_t(a[i]), b[i] & 0xFF, b[i] >> 8)));
  }
  REQUIRE(run<uint32_t, uint32_t>("u32", "u32", body + "bfe.u32 %d, %a, %r1, %r2;", a, b) == u);
  REQUIRE(run<uint32_t, uint32_t>("u32", "u32", body + "bfe.s32 %d, %a, %r1, %r2;", a, b) == s);
  // Spot checks of the rules themselves.
  REQUIRE(s[0] == 0xFFFFFFFFu);  // 4 bits 0xF from bit 4, sign-extended
  REQUIRE(s[2] == 0);            // length 0
  REQUIRE(s[5] == 0);            // position 32 in 0x7FFFFFFF: the sign, 0
  REQUIRE(s[4] == 0xFFFFFFFEu);  // 10 bits from 30: bits 30, 31 then the sign
  REQUIRE(u[4] == 2);
}

TEST_CASE("bfe on 64-bit values extracts across the word boundary", "[simulator][integer]") {
  std::vector<uint64_t> a = {0x8000000180000000ull, 0xFEDCBA9876543210ull, 0x8000000000000000ull};
  std::vector<uint64_t> b = {0x0A1C, 0x2020, 0x0840};
  std::string body = "mov.b64 {%r3, _}, %b;\nand.b32 %r1, %r3, 255;\nshr.u32 %r2, %r3, 8;\n";
  std::vector<uint64_t> u, s;
  for (size_t i = 0; i < a.size(); ++i) {
    u.push_back(reference_bfe<uint64_t>(a[i], b[i] & 0xFF, uint32_t(b[i] >> 8)));
    s.push_back(u64(reference_bfe<int64_t>(int64_t(a[i]), b[i] & 0xFF, uint32_t(b[i] >> 8))));
  }
  REQUIRE(run<uint64_t, uint64_t>("u64", "u64", body + "bfe.u64 %d, %a, %r1, %r2;", a, b) == u);
  REQUIRE(run<uint64_t, uint64_t>("u64", "u64", body + "bfe.s64 %d, %a, %r1, %r2;", a, b) == s);
  REQUIRE(s[2] == ~0ull);  // position 64: the sign of a
}

TEST_CASE("bfi inserts a's low bits at a position; length 0 or a position past the msb leave b",
          "[simulator][integer]") {
  // a = 0xFFFFFFFF; b's low half is the value inserted into, its high bytes position, length.
  std::vector<uint32_t> b = {0x04080000u | 0x1234, 0x1C080000u | 0x1234, 0x00000000u | 0x1234,
                             0x20080000u | 0x1234, 0x00FF0000u | 0x1234, 0x10100000u | 0x1234};
  std::vector<uint32_t> a(b.size(), 0xFFFFFFFFu), expected;
  for (uint32_t v : b)
    expected.push_back(reference_bfi<uint32_t>(~0u, v & 0xFFFF, v >> 24, (v >> 16) & 0xFF));
  REQUIRE(run<uint32_t, uint32_t>("u32", "u32",
                                  "shr.u32 %r1, %b, 24;\n"
                                  "bfe.u32 %r2, %b, 16, 8;\n"
                                  "and.b32 %r3, %b, 65535;\n"
                                  "bfi.b32 %d, %a, %r3, %r1, %r2;",
                                  a, b) == expected);
  REQUIRE(expected[0] == (0x0FF0u | 0x1234u));  // 8 ones at bit 4
  REQUIRE(expected[2] == 0x1234u);              // length 0
  REQUIRE(expected[3] == 0x1234u);              // position 32
  REQUIRE(run<uint64_t, uint64_t>("b64", "b64", "bfi.b64 %d, %a, %b, 60, 8;", {0xFF}, {0}) ==
          std::vector<uint64_t>{0xF000000000000000ull});
}

TEST_CASE("clz, popc and brev count and reverse the bits of b32 and b64; counts are u32",
          "[simulator][integer]") {
  std::vector<uint64_t> a = {0, 1, 0x8000000000000000ull, 0x00F0000000000F00ull, ~0ull};
  std::vector<uint32_t> clz, popc;
  std::vector<uint64_t> brev;
  for (uint64_t v : a) {
    uint32_t zeros = 0;
    while (zeros < 64 && !((v << zeros) & 0x8000000000000000ull)) ++zeros;
    clz.push_back(zeros);
    uint32_t ones = 0;
    for (int i = 0; i < 64; ++i) ones += (v >> i) & 1;
    popc.push_back(ones);
    uint64_t r = 0;
    for (int i = 0; i < 64; ++i) r |= ((v >> i) & 1) << (63 - i);
    brev.push_back(r);
  }
  REQUIRE(run<uint32_t, uint64_t>("b64", "u32", "clz.b64 %d, %a;", a) == clz);
  REQUIRE(run<uint32_t, uint64_t>("b64", "u32", "popc.b64 %d, %a;", a) == popc);
  REQUIRE(run<uint64_t, uint64_t>("b64", "b64", "brev.b64 %d, %a;", a) == brev);
  REQUIRE(run<uint32_t, uint32_t>("b32", "u32", "clz.b32 %d, %a;", {0, 1, 0x00010000u}) ==
          std::vector<uint32_t>{32, 31, 15});
  REQUIRE(run<uint32_t, uint32_t>("b32", "u32", "popc.b32 %d, %a;", {0xFFFFFFFFu, 0x10101}) ==
          std::vector<uint32_t>{32, 3});
  REQUIRE(run<uint32_t, uint32_t>("b32", "b32", "brev.b32 %d, %a;", {1, 0x0000FFF0u}) ==
          std::vector<uint32_t>{0x80000000u, 0x0FFF0000u});
}

TEST_CASE(
    "bfind finds the msb that differs from the sign, all ones when there is none; "
    ".shiftamt counts from the top",
    "[simulator][integer]") {
  std::vector<uint32_t> a = {0, 1, 0x80000000u, 0xFFFFFFFFu, 0xFFFF0000u, 0x00012345u};
  REQUIRE(run<uint32_t, uint32_t>("u32", "u32", "bfind.u32 %d, %a;", a) ==
          std::vector<uint32_t>{0xFFFFFFFFu, 0, 31, 31, 31, 16});
  REQUIRE(run<uint32_t, uint32_t>("u32", "u32", "bfind.s32 %d, %a;", a) ==
          std::vector<uint32_t>{0xFFFFFFFFu, 0, 30, 0xFFFFFFFFu, 15, 16});
  REQUIRE(run<uint32_t, uint32_t>("u32", "u32", "bfind.shiftamt.u32 %d, %a;", a) ==
          std::vector<uint32_t>{0xFFFFFFFFu, 31, 0, 0, 0, 15});
  REQUIRE(run<uint32_t, int64_t>("s64", "u32", "bfind.s64 %d, %a;", {-1, -2, 1ll << 40}) ==
          std::vector<uint32_t>{0xFFFFFFFFu, 0, 40});
}

TEST_CASE("prmt picks bytes of {b, a} by 4-bit selectors; selector bit 3 replicates the sign",
          "[simulator][integer]") {
  // a = 0x80402010 (bytes 0-3), b = 0x08040201 (bytes 4-7).
  std::vector<uint32_t> a = {0x80402010u, 0x80402010u, 0x80402010u};
  std::vector<uint32_t> b = {0x08040201u, 0x08040201u, 0x08040201u};
  REQUIRE(run<uint32_t, uint32_t>("b32", "b32",
                                  "mov.u32 %r1, 0x3210;\n"
                                  "setp.eq.u32 %p1, %tid.x, 1;\n"
                                  "@%p1 mov.u32 %r1, 0x4567;\n"
                                  "setp.eq.u32 %p1, %tid.x, 2;\n"
                                  "@%p1 mov.u32 %r1, 0x8B03;\n"
                                  "prmt.b32 %d, %a, %b, %r1;",
                                  a, b) ==
          std::vector<uint32_t>{0x80402010u, 0x01020408u, 0x00FF1080u});
}

TEST_CASE("prmt's modes pick bytes by the two low bits of c", "[simulator][integer]") {
  std::vector<uint32_t> a = {0x33221100u, 0x33221100u};
  std::vector<uint32_t> b = {0x77665544u, 0x77665544u};
  auto mode = [&](const std::string& m) {
    return run<uint32_t, uint32_t>(
        "b32", "b32", "mov.u32 %r1, %tid.x;\nprmt.b32." + m + " %d, %a, %b, %r1;", a, b);
  };
  REQUIRE(mode("f4e") == std::vector<uint32_t>{0x33221100u, 0x44332211u});
  REQUIRE(mode("b4e") == std::vector<uint32_t>{0x55667700u, 0x66770011u});
  REQUIRE(mode("rc8") == std::vector<uint32_t>{0x00000000u, 0x11111111u});
  REQUIRE(mode("ecl") == std::vector<uint32_t>{0x33221100u, 0x33221111u});
  REQUIRE(mode("ecr") == std::vector<uint32_t>{0x00000000u, 0x11111100u});
  REQUIRE(mode("rc16") == std::vector<uint32_t>{0x11001100u, 0x33223322u});
}

TEST_CASE(
    "lop3 applies its look-up table to three inputs; shf funnels two words; sad adds the "
    "absolute difference",
    "[simulator][integer]") {
  std::vector<uint32_t> a = {0xF0F0F0F0u, 0x12345678u};
  std::vector<uint32_t> b = {0xCCCCCCCCu, 0x9ABCDEF0u};
  // 0x80: a & b & c; 0x1A: (a & b | c) ^ a, with c = 0xAAAAAAAA.
  std::vector<uint32_t> all, mixed;
  for (size_t i = 0; i < a.size(); ++i) {
    all.push_back(a[i] & b[i] & 0xAAAAAAAAu);
    mixed.push_back(((a[i] & b[i]) | 0xAAAAAAAAu) ^ a[i]);
  }
  REQUIRE(run<uint32_t, uint32_t>("b32", "b32", "lop3.b32 %d, %a, %b, 0xAAAAAAAA, 0x80;", a, b) ==
          all);
  REQUIRE(run<uint32_t, uint32_t>("b32", "b32", "lop3.b32 %d, %a, %b, 0xAAAAAAAA, 0x1A;", a, b) ==
          mixed);
  REQUIRE(run<uint32_t, uint32_t>("b32", "b32", "shf.l.clamp.b32 %d, %a, %b, 8;", a, b) ==
          std::vector<uint32_t>{0xCCCCCCF0u, 0xBCDEF012u});
  REQUIRE(run<uint32_t, uint32_t>("b32", "b32", "shf.r.wrap.b32 %d, %a, %b, 36;", a, b) ==
          std::vector<uint32_t>{0xCF0F0F0Fu, 0x01234567u});
  REQUIRE(run<uint32_t, uint32_t>("b32", "b32", "shf.r.clamp.b32 %d, %a, %b, 40;", a, b) == b);
  REQUIRE(run<int32_t, int32_t>("s32", "s32", "sad.s32 %d, %a, %b, 100;", {-5, 5}, {5, -5}) ==
          std::vector<int32_t>{110, 110});
}

// ---- mov, selp, slct

TEST_CASE("mov.b64 packs and unpacks b32 halves, mov.b32 b16 halves, low element first",
          "[simulator][integer]") {
  std::vector<uint64_t> a = {0x1122334455667788ull};
  REQUIRE(run<uint64_t, uint64_t>("b64", "b64",
                                  "mov.b64 {%r1, %r2}, %a;\n"
                                  "mov.b64 %d, {%r2, %r1};",
                                  a) == std::vector<uint64_t>{0x5566778811223344ull});
  REQUIRE(run<uint64_t, uint64_t>("b64", "b64",
                                  "mov.b64 {%h1, %h2, %h3, %h4}, %a;\n"
                                  "mov.b64 %d, {%h4, %h3, %h2, %h1};",
                                  a) == std::vector<uint64_t>{0x7788556633441122ull});
  REQUIRE(run<uint32_t, uint32_t>("b32", "b32",
                                  "mov.b32 {%h1, _}, %a;\n"
                                  "mov.b32 {_, %h2}, %a;\n"
                                  "mov.b32 %d, {%h2, %h1};",
                                  {0xAAAABBBBu}) == std::vector<uint32_t>{0xBBBBAAAAu});
  REQUIRE(run<uint32_t, uint32_t>("b32", "b32",
                                  "mov.b32 {%h1, _}, %a;\n"
                                  "mov.b32 %d, {%h1, 0x1234};",
                                  {0xFFFF5678u}) == std::vector<uint32_t>{0x12345678u});
}

TEST_CASE("mov copies registers and immediates at the type's width", "[simulator][integer]") {
  REQUIRE(run<uint32_t, uint32_t>("u32", "u32", "mov.u32 %d, -1;", {0}) ==
          std::vector<uint32_t>{0xFFFFFFFFu});
  REQUIRE(run<uint16_t, uint16_t>("u16", "u16", "mov.u16 %d, 0x12345;", {0}) ==
          std::vector<uint16_t>{0x2345});
  REQUIRE(run<uint64_t, uint64_t>("u64", "u64", "mov.u64 %rd1, %a;\nmov.b64 %d, %rd1;",
                                  {0xDEADBEEFCAFEF00Dull}) ==
          std::vector<uint64_t>{0xDEADBEEFCAFEF00Dull});
  // A register loaded with sign extension is read at the mov's width.
  REQUIRE(run<uint32_t, int32_t>("s32", "u32", "mov.b32 %r1, %a;\nmov.b32 %d, %r1;", {-2}) ==
          std::vector<uint32_t>{0xFFFFFFFEu});
  REQUIRE(run<float, float>("f32", "f32", "mov.f32 %d, 0f3FC00000;", {0.0f}) ==
          std::vector<float>{1.5f});
}

TEST_CASE("mov from %clock64, %clock and %globaltimer reads a counter that increases",
          "[simulator][integer]") {
  auto deltas = run<uint64_t, uint64_t>("u64", "u64",
                                        "mov.u64 %rd1, %clock64;\n"
                                        "mov.u64 %rd2, %globaltimer;\n"
                                        "mov.u32 %r1, %clock;\n"
                                        "mov.u64 %rd3, %clock64;\n"
                                        "sub.s64 %d, %rd3, %rd1;\n"
                                        "setp.le.u64 %p1, %rd2, %rd1;\n"
                                        "@%p1 mov.u64 %d, 0;",
                                        std::vector<uint64_t>(40));
  for (uint64_t d : deltas) REQUIRE(d > 0);
  REQUIRE(decode_error("mov.u32 %r1, %clock64;") != "");
}

TEST_CASE("selp picks a where the predicate holds, else b", "[simulator][integer]") {
  REQUIRE(run<uint64_t, uint64_t>("u64", "u64",
                                  "setp.gt.u64 %p1, %a, %b;\n"
                                  "selp.b64 %d, %a, %b, %p1;",
                                  {1, 9, ~0ull}, {5, 2, 0}) == std::vector<uint64_t>{5, 9, ~0ull});
  REQUIRE(run<int16_t, int16_t>("s16", "s16",
                                "setp.lt.s16 %p1, %a, %b;\n"
                                "selp.s16 %d, %a, %b, %p1;",
                                {-3, 4}, {2, -1}) == std::vector<int16_t>{-3, -1});
}

TEST_CASE(
    "slct picks a where c >= 0: for f32 c, -0 selects a, NaN selects b, and .ftz reads "
    "a subnormal as zero",
    "[simulator][integer]") {
  REQUIRE(run<int32_t, int32_t>("s32", "s32", "slct.s32.s32 %d, 1, 2, %a;",
                                {0, -1, kIntMin, kIntMax}) == std::vector<int32_t>{1, 2, 2, 1});
  float subnormal = -std::numeric_limits<float>::denorm_min();
  std::vector<float> c = {-0.0f, std::nanf(""), subnormal, -1.0f, 2.0f};
  REQUIRE(run<uint32_t, float>("f32", "u32", "slct.u32.f32 %d, 1, 2, %a;", c) ==
          std::vector<uint32_t>{1, 2, 2, 2, 1});
  REQUIRE(run<uint32_t, float>("f32", "u32", "slct.ftz.u32.f32 %d, 1, 2, %a;", c) ==
          std::vector<uint32_t>{1, 2, 1, 2, 1});
}

TEST_CASE("a guarded instruction leaves the lanes whose guard fails unchanged",
          "[simulator][integer]") {
  std::vector<uint32_t> a(70), expected;
  for (uint32_t i = 0; i < a.size(); ++i) {
    a[i] = i;
    expected.push_back(i % 3 == 0 ? 1000 + i * 4 : i);
  }
  REQUIRE(run<uint32_t, uint32_t>("u32", "u32",
                                  "mov.u32 %d, %a;\n"
                                  "rem.u32 %r1, %a, 3;\n"
                                  "setp.eq.u32 %p1, %r1, 0;\n"
                                  "@%p1 mad.lo.u32 %d, %a, 4, 1000;",
                                  a) == expected);
}

TEST_CASE("modifiers and types an integer instruction does not have are refused",
          "[simulator][integer]") {
  for (const char* instruction :
       {"add.sat.u32 %r1, %r2, %r3;", "add.cc.u16 %r1, %r2, %r3;", "mul.wide.u64 %rd1, %rd2, %rd3;",
        "mul.u32 %r1, %r2, %r3;", "mul.lo.hi.u32 %r1, %r2, %r3;",
        "mad.hi.sat.u32 %r1, %r2, %r3, %r1;", "mad.lo.sat.s32 %r1, %r2, %r3, %r1;",
        "min.relu.s32 %r1, %r2, %r3;", "abs.u32 %r1, %r2;", "div.b32 %r1, %r2, %r3;",
        "shl.u32 %r1, %r2, 1;", "and.u32 %r1, %r2, %r3;", "bfi.b16 %r1, %r2, %r3, 0, 4;",
        "prmt.b32.f4e.b4e %r1, %r2, %r3, 0;", "mov.b128 %rd1, %rd2;", "addc.sat.u32 %r1, %r2, %r3;",
        "mul24.wide.u32 %r1, %r2, %r3;", "popc.b16 %r1, %r2;"}) {
    CAPTURE(instruction);
    REQUIRE_THAT(decode_error(instruction), Contains("unsupported instruction"));
  }
  REQUIRE_THAT(decode_error("add.u32 %r1, !%p1, %r3;"), Contains("negated"));
  REQUIRE_THAT(decode_error("add.u32 %r1, %r2;"), Contains("expects 3 operands"));
}

TEST_CASE("integer handlers run at least 50 M thread-instructions a second",
          "[.][benchmark][simulator]") {
  auto program = load(ptx_module(R"(
.visible .entry k(.param .u32 n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	mov.u64 %rd1, 0;
LOOP:
	add.s32 %r3, %r2, %r1;
	mul.lo.u32 %r4, %r3, 3;
	xor.b32 %r5, %r4, %r2;
	shl.b32 %r6, %r5, 2;
	mul.wide.u32 %rd2, %r6, 5;
	add.s64 %rd1, %rd1, %rd2;
	sub.s32 %r1, %r1, 1;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra LOOP;
	ret;
}
)"));
  TestMemory memory;
  uint32_t n = 2000;
  auto start = std::chrono::steady_clock::now();
  LaunchStats stats = launch(*program, "k", {16, 1, 1}, {256, 1, 1}, {&n}, memory.memory, 0, 1);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double rate = double(stats.thread_instructions) / seconds;
  WARN("integer loop: " << rate / 1e6 << " M thread-instructions/s on one host thread");
  REQUIRE(rate > 50e6);
}
