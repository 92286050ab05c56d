// Modules (PTX only: parsed, checked against the device and decoded once),
// kernels and their attributes, launches.
#include <array>
#include <cstring>
#include <tuple>

#include "abandon.hpp"
#include "exec/checks.hpp"
#include "export.hpp"
#include "link/ptx_linker.hpp"
#include "profile.hpp"
#include "ptx/module.hpp"

using namespace cudajit::sim;
using namespace cudajit::sim::driver;

namespace {

constexpr int kSharedWithoutOptIn = 48 * 1024;
constexpr int kMaxPtxMajor = 9, kMaxPtxMinor = 0;  // what a CUDA 13 driver JITs

// The lowest PTX ISA version that knows a target (the PTX ISA's release notes: sm_10 came
// with 1.0, sm_20 with 2.0, ... sm_90 with 7.8). Drivers JIT PTX of any older target.
std::pair<int, int> minimum_isa(int sm) {
  static constexpr std::array<std::tuple<int, int, int>, 22> kIntroduced = {{
      {90, 7, 8}, {89, 7, 8}, {87, 7, 4}, {86, 7, 1}, {80, 7, 0}, {75, 6, 3},
      {72, 6, 1}, {70, 6, 0}, {60, 5, 0}, {53, 4, 2}, {52, 4, 1}, {50, 4, 0},
      {37, 4, 1}, {35, 3, 1}, {32, 4, 0}, {30, 3, 0}, {20, 2, 0}, {13, 1, 2},
      {12, 1, 2}, {11, 1, 0}, {10, 1, 0}, {0, 1, 0},
  }};
  for (auto [target, major, minor] : kIntroduced)
    if (sm >= target) return {major, minor};
  return {1, 0};
}

}  // namespace

namespace cudajit::sim::driver {

Kernel* live_kernel(Context* c, CUfunction function) {
  Kernel* k = reinterpret_cast<Kernel*>(function);
  std::lock_guard lock(c->mutex);
  return c->kernels.count(k) ? k : nullptr;
}

static int max_threads(const Function& f) {
  if (f.reqntid[0]) return int(f.reqntid[0] * f.reqntid[1] * f.reqntid[2]);
  if (f.maxntid[0]) return int(f.maxntid[0] * f.maxntid[1] * f.maxntid[2]);
  return 1024;
}

// The occupancy calculator: blocks of `threads` threads with `dynamic_shared` bytes that one
// multiprocessor holds at once, limited by its threads (whole warps), its shared memory and its
// block slots. Registers are not modelled (NUM_REGS counts PTX's virtual registers).
static uint64_t active_blocks_per_multiprocessor(const Function& f, uint64_t threads,
                                                 uint64_t dynamic_shared) {
  const DeviceModel& m = device_model();
  const uint64_t warps = (threads + 31) / 32;
  uint64_t by_threads = uint64_t(m.threads_per_multiprocessor) / (warps * 32);
  uint64_t per_block_shared = f.static_shared_bytes + dynamic_shared;
  uint64_t by_shared = per_block_shared ? uint64_t(m.shared_per_multiprocessor) / per_block_shared
                                        : uint64_t(m.blocks_per_multiprocessor);
  return std::min<uint64_t>({by_threads, by_shared, uint64_t(m.blocks_per_multiprocessor)});
}

static CUresult fault_code(Fault fault) {
  switch (fault) {
    case Fault::IllegalAddress:
      return CUDA_ERROR_ILLEGAL_ADDRESS;
    case Fault::MisalignedAddress:
      return CUDA_ERROR_MISALIGNED_ADDRESS;
    case Fault::IllegalInstruction:
      return CUDA_ERROR_ILLEGAL_INSTRUCTION;
    case Fault::HardwareStack:
      return CUDA_ERROR_HARDWARE_STACK_ERROR;
    case Fault::Trap:
    case Fault::BarrierDeadlock:
    case Fault::InvalidParameter:
      return CUDA_ERROR_LAUNCH_FAILED;
  }
  return CUDA_ERROR_LAUNCH_FAILED;
}

CUresult load_module(Context* c, const void* image, JitLog log, Module*& loaded) {
  return guarded([&] {
    const char* text = static_cast<const char*>(image);
    if (std::memcmp(text,
                    "\x7f"
                    "ELF",
                    4) == 0) {
      log.error("the simulated GPU runs PTX only; this image is a cubin (ELF)");
      return CUDA_ERROR_INVALID_IMAGE;
    }
    if (link::image_kind(image, 16) == link::ImageKind::Fatbin) {
      log.error(
          "the simulated GPU runs PTX only; this image is a fatbin (link its PTX with "
          "cuLink* or nvJitLink first)");
      return CUDA_ERROR_INVALID_IMAGE;
    }
    auto module = std::make_unique<Module>();
    const DeviceModel& device = device_model();
    try {
      ptx::Module parsed = ptx::parse(text);
      if (parsed.version_major > kMaxPtxMajor ||
          (parsed.version_major == kMaxPtxMajor && parsed.version_minor > kMaxPtxMinor)) {
        log.error("PTX .version " + std::to_string(parsed.version_major) + "." +
                  std::to_string(parsed.version_minor) + " is newer than this driver supports (" +
                  std::to_string(kMaxPtxMajor) + "." + std::to_string(kMaxPtxMinor) + ")");
        return CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
      }
      // CU_JIT_MAX_REGISTERS bounds every kernel's registers, as .maxnreg does.
      if (log.max_registers > 0)
        for (auto& f : parsed.functions)
          if (f.maxnreg == 0 || f.maxnreg > log.max_registers) f.maxnreg = log.max_registers;
      module->program = decode(parsed);
      instrument(*module->program, checks_from_environment());  // CUDAJIT_SIM_CHECK
      int sm = module->program->sm;
      if (sm > device.sm()) {
        log.error("ptx JIT: SM version specified by .target (" + parsed.target +
                  ") is higher than the device's (sm_" + std::to_string(device.sm()) + ")");
        return CUDA_ERROR_INVALID_PTX;
      }
      auto [major, minor] = minimum_isa(sm);
      if (parsed.version_major < major ||
          (parsed.version_major == major && parsed.version_minor < minor)) {
        log.error("PTX .version " + std::to_string(parsed.version_major) + "." +
                  std::to_string(parsed.version_minor) + " does not support .target " +
                  parsed.target + " (needs " + std::to_string(major) + "." + std::to_string(minor) +
                  ")");
        return CUDA_ERROR_INVALID_PTX;
      }
    } catch (const ptx::PtxError& e) {
      log.error(std::string("ptx JIT: ") + e.what());
      return CUDA_ERROR_INVALID_PTX;
    }
    Module* m = module.release();
    for (const auto& g : m->program->globals)
      c->memory.add(uint64_t(uintptr_t(g->storage.data())), g->storage.size(),
                    "module variable '" + g->name + "'");
    for (const auto& f : m->program->functions) {
      if (!f->is_entry) continue;
      auto kernel = std::make_unique<Kernel>();
      kernel->module = m;
      kernel->function = f.get();
      kernel->max_dynamic_shared = int(
          kSharedWithoutOptIn - std::min<uint64_t>(kSharedWithoutOptIn, f->static_shared_bytes));
      m->kernels[f->name] = std::move(kernel);
    }
    std::lock_guard lock(c->mutex);
    c->modules.insert(m);
    for (auto& [name, k] : m->kernels) c->kernels.insert(k.get());
    loaded = m;
    log.info("");
    return CUDA_SUCCESS;
  });
}

void unload_module(Context* c, Module* m) {
  c->synchronize();  // no launch of it may still be queued
  std::lock_guard lock(c->mutex);
  c->modules.erase(m);
  for (auto& [name, k] : m->kernels) c->kernels.erase(k.get());
  for (const auto& g : m->program->globals)
    c->memory.remove(uint64_t(uintptr_t(g->storage.data())));
  delete m;
}

}  // namespace cudajit::sim::driver

CUDAJIT_SIM_API cuModuleLoadDataEx(CUmodule* out, const void* image, unsigned count,
                                   CUjit_option* options, void** values) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!out || !image) return CUDA_ERROR_INVALID_VALUE;
  JitLog log;
  if (CUresult r = read_jit_options(count, options, values, log)) return r;
  Module* m = nullptr;
  CUresult r = load_module(c, image, log, m);
  if (r == CUDA_SUCCESS) *out = reinterpret_cast<CUmodule>(m);
  return r;
}

CUDAJIT_SIM_API cuModuleLoadData(CUmodule* out, const void* image) {
  return cuModuleLoadDataEx(out, image, 0, nullptr, nullptr);
}

CUDAJIT_SIM_API cuModuleUnload(CUmodule handle) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  Module* m = reinterpret_cast<Module*>(handle);
  {
    std::lock_guard lock(c->mutex);
    if (!c->modules.count(m)) return CUDA_ERROR_INVALID_HANDLE;
  }
  return guarded([&] {
    unload_module(c, m);
    return CUDA_SUCCESS;
  });
}

CUDAJIT_SIM_API cuModuleGetFunction(CUfunction* out, CUmodule handle, const char* name) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!out || !name) return CUDA_ERROR_INVALID_VALUE;
  Module* m = reinterpret_cast<Module*>(handle);
  std::lock_guard lock(c->mutex);
  if (!c->modules.count(m)) return CUDA_ERROR_INVALID_HANDLE;
  auto it = m->kernels.find(name);
  if (it == m->kernels.end()) return CUDA_ERROR_NOT_FOUND;
  *out = reinterpret_cast<CUfunction>(it->second.get());
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuModuleGetGlobal_v2(CUdeviceptr* address, size_t* bytes, CUmodule handle,
                                     const char* name) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!name) return CUDA_ERROR_INVALID_VALUE;
  Module* m = reinterpret_cast<Module*>(handle);
  std::lock_guard lock(c->mutex);
  if (!c->modules.count(m)) return CUDA_ERROR_INVALID_HANDLE;
  for (const auto& g : m->program->globals) {
    if (g->name != name) continue;
    if (address) *address = CUdeviceptr(uintptr_t(g->storage.data()));
    if (bytes) *bytes = g->storage.size();
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_NOT_FOUND;
}

CUDAJIT_SIM_API cuFuncGetAttribute(int* value, CUfunction_attribute attribute,
                                   CUfunction function) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  Kernel* k = live_kernel(c, function);
  if (!k) return CUDA_ERROR_INVALID_HANDLE;
  const Function& f = *k->function;
  const Program& p = *k->module->program;
  switch (attribute) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      *value = max_threads(f);
      break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
      *value = int(f.static_shared_bytes);
      break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: {  // the module's .const variables
      uint64_t bytes = 0;
      for (const auto& g : p.globals)
        if (g->space == ptx::Space::Const) bytes += g->storage.size();
      *value = int(bytes);
      break;
    }
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
      *value = int(f.max_local_bytes);
      break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS:  // PTX's virtual registers, within .maxnreg and 255
      *value = int(std::min<uint32_t>(f.maxnreg > 0 ? std::min(f.maxnreg, 255) : 255,
                                      f.register_count));
      break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
      *value = p.version_major * 10 + p.version_minor;
      break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
      *value = device_model().sm();
      break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
      *value = k->max_dynamic_shared;
      break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
      *value = k->shared_carveout;
      break;
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA:
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
      *value = 0;  // no clusters, no L1 caching choice
      break;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuFuncSetAttribute(CUfunction function, CUfunction_attribute attribute, int value) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  Kernel* k = live_kernel(c, function);
  if (!k) return CUDA_ERROR_INVALID_HANDLE;
  if (attribute == CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT) {
    // A percentage of the shared/L1 split, or -1 for no preference: a hint, remembered.
    if (value < -1 || value > 100) return CUDA_ERROR_INVALID_VALUE;
    k->shared_carveout = value;
    return CUDA_SUCCESS;
  }
  if (attribute != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) return CUDA_ERROR_INVALID_VALUE;
  int64_t limit =
      int64_t(device_model().shared_per_block_optin) - int64_t(k->function->static_shared_bytes);
  if (value < 0 || value > limit) return CUDA_ERROR_INVALID_VALUE;
  k->max_dynamic_shared = value;
  return CUDA_SUCCESS;
}

namespace cudajit::sim::driver {

CUresult launch(CUfunction function, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                unsigned by, unsigned bz, unsigned shared, CUstream handle, void** params,
                void** extra, bool cooperative) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  Kernel* k = live_kernel(c, function);
  if (!k) return CUDA_ERROR_INVALID_HANDLE;
  Stream* stream = c->stream(handle);
  if (!stream) return CUDA_ERROR_INVALID_HANDLE;
  const Function& f = *k->function;
  if (!gx || !gy || !gz || !bx || !by || !bz) return CUDA_ERROR_INVALID_VALUE;
  if (gx > 2147483647u || gy > 65535 || gz > 65535) return CUDA_ERROR_INVALID_VALUE;
  if (bx > 1024 || by > 1024 || bz > 64) return CUDA_ERROR_INVALID_VALUE;
  uint64_t threads = uint64_t(bx) * by * bz;
  if (threads > 1024) return CUDA_ERROR_INVALID_VALUE;
  if (threads > uint64_t(max_threads(f))) return CUDA_ERROR_INVALID_VALUE;
  if (f.reqntid[0] && (bx != f.reqntid[0] || by != f.reqntid[1] || bz != f.reqntid[2]))
    return CUDA_ERROR_INVALID_VALUE;
  if (f.static_shared_bytes + shared > uint64_t(kSharedWithoutOptIn) &&
      int64_t(shared) > k->max_dynamic_shared)
    return CUDA_ERROR_INVALID_VALUE;
  // Every block of a cooperative grid must be resident at once: at most what the occupancy
  // calculator gives per multiprocessor, times their count.
  const uint64_t resident = active_blocks_per_multiprocessor(f, threads, shared) *
                            uint64_t(device_model().multiprocessors);
  if (cooperative && uint64_t(gx) * gy * gz > resident)
    return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
  return guarded([&] {
    Launch launch;
    launch.program = k->module->program.get();
    launch.kernel = &f;
    launch.memory = &c->memory;
    launch.heap = &c->heap;
    launch.grid = {gx, gy, gz};
    launch.block = {bx, by, bz};
    launch.dynamic_shared_bytes = shared;
    launch.sm_count = device_model().multiprocessors;
    launch.cooperative = cooperative;
    launch.profile = driver::profiling();
    try {
      if (params && extra) return CUDA_ERROR_INVALID_VALUE;
      if (extra) {
        // CU_LAUNCH_PARAM_BUFFER_POINTER, ptr, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, END
        void* buffer = nullptr;
        size_t* size = nullptr;
        for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
          if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
            buffer = extra[i + 1];
          else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
            size = static_cast<size_t*>(extra[i + 1]);
          else
            return CUDA_ERROR_INVALID_VALUE;
        }
        if (!buffer || !size || *size != f.kernel_param_bytes) return CUDA_ERROR_INVALID_VALUE;
        launch.params.assign(static_cast<uint8_t*>(buffer),
                             static_cast<uint8_t*>(buffer) + f.kernel_param_bytes);
      } else {
        // As the driver does, exactly the entry's parameter count is read from kernelParams:
        // callers (ctypes programs, CuPy) write no NULL after them.
        launch.params = pack_params(f, params);
      }
    } catch (const ExecutionFault& e) {
      {  // readable through cudajitSimLastFault; a refused launch does not poison the context
        std::lock_guard lock(c->fault_mutex);
        if (c->sticky.load() == CUDA_SUCCESS) c->fault_message = e.what();
      }
      std::fprintf(stderr, "cudajit simulated GPU: cuLaunchKernel: %s\n", e.what());
      return CUDA_ERROR_INVALID_VALUE;
    }
    bool execute = driver::driver().execute;
    unsigned host_threads = driver::driver().threads;
    if (!execute) {  // checked, ordered, not run
      stream->enqueue(nullptr, c->implicit_waits(stream), true);
      return CUDA_SUCCESS;
    }
    stream->enqueue(
        [c, launch = std::move(launch), host_threads, queued = abandon_epoch()]() mutable {
          if (c->sticky.load() != CUDA_SUCCESS) return;
          RunningGrid running(queued);  // cudajitSimAbandonGrids stops it: it just ends
          if (running.abandoned()) return;
          launch.abort = running.abort();
          try {
            auto start = std::chrono::steady_clock::now();
            LaunchStats stats = cudajit::sim::execute(launch, host_threads);
            Driver& d = driver::driver();
            d.thread_instructions += stats.thread_instructions;
            record_launch_profile(launch.kernel->name, stats.profile);
            d.launches += 1;
            d.execution_ns += uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                           std::chrono::steady_clock::now() - start)
                                           .count());
          } catch (const ExecutionFault& e) {
            if (!running.abandoned()) c->fault(fault_code(e.fault()), e.what());
          } catch (const std::exception& e) {
            if (!running.abandoned()) c->fault(CUDA_ERROR_LAUNCH_FAILED, e.what());
          }
        },
        c->implicit_waits(stream));
    return CUDA_SUCCESS;
  });
}

}  // namespace cudajit::sim::driver

CUDAJIT_SIM_API cuLaunchKernel(CUfunction function, unsigned gx, unsigned gy, unsigned gz,
                               unsigned bx, unsigned by, unsigned bz, unsigned shared,
                               CUstream stream, void** params, void** extra) {
  return launch(function, gx, gy, gz, bx, by, bz, shared, stream, params, extra, false);
}

CUDAJIT_SIM_API cuLaunchCooperativeKernel(CUfunction function, unsigned gx, unsigned gy,
                                          unsigned gz, unsigned bx, unsigned by, unsigned bz,
                                          unsigned shared, CUstream stream, void** params) {
  return launch(function, gx, gy, gz, bx, by, bz, shared, stream, params, nullptr, true);
}

CUDAJIT_SIM_API cuOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, CUfunction function,
                                                            int block_size, size_t shared) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!blocks || block_size <= 0) return CUDA_ERROR_INVALID_VALUE;
  Kernel* k = live_kernel(c, function);
  if (!k) return CUDA_ERROR_INVALID_HANDLE;
  *blocks = int(active_blocks_per_multiprocessor(*k->function, uint64_t(block_size), shared));
  return CUDA_SUCCESS;
}

// Not in the real driver: what the simulator executed so far (thread-instructions, launches,
// seconds spent executing), for benchmarks.
extern "C" __attribute__((visibility("default"))) void cudajitSimStatistics(
    unsigned long long* thread_instructions, unsigned long long* launches, double* seconds) {
  Driver& d = driver::driver();
  if (thread_instructions) *thread_instructions = d.thread_instructions.load();
  if (launches) *launches = d.launches.load();
  if (seconds) *seconds = double(d.execution_ns.load()) * 1e-9;
}
