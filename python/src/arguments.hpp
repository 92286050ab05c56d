// Kernel arguments as the launch path sees them: each Python object is
// classified once (NumPy array or scalar), giving its kernel-language type,
// and packed into the flattened parameters of the kernel entry.
#pragma once

#include <pybind11/pybind11.h>

#include <array>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "cudajit/compiler/compile.hpp"

namespace cudajit::python {

namespace py = pybind11;

struct ArgValue {
  Type type;
  // arrays
  void* data = nullptr;
  std::array<int64_t, 4> shape{};
  std::array<int64_t, 4> strides{};
  // scalars, in the widest form of their kind
  int64_t i = 0;
  uint64_t u = 0;
  double f = 0;
  std::complex<double> c;
};

// Classifies one argument; throws py::type_error naming what was expected
// and what was given. `position` is for the message.
ArgValue classify_argument(py::handle obj, size_t position);

// Appends a compact key of the types to `key` (one entry of the dispatch cache).
void append_type_key(const Type& t, std::string& key);

// The flattened parameter values of one launch: each parameter in a 16-byte
// slot, and the array of pointers to them that the entry takes.
class ParamPack {
 public:
  void pack(const std::vector<ArgValue>& args, const std::vector<ParamLayout>& layout);
  void** pointers() { return pointers_.data(); }

 private:
  struct alignas(16) Slot {
    std::array<std::byte, 16> bytes;
  };
  template <class T>
  void put(size_t index, T value);
  std::vector<Slot> slots_;
  std::vector<void*> pointers_;
};

// Whether a value of type `given` may be passed where `wanted` is declared
// (eager signatures): arrays must match except that a C or F array may go to
// an A parameter and a writable one to a read-only parameter; scalars convert
// where no information is lost (int to float, float to complex).
bool argument_matches(const Type& given, const Type& wanted);

}  // namespace cudajit::python
