#include "arguments.hpp"

#include <pybind11/numpy.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "cudajit/compiler/float16.hpp"
#include "device_array.hpp"
#include "foreign_arrays.hpp"
#include "python_lookups.hpp"

namespace cudajit::python {

namespace {

std::string type_name(py::handle obj) { return py::str(py::type::handle_of(obj).attr("__name__")); }

Scalar dtype_scalar(const py::dtype& dtype, size_t position) {
  char kind = dtype.kind();
  auto size = static_cast<int>(dtype.itemsize());
  auto fail = [&]() -> Scalar {
    throw py::type_error("argument " + std::to_string(position) +
                         ": expected an array of bool, int8..int64, uint8..uint64, float16, "
                         "float32, float64, complex64, complex128, bfloat16, datetime64 or "
                         "timedelta64, got dtype " +
                         std::string(py::str(py::handle(dtype))));
  };
  if (dtype.attr("byteorder").cast<std::string>() == ">")
    throw py::type_error("argument " + std::to_string(position) +
                         ": expected native (little-endian) byte order, got dtype " +
                         std::string(py::str(py::handle(dtype))) +
                         "; use arr.astype(arr.dtype.newbyteorder('='))");
  switch (kind) {
    case 'b':
      return Scalar::Bool;
    case 'i':
    case 'u':
      if (size != 1 && size != 2 && size != 4 && size != 8) return fail();
      return make_int(size * 8, kind == 'i');
    case 'f':
      if (size == 2) return Scalar::Float16;
      if (size == 4) return Scalar::Float32;
      if (size == 8) return Scalar::Float64;
      return fail();
    case 'V':  // ml_dtypes' bfloat16 (JAX's host arrays)
      if (size == 2 && dtype.attr("name").cast<std::string>() == "bfloat16")
        return Scalar::BFloat16;
      return fail();
    case 'M':  // datetime64[unit], timedelta64[unit]: int64 counts of the unit
    case 'm': {
      auto scalar = scalar_from_name(dtype.attr("name").cast<std::string>());
      if (!scalar) return fail();
      return *scalar;
    }
    case 'c':
      if (size == 8) return Scalar::Complex64;
      if (size == 16) return Scalar::Complex128;
      return fail();
    default:
      return fail();
  }
}

// The elements of a NumPy 'U' or 'S' array: one nameless field of their characters, spelled
// as Numba spells them ([unichr x 12], [char x 8]).
std::shared_ptr<const RecordLayout> character_layout(const py::dtype& dtype) {
  auto layout = std::make_shared<RecordLayout>();
  RecordField f;
  const int64_t bytes = static_cast<int64_t>(dtype.itemsize());
  f.opaque = std::string(dtype.kind() == 'U' ? "[unichr x " : "[char x ") +
             std::to_string(dtype.kind() == 'U' ? bytes / 4 : bytes) + "]";
  f.dtype = Scalar::UInt8;
  f.shape = {bytes};
  layout->size = bytes;
  layout->fields.push_back(std::move(f));
  return layout;
}

bool is_character_dtype(const py::dtype& dtype) {
  return (dtype.kind() == 'U' || dtype.kind() == 'S') && dtype.itemsize() > 0;
}

bool is_structured(const py::dtype& dtype) {
  return dtype.kind() == 'V' && !dtype.attr("names").is_none();
}

// The record layout of a NumPy structured dtype: its fields (scalars or nested arrays of
// them) at their offsets. Built once per dtype object: arrays of one dtype share it.
std::shared_ptr<const RecordLayout> record_layout(const py::dtype& dtype, size_t position) {
  struct Cached {
    PyObject* dtype;  // a strong reference, never released (at most kCached of them)
    std::shared_ptr<const RecordLayout> layout;
  };
  static constexpr size_t kCached = 64;
  static std::vector<Cached> cache;
  for (const Cached& c : cache)
    if (c.dtype == dtype.ptr()) return c.layout;
  auto bad = [&](const std::string& why) {
    std::string where = position > 0 ? "argument " + std::to_string(position) + ": " : "";
    return py::type_error(where + "record dtype " + std::string(py::str(py::handle(dtype))) +
                          " cannot be used in kernels: " + why);
  };
  auto layout = std::make_shared<RecordLayout>();
  layout->size = static_cast<int64_t>(dtype.itemsize());
  layout->aligned = dtype.attr("isalignedstruct").cast<bool>();
  py::dict fields = dtype.attr("fields");
  for (py::handle name_obj : py::tuple(dtype.attr("names"))) {
    auto name = name_obj.cast<std::string>();
    if (!py::str(name_obj).attr("isidentifier")().cast<bool>())
      throw bad("field name '" + name + "' is not a Python identifier");
    py::tuple field = fields[name_obj];
    py::dtype field_dtype = field[0];
    RecordField f;
    f.name = name;
    f.offset = field[1].cast<int64_t>();
    py::object sub = field_dtype.attr("subdtype");
    if (!sub.is_none()) {
      field_dtype = py::tuple(sub)[0];
      for (py::handle extent : py::tuple(py::tuple(sub)[1]))
        f.shape.push_back(extent.cast<int64_t>());
    }
    if (is_structured(field_dtype)) {  // a record inside the record
      std::shared_ptr<const RecordLayout> inner;
      try {
        inner = record_layout(field_dtype, 0);
      } catch (py::type_error& e) {
        throw bad("field '" + name + "': " + e.what());
      }
      f.record = std::move(inner);
      f.dtype = Scalar::UInt8;
      if (std::string problem = nested_record_problem(*layout, f); !problem.empty())
        throw bad("field '" + name + "': " + problem);
      layout->fields.push_back(std::move(f));
      continue;
    }
    if (const char kind = field_dtype.kind(); kind == 'U' || kind == 'S' || kind == 'V') {
      // Characters or raw bytes: carried with the record, not usable in kernels (typing
      // says so at a use), spelled as Numba spells them.
      const int64_t bytes = static_cast<int64_t>(field_dtype.itemsize());
      const int64_t count = kind == 'U' ? bytes / 4 : bytes;
      f.opaque = std::string("[") + (kind == 'U' ? "unichr" : kind == 'S' ? "char" : "bytes") +
                 " x " + std::to_string(count) + "]";
      f.dtype = Scalar::UInt8;
      f.shape.insert(f.shape.begin(), bytes);
      if (f.shape.size() > 1)
        throw bad("field '" + name + "' is an array of " + std::string(py::str(field_dtype)) +
                  "; character and byte fields must be single values");
      layout->fields.push_back(std::move(f));
      continue;
    }
    try {
      f.dtype = dtype_scalar(field_dtype, position);
    } catch (py::type_error&) {
      throw bad("field '" + name + "' has dtype " + std::string(py::str(field_dtype)) +
                "; fields must be bool, int8..int64, uint8..uint64, float16, float32, float64, "
                "complex64 or complex128, or arrays of them");
    }
    if (f.dtype == Scalar::BFloat16) throw bad("field '" + name + "' is bfloat16");
    layout->fields.push_back(std::move(f));
  }
  if (layout->fields.empty()) throw bad("it has no fields");
  if (cache.size() < kCached) {
    Py_INCREF(dtype.ptr());
    cache.push_back({dtype.ptr(), layout});
  }
  return layout;
}

}  // namespace

std::shared_ptr<const RecordLayout> record_layout_of(const py::dtype& dtype) {
  if (!is_structured(dtype))
    throw py::type_error("expected a structured dtype (with fields), got " +
                         std::string(py::str(py::handle(dtype))));
  return record_layout(dtype, 0);
}

std::string record_type_name(const py::dtype& dtype) {
  return Type::record(record_layout_of(dtype)).str();
}

namespace {

void read_scalar(ArgValue& v, const void* p) {
  if (is_npdatetime(v.type.scalar())) {  // np.datetime64 / np.timedelta64: the count
    int64_t x;
    std::memcpy(&x, p, sizeof x);
    v.i = x;
    return;
  }
  switch (v.type.scalar()) {
#define CUDAJIT_READ(S, T, FIELD) \
  case Scalar::S: {               \
    T x;                          \
    std::memcpy(&x, p, sizeof x); \
    v.FIELD = x;                  \
    break;                        \
  }
    CUDAJIT_READ(Bool, bool, i)
    CUDAJIT_READ(Int8, int8_t, i)
    CUDAJIT_READ(Int16, int16_t, i)
    CUDAJIT_READ(Int32, int32_t, i)
    CUDAJIT_READ(Int64, int64_t, i)
    CUDAJIT_READ(UInt8, uint8_t, u)
    CUDAJIT_READ(UInt16, uint16_t, u)
    CUDAJIT_READ(UInt32, uint32_t, u)
    CUDAJIT_READ(UInt64, uint64_t, u)
    CUDAJIT_READ(Float32, float, f)
    CUDAJIT_READ(Float64, double, f)
    CUDAJIT_READ(Complex64, std::complex<float>, c)
    CUDAJIT_READ(Complex128, std::complex<double>, c)
#undef CUDAJIT_READ
    case Scalar::Float16: {
      uint16_t bits;
      std::memcpy(&bits, p, sizeof bits);
      v.f = target::half_bits_to_float(bits);
      break;
    }
    case Scalar::BFloat16: {
      uint16_t bits;
      std::memcpy(&bits, p, sizeof bits);
      v.f = target::bfloat16_bits_to_float(bits);
      break;
    }
    case Scalar::Fp8E4M3:  // never a Python value's type
    case Scalar::Fp8E5M2:
    case Scalar::Fp8E8M0:
    case Scalar::DatetimeFirst:  // datetimes and timedeltas: read above
    case Scalar::TimedeltaFirst:
      break;
  }
}

}  // namespace

namespace {

void set_array_dims(ArgValue& v, const int64_t* shape, const int64_t* strides, int ndim,
                    size_t position, const char* what) {
  if (ndim < 0 || ndim > kMaxArrayDims)
    throw py::type_error("argument " + std::to_string(position) + ": kernels take arrays of 0 to " +
                         std::to_string(kMaxArrayDims) + " dimensions, got " + what + " of " +
                         std::to_string(ndim));
  std::copy_n(shape, ndim, v.shape.begin());
  std::copy_n(strides, ndim, v.strides.begin());
}

// An array exporting CAI or DLPack, imported into v; false if obj exports neither.
bool foreign_argument(ArgValue& v, py::handle obj, size_t position, runtime::Device& device,
                      const runtime::Stream& stream) {
  ForeignArray f;
  if (!import_foreign(obj, device, stream, f)) return false;
  const runtime::ArrayImport& a = f.array;
  set_array_dims(v, a.shape.data(), a.strides.data(), a.ndim(), position, "a foreign array");
  v.kind = ArgValue::Kind::ForeignArray;
  v.type = Type::array(a.dtype, a.ndim(), a.layout, a.readonly);
  v.data = reinterpret_cast<void*>(a.data);
  v.device = &device;
  v.memory = std::move(f.owner);
  v.hold_object = f.owner_is_object;
  v.producer_stream = a.stream;
  v.object = obj;
  return true;
}

// The types whose objects were foreign arrays lately. Every other kind of argument is
// decided by the type alone (five subtype checks that walk the MRO), so their objects go
// to the import first. The types are held: a new type at a freed one's address must not
// be taken for it. Touched under the GIL; never released at exit.
class ForeignTypes {
 public:
  bool contains(PyTypeObject* type) const {
    return std::find(types_.begin(), types_.end(), type) != types_.end();
  }
  void add(PyTypeObject* type) {
    if (contains(type)) return;
    Py_INCREF(type);
    Py_XDECREF(types_[next_]);
    types_[next_] = type;
    next_ = (next_ + 1) % types_.size();
  }

 private:
  std::array<PyTypeObject*, 4> types_{};
  size_t next_ = 0;
};

}  // namespace

void classify_argument(py::handle obj, size_t position, runtime::Device& device,
                       const runtime::Stream& stream, ArgValue& v) {
  PyObject* o = obj.ptr();
  static ForeignTypes foreign_types;
  // (An object of such a type that exports nothing after all goes the whole way below.)
  if (foreign_types.contains(Py_TYPE(o)) && foreign_argument(v, obj, position, device, stream))
    return;
  // bool before int: bool is a subclass of int.
  if (PyBool_Check(o)) {
    v.type = Type::scalar(Scalar::Bool);
    v.i = o == Py_True;
    return;
  }
  if (PyLong_Check(o)) {
    int overflow = 0;
    v.i = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow)
      throw py::type_error("argument " + std::to_string(position) + ": the int " +
                           std::string(py::str(obj)) + " does not fit in int64");
    v.type = Type::scalar(Scalar::Int64);
    return;
  }
  if (PyFloat_Check(o)) {
    v.type = Type::scalar(Scalar::Float64);
    v.f = PyFloat_AS_DOUBLE(o);
    return;
  }
  if (PyComplex_Check(o)) {
    v.type = Type::scalar(Scalar::Complex128);
    v.c = {PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o)};
    return;
  }
  if (const DeviceArray* array = as_device_array(obj)) {
    const DeviceArray& a = *array;
    set_array_dims(v, a.shape.data(), a.strides.data(), a.ndim, position, "a device array");
    v.kind = ArgValue::Kind::DeviceArray;
    v.type = a.type();
    v.data = a.data;
    v.device = a.device;
    v.memory = a.memory;
    v.object = obj;
    if (a.producer_stream) v.producer_stream = runtime::cai_stream_value(a.stream->handle());
    return;
  }
  if (py::isinstance<py::array>(obj)) {
    auto array = py::reinterpret_borrow<py::array>(obj);
    v.kind = ArgValue::Kind::HostArray;
    v.object = obj;
    auto ndim = static_cast<int>(array.ndim());
    if (ndim > kMaxArrayDims)
      throw py::type_error("argument " + std::to_string(position) + ": expected an array of 0 to " +
                           std::to_string(kMaxArrayDims) + " dimensions, got " +
                           std::to_string(ndim) + " dimensions");
    int flags = array.flags();
    Layout layout = (flags & py::array::c_style)   ? Layout::C
                    : (flags & py::array::f_style) ? Layout::F
                                                   : Layout::A;
    if (is_structured(array.dtype()))
      v.type = Type::record_array(record_layout(array.dtype(), position), ndim, layout,
                                  !array.writeable());
    else if (is_character_dtype(array.dtype()))
      v.type =
          Type::record_array(character_layout(array.dtype()), ndim, layout, !array.writeable());
    else
      v.type = Type::array(dtype_scalar(array.dtype(), position), ndim, layout, !array.writeable());
    v.data = const_cast<void*>(array.data());
    v.host_base = array.base();
    for (int d = 0; d < ndim; ++d) {
      v.shape[d] = array.shape(d);
      v.strides[d] = array.strides(d);
    }
    return;
  }
  static LazyAttribute numpy_generic_type("numpy", "generic"), numpy_void_type("numpy", "void");
  auto* const numpy_generic = reinterpret_cast<PyTypeObject*>(numpy_generic_type.get());
  auto* const numpy_void = reinterpret_cast<PyTypeObject*>(numpy_void_type.get());
  // NumPy scalars (np.void is one of them: tested inside, the type checks walk the MRO).
  if (PyObject_TypeCheck(obj.ptr(), numpy_generic)) {
    // A record (np.void, np.record: only these NumPy scalars can be one): passed by
    // reference to its bytes, which are those of the array it was taken from; staged like
    // a host array (copied back after the launch), as Numba does.
    if (PyObject_TypeCheck(obj.ptr(), numpy_void)) {
      auto record = obj.attr("dtype").cast<py::dtype>();
      if (is_structured(record)) {
        Py_buffer view;
        if (PyObject_GetBuffer(obj.ptr(), &view, PyBUF_SIMPLE) != 0) throw py::error_already_set();
        v.data = view.buf;
        PyBuffer_Release(&view);
        v.kind = ArgValue::Kind::HostArray;
        v.type = Type::record(record_layout(record, position));
        v.object = obj;
        return;
      }
    }
    // np.float32(1) ...: keeps its dtype
    auto array = py::array::ensure(obj);
    v.type = Type::scalar(dtype_scalar(array.dtype(), position));
    read_scalar(v, array.data());
    return;
  }
  if (foreign_argument(v, obj, position, device, stream)) {
    foreign_types.add(Py_TYPE(o));
    return;
  }
  // A type (np.float32, cudajit.int32, numba.int32) given to a kernel that never uses that
  // parameter as a type: type_arguments.py makes the kernels that do.
  static LazyAttribute type_argument("cudajit.types", "type_argument");
  if (!py::handle(type_argument.get())(obj).is_none())
    throw py::type_error("argument " + std::to_string(position) + ": got the type " +
                         std::string(py::str(obj)) +
                         "; a kernel takes a type as an argument only where its body uses that "
                         "parameter as a type (cuda.local.array(n, dty), "
                         "cuda.shared.array(n, dty), dty(x), or passed on to a device function "
                         "that does)");
  throw py::type_error("argument " + std::to_string(position) +
                       ": expected a device array, an array exporting __cuda_array_interface__ "
                       "or DLPack, a NumPy array, or a bool, int, float or complex scalar; got " +
                       type_name(obj));
}

std::pair<int64_t, int64_t> array_extent(const ArgValue& v) {
  int64_t lo = 0, hi = 0;
  for (int d = 0; d < v.type.ndim(); ++d) {
    if (v.shape[d] == 0) return {0, 0};
    int64_t span = (v.shape[d] - 1) * v.strides[d];
    (span < 0 ? lo : hi) += span;
  }
  return {lo, hi + v.type.itemsize()};
}

void append_type_key(const Type& t, std::string& key) {
  if (t.is_array()) {
    const char entry[] = {static_cast<char>(t.kind()), static_cast<char>(t.scalar()),
                          static_cast<char>(t.ndim()), static_cast<char>(t.layout()),
                          static_cast<char>(t.readonly())};
    key.append(entry, sizeof entry);
  } else {
    const char entry[] = {static_cast<char>(t.kind()), static_cast<char>(t.scalar())};
    key.append(entry, sizeof entry);
  }
  if (t.record_layout()) key += "{" + t.str() + "}";  // a record's fields, all of them
  if (t.is_tuple()) {  // the items, bracketed: (int64, f8[:]) is not (float64, f8[:])
    key += static_cast<char>(t.elements().size());
    for (const Type& item : t.elements()) append_type_key(item, key);
    key += ')';
  }
}

Conversion conversion_kind(const Type& given, const Type& wanted) {
  if (!argument_matches(given, wanted)) return Conversion::None;
  if (wanted.is_pointer()) return Conversion::Exact;  // an integer taken as the address
  if (given.is_scalar()) return conversion(given.scalar(), wanted.scalar());
  if (given.is_tuple()) {  // as its worst item
    Conversion worst = Conversion::Exact;
    for (size_t i = 0; i < given.elements().size(); ++i)
      worst = std::max(worst, conversion_kind(given.elements()[i], wanted.elements()[i]));
    return worst;
  }
  return given == wanted ? Conversion::Exact : Conversion::Promote;  // C/F -> A
}

bool argument_matches(const Type& given, const Type& wanted) {
  // A CPointer parameter takes an address: a Python integer (Numba's CPointer arguments).
  if (wanted.is_pointer()) return given.is_scalar() && is_integer(given.scalar());
  if (given.is_scalar() && wanted.is_scalar()) {
    // No silent loss: complex stays complex, floats do not become integers.
    Scalar g = given.scalar(), w = wanted.scalar();
    if (is_complex(g)) return is_complex(w);
    if (is_float(g)) return is_float(w) || is_complex(w);
    return true;
  }
  if (given.is_tuple() || wanted.is_tuple()) {  // item by item; a named tuple's class too
    if (!given.is_tuple() || !wanted.is_tuple() ||
        given.elements().size() != wanted.elements().size() || given.fields() != wanted.fields() ||
        given.tuple_name() != wanted.tuple_name())
      return false;
    for (size_t i = 0; i < given.elements().size(); ++i)
      if (!argument_matches(given.elements()[i], wanted.elements()[i])) return false;
    return true;
  }
  if (given.is_record() && wanted.is_record())
    return given.with_readonly(false) == wanted.with_readonly(false) &&
           (!given.readonly() || wanted.readonly());
  if (!given.is_array() || !wanted.is_array()) return false;
  if (given.dtype() != wanted.dtype() || given.ndim() != wanted.ndim()) return false;
  if (given.with_dims(1, Layout::A).with_readonly(false) !=
      wanted.with_dims(1, Layout::A).with_readonly(false))
    return false;  // records of other fields
  if (given.readonly() && !wanted.readonly()) return false;
  return wanted.layout() == Layout::A || given.layout() == wanted.layout();
}

runtime::KernelParams pack_params(const std::vector<ArgValue>& args,
                                  const std::vector<ParamLayout>& layout) {
  size_t count = layout.empty() ? 0 : layout.back().first_param + layout.back().param_count;
  runtime::KernelParams params(count);
  for (size_t a = 0; a < args.size(); ++a) {
    const ArgValue& v = args[a];
    const ParamLayout& p = layout[a];
    size_t at = p.first_param;
    auto put = [&](size_t i, auto value) { params.set(i, value); };
    if (p.type.is_record()) {  // its address
      put(at, v.data);
      continue;
    }
    if (p.type.is_pointer()) {  // the integer given, as an address
      if (is_signed(v.type.scalar()) && v.i < 0)
        throw py::value_error("argument " + std::to_string(a + 1) + ": a " + p.type.str() +
                              " parameter takes an address, a non-negative integer; got " +
                              std::to_string(v.i));
      put(at, is_signed(v.type.scalar()) ? static_cast<uint64_t>(v.i) : v.u);
      continue;
    }
    if (p.type.is_array()) {
      put(at, v.data);
      auto [lo, hi] = array_extent(v);
      params.note_array(at, uint64_t(hi - lo));
      for (int d = 0; d < p.type.ndim(); ++d) {
        put(at + 1 + d, v.shape[d]);
        put(at + 1 + p.type.ndim() + d, v.strides[d]);
      }
      continue;
    }
    // Convert the scalar from its own kind to the parameter's type.
    Scalar from = v.type.scalar();
    if (is_npdatetime(p.type.scalar())) {  // from a datetime or timedelta of a coarser unit
      int64_t count = v.i;
      auto factor = datetime_unit_factor(datetime_unit(from), datetime_unit(p.type.scalar()));
      if (count != INT64_MIN && factor) count *= *factor;
      put(at, count);
      continue;
    }
    std::complex<double> c = is_complex(from) ? v.c
                             : is_float(from) ? std::complex<double>(v.f)
                             : is_signed(from) || from == Scalar::Bool
                                 ? std::complex<double>(static_cast<double>(v.i))
                                 : std::complex<double>(static_cast<double>(v.u));
    int64_t as_int = is_float(from) || is_complex(from)          ? static_cast<int64_t>(c.real())
                     : (is_signed(from) || from == Scalar::Bool) ? v.i
                                                                 : static_cast<int64_t>(v.u);
    switch (p.type.scalar()) {
      case Scalar::Bool:
        put(at, static_cast<uint8_t>(is_float(from) || is_complex(from) ? c != 0.0 : as_int != 0));
        break;
      case Scalar::Int8:
        put(at, static_cast<int8_t>(as_int));
        break;
      case Scalar::Int16:
        put(at, static_cast<int16_t>(as_int));
        break;
      case Scalar::Int32:
        put(at, static_cast<int32_t>(as_int));
        break;
      case Scalar::Int64:
        put(at, as_int);
        break;
      case Scalar::UInt8:
        put(at, static_cast<uint8_t>(as_int));
        break;
      case Scalar::UInt16:
        put(at, static_cast<uint16_t>(as_int));
        break;
      case Scalar::UInt32:
        put(at, static_cast<uint32_t>(as_int));
        break;
      case Scalar::UInt64:
        put(at, from == Scalar::UInt64 ? v.u : static_cast<uint64_t>(as_int));
        break;
      case Scalar::Float16:
        put(at, target::double_to_half_bits(c.real()));
        break;
      case Scalar::BFloat16:
        put(at, target::double_to_bfloat16_bits(c.real()));
        break;
      case Scalar::Float32:
        put(at, static_cast<float>(c.real()));
        break;
      case Scalar::Float64:
        put(at, c.real());
        break;
      case Scalar::Complex64:
        put(at, std::complex<float>(c));
        break;
      case Scalar::Complex128:
        put(at, c);
        break;
      case Scalar::Fp8E4M3:
      case Scalar::Fp8E5M2:
      case Scalar::Fp8E8M0:
        throw py::type_error("argument " + std::to_string(a + 1) + ": a kernel parameter of " +
                             p.type.str() + " is not supported; pass the number (or its uint8 "
                             "byte) and convert in the kernel, e.g. fp8_e4m3(x)");
      case Scalar::DatetimeFirst:  // datetimes and timedeltas: put above
      case Scalar::TimedeltaFirst:
        break;
    }
  }
  return params;
}

}  // namespace cudajit::python
