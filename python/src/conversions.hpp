// Small conversions between the compiler's types and Python values, shared by
// the binding files.
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "cudajit/compiler/compile.hpp"

namespace cudajit::python {

namespace py = pybind11;

// Type spellings from Python ("array(float32, 1d, C)") to types; ValueError for a bad one.
inline std::vector<Type> parse_types(const std::vector<std::string>& names) {
  std::vector<Type> types;
  for (const std::string& n : names) types.push_back(parse_type(n));
  return types;
}

// What compile_ptx returns to Python.
inline py::dict ptx_dict(const PtxArtifact& a) {
  py::dict out;
  out["ptx"] = a.ptx;
  out["llvm_ir"] = a.llvm_ir;
  out["typed_ir"] = a.typed_ir;
  out["entry_name"] = a.entry_name;
  out["return_type"] = a.return_type.str();
  out["cooperative"] = a.cooperative;  // syncs its grid: launched cooperatively
  return out;
}

}  // namespace cudajit::python
