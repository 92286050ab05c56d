// Importing foreign arrays: the CUDA Array Interface rules (versions 0 to 3),
// typestr, layout and extent, DLPack conversion and ownership, and the
// synchronisation policy. Each test states one rule.
#include <bit>
#include <catch2/catch.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cudajit/runtime/interop.hpp"

using namespace cudajit;
using namespace cudajit::runtime;
using Catch::Matchers::Contains;

namespace {

const char kNative = std::endian::native == std::endian::little ? '<' : '>';
const char kForeign = kNative == '<' ? '>' : '<';

// "f4" -> "<f4" on a little-endian machine.
std::string native(const std::string& kind_and_size) { return kNative + kind_and_size; }

enum class Kind { None, Value, Type, NotImplemented, Other };

struct Thrown {
  Kind kind = Kind::None;
  std::string message;
};

// Which of the interop errors `f` throws (most derived first, as the binding must).
Thrown thrown(const std::function<void()>& f) {
  try {
    f();
  } catch (const InteropNotImplemented& e) {
    return {Kind::NotImplemented, e.what()};
  } catch (const InteropTypeError& e) {
    return {Kind::Type, e.what()};
  } catch (const InteropError& e) {
    return {Kind::Value, e.what()};
  } catch (const std::exception& e) {
    return {Kind::Other, e.what()};
  }
  return {};
}

// A valid version-3 description of a C-contiguous float64 (2, 3) array.
CaiDescription cai_2x3() {
  CaiDescription d;
  d.version = 3;
  d.shape = {2, 3};
  d.typestr = native("f8");
  d.data = 0x10000;
  return d;
}

Thrown cai_error_of(const CaiDescription& d) {
  return thrown([&] { validate_cai(d); });
}

}  // namespace

// --- CAI: accepted descriptions ----------------------------------------------------

TEST_CASE("CAI: a C-contiguous description imports with computed strides", "[interop]") {
  ArrayImport a = validate_cai(cai_2x3());
  CHECK(a.dtype == Scalar::Float64);
  CHECK(a.itemsize == 8);
  CHECK(a.shape == std::vector<int64_t>{2, 3});
  CHECK(a.strides == std::vector<int64_t>{24, 8});
  CHECK(a.data == 0x10000);
  CHECK(a.size == 6);
  CHECK(a.layout == Layout::C);
  CHECK(a.extent == ByteExtent{0, 48});
  CHECK_FALSE(a.readonly);
  CHECK_FALSE(a.stream);
  CHECK_FALSE(a.dl_device);
  CHECK(a.aligned);
}

TEST_CASE("CAI: strides None means C-contiguous in every version 0 to 3", "[interop]") {
  for (int64_t version = 0; version <= 3; ++version) {
    CaiDescription d = cai_2x3();
    d.version = version;
    d.strides.reset();
    ArrayImport a = validate_cai(d);
    CHECK(a.strides == std::vector<int64_t>{24, 8});
    CHECK(a.layout == Layout::C);
  }
}

TEST_CASE("CAI: the read-only flag of data is kept", "[interop]") {
  CaiDescription d = cai_2x3();
  d.readonly = true;
  CHECK(validate_cai(d).readonly);
}

TEST_CASE("CAI: strides are used as given, negative and zero included", "[interop]") {
  CaiDescription d = cai_2x3();
  d.strides = std::vector<int64_t>{0, -8};
  ArrayImport a = validate_cai(d);
  CHECK(a.strides == std::vector<int64_t>{0, -8});
  CHECK(a.layout == Layout::A);
  CHECK(a.extent == ByteExtent{-16, 8});
}

TEST_CASE("CAI: a zero-size array may have data pointer 0 in every version", "[interop]") {
  for (int64_t version = 0; version <= 3; ++version) {
    CaiDescription d = cai_2x3();
    d.version = version;
    d.shape = {0, 3};
    d.data = 0;
    ArrayImport a = validate_cai(d);
    CHECK(a.size == 0);
    CHECK(a.data == 0);
    CHECK(a.extent == ByteExtent{0, 0});
    CHECK(a.layout == Layout::C);
  }
}

TEST_CASE("CAI: a 0-d array has one element", "[interop]") {
  CaiDescription d = cai_2x3();
  d.shape = {};
  ArrayImport a = validate_cai(d);
  CHECK(a.ndim() == 0);
  CHECK(a.size == 1);
  CHECK(a.strides.empty());
  CHECK(a.extent == ByteExtent{0, 8});
  CHECK(a.layout == Layout::C);
}

TEST_CASE("CAI: up to 32 dimensions are accepted", "[interop]") {
  CaiDescription d = cai_2x3();
  d.shape = std::vector<int64_t>(32, 1);
  CHECK(validate_cai(d).ndim() == 32);
}

TEST_CASE("CAI: stream 1, 2 and handles are kept as the array's stream", "[interop]") {
  for (int64_t stream : {int64_t{1}, int64_t{2}, int64_t{0x7f00dead0000}}) {
    CaiDescription d = cai_2x3();
    d.stream = stream;
    CHECK(validate_cai(d).stream == stream);
  }
}

TEST_CASE("CAI: a stream given with a version below 3 is honoured", "[interop]") {
  CaiDescription d = cai_2x3();
  d.version = 2;
  d.stream = 0x5000;
  CHECK(validate_cai(d).stream == 0x5000);
}

TEST_CASE("CAI: descr with one field of the typestr's type is accepted", "[interop]") {
  CaiDescription d = cai_2x3();
  d.descr = std::vector<CaiDescrField>{{"", native("f8"), false}};
  CHECK(validate_cai(d).dtype == Scalar::Float64);
  d.descr = std::vector<CaiDescrField>{{"", "=f8", false}};  // same type, other spelling
  CHECK(validate_cai(d).dtype == Scalar::Float64);
}

TEST_CASE("CAI: bfloat16 is two opaque bytes whose descr names it", "[interop]") {
  CaiDescription d = cai_2x3();
  d.typestr = native("V2");
  d.descr = std::vector<CaiDescrField>{{"bfloat16", native("V2"), false}};
  const ArrayImport a = validate_cai(d);
  CHECK(a.dtype == Scalar::BFloat16);
  CHECK(a.itemsize == 2);
  d.descr = std::vector<CaiDescrField>{{"", native("V2"), false}};  // any two bytes: refused
  CHECK_THAT(thrown([&] { validate_cai(d); }).message, Contains("(void or structured)"));
}

// --- CAI: rejected descriptions, one rule each ----------------------------------------

TEST_CASE("CAI: versions other than 0 to 3 are rejected", "[interop]") {
  for (int64_t version : {int64_t{-1}, int64_t{4}}) {
    CaiDescription d = cai_2x3();
    d.version = version;
    Thrown t = cai_error_of(d);
    CHECK(t.kind == Kind::Value);
    CHECK_THAT(t.message, Contains("version " + std::to_string(version) +
                                   " is not supported; expected 0, 1, 2 or 3"));
  }
}

TEST_CASE("CAI: a mask raises NotImplementedError", "[interop]") {
  CaiDescription d = cai_2x3();
  d.mask_present = true;
  Thrown t = cai_error_of(d);
  CHECK(t.kind == Kind::NotImplemented);
  CHECK_THAT(t.message, Contains("Masked arrays are not supported (mask is not None)"));
}

TEST_CASE("CAI: stream 0 is disallowed", "[interop]") {
  CaiDescription d = cai_2x3();
  d.stream = 0;
  Thrown t = cai_error_of(d);
  CHECK(t.kind == Kind::Value);
  CHECK_THAT(t.message, Contains("stream 0 is disallowed"));
  CHECK_THAT(t.message, Contains("expected None, 1 (legacy default stream), 2 (per-thread"));
}

TEST_CASE("CAI: a negative stream is rejected", "[interop]") {
  CaiDescription d = cai_2x3();
  d.stream = -7;
  Thrown t = cai_error_of(d);
  CHECK(t.kind == Kind::Value);
  CHECK_THAT(t.message, Contains("stream -7 is not a stream"));
}

TEST_CASE("CAI: a non-native byte order is rejected with advice to byte-swap", "[interop]") {
  CaiDescription d = cai_2x3();
  d.typestr = std::string(1, kForeign) + "f8";
  Thrown t = cai_error_of(d);
  CHECK(t.kind == Kind::Type);
  CHECK_THAT(t.message, Contains("'" + d.typestr + "' has non-native byte order"));
  CHECK_THAT(t.message, Contains("byte-swap the array first"));
}

TEST_CASE("CAI: a negative extent in shape is rejected", "[interop]") {
  CaiDescription d = cai_2x3();
  d.shape = {2, -3};
  Thrown t = cai_error_of(d);
  CHECK(t.kind == Kind::Value);
  CHECK_THAT(t.message, Contains("shape[1] is -3; extents must be non-negative"));
}

TEST_CASE("CAI: a shape whose byte size overflows int64 is rejected", "[interop]") {
  CaiDescription d = cai_2x3();
  d.shape = {int64_t{1} << 31, int64_t{1} << 31};  // 2**62 elements, 2**65 bytes
  Thrown t = cai_error_of(d);
  CHECK(t.kind == Kind::Value);
  CHECK_THAT(t.message, Contains("shape (2147483648, 2147483648) with 8-byte elements is larger "
                                 "than 2**63 - 1 bytes"));
}

TEST_CASE("CAI: a zero extent does not hide an overflowing shape", "[interop]") {
  CaiDescription d = cai_2x3();
  d.shape = {0, int64_t{1} << 40, int64_t{1} << 40};
  CHECK(cai_error_of(d).kind == Kind::Value);
}

TEST_CASE("CAI: strides must have one entry per dimension", "[interop]") {
  CaiDescription d = cai_2x3();
  d.strides = std::vector<int64_t>{8};
  Thrown t = cai_error_of(d);
  CHECK(t.kind == Kind::Value);
  CHECK_THAT(t.message, Contains("strides has 1 entries for 2 dimensions"));
}

TEST_CASE("CAI: strides whose byte extent overflows int64 are rejected", "[interop]") {
  CaiDescription d = cai_2x3();
  d.strides = std::vector<int64_t>{INT64_MAX / 2, 8};
  d.shape = {4, 3};
  Thrown t = cai_error_of(d);
  CHECK(t.kind == Kind::Value);
  CHECK_THAT(t.message, Contains("__cuda_array_interface__: the array's byte extent overflows"));
}

TEST_CASE("CAI: more than 32 dimensions are rejected", "[interop]") {
  CaiDescription d = cai_2x3();
  d.shape = std::vector<int64_t>(33, 1);
  Thrown t = cai_error_of(d);
  CHECK(t.kind == Kind::Value);
  CHECK_THAT(t.message, Contains("33 dimensions; at most 32 are supported"));
}

TEST_CASE("CAI: data pointer 0 is rejected for a non-empty array", "[interop]") {
  CaiDescription d = cai_2x3();
  d.data = 0;
  Thrown t = cai_error_of(d);
  CHECK(t.kind == Kind::Value);
  CHECK_THAT(t.message, Contains("data pointer is 0 for an array of 6 elements; only zero-size "
                                 "arrays may have data pointer 0"));
}

TEST_CASE("CAI: descr that disagrees with typestr is rejected", "[interop]") {
  CaiDescription d = cai_2x3();
  d.descr = std::vector<CaiDescrField>{{"", native("i4"), false}};
  Thrown t = cai_error_of(d);
  CHECK(t.kind == Kind::Value);
  CHECK_THAT(t.message, Contains("descr [('', '" + native("i4") + "')] does not match typestr '" +
                                 native("f8") + "'"));
}

TEST_CASE("CAI: descr of a structured dtype is rejected as unsupported", "[interop]") {
  CaiDescription d = cai_2x3();
  SECTION("two fields") {
    d.descr = std::vector<CaiDescrField>{{"x", native("f4"), false}, {"y", native("f4"), false}};
  }
  SECTION("a sub-array field") { d.descr = std::vector<CaiDescrField>{{"", native("f8"), true}}; }
  SECTION("a nested structure") { d.descr = std::vector<CaiDescrField>{{"", std::nullopt, false}}; }
  Thrown t = cai_error_of(d);
  CHECK(t.kind == Kind::Type);
  CHECK_THAT(t.message, Contains("structured dtypes are not supported"));
}

TEST_CASE("CAI: an empty descr is rejected", "[interop]") {
  CaiDescription d = cai_2x3();
  d.descr = std::vector<CaiDescrField>{};
  Thrown t = cai_error_of(d);
  CHECK(t.kind == Kind::Value);
  CHECK_THAT(t.message, Contains("descr is an empty list"));
}

TEST_CASE("CAI: the binding's key errors name the key", "[interop]") {
  Thrown missing = thrown([] { throw_cai_missing_key("typestr"); });
  CHECK(missing.kind == Kind::Value);
  CHECK_THAT(missing.message, Contains("the required key 'typestr' is missing"));
  Thrown bad = thrown([] { throw_cai_bad_entry("data", "a 2-tuple (int, bool)", "[1, 2, 3]"); });
  CHECK(bad.kind == Kind::Type);
  CHECK(bad.message ==
        "__cuda_array_interface__['data'] must be a 2-tuple (int, bool); got [1, 2, 3]");
}

TEST_CASE("CAI: misaligned data or strides are reported", "[interop]") {
  CaiDescription d = cai_2x3();
  d.data = 0x10004;
  CHECK_FALSE(validate_cai(d).aligned);
  d = cai_2x3();
  d.strides = std::vector<int64_t>{20, 8};
  CHECK_FALSE(validate_cai(d).aligned);
  d.shape = {1, 3};  // an extent-1 dimension's stride is never used
  CHECK(validate_cai(d).aligned);
  d = cai_2x3();
  d.typestr = native("c16");
  d.strides = std::vector<int64_t>{48, 24};  // complex128 needs 8, as NumPy says
  CHECK(validate_cai(d).aligned);
}

// --- typestr -------------------------------------------------------------------------

TEST_CASE("typestr: the supported kinds and sizes", "[interop]") {
  const std::vector<std::pair<std::string, Scalar>> table = {
      {"|b1", Scalar::Bool},
      {"|i1", Scalar::Int8},
      {"<i1", Scalar::Int8},
      {">i1", Scalar::Int8},
      {native("i2"), Scalar::Int16},
      {native("i4"), Scalar::Int32},
      {native("i8"), Scalar::Int64},
      {"=i8", Scalar::Int64},
      {"|u1", Scalar::UInt8},
      {native("u2"), Scalar::UInt16},
      {native("u4"), Scalar::UInt32},
      {native("u8"), Scalar::UInt64},
      {native("f4"), Scalar::Float32},
      {native("f8"), Scalar::Float64},
      {"|f8", Scalar::Float64},
      {native("c8"), Scalar::Complex64},
      {native("c16"), Scalar::Complex128},
      {native("f2"), Scalar::Float16},
  };
  for (const auto& [typestr, scalar] : table) {
    INFO(typestr);
    CHECK(parse_typestr(typestr) == scalar);
  }
}

TEST_CASE("typestr: unsupported kinds and sizes are rejected naming the typestr", "[interop]") {
  const std::vector<std::pair<std::string, std::string>> table = {
      {"|V2", "(void or structured) is not supported"},  // bfloat16 only with its descr
      {native("f16"), "(long double) is not supported"},
      {native("c32"), "(complex long double) is not supported"},
      {native("i16"), "is not supported"},
      {"|b2", "is not supported"},
      {"|V8", "(void or structured) is not supported"},
      {"|O", "(Python object) is not supported"},
      {native("M8[ns]"), "(datetime64) is not supported"},
      {native("m8[s]"), "(timedelta64) is not supported"},
      {native("U4"), "(unicode string) is not supported"},
      {"|S3", "(byte string) is not supported"},
  };
  for (const auto& [typestr, why] : table) {
    INFO(typestr);
    Thrown t = thrown([&] { parse_typestr(typestr); });
    CHECK(t.kind == Kind::Type);
    CHECK_THAT(t.message, Contains("'" + typestr + "' " + why));
    CHECK_THAT(t.message, Contains("supported: b1 (bool)"));
  }
}

TEST_CASE("typestr: malformed text is rejected", "[interop]") {
  for (std::string typestr : {"", "f4", "<", "<x4", "<f", "<fx", "<f-4", "<f4 ", "<f0"}) {
    INFO(typestr);
    Thrown t = thrown([&] { parse_typestr(typestr); });
    CHECK(t.kind == Kind::Value);
    CHECK_THAT(t.message, Contains("'" + typestr + "' is not a NumPy type string"));
  }
}

TEST_CASE("typestr: scalar_typestr writes what parse_typestr reads", "[interop]") {
  for (int i = 0; i <= static_cast<int>(Scalar::Float16); ++i) {  // bfloat16: V2 and a descr
    const auto scalar = static_cast<Scalar>(i);
    CHECK(parse_typestr(scalar_typestr(scalar)) == scalar);
  }
  CHECK(scalar_typestr(Scalar::Bool) == "|b1");
  CHECK(scalar_typestr(Scalar::UInt8) == "|u1");
  CHECK(scalar_typestr(Scalar::Float32) == native("f4"));
  CHECK(scalar_typestr(Scalar::Complex128) == native("c16"));
}

// --- layout and extent ---------------------------------------------------------------

TEST_CASE("layout: C, F and A from byte strides", "[interop]") {
  CHECK(detect_layout({2, 3}, {24, 8}, 8) == Layout::C);
  CHECK(detect_layout({2, 3}, {8, 16}, 8) == Layout::F);
  CHECK(detect_layout({2, 3}, {48, 16}, 8) == Layout::A);  // every other column
  CHECK(detect_layout({4}, {8}, 8) == Layout::C);          // 1-d contiguous is C
  CHECK(detect_layout({4}, {16}, 8) == Layout::A);
  CHECK(detect_layout({}, {}, 8) == Layout::C);
}

TEST_CASE("layout: negative and zero strides are A", "[interop]") {
  CHECK(detect_layout({4}, {-8}, 8) == Layout::A);
  CHECK(detect_layout({2, 3}, {-24, 8}, 8) == Layout::A);
  CHECK(detect_layout({4}, {0}, 8) == Layout::A);
  CHECK(detect_layout({3, 4}, {0, 4}, 4) == Layout::A);  // a broadcast row
}

TEST_CASE("layout: extent-1 dimensions do not constrain the strides", "[interop]") {
  CHECK(detect_layout({3, 1}, {8, 100}, 8) == Layout::C);
  CHECK(detect_layout({1, 3}, {999, 8}, 8) == Layout::C);
  CHECK(detect_layout({2, 1, 3}, {8, 777, 16}, 8) == Layout::F);
  CHECK(detect_layout({1, 1}, {-5, 0}, 8) == Layout::C);
  CHECK(detect_layout({4, 1}, {0, 8}, 8) == Layout::A);  // the extent-4 dimension still counts
}

TEST_CASE("layout: a zero-size array is C whatever its strides", "[interop]") {
  CHECK(detect_layout({0, 3}, {-8, 123}, 8) == Layout::C);
}

TEST_CASE("extent: from the first to one past the last byte touched", "[interop]") {
  CHECK(byte_extent({2, 3}, {24, 8}, 8) == ByteExtent{0, 48});
  CHECK(byte_extent({2, 3}, {8, 16}, 8) == ByteExtent{0, 48});
  CHECK(byte_extent({2, 3}, {48, 16}, 8) == ByteExtent{0, 88});
  CHECK(byte_extent({}, {}, 4) == ByteExtent{0, 4});
  CHECK(byte_extent({0, 3}, {24, 8}, 8) == ByteExtent{0, 0});
  CHECK(byte_extent({5}, {0}, 8) == ByteExtent{0, 8});
}

TEST_CASE("extent: negative strides reach below the data pointer", "[interop]") {
  CHECK(byte_extent({3}, {-8}, 8) == ByteExtent{-16, 8});
  CHECK(byte_extent({2, 3}, {-24, 8}, 8) == ByteExtent{-24, 24});
  CHECK(byte_extent({2, 3}, {-24, -8}, 8) == ByteExtent{-40, 8});
  CHECK(byte_extent({2, 3}, {-24, -8}, 8).size() == 48);
}

TEST_CASE("strides: C-contiguous strides skip zero extents", "[interop]") {
  CHECK(c_contiguous_strides({2, 3, 4}, 4) == std::vector<int64_t>{48, 16, 4});
  CHECK(c_contiguous_strides({3, 0}, 8) == std::vector<int64_t>{8, 8});
  CHECK(c_contiguous_strides({}, 8).empty());
}

// --- DLPack --------------------------------------------------------------------------

namespace {

// A DLTensor over storage that this object keeps.
struct TestTensor {
  explicit TestTensor(std::vector<int64_t> shape_,
                      std::optional<std::vector<int64_t>> strides_ = std::nullopt)
      : shape(std::move(shape_)), strides(std::move(strides_)) {}

  std::vector<int64_t> shape;
  std::optional<std::vector<int64_t>> strides;  // elements; nullopt: NULL
  DLDataType dtype{kDLFloat, 32, 1};
  void* data = reinterpret_cast<void*>(uintptr_t{0x20000});
  uint64_t byte_offset = 0;
  DLDevice device{kDLCUDA, 0};

  DLTensor view() {
    DLTensor t{};
    t.data = data;
    t.device = device;
    t.ndim = static_cast<int>(shape.size());
    t.dtype = dtype;
    t.shape = shape.data();
    t.strides = strides ? strides->data() : nullptr;
    t.byte_offset = byte_offset;
    return t;
  }
};

Thrown dlpack_error_of(TestTensor& t) {
  return thrown([&] { import_dltensor(t.view(), false); });
}

}  // namespace

TEST_CASE("DLPack: NULL strides mean C-contiguous", "[interop]") {
  TestTensor t{{3, 4}};
  ArrayImport a = import_dltensor(t.view(), false);
  CHECK(a.dtype == Scalar::Float32);
  CHECK(a.strides == std::vector<int64_t>{16, 4});
  CHECK(a.layout == Layout::C);
  CHECK(a.size == 12);
  CHECK(a.extent == ByteExtent{0, 48});
  CHECK_FALSE(a.stream);
}

TEST_CASE("DLPack: strides in elements become byte strides", "[interop]") {
  TestTensor t{{3, 4}, std::vector<int64_t>{1, 3}};
  ArrayImport a = import_dltensor(t.view(), false);
  CHECK(a.strides == std::vector<int64_t>{4, 12});
  CHECK(a.layout == Layout::F);
  t.strides = std::vector<int64_t>{-4, 1};
  a = import_dltensor(t.view(), false);
  CHECK(a.strides == std::vector<int64_t>{-16, 4});
  CHECK(a.layout == Layout::A);
  CHECK(a.extent == ByteExtent{-32, 16});
}

TEST_CASE("DLPack: byte_offset is added to the data pointer", "[interop]") {
  TestTensor t{{8}};
  t.byte_offset = 64;
  CHECK(import_dltensor(t.view(), false).data == 0x20000 + 64);
}

TEST_CASE("DLPack: the device and the read-only flag are reported", "[interop]") {
  TestTensor t{{8}};
  t.device = DLDevice{kDLCUDAManaged, 0};
  ArrayImport a = import_dltensor(t.view(), true);
  REQUIRE(a.dl_device);
  CHECK(a.dl_device->device_type == kDLCUDAManaged);
  CHECK(a.dl_device->device_id == 0);
  CHECK(a.readonly);
}

TEST_CASE("DLPack: the supported dtypes", "[interop]") {
  const std::vector<std::pair<DLDataType, Scalar>> table = {
      {{kDLInt, 8, 1}, Scalar::Int8},           {{kDLInt, 16, 1}, Scalar::Int16},
      {{kDLInt, 32, 1}, Scalar::Int32},         {{kDLInt, 64, 1}, Scalar::Int64},
      {{kDLUInt, 8, 1}, Scalar::UInt8},         {{kDLUInt, 16, 1}, Scalar::UInt16},
      {{kDLUInt, 32, 1}, Scalar::UInt32},       {{kDLUInt, 64, 1}, Scalar::UInt64},
      {{kDLFloat, 32, 1}, Scalar::Float32},     {{kDLFloat, 64, 1}, Scalar::Float64},
      {{kDLComplex, 64, 1}, Scalar::Complex64}, {{kDLComplex, 128, 1}, Scalar::Complex128},
      {{kDlpackCodeBool, 8, 1}, Scalar::Bool},  {{kDLFloat, 16, 1}, Scalar::Float16},
      {{kDLBfloat, 16, 1}, Scalar::BFloat16},
  };
  for (const auto& [dtype, scalar] : table) {
    INFO(scalar_name(scalar));
    TestTensor t{{2}};
    t.dtype = dtype;
    CHECK(import_dltensor(t.view(), false).dtype == scalar);
    const DLDataType back = dlpack_dtype(scalar);
    CHECK((back.code == dtype.code && back.bits == dtype.bits && back.lanes == 1));
  }
}

TEST_CASE("DLPack: unsupported dtypes are rejected", "[interop]") {
  const std::vector<std::pair<DLDataType, std::string>> table = {
      {{kDLFloat, 32, 4}, "(code 2, bits 32, lanes 4) is a vector type"},
      {{kDLFloat, 8, 1}, "(code 2, bits 8, lanes 1) is not supported"},
      {{kDLBfloat, 32, 1}, "(code 4, bits 32, lanes 1) is not supported"},
      {{kDlpackCodeBool, 1, 1}, "(code 6, bits 1, lanes 1) is not supported"},
      {{kDLInt, 128, 1}, "(code 0, bits 128, lanes 1) is not supported"},
      {{kDLOpaqueHandle, 64, 1}, "(code 3, bits 64, lanes 1) is not supported"},
  };
  for (const auto& [dtype, why] : table) {
    INFO(why);
    TestTensor t{{2}};
    t.dtype = dtype;
    Thrown e = dlpack_error_of(t);
    CHECK(e.kind == Kind::Type);
    CHECK_THAT(e.message, Contains("DLPack: dtype " + why));
  }
}

TEST_CASE("DLPack: a NULL data pointer is allowed only for zero-size tensors", "[interop]") {
  TestTensor t{{0, 5}};
  t.data = nullptr;
  CHECK(import_dltensor(t.view(), false).size == 0);
  t.shape = {2, 5};
  Thrown e = dlpack_error_of(t);
  CHECK(e.kind == Kind::Value);
  CHECK_THAT(e.message, Contains("data is NULL for a tensor of 10 elements"));
}

TEST_CASE("DLPack: malformed dimensions are rejected", "[interop]") {
  TestTensor t{{2, -1}};
  Thrown e = dlpack_error_of(t);
  CHECK(e.kind == Kind::Value);
  CHECK_THAT(e.message, Contains("DLPack: shape[1] is -1"));

  TestTensor one{{2}};
  DLTensor bad = one.view();
  bad.shape = nullptr;
  e = thrown([&] { import_dltensor(bad, false); });
  CHECK_THAT(e.message, Contains("shape is NULL for a 1-d tensor"));
  bad.ndim = -1;
  e = thrown([&] { import_dltensor(bad, false); });
  CHECK_THAT(e.message, Contains("ndim is -1"));
  bad.ndim = 1000;  // rejected before shape is read
  e = thrown([&] { import_dltensor(bad, false); });
  CHECK_THAT(e.message, Contains("DLPack: 1000 dimensions; at most 32 are supported"));
}

TEST_CASE("DLPack: element strides that overflow in bytes are rejected", "[interop]") {
  TestTensor t{{2}, std::vector<int64_t>{INT64_MAX / 2}};
  Thrown e = dlpack_error_of(t);
  CHECK(e.kind == Kind::Value);
  CHECK_THAT(e.message, Contains("overflows int64 in bytes"));
}

TEST_CASE("DLPack: device types a launch accepts", "[interop]") {
  CHECK_NOTHROW(check_dlpack_device({kDLCUDA, 0}, true, 0));
  CHECK_NOTHROW(check_dlpack_device({kDLCUDAManaged, 0}, true, 1));
  CHECK_NOTHROW(check_dlpack_device({kDLCUDAHost, 0}, true, 0));
  CHECK_NOTHROW(check_dlpack_device({kDLCUDA, 1}, true, 0, /*peer_access=*/true));
  CHECK_NOTHROW(check_dlpack_device({kDLCPU, 0}, false, 0));

  Thrown other = thrown([] { check_dlpack_device({kDLCUDA, 1}, true, 0); });
  CHECK(other.kind == Kind::Value);
  CHECK_THAT(other.message, Contains("on cuda device 1 and the launch on cuda device 0"));
  Thrown cpu_on_cuda = thrown([] { check_dlpack_device({kDLCPU, 0}, true, 0); });
  CHECK(cpu_on_cuda.kind == Kind::Type);
  CHECK_THAT(cpu_on_cuda.message, Contains("the tensor is on kDLCPU (1), device 0"));
  Thrown cuda_on_cpu = thrown([] { check_dlpack_device({kDLCUDA, 0}, false, 0); });
  CHECK(cuda_on_cpu.kind == Kind::Type);
  CHECK_THAT(cuda_on_cpu.message, Contains("a launch on the cpu device takes kDLCPU"));
}

// --- DlpackOwner ---------------------------------------------------------------------

namespace {

// Managed tensors whose deleters count their calls in manager_ctx.
struct CountedLegacy {
  int calls = 0;
  DLManagedTensor managed{};
  CountedLegacy() {
    managed.manager_ctx = &calls;
    managed.deleter = [](DLManagedTensor* self) { ++*static_cast<int*>(self->manager_ctx); };
  }
};

struct CountedVersioned {
  int calls = 0;
  std::vector<int64_t> shape{4};
  DLManagedTensorVersioned managed{};
  explicit CountedVersioned(uint64_t flags = 0, uint32_t major = 1) {
    managed.version = {major, 0};
    managed.manager_ctx = &calls;
    managed.deleter = [](DLManagedTensorVersioned* self) {
      ++*static_cast<int*>(self->manager_ctx);
    };
    managed.flags = flags;
    managed.dl_tensor.data = reinterpret_cast<void*>(uintptr_t{0x30000});
    managed.dl_tensor.device = {kDLCUDA, 0};
    managed.dl_tensor.ndim = 1;
    managed.dl_tensor.dtype = {kDLFloat, 64, 1};
    managed.dl_tensor.shape = shape.data();
  }
};

}  // namespace

TEST_CASE("DlpackOwner: the deleter runs once, at destruction", "[interop]") {
  CountedLegacy legacy;
  CountedVersioned versioned;
  {
    DlpackOwner a(&legacy.managed);
    DlpackOwner b(&versioned.managed);
    CHECK(legacy.calls == 0);
    CHECK(versioned.calls == 0);
    CHECK_FALSE(a.versioned());
    CHECK(b.versioned());
  }
  CHECK(legacy.calls == 1);
  CHECK(versioned.calls == 1);
}

TEST_CASE("DlpackOwner: a move hands the deleter over, it still runs once", "[interop]") {
  CountedLegacy legacy;
  {
    DlpackOwner a(&legacy.managed);
    {
      DlpackOwner b(std::move(a));
      CHECK_FALSE(a);
      CHECK(b);
      DlpackOwner c;
      c = std::move(b);
      CHECK(legacy.calls == 0);
    }
    CHECK(legacy.calls == 1);
  }
  CHECK(legacy.calls == 1);
}

TEST_CASE("DlpackOwner: move assignment releases what the target held", "[interop]") {
  CountedLegacy first;
  CountedVersioned second;
  {
    DlpackOwner a(&first.managed);
    DlpackOwner b(&second.managed);
    a = std::move(b);
    CHECK(first.calls == 1);
    CHECK(second.calls == 0);
    auto& self = a;
    a = std::move(self);  // self-assignment keeps the tensor
    CHECK(second.calls == 0);
  }
  CHECK(first.calls == 1);
  CHECK(second.calls == 1);
}

TEST_CASE("DlpackOwner: reset calls the deleter now and never again", "[interop]") {
  CountedVersioned versioned;
  {
    DlpackOwner a(&versioned.managed);
    a.reset();
    CHECK(versioned.calls == 1);
    CHECK_FALSE(a);
    a.reset();
  }
  CHECK(versioned.calls == 1);
}

TEST_CASE("DlpackOwner: a NULL deleter is allowed", "[interop]") {
  CountedLegacy legacy;
  legacy.managed.deleter = nullptr;
  { DlpackOwner a(&legacy.managed); }
  CHECK(legacy.calls == 0);
}

TEST_CASE("DlpackOwner: a versioned tensor's read-only flag is honoured", "[interop]") {
  CountedVersioned readonly(kDlpackFlagReadOnly | kDlpackFlagIsCopied);
  DlpackOwner owner(&readonly.managed);
  CHECK(owner.readonly());
  ArrayImport a = owner.import();
  CHECK(a.readonly);
  CHECK(a.dtype == Scalar::Float64);
  CHECK(a.data == 0x30000);

  CountedVersioned writable;
  CHECK_FALSE(DlpackOwner(&writable.managed).import().readonly);
  CountedLegacy legacy;
  DlpackOwner unversioned(&legacy.managed);
  CHECK(unversioned.flags() == 0);
  CHECK(unversioned.version().major == 0);
}

TEST_CASE("DlpackOwner: another major version is refused, the deleter still runs", "[interop]") {
  CountedVersioned future(0, 2);
  {
    DlpackOwner owner(&future.managed);
    Thrown e = thrown([&] { owner.import(); });
    CHECK(e.kind == Kind::Value);
    CHECK_THAT(e.message, Contains("the tensor has DLPack version 2.0; expected major version 1"));
  }
  CHECK(future.calls == 1);
}

TEST_CASE("DlpackOwner: the versioned layout is DLPack 1.0's", "[interop]") {
  // The ABI every producer compiled against: offsets on LP64.
  CHECK(offsetof(DLManagedTensorVersioned, version) == 0);
  CHECK(offsetof(DLManagedTensorVersioned, manager_ctx) == 8);
  CHECK(offsetof(DLManagedTensorVersioned, deleter) == 16);
  CHECK(offsetof(DLManagedTensorVersioned, flags) == 24);
  CHECK(offsetof(DLManagedTensorVersioned, dl_tensor) == 32);
  CHECK(sizeof(DLManagedTensorVersioned) == 32 + sizeof(DLTensor));
}

// --- synchronisation -------------------------------------------------------------------

TEST_CASE("sync: what a launch does for an imported array's stream", "[interop]") {
  struct Row {
    SyncMode mode;
    std::optional<int64_t> array_stream;
    uintptr_t launch_stream;
    SyncAction action;
    bool launch_blocking = false;
  };
  const std::vector<Row> table = {
      // No stream: nothing to order.
      {SyncMode::Stream, std::nullopt, 0x7000, SyncAction::None},
      {SyncMode::Host, std::nullopt, 0x7000, SyncAction::None},
      // Off: the stream is ignored.
      {SyncMode::Off, 0x5000, 0x7000, SyncAction::None},
      // Same stream: stream order suffices.
      {SyncMode::Stream, 0x7000, 0x7000, SyncAction::None},
      {SyncMode::Host, 0x7000, 0x7000, SyncAction::None},
      {SyncMode::Stream, 1, 0, SyncAction::None},  // legacy default, CUstream 0
      {SyncMode::Stream, 1, 1, SyncAction::None},  // legacy default, CU_STREAM_LEGACY
      {SyncMode::Host, 1, 0, SyncAction::None},
      {SyncMode::Stream, 2, 2, SyncAction::None},  // per-thread default
      // Different streams.
      {SyncMode::Stream, 0x5000, 0x7000, SyncAction::EventWait},
      {SyncMode::Host, 0x5000, 0x7000, SyncAction::HostSync},
      {SyncMode::Stream, 2, 0, SyncAction::EventWait},
      {SyncMode::Stream, 1, 2, SyncAction::EventWait},
      {SyncMode::Stream, 0x5000, 0, SyncAction::EventWait},
      {SyncMode::Host, 1, 0x7000, SyncAction::HostSync},
      // The legacy default stream and a blocking launch stream: CUDA orders them.
      {SyncMode::Stream, 1, 0x7000, SyncAction::None, true},
      {SyncMode::Stream, 1, 2, SyncAction::None, true},
      {SyncMode::Host, 1, 0x7000, SyncAction::HostSync, true},  // Numba's host wait stays
      {SyncMode::Stream, 0x5000, 0x7000, SyncAction::EventWait, true},
      {SyncMode::Stream, 2, 0x7000, SyncAction::EventWait, true},
  };
  for (const Row& row : table) {
    INFO(sync_mode_name(row.mode) << " array " << (row.array_stream ? *row.array_stream : -1)
                                  << " launch " << row.launch_stream << " blocking "
                                  << row.launch_blocking);
    CHECK(sync_action(row.mode, row.array_stream, row.launch_stream, row.launch_blocking) ==
          row.action);
  }
}

TEST_CASE("sync: the mode is parsed from its name", "[interop]") {
  CHECK(parse_sync_mode("stream") == SyncMode::Stream);
  CHECK(parse_sync_mode("host") == SyncMode::Host);
  CHECK(parse_sync_mode("off") == SyncMode::Off);
  CHECK(parse_sync_mode("0") == SyncMode::Off);
  for (SyncMode mode : {SyncMode::Stream, SyncMode::Host, SyncMode::Off}) {
    CHECK(parse_sync_mode(sync_mode_name(mode)) == mode);
  }
  Thrown t = thrown([] { parse_sync_mode("eventually"); });
  CHECK(t.kind == Kind::Value);
  CHECK_THAT(t.message, Contains("'eventually' is not known; expected 'stream', 'host' or 'off'"));
}

TEST_CASE("sync: launch handles in the CAI convention never give 0", "[interop]") {
  CHECK(cai_stream_value(0) == 1);
  CHECK(cai_stream_value(1) == 1);
  CHECK(cai_stream_value(2) == 2);
  CHECK(cai_stream_value(0x7000) == 0x7000);
}

TEST_CASE("sync: the stream argument of __dlpack__", "[interop]") {
  CHECK(dlpack_stream_argument(kDLCUDA, 0) == 1);  // legacy default: 1, never 0
  CHECK(dlpack_stream_argument(kDLCUDA, 1) == 1);
  CHECK(dlpack_stream_argument(kDLCUDA, 2) == 2);  // per-thread default
  CHECK(dlpack_stream_argument(kDLCUDA, 0x7000) == 0x7000);
  CHECK(dlpack_stream_argument(kDLCUDAManaged, 0x7000) == 0x7000);
  CHECK(dlpack_stream_argument(kDLCUDAHost, 0) == 1);
  CHECK(dlpack_stream_argument(kDLCUDA, 0x7000, SyncMode::Host) == 0x7000);
  CHECK(dlpack_stream_argument(kDLCUDA, 0x7000, SyncMode::Off) == -1);
  // Devices without streams take only None.
  CHECK_FALSE(dlpack_stream_argument(kDLCPU, 0x7000));
  CHECK_FALSE(dlpack_stream_argument(kDLCPU, 0x7000, SyncMode::Off));
  CHECK_FALSE(dlpack_stream_argument(kDLROCM, 0x7000));
}
