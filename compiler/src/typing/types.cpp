#include "cudajit/compiler/types.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <stdexcept>

namespace cudajit {

namespace {

struct ScalarInfo {
  std::string_view name;
  int bits;
  int bytes;
};

constexpr std::array<ScalarInfo, 18> kScalars = {{
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
    {"fp8_e4m3", 8, 1},
    {"fp8_e5m2", 8, 1},
    {"fp8_e8m0", 8, 1},
}};

constexpr std::array<std::string_view, kDatetimeUnits> kDatetimeNames = {
    "datetime64[Y]",  "datetime64[M]",  "datetime64[W]",  "datetime64[D]",  "datetime64[h]",
    "datetime64[m]",  "datetime64[s]",  "datetime64[ms]", "datetime64[us]", "datetime64[ns]",
    "datetime64[ps]", "datetime64[fs]", "datetime64[as]", "datetime64"};
constexpr std::array<std::string_view, kDatetimeUnits> kTimedeltaNames = {
    "timedelta64[Y]",  "timedelta64[M]",  "timedelta64[W]",  "timedelta64[D]",  "timedelta64[h]",
    "timedelta64[m]",  "timedelta64[s]",  "timedelta64[ms]", "timedelta64[us]", "timedelta64[ns]",
    "timedelta64[ps]", "timedelta64[fs]", "timedelta64[as]", "timedelta64"};

const ScalarInfo& info(Scalar s) {
  static const auto datetimes = [] {
    std::array<ScalarInfo, 2 * kDatetimeUnits> all{};
    for (int u = 0; u < kDatetimeUnits; ++u) {
      all[u] = {kDatetimeNames[u], 64, 8};
      all[kDatetimeUnits + u] = {kTimedeltaNames[u], 64, 8};
    }
    return all;
  }();
  if (is_datetime(s)) return datetimes[datetime_unit(s)];
  if (is_timedelta(s)) return datetimes[kDatetimeUnits + datetime_unit(s)];
  return kScalars[static_cast<size_t>(s)];
}

}  // namespace

bool is_integer(Scalar s) { return s >= Scalar::Int8 && s <= Scalar::UInt64; }
bool is_signed(Scalar s) { return s >= Scalar::Int8 && s <= Scalar::Int64; }
bool is_float(Scalar s) {
  return s == Scalar::Float16 || s == Scalar::BFloat16 || s == Scalar::Float32 ||
         s == Scalar::Float64;
}
bool is_fp8(Scalar s) { return s >= Scalar::Fp8E4M3 && s <= Scalar::Fp8E8M0; }
bool is_complex(Scalar s) { return s == Scalar::Complex64 || s == Scalar::Complex128; }
bool is_datetime(Scalar s) {
  auto v = static_cast<int>(s), first = static_cast<int>(Scalar::DatetimeFirst);
  return v >= first && v < first + kDatetimeUnits;
}
bool is_timedelta(Scalar s) {
  auto v = static_cast<int>(s), first = static_cast<int>(Scalar::TimedeltaFirst);
  return v >= first && v < first + kDatetimeUnits;
}
int datetime_unit(Scalar s) {
  return static_cast<int>(s) -
         static_cast<int>(is_datetime(s) ? Scalar::DatetimeFirst : Scalar::TimedeltaFirst);
}
Scalar make_datetime(int unit) {
  return static_cast<Scalar>(static_cast<int>(Scalar::DatetimeFirst) + unit);
}
Scalar make_timedelta(int unit) {
  return static_cast<Scalar>(static_cast<int>(Scalar::TimedeltaFirst) + unit);
}

std::optional<int64_t> datetime_unit_factor(int from, int to) {
  if (from == kGenericUnit || to == kGenericUnit) return 1;
  if (from > to) return std::nullopt;
  // Y M | W D h m s ms us ns ps fs as: years and months do not convert to days.
  if (from <= 1 && to >= 2) return std::nullopt;
  // one unit in the next finer one (months to weeks: no exact factor, never used)
  constexpr std::array<int64_t, kDatetimeUnits> kStep = {12,   1,    7,    24,   60,   60, 1000,
                                                         1000, 1000, 1000, 1000, 1000, 1,  1};
  int64_t factor = 1;
  for (int u = from; u < to; ++u) factor *= kStep[u];
  return factor;
}

std::optional<int> common_datetime_unit(int a, int b) {
  if (a == kGenericUnit) return b;
  if (b == kGenericUnit) return a;
  int finer = std::max(a, b);
  if (!datetime_unit_factor(std::min(a, b), finer)) return std::nullopt;
  return finer;
}
int bit_width(Scalar s) { return info(s).bits; }
int byte_size(Scalar s) { return info(s).bytes; }
int alignment(Scalar s) { return byte_size(is_complex(s) ? complex_part(s) : s); }
std::string_view scalar_name(Scalar s) { return info(s).name; }

Scalar complex_part(Scalar s) { return s == Scalar::Complex64 ? Scalar::Float32 : Scalar::Float64; }

std::optional<Scalar> scalar_from_name(std::string_view name) {
  for (size_t i = 0; i < kScalars.size(); ++i)
    if (kScalars[i].name == name) return static_cast<Scalar>(i);
  if (name == "bool_" || name == "boolean") return Scalar::Bool;
  if (name == "half") return Scalar::Float16;
  for (int u = 0; u < kDatetimeUnits; ++u) {
    if (kDatetimeNames[u] == name) return make_datetime(u);
    if (kTimedeltaNames[u] == name) return make_timedelta(u);
  }
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

Layout strided_layout(std::span<const int64_t> shape, std::span<const int64_t> strides,
                      int64_t itemsize) {
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return Layout::C;
  // Products wrap harmlessly (unsigned): a wrapped one no longer matches a stride.
  auto contiguous = [&](bool c_order) {
    uint64_t expected = static_cast<uint64_t>(itemsize);
    for (size_t i = 0; i < shape.size(); ++i) {
      const size_t d = c_order ? shape.size() - 1 - i : i;
      if (shape[d] != 1 && static_cast<uint64_t>(strides[d]) != expected) return false;
      expected *= static_cast<uint64_t>(shape[d]);
    }
    return true;
  };
  return contiguous(true) ? Layout::C : contiguous(false) ? Layout::F : Layout::A;
}

Type Type::scalar(Scalar s) {
  Type t;
  t.kind_ = Kind::Scalar;
  t.scalar_ = s;
  return t;
}

Type Type::pointer(Scalar dtype) {
  Type t;
  t.kind_ = Kind::Pointer;
  t.scalar_ = dtype;
  return t;
}

Type Type::optional(Type value) {
  Type t;
  t.kind_ = Kind::Optional;
  t.elements_.push_back(std::move(value));
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

Type Type::named_tuple(std::string name, std::vector<Type> elements,
                       std::vector<std::string> fields) {
  Type t = tuple(std::move(elements));
  t.tuple_name_ = std::move(name);
  t.fields_ = std::move(fields);
  return t;
}

Type Type::record(std::shared_ptr<const RecordLayout> layout, bool readonly) {
  Type t;
  t.kind_ = Kind::Record;
  t.scalar_ = Scalar::UInt8;
  t.readonly_ = readonly;
  t.record_ = std::move(layout);
  return t;
}

Type Type::record_array(std::shared_ptr<const RecordLayout> layout, int ndim, Layout layout_kind,
                        bool readonly) {
  Type t = array(Scalar::UInt8, ndim, layout_kind, readonly);
  t.record_ = std::move(layout);
  return t;
}

int64_t Type::itemsize() const { return record_ ? record_->size : byte_size(scalar_); }

Type Type::with_readonly(bool readonly) const {
  Type t = *this;
  t.readonly_ = readonly;
  return t;
}

Type Type::with_layout(Layout layout) const { return with_dims(ndim_, layout); }

Type Type::with_dims(int ndim, Layout layout) const {
  Type t = array(scalar_, ndim, layout, readonly_);
  t.record_ = record_;
  t.aligned_ = aligned_;
  return t;
}

Type Type::with_aligned(bool aligned) const {
  Type t = *this;
  t.aligned_ = aligned;
  return t;
}

const RecordField* RecordLayout::find(std::string_view name) const {
  for (const RecordField& f : fields)
    if (f.name == name) return &f;
  return nullptr;
}

bool RecordField::operator==(const RecordField& o) const {
  return name == o.name && dtype == o.dtype && shape == o.shape && offset == o.offset &&
         opaque == o.opaque &&
         (record == o.record || (record && o.record && *record == *o.record));
}

namespace {

// What a field's own start needs: its scalar's alignment, or that of the record inside.
int64_t natural_alignment(const RecordField& f) {
  return f.record ? f.record->alignment() : cudajit::alignment(f.dtype);
}

}  // namespace

int64_t RecordLayout::alignment() const {
  int64_t most = 1;
  if (aligned)
    for (const RecordField& f : fields) most = std::max<int64_t>(most, natural_alignment(f));
  return most;
}

std::string nested_record_problem(const RecordLayout& outer, const RecordField& f) {
  if (!f.shape.empty()) return "arrays of records inside records are not supported";
  if (!outer.aligned || !f.record->aligned)
    return "a record inside a record needs both made with align=True (NumPy's aligned "
           "structs), so that its fields are aligned wherever it lies";
  if (f.offset % f.record->alignment() != 0)
    return "it lies at offset " + std::to_string(f.offset) + ", not a multiple of its " +
           std::to_string(f.record->alignment()) + "-byte alignment";
  return {};
}

int64_t RecordLayout::field_alignment(const RecordField& f) const {
  auto lowest_bit = [](int64_t v) { return v & -v; };
  int64_t known = natural_alignment(f);
  if (size > 0) known = std::min(known, lowest_bit(size));
  if (f.offset > 0) known = std::min(known, lowest_bit(f.offset));
  return known;
}

bool RecordLayout::field_aligned(const RecordField& f) const {
  return field_alignment(f) == natural_alignment(f);
}

namespace {

std::string record_str(const RecordLayout& r) {
  if (is_character_layout(r)) return r.fields[0].opaque;  // array([unichr x 12], 1d, C)
  std::string s = "Record(";
  for (size_t i = 0; i < r.fields.size(); ++i) {
    const RecordField& f = r.fields[i];
    s += (i ? "," : "") + f.name + "[type=";
    if (f.record) {
      s += record_str(*f.record);
    } else if (!f.opaque.empty()) {
      s += f.opaque;
    } else if (f.shape.empty()) {
      s += scalar_name(f.dtype);
    } else {
      s += "nestedarray(" + std::string(scalar_name(f.dtype)) + ", (";
      for (size_t d = 0; d < f.shape.size(); ++d) s += (d ? ", " : "") + std::to_string(f.shape[d]);
      s += f.shape.size() == 1 ? ",))" : "))";
    }
    s += ";offset=" + std::to_string(f.offset) + "]";
  }
  return s + ";" + std::to_string(r.size) + ";" + (r.aligned ? "True" : "False") + ")";
}

}  // namespace

std::string Type::str() const {
  switch (kind_) {
    case Kind::None:
      return "none";
    case Kind::Scalar:
      return std::string(scalar_name(scalar_));
    case Kind::Array: {
      static constexpr char kLayouts[] = {'C', 'F', 'A'};
      std::string s = readonly_ ? "readonly " : "";
      if (!aligned_) s += "unaligned ";
      s += "array(";
      s += record_ ? record_str(*record_) : std::string(scalar_name(scalar_));
      s += ", " + std::to_string(ndim_) + "d, ";
      s += kLayouts[static_cast<int>(layout_)];
      return s + ")";
    }
    case Kind::Tuple: {
      if (!fields_.empty()) {  // Point(x=int64, y=float64)
        std::string s = tuple_name_ + "(";
        for (size_t i = 0; i < elements_.size(); ++i)
          s += (i ? ", " : "") + fields_[i] + "=" + elements_[i].str();
        return s + ")";
      }
      bool uniform = !elements_.empty();
      for (const Type& e : elements_) uniform = uniform && e == elements_[0];
      if (uniform)
        return "UniTuple(" + elements_[0].str() + " x " + std::to_string(elements_.size()) + ")";
      std::string s = "Tuple(";
      for (size_t i = 0; i < elements_.size(); ++i) s += (i ? ", " : "") + elements_[i].str();
      return s + ")";
    }
    case Kind::Record:
      return (readonly_ ? "readonly " : "") + record_str(*record_);
    case Kind::Pointer:
      return "CPointer(" + std::string(scalar_name(scalar_)) + ")";
    case Kind::Optional:
      return "OptionalType(" + elements_[0].str() + ")";
  }
  return "?";
}

bool Type::operator==(const Type& o) const {
  if (kind_ != o.kind_) return false;
  auto same_record = [&] {
    return record_ == o.record_ || (record_ && o.record_ && *record_ == *o.record_);
  };
  switch (kind_) {
    case Kind::None:
      return true;
    case Kind::Scalar:
      return scalar_ == o.scalar_;
    case Kind::Array:
      return scalar_ == o.scalar_ && ndim_ == o.ndim_ && layout_ == o.layout_ &&
             readonly_ == o.readonly_ && aligned_ == o.aligned_ && same_record();
    case Kind::Tuple:
      return elements_ == o.elements_ && fields_ == o.fields_ && tuple_name_ == o.tuple_name_;
    case Kind::Record:
      return readonly_ == o.readonly_ && same_record();
    case Kind::Pointer:
      return scalar_ == o.scalar_;
    case Kind::Optional:
      return elements_ == o.elements_;
  }
  return false;
}

namespace {

// A cursor over a type's spelling; each read skips the spaces before it.
class TypeReader {
 public:
  explicit TypeReader(std::string_view text) : text_(text) {}

  Type type() {
    bool readonly = accept("readonly ");
    bool unaligned = accept("unaligned ");
    if (accept("array(")) {
      Type element = element_type();
      expect(",");
      skip_spaces();
      int ndim = digit();
      expect_raw("d");
      expect(",");
      skip_spaces();
      Layout layout;
      if (accept("C"))
        layout = Layout::C;
      else if (accept("F"))
        layout = Layout::F;
      else if (accept("A"))
        layout = Layout::A;
      else
        fail("layout must be C, F or A");
      expect(")");
      Type array = element.is_record()
                       ? Type::record_array(element.record_layout(), ndim, layout, readonly)
                       : Type::array(element.scalar(), ndim, layout, readonly);
      return array.with_aligned(!unaligned);
    }
    if (peek("Record(")) {
      Type r = element_type();
      return readonly ? r.with_readonly(true) : r;
    }
    if (unaligned) fail("expected an array after 'unaligned'");
    if (readonly) fail("expected an array or a record after 'readonly'");
    if (accept("OptionalType(")) {  // OptionalType(int64)
      Type value = nested_type();
      if (!value.is_scalar()) fail("an OptionalType holds a number");
      expect(")");
      return Type::optional(value);
    }
    if (accept("CPointer(")) {  // CPointer(uint8)
      Type element = element_type();
      if (element.is_record()) fail("a CPointer points to numbers");
      expect(")");
      return Type::pointer(element.scalar());
    }
    if (accept("UniTuple(")) {  // UniTuple(int64 x 2)
      Type element = nested_type();
      expect("x");
      int64_t count = number();
      expect(")");
      if (count < 1 || count > kMaxTupleItems)
        fail("a UniTuple has 1 to " + std::to_string(kMaxTupleItems) + " items");
      return Type::tuple(std::vector<Type>(static_cast<size_t>(count), element));
    }
    std::string_view name = word();
    if (name == "none" || name == "void") return Type::none();
    if (accept("(")) return tuple_items(name);  // Tuple(int64, float64), Point(x=int64, ...)
    std::string with_unit = datetime_unit_suffix(name);
    if (!with_unit.empty()) name = with_unit;
    auto scalar = scalar_from_name(name);
    if (!scalar)
      fail("expected a scalar name, 'none', 'array(dtype, Nd, C|F|A)', 'Record(...)' or a tuple");
    return Type::scalar(*scalar);
  }

  void end() {
    skip_spaces();
    if (pos_ != text_.size()) fail("unexpected text after the type");
  }

 private:
  static constexpr int64_t kMaxTupleItems = 1024;
  static constexpr int kMaxDepth = 32;  // tuples in tuples: the reader recurses

  Type nested_type() {
    if (++depth_ > kMaxDepth) fail("tuples nested more than 32 deep");
    Type t = type();
    --depth_;
    return t;
  }

  // After "Name(": Tuple's items (Tuple() is empty), or a named tuple's fields, field=type.
  Type tuple_items(std::string_view name) {
    std::vector<Type> items;
    std::vector<std::string> fields;
    const bool named = name != "Tuple" || field_follows();
    if (!accept(")")) {
      do {
        if (named) {
          std::string_view field = word();
          if (field.empty()) fail("expected a field name of the named tuple");
          expect("=");
          fields.emplace_back(field);
        }
        items.push_back(nested_type());
        if (items.size() > kMaxTupleItems)
          fail("a tuple has at most " + std::to_string(kMaxTupleItems) + " items");
      } while (accept(","));
      expect(")");
    }
    if (!named) return Type::tuple(std::move(items));
    if (items.empty()) fail("a named tuple needs at least one field");
    return Type::named_tuple(std::string(name), std::move(items), std::move(fields));
  }

  // Whether a named tuple's "field=" comes next (read without moving on).
  bool field_follows() {
    size_t start = pos_;
    bool field = !word().empty() && peek("=");
    pos_ = start;
    return field;
  }

  // datetime64[D]: after the word `name`, the unit, part of the name ("" when there is none).
  std::string datetime_unit_suffix(std::string_view name) {
    if ((name != "datetime64" && name != "timedelta64") || pos_ >= text_.size() ||
        text_[pos_] != '[')
      return "";
    size_t close = text_.find(']', pos_);
    if (close == std::string_view::npos) fail("expected ']' after the unit");
    std::string spelled = std::string(name) + std::string(text_.substr(pos_, close + 1 - pos_));
    pos_ = close + 1;
    return spelled;
  }
  std::optional<Scalar> scalar_name_word() {
    std::string_view name = word();
    std::string with_unit = datetime_unit_suffix(name);
    return scalar_from_name(with_unit.empty() ? name : std::string_view(with_unit));
  }

  Type element_type() {
    if (peek("[")) {  // array([unichr x 12], 1d, C): NumPy 'U'/'S' elements, as Numba spells them
      auto layout = std::make_shared<RecordLayout>();
      RecordField f;
      f.opaque = opaque_field(f);
      if (f.opaque.starts_with("[bytes")) fail("expected [unichr x N] or [char x N]");
      layout->size = f.shape.at(0);
      layout->fields.push_back(std::move(f));
      return Type::record(std::move(layout));
    }
    if (!accept("Record(")) {
      auto scalar = scalar_name_word();
      if (!scalar) fail("unknown dtype");
      return Type::scalar(*scalar);
    }
    auto layout = std::make_shared<RecordLayout>();
    do {
      RecordField f;
      f.name = std::string(field_name());
      if (layout->find(f.name)) fail("field '" + f.name + "' appears twice");
      expect_raw("[type=");
      if (peek("Record(")) {  // a record inside the record
        if (++depth_ > kMaxDepth) fail("records nested more than 32 deep");
        f.record = element_type().record_layout();
        --depth_;
        f.dtype = Scalar::UInt8;
      } else if (peek("[")) {  // bytes kernels do not use: [unichr x 5], [char x 8], [bytes x 16]
        f.opaque = opaque_field(f);
      } else if (accept("nestedarray(")) {
        f.dtype = scalar_word();
        expect(",");
        expect("(");
        do {
          skip_spaces();
          if (peek(")")) break;
          f.shape.push_back(number());
        } while (accept(","));
        expect(")");
        expect(")");
        if (f.shape.empty()) fail("a nested array needs a shape");
      } else {
        f.dtype = scalar_word();
      }
      expect_raw(";offset=");
      f.offset = number();
      if (accept(";title=")) word();
      expect_raw("]");
      layout->fields.push_back(std::move(f));
    } while (accept(","));
    expect(";");
    layout->size = number();
    expect(";");
    std::string_view aligned = word();
    if (aligned != "True" && aligned != "False") fail("expected True or False for aligned");
    layout->aligned = aligned == "True";
    expect(")");
    for (const RecordField& f : layout->fields) {
      if (f.record)
        if (std::string problem = nested_record_problem(*layout, f); !problem.empty())
          fail("field '" + f.name + "': " + problem);
      int64_t bytes = f.record ? f.record->size : byte_size(f.dtype);
      bool fits = true;  // checked before each product, which could overflow
      if (std::find(f.shape.begin(), f.shape.end(), 0) != f.shape.end()) bytes = 0;
      for (int64_t d : f.shape) {
        fits = fits && !(d > 0 && bytes > layout->size / d);
        if (fits) bytes *= d;
      }
      if (!fits || bytes > layout->size || f.offset > layout->size - bytes)
        fail("field '" + f.name + "' lies outside the record's " + std::to_string(layout->size) +
             " bytes");
    }
    return Type::record(std::move(layout));
  }

  Scalar scalar_word() {
    auto scalar = scalar_name_word();
    if (!scalar || *scalar == Scalar::BFloat16) fail("unknown field dtype");
    return *scalar;
  }

  // "[unichr x N]", "[char x N]" or "[bytes x N]": N characters of 4 bytes, of 1, or N bytes;
  // sets the field's bytes (dtype uint8, shape {bytes}) and returns the spelling.
  std::string opaque_field(RecordField& f) {
    expect("[");
    std::string_view kind = word();
    int64_t unit = kind == "unichr" ? 4 : kind == "char" || kind == "bytes" ? 1 : 0;
    if (unit == 0) fail("expected [unichr x N], [char x N] or [bytes x N]");
    expect("x");
    int64_t count = number();
    expect("]");
    if (count == 0 || count > (int64_t{1} << 40)) fail("a field of 1 to 2**40 characters");
    f.dtype = Scalar::UInt8;
    f.shape = {count * unit};
    return "[" + std::string(kind) + " x " + std::to_string(count) + "]";
  }
  void skip_spaces() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  bool peek(std::string_view s) {
    skip_spaces();
    return text_.substr(pos_).starts_with(s);
  }
  bool accept(std::string_view s) {
    if (!peek(s)) return false;
    pos_ += s.size();
    return true;
  }
  void expect(std::string_view s) {
    if (!accept(s)) fail("expected '" + std::string(s) + "'");
  }
  void expect_raw(std::string_view s) {
    if (!text_.substr(pos_).starts_with(s)) fail("expected '" + std::string(s) + "'");
    pos_ += s.size();
  }
  std::string_view word() {
    skip_spaces();
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    return text_.substr(start, pos_ - start);
  }
  std::string_view field_name() {
    skip_spaces();
    size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != '[' && text_[pos_] != ',' && text_[pos_] != ';')
      ++pos_;
    if (pos_ == start) fail("expected a field name");
    return text_.substr(start, pos_ - start);
  }
  int64_t number() {
    std::string_view digits = word();
    int64_t value = 0;
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || error != std::errc() || end != digits.data() + digits.size() || value < 0)
      fail("expected a number (0 to 2**63 - 1)");
    return value;
  }
  int digit() {
    if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '0' + kMaxArrayDims)
      fail("ndim must be 0d to " + std::to_string(kMaxArrayDims) + "d");
    return text_[pos_++] - '0';
  }
  [[noreturn]] void fail(const std::string& why) {
    throw std::invalid_argument("cannot parse type '" + std::string(text_) + "' at offset " +
                                std::to_string(pos_) + ": " + why);
  }

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

Type parse_type(std::string_view text) {
  TypeReader reader(text);
  Type t = reader.type();
  reader.end();
  return t;
}

}  // namespace cudajit
