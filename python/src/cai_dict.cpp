// Reading __cuda_array_interface__ dicts at the binding layer (the Python types of their
// entries; the rules about their values are runtime::validate_cai's), and the imports of
// the last few producers, so that an equal dict exported again is not read twice.
#include "cai_dict.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace cudajit::python {

using runtime::CaiDescription;
using runtime::throw_cai_bad_entry;

std::string repr_text(py::handle h) { return py::repr(h); }

namespace {

constexpr std::string_view kCaiSource = "__cuda_array_interface__";

// An int of the dict as int64: a ValueError naming the entry (`where()`, such as
// "['shape'][0]", made only for the message) when it does not fit.
template <typename Where>
int64_t int64_entry(py::handle value, Where where) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  if (overflow != 0)
    throw py::value_error("__cuda_array_interface__" + std::string(where()) + " = " +
                          repr_text(value) + " does not fit in 64 bits");
  return v;
}

runtime::Dims int_tuple(py::handle value, const char* key) {
  PyObject* t = value.ptr();
  if (!PyTuple_Check(t)) throw_cai_bad_entry(key, "a tuple of ints", repr_text(value));
  auto n = static_cast<size_t>(PyTuple_GET_SIZE(t));
  if (n > runtime::Dims::kCapacity) runtime::detail::throw_too_many_dims(n, kCaiSource);
  runtime::Dims out;
  for (size_t i = 0; i < n; ++i) {
    py::handle item = PyTuple_GET_ITEM(t, static_cast<Py_ssize_t>(i));
    if (!PyLong_Check(item.ptr())) throw_cai_bad_entry(key, "a tuple of ints", repr_text(value));
    out.push_back(int64_entry(
        item, [&] { return "['" + std::string(key) + "'][" + std::to_string(i) + "]"; }));
  }
  return out;
}

// The dict's entries, found in one pass over it (this runs at every launch): the keys
// producers write are interned strs (identifier literals), matched by identity; any
// other str key is compared by value. Borrowed from the dict.
struct CaiEntries {
  PyObject *version = nullptr, *shape = nullptr, *typestr = nullptr, *data = nullptr,
           *strides = nullptr, *descr = nullptr, *mask = nullptr, *stream = nullptr;
};

struct CaiKey {
  const char* name;
  PyObject* str;  // interned, kept for the process
  PyObject* CaiEntries::*entry;
};

// The spec's key `key` is (interned strs matched by identity, other strs by value), or null.
const CaiKey* spec_key(PyObject* key) {
  static const std::array<CaiKey, 8> keys = [] {
    std::array<CaiKey, 8> k = {{{"version", nullptr, &CaiEntries::version},
                                {"shape", nullptr, &CaiEntries::shape},
                                {"typestr", nullptr, &CaiEntries::typestr},
                                {"data", nullptr, &CaiEntries::data},
                                {"strides", nullptr, &CaiEntries::strides},
                                {"descr", nullptr, &CaiEntries::descr},
                                {"mask", nullptr, &CaiEntries::mask},
                                {"stream", nullptr, &CaiEntries::stream}}};
    for (CaiKey& key : k) key.str = PyUnicode_InternFromString(key.name);
    return k;
  }();
  auto match =
      std::find_if(keys.begin(), keys.end(), [&](const CaiKey& k) { return key == k.str; });
  if (match == keys.end() && PyUnicode_Check(key))
    match = std::find_if(keys.begin(), keys.end(),
                         [&](const CaiKey& k) { return PyUnicode_Compare(key, k.str) == 0; });
  return match != keys.end() ? &*match : nullptr;
}

CaiEntries cai_entries(PyObject* dict) {
  CaiEntries e;
  Py_ssize_t pos = 0;
  PyObject *key, *value;
  while (PyDict_Next(dict, &pos, &key, &value))
    if (const CaiKey* k = spec_key(key)) e.*(k->entry) = value;
  return e;
}

py::handle required(PyObject* value, const char* key) {
  if (!value) runtime::throw_cai_missing_key(key);
  return value;
}

// Absent and None are alike.
py::handle optional_entry(PyObject* value) { return value && value != Py_None ? value : nullptr; }

// [('', typestr)] with the dict's own typestr: what every plain array exports,
// recognised without building the description (this runs at every launch).
bool is_plain_descr(py::handle descr, py::handle typestr) {
  if (!PyList_CheckExact(descr.ptr()) || PyList_GET_SIZE(descr.ptr()) != 1) return false;
  PyObject* field = PyList_GET_ITEM(descr.ptr(), 0);
  if (!PyTuple_CheckExact(field) || PyTuple_GET_SIZE(field) != 2) return false;
  PyObject* name = PyTuple_GET_ITEM(field, 0);
  PyObject* type = PyTuple_GET_ITEM(field, 1);
  return PyUnicode_Check(name) && PyUnicode_GET_LENGTH(name) == 0 && PyUnicode_Check(type) &&
         PyUnicode_Compare(type, typestr.ptr()) == 0;
}

}  // namespace

CaiDescription read_cai(py::handle dict) {
  if (!PyDict_Check(dict.ptr()))
    throw py::type_error("__cuda_array_interface__ must be a dict, got " + repr_text(dict));
  const CaiEntries e = cai_entries(dict.ptr());
  CaiDescription c;
  py::handle version = required(e.version, "version");
  if (!PyLong_Check(version.ptr())) throw_cai_bad_entry("version", "an int", repr_text(version));
  c.version = int64_entry(version, [] { return "['version']"; });
  c.shape = int_tuple(required(e.shape, "shape"), "shape");
  py::handle typestr = required(e.typestr, "typestr");
  if (!PyUnicode_Check(typestr.ptr())) throw_cai_bad_entry("typestr", "a str", repr_text(typestr));
  Py_ssize_t typestr_size = 0;
  const char* typestr_text = PyUnicode_AsUTF8AndSize(typestr.ptr(), &typestr_size);
  if (!typestr_text) throw py::error_already_set();
  c.typestr.assign(typestr_text, static_cast<size_t>(typestr_size));
  if (c.typestr.find('\0') != std::string::npos)  // it would cut every message short
    throw_cai_bad_entry("typestr", "a type string such as '<f8'", repr_text(typestr));
  py::handle data = required(e.data, "data");
  PyObject* pair = data.ptr();
  if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2 ||
      !PyLong_Check(PyTuple_GET_ITEM(pair, 0)))
    throw_cai_bad_entry("data", "a 2-tuple (int, bool)", repr_text(data));
  PyObject* address_int = PyTuple_GET_ITEM(pair, 0);
  PyObject* readonly = PyTuple_GET_ITEM(pair, 1);
  unsigned long long address = PyLong_AsUnsignedLongLong(address_int);
  if (address == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    throw py::value_error("__cuda_array_interface__['data'][0] = " + repr_text(address_int) +
                          " is not an address (0 to 2**64 - 1)");
  }
  c.data = static_cast<uintptr_t>(address);
  // The spec's type is bool: a string such as "False" is true to Python, a trap.
  if (!PyBool_Check(readonly))
    throw_cai_bad_entry("data", "a 2-tuple (int, bool) whose read-only flag is a bool",
                        repr_text(data));
  c.readonly = readonly == Py_True;
  if (py::handle strides = optional_entry(e.strides)) c.strides = int_tuple(strides, "strides");
  py::handle descr = optional_entry(e.descr);
  if (descr && is_plain_descr(descr, typestr)) descr = py::handle();  // nothing more to check
  if (descr) {
    if (!py::isinstance<py::list>(descr))
      throw_cai_bad_entry("descr", "a list of tuples", repr_text(descr));
    std::vector<runtime::CaiDescrField> fields;
    for (py::handle entry : descr) {
      if (!py::isinstance<py::tuple>(entry) || py::len(entry) < 2)
        throw_cai_bad_entry("descr", "a list of (name, typestr) tuples", repr_text(descr));
      auto t = py::reinterpret_borrow<py::tuple>(entry);
      runtime::CaiDescrField f;
      f.name = py::str(t[0]);
      if (PyUnicode_Check(t[1].ptr())) f.typestr = t[1].cast<std::string>();
      f.has_shape = t.size() > 2;
      fields.push_back(std::move(f));
    }
    c.descr = std::move(fields);
  }
  c.mask_present = static_cast<bool>(optional_entry(e.mask));
  if (py::handle stream = optional_entry(e.stream)) {
    if (!PyLong_Check(stream.ptr()))
      throw_cai_bad_entry("stream", "an int or None", repr_text(stream));
    c.stream = int64_entry(stream, [] { return "['stream']"; });
  }
  return c;
}

namespace {

// None, a bool, an int, a str, or a tuple of these: exact types (a subclass may compare
// equal to what it is not), nested no deeper than a CAI dict's values need.
bool immutable_value(PyObject* v, int depth = 0) {
  if (v == Py_None || PyBool_Check(v) || PyLong_CheckExact(v) || PyUnicode_CheckExact(v))
    return true;
  if (!PyTuple_CheckExact(v) || depth > 3) return false;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(v); ++i)
    if (!immutable_value(PyTuple_GET_ITEM(v, i), depth + 1)) return false;
  return true;
}

// A new reference to a value the producer cannot change afterwards: an immutable value
// itself, or a copy of a list (descr) of immutable values; null for anything else.
PyObject* snapshot_of(PyObject* v) {
  if (PyList_CheckExact(v)) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(v); ++i)
      if (!immutable_value(PyList_GET_ITEM(v, i))) return nullptr;
    PyObject* copy = PyList_GetSlice(v, 0, PyList_GET_SIZE(v));
    if (!copy) PyErr_Clear();
    return copy;
  }
  if (!immutable_value(v)) return nullptr;
  Py_INCREF(v);
  return v;
}

// `value` equals `snapshot`, with its exact type, item by item.
bool same_value(PyObject* snapshot, PyObject* value) {
  if (snapshot == value) return true;  // immutable (a list snapshot is a copy of our own)
  if (Py_TYPE(snapshot) != Py_TYPE(value)) return false;
  if (PyLong_CheckExact(snapshot) || PyUnicode_CheckExact(snapshot))
    return PyObject_RichCompareBool(snapshot, value, Py_EQ) == 1;  // cannot fail or run code
  if (PyTuple_CheckExact(snapshot) || PyList_CheckExact(snapshot)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(snapshot);
    if (PySequence_Fast_GET_SIZE(value) != n) return false;
    PyObject** a = PySequence_Fast_ITEMS(snapshot);
    PyObject** b = PySequence_Fast_ITEMS(value);
    for (Py_ssize_t i = 0; i < n; ++i)
      if (!same_value(a[i], b[i])) return false;
    return true;
  }
  return false;  // None and the bools are singletons: another object is another value
}

}  // namespace

bool RecentCaiImports::Entry::alive() const {
#if PY_VERSION_HEX >= 0x030D0000
  PyObject* target = nullptr;
  if (PyWeakref_GetRef(weakref, &target) <= 0) return false;
  Py_DECREF(target);
  return target == object;
#else
  return PyWeakref_GetObject(weakref) == object;
#endif
}

void RecentCaiImports::Entry::forget_snapshot() {
  for (auto& [key, value] : items) {
    Py_CLEAR(key);
    Py_CLEAR(value);
  }
  size = 0;
  has_snapshot = false;
}

RecentCaiImports::Entry* RecentCaiImports::entry_of(PyObject* producer,
                                                    const runtime::Device& device) {
  for (Entry& e : entries_)
    if (e.object == producer && e.device == &device && e.alive()) return &e;
  return nullptr;
}

RecentCaiImports::Found RecentCaiImports::find(PyObject* producer, PyObject* dict,
                                               const runtime::Device& device) {
  Found found;
  const Entry* e = entry_of(producer, device);
  if (!e) return found;
  found.known = true;
  found.last_data = e->import.data;
  if (!e->has_snapshot || !PyDict_Check(dict) || PyDict_GET_SIZE(dict) != Py_ssize_t(e->size))
    return found;
  // Item by item in the dict's order (a producer writes its keys in one order): no key
  // is looked up. Comparing exact types runs no Python code, so the dict cannot change.
  Py_ssize_t pos = 0;
  PyObject *key, *value;
  for (size_t i = 0; PyDict_Next(dict, &pos, &key, &value); ++i) {
    const auto& [was_key, was_value] = e->items[i];
    if ((was_key != key && !same_value(was_key, key)) ||
        (was_value && was_value != value && !same_value(was_value, value)))
      return found;
  }
  found.import = &e->import;
  return found;
}

void RecentCaiImports::remember(PyObject* producer, PyObject* dict, const runtime::Device& device,
                                const runtime::ArrayImport& import) {
  Entry* e = entry_of(producer, device);  // a producer has one entry, its latest
  if (!e) {
    PyObject* ref = PyWeakref_NewRef(producer, nullptr);
    if (!ref) {  // objects that take no weak references are read every time
      PyErr_Clear();
      return;
    }
    e = &entries_[next_];
    next_ = (next_ + 1) % entries_.size();
    e->forget_snapshot();
    Py_XDECREF(e->weakref);
    e->object = producer;
    e->weakref = ref;
    e->device = &device;
  } else {
    e->forget_snapshot();
  }
  e->import = import;
  if (!PyDict_Check(dict) || PyDict_GET_SIZE(dict) > Py_ssize_t(kMaxItems)) return;
  Py_ssize_t pos = 0;
  PyObject *key, *value;
  while (PyDict_Next(dict, &pos, &key, &value)) {
    auto& [was_key, was_value] = e->items[e->size++];
    was_key = snapshot_of(key);
    // The value of a key that is not the spec's is ignored, as reading it ignores it.
    bool spec = spec_key(key) != nullptr;
    if (spec) was_value = snapshot_of(value);
    if (!was_key || (spec && !was_value)) {  // could change under us: read it every time
      e->forget_snapshot();
      return;
    }
  }
  e->has_snapshot = true;
}

}  // namespace cudajit::python
