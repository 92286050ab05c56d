#include "dispatcher.hpp"

namespace cudajit::python {

namespace {

std::string types_text(const std::vector<Type>& types) {
  std::string s = "(";
  for (size_t i = 0; i < types.size(); ++i) {
    if (i) s += ", ";
    s += types[i].str();
  }
  s += types.size() == 1 ? ",)" : ")";
  return s;
}

std::string dim_text(const uint32_t (&v)[3], int n) {
  std::string s = "(";
  for (int i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + ")";
}

}  // namespace

runtime::Dim3 parse_dim3(py::handle obj, const char* what) {
  std::vector<py::handle> items;
  if (py::isinstance<py::tuple>(obj) || py::isinstance<py::list>(obj)) {
    for (py::handle h : obj) items.push_back(h);
  } else {
    items.push_back(obj);
  }
  if (items.empty() || items.size() > 3)
    throw py::value_error(std::string(what) + " must be an int or a tuple of 1 to 3 ints, got " +
                          std::string(py::repr(obj)));
  uint32_t v[3] = {1, 1, 1};
  for (size_t i = 0; i < items.size(); ++i) {
    PyObject* index = PyNumber_Index(items[i].ptr());
    if (!index) {
      PyErr_Clear();
      throw py::type_error(std::string(what) + " must be an int or a tuple of ints, got " +
                           std::string(py::repr(obj)));
    }
    long long x = PyLong_AsLongLong(index);
    Py_DECREF(index);
    if (x == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      x = -1;
    }
    if (x < 1 || x > 0x7fffffffLL)
      throw py::value_error(std::string(what) + " entries must be between 1 and 2**31 - 1, got " +
                            std::string(py::repr(obj)));
    v[i] = static_cast<uint32_t>(x);
  }
  bool is_block = std::string_view(what) == "blockdim";
  if (is_block) {
    uint64_t threads = uint64_t(v[0]) * v[1] * v[2];
    if (v[0] > 1024 || v[1] > 1024 || v[2] > 64 || threads > 1024)
      throw py::value_error("blockdim " + dim_text(v, int(items.size())) +
                            " exceeds CUDA's limits: at most 1024 threads per block, with x and y "
                            "at most 1024 and z at most 64");
  } else if (v[1] > 65535 || v[2] > 65535) {
    throw py::value_error("griddim " + dim_text(v, int(items.size())) +
                          " exceeds CUDA's limits: y and z at most 65535");
  }
  return {v[0], v[1], v[2]};
}

Dispatcher::Dispatcher(std::string name, py::object ir_provider, CompileOptions options)
    : name_(std::move(name)), ir_provider_(std::move(ir_provider)), options_(options) {}

const Program& Dispatcher::program() {
  if (!program_) {
    std::string text = ir_provider_().cast<std::string>();
    program_ = std::make_unique<Program>(text);
  }
  return *program_;
}

void Dispatcher::declare(const std::vector<Type>& arg_types) {
  declared_.push_back(arg_types);
  std::string key;
  for (const Type& t : arg_types) append_type_key(t, key);
  by_key_[key] = &specialize(arg_types);
}

const Dispatcher::Specialization& Dispatcher::specialize(const std::vector<Type>& arg_types) {
  for (const Specialization& s : specializations_)
    if (s.arg_types == arg_types) return s;
  HostArtifact host = program().compile_host(arg_types, options_);
  return specializations_.emplace_back(Specialization{arg_types, std::move(host)});
}

const Dispatcher::Specialization& Dispatcher::resolve(const std::vector<ArgValue>& args,
                                                      const std::string& key) {
  std::vector<Type> given;
  for (const ArgValue& a : args) given.push_back(a.type);
  const Specialization* found = nullptr;
  if (declared_.empty()) {
    found = &specialize(given);
  } else {
    for (const auto& declared : declared_) {
      bool ok = declared.size() == given.size();
      for (size_t i = 0; ok && i < given.size(); ++i) ok = argument_matches(given[i], declared[i]);
      if (ok) {
        found = &specialize(declared);
        break;
      }
    }
    if (!found) {
      std::string message = "no matching definition of kernel '" + name_ +
                            "' for argument types " + types_text(given) + "; declared:";
      for (const auto& d : declared_) message += " " + types_text(d);
      throw py::type_error(message);
    }
  }
  by_key_[key] = found;
  return *found;
}

void Dispatcher::launch(runtime::Dim3 grid, runtime::Dim3 block, py::args args) {
  size_t wanted = program().module().functions[0].params.size();
  if (args.size() != wanted)
    throw py::type_error("kernel '" + name_ + "' takes " + std::to_string(wanted) +
                         " arguments, got " + std::to_string(args.size()));
  std::vector<ArgValue> values;
  values.reserve(args.size());
  std::string key;
  for (size_t i = 0; i < args.size(); ++i) {
    values.push_back(classify_argument(args[i], i));
    append_type_key(values.back().type, key);
  }
  auto it = by_key_.find(key);
  const Specialization& spec = it != by_key_.end() ? *it->second : resolve(values, key);
  ParamPack pack;
  pack.pack(values, spec.host.params);
  // The arrays stay alive through `args`; the kernel touches no Python object.
  py::gil_scoped_release release;
  runtime::launch_host(spec.host.entry, grid, block, pack.pointers());
}

std::vector<std::vector<Type>> Dispatcher::compiled_signatures() const {
  std::vector<std::vector<Type>> out;
  for (const Specialization& s : specializations_) out.push_back(s.arg_types);
  return out;
}

}  // namespace cudajit::python
