#include "device_array.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "arguments.hpp"
#include "cudajit/runtime/interop.hpp"
#include "devices.hpp"

namespace cudajit::python {

int64_t DeviceArray::size() const {
  int64_t n = 1;
  for (int d = 0; d < ndim; ++d) n *= shape[d];
  return n;
}

Layout DeviceArray::layout() const {
  const auto dims = static_cast<size_t>(ndim);
  return strided_layout({shape.data(), dims}, {strides.data(), dims}, itemsize());
}

std::pair<int64_t, int64_t> DeviceArray::extent() const {
  if (size() == 0) return {0, 0};
  int64_t lo = 0, hi = 0;
  for (int d = 0; d < ndim; ++d) {
    int64_t span = (shape[d] - 1) * strides[d];
    (span < 0 ? lo : hi) += span;
  }
  return {lo, hi + itemsize()};
}

Type DeviceArray::type() const {
  if (record) return Type::record_array(record, ndim, layout(), readonly);
  return Type::array(dtype, ndim, layout(), readonly);
}

namespace {

std::vector<int64_t> to_vector(const std::array<int64_t, DeviceArray::kMaxDims>& a, int n) {
  return std::vector<int64_t>(a.begin(), a.begin() + n);
}

void set_dims(DeviceArray& a, const std::vector<int64_t>& shape,
              const std::vector<int64_t>& strides) {
  if (shape.size() != strides.size())
    throw py::value_error("shape and strides differ in length: " + std::to_string(shape.size()) +
                          " and " + std::to_string(strides.size()));
  if (shape.size() > DeviceArray::kMaxDims)
    throw py::value_error("device arrays have at most " + std::to_string(DeviceArray::kMaxDims) +
                          " dimensions, got " + std::to_string(shape.size()));
  a.ndim = static_cast<int>(shape.size());
  for (int d = 0; d < a.ndim; ++d) {
    if (shape[d] < 0)
      throw py::value_error("negative dimension in shape: " + std::to_string(shape[d]));
    a.shape[d] = shape[d];
    a.strides[d] = strides[d];
  }
  // Element count and byte extent must fit int64: an overflowed size would allocate
  // nothing and let kernels write anywhere.
  runtime::detail::check_shape(shape, a.itemsize(), "device array");
  runtime::byte_extent(shape, strides, a.itemsize());
}

// Read-only memory (a read-only CAI, DLPack or NumPy producer) is read-only for host-side
// writes too, not only in kernels.
void check_writable(const DeviceArray& a, const char* operation) {
  if (a.readonly)
    throw py::value_error(std::string(operation) +
                          ": the device array is read-only (its producer exported it read-only)");
}

Scalar dtype_from_name(const std::string& name) {
  auto s = scalar_from_name(name);
  if (!s)
    throw py::type_error("unsupported dtype '" + name +
                         "': expected bool, int8..int64, uint8..uint64, float32, float64, "
                         "complex64 or complex128");
  return *s;
}

// A contiguous host buffer of exactly `bytes` bytes, for the raw copies.
py::buffer_info checked_buffer(const py::buffer& buffer, int64_t bytes, bool writable) {
  py::buffer_info info = buffer.request(writable);
  int64_t given = info.size * info.itemsize;
  if (given != bytes)
    throw py::value_error("host buffer has " + std::to_string(given) + " bytes, expected " +
                          std::to_string(bytes));
  return info;
}

}  // namespace

namespace {
PyTypeObject* g_device_array_type = nullptr;  // set when the class is bound
}  // namespace

const DeviceArray* as_device_array(py::handle obj) {
  if (!PyObject_TypeCheck(obj.ptr(), g_device_array_type)) return nullptr;
  auto* instance = reinterpret_cast<py::detail::instance*>(obj.ptr());
  // Null when a Python subclass skipped the base __init__: not usable as an array.
  return instance->get_value_and_holder().value_ptr<DeviceArray>();
}

void* mapped_device_pointer(py::handle array_base, const void* host_data,
                            const runtime::Device& device, std::shared_ptr<const void>* keep) {
  if (!array_base || !py::isinstance<HostMemory>(array_base)) return nullptr;
  const auto& memory = array_base.cast<const HostMemory&>();
  const runtime::Allocation& a = *memory.allocation;
  if (&a.device() != &device || a.kind() == runtime::MemoryKind::Pinned) return nullptr;
  auto offset = static_cast<const char*>(host_data) - static_cast<const char*>(a.host_pointer());
  *keep = memory.allocation;
  return static_cast<char*>(a.device_pointer()) + offset;
}

namespace {

runtime::MemoryKind host_kind(const std::string& kind) {
  if (kind == "pinned") return runtime::MemoryKind::Pinned;
  if (kind == "mapped") return runtime::MemoryKind::Mapped;
  if (kind == "managed") return runtime::MemoryKind::Managed;
  throw py::value_error("host memory kind must be 'pinned', 'mapped' or 'managed', got '" + kind +
                        "'");
}

}  // namespace

void bind_device_array(py::module_& m) {
  py::class_<HostMemory>(m, "HostMemory", py::buffer_protocol(),
                         "Page-locked, mapped or managed host memory.")
      .def_buffer([](HostMemory& h) {
        return py::buffer_info(h.allocation->host_pointer(), 1, "B", 1,
                               {static_cast<py::ssize_t>(h.allocation->size())}, {1});
      })
      .def_property_readonly("device_pointer",
                             [](const HostMemory& h) {
                               return reinterpret_cast<uintptr_t>(h.allocation->device_pointer());
                             })
      .def_property_readonly("nbytes", [](const HostMemory& h) { return h.allocation->size(); });

  // The array is held as long as its pages are registered: unregistering
  // (the token) comes first, then the array may go.
  struct Registration {
    py::object array;
    std::shared_ptr<void> token;
  };
  py::class_<Registration>(m, "HostRegistration").def("unregister", [](Registration& r) {
    r.token.reset();
    r.array = py::none();
  });
  m.def(
      "register_host",
      [](DeviceHandle device, py::array array) {
        if (!(array.flags() & (py::array::c_style | py::array::f_style)))
          throw py::value_error("pinned() needs contiguous host arrays");
        auto bytes = static_cast<size_t>(array.nbytes());
        return Registration{array, device.device->register_host(array.mutable_data(), bytes)};
      },
      py::arg("device"), py::arg("array"), "Page-lock a host array's memory until unregister().");

  m.def(
      "allocate_host",
      [](DeviceHandle device, size_t bytes, const std::string& kind) {
        return HostMemory{device.device->allocate(bytes, host_kind(kind))};
      },
      py::arg("device"), py::arg("nbytes"), py::arg("kind"));

  py::class_<DeviceArray> device_array(m, "DeviceArray",
                                       "Memory of one device with a shape, strides and dtype.");
  g_device_array_type = reinterpret_cast<PyTypeObject*>(device_array.ptr());
  device_array
      .def(py::init<const DeviceArray&>(), py::arg("other"),
           "A new reference to the same memory, shape and stream.")
      .def_property_readonly(
          "shape",
          [](const DeviceArray& a) { return py::tuple(py::cast(to_vector(a.shape, a.ndim))); })
      .def_property_readonly(
          "strides",
          [](const DeviceArray& a) { return py::tuple(py::cast(to_vector(a.strides, a.ndim))); })
      .def_property_readonly("ndim", [](const DeviceArray& a) { return a.ndim; })
      .def_property_readonly("size", &DeviceArray::size)
      .def_property_readonly("nbytes", &DeviceArray::nbytes)
      .def_property_readonly("dtype_name",
                             [](const DeviceArray& a) { return std::string(scalar_name(a.dtype)); })
      .def_property_readonly(
          "record_dtype",
          [](const DeviceArray& a) -> py::object { return a.record ? a.record_dtype : py::none(); },
          "The NumPy dtype of an array of records; None for numbers.")
      .def_property_readonly("readonly", [](const DeviceArray& a) { return a.readonly; })
      .def_property_readonly(
          "device_pointer",
          [](const DeviceArray& a) { return reinterpret_cast<uintptr_t>(a.data); })
      .def_property_readonly("layout",
                             [](const DeviceArray& a) {
                               static constexpr const char* kNames[] = {"C", "F", "A"};
                               return kNames[static_cast<int>(a.layout())];
                             })
      .def_property_readonly("device", [](const DeviceArray& a) { return wrap_device(*a.device); })
      .def_property_readonly("stream",
                             [](const DeviceArray& a) -> py::object {
                               if (!a.stream) return py::none();
                               return py::cast(StreamHandle{a.stream});
                             })
      .def(
          "bind",
          [](const DeviceArray& a, py::handle stream) {
            DeviceArray b = a;
            b.stream = resolve_stream(stream, *a.device);
            return b;
          },
          py::arg("stream"), "The same array with `stream` as its default stream.")
      .def(
          "view",
          [](const DeviceArray& a, int64_t offset, const std::vector<int64_t>& shape,
             const std::vector<int64_t>& strides, py::handle dtype) {
            DeviceArray b = a;
            if (py::isinstance<py::str>(dtype)) {
              b.dtype = dtype_from_name(dtype.cast<std::string>());
              b.record = nullptr;
              b.record_dtype = py::object();
            } else if (!dtype.is_none()) {  // a structured NumPy dtype: a record field's view
              auto numpy_dtype = py::reinterpret_borrow<py::dtype>(dtype);
              b.dtype = Scalar::UInt8;
              b.record = record_layout_of(numpy_dtype);
              b.record_dtype = numpy_dtype;
            }
            set_dims(b, shape, strides);
            b.data = static_cast<char*>(a.data) + offset;
            return b;
          },
          py::arg("offset"), py::arg("shape"), py::arg("strides"), py::arg("dtype") = py::none(),
          "A view of the same memory `offset` bytes further, with its own shape and strides, "
          "and its dtype: a scalar's name or a structured NumPy dtype (None: the same).")
      .def("extent", &DeviceArray::extent,
           "[lo, hi): the byte offsets from the first element that the elements touch.")
      .def(
          "copy_from_host",
          [](DeviceArray& a, const py::buffer& src, py::handle stream) {
            check_writable(a, "copy_to_device");
            auto [lo, hi] = a.extent();
            py::buffer_info info = checked_buffer(src, hi - lo, false);
            auto s = resolve_stream_or_default(stream, a);
            // The host buffer must stay valid until the copy has run: hold it.
            auto keep = hold_python_object(src);
            a.device->copy(static_cast<char*>(a.data) + lo, info.ptr, hi - lo, *s,
                           {keep, a.memory});
          },
          py::arg("src"), py::arg("stream") = py::none(),
          "Queue a copy of a host buffer holding exactly the array's extent into it.")
      .def(
          "copy_to_host",
          [](const DeviceArray& a, const py::buffer& dst, py::handle stream) {
            auto [lo, hi] = a.extent();
            py::buffer_info info = checked_buffer(dst, hi - lo, true);
            auto s = resolve_stream_or_default(stream, a);
            auto keep = hold_python_object(dst);
            a.device->copy(info.ptr, static_cast<const char*>(a.data) + lo, hi - lo, *s,
                           {keep, a.memory});
          },
          py::arg("dst"), py::arg("stream") = py::none(),
          "Queue a copy of the array's extent into a host buffer of exactly that size.")
      .def(
          "copy_from_device",
          [](DeviceArray& a, const DeviceArray& src, py::handle stream) {
            check_writable(a, "copy_to_device");
            auto [lo, hi] = a.extent();
            auto [slo, shi] = src.extent();
            if (hi - lo != shi - slo)
              throw py::value_error("device copy between extents of " + std::to_string(shi - slo) +
                                    " and " + std::to_string(hi - lo) + " bytes");
            auto s = resolve_stream_or_default(stream, a);
            a.device->copy(static_cast<char*>(a.data) + lo,
                           static_cast<const char*>(src.data) + slo, hi - lo, *s,
                           {src.memory, a.memory});
          },
          py::arg("src"), py::arg("stream") = py::none())
      .def(
          "memset",
          [](DeviceArray& a, int value, py::handle stream) {
            check_writable(a, "memset");
            auto [lo, hi] = a.extent();
            auto s = resolve_stream_or_default(stream, a);
            a.device->memset(static_cast<char*>(a.data) + lo, value, hi - lo, *s, {a.memory});
          },
          py::arg("value"), py::arg("stream") = py::none());

  m.def(
      "allocate_array",
      [](DeviceHandle device, const std::vector<int64_t>& shape,
         const std::vector<int64_t>& strides, py::handle dtype, py::handle stream) {
        DeviceArray a;
        a.device = device.device;
        if (py::isinstance<py::str>(dtype)) {
          a.dtype = dtype_from_name(dtype.cast<std::string>());
        } else {  // a structured NumPy dtype: an array of records
          auto numpy_dtype = py::reinterpret_borrow<py::dtype>(dtype);
          a.dtype = Scalar::UInt8;
          a.record = record_layout_of(numpy_dtype);
          a.record_dtype = numpy_dtype;
        }
        set_dims(a, shape, strides);
        auto [lo, hi] = a.extent();
        if (lo != 0) throw py::value_error("allocate_array: strides must be non-negative");
        auto memory = a.device->allocate(static_cast<size_t>(hi), runtime::MemoryKind::Device);
        a.data = memory->device_pointer();
        a.memory = memory;
        if (!stream.is_none()) a.stream = resolve_stream(stream, *a.device);
        return a;
      },
      py::arg("device"), py::arg("shape"), py::arg("strides"), py::arg("dtype"),
      py::arg("stream") = py::none(),
      "Allocate device memory for an array of this shape and strides.");
}

}  // namespace cudajit::python
