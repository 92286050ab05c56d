#include "dispatcher.hpp"

#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <array>
#include <cstdlib>
#include <functional>
#include <tuple>
#include <unordered_map>

#include "code_cache.hpp"
#include "cudajit/runtime/bench.hpp"
#include "cudajit/runtime/interrupt.hpp"
#include "device_array.hpp"
#include "devices.hpp"
#include "disk_cache.hpp"
#include "foreign_arrays.hpp"
#include "python_lookups.hpp"

namespace cudajit::python {

namespace {

// A named tuple's field names (collections.namedtuple, typing.NamedTuple: a tuple subclass
// whose class has a _fields tuple of strs, one per item); nullopt for other tuples.
std::optional<std::vector<std::string>> namedtuple_fields(py::handle tuple) {
  if (PyTuple_CheckExact(tuple.ptr())) return std::nullopt;
  py::object fields = py::getattr(py::type::handle_of(tuple), "_fields", py::none());
  if (!PyTuple_Check(fields.ptr()) ||
      PyTuple_GET_SIZE(fields.ptr()) != PyTuple_GET_SIZE(tuple.ptr()))
    return std::nullopt;
  std::vector<std::string> names;
  for (py::handle field : fields) {
    if (!PyUnicode_Check(field.ptr())) return std::nullopt;
    names.push_back(field.cast<std::string>());
  }
  return names;
}

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
  // The common case first: a plain positive int.
  if (PyLong_CheckExact(obj.ptr())) {
    long long x = PyLong_AsLongLong(obj.ptr());
    if (x >= 1 && x <= 0x7fffffffLL && !(std::string_view(what) == "blockdim" && x > 1024))
      return {static_cast<uint32_t>(x), 1, 1};
    PyErr_Clear();  // out of range: the general path below says why
  }
  std::vector<py::handle> items;
  if (py::isinstance<py::tuple>(obj) || py::isinstance<py::list>(obj)) {
    for (py::handle h : obj) items.push_back(h);
  } else {
    items.push_back(obj);
  }
  // Numba's wording ("a sequence of ... integers, got [...]": the items as a list).
  auto given = [&] {
    py::list as_list;
    for (py::handle h : items) as_list.append(h);
    return std::string(py::repr(as_list));
  };
  if (items.empty() || items.size() > 3)
    throw py::value_error(std::string(what) + " must be a sequence of 1, 2 or 3 integers, got " +
                          given());
  uint32_t v[3] = {1, 1, 1};
  for (size_t i = 0; i < items.size(); ++i) {
    PyObject* index = PyNumber_Index(items[i].ptr());
    if (!index) {
      PyErr_Clear();
      throw py::type_error(std::string(what) + " must be a sequence of integers, got " + given());
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

Dispatcher::Dispatcher(std::string name, py::object ir_provider, CompileOptions options,
                       std::string cache_dir)
    : name_(std::move(name)),
      ir_provider_(std::move(ir_provider)),
      options_(options),
      cache_dir_(std::move(cache_dir)) {}

const Program& Dispatcher::program() {
  if (!program_) {
    ir_text_ = ir_provider_().cast<std::string>();
    program_ = std::make_unique<Program>(ir_text_);
    ir_provider_ = py::none();  // called once: the cycle through it ends here
  }
  return *program_;
}

int Dispatcher::traverse(visitproc visit, void* arg) const {
  Py_VISIT(ir_provider_.ptr());
  Py_VISIT(extensions_.ptr());
  Py_VISIT(link_provider_.ptr());
  return 0;
}

void Dispatcher::clear_python_references() {
  ir_provider_ = py::none();
  extensions_ = py::list();
  link_provider_ = py::none();
}

void Dispatcher::declare(const std::vector<Type>& arg_types) {
  declared_.push_back(arg_types);
  std::string key;
  for (const Type& t : arg_types) append_type_key(t, key);
  Specialization& spec = specialize(arg_types);
  by_key_[key] = &spec;
  kernel_for(spec, current_device());  // eager: compile now, errors now
}

Dispatcher::Specialization& Dispatcher::specialize(const std::vector<Type>& arg_types) {
  for (Specialization& s : specializations_)
    if (s.arg_types == arg_types) return s;
  // Typing first: a kernel that does not type fails here, before anything is cached.
  program().return_type(arg_types, false);
  return specializations_.emplace_back(Specialization{arg_types, param_layout(arg_types), {}});
}

namespace {

// The link provider's [(kind, name, bytes)] as the runtime takes them.
std::vector<runtime::LinkInput> link_inputs(const py::handle& items) {
  using Kind = runtime::LinkInput::Kind;
  static const std::unordered_map<std::string, Kind> kinds = {
      {"ptx", Kind::Ptx},       {"cubin", Kind::Cubin},     {"fatbin", Kind::Fatbin},
      {"object", Kind::Object}, {"library", Kind::Library},
  };
  std::vector<runtime::LinkInput> inputs;
  for (py::handle item : items) {
    auto [kind, name, data] = item.cast<std::tuple<std::string, std::string, py::bytes>>();
    auto found = kinds.find(kind);
    if (found == kinds.end()) throw std::invalid_argument("unknown kind of linked code: " + kind);
    inputs.push_back({found->second, std::move(name), std::string(data)});
  }
  return inputs;
}

}  // namespace

const std::shared_ptr<runtime::LoadedKernel>& Dispatcher::kernel_for(Specialization& spec,
                                                                     runtime::Device& device) {
  auto found = spec.loaded.find(&device);
  if (found != spec.loaded.end()) return found->second;
  const bool for_cpu = device.kind() == runtime::DeviceKind::Cpu;
  CompileOptions options = options_;
  // A GPU newer than our table runs the PTX of the newest capability we know.
  if (!for_cpu) options.cc = target::ptx_cc_for_device(device.compute_capability());
  runtime::KernelCode code = compile(spec.arg_types, options, for_cpu);
  if (!for_cpu && !link_provider_.is_none())
    code.links = link_inputs(link_provider_(device.compute_capability()));
  code.shared_memory_carveout = shared_memory_carveout_;
  return spec.loaded[&device] = device.load(code);
}

namespace {

// What host code on disk also depends on: the CPU it was compiled for, and whether
// CUDAJIT_BOUNDSCHECK=0 compiled the checks out.
std::string host_code_identity() {
  static const std::string identity = "\x1f" + target::host_cpu_identity() +
                                      (boundscheck_allowed() ? ""
                                                             : "\x1f"
                                                               "no bounds checks");
  return identity;
}

}  // namespace

runtime::KernelCode Dispatcher::compile(const std::vector<Type>& arg_types,
                                        const CompileOptions& options, bool for_cpu) {
  const Program& compiled = program();  // sets ir_text_
  std::string key = ir_text_;
  key += '\x1f';
  for (const Type& t : arg_types) append_type_key(t, key);
  key += '\x1f';
  key += for_cpu ? "cpu" : target::sm_name(options.cc);
  key += std::string(options.fastmath ? "/fastmath" : "") + (options.lineinfo ? "/lineinfo" : "") +
         (options.debug ? "/debug" : "") + (options.boundscheck ? "/boundscheck" : "") +
         "/maxnreg=" + std::to_string(options.max_registers) + "/O" +
         std::to_string(options.opt_level);
  for (int bound : options.launch_bounds) key += "/" + std::to_string(bound);
  const bool on_disk = !cache_dir_.empty();
  auto count = [&](std::map<std::string, std::size_t>& counts) {
    if (!on_disk) return;
    std::string types;
    for (const Type& t : arg_types) types += (types.empty() ? "" : ", ") + t.str();
    ++counts[types];
  };
  CodeCache& cache = CodeCache::shared();
  if (std::optional<runtime::KernelCode> found = cache.find(key)) {
    count(cache_stats_.hits);
    return *std::move(found);
  }

  // PTX, or the cpu device's object file, which runs only where the host CPU is the same.
  const std::string disk_key =
      on_disk ? key + '\x1f' + compiler_identity() + (for_cpu ? host_code_identity() : "") : "";
  std::optional<runtime::KernelCode> stored;
  if (on_disk) {
    std::string warning;
    stored = disk_cache::load(cache_dir_, name_, disk_key, for_cpu, &warning);
    if (!warning.empty()) {
      const std::string message = "cudajit: kernel '" + name_ + "': " + warning;
      if (PyErr_WarnEx(PyExc_RuntimeWarning, message.c_str(), 1) != 0)
        throw py::error_already_set();
    }
  }
  count(stored ? cache_stats_.hits : cache_stats_.misses);
  runtime::KernelCode code = stored ? *std::move(stored) : runtime::KernelCode{};
  code.kernel_name = name_;
  code.source_file = compiled.module().file;
  if (for_cpu && stored) {
    void* address = target::load_host_object(code.host_object, code.entry_name);
    if (code.host_per_thread)
      code.host.thread_entry = reinterpret_cast<target::HostThreadEntry>(address);
    else
      code.host.entry = reinterpret_cast<target::HostEntry>(address);
    code.host_object.clear();  // linked: the bytes are needed no more
  } else if (!stored) {
    if (for_cpu) {
      HostArtifact host = compiled.compile_host(arg_types, options);
      code.host = host.kernel;
      code.entry_name = std::move(host.entry_name);
      code.cooperative = host.kernel.cooperative;
      code.host_per_thread = host.kernel.thread_entry != nullptr;
      if (on_disk) code.host_object = std::move(host.object);
    } else {
      PtxArtifact ptx = compiled.compile_ptx(arg_types, false, options);
      code.ptx = std::move(ptx.ptx);
      code.entry_name = std::move(ptx.entry_name);
      code.cooperative = ptx.cooperative;
    }
    if (on_disk) {
      const std::string failure = disk_cache::store(cache_dir_, name_, disk_key, for_cpu, code);
      if (!failure.empty()) {
        const std::string message =
            "cudajit: kernel '" + name_ + "' is not cached on disk: " + failure;
        if (PyErr_WarnEx(PyExc_RuntimeWarning, message.c_str(), 1) != 0) {
          throw py::error_already_set();
        }
      }
      code.host_object.clear();  // on disk now; the linked code is what runs
    }
  }
  cache.insert(key, code);
  return code;
}

Dispatcher::Specialization& Dispatcher::resolve(const std::vector<Type>& given,
                                                const std::string& key) {
  Specialization* found = nullptr;
  if (declared_.empty()) {
    found = &specialize(given);
  } else {
    // Numba's choice (ConversionRank): fewest unsafe, then safe, then promoting conversions.
    const std::vector<Type>* best = nullptr;
    ConversionRank best_rank;
    for (const auto& declared : declared_) {
      if (declared.size() != given.size()) continue;
      ConversionRank rank;
      bool ok = true;
      for (size_t i = 0; ok && i < given.size(); ++i)
        ok = rank.add(conversion_kind(given[i], declared[i]));
      if (ok && (!best || rank < best_rank)) {
        best = &declared;
        best_rank = rank;
      }
    }
    if (best) found = &specialize(*best);
    if (!found) {
      std::string message = "no matching definition of kernel '" + name_ + "' for argument types " +
                            types_text(given) + "; declared:";
      for (const auto& d : declared_) message += " " + types_text(d);
      throw py::type_error(message);
    }
  }
  by_key_[key] = found;
  return *found;
}

namespace {

// A NumPy array given to a kernel on a GPU: copied to the device before the
// launch and back after it (unless read-only), as Numba does.
// A range of host memory copied to the device around a launch: one per group of NumPy
// arguments whose extents overlap (the same array passed twice, or views of one buffer),
// so they alias on the device as they do on the host.
struct StagedRange {
  std::shared_ptr<runtime::Allocation> memory;
  char* host;  // the host address of the range's start
  int64_t bytes;
  bool written;  // some argument in it is writable: copy it back
};

// Stages the host arrays of `values` on `device`, rewriting their data pointers.
std::vector<StagedRange> stage_host_arrays(runtime::Device& device, runtime::Stream& s,
                                           std::vector<ArgValue>& values) {
  struct Extent {
    ArgValue* arg;
    char* begin;
    char* end;
  };
  std::vector<Extent> extents;
  for (ArgValue& v : values) {
    if (v.kind != ArgValue::Kind::HostArray) continue;
    auto [lo, hi] = array_extent(v);
    extents.push_back({&v, static_cast<char*>(v.data) + lo, static_cast<char*>(v.data) + hi});
  }
  std::sort(extents.begin(), extents.end(),
            [](const Extent& a, const Extent& b) { return a.begin < b.begin; });
  std::vector<StagedRange> ranges;
  for (size_t first = 0; first < extents.size();) {
    char* begin = extents[first].begin;
    char* end = extents[first].end;
    size_t last = first + 1;
    while (last < extents.size() && extents[last].begin < end)
      end = std::max(end, extents[last++].end);
    int64_t bytes = end - begin;
    auto memory = device.allocate(static_cast<size_t>(std::max<int64_t>(bytes, 1)),
                                  runtime::MemoryKind::Device);
    device.copy(memory->device_pointer(), begin, size_t(bytes), s);
    bool written = false;
    for (size_t i = first; i < last; ++i) {
      ArgValue& v = *extents[i].arg;
      v.data = static_cast<char*>(memory->device_pointer()) + (static_cast<char*>(v.data) - begin);
      written = written || !v.type.readonly();
    }
    ranges.push_back({memory, begin, bytes, written});
    first = last;
  }
  return ranges;
}

std::atomic<bool> host_copy_warnings_on{true};

void warn_host_copies(const std::string& kernel, size_t count) {
  if (!host_copy_warnings_on.load(std::memory_order_relaxed)) return;
  static LazyAttribute performance_warning("cudajit.errors", "PerformanceWarning");
  PyObject* const category = performance_warning.get();
  // Numba's sentence first, so that filters written for Numba's warning match ours too.
  std::string message = "Host array used in CUDA kernel will incur copy overhead to/from "
                        "device: kernel '" + kernel + "' was given " + std::to_string(count) +
                        " NumPy array(s): each is copied to the GPU before the launch and back "
                        "after it, and the launch waits for the kernel; use cuda.to_device() to "
                        "keep data on the device";
  if (PyErr_WarnEx(category, message.c_str(), 1) < 0) throw py::error_already_set();
}

}  // namespace

void set_host_copy_warnings(bool on) { host_copy_warnings_on.store(on, std::memory_order_relaxed); }
bool host_copy_warnings() { return host_copy_warnings_on.load(std::memory_order_relaxed); }

py::tuple Dispatcher::apply_extensions(const py::args& args, runtime::Stream& stream,
                                       py::list& writebacks) {
  static LazyAttribute typeof_function("cudajit.types", "typeof");
  PyObject* const typeof_ = typeof_function.get();
  py::list out;
  for (py::handle arg : args) {
    py::object ty = py::none(), val = py::reinterpret_borrow<py::object>(arg);
    try {
      ty = py::reinterpret_borrow<py::object>(typeof_)(val);
    } catch (py::error_already_set&) {
      // no cudajit type for it: the extensions see None
    }
    for (py::handle extension : extensions_) {
      py::tuple pair = extension.attr("prepare_args")(ty, val, py::arg("stream") = stream.handle(),
                                                      py::arg("retr") = writebacks);
      if (pair.size() != 2)
        throw py::type_error("a dispatcher extension's prepare_args must return (type, value)");
      ty = pair[0];
      val = pair[1];
    }
    out.append(val);
  }
  return py::tuple(out);
}

Dispatcher::Prepared Dispatcher::prepare(runtime::Device& device, runtime::Stream& stream,
                                         const py::args& given) {
  Prepared p;
  p.values.swap(spare_values_);  // empty, with the last launch's capacity
  py::args args = given;
  if (PyList_GET_SIZE(extensions_.ptr()) != 0)
    args = py::args(apply_extensions(given, stream, p.writeback_list()));
  size_t wanted = program().module().functions[0].params.size();
  const size_t defaults = PyTuple_GET_SIZE(defaults_.ptr());
  if (args.size() < wanted && args.size() + defaults >= wanted) {  // the last ones defaulted
    py::list filled(args);
    for (size_t i = defaults - (wanted - args.size()); i < defaults; ++i)
      filled.append(defaults_[i]);
    args = py::args(py::tuple(filled));
  }
  if (args.size() != wanted)
    throw py::type_error("kernel '" + name_ + "' takes " + std::to_string(wanted) +
                         " arguments, got " + std::to_string(args.size()));
  p.values.reserve(args.size());
  p.keep_alive.reserve(args.size() + 2);
  std::string key;
  for (size_t i = 0; i < args.size(); ++i) classify_into(p, args[i], i, device, stream, key);
  if (!p.held_objects.empty())
    p.keep_alive.push_back(hold_python_objects(std::move(p.held_objects)));
  auto it = by_key_.find(key);
  if (it != by_key_.end()) {
    p.spec = it->second;
  } else {
    // A new key (rare): the arguments' types, tuples rebuilt from their items.
    size_t next = 0;
    std::function<Type(py::handle)> type_of = [&](py::handle arg) {
      if (!PyTuple_Check(arg.ptr())) return p.values[next++].type;
      std::vector<Type> items;
      for (py::handle item : arg) items.push_back(type_of(item));
      if (auto fields = namedtuple_fields(arg))  // p.x reads an item by name
        return Type::named_tuple(py::str(py::type::handle_of(arg).attr("__name__")),
                                 std::move(items), std::move(*fields));
      return Type::tuple(std::move(items));
    };
    std::vector<Type> given;
    for (py::handle arg : args) given.push_back(type_of(arg));
    p.spec = &resolve(given, key);
  }
  p.kernel = kernel_for(*p.spec, device);
  // A Dispatcher collected right after an asynchronous launch must not unload
  // the module (cuModuleUnload) under the running kernel.
  p.keep_alive.push_back(p.kernel);
  return p;
}

void Dispatcher::classify_into(Prepared& p, py::handle arg, size_t i, runtime::Device& device,
                               runtime::Stream& stream, std::string& key) {
  if (PyTuple_Check(arg.ptr())) {
    // A tuple (of arrays, scalars, tuples): its items are arguments of their own.
    key += 'T';
    key += static_cast<char>(PyTuple_GET_SIZE(arg.ptr()));
    if (!PyTuple_CheckExact(arg.ptr()))  // a named tuple: its class and fields are its type
      if (auto fields = namedtuple_fields(arg)) {
        key += py::str(py::type::handle_of(arg).attr("__name__")).cast<std::string>();
        for (const std::string& f : *fields) key += "," + f;
      }
    for (py::handle item : arg) classify_into(p, item, i, device, stream, key);
    key += 't';
    return;
  }
  ArgValue* classified = &p.values.emplace_back();
  try {
    classify_argument(arg, i, device, stream, *classified);
  } catch (py::type_error&) {
    // Numba's argument hints (cuda.In, Out, InOut, numba.cuda.args' own): to_device(retr,
    // stream) gives the array to pass and appends the copies back to retr. Looked for
    // only here, where every other kind of argument has failed.
    p.values.pop_back();
    if (!py::hasattr(arg, "to_device") || !py::hasattr(arg, "value")) throw;
    py::object given = arg.attr("to_device")(p.writeback_list(), py::int_(stream.handle()));
    p.hinted.push_back(given);
    classified = &p.values.emplace_back();
    classify_argument(given, i, device, stream, *classified);
  }
  ArgValue& v = *classified;
  append_type_key(v.type, key);
  if (v.kind == ArgValue::Kind::HostArray && device.kind() == runtime::DeviceKind::Cuda) {
    // Mapped and managed memory is used in place, like a device array.
    std::shared_ptr<const void> keep;
    if (void* ptr = mapped_device_pointer(v.host_base, v.data, device, &keep)) {
      v.kind = ArgValue::Kind::DeviceArray;
      v.data = ptr;
      v.device = &device;
      v.memory = keep;
    }
  }
  if (v.kind == ArgValue::Kind::HostArray) p.has_host_arrays = true;
  if (v.kind == ArgValue::Kind::DeviceArray && v.device != &device)
    throw py::value_error("argument " + std::to_string(i) + " is on device " + v.device->name() +
                          " " + std::to_string(v.device->ordinal()) +
                          ", but the kernel launches on " + device.name() + " " +
                          std::to_string(device.ordinal()));
  if (v.memory) p.keep_alive.push_back(v.memory);
  if (v.hold_object) {
    if (p.held_objects.empty()) p.held_objects.reserve(8);  // one allocation for most launches
    p.held_objects.push_back(v.object.ptr());
  }
}

// jit(launch_bounds=...): a block of more threads is refused on every device, as the driver
// refuses it (CUDA_ERROR_INVALID_VALUE) for a kernel whose PTX says .maxntid.
void Dispatcher::check_launch_bounds(runtime::Dim3 block) const {
  const int most = options_.launch_bounds[0];
  if (most == 0 || block.count() <= uint64_t(most)) return;
  const uint32_t dims[3] = {block.x, block.y, block.z};
  throw runtime::DriverError("launch", 1, "CUDA_ERROR_INVALID_VALUE",
                             "kernel '" + name_ + "' has launch_bounds of at most " +
                                 std::to_string(most) + " threads per block; got block " +
                                 dim_text(dims, 3) + " of " + std::to_string(block.count()) +
                                 " threads");
}

void Dispatcher::launch(runtime::Device& device, runtime::Dim3 grid, runtime::Dim3 block,
                        const std::shared_ptr<runtime::Stream>& stream, unsigned shared_bytes,
                        const py::args& args) {
  release_pending_python_objects();
  runtime::Stream& s = *stream;
  Prepared p = prepare(device, s, args);
  // Whatever happens, the argument list's buffer (not its items) serves the next launch.
  struct Recycle {
    std::vector<ArgValue>& used;
    std::vector<ArgValue>& spare;
    ~Recycle() {
      used.clear();
      if (spare.capacity() < used.capacity()) spare.swap(used);
    }
  } recycle{p.values, spare_values_};
  ProducerSync producers;
  for (const ArgValue& v : p.values)
    if (v.producer_stream) producers.before(device, v.producer_stream, s);

  check_launch_bounds(block);

  std::vector<StagedRange> staged;
  if (p.has_host_arrays && device.kind() == runtime::DeviceKind::Cuda) {
    size_t count = 0;
    for (const ArgValue& v : p.values) count += v.kind == ArgValue::Kind::HostArray;
    staged = stage_host_arrays(device, s, p.values);
    for (const StagedRange& r : staged) p.keep_alive.push_back(r.memory);
    warn_host_copies(name_, count);
  }

  try {
    device.launch(*p.kernel, grid, block, shared_bytes, s, pack_params(p.values, p.spec->params),
                  std::move(p.keep_alive));
  } catch (...) {
    // The staging copies queued above write memory the exception frees: they
    // finish first. A broken stream has nothing left to run.
    if (!staged.empty()) {
      try {
        s.synchronize();
      } catch (...) {
      }
    }
    throw;
  }
  producers.after(s);
  if (!p.writebacks && !p.has_host_arrays) return;
  // The copies back (which wait for the kernel, on a GPU with the GIL held) come after a wait
  // that Ctrl-C can end: the interrupt abandons the grid on the cpu device and the simulated
  // GPU, whose work then ends in moments; a real GPU's kernel runs to its end first. The host
  // arrays are the caller's once this returns, so the wait goes on until the stream is idle
  // (what the abandoned work reports gives way to the KeyboardInterrupt), and nothing is
  // copied back: their contents are undefined.
  {
    py::gil_scoped_release release;
    try {
      runtime::InterruptibleWaits interruptible;
      s.synchronize();
    } catch (const runtime::Interrupted&) {
      try {
        s.synchronize();
      } catch (...) {
      }
      throw;
    }
  }
  if (p.writebacks)
    for (py::handle writeback : *p.writebacks) writeback();  // copies into host memory: they wait
  if (!p.has_host_arrays) return;
  // Host memory is only ours for the duration of the call: copy back and wait.
  for (const StagedRange& r : staged)
    if (r.written) device.copy(r.host, r.memory->device_pointer(), size_t(r.bytes), s);
  {
    py::gil_scoped_release release;
    s.synchronize();
  }
  release_pending_python_objects();
}

double Dispatcher::bare_launch_us(runtime::Device& device, runtime::Stream& stream,
                                  const py::args& args, int count) {
  Prepared p = prepare(device, stream, args);
  if (p.has_host_arrays)
    throw py::type_error("bare_launch_us takes device arrays and scalars only");
  runtime::KernelParams params = pack_params(p.values, p.spec->params);
  py::gil_scoped_release release;
  return runtime::bare_launch_microseconds(device, *p.kernel, {1, 1, 1}, {1, 1, 1}, stream, params,
                                           count);
}

std::vector<std::vector<Type>> Dispatcher::compiled_signatures() const {
  std::vector<std::vector<Type>> out;
  for (const Specialization& s : specializations_) out.push_back(s.arg_types);
  return out;
}

}  // namespace cudajit::python
