// cudajit._core: the compiler and the launch path, for python/cudajit.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "cudajit/compiler/compile.hpp"
#include "cudajit/runtime/host_launch.hpp"
#include "dispatcher.hpp"
#include "errors.hpp"

namespace py = pybind11;
using namespace cudajit;

namespace {

std::vector<Type> parse_types(const std::vector<std::string>& names) {
  std::vector<Type> types;
  for (const std::string& n : names) types.push_back(parse_type(n));
  return types;
}

std::vector<std::string> type_names(const std::vector<Type>& types) {
  std::vector<std::string> names;
  for (const Type& t : types) names.push_back(t.str());
  return names;
}

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
             bool fastmath, int cc, std::optional<std::string> return_type) {
            std::optional<Type> declared;
            if (return_type) declared = parse_type(*return_type);
            PtxArtifact a = p.compile_ptx(parse_types(arg_types), device,
                                          make_options(fastmath, false, false, cc), declared);
            py::dict out;
            out["ptx"] = a.ptx;
            out["llvm_ir"] = a.llvm_ir;
            out["entry_name"] = a.entry_name;
            out["return_type"] = a.return_type.str();
            return out;
          },
          py::arg("arg_types"), py::arg("device") = false, py::arg("fastmath") = false,
          py::arg("cc") = 80, py::arg("return_type") = py::none())
      .def(
          "return_type",
          [](const Program& p, const std::vector<std::string>& arg_types, bool device) {
            return p.return_type(parse_types(arg_types), device).str();
          },
          py::arg("arg_types"), py::arg("device") = false)
      .def("ir_text", [](const Program& p) { return ir::print_module(p.module()); });

  py::class_<python::Dispatcher>(m, "Dispatcher")
      .def(py::init([](std::string name, py::object provider, bool fastmath, bool lineinfo,
                       bool debug) {
             return std::make_unique<python::Dispatcher>(
                 std::move(name), std::move(provider),
                 make_options(fastmath, lineinfo, debug, 80));
           }),
           py::arg("name"), py::arg("ir_provider"), py::arg("fastmath") = false,
           py::arg("lineinfo") = false, py::arg("debug") = false)
      .def(
          "declare",
          [](python::Dispatcher& d, const std::vector<std::string>& arg_types) {
            d.declare(parse_types(arg_types));
          },
          py::arg("arg_types"))
      .def(
          "launch",
          [](python::Dispatcher& d, py::handle griddim, py::handle blockdim, py::args args) {
            d.launch(python::parse_dim3(griddim, "griddim"), python::parse_dim3(blockdim, "blockdim"),
                     std::move(args));
          },
          py::arg("griddim"), py::arg("blockdim"))
      .def("ir_text", [](python::Dispatcher& d) { return ir::print_module(d.program().module()); })
      .def(
          "compile_ptx",
          [](python::Dispatcher& d, const std::vector<std::string>& arg_types, int cc) {
            CompileOptions o = d.options();
            o.cc = cc;
            PtxArtifact a = d.program().compile_ptx(parse_types(arg_types), false, o);
            py::dict out;
            out["ptx"] = a.ptx;
            out["llvm_ir"] = a.llvm_ir;
            out["entry_name"] = a.entry_name;
            return out;
          },
          py::arg("arg_types"), py::arg("cc") = 80)
      .def_property_readonly("signatures", [](const python::Dispatcher& d) {
        std::vector<std::vector<std::string>> out;
        for (const auto& s : d.compiled_signatures()) out.push_back(type_names(s));
        return out;
      });

  m.def("parse_type", [](const std::string& s) { return parse_type(s).str(); },
        "Normalises a type spelling; raises ValueError for an unknown one.");
  m.def("host_worker_count", &runtime::host_worker_count,
        "Threads the cpu device runs blocks on.");
  m.def("ptx_feature", &target::ptx_feature, py::arg("cc"));
}
