#include "cudajit/compiler/types.hpp"

#include <array>
#include <stdexcept>

namespace cudajit {

namespace {

struct ScalarInfo {
  std::string_view name;
  int bits;
  int bytes;
};

constexpr std::array<ScalarInfo, 15> kScalars = {{
    {"bool", 1, 1},
    {"int8", 8, 1},
    {"int16", 16, 2},
    {"int32", 32, 4},
    {"int64", 64, 8},
    {"uint8", 8, 1},
    {"uint16", 16, 2},
    {"uint32", 32, 4},
    {"uint64", 64, 8},
    {"float32", 32, 4},
    {"float64", 64, 8},
    {"complex64", 64, 8},
    {"complex128", 128, 16},
    {"float16", 16, 2},
    {"bfloat16", 16, 2},
}};

const ScalarInfo& info(Scalar s) { return kScalars[static_cast<size_t>(s)]; }

}  // namespace

bool is_integer(Scalar s) { return s >= Scalar::Int8 && s <= Scalar::UInt64; }
bool is_signed(Scalar s) { return s >= Scalar::Int8 && s <= Scalar::Int64; }
bool is_float(Scalar s) {
  return s == Scalar::Float16 || s == Scalar::Float32 || s == Scalar::Float64;
}
bool is_complex(Scalar s) { return s == Scalar::Complex64 || s == Scalar::Complex128; }
int bit_width(Scalar s) { return info(s).bits; }
int byte_size(Scalar s) { return info(s).bytes; }
std::string_view scalar_name(Scalar s) { return info(s).name; }

Scalar complex_part(Scalar s) { return s == Scalar::Complex64 ? Scalar::Float32 : Scalar::Float64; }

std::optional<Scalar> scalar_from_name(std::string_view name) {
  for (size_t i = 0; i < kScalars.size(); ++i)
    if (kScalars[i].name == name) return static_cast<Scalar>(i);
  if (name == "bool_" || name == "boolean") return Scalar::Bool;
  if (name == "half") return Scalar::Float16;
  return std::nullopt;
}

Scalar make_int(int bits, bool is_signed_int) {
  switch (bits) {
    case 8:
      return is_signed_int ? Scalar::Int8 : Scalar::UInt8;
    case 16:
      return is_signed_int ? Scalar::Int16 : Scalar::UInt16;
    case 32:
      return is_signed_int ? Scalar::Int32 : Scalar::UInt32;
    default:
      return is_signed_int ? Scalar::Int64 : Scalar::UInt64;
  }
}

Scalar make_float(int bits) {
  if (bits <= 16) return Scalar::Float16;
  return bits <= 32 ? Scalar::Float32 : Scalar::Float64;
}

Scalar element_value(Scalar dtype) { return dtype == Scalar::BFloat16 ? Scalar::Float32 : dtype; }

Type Type::scalar(Scalar s) {
  Type t;
  t.kind_ = Kind::Scalar;
  t.scalar_ = s;
  return t;
}

Type Type::array(Scalar dtype, int ndim, Layout layout, bool readonly) {
  Type t;
  t.kind_ = Kind::Array;
  t.scalar_ = dtype;
  t.ndim_ = ndim;
  // One dimension contiguous either way: Numba calls it C.
  t.layout_ = (ndim == 1 && layout == Layout::F) ? Layout::C : layout;
  t.readonly_ = readonly;
  return t;
}

Type Type::tuple(std::vector<Type> elements) {
  Type t;
  t.kind_ = Kind::Tuple;
  t.elements_ = std::move(elements);
  return t;
}

Type Type::with_readonly(bool readonly) const {
  Type t = *this;
  t.readonly_ = readonly;
  return t;
}

Type Type::with_layout(Layout layout) const { return array(scalar_, ndim_, layout, readonly_); }

std::string Type::str() const {
  switch (kind_) {
    case Kind::None:
      return "none";
    case Kind::Scalar:
      return std::string(scalar_name(scalar_));
    case Kind::Array: {
      static constexpr char kLayouts[] = {'C', 'F', 'A'};
      std::string s = readonly_ ? "readonly array(" : "array(";
      s += scalar_name(scalar_);
      s += ", " + std::to_string(ndim_) + "d, ";
      s += kLayouts[static_cast<int>(layout_)];
      return s + ")";
    }
    case Kind::Tuple: {
      bool uniform = !elements_.empty();
      for (const Type& e : elements_) uniform = uniform && e == elements_[0];
      if (uniform)
        return "UniTuple(" + elements_[0].str() + " x " + std::to_string(elements_.size()) + ")";
      std::string s = "Tuple(";
      for (size_t i = 0; i < elements_.size(); ++i) s += (i ? ", " : "") + elements_[i].str();
      return s + ")";
    }
  }
  return "?";
}

bool Type::operator==(const Type& o) const {
  if (kind_ != o.kind_) return false;
  switch (kind_) {
    case Kind::None:
      return true;
    case Kind::Scalar:
      return scalar_ == o.scalar_;
    case Kind::Array:
      return scalar_ == o.scalar_ && ndim_ == o.ndim_ && layout_ == o.layout_ &&
             readonly_ == o.readonly_;
    case Kind::Tuple:
      return elements_ == o.elements_;
  }
  return false;
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

[[noreturn]] void bad_type(std::string_view text, std::string_view why) {
  throw std::invalid_argument("cannot parse type '" + std::string(text) + "': " + std::string(why));
}

}  // namespace

Type parse_type(std::string_view text) {
  std::string_view s = trim(text);
  if (s == "none" || s == "void") return Type::none();
  if (auto scalar = scalar_from_name(s)) return Type::scalar(*scalar);
  bool readonly = false;
  if (s.starts_with("readonly ")) {
    readonly = true;
    s = trim(s.substr(9));
  }
  if (!s.starts_with("array(") || !s.ends_with(")"))
    bad_type(text, "expected a scalar name, 'none' or 'array(dtype, Nd, C|F|A)'");
  std::string_view body = s.substr(6, s.size() - 7);
  size_t c1 = body.find(',');
  size_t c2 = body.find(',', c1 == std::string_view::npos ? c1 : c1 + 1);
  if (c1 == std::string_view::npos || c2 == std::string_view::npos)
    bad_type(text, "expected 'array(dtype, Nd, layout)'");
  auto dtype = scalar_from_name(trim(body.substr(0, c1)));
  std::string_view dims = trim(body.substr(c1 + 1, c2 - c1 - 1));
  std::string_view layout = trim(body.substr(c2 + 1));
  if (!dtype) bad_type(text, "unknown dtype");
  if (dims.size() != 2 || dims[1] != 'd' || dims[0] < '1' || dims[0] > '4')
    bad_type(text, "ndim must be 1d to 4d");
  Layout l;
  if (layout == "C")
    l = Layout::C;
  else if (layout == "F")
    l = Layout::F;
  else if (layout == "A")
    l = Layout::A;
  else
    bad_type(text, "layout must be C, F or A");
  return Type::array(*dtype, dims[0] - '0', l, readonly);
}

}  // namespace cudajit
