// Foreign arrays at the binding layer: reading __cuda_array_interface__ dicts
// and DLPack capsules from Python objects into runtime::ArrayImport (whose
// rules live in runtime/src/interop), and the synchronisation configuration.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>

#include "cudajit/runtime/device.hpp"
#include "cudajit/runtime/interop.hpp"

namespace cudajit::python {

namespace py = pybind11;

// cudajit.config.CUDA_ARRAY_INTERFACE_SYNC and ..._SYNC_MODE, mirrored here so
// a launch reads them without Python.
struct InteropConfig {
  bool sync = true;
  runtime::SyncMode mode = runtime::SyncMode::Stream;  // Stream or Host; never Off
  // A mode of "off" is the switch, not a mode: sync off, mode left as it was.
  void set_mode(runtime::SyncMode m) {
    if (m == runtime::SyncMode::Off)
      sync = false;
    else
      mode = m;
  }
};
InteropConfig& interop_config();

// A foreign array made usable: its description, and what keeps its memory
// alive (the exporting object, or the consumed DLPack capsule).
struct ForeignArray {
  runtime::ArrayImport array;
  std::shared_ptr<const void> owner;
  // CAI: the exporting object is the owner, and the caller holds it (a launch holds
  // all of its arguments' producers at once).
  bool owner_is_object = false;
};

// Imports `obj` for `device` into `out`: through __cuda_array_interface__ if it has
// one, else DLPack (__dlpack__ + __dlpack_device__), asked for `launch_stream`. False
// when `obj` exports neither. (An out-parameter: an import is a kilobyte, copied once.)
bool import_foreign(py::handle obj, runtime::Device& device, const runtime::Stream& launch_stream,
                    ForeignArray& out);

// Checks that memory at `data` can be used on `device` (cuda: the pointer's
// device; the cpu device takes any host pointer).
void check_pointer_device(uintptr_t data, runtime::Device& device);

// Orders a launch on `launch` after a producer's `stream` (CAI convention),
// as the sync mode says; `after_launch` makes the producer wait for the launch.
class ProducerSync {
 public:
  void before(runtime::Device& device, std::optional<int64_t> stream, runtime::Stream& launch);
  void after(runtime::Stream& launch);

 private:
  std::vector<int64_t> seen_;  // producer streams already ordered (or waited for) this launch
  std::vector<std::shared_ptr<runtime::Stream>> producers_;
};

void bind_foreign_arrays(py::module_& m);

}  // namespace cudajit::python
