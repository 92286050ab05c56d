// The devices of this process: the cpu device, and the GPUs once the driver
// has been loaded (at the first question about them, never at import).
#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "cpu_device.hpp"
#include "cuda_device.hpp"
#include "cudajit/runtime/fork.hpp"

namespace cudajit::runtime {

namespace {

// What the driver said at initialisation; `reason` is empty when usable.
struct CudaState {
  const cuda::DriverApi* api = nullptr;
  std::string reason;
  int count = 0;
  std::mutex mutex;                                        // guards `devices`
  std::vector<std::unique_ptr<cuda::CudaDevice>> devices;  // by ordinal, made at first use
};

// CUDAJIT_DISABLE_CUDA, else Numba's NUMBA_DISABLE_CUDA, set to anything but 0: the
// sentence saying so (the driver is then never loaded), else "".
std::string disabled_by_environment() {
  for (const char* name : {"CUDAJIT_DISABLE_CUDA", "NUMBA_DISABLE_CUDA"}) {
    const char* value = std::getenv(name);
    if (value == nullptr) continue;
    std::string text = value;
    if (text.empty() || text == "0") return "";
    return "CUDA is disabled due to setting " + std::string(name) + "=" + text;
  }
  return "";
}

void initialise(CudaState& state) {
  state.reason = disabled_by_environment();
  if (!state.reason.empty()) return;
  note_devices_started();  // cuInit's state does not survive a fork
  state.api = cuda::load_driver(&state.reason);
  if (state.api == nullptr) return;
  const cuda::DriverApi& api = *state.api;
  if (CUresult result = api.cuInit(0); result != CUDA_SUCCESS) {
    state.reason =
        (result == CUDA_ERROR_NO_DEVICE ? "no CUDA GPU: cuInit failed: " : "cuInit failed: ") +
        cuda::error_name(api, result) + " (" + cuda::error_text(api, result) + ")";
    return;
  }
  if (CUresult result = api.cuDeviceGetCount(&state.count); result != CUDA_SUCCESS) {
    state.reason = "cuDeviceGetCount failed: " + cuda::error_name(api, result) + " (" +
                   cuda::error_text(api, result) + ")";
    return;
  }
  if (state.count == 0) state.reason = "no CUDA GPU (the driver sees no device)";
}

CudaState& cuda_state() {
  // Never destroyed: the devices must not release their contexts while the
  // driver tears itself down at exit (the function-local static pointer idiom).
  static CudaState* state = [] {
    auto* fresh = new CudaState;
    try {
      initialise(*fresh);
    } catch (const std::exception& error) {  // std::bad_alloc, at worst
      fresh->reason = std::string("CUDA initialisation failed: ") + error.what();
    }
    return fresh;
  }();
  return *state;
}

}  // namespace

Device& cpu_device() {
  check_not_forked();
  // Never destroyed: stream threads may still run while static destructors do.
  static CpuDevice* device = [] {
    note_devices_started();
    return new CpuDevice;
  }();
  return *device;
}

bool cuda_available() {
  try {
    return cuda_state().reason.empty();
  } catch (...) {  // only std::bad_alloc can come here; the promise is never to throw
    return false;
  }
}

std::string cuda_unavailable_reason() { return cuda_state().reason; }

bool cuda_simulated() {
  CudaState& state = cuda_state();
  return state.api != nullptr && state.api->simulated();
}

std::string cuda_driver_library() { return cuda::driver_library(); }

int cuda_device_count() { return cuda_available() ? cuda_state().count : 0; }

Device& cuda_device(int ordinal) {
  check_not_forked();
  CudaState& state = cuda_state();
  if (!state.reason.empty())
    throw CudaUnavailable("the cuda device is unavailable: " + state.reason);
  if (ordinal < 0 || ordinal >= state.count)
    throw std::out_of_range("no cuda device " + std::to_string(ordinal) + "; this machine has " +
                            std::to_string(state.count) + " (ordinals 0 to " +
                            std::to_string(state.count - 1) + ")");
  std::lock_guard lock(state.mutex);
  if (state.devices.empty()) state.devices.resize(size_t(state.count));
  auto& device = state.devices[size_t(ordinal)];
  if (!device) device = std::make_unique<cuda::CudaDevice>(*state.api, ordinal);
  return *device;
}

}  // namespace cudajit::runtime
