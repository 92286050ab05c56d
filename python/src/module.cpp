// cudajit._core: the compiler and the launch path, for python/cudajit.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "arguments.hpp"
#include "conversions.hpp"
#include "cudajit/compiler/builtins.hpp"
#include "cudajit/compiler/compile.hpp"
#include "cudajit/runtime/host_launch.hpp"
#include "device_array.hpp"
#include "device_attributes.hpp"
#include "devices.hpp"
#include "dispatcher.hpp"
#include "errors.hpp"
#include "foreign_arrays.hpp"

namespace py = pybind11;
using namespace cudajit;

namespace {

CompileOptions make_options(bool fastmath, bool lineinfo, bool debug, int cc) {
  CompileOptions o;
  o.fastmath = fastmath;
  o.lineinfo = lineinfo;
  o.debug = debug;
  o.cc = cc;
  return o;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "cudajit's C++ core: kernel compiler (LLVM) and launch path";
  python::register_exception_translators();

  py::class_<Program, std::shared_ptr<Program>>(m, "Program")
      .def(py::init<std::string_view>(), py::arg("ir_text"))
      .def(
          "compile_ptx",
          [](const Program& p, const std::vector<std::string>& arg_types, bool device,
             bool fastmath, int cc, std::optional<std::string> return_type, bool lineinfo,
             bool debug, std::array<int, 3> launch_bounds, std::string export_name, bool opt,
             bool keep_llvm_ir) {
            std::optional<Type> declared;
            if (return_type) declared = parse_type(*return_type);
            CompileOptions options = make_options(fastmath, lineinfo, debug, cc);
            options.launch_bounds = launch_bounds;
            options.export_name = std::move(export_name);
            options.opt_level = opt ? 3 : 0;
            options.keep_llvm_ir = keep_llvm_ir;  // inspect_llvm of a device function
            return python::ptx_dict(
                p.compile_ptx(python::parse_types(arg_types), device, options, declared));
          },
          py::arg("arg_types"), py::arg("device") = false, py::arg("fastmath") = false,
          py::arg("cc") = 80, py::arg("return_type") = py::none(), py::arg("lineinfo") = false,
          py::arg("debug") = false, py::arg("launch_bounds") = std::array<int, 3>{},
          py::arg("export_name") = "", py::arg("opt") = true, py::arg("keep_llvm_ir") = false)
      .def(
          "return_type",
          [](const Program& p, const std::vector<std::string>& arg_types, bool device) {
            return p.return_type(python::parse_types(arg_types), device).str();
          },
          py::arg("arg_types"), py::arg("device") = false)
      .def("ir_text", [](const Program& p) { return ir::print_module(p.module()); });

  python::bind_devices(m);
  python::bind_device_attributes(m);
  python::bind_device_array(m);
  python::bind_dispatcher(m);
  python::bind_foreign_arrays(m);

  // The type system's facts that python/cudajit/types.py builds on, taken rather than copied.
  m.attr("MAX_ARRAY_NDIM") = kMaxArrayDims;
  py::list scalar_names;
  for (int s = 0; s <= int(Scalar::Fp8E8M0); ++s)
    scalar_names.append(std::string(scalar_name(Scalar(s))));
  m.attr("SCALAR_NAMES") = py::tuple(scalar_names);

  m.def(
      "parse_type", [](const std::string& s) { return parse_type(s).str(); },
      "Normalises a type spelling; raises ValueError for an unknown one.");
  m.def("record_type", &python::record_type_name, py::arg("dtype"),
        "The compiler's spelling of a structured dtype; TypeError for one kernels cannot take.");
  m.def(
      "builtin_names",
      [] {
        py::list names;
        for (const BuiltinName& b : builtin_names())
          names.append(py::make_tuple(b.name, b.intrinsic));
        return names;
      },
      "The compiler's builtins as (IR name, the name cudajit.intrinsics lists it under or '').");
  m.def("host_worker_count", &runtime::host_worker_count, "Threads the cpu device runs blocks on.");
  m.def("set_host_worker_count", &runtime::set_host_worker_count, py::arg("workers"),
        "Sets the threads the cpu device runs blocks on (at least 1).");
  m.def("host_stream_bytes", &runtime::host_stream_bytes,
        "Arrays this large are written past the cpu device's caches.");
  m.def("set_host_stream_bytes", &runtime::set_host_stream_bytes, py::arg("bytes"));
  m.def("ptx_feature", &target::ptx_feature, py::arg("cc"));
  m.def("libdevice_path", &target::libdevice_path);
  m.def("set_libdevice_package_roots", &target::set_libdevice_package_roots, py::arg("roots"));
}
