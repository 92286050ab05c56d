// __cuda_array_interface__ dicts at the binding layer: reading one into a
// runtime::CaiDescription, and remembering the imports of the last few producers.
#pragma once

#include <pybind11/pybind11.h>

#include <array>
#include <string>
#include <utility>

#include "cudajit/runtime/device.hpp"
#include "cudajit/runtime/interop.hpp"

namespace cudajit::python {

namespace py = pybind11;

// repr(h), for messages.
std::string repr_text(py::handle h);

// Reads a CAI dict; Python type errors are reported through the interop
// layer's helpers so messages look alike.
runtime::CaiDescription read_cai(py::handle dict);

// The CAI imports of the last few producers (the arguments of a few kernels launched in
// turn), each with a snapshot of the dict it was read from. A live producer that exports
// an equal dict again (the same entries, each of the same exact type: an int where there
// was an int, a tuple of ints where there was one) gets the import it had, without the
// dict being read and judged again: the spec's rules gave this very description a pass.
// Only dicts of immutable values are remembered (a descr list is copied), so equal to the
// snapshot means equal to what was judged. Touched under the GIL only; the references
// held are released on replacement, never at exit (the interpreter may be gone by then).
class RecentCaiImports {
 public:
  struct Found {
    const runtime::ArrayImport* import = nullptr;  // the dict is equal to the last one
    uintptr_t last_data = 0;                       // the pointer the producer exported last
    bool known = false;                            // the producer was seen on this device

    // Whether this producer exported `data` last time: a producer keeps the memory it
    // exports alive while it lives (CAI's lifetime rule), so the pointer was checked.
    bool exported(uintptr_t data) const { return known && data == last_data; }
  };

  Found find(PyObject* producer, PyObject* dict, const runtime::Device& device);
  // After `import` was read from `dict` and its pointer checked for `device`.
  void remember(PyObject* producer, PyObject* dict, const runtime::Device& device,
                const runtime::ArrayImport& import);

 private:
  static constexpr size_t kMaxItems = 12;  // larger dicts are read every time

  struct Entry {
    PyObject* object = nullptr;  // compared only, never used: the weak reference says alive
    PyObject* weakref = nullptr;
    const runtime::Device* device = nullptr;
    // The dict's items in its order: snapshots of the keys, and of the spec's values
    // (null for another key's value, which reading ignores too). Owned.
    std::array<std::pair<PyObject*, PyObject*>, kMaxItems> items{};
    size_t size = 0;
    bool has_snapshot = false;
    runtime::ArrayImport import;

    bool alive() const;
    void forget_snapshot();
  };

  Entry* entry_of(PyObject* producer, const runtime::Device& device);

  std::array<Entry, 16> entries_{};
  size_t next_ = 0;
};

}  // namespace cudajit::python
