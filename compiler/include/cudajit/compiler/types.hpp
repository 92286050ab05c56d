// The types of the kernel language: scalars, arrays and tuples, spelled as
// Numba spells them ("float32", "array(float32, 2d, C)").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudajit {

enum class Scalar : uint8_t {
  Bool,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Float32,
  Float64,
  Complex64,
  Complex128,
  // Appended, so the values above keep their numbers.
  Float16,
  // Storage only (PyTorch's and JAX's bfloat16): an element reads as float32
  // and a store rounds to nearest even; no bfloat16 value lives in a register.
  BFloat16,
};

// Memory layout of an array argument: C- or Fortran-contiguous, or any strides.
enum class Layout : uint8_t { C, F, A };

bool is_integer(Scalar s);
bool is_signed(Scalar s);
bool is_float(Scalar s);  // float16, float32, float64 (not bfloat16: see above)
bool is_complex(Scalar s);
int bit_width(Scalar s);        // bool: 1; complex64: 64
int byte_size(Scalar s);        // storage size: bool 1, complex64 8
Scalar complex_part(Scalar s);  // complex64 -> float32, complex128 -> float64
std::string_view scalar_name(Scalar s);
std::optional<Scalar> scalar_from_name(std::string_view name);
Scalar make_int(int bits, bool is_signed);
Scalar make_float(int bits);
// The type an array element of `dtype` has once read: itself, except bfloat16
// (read as float32).
Scalar element_value(Scalar dtype);

class Type {
 public:
  enum class Kind : uint8_t { None, Scalar, Array, Tuple };

  Type() = default;  // none (void)
  static Type none() { return Type(); }
  static Type scalar(Scalar s);
  static Type array(Scalar dtype, int ndim, Layout layout, bool readonly = false);
  static Type tuple(std::vector<Type> elements);

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::None; }
  bool is_scalar() const { return kind_ == Kind::Scalar; }
  bool is_array() const { return kind_ == Kind::Array; }
  bool is_tuple() const { return kind_ == Kind::Tuple; }
  bool is_scalar(Scalar s) const { return is_scalar() && scalar_ == s; }

  // The scalar of a scalar type, or the element type of an array.
  Scalar scalar() const { return scalar_; }
  Scalar dtype() const { return scalar_; }
  int ndim() const { return ndim_; }
  Layout layout() const { return layout_; }
  bool readonly() const { return readonly_; }
  const std::vector<Type>& elements() const { return elements_; }

  Type with_readonly(bool readonly) const;
  Type with_layout(Layout layout) const;

  // "int64", "array(float32, 2d, C)", "readonly array(int8, 1d, A)",
  // "Tuple(int64, float32)", "UniTuple(int64 x 2)", "none".
  std::string str() const;
  bool operator==(const Type& other) const;
  bool operator!=(const Type& other) const { return !(*this == other); }

 private:
  Kind kind_ = Kind::None;
  Scalar scalar_ = Scalar::Bool;
  int ndim_ = 0;
  Layout layout_ = Layout::A;
  bool readonly_ = false;
  std::vector<Type> elements_;
};

// Parses the spelling produced by Type::str() (and by cudajit.types in Python).
// Throws std::invalid_argument naming the text on failure.
Type parse_type(std::string_view text);

}  // namespace cudajit
