// Float instructions against values worked out by hand: each rounding mode where
// they differ, .ftz, .sat, NaN rules, the approximate instructions' special cases,
// and ptxas's contraction of mul+add into fma.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "element_kernel.hpp"

using namespace cudajit::sim::testing;

namespace {
constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();
}  // namespace

TEST_CASE("add.f32 rounds as its modifier says", "[simulator][float]") {
  const float tiny = 0x1p-30f;
  std::vector<float> a = {1.0f, -1.0f}, b = {tiny, -tiny};
  auto rn = run_elements<float>("add.rn.f32 %d, %a, %b;", a, b);
  auto rz = run_elements<float>("add.rz.f32 %d, %a, %b;", a, b);
  auto rm = run_elements<float>("add.rm.f32 %d, %a, %b;", a, b);
  auto rp = run_elements<float>("add.rp.f32 %d, %a, %b;", a, b);
  REQUIRE(rn == std::vector<float>{1.0f, -1.0f});
  REQUIRE(rz == std::vector<float>{1.0f, -1.0f});
  REQUIRE(rm == std::vector<float>{1.0f, std::nextafter(-1.0f, -2.0f)});
  REQUIRE(rp == std::vector<float>{std::nextafter(1.0f, 2.0f), -1.0f});
}

TEST_CASE("mul.f64 and div.f32 round in each direction", "[simulator][float]") {
  double x = 1.0 + 0x1p-52;  // x*x = 1 + 2^-51 + 2^-104
  auto rn = run_elements<double>("mul.rn.f64 %d, %a, %b;", std::vector<double>{x},
                                 std::vector<double>{x});
  auto rp = run_elements<double>("mul.rp.f64 %d, %a, %b;", std::vector<double>{x},
                                 std::vector<double>{x});
  REQUIRE(rn[0] == 1.0 + 0x1p-51);
  REQUIRE(rp[0] == 1.0 + 0x1p-51 + 0x1p-52);
  auto third_rn = run_elements<float>("div.rn.f32 %d, %a, %b;", std::vector<float>{1.0f},
                                      std::vector<float>{3.0f});
  auto third_rz = run_elements<float>("div.rz.f32 %d, %a, %b;", std::vector<float>{1.0f},
                                      std::vector<float>{3.0f});
  REQUIRE(bits_of(third_rn[0]) == 0x3EAAAAABu);
  REQUIRE(bits_of(third_rz[0]) == 0x3EAAAAAAu);
}

TEST_CASE(".ftz flushes subnormal inputs and results; without it they stay", "[simulator][float]") {
  float sub = 1e-40f;
  REQUIRE(std::fpclassify(sub) == FP_SUBNORMAL);
  auto kept =
      run_elements<float>("add.f32 %d, %a, %b;", std::vector<float>{sub}, std::vector<float>{0.0f});
  auto flushed = run_elements<float>("mul.ftz.f32 %d, %a, %b;", std::vector<float>{-sub},
                                     std::vector<float>{1.0f});
  auto result = run_elements<float>("mul.ftz.f32 %d, %a, %b;", std::vector<float>{0x1p-100f},
                                    std::vector<float>{-0x1p-30f});
  REQUIRE(kept[0] == sub);
  REQUIRE(bits_of(flushed[0]) == 0x80000000u);  // -sub flushed to -0, times 1
  REQUIRE(bits_of(result[0]) == 0x80000000u);   // a subnormal product flushed, sign kept
}

TEST_CASE(".sat clamps to [0, 1] and turns NaN into 0", "[simulator][float]") {
  auto y = run_elements<float>("add.sat.f32 %d, %a, %b;", std::vector<float>{0.75f, -3.0f, kNaN},
                               std::vector<float>{0.5f, 1.0f, 1.0f});
  REQUIRE(y == std::vector<float>{1.0f, 0.0f, 0.0f});
}

TEST_CASE("min and max ignore one NaN, give NaN for two, and order -0 below +0",
          "[simulator][float]") {
  std::vector<float> a = {kNaN, kNaN, -0.0f, 3.0f}, b = {2.0f, kNaN, 0.0f, -1.0f};
  auto lo = run_elements<float>("min.f32 %d, %a, %b;", a, b);
  auto hi = run_elements<float>("max.f32 %d, %a, %b;", a, b);
  REQUIRE(lo[0] == 2.0f);
  REQUIRE(std::isnan(lo[1]));
  REQUIRE(bits_of(lo[2]) == 0x80000000u);
  REQUIRE(lo[3] == -1.0f);
  REQUIRE(hi[0] == 2.0f);
  REQUIRE(bits_of(hi[2]) == 0x00000000u);
  REQUIRE(hi[3] == 3.0f);
  auto propagated = run_elements<float>("min.NaN.f32 %d, %a, %b;", a, b);
  REQUIRE(std::isnan(propagated[0]));
}

TEST_CASE("div.approx.f32 gives 0 for divisors beyond 2^126 and NaN for an infinite dividend",
          "[simulator][float]") {
  auto y =
      run_elements<float>("div.approx.f32 %d, %a, %b;", std::vector<float>{1.0f, kInf, 6.0f, 1.0f},
                          std::vector<float>{0x1p127f, 0x1p127f, 3.0f, 0.0f});
  REQUIRE(y[0] == 0.0f);
  REQUIRE(std::isnan(y[1]));
  REQUIRE(y[2] == 2.0f);
  REQUIRE(y[3] == kInf);
}

TEST_CASE("the approximate functions keep the manual's special values", "[simulator][float]") {
  std::vector<float> zeros = {0.0f, -0.0f};
  auto rcp = run_elements<float>("rcp.approx.f32 %d, %a;", zeros);
  REQUIRE(rcp == std::vector<float>{kInf, -kInf});
  auto rsqrt = run_elements<float>("rsqrt.approx.f32 %d, %a;", zeros);
  REQUIRE(rsqrt == std::vector<float>{kInf, -kInf});
  auto ex2 = run_elements<float>("ex2.approx.ftz.f32 %d, %a;", std::vector<float>{-kInf, 3.0f});
  REQUIRE(ex2 == std::vector<float>{0.0f, 8.0f});
  auto lg2 = run_elements<float>("lg2.approx.f32 %d, %a;", std::vector<float>{0.0f, -1.0f, 8.0f});
  REQUIRE(lg2[0] == -kInf);
  REQUIRE(std::isnan(lg2[1]));
  REQUIRE(lg2[2] == 3.0f);
  auto sine = run_elements<float>("sin.approx.f32 %d, %a;", std::vector<float>{kInf, 0.5f});
  REQUIRE(std::isnan(sine[0]));
  REQUIRE(std::fabs(sine[1] - std::sin(0.5f)) < 1e-6f);
}

TEST_CASE("fma rounds once; a plain mul and add are contracted as ptxas does",
          "[simulator][float]") {
  std::vector<float> a = {1.0f + 0x1p-23f}, b = {1.0f - 0x1p-23f};
  // a*b - 1 = -2^-46 exactly; rounding the product first gives 0.
  auto fused = run_elements<float>("fma.rn.f32 %d, %a, %b, 0fBF800000;", a, b);
  REQUIRE(fused[0] == -0x1p-46f);
  auto contracted =
      run_elements<float>("mul.f32 %t1, %a, %b;\n\tadd.f32 %d, %t1, 0fBF800000;", a, b);
  REQUIRE(contracted[0] == -0x1p-46f);
  auto rounded =
      run_elements<float>("mul.rn.f32 %t1, %a, %b;\n\tadd.rn.f32 %d, %t1, 0fBF800000;", a, b);
  REQUIRE(rounded[0] == 0.0f);
  // c - a*b contracts to fma(-a, b, c)
  auto subtracted =
      run_elements<float>("mul.f32 %t1, %a, %b;\n\tsub.f32 %d, 0f3F800000, %t1;", a, b);
  REQUIRE(subtracted[0] == 0x1p-46f);
}

TEST_CASE("neg and abs change only the sign bit, NaN included", "[simulator][float]") {
  auto neg = run_elements<float>("neg.f32 %d, %a;", std::vector<float>{kNaN, 0.0f});
  REQUIRE(bits_of(neg[0]) == (bits_of(kNaN) ^ 0x80000000u));
  REQUIRE(bits_of(neg[1]) == 0x80000000u);
  auto abs = run_elements<float>("abs.f32 %d, %a;", std::vector<float>{-kNaN, -2.0f});
  REQUIRE(bits_of(abs[0]) == (bits_of(-kNaN) & 0x7FFFFFFFu));
  REQUIRE(abs[1] == 2.0f);
}

TEST_CASE("testp classifies finite, infinite, NaN, normal and subnormal values",
          "[simulator][float]") {
  std::vector<float> values = {1.0f, kInf, kNaN, 1e-40f, 0.0f};
  auto infinite =
      run_elements<uint32_t>("testp.infinite.f32 %p1, %a;\n\tselp.u32 %d, 1, 0, %p1;", values);
  auto nan =
      run_elements<uint32_t>("testp.notanumber.f32 %p1, %a;\n\tselp.u32 %d, 1, 0, %p1;", values);
  auto subnormal =
      run_elements<uint32_t>("testp.subnormal.f32 %p1, %a;\n\tselp.u32 %d, 1, 0, %p1;", values);
  auto normal =
      run_elements<uint32_t>("testp.normal.f32 %p1, %a;\n\tselp.u32 %d, 1, 0, %p1;", values);
  REQUIRE(infinite == std::vector<uint32_t>{0, 1, 0, 0, 0});
  REQUIRE(nan == std::vector<uint32_t>{0, 0, 1, 0, 0});
  REQUIRE(subnormal == std::vector<uint32_t>{0, 0, 0, 1, 0});
  REQUIRE(normal == std::vector<uint32_t>{1, 0, 0, 0, 1});  // zero: see the next test
}

// PTX ISA, testp: "As a special case, positive and negative zero are considered normal numbers."
TEST_CASE("testp.normal holds for positive and negative zero, testp.subnormal does not",
          "[simulator][float]") {
  const std::string normal = "testp.normal.f32 %p1, %a;\n\tselp.u32 %d, 1, 0, %p1;";
  REQUIRE(run_elements<uint32_t>(normal, std::vector<float>{0.0f, -0.0f, 1e-40f}) ==
          std::vector<uint32_t>{1, 1, 0});
  REQUIRE(run<uint32_t, double>(
              "f64", "b32", "testp.normal.f64 %p1, %a;\n\tselp.u32 %d, 1, 0, %p1;",
              std::vector<double>{0.0, -0.0, 4e-320}) == std::vector<uint32_t>{1, 1, 0});
  REQUIRE(run_elements<uint32_t>("testp.subnormal.f32 %p1, %a;\n\tselp.u32 %d, 1, 0, %p1;",
                                 std::vector<float>{0.0f, -0.0f}) == std::vector<uint32_t>{0, 0});
}

TEST_CASE("an IEEE divide without a rounding modifier is refused at load", "[simulator][float]") {
  REQUIRE_THROWS_WITH(run_elements<float>("div.f32 %d, %a, %b;", std::vector<float>{1.0f}),
                      Catch::Contains("needs a rounding modifier"));
}

TEST_CASE("half-precision arithmetic rounds once to the nearest half, lane by lane in f16x2",
          "[simulator][float]") {
  // 1 + 2^-11 is a tie: to even (1.0); 65504 + 16 rounds up to infinity.
  auto sum = run_elements<uint16_t>("add.rn.f16 %d, %a, %b;", std::vector<uint16_t>{0x3C00, 0x7BFF},
                                    std::vector<uint16_t>{0x1000, 0x4C00});
  REQUIRE(sum == std::vector<uint16_t>{0x3C00, 0x7C00});
  // Packed: (1.0, 2.0) * (3.0, -0.5) = (3.0, -1.0)
  auto product =
      run_elements<uint32_t>("mul.rn.f16x2 %d, %a, %b;", std::vector<uint32_t>{0x40003C00u},
                             std::vector<uint32_t>{0xB8004200u});
  REQUIRE(product[0] == 0xBC004200u);
  // .ftz flushes a subnormal half; without it, 2^-24 * 2 = 2^-23 stays.
  auto kept = run_elements<uint16_t>("mul.rn.f16 %d, %a, %b;", std::vector<uint16_t>{0x0001},
                                     std::vector<uint16_t>{0x4000});
  auto flushed = run_elements<uint16_t>("mul.rn.ftz.f16 %d, %a, %b;", std::vector<uint16_t>{0x0001},
                                        std::vector<uint16_t>{0x4000});
  REQUIRE(kept[0] == 0x0002);
  REQUIRE(flushed[0] == 0x0000);
  auto bf = run_elements<uint16_t>("fma.rn.bf16 %d, %a, %b, %a;", std::vector<uint16_t>{0x3F80},
                                   std::vector<uint16_t>{0x4000});  // 1*2 + 1
  REQUIRE(bf[0] == 0x4040);
  REQUIRE_THROWS_WITH(
      run_elements<uint16_t>("add.rz.f16 %d, %a, %b;", std::vector<uint16_t>{0x3C00}),
      Catch::Contains("rounds to nearest only"));
}

// PTX ISA fma: "fma.relu.{f16, f16x2, bf16, bf16x2} clamps the result to 0 if negative. NaN
// result is converted to canonical NaN."
TEST_CASE("fma.relu clamps a negative half or bfloat16 result to 0 and keeps NaN",
          "[simulator][float]") {
  // bf16: 1*2 + 1 = 3 (0x4040) stays; -1*2 + (-1) = -3 becomes +0; NaN*1 + NaN is NaN.
  auto bf = run_elements<uint16_t>("fma.rn.relu.bf16 %d, %a, %b, %a;",
                                   std::vector<uint16_t>{0x3F80, 0xBF80, 0x7FC0},
                                   std::vector<uint16_t>{0x4000, 0x4000, 0x3F80});
  REQUIRE(bf[0] == 0x4040);
  REQUIRE(bf[1] == 0x0000);
  REQUIRE((bf[2] & 0x7F80) == 0x7F80);
  REQUIRE((bf[2] & 0x007F) != 0);
  // f16x2: low 1*3 + 1 = 4 (0x4400), high -1*3 + (-1) = -4 clamped to 0.
  auto packed = run_elements<uint32_t>("fma.rn.relu.f16x2 %d, %a, %b, %a;",
                                       std::vector<uint32_t>{0xBC003C00u},
                                       std::vector<uint32_t>{0x42004200u});
  REQUIRE(packed[0] == 0x00004400u);
  REQUIRE_THROWS_WITH(
      run_elements<uint16_t>("add.rn.relu.bf16 %d, %a, %b;", std::vector<uint16_t>{0x3F80}),
      Catch::Contains("unsupported instruction"));
}

TEST_CASE("neg, abs, min and max of f16 and bf16 work on the halves' values and sign bits",
          "[simulator][float]") {
  std::vector<uint16_t> a = {0x3C00, 0x8001, 0x7E00, 0x0000};  // 1.0, -subnormal, NaN, +0
  std::vector<uint16_t> b = {0x4000, 0x0001, 0x3C00, 0x8000};  // 2.0, +subnormal, 1.0, -0
  REQUIRE(run_elements<uint16_t>("neg.f16 %d, %a;", a) ==
          std::vector<uint16_t>{0xBC00, 0x0001, 0xFE00, 0x8000});
  REQUIRE(run_elements<uint16_t>("abs.f16 %d, %a;", a) ==
          std::vector<uint16_t>{0x3C00, 0x0001, 0x7E00, 0x0000});
  REQUIRE(run_elements<uint16_t>("abs.ftz.f16 %d, %a;", a)[1] == 0x0000);
  REQUIRE(run_elements<uint32_t>("neg.f16x2 %d, %a;", std::vector<uint32_t>{0x40003C00u})[0] ==
          0xC000BC00u);
  // A NaN gives way to the other operand; +0 is above -0; .NaN propagates the canonical NaN.
  REQUIRE(run_elements<uint16_t>("max.f16 %d, %a, %b;", a, b) ==
          std::vector<uint16_t>{0x4000, 0x0001, 0x3C00, 0x0000});
  REQUIRE(run_elements<uint16_t>("min.f16 %d, %a, %b;", a, b) ==
          std::vector<uint16_t>{0x3C00, 0x8001, 0x3C00, 0x8000});
  REQUIRE(run_elements<uint16_t>("max.NaN.f16 %d, %a, %b;", a, b)[2] == 0x7FFF);
  REQUIRE(run_elements<uint16_t>("min.bf16 %d, %a, %b;", std::vector<uint16_t>{0x4000},
                                 std::vector<uint16_t>{0x3F80})[0] == 0x3F80);
  REQUIRE_THROWS_WITH(run_elements<uint16_t>("neg.ftz.bf16 %d, %a;", a),
                      Catch::Contains(".ftz does not apply to bf16"));
}

// PTX ISA tanh: .approx.{f16, f16x2, bf16, bf16x2}; here the correctly rounded value.
TEST_CASE("tanh.approx of halves and bfloat16 pairs is tanh of each half", "[simulator][float]") {
  // bf16: tanh(1.0) = 0.76159... -> 0x3F43 (0.76171875, the nearest); tanh(-inf) = -1 (0xBF80).
  std::string sm90 = element_kernel("b32", "b32", "tanh.approx.bf16x2 %d, %a;");
  sm90.replace(sm90.find("sm_80"), 5, "sm_90");
  REQUIRE(run_binary<uint32_t, uint32_t, uint32_t>(sm90, {0xFF803F80u}, {0}) ==
          std::vector<uint32_t>{0xBF803F43u});
  // f16: tanh(1.0) -> 0x3A18 (0.76171875); tanh(0) = 0.
  REQUIRE(run_elements<uint16_t>("tanh.approx.f16 %d, %a;", std::vector<uint16_t>{0x3C00, 0},
                                 std::vector<uint16_t>{0, 0}) ==
          std::vector<uint16_t>{0x3A18, 0x0000});
}
