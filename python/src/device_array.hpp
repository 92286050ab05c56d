// cudajit's own device array: memory of one device with a shape, byte
// strides, a dtype and a default stream. The Python class DeviceNDArray
// (python/cudajit/devicearray.py) derives from it, so a launch reads these
// fields directly.
#pragma once

#include <pybind11/pybind11.h>

#include <array>
#include <memory>

#include "cudajit/compiler/types.hpp"
#include "cudajit/runtime/device.hpp"

namespace cudajit::python {

namespace py = pybind11;

struct DeviceArray {
  runtime::Device* device = nullptr;
  // What keeps the memory valid: our allocation, or a foreign owner.
  std::shared_ptr<const void> memory;
  void* data = nullptr;  // address of element [0, ..., 0]
  Scalar dtype = Scalar::Float64;
  // An array of records (a NumPy structured dtype): their fields, and the NumPy dtype;
  // null for numbers.
  std::shared_ptr<const RecordLayout> record;
  py::object record_dtype;
  static constexpr int kMaxDims = kMaxArrayDims;  // as many as kernels take
  int ndim = 1;
  std::array<int64_t, kMaxDims> shape{};
  std::array<int64_t, kMaxDims> strides{};
  bool readonly = false;
  // The stream work on this array is ordered on by default; null: the legacy default stream.
  std::shared_ptr<runtime::Stream> stream;
  // Imported from a foreign array with synchronisation on: `stream` is the
  // producer's, and launches on other streams are ordered after it.
  bool producer_stream = false;

  int64_t size() const;
  int64_t itemsize() const { return record ? record->size : byte_size(dtype); }
  int64_t nbytes() const { return size() * itemsize(); }
  // The kernel-language type of the array.
  Type type() const;
  Layout layout() const;  // C, F or A from the strides
  // [lowest, highest) byte offsets from `data` that the elements touch.
  std::pair<int64_t, int64_t> extent() const;
};

// Host memory from the runtime (pinned, mapped or managed), exported through
// the buffer protocol: NumPy arrays over it keep it as their base, which is
// how a launch finds the device address of a mapped or managed array.
struct HostMemory {
  std::shared_ptr<runtime::Allocation> allocation;
};

// The device address of a NumPy array over mapped or managed memory of
// `device`, or null when it is not such an array.
void* mapped_device_pointer(py::handle array_base, const void* host_data,
                            const runtime::Device& device, std::shared_ptr<const void>* keep);

// The launch path's test for our arrays: a type check against the registered
// class and the instance's C++ value, without pybind11's per-call type lookup.
// Null when `obj` is not a DeviceArray (or a Python subclass of it).
const DeviceArray* as_device_array(py::handle obj);

void bind_device_array(py::module_& m);

}  // namespace cudajit::python
