// NumPy type strings ("<f4", "|b1"): what the CUDA Array Interface's typestr
// and descr hold.
#include <bit>
#include <charconv>
#include <string>

#include "cudajit/runtime/interop.hpp"

namespace cudajit::runtime {

namespace {

constexpr char kNativeOrder = std::endian::native == std::endian::little ? '<' : '>';
constexpr char kForeignOrder = kNativeOrder == '<' ? '>' : '<';

constexpr std::string_view kSupported =
    "supported: b1 (bool), i1 i2 i4 i8, u1 u2 u4 u8, f2 f4 f8, c8 c16, and V2 with descr "
    "[('bfloat16', '<V2')]";

// Kinds NumPy knows and kernels cannot take, named for the message.
std::string_view unsupported_kind_name(char kind) {
  switch (kind) {
    case 'M':
      return "datetime64";
    case 'm':
      return "timedelta64";
    case 'O':
      return "Python object";
    case 'U':
      return "unicode string";
    case 'S':
    case 'a':
      return "byte string";
    case 'V':
      return "void or structured";
    case 't':
      return "bit field";
    default:
      return {};
  }
}

std::optional<Scalar> scalar_of(char kind, int size) {
  switch (kind) {
    case 'b':
      if (size == 1) return Scalar::Bool;
      break;
    case 'i':
    case 'u':
      if (size == 1 || size == 2 || size == 4 || size == 8) return make_int(size * 8, kind == 'i');
      break;
    case 'f':
      if (size == 2 || size == 4 || size == 8) return make_float(size * 8);
      break;
    case 'c':
      if (size == 8) return Scalar::Complex64;
      if (size == 16) return Scalar::Complex128;
      break;
  }
  return std::nullopt;
}

}  // namespace

Scalar detail::parse_typestr_in(std::string_view typestr, std::string_view context) {
  // Messages only (this runs at every launch with a foreign array). Built by appending:
  // GCC 12 misreports "'" + string (-Wrestrict).
  auto prefix = [&] {
    std::string text(context);
    text.append(": '").append(typestr).append("'");
    return text;
  };
  auto malformed = [&](std::string_view why) {
    return InteropError(prefix() + " is not a NumPy type string (" + std::string(why) +
                        "); expected a byte order <, >, | or =, a kind letter and a size in "
                        "bytes, e.g. '<f4'");
  };
  if (typestr.size() < 2) throw malformed("too short");
  const char order = typestr[0];
  if (order != '<' && order != '>' && order != '|' && order != '=') {
    throw malformed("no byte order");
  }
  const char kind = typestr[1];
  if (std::string_view name = unsupported_kind_name(kind); !name.empty()) {
    throw InteropTypeError(prefix() + " (" + std::string(name) + ") is not supported; " +
                           std::string(kSupported));
  }
  if (kind != 'b' && kind != 'i' && kind != 'u' && kind != 'f' && kind != 'c') {
    throw malformed("unknown kind '" + std::string(1, kind) + "'");
  }
  const std::string_view digits = typestr.substr(2);
  int size = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), size);
  if (digits.empty() || error != std::errc() || end != digits.data() + digits.size() || size <= 0) {
    throw malformed("no size");
  }
  std::optional<Scalar> scalar = scalar_of(kind, size);
  if (!scalar) {
    std::string what = kind == 'f' && size > 8     ? " (long double)"
                       : kind == 'c' && size == 32 ? " (complex long double)"
                                                   : "";
    throw InteropTypeError(prefix() + what + " is not supported; " + std::string(kSupported));
  }
  // '|' (not applicable) with a multi-byte type is read as native, as NumPy does.
  if (order == kForeignOrder && size > 1) {
    throw InteropTypeError(prefix() + " has non-native byte order (" +
                           (order == '>' ? "big" : "little") + "-endian on a " +
                           (kNativeOrder == '<' ? "little" : "big") +
                           "-endian machine); byte-swap the array first, e.g. with NumPy "
                           "a.byteswap().view(a.dtype.newbyteorder())");
  }
  return *scalar;
}

Scalar parse_typestr(std::string_view typestr) {
  return detail::parse_typestr_in(typestr, "typestr");
}

std::string scalar_typestr(Scalar scalar) {
  if (scalar == Scalar::BFloat16) return std::string(1, kNativeOrder) + "V2";
  const int size = byte_size(scalar);
  char kind = 'f';
  if (scalar == Scalar::Bool) {
    kind = 'b';
  } else if (is_integer(scalar)) {
    kind = is_signed(scalar) ? 'i' : 'u';
  } else if (is_complex(scalar)) {
    kind = 'c';
  }
  return std::string(1, size == 1 ? '|' : kNativeOrder) + kind + std::to_string(size);
}

}  // namespace cudajit::runtime
