// The types of the kernel language: scalars, arrays, tuples and records,
// spelled as Numba spells them ("float32", "array(float32, 2d, C)",
// "Record(a[type=float64;offset=0],b[type=int32;offset=8];16;True)").
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
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
  // PyTorch's and JAX's bfloat16 (numba-cuda's bf16): float32's top half, LLVM's `bfloat`.
  BFloat16,
  // CUDA's 8-bit floats (cuda_fp8.h, numba-cuda's fp8_e4m3...): conversions only, stored
  // as their byte (LLVM's i8). E4M3: no infinity, NaN 0x7F; E5M2: float16's top byte;
  // E8M0: a power of two 2**(b - 127), 0xFF NaN.
  Fp8E4M3,
  Fp8E5M2,
  Fp8E8M0,
  // NumPy's datetime64[unit] and timedelta64[unit] (Numba's NPDatetime / NPTimedelta): int64
  // counts of a unit, INT64_MIN being NaT. One value per unit, kDatetimeUnits of each, from
  // these (unit u: DatetimeFirst + u); the values between are not scalars.
  DatetimeFirst = 64,
  TimedeltaFirst = 96,
};

// The units of datetime64/timedelta64, in NumPy's order from the coarsest: Y M W D h m s ms
// us ns ps fs as, then the generic unit ("datetime64", unit kGenericUnit).
inline constexpr int kDatetimeUnits = 14;
inline constexpr int kGenericUnit = 13;

// Memory layout of an array argument: C- or Fortran-contiguous, or any strides.
enum class Layout : uint8_t { C, F, A };

// Arrays in kernels have 1 to kMaxArrayDims dimensions (one digit in a type's spelling).
inline constexpr int kMaxArrayDims = 8;

// The layout byte strides make, by NumPy's rules: C or F when contiguous that way (extents of
// 1 constrain nothing; an array with no element is C), else A.
Layout strided_layout(std::span<const int64_t> shape, std::span<const int64_t> strides,
                      int64_t itemsize);

bool is_integer(Scalar s);
bool is_signed(Scalar s);
bool is_float(Scalar s);  // float16, bfloat16, float32, float64
bool is_complex(Scalar s);
bool is_fp8(Scalar s);  // fp8_e4m3, fp8_e5m2, fp8_e8m0

bool is_datetime(Scalar s);   // datetime64[unit]
bool is_timedelta(Scalar s);  // timedelta64[unit]
inline bool is_npdatetime(Scalar s) { return is_datetime(s) || is_timedelta(s); }
int datetime_unit(Scalar s);  // 0 (Y) .. 12 (as), kGenericUnit
Scalar make_datetime(int unit);
Scalar make_timedelta(int unit);
// How many `to` units one `from` unit holds when `from` converts to `to` exactly (to a finer
// unit of its group: Y and M, or W to as; the generic unit converts to any with factor 1);
// nullopt otherwise.
std::optional<int64_t> datetime_unit_factor(int from, int to);
// The unit two units meet in (the finer one, NumPy's and Numba's rule), if they convert.
std::optional<int> common_datetime_unit(int a, int b);
int bit_width(Scalar s);        // bool: 1; complex64: 64
int byte_size(Scalar s);        // storage size: bool 1, complex64 8
int alignment(Scalar s);        // natural alignment (a complex number's: its parts')
Scalar complex_part(Scalar s);  // complex64 -> float32, complex128 -> float64
std::string_view scalar_name(Scalar s);
std::optional<Scalar> scalar_from_name(std::string_view name);
Scalar make_int(int bits, bool is_signed);
Scalar make_float(int bits);

// A NumPy structured dtype: named fields at byte offsets, each a scalar or a
// C-contiguous nested array of scalars (`shape` non-empty), as Numba's Record.
struct RecordLayout;

struct RecordField {
  std::string name;
  Scalar dtype = Scalar::Bool;  // UInt8 for a record field
  std::vector<int64_t> shape;   // empty: a scalar field (or a record)
  int64_t offset = 0;
  std::shared_ptr<const RecordLayout> record;  // a record inside the record
  // Bytes kernels cannot read or write, spelled as Numba spells them: "[unichr x 5]" (NumPy
  // <U5), "[char x 8]" (|S8) or "[bytes x 16]" (|V16); then dtype is UInt8 and shape {bytes}.
  // Copies of the whole record carry them.
  std::string opaque;
  bool operator==(const RecordField& o) const;
};

struct RecordLayout {
  std::vector<RecordField> fields;
  int64_t size = 0;      // the itemsize, padding included
  bool aligned = false;  // made with align=True (C struct rules); part of the type, as in Numba
  bool operator==(const RecordLayout&) const = default;
  const RecordField* find(std::string_view name) const;
  int64_t alignment() const;  // the largest alignment of a field's scalar: 1 when not aligned
  // What the address of `f` (and of a nested array's elements) is known to be aligned to:
  // its scalar's natural alignment, unless the record's size or the field's offset breaks it
  // (a packed record). Arrays of records, and records passed alone, start aligned.
  int64_t field_alignment(const RecordField& f) const;
  bool field_aligned(const RecordField& f) const;
};

// The elements of an array of NumPy 'U' or 'S' dtype (Numba's UnicodeCharSeq / CharSeq,
// spelled "[unichr x 12]"): one nameless opaque field of the element's bytes. Kernels store
// str/bytes constants into them (a[i] = "abc") and copy them whole.
inline bool is_character_layout(const RecordLayout& r) {
  return r.fields.size() == 1 && r.fields[0].name.empty() && !r.fields[0].opaque.empty();
}

// Why a record field `f` of `outer` cannot be used (empty when it can): a record inside a
// record must start as aligned as its own fields need, which only records made with
// align=True promise (NumPy places such a record at a multiple of its alignment).
std::string nested_record_problem(const RecordLayout& outer, const RecordField& f);

class Type {
 public:
  // Record: a reference to one record in memory (an element of a record
  // array, or a record argument), as Numba's records are: its fields are read
  // and written in place.
  // Pointer: Numba's CPointer(dtype), a raw address whose elements p[i] are read and
  // written with no shape, bounds or wrap-around (a kernel argument given as an integer).
  // Optional: a number or None (Numba's OptionalType): what a device function returns when
  // some of its paths return None and others a number; `x is None` tests it at run time.
  enum class Kind : uint8_t { None, Scalar, Array, Tuple, Record, Pointer, Optional };

  Type() = default;  // none (void)
  static Type none() { return Type(); }
  static Type scalar(Scalar s);
  static Type array(Scalar dtype, int ndim, Layout layout, bool readonly = false);
  static Type tuple(std::vector<Type> elements);
  // A named tuple (collections.namedtuple): its items are also read as attributes.
  static Type named_tuple(std::string name, std::vector<Type> elements,
                          std::vector<std::string> fields);
  static Type record(std::shared_ptr<const RecordLayout> layout, bool readonly = false);
  static Type pointer(Scalar dtype);
  static Type optional(Type value);
  static Type record_array(std::shared_ptr<const RecordLayout> layout, int ndim, Layout layout_kind,
                           bool readonly = false);

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::None; }
  bool is_scalar() const { return kind_ == Kind::Scalar; }
  bool is_array() const { return kind_ == Kind::Array; }
  bool is_tuple() const { return kind_ == Kind::Tuple; }
  bool is_record() const { return kind_ == Kind::Record; }
  bool is_pointer() const { return kind_ == Kind::Pointer; }
  bool is_optional() const { return kind_ == Kind::Optional; }
  // The number an optional holds when it is not None.
  const Type& optional_value() const { return elements_.at(0); }
  bool is_record_array() const { return kind_ == Kind::Array && record_ != nullptr; }
  bool is_scalar(Scalar s) const { return is_scalar() && scalar_ == s; }

  // The scalar of a scalar type, or the element type of an array (uint8 for a
  // record array: ask is_record_array() first).
  Scalar scalar() const { return scalar_; }
  Scalar dtype() const { return scalar_; }
  // The fields of a record or of a record array's elements; null otherwise.
  const std::shared_ptr<const RecordLayout>& record_layout() const { return record_; }
  // Bytes of one array element (or of a record).
  int64_t itemsize() const;
  int ndim() const { return ndim_; }
  Layout layout() const { return layout_; }
  bool readonly() const { return readonly_; }
  // Whether every element of an array sits at its dtype's natural alignment: false for a
  // nested array or a field view of a packed record (Numba's "unaligned array"), whose
  // elements are then read and written a byte at a time.
  bool aligned() const { return aligned_; }
  const std::vector<Type>& elements() const { return elements_; }
  // A named tuple's field names (empty for a plain tuple) and class name.
  const std::vector<std::string>& fields() const { return fields_; }
  const std::string& tuple_name() const { return tuple_name_; }

  Type with_readonly(bool readonly) const;
  Type with_layout(Layout layout) const;
  Type with_aligned(bool aligned) const;
  // An array of the same elements (and read-only-ness) with `ndim` dimensions and `layout`.
  Type with_dims(int ndim, Layout layout) const;

  // "int64", "array(float32, 2d, C)", "readonly array(int8, 1d, A)",
  // "unaligned array(float64, 1d, A)",
  // "Tuple(int64, float32)", "UniTuple(int64 x 2)", "CPointer(uint8)", "OptionalType(int64)",
  // "none".
  std::string str() const;
  bool operator==(const Type& other) const;
  bool operator!=(const Type& other) const { return !(*this == other); }

 private:
  Kind kind_ = Kind::None;
  Scalar scalar_ = Scalar::Bool;
  int ndim_ = 0;
  Layout layout_ = Layout::A;
  bool readonly_ = false;
  bool aligned_ = true;
  std::vector<Type> elements_;
  std::vector<std::string> fields_;  // named tuples only
  std::string tuple_name_;
  std::shared_ptr<const RecordLayout> record_;
};

// Parses the spelling produced by Type::str() (and by cudajit.types in Python).
// Throws std::invalid_argument naming the text on failure.
Type parse_type(std::string_view text);

}  // namespace cudajit
