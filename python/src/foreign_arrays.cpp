#include "foreign_arrays.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string>

#include "device_array.hpp"
#include "devices.hpp"

namespace cudajit::python {

using runtime::CaiDescription;
using runtime::throw_cai_bad_entry;

InteropConfig& interop_config() {
  static InteropConfig config = [] {
    InteropConfig c;
    // Numba's variable counts where ours is unset: a program written for Numba that turns
    // synchronisation off must get it off here too.
    const char* v = std::getenv("CUDAJIT_CUDA_ARRAY_INTERFACE_SYNC");
    if (!v) v = std::getenv("NUMBA_CUDA_ARRAY_INTERFACE_SYNC");
    if (v) {
      std::string value = v;
      c.sync = !(value == "0" || value == "false" || value == "False" || value == "off" ||
                 value == "no");
    }
    if (const char* v = std::getenv("CUDAJIT_CUDA_ARRAY_INTERFACE_SYNC_MODE"))
      c.set_mode(runtime::parse_sync_mode(v));
    return c;
  }();
  return config;
}

namespace {

std::string repr_text(py::handle h) { return py::repr(h); }

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

CaiEntries cai_entries(PyObject* dict) {
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
  CaiEntries e;
  Py_ssize_t pos = 0;
  PyObject *key, *value;
  while (PyDict_Next(dict, &pos, &key, &value)) {
    auto match =
        std::find_if(keys.begin(), keys.end(), [&](const CaiKey& k) { return key == k.str; });
    if (match == keys.end() && PyUnicode_Check(key))
      match = std::find_if(keys.begin(), keys.end(),
                           [&](const CaiKey& k) { return PyUnicode_Compare(key, k.str) == 0; });
    if (match != keys.end()) e.*(match->entry) = value;
  }
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

void check_pointer_device(uintptr_t data, runtime::Device& device) {
  device.check_accessible(reinterpret_cast<const void*>(data));
}

namespace {

// The memory that live producers exported and was found on a device. A producer keeps the
// memory it exports alive while it lives (CAI's lifetime rule), so the same object exporting
// the same pointer again needs no second driver query: on a GPU, cuPointerGetAttribute costs
// about as much as the rest of an argument's import. Each entry holds a weak reference, so
// an object that died (and an address that came back for another one) is asked again.
// Touched under the GIL only. The weak references are released on replacement, never at
// exit (the interpreter may be gone by then: the destructor does nothing).
class CheckedProducers {
 public:
  bool known(PyObject* object, uintptr_t data, const runtime::Device& device) const {
    for (const Entry& e : entries_)
      if (e.object == object && e.data == data && e.device == &device && alive(e)) return true;
    return false;
  }

  void remember(PyObject* object, uintptr_t data, const runtime::Device& device) {
    PyObject* ref = PyWeakref_NewRef(object, nullptr);
    if (!ref) {  // objects that take no weak references are checked every time
      PyErr_Clear();
      return;
    }
    Entry& e = entries_[next_];
    next_ = (next_ + 1) % entries_.size();
    Py_XDECREF(e.weakref);
    e = Entry{object, ref, data, &device};
  }

 private:
  struct Entry {
    PyObject* object = nullptr;  // compared only, never used: the weak reference says alive
    PyObject* weakref = nullptr;
    uintptr_t data = 0;
    const runtime::Device* device = nullptr;
  };

  static bool alive(const Entry& e) {
#if PY_VERSION_HEX >= 0x030D0000
    PyObject* target = nullptr;
    if (PyWeakref_GetRef(e.weakref, &target) <= 0) return false;
    Py_DECREF(target);
    return target == e.object;
#else
    return PyWeakref_GetObject(e.weakref) == e.object;
#endif
  }

  std::array<Entry, 16> entries_{};  // the arguments of a few kernels launched in turn
  size_t next_ = 0;
};

// check_pointer_device for memory a live `producer` exported.
void check_producer_pointer(PyObject* producer, uintptr_t data, runtime::Device& device) {
  static CheckedProducers checked;
  if (checked.known(producer, data, device)) return;
  check_pointer_device(data, device);
  checked.remember(producer, data, device);
}

// Takes the capsule's tensor: renames it "used_..." (so nobody else consumes
// it) and returns its owner, which calls the producer's deleter once.
runtime::DlpackOwner consume_capsule(py::handle capsule) {
  if (!PyCapsule_CheckExact(capsule.ptr()))
    throw py::type_error("__dlpack__() must return a PyCapsule, got " +
                         repr_text(py::type::handle_of(capsule)) + " " + repr_text(capsule));
  const char* name = PyCapsule_GetName(capsule.ptr());
  if (PyErr_Occurred()) throw py::error_already_set();
  if (!name)
    throw py::type_error(
        "__dlpack__() returned a capsule without a name, expected one named "
        "'dltensor' or 'dltensor_versioned'");
  std::string_view n = name;
  if (n == runtime::kDltensorVersionedCapsule) {
    auto* t = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule.ptr(), name));
    PyCapsule_SetName(capsule.ptr(), runtime::kUsedDltensorVersionedCapsule);
    return runtime::DlpackOwner(t);
  }
  if (n == runtime::kDltensorCapsule) {
    auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), name));
    PyCapsule_SetName(capsule.ptr(), runtime::kUsedDltensorCapsule);
    return runtime::DlpackOwner(t);
  }
  throw py::type_error("__dlpack__() returned a capsule named '" + std::string(n) +
                       "', expected 'dltensor' or 'dltensor_versioned' (already consumed?)");
}

py::object call_dlpack(py::handle obj, std::optional<int64_t> stream) {
  py::object stream_arg = stream ? py::object(py::int_(*stream)) : py::none();
  try {
    return obj.attr("__dlpack__")(py::arg("stream") = stream_arg,
                                  py::arg("max_version") = py::make_tuple(1, 0));
  } catch (py::error_already_set& e) {
    // Producers older than DLPack 1.0 take no max_version.
    if (!e.matches(PyExc_TypeError)) throw;
    return obj.attr("__dlpack__")(py::arg("stream") = stream_arg);
  }
}

std::optional<ForeignArray> import_dlpack(py::handle obj, runtime::Device& device,
                                          const runtime::Stream& launch_stream) {
  py::object where = obj.attr("__dlpack_device__")();
  if (!py::isinstance<py::tuple>(where) || py::len(where) != 2)
    throw py::type_error("__dlpack_device__() must return (device_type, device_id), got " +
                         repr_text(where));
  auto pair = where.cast<py::tuple>();
  auto small_int = [&](py::handle v, const char* what) {
    int overflow = 0;
    long long x = PyLong_Check(v.ptr()) ? PyLong_AsLongLongAndOverflow(v.ptr(), &overflow) : 0;
    if (!PyLong_Check(v.ptr()) || overflow || x < INT32_MIN || x > INT32_MAX)
      throw py::value_error(std::string("__dlpack_device__() ") + what +
                            " must be a 32-bit int, got " + repr_text(v));
    return static_cast<int>(x);
  };
  DLDevice dl{static_cast<DLDeviceType>(small_int(pair[0], "device_type")),
              small_int(pair[1], "device_id")};
  bool on_cuda = device.kind() == runtime::DeviceKind::Cuda;
  runtime::check_dlpack_device(dl, on_cuda, device.ordinal());
  InteropConfig& config = interop_config();
  auto stream = runtime::dlpack_stream_argument(dl.device_type, launch_stream.handle(),
                                                config.sync ? config.mode : runtime::SyncMode::Off);
  py::object capsule = call_dlpack(obj, on_cuda ? stream : std::nullopt);
  auto owner = std::make_shared<runtime::DlpackOwner>(consume_capsule(capsule));
  runtime::check_dlpack_device_matches(dl, owner->tensor().device);
  ForeignArray f{owner->import(), nullptr};
  // The producer's deleter may call into Python: release it under the GIL.
  f.owner = defer_release_under_gil(std::move(owner));
  return f;
}

}  // namespace

std::optional<ForeignArray> import_foreign(py::handle obj, runtime::Device& device,
                                           const runtime::Stream& launch_stream) {
  static PyObject* const kCaiName = PyUnicode_InternFromString("__cuda_array_interface__");
  PyObject* cai = PyObject_GetAttr(obj.ptr(), kCaiName);
  if (cai) {
    py::object dict = py::reinterpret_steal<py::object>(cai);
    ForeignArray f{runtime::validate_cai(read_cai(dict)), nullptr, true};
    if (!interop_config().sync) f.array.stream.reset();
    if (f.array.size > 0) check_producer_pointer(obj.ptr(), f.array.data, device);
    return f;
  }
  if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
    // The producer's property raised: its exception becomes the cause of ours.
    py::error_already_set cause;
    py::raise_from(cause, PyExc_ValueError,
                   ("reading __cuda_array_interface__ of a " +
                    std::string(py::str(py::type::handle_of(obj).attr("__name__"))) +
                    " object raised " + std::string(py::str(cause.type().attr("__name__"))))
                       .c_str());
    throw py::error_already_set();
  }
  PyErr_Clear();
  if (py::hasattr(obj, "__dlpack__") && py::hasattr(obj, "__dlpack_device__"))
    return import_dlpack(obj, device, launch_stream);
  return std::nullopt;
}

void ProducerSync::before(runtime::Device& device, std::optional<int64_t> stream,
                          runtime::Stream& launch) {
  InteropConfig& config = interop_config();
  runtime::SyncMode mode = config.sync ? config.mode : runtime::SyncMode::Off;
  runtime::SyncAction action =
      runtime::sync_action(mode, stream, launch.handle(), launch.blocking());
  if (action == runtime::SyncAction::None) return;
  // Arrays of one producer's stream (the usual case) need it ordered once.
  if (std::find(seen_.begin(), seen_.end(), *stream) != seen_.end()) return;
  seen_.push_back(*stream);
  auto producer = device.external_stream(static_cast<uintptr_t>(*stream));
  if (action == runtime::SyncAction::HostSync) {
    py::gil_scoped_release release;
    producer->synchronize();
    return;
  }
  device.order_streams(launch, *producer);
  producers_.push_back(std::move(producer));
}

void ProducerSync::after(runtime::Stream& launch) {
  // Nothing the producer queues later may run before our kernel is done.
  for (auto& p : producers_) launch.device().order_streams(*p, launch);
}

namespace {

DeviceArray device_array_from(ForeignArray f, runtime::Device& device, bool sync) {
  const runtime::ArrayImport& a = f.array;
  if (a.ndim() > DeviceArray::kMaxDims)
    throw py::value_error("device arrays have at most " + std::to_string(DeviceArray::kMaxDims) +
                          " dimensions; the foreign array has " + std::to_string(a.ndim()));
  DeviceArray d;
  d.device = &device;
  d.memory = std::move(f.owner);
  d.data = reinterpret_cast<void*>(a.data);
  d.dtype = a.dtype;
  d.ndim = a.ndim();
  std::copy(a.shape.begin(), a.shape.end(), d.shape.begin());
  std::copy(a.strides.begin(), a.strides.end(), d.strides.begin());
  d.readonly = a.readonly;
  InteropConfig& config = interop_config();
  if (sync && config.sync && a.stream) {
    // The producer's stream becomes the array's default stream.
    d.stream = device.external_stream(static_cast<uintptr_t>(*a.stream));
    d.producer_stream = true;
    if (config.mode == runtime::SyncMode::Host) {
      py::gil_scoped_release release;
      d.stream->synchronize();  // Numba's behaviour
    }
  }
  return d;
}

// --- export: DLPack capsules of our arrays ----------------------------------------

// What a capsule's managed tensor points into: the array's shape and strides,
// and a reference to its memory. Freed by the tensor's deleter, on whatever
// thread the consumer calls it (it touches no Python).
struct ExportContext {
  std::shared_ptr<const void> memory;
  std::vector<int64_t> shape, strides;
  DLManagedTensor legacy{};
  DLManagedTensorVersioned versioned{};
};

void fill_tensor(DLTensor& t, ExportContext& ctx, const DeviceArray& a) {
  bool cuda = a.device->kind() == runtime::DeviceKind::Cuda;
  t.data = a.data;
  t.device = {cuda ? kDLCUDA : kDLCPU, cuda ? a.device->ordinal() : 0};
  t.ndim = a.ndim;
  if (a.record)
    throw py::buffer_error("DLPack has no record dtypes: an array of " +
                           std::string(py::str(a.record_dtype)) + " cannot be exported");
  t.dtype = runtime::dlpack_dtype(a.dtype);
  int64_t item = byte_size(a.dtype);
  for (int d = 0; d < a.ndim; ++d) {
    ctx.shape.push_back(a.shape[d]);
    if (a.strides[d] % item != 0)
      throw py::buffer_error("DLPack strides count elements: a stride of " +
                             std::to_string(a.strides[d]) + " bytes is not a multiple of " +
                             std::to_string(item));
    ctx.strides.push_back(a.strides[d] / item);
  }
  t.shape = ctx.shape.data();
  t.strides = ctx.strides.data();
  t.byte_offset = 0;
}

void capsule_destructor(PyObject* capsule, const char* unused_name, bool versioned) {
  // A capsule nobody consumed still owns its tensor.
  if (!PyCapsule_IsValid(
          capsule, versioned ? runtime::kDltensorVersionedCapsule : runtime::kDltensorCapsule))
    return;
  (void)unused_name;
  void* p = PyCapsule_GetPointer(
      capsule, versioned ? runtime::kDltensorVersionedCapsule : runtime::kDltensorCapsule);
  if (versioned) {
    auto* t = static_cast<DLManagedTensorVersioned*>(p);
    if (t->deleter) t->deleter(t);
  } else {
    auto* t = static_cast<DLManagedTensor*>(p);
    if (t->deleter) t->deleter(t);
  }
}

py::object export_dlpack(const DeviceArray& a, py::handle stream, bool versioned) {
  bool cuda = a.device->kind() == runtime::DeviceKind::Cuda;
  if (!stream.is_none()) {
    if (!cuda)
      throw py::buffer_error("__dlpack__: stream must be None for arrays on the cpu device, got " +
                             repr_text(stream));
    auto value = stream.cast<int64_t>();
    if (value == 0)
      throw py::value_error(
          "__dlpack__: stream 0 is disallowed (ambiguous); use 1 for the legacy "
          "default stream or 2 for the per-thread default stream");
    if (value != -1) {
      // The consumer's stream waits for the work queued on the array's stream.
      auto ours = a.stream ? a.stream : a.device->legacy_default_stream();
      auto theirs = a.device->external_stream(static_cast<uintptr_t>(value));
      if (ours->handle() != theirs->handle()) {
        auto ready = a.device->create_event(false);
        ready->record(*ours);
        theirs->wait(*ready);
      }
    }
  }
  if (a.readonly && !versioned)
    throw py::buffer_error(
        "__dlpack__: a read-only array needs a versioned capsule (pass "
        "max_version=(1, 0)); a legacy capsule cannot mark it read-only");
  auto ctx = std::make_unique<ExportContext>();
  ctx->memory = a.memory;
  PyObject* capsule;
  if (versioned) {
    auto& t = ctx->versioned;
    t.version = {runtime::kDlpackMajorVersion, runtime::kDlpackMinorVersion};
    t.flags = a.readonly ? runtime::kDlpackFlagReadOnly : 0;
    fill_tensor(t.dl_tensor, *ctx, a);
    t.manager_ctx = ctx.get();
    t.deleter = [](DLManagedTensorVersioned* self) {
      std::unique_ptr<ExportContext>(static_cast<ExportContext*>(self->manager_ctx));
    };
    capsule = PyCapsule_New(&t, runtime::kDltensorVersionedCapsule,
                            [](PyObject* c) { capsule_destructor(c, nullptr, true); });
  } else {
    auto& t = ctx->legacy;
    fill_tensor(t.dl_tensor, *ctx, a);
    t.manager_ctx = ctx.get();
    t.deleter = [](DLManagedTensor* self) {
      std::unique_ptr<ExportContext>(static_cast<ExportContext*>(self->manager_ctx));
    };
    capsule = PyCapsule_New(&t, runtime::kDltensorCapsule,
                            [](PyObject* c) { capsule_destructor(c, nullptr, false); });
  }
  if (!capsule) throw py::error_already_set();
  (void)ctx.release();  // owned by the capsule's tensor from here on
  return py::reinterpret_steal<py::object>(capsule);
}

}  // namespace

void bind_foreign_arrays(py::module_& m) {
  m.def("export_dlpack", &export_dlpack, py::arg("array"), py::arg("stream"), py::arg("versioned"),
        "A DLPack capsule viewing `array`, holding its memory.");
  m.def(
      "import_array",
      [](py::handle obj, bool sync) {
        runtime::Device& device = current_device();
        auto stream = device.legacy_default_stream();
        auto f = import_foreign(obj, device, *stream);
        if (!f)
          throw py::type_error(
              "expected an object exporting __cuda_array_interface__ or DLPack "
              "(__dlpack__ and __dlpack_device__), got " +
              repr_text(py::type::handle_of(obj)));
        if (f->owner_is_object) f->owner = hold_python_object(obj);
        return device_array_from(std::move(*f), device, sync);
      },
      py::arg("obj"), py::arg("sync") = true,
      "A DeviceArray viewing a foreign array's memory; holds the object (or its DLPack capsule).");

  m.def(
      "import_cai_dict",
      [](py::handle desc, py::handle owner, bool sync) {
        runtime::Device& device = current_device();
        ForeignArray f{runtime::validate_cai(read_cai(desc)), nullptr};
        if (!owner.is_none()) f.owner = hold_python_object(owner);
        if (f.array.size > 0) check_pointer_device(f.array.data, device);
        return device_array_from(std::move(f), device, sync);
      },
      py::arg("desc"), py::arg("owner") = py::none(), py::arg("sync") = true);

  m.def(
      "set_interop_config",
      [](bool sync, const std::string& mode) {
        InteropConfig& c = interop_config();
        c.sync = sync;
        c.set_mode(runtime::parse_sync_mode(mode));
      },
      py::arg("sync"), py::arg("mode"));
  m.def("get_interop_config", [] {
    InteropConfig& c = interop_config();
    return py::make_tuple(c.sync, std::string(runtime::sync_mode_name(c.mode)));
  });
}

}  // namespace cudajit::python
