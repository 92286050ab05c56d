// Python face of Dispatcher and LaunchConfig: kernel[...] and its call are
// C++ methods, so a launch of a seen signature runs no Python code of ours.
#include <pybind11/stl.h>

#include <atomic>

#include "code_cache.hpp"
#include "conversions.hpp"
#include "devices.hpp"
#include "disk_cache.hpp"
#include "dispatcher.hpp"
#include "python_lookups.hpp"

namespace cudajit::python {

namespace {

// Whether pybind11 has built the C++ object of a Python instance yet (a collection may visit
// one between its allocation and __init__). pybind11 3's detail::is_holder_constructed does
// the same; pybind11 2.x (Debian 13's 2.13) has only the instance's own accessor.
bool holder_constructed(PyObject* self) {
  return reinterpret_cast<py::detail::instance*>(self)->get_value_and_holder().holder_constructed();
}

unsigned parse_shared_bytes(py::handle obj) {
  long long v = -1;
  if (PyLong_Check(obj.ptr())) v = PyLong_AsLongLong(obj.ptr());
  if (PyErr_Occurred()) PyErr_Clear();
  if (v < 0 || v > 0xffffffffLL)
    throw py::value_error("sharedmem must be an int from 0 to 2**32 - 1 (bytes), got " +
                          std::string(py::repr(obj)));
  return static_cast<unsigned>(v);
}

// Numba's low-occupancy warning (config.CUDA_LOW_OCCUPANCY_WARNINGS): a grid of fewer than
// 128 blocks leaves most of a GPU's multiprocessors idle. Read at every kernel[...], so an
// atomic rather than a Python lookup.
std::atomic<bool> low_occupancy_warnings{false};
constexpr unsigned long long kLowOccupancyGrid = 128;

void warn_if_low_occupancy(const LaunchConfig& c) {
  if (!low_occupancy_warnings.load(std::memory_order_relaxed) ||
      c.device->kind() != runtime::DeviceKind::Cuda)
    return;  // the cpu device runs blocks on a few cores: any grid fills them
  const unsigned long long blocks = 1ull * c.grid.x * c.grid.y * c.grid.z;
  if (blocks >= kLowOccupancyGrid) return;
  static LazyAttribute performance_warning("cudajit.errors", "PerformanceWarning");
  const std::string message = "Grid size " + std::to_string(blocks) +
                              " will likely result in GPU under-utilization due to low "
                              "occupancy.";
  if (PyErr_WarnEx(performance_warning.get(), message.c_str(), 1) < 0)
    throw py::error_already_set();
}

LaunchConfig configure(py::object self, py::handle config) {
  Py_ssize_t n = PyTuple_Check(config.ptr()) ? PyTuple_GET_SIZE(config.ptr()) : 0;
  if (n < 2 || n > 4)
    throw py::value_error(
        "a kernel launch is kernel[griddim, blockdim] or kernel[griddim, blockdim, stream, "
        "sharedmem]; got [" +
        std::string(py::repr(config)) + "]");
  auto item = [&](Py_ssize_t i) { return py::handle(PyTuple_GET_ITEM(config.ptr(), i)); };
  runtime::Device& device = current_device();
  // `self` is a Dispatcher (the Python subclass's base): no need for pybind11's cast.
  auto* dispatcher = reinterpret_cast<py::detail::instance*>(self.ptr())
                         ->get_value_and_holder()
                         .value_ptr<Dispatcher>();
  LaunchConfig c{
      self,    dispatcher, &device, parse_dim3(item(0), "griddim"), parse_dim3(item(1), "blockdim"),
      nullptr, 0};
  c.stream = resolve_stream(n > 2 ? item(2) : py::handle(Py_None), device);
  if (n > 3) c.shared_bytes = parse_shared_bytes(item(3));
  warn_if_low_occupancy(c);
  return c;
}

void run_pre_launch_callbacks(LaunchConfig& c) {
  if (!c.pre_launch_callbacks || py::len(c.pre_launch_callbacks) == 0) return;
  py::object config = py::cast(c, py::return_value_policy::reference);
  for (py::handle callback : py::list(c.pre_launch_callbacks)) callback(c.owner, config);
}

}  // namespace

void bind_dispatcher(py::module_& m) {
  m.def("set_low_occupancy_warnings",
        [](bool on) { low_occupancy_warnings.store(on, std::memory_order_relaxed); },
        py::arg("on"), "config.CUDA_LOW_OCCUPANCY_WARNINGS: warn at kernel[grid, block] of a "
        "grid under 128 blocks on a GPU");
  m.def("low_occupancy_warnings",
        [] { return low_occupancy_warnings.load(std::memory_order_relaxed); });
  m.def("set_host_copy_warnings", &set_host_copy_warnings, py::arg("on"),
        "config.CUDA_WARN_ON_IMPLICIT_COPY: warn when NumPy arrays are copied around a launch "
        "on a GPU");
  m.def("host_copy_warnings", &host_copy_warnings);
  // Collected as a container: the Python Dispatcher's bound method it holds is a cycle.
  py::class_<Dispatcher>(
      m, "Dispatcher", py::custom_type_setup([](PyHeapTypeObject* heap_type) {
        PyTypeObject* type = &heap_type->ht_type;
        type->tp_flags |= Py_TPFLAGS_HAVE_GC;
        type->tp_traverse = [](PyObject* self, visitproc visit, void* arg) {
          Py_VISIT(Py_TYPE(self));
          if (!holder_constructed(self)) return 0;
          return py::cast<const Dispatcher&>(py::handle(self)).traverse(visit, arg);
        };
        type->tp_clear = [](PyObject* self) {
          if (holder_constructed(self))
            py::cast<Dispatcher&>(py::handle(self)).clear_python_references();
          return 0;
        };
      }))
      .def(py::init([](std::string name, py::object provider, bool fastmath, bool lineinfo,
                       bool debug, int max_registers, std::string cache_dir,
                       std::array<int, 3> launch_bounds, bool opt) {
             CompileOptions o;
             o.opt_level = opt ? 3 : 0;
             o.fastmath = fastmath;
             o.lineinfo = lineinfo;
             o.debug = debug;
             o.max_registers = max_registers;
             o.launch_bounds = launch_bounds;
             return std::make_unique<Dispatcher>(std::move(name), std::move(provider), o,
                                                 std::move(cache_dir));
           }),
           py::arg("name"), py::arg("ir_provider"), py::arg("fastmath") = false,
           py::arg("lineinfo") = false, py::arg("debug") = false, py::arg("max_registers") = 0,
           py::arg("cache_dir") = "", py::arg("launch_bounds") = std::array<int, 3>{},
           py::arg("opt") = true)
      .def_property_readonly(
          "extensions", [](Dispatcher& d) -> py::list& { return d.extensions(); },
          py::return_value_policy::reference_internal,
          "Numba's dispatcher extensions: each one's prepare_args(ty, val, stream=, retr=) "
          "may replace an argument before every launch")
      .def(
          "_cache_stats",
          [](const Dispatcher& d) {
            return py::make_tuple(d.cache_stats().hits, d.cache_stats().misses);
          },
          "({argument types: count}, {...}): with cache=True, the compiles the caches "
          "answered and those that compiled")
      .def("_set_defaults", &Dispatcher::set_defaults, py::arg("defaults"),
           "the values a launch gives the last parameters it leaves out (__defaults__)")
      .def("_set_link_provider", &Dispatcher::set_link_provider, py::arg("provider"),
           "provider(cc) -> [(kind, name, bytes)]: foreign code linked with the kernel at each "
           "load on a cuda device (cuda.declare_device, jit(link=)); None for none")
      .def("_set_shared_memory_carveout", &Dispatcher::set_shared_memory_carveout,
           py::arg("percent"),
           "jit(shared_memory_carveout=) as a percentage, -1 for the driver's default: set "
           "on the kernel at each load on a GPU")
      .def("__getitem__",
           [](py::object self, py::handle config) { return configure(self, config); })
      .def(
          "configure",
          [](py::object self, py::handle griddim, py::handle blockdim, py::handle stream,
             py::handle sharedmem) {
            return configure(self, py::make_tuple(griddim, blockdim, stream, sharedmem));
          },
          py::arg("griddim"), py::arg("blockdim"), py::arg("stream") = 0, py::arg("sharedmem") = 0)
      .def(
          "declare",
          [](Dispatcher& d, const std::vector<std::string>& arg_types) {
            d.declare(parse_types(arg_types));
          },
          py::arg("arg_types"))
      .def("ir_text", [](Dispatcher& d) { return ir::print_module(d.program().module()); })
      .def(
          "compile_ptx",
          [](Dispatcher& d, const std::vector<std::string>& arg_types, int cc) {
            CompileOptions o = d.options();
            o.cc = cc;
            o.keep_llvm_ir = true;  // for inspect_llvm
            return ptx_dict(d.program().compile_ptx(parse_types(arg_types), false, o));
          },
          py::arg("arg_types"), py::arg("cc") = 80)
      .def(
          "ptx",
          [](Dispatcher& d, const std::vector<std::string>& arg_types, int cc) {
            CompileOptions o = d.options();
            o.cc = cc;
            return d.compile(parse_types(arg_types), o, /*for_cpu=*/false).ptx;
          },
          py::arg("arg_types"), py::arg("cc") = 80,
          "The PTX a GPU of compute capability `cc` runs: from the caches, else compiled.")
      .def(
          "resources",
          [](Dispatcher& d, const std::vector<std::string>& arg_types, const DeviceHandle& device) {
            runtime::KernelResources r =
                d.loaded(parse_types(arg_types), *device.device)->resources();
            py::dict out;
            out["registers_per_thread"] = r.registers_per_thread;
            out["static_shared_bytes"] = r.static_shared_bytes;
            out["local_bytes_per_thread"] = r.local_bytes_per_thread;
            out["const_bytes"] = r.const_bytes;
            out["max_threads_per_block"] = r.max_threads_per_block;
            out["shared_memory_carveout"] = r.shared_memory_carveout;
            return out;
          },
          py::arg("arg_types"), py::arg("device"),
          "What the kernel for `arg_types` uses on `device`, as its driver reports it.")
      .def(
          "max_resident_blocks",
          [](Dispatcher& d, const std::vector<std::string>& arg_types, const DeviceHandle& device,
             uint64_t block_threads, size_t shared_bytes) {
            return d.loaded(parse_types(arg_types), *device.device)
                ->max_resident_blocks(block_threads, shared_bytes);
          },
          py::arg("arg_types"), py::arg("device"), py::arg("block_threads"),
          py::arg("shared_bytes") = 0)
      .def_property_readonly("signatures", [](const Dispatcher& d) {
        std::vector<std::vector<std::string>> out;
        for (const auto& sig : d.compiled_signatures()) {
          std::vector<std::string> names;
          for (const Type& t : sig) names.push_back(t.str());
          out.push_back(std::move(names));
        }
        return out;
      });

  m.def(
      "code_cache_info",
      [] {
        const CodeCache::Info info = CodeCache::shared().info();
        py::dict out;
        out["hits"] = info.hits;
        out["misses"] = info.misses;
        out["size"] = info.size;
        out["capacity"] = info.capacity;
        const disk_cache::Counts disk = disk_cache::counts();
        out["disk_hits"] = disk.hits;
        out["disk_misses"] = disk.misses;
        return out;
      },
      "Kernels compiled once for dispatchers with the same kernel IR: hits, misses, size, "
      "capacity.");
  m.def(
      "code_cache_clear",
      [] {
        CodeCache::shared().clear();
        disk_cache::reset_counts();
      },
      "Forgets the compiled kernels shared between dispatchers (those compiled stay loaded).");
  m.def(
      "code_cache_set_capacity",
      [](std::size_t capacity) { CodeCache::shared().set_capacity(capacity); }, py::arg("capacity"),
      "Keeps at most `capacity` kernels (0 turns the sharing off).");
  m.def(
      "bare_launch_us",
      [](Dispatcher& d, const py::list& args, const StreamHandle& stream, int count) {
        return d.bare_launch_us(stream.stream->device(), *stream.stream, py::args(py::tuple(args)),
                                count);
      },
      py::arg("kernel"), py::arg("args"), py::arg("stream"), py::arg("count"),
      "Microseconds per launch of the kernel by bare cuLaunchKernel calls (cuda only).");

  py::class_<LaunchConfig>(m, "LaunchConfig")
      .def("__call__",
           [](LaunchConfig& c, py::args args) {
             run_pre_launch_callbacks(c);
             c.dispatcher->launch(*c.device, c.grid, c.block, c.stream, c.shared_bytes, args);
           })
      // Keyword arguments: a second overload, so the positional launch pays nothing for
      // them. The Python side matches them to the kernel's parameter names.
      .def("__call__",
           [](LaunchConfig& c, py::args args, py::kwargs kwargs) {
             py::object bind = py::module_::import("cudajit.dispatcher").attr("bind_arguments");
             py::args ordered = bind(c.owner, args, kwargs);
             run_pre_launch_callbacks(c);
             c.dispatcher->launch(*c.device, c.grid, c.block, c.stream, c.shared_bytes, ordered);
           })
      .def_property_readonly(
          "pre_launch_callbacks",
          [](LaunchConfig& c) -> py::object {
            if (!c.pre_launch_callbacks) c.pre_launch_callbacks = py::list();
            return c.pre_launch_callbacks;
          },
          "callback(kernel, launch_config) functions run just before each launch (numba-cuda's "
          "hook); they must not launch work or call the driver")
      // Pickled as numba-cuda pickles it: the kernel, the dimensions, the stream's handle.
      .def(py::pickle(
          [](const LaunchConfig& c) {
            if (c.pre_launch_callbacks && py::len(c.pre_launch_callbacks) > 0) {
              PyErr_SetString(py::module_::import("pickle").attr("PicklingError").ptr(),
                              "Cannot pickle configured launches with pre-launch callbacks");
              throw py::error_already_set();
            }
            return py::make_tuple(c.owner, py::make_tuple(c.grid.x, c.grid.y, c.grid.z),
                                  py::make_tuple(c.block.x, c.block.y, c.block.z),
                                  py::int_(c.stream->handle()), c.shared_bytes);
          },
          [](py::tuple state) {
            return configure(state[0], py::make_tuple(state[1], state[2], state[3], state[4]));
          }))
      .def_property_readonly(
          "griddim",
          [](const LaunchConfig& c) { return py::make_tuple(c.grid.x, c.grid.y, c.grid.z); })
      .def_property_readonly(
          "blockdim",
          [](const LaunchConfig& c) { return py::make_tuple(c.block.x, c.block.y, c.block.z); })
      .def_property_readonly("stream", [](const LaunchConfig& c) { return StreamHandle{c.stream}; })
      .def_property_readonly("sharedmem", [](const LaunchConfig& c) { return c.shared_bytes; });
}

}  // namespace cudajit::python
