// cvt against values worked out by hand: float-to-integer saturation and NaN,
// the integral roundings, integer-to-float and narrowing in each direction,
// integer .sat, half and bfloat16 rounding.
#include <catch2/catch.hpp>
#include <cfloat>
#include <cmath>
#include <limits>

#include "element_kernel.hpp"

using namespace cudajit::sim::testing;

namespace {
constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();
}  // namespace

TEST_CASE("float-to-integer saturates, and NaN gives 0", "[simulator][conversion]") {
  std::vector<float> a = {kNaN, kInf, -kInf, 3e9f, -2.5f, 2.5f, 3.5f};
  auto rzi = run_elements<int32_t>("cvt.rzi.s32.f32 %d, %a;", a);
  REQUIRE(rzi == std::vector<int32_t>{0, INT32_MAX, INT32_MIN, INT32_MAX, -2, 2, 3});
  auto rni = run_elements<int32_t>("cvt.rni.s32.f32 %d, %a;", a);
  REQUIRE(rni[4] == -2);
  REQUIRE(rni[5] == 2);
  REQUIRE(rni[6] == 4);
  auto rmi = run_elements<int32_t>("cvt.rmi.s32.f32 %d, %a;", a);
  REQUIRE(rmi[4] == -3);
  auto rpi = run_elements<int32_t>("cvt.rpi.s32.f32 %d, %a;", a);
  REQUIRE(rpi[4] == -2);
  REQUIRE(rpi[5] == 3);
  auto unsigned_ =
      run_elements<uint32_t>("cvt.rzi.u32.f32 %d, %a;", std::vector<float>{-1.0f, 5e9f});
  REQUIRE(unsigned_ == std::vector<uint32_t>{0, UINT32_MAX});
  auto wide =
      run_elements<int64_t>("cvt.rzi.s64.f64 %d, %a;", std::vector<double>{9.3e18, -9.3e18});
  REQUIRE(wide == std::vector<int64_t>{INT64_MAX, INT64_MIN});
}

TEST_CASE(".ftz flushes a subnormal before it is rounded to an integer",
          "[simulator][conversion]") {
  std::vector<float> a = {1e-40f};
  REQUIRE(run_elements<int32_t>("cvt.rpi.s32.f32 %d, %a;", a)[0] == 1);
  REQUIRE(run_elements<int32_t>("cvt.rpi.ftz.s32.f32 %d, %a;", a)[0] == 0);
}

TEST_CASE("integer-to-float rounds in the modifier's direction", "[simulator][conversion]") {
  std::vector<int64_t> a = {(1 << 24) + 1, -((1 << 24) + 1), (1 << 24) + 3};
  auto rn = run_elements<float>("cvt.rn.f32.s64 %d, %a;", a);
  auto rz = run_elements<float>("cvt.rz.f32.s64 %d, %a;", a);
  auto rp = run_elements<float>("cvt.rp.f32.s64 %d, %a;", a);
  auto rm = run_elements<float>("cvt.rm.f32.s64 %d, %a;", a);
  REQUIRE(rn == std::vector<float>{16777216.0f, -16777216.0f, 16777220.0f});  // ties to even
  REQUIRE(rz == std::vector<float>{16777216.0f, -16777216.0f, 16777218.0f});
  REQUIRE(rp == std::vector<float>{16777218.0f, -16777216.0f, 16777220.0f});
  REQUIRE(rm == std::vector<float>{16777216.0f, -16777218.0f, 16777218.0f});
}

TEST_CASE("f64-to-f32 narrowing rounds, overflowing to infinity or to the largest float",
          "[simulator][conversion]") {
  std::vector<double> a = {1.0 + 0x1p-24, 1e300, -1e300};
  auto rn = run_elements<float>("cvt.rn.f32.f64 %d, %a;", a);
  auto rz = run_elements<float>("cvt.rz.f32.f64 %d, %a;", a);
  auto rp = run_elements<float>("cvt.rp.f32.f64 %d, %a;", a);
  REQUIRE(rn == std::vector<float>{1.0f, kInf, -kInf});
  REQUIRE(rz == std::vector<float>{1.0f, FLT_MAX, -FLT_MAX});
  REQUIRE(rp == std::vector<float>{1.0f + 0x1p-23f, kInf, -FLT_MAX});
}

TEST_CASE("integer conversions wrap, or clamp with .sat, and extend by the source's sign",
          "[simulator][conversion]") {
  std::vector<int32_t> a = {300, -300, -1};
  auto wrapped = run_elements<uint8_t>("cvt.s8.s32 %d, %a;", a);
  REQUIRE(wrapped == std::vector<uint8_t>{44, 212, 255});
  auto clamped = run_elements<int8_t>("cvt.sat.s8.s32 %d, %a;", a);
  REQUIRE(clamped == std::vector<int8_t>{127, -128, -1});
  auto signed_ = run_elements<int64_t>("cvt.s64.s32 %d, %a;", a);
  REQUIRE(signed_[2] == -1);
  auto zero_extended = run_elements<uint64_t>("cvt.u64.u32 %d, %a;", a);
  REQUIRE(zero_extended[2] == 0xFFFFFFFFull);
}

TEST_CASE("f32 to f16 rounds to nearest even and overflows to infinity",
          "[simulator][conversion]") {
  std::vector<float> a = {1.0f,     65519.0f,     65520.0f, 1.0f + 0x1p-11f,
                          0x1p-25f, 3 * 0x1p-26f, -kInf,    0.1f};
  auto h = run_elements<uint16_t>("cvt.rn.f16.f32 %d, %a;", a);
  REQUIRE(h ==
          std::vector<uint16_t>{0x3C00, 0x7BFF, 0x7C00, 0x3C00, 0x0000, 0x0001, 0xFC00, 0x2E66});
  auto toward_zero =
      run_elements<uint16_t>("cvt.rz.f16.f32 %d, %a;", std::vector<float>{65520.0f, 0.1f});
  REQUIRE(toward_zero == std::vector<uint16_t>{0x7BFF, 0x2E66});
  auto up = run_elements<uint16_t>("cvt.rp.f16.f32 %d, %a;", std::vector<float>{0.1f});
  REQUIRE(up[0] == 0x2E67);
  auto back =
      run_elements<float>("cvt.f32.f16 %d, %a;", std::vector<uint16_t>{0x7BFF, 0x0001, 0xFC00});
  REQUIRE(back == std::vector<float>{65504.0f, 0x1p-24f, -kInf});
}

TEST_CASE("f32 to bf16 rounds to nearest even", "[simulator][conversion]") {
  std::vector<float> a = {std::bit_cast<float>(0x3F808000u), std::bit_cast<float>(0x3F818000u),
                          std::bit_cast<float>(0x3F808001u)};
  auto b = run_elements<uint16_t>("cvt.rn.bf16.f32 %d, %a;", a);
  REQUIRE(b == std::vector<uint16_t>{0x3F80, 0x3F82, 0x3F81});
  auto back = run_elements<float>("cvt.f32.bf16 %d, %a;", std::vector<uint16_t>{0x3F81});
  REQUIRE(bits_of(back[0]) == 0x3F810000u);
}

TEST_CASE("same-type float conversions round to integral values and saturate",
          "[simulator][conversion]") {
  std::vector<float> a = {2.5f, -1.5f, 1.5f, kNaN};
  REQUIRE(run_elements<float>("cvt.rni.f32.f32 %d, %a;", a)[0] == 2.0f);
  REQUIRE(run_elements<float>("cvt.rmi.f32.f32 %d, %a;", a)[1] == -2.0f);
  auto sat = run_elements<float>("cvt.sat.f32.f32 %d, %a;", a);
  REQUIRE(sat[1] == 0.0f);
  REQUIRE(sat[2] == 1.0f);
  REQUIRE(sat[3] == 0.0f);
}

TEST_CASE("cvt without the rounding the PTX ISA requires is refused at load",
          "[simulator][conversion]") {
  REQUIRE_THROWS_WITH(run_elements<int32_t>("cvt.s32.f32 %d, %a;", std::vector<float>{1.0f}),
                      Catch::Contains("needs .rni/.rzi/.rmi/.rpi"));
  REQUIRE_THROWS_WITH(run_elements<float>("cvt.f32.s32 %d, %a;", std::vector<int32_t>{1}),
                      Catch::Contains("needs .rn/.rz/.rm/.rp"));
}

// PTX ISA, cvt: "The result of conversion is sign-extended to the destination register width for
// signed integers, and is zero-extended to the destination register width for unsigned,
// bit-size, and floating-point types."
TEST_CASE("cvt to a narrower signed type sign-extends into a wider destination register",
          "[simulator][conversion]") {
  std::vector<int32_t> a = {0x80, 0x17F, -1, 5};
  REQUIRE(run<uint32_t, int32_t>("s32", "b32", "cvt.s8.s32 %d, %a;", a) ==
          std::vector<uint32_t>{0xFFFFFF80u, 0x7Fu, 0xFFFFFFFFu, 5u});
  REQUIRE(run<uint64_t, int32_t>("s32", "b64", "cvt.s16.s32 %d, %a;", {0x8000, 0x7FFF}) ==
          std::vector<uint64_t>{0xFFFFFFFFFFFF8000ull, 0x7FFFull});
  REQUIRE(run<uint32_t, float>("f32", "b32", "cvt.rzi.s16.f32 %d, %a;", {-2.5f, 1e6f}) ==
          std::vector<uint32_t>{0xFFFFFFFEu, 0x7FFFu});  // float-to-integer clamps to s16
  REQUIRE(run<uint32_t, int32_t>("s32", "b32", "cvt.sat.s8.s32 %d, %a;", {-1000, 3}) ==
          std::vector<uint32_t>{0xFFFFFF80u, 3u});
}

TEST_CASE("cvt to a narrower unsigned type zero-extends into a wider destination register",
          "[simulator][conversion]") {
  std::vector<int32_t> a = {0x80, 0x17F, -1};
  REQUIRE(run<uint32_t, int32_t>("s32", "b32", "cvt.u8.s32 %d, %a;", a) ==
          std::vector<uint32_t>{0x80u, 0x7Fu, 0xFFu});
  REQUIRE(run<uint64_t, int32_t>("s32", "b64", "cvt.u16.s8 %d, %a;", {-1}) ==
          std::vector<uint64_t>{0xFFFFull});
}

// Rounding toward zero or away from an infinity's sign picks between finite neighbours; an
// infinite source is exact in every format and stays infinite (IEEE 754 conversions).
TEST_CASE("cvt.rz, .rm and .rp of an infinity to f16 stay infinite", "[simulator][conversion]") {
  std::vector<float> inf = {kInf, -kInf};
  std::vector<uint16_t> infinities = {0x7C00, 0xFC00};
  REQUIRE(run_elements<uint16_t>("cvt.rz.f16.f32 %d, %a;", inf) == infinities);
  REQUIRE(run_elements<uint16_t>("cvt.rm.f16.f32 %d, %a;", inf) == infinities);
  REQUIRE(run_elements<uint16_t>("cvt.rp.f16.f32 %d, %a;", inf) == infinities);
  REQUIRE(run<uint16_t, double>("f64", "b16", "cvt.rz.f16.f64 %d, %a;",
                                {double(kInf), -double(kInf)}) == infinities);
  REQUIRE(run_elements<uint16_t>("cvt.rz.bf16.f32 %d, %a;", inf) ==
          std::vector<uint16_t>{0x7F80, 0xFF80});
  // A finite value past the largest half still rounds toward zero to the largest half.
  REQUIRE(run_elements<uint16_t>("cvt.rz.f16.f32 %d, %a;", std::vector<float>{1e6f, -1e6f}) ==
          std::vector<uint16_t>{0x7BFF, 0xFBFF});
}

// ---- fp8 pairs. Expected bytes: ml_dtypes' float8_e4m3fn/float8_e5m2 (round to nearest even)
// for values in range; by the manual's .satfinite (beyond the largest finite value, infinities
// included: that value, 0x7E/0x7B with the sign; NaN: NaN, 0x7F) for the rest.
namespace {

template <class R, class A>
std::vector<R> run_sm89(const std::string& in, const std::string& out, const std::string& body,
                        const std::vector<A>& a, const std::vector<A>& b) {
  std::string text = element_kernel(in, out, body);
  text.replace(text.find("sm_80"), 5, "sm_89");
  return run_binary<R, A, A>(text, a, b);
}

}  // namespace

TEST_CASE("cvt.rn.satfinite.e4m3x2.f32 packs a in the upper byte, b in the lower, saturating",
          "[simulator][conversion]") {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> a = {1.0f, -2.5f, 1e-3f, 500.0f, inf, std::nanf("")};
  std::vector<float> b = {0.3f, 0.0009765625f, 3.3f, -1e-9f, -inf, 440.0f};
  REQUIRE(
      run_sm89<uint16_t, float>("f32", "b16", "cvt.rn.satfinite.e4m3x2.f32 %d, %a, %b;", a, b) ==
      std::vector<uint16_t>{0x382A, 0xC200, 0x0145, 0x7E80, 0x7EFE, 0x7F7E});
  std::vector<float> c = {1.0f, 3e-5f, 60000.0f, std::nanf("")};
  std::vector<float> d = {0.3f, -2.5f, -inf, 1.5e-5f};
  REQUIRE(run_sm89<uint16_t, float>("f32", "b16", "cvt.rn.satfinite.e5m2x2.f32 %d, %a, %b;", c,
                                    d) == std::vector<uint16_t>{0x3C35, 0x02C1, 0x7BFB, 0x7F01});
  // .relu: -2.5 becomes +0.
  REQUIRE(run_sm89<uint16_t, float>("f32", "b16", "cvt.rn.satfinite.relu.e4m3x2.f32 %d, %a, %b;",
                                    {-2.5f}, {1.0f}) == std::vector<uint16_t>{0x0038});
}

TEST_CASE("fp8 pairs convert from and to f16x2 half by half", "[simulator][conversion]") {
  // (-2.5, 0.3) as halves: 0xC100, 0x34CD.
  REQUIRE(run_sm89<uint16_t, uint32_t>("b32", "b16", "cvt.rn.satfinite.e4m3x2.f16x2 %d, %a;",
                                       {0xC10034CDu}, {0}) == std::vector<uint16_t>{0xC22A});
  REQUIRE(run_sm89<uint16_t, uint32_t>("b32", "b16", "cvt.rn.satfinite.e5m2x2.f16x2 %d, %a;",
                                       {0xC10034CDu}, {0}) == std::vector<uint16_t>{0xC135});
  // Back: every fp8 value is a half (e4m3 0x01 = 2^-9, 0x7E = 448; e5m2 0x7C = infinity).
  REQUIRE(run_sm89<uint32_t, uint16_t>("b16", "b32", "cvt.rn.f16x2.e4m3x2 %d, %a;",
                                       {0x3AC4, 0x017E},
                                       {0, 0}) == std::vector<uint32_t>{0x3D00C200u, 0x18005F00u});
  REQUIRE(run_sm89<uint32_t, uint16_t>("b16", "b32", "cvt.rn.f16x2.e5m2x2 %d, %a;",
                                       {0x35C1, 0x7C7B},
                                       {0, 0}) == std::vector<uint32_t>{0x3500C100u, 0x7C007B00u});
  // fp8 came with sm_89; .satfinite is required towards fp8 and absent from it.
  auto older = [] {
    return run<uint32_t, uint16_t>("b16", "b32", "cvt.rn.f16x2.e4m3x2 %d, %a;", {0x3AC4}, {0});
  };
  REQUIRE_THROWS_WITH(older(), Catch::Contains("requires sm_89"));
  auto unsaturated = [] {
    return run_sm89<uint16_t, float>("f32", "b16", "cvt.rn.e4m3x2.f32 %d, %a, %b;", {1.0f}, {1.0f});
  };
  REQUIRE_THROWS_WITH(unsaturated(), Catch::Contains("unsupported instruction"));
}
