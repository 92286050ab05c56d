// Kernel arguments as the launch path sees them: each Python object is
// classified once (NumPy array or scalar), giving its kernel-language type,
// and packed into the flattened parameters of the kernel entry.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <array>
#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cudajit/compiler/compile.hpp"
#include "cudajit/compiler/conversions.hpp"
#include "cudajit/runtime/device.hpp"

namespace cudajit::python {

namespace py = pybind11;

struct ArgValue {
  enum class Kind { Scalar, HostArray, DeviceArray, ForeignArray };
  Kind kind = Kind::Scalar;
  Type type;
  // arrays
  void* data = nullptr;
  std::array<int64_t, kMaxArrayDims> shape{};
  std::array<int64_t, kMaxArrayDims> strides{};
  py::handle object;                   // the argument itself (host arrays: to copy back)
  py::object host_base;                // host arrays: the owner of their memory
  runtime::Device* device = nullptr;   // device arrays: where the memory is
  std::shared_ptr<const void> memory;  // device and foreign arrays: held until the kernel ends
  bool hold_object = false;            // CAI arrays: `object` itself is held instead
  // The producer's stream to order the launch after (CAI convention: 1 legacy default).
  std::optional<int64_t> producer_stream;
  // scalars, in the widest form of their kind
  int64_t i = 0;
  uint64_t u = 0;
  double f = 0;
  std::complex<double> c;
};

// Classifies one argument (our device array, NumPy array or scalar); throws
// py::type_error naming what was expected and what was given. `position` is
// for the message.
// Foreign arrays (CAI, then DLPack) are imported for `device`, asking DLPack
// producers for `stream`.
// Written into `v`, a new ArgValue (made in place: an ArgValue is costly to move).
void classify_argument(py::handle obj, size_t position, runtime::Device& device,
                       const runtime::Stream& stream, ArgValue& v);

// The compiler's spelling of a NumPy structured dtype ("Record(a[type=float64;offset=0];8;False)");
// py::type_error for a dtype kernels cannot take.
std::string record_type_name(const py::dtype& dtype);
std::shared_ptr<const RecordLayout> record_layout_of(const py::dtype& dtype);

// Byte range [lo, hi) of an array argument's elements relative to `data`.
std::pair<int64_t, int64_t> array_extent(const ArgValue& v);

// Appends a compact key of the types to `key` (one entry of the dispatch cache).
void append_type_key(const Type& t, std::string& key);

// The flattened parameter values of one launch, converted to the types of
// the specialisation.
runtime::KernelParams pack_params(const std::vector<ArgValue>& args,
                                  const std::vector<ParamLayout>& layout);

// Whether a value of type `given` may be passed where `wanted` is declared
// (eager signatures): arrays must match except that a C or F array may go to
// an A parameter and a writable one to a read-only parameter; scalars convert
// where no information is lost (int to float, float to complex).
bool argument_matches(const Type& given, const Type& wanted);
// How a given argument converts to a declared type, as Numba rates it
// (Conversion::None where argument_matches refuses).
Conversion conversion_kind(const Type& given, const Type& wanted);

}  // namespace cudajit::python
