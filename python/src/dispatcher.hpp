// The launch hot path: a kernel's specialisations by argument types, and
// kernel[griddim, blockdim, stream, sharedmem](*args) with no Python code of
// ours once the argument types have been seen.
#pragma once

#include <pybind11/pybind11.h>

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "arguments.hpp"
#include "cudajit/compiler/compile.hpp"
#include "cudajit/runtime/device.hpp"

namespace cudajit::python {

// griddim/blockdim from an int or a tuple of 1 to 3 ints, checked against
// CUDA's limits (the cpu device keeps them, so code that runs here runs on a GPU).
runtime::Dim3 parse_dim3(py::handle obj, const char* what);

class Dispatcher {
 public:
  // `ir_provider()` returns the kernel IR text; it is called once, at the first compile.
  // `cache_dir`: where PTX is kept between processes (jit(cache=True)); "" for nowhere.
  Dispatcher(std::string name, py::object ir_provider, CompileOptions options,
             std::string cache_dir = "");

  // Eager compilation for declared argument types; launches then only accept
  // arguments that match one of them.
  void declare(const std::vector<Type>& arg_types);
  void launch(runtime::Device& device, runtime::Dim3 grid, runtime::Dim3 block,
              const std::shared_ptr<runtime::Stream>& stream, unsigned shared_bytes,
              const py::args& args);

  // benchmarks/launch_overhead.py: the same launch by bare cuLaunchKernel calls
  // (device arrays and scalars only), in microseconds per launch.
  double bare_launch_us(runtime::Device& device, runtime::Stream& stream, const py::args& args,
                        int count);

  const Program& program();
  // The code of the kernel for `arg_types`: from the code shared between
  // dispatchers, else (PTX, with a cache directory) from disk, else compiled.
  runtime::KernelCode compile(const std::vector<Type>& arg_types, const CompileOptions& options,
                              bool for_cpu);
  const CompileOptions& options() const { return options_; }
  // With a cache directory: per argument types ("int64, float64"), the compiles the caches
  // answered (the code shared between dispatchers, or disk) and those that compiled (Numba's
  // dispatcher.stats.cache_hits / cache_misses).
  struct CacheStats {
    std::map<std::string, std::size_t> hits, misses;
  };
  const CacheStats& cache_stats() const { return cache_stats_; }
  // The values a launch gives the last parameters it leaves out (the function's defaults).
  void set_defaults(py::tuple defaults) { defaults_ = std::move(defaults); }
  void check_launch_bounds(runtime::Dim3 block) const;
  const std::string& name() const { return name_; }
  // The argument types of every specialisation compiled so far, in order.
  std::vector<std::vector<Type>> compiled_signatures() const;
  // The kernel for `arg_types` loaded on `device` (compiled first if need be).
  std::shared_ptr<runtime::LoadedKernel> loaded(const std::vector<Type>& arg_types,
                                                runtime::Device& device) {
    return kernel_for(specialize(arg_types), device);
  }
  // Numba's dispatcher extensions: objects whose prepare_args(ty, val, stream=, retr=)
  // may replace each argument before a launch (kernel.extensions.append(...)).
  py::list& extensions() { return extensions_; }
  // Foreign code to link with the kernel on the cuda device (cuda.declare_device, jit(link=)):
  // `provider(cc)` returns [(kind, name, bytes)], CUDA C++ compiled for the compute
  // capability cc (major*10+minor). Called at each load on a cuda device; None: no linking.
  void set_link_provider(py::object provider) { link_provider_ = std::move(provider); }
  // jit(shared_memory_carveout=): KernelCode::shared_memory_carveout of its GPU loads.
  void set_shared_memory_carveout(int percent) { shared_memory_carveout_ = percent; }

  // The Python objects it holds, for the garbage collector: the IR provider is a bound
  // method of the Python Dispatcher, a cycle through C++ that only tp_traverse shows (a
  // kernel defined in a loop would otherwise never be freed).
  int traverse(visitproc visit, void* arg) const;
  void clear_python_references();

 private:
  struct Specialization {
    std::vector<Type> arg_types;
    std::vector<ParamLayout> params;
    std::unordered_map<const runtime::Device*, std::shared_ptr<runtime::LoadedKernel>> loaded;
  };
  // A launch's arguments classified, its specialisation found and loaded.
  py::list extensions_;
  // The arguments after every extension's prepare_args (only called when there are some).
  py::tuple apply_extensions(const py::args& args, runtime::Stream& stream, py::list& writebacks);
  struct Prepared {
    std::vector<ArgValue> values;  // the arguments, a tuple's items in its place
    std::vector<std::shared_ptr<const void>> keep_alive;
    std::vector<PyObject*> held_objects;  // CAI producers, held by one keep_alive entry
    Specialization* spec = nullptr;
    std::shared_ptr<runtime::LoadedKernel> kernel;  // kept alive by the launch
    bool has_host_arrays = false;
    // Argument hints (cuda.In, Out, InOut): the arrays they gave, and the copies back
    // they asked for, run after the launch. Made only when a launch has hints or
    // extensions (a list per launch would cost every launch).
    std::vector<py::object> hinted;
    std::optional<py::list> writebacks;
    py::list& writeback_list() { return writebacks ? *writebacks : writebacks.emplace(); }
  };
  Prepared prepare(runtime::Device& device, runtime::Stream& stream, const py::args& args);
  Specialization& specialize(const std::vector<Type>& arg_types);
  Specialization& resolve(const std::vector<Type>& given, const std::string& key);
  // Classifies one argument into p (a tuple item by item), extending the key.
  void classify_into(Prepared& p, py::handle arg, size_t position, runtime::Device& device,
                     runtime::Stream& stream, std::string& key);
  const std::shared_ptr<runtime::LoadedKernel>& kernel_for(Specialization& spec,
                                                           runtime::Device& device);

  std::string name_;
  py::object ir_provider_;
  py::object link_provider_ = py::none();
  int shared_memory_carveout_ = -1;
  CompileOptions options_;
  std::string cache_dir_;
  py::tuple defaults_;  // the Python function's default values of its last parameters
  CacheStats cache_stats_;
  std::string ir_text_;  // the program's, once made: part of the CodeCache key
  std::unique_ptr<Program> program_;
  std::vector<std::vector<Type>> declared_;
  std::deque<Specialization> specializations_;
  std::unordered_map<std::string, Specialization*> by_key_;
  // The last launch's argument list, emptied: its buffer serves the next launch (an
  // ArgValue is a third of a kilobyte; a few are past malloc's fastest sizes). GIL-held.
  std::vector<ArgValue> spare_values_;
};

// kernel[griddim, blockdim, stream, sharedmem]: the device and stream are
// resolved once, here; calling it launches.
struct LaunchConfig {
  py::object owner;  // keeps the Dispatcher alive
  Dispatcher* dispatcher;
  runtime::Device* device;
  runtime::Dim3 grid, block;
  std::shared_ptr<runtime::Stream> stream;
  unsigned shared_bytes;
  // numba-cuda's pre_launch_callbacks: a list of callback(kernel, launch_config) run before
  // each launch; null until asked for, so a plain kernel[...] makes no list.
  py::object pre_launch_callbacks{};
};

// Numba's performance warning for NumPy arrays copied around a launch on a GPU
// (config.CUDA_WARN_ON_IMPLICIT_COPY, off under config.DISABLE_PERFORMANCE_WARNINGS): read at
// every launch given host arrays, so an atomic that cudajit.config sets.
void set_host_copy_warnings(bool on);
bool host_copy_warnings();

void bind_dispatcher(py::module_& m);

}  // namespace cudajit::python
