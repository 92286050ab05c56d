#include "foreign_arrays.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string>

#include "cai_dict.hpp"
#include "device_array.hpp"
#include "devices.hpp"

namespace cudajit::python {

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

void check_pointer_device(uintptr_t data, runtime::Device& device) {
  device.check_accessible(reinterpret_cast<const void*>(data));
}

namespace {

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

ForeignArray import_dlpack(py::handle obj, runtime::Device& device,
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

bool import_foreign(py::handle obj, runtime::Device& device, const runtime::Stream& launch_stream,
                    ForeignArray& out) {
  static PyObject* const kCaiName = PyUnicode_InternFromString("__cuda_array_interface__");
  PyObject* cai = PyObject_GetAttr(obj.ptr(), kCaiName);
  if (cai) {
    py::object dict = py::reinterpret_steal<py::object>(cai);
    static RecentCaiImports recent;
    RecentCaiImports::Found found = recent.find(obj.ptr(), dict.ptr(), device);
    out.owner_is_object = true;
    if (found.import) {
      out.array = *found.import;
    } else {
      out.array = runtime::validate_cai(read_cai(dict));
      // A producer keeps the memory it exports alive while it lives (CAI's lifetime rule):
      // the same pointer needs no second driver query (about 1 us on a GPU).
      if (out.array.size > 0 && !found.exported(out.array.data))
        check_pointer_device(out.array.data, device);
      recent.remember(obj.ptr(), dict.ptr(), device, out.array);
    }
    if (!interop_config().sync) out.array.stream.reset();
    return true;
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
  if (!py::hasattr(obj, "__dlpack__") || !py::hasattr(obj, "__dlpack_device__")) return false;
  out = import_dlpack(obj, device, launch_stream);
  return true;
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
  if (!cuda) {
    // kDLCPU hands the consumer no stream to wait on: the memory must hold the results of
    // the work queued on the array before the capsule exists.
    synchronize_stream(a.stream ? *a.stream : *a.device->legacy_default_stream());
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
        ForeignArray f;
        if (!import_foreign(obj, device, *stream, f))
          throw py::type_error(
              "expected an object exporting __cuda_array_interface__ or DLPack "
              "(__dlpack__ and __dlpack_device__), got " +
              repr_text(py::type::handle_of(obj)));
        if (f.owner_is_object) f.owner = hold_python_object(obj);
        return device_array_from(std::move(f), device, sync);
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
