// Linking: the driver's cuLink* and a stand-in for nvJitLink (which cuda.core's Linker, and
// so numba-cuda, prefer to the driver's). Both link PTX into one PTX module
// (link/ptx_linker.hpp): the "cubin" they return is that PTX, which cuModuleLoadData and
// cuLibraryLoadData load. LTO-IR, NVVM IR and cubins without PTX are refused with a message
// that says the simulated GPU links and runs PTX.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <unordered_set>

#include "api_types.hpp"
#include "export.hpp"
#include "link/ptx_linker.hpp"
#include "ptx/module.hpp"

using namespace cudajit::sim;
using namespace cudajit::sim::driver;

namespace {

// One link, either API's.
struct LinkJob {
  link::PtxLinker linker;
  std::string linked, error_log, info_log;
  bool complete = false;
  explicit LinkJob(std::string arch) : linker(std::move(arch)) {}
};

// The fatbins inside a host object or a static library (its .nv_fatbin sections), found by
// their magic number.
void add_embedded_fatbins(LinkJob& job, const std::string& data, const std::string& name) {
  static const char kMagic[4] = {'\x50', '\xed', '\x55', '\xba'};
  size_t found = 0;
  for (size_t at = data.find(std::string(kMagic, 4)); at != std::string::npos;
       at = data.find(std::string(kMagic, 4), at + 4)) {
    uint64_t body = 0;
    if (at + 16 > data.size()) break;
    std::memcpy(&body, data.data() + at + 8, 8);
    size_t header = uint8_t(data[at + 6]) | size_t(uint8_t(data[at + 7])) << 8;
    if (at + header + body > data.size()) continue;
    job.linker.add_image(data.data() + at, header + body, name);
    ++found;
    at += header + body - 4;
  }
  if (found == 0) throw link::LinkError("'" + name + "' holds no device code (no fatbin)");
}

enum class Input { Cubin, Ptx, Fatbin, Object, Library, LtoIr, Nvvm, Any };

void add_input(LinkJob& job, Input kind, const void* data, size_t size, const std::string& name) {
  switch (kind) {
    case Input::Ptx:
      job.linker.add_ptx(std::string(static_cast<const char*>(data), size), name);
      return;
    case Input::Cubin:
    case Input::Fatbin:
    case Input::Any:
      if (kind == Input::Any && link::image_kind(data, size) == link::ImageKind::Unknown)
        return add_embedded_fatbins(job, std::string(static_cast<const char*>(data), size), name);
      job.linker.add_image(data, size, name);
      return;
    case Input::Object:
    case Input::Library:
      add_embedded_fatbins(job, std::string(static_cast<const char*>(data), size), name);
      return;
    case Input::LtoIr:
    case Input::Nvvm:
      throw link::LinkError("'" + name + "' is " + (kind == Input::LtoIr ? "LTO-IR" : "NVVM IR") +
                            ": the simulated GPU links PTX only; compile it to PTX (without "
                            "link-time optimisation) instead");
  }
}

// Links what was added; the result is checked as the driver's JIT would check it.
bool complete(LinkJob& job) {
  try {
    job.linked = job.linker.link();
    decode(ptx::parse(job.linked.c_str()));
    job.complete = true;
    return true;
  } catch (const link::LinkError& e) {
    job.error_log = std::string("error   : ") + e.what() + "\n";
  } catch (const ptx::PtxError& e) {
    job.error_log = std::string("ptxas error   : ") + e.what() + "\n";
    // The linked text the error's line numbers refer to, for whoever investigates.
    if (const char* path = std::getenv("CUDAJIT_SIM_DUMP_FAILED_LINK"); path && *path) {
      std::ofstream(path, std::ios::binary) << job.linked;
      job.error_log += "(the linked PTX is in " + std::string(path) + ")\n";
    }
  }
  return false;
}

// ---- the driver's linker

struct DriverLink {
  LinkJob job;
  JitLog log;
};

std::mutex links_mutex;
std::unordered_set<DriverLink*>& live_links() {
  static auto* links = new std::unordered_set<DriverLink*>();
  return *links;
}

DriverLink* live_link(CUlinkState state) {
  auto* l = reinterpret_cast<DriverLink*>(state);
  std::lock_guard lock(links_mutex);
  return live_links().count(l) ? l : nullptr;
}

Input driver_input(CUjitInputType type) {
  switch (type) {
    case CU_JIT_INPUT_CUBIN:
      return Input::Cubin;
    case CU_JIT_INPUT_PTX:
      return Input::Ptx;
    case CU_JIT_INPUT_FATBINARY:
      return Input::Fatbin;
    case CU_JIT_INPUT_OBJECT:
      return Input::Object;
    case CU_JIT_INPUT_LIBRARY:
      return Input::Library;
    case CU_JIT_INPUT_NVVM:
      return Input::Nvvm;
  }
  throw std::invalid_argument("input type");
}

CUresult add_to_driver_link(DriverLink* l, CUjitInputType type, const void* data, size_t size,
                            const std::string& name) {
  if (int(type) < 0 || int(type) > CU_JIT_INPUT_NVVM) return CUDA_ERROR_INVALID_VALUE;
  try {
    add_input(l->job, driver_input(type), data, size, name);
    return CUDA_SUCCESS;
  } catch (const link::LinkError& e) {
    l->log.error(e.what());
    return type == CU_JIT_INPUT_PTX ? CUDA_ERROR_INVALID_PTX : CUDA_ERROR_INVALID_IMAGE;
  }
}

}  // namespace

CUDAJIT_SIM_API cuLinkCreate_v2(unsigned count, CUjit_option* options, void** values,
                                CUlinkState* out) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  JitLog log;
  if (CUresult r = read_jit_options(count, options, values, log)) return r;
  return guarded([&] {
    std::string arch =
        log.target.empty() ? "sm_" + std::to_string(device_model().sm()) : log.target;
    auto* l = new DriverLink{LinkJob(arch), log};
    l->job.linker.limit_registers(log.max_registers);
    std::lock_guard lock(links_mutex);
    live_links().insert(l);
    *out = reinterpret_cast<CUlinkState>(l);
    return CUDA_SUCCESS;
  });
}

CUDAJIT_SIM_API cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void* data, size_t size,
                                 const char* name, unsigned /*count*/, CUjit_option* /*options*/,
                                 void** /*values*/) {
  DriverLink* l = live_link(state);
  if (!l) return CUDA_ERROR_INVALID_HANDLE;
  if (!data || size == 0) return CUDA_ERROR_INVALID_VALUE;
  return guarded([&] { return add_to_driver_link(l, type, data, size, name ? name : "(data)"); });
}

CUDAJIT_SIM_API cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char* path,
                                 unsigned /*count*/, CUjit_option* /*options*/, void** /*values*/) {
  DriverLink* l = live_link(state);
  if (!l) return CUDA_ERROR_INVALID_HANDLE;
  if (!path) return CUDA_ERROR_INVALID_VALUE;
  return guarded([&] {
    std::optional<std::string> data = read_file(path);
    if (!data) return CUDA_ERROR_FILE_NOT_FOUND;
    return add_to_driver_link(l, type, data->data(), data->size(), path);
  });
}

CUDAJIT_SIM_API cuLinkComplete(CUlinkState state, void** image, size_t* size) {
  DriverLink* l = live_link(state);
  if (!l) return CUDA_ERROR_INVALID_HANDLE;
  if (!image || !size) return CUDA_ERROR_INVALID_VALUE;
  return guarded([&] {
    if (!complete(l->job)) {
      l->log.error(l->job.error_log);
      return CUDA_ERROR_INVALID_IMAGE;
    }
    l->log.info("");
    *image = l->job.linked.data();  // owned by the link state, as the driver's is
    *size = l->job.linked.size() + 1;
    return CUDA_SUCCESS;
  });
}

CUDAJIT_SIM_API cuLinkDestroy(CUlinkState state) {
  DriverLink* l = live_link(state);
  if (!l) return CUDA_ERROR_INVALID_HANDLE;
  {
    std::lock_guard lock(links_mutex);
    live_links().erase(l);
  }
  delete l;
  return CUDA_SUCCESS;
}

// ---- nvJitLink

namespace {

enum nvJitLinkResult : int {
  NVJITLINK_SUCCESS = 0,
  NVJITLINK_ERROR_UNRECOGNIZED_OPTION = 1,
  NVJITLINK_ERROR_MISSING_ARCH = 2,
  NVJITLINK_ERROR_INVALID_INPUT = 3,
  NVJITLINK_ERROR_PTX_COMPILE = 4,
  NVJITLINK_ERROR_INTERNAL = 6,
  NVJITLINK_ERROR_NULL_INPUT = 10,
  NVJITLINK_ERROR_INCORRECT_INPUT_TYPE = 12,
};

// nvJitLinkInputType, in nvJitLink.h's order.
Input jitlink_input(int type) {
  switch (type) {
    case 1:
      return Input::Cubin;
    case 2:
      return Input::Ptx;
    case 3:
      return Input::LtoIr;
    case 4:
      return Input::Fatbin;
    case 5:
      return Input::Object;
    case 6:
      return Input::Library;
    case 10:
      return Input::Any;
  }
  throw link::LinkError("input type " + std::to_string(type) + " is not one nvJitLink knows");
}

struct JitLinkHandle {
  LinkJob job;
};

template <class Body>
int jitlink_guarded(Body&& body) noexcept {
  try {
    return body();
  } catch (...) {
    return NVJITLINK_ERROR_INTERNAL;
  }
}

using Handle = JitLinkHandle*;

int copy_out(const std::string& text, char* out, bool ready) {
  if (!out) return NVJITLINK_ERROR_NULL_INPUT;
  if (!ready) return NVJITLINK_ERROR_INVALID_INPUT;
  std::memcpy(out, text.c_str(), text.size() + 1);
  return NVJITLINK_SUCCESS;
}

}  // namespace

#define CUDAJIT_JITLINK_API extern "C" __attribute__((visibility("default"))) int

// No nvJitLinkVersion: nvJitLink 12.3 added it, and numba-cuda and cuda.core take its absence
// to mean "no link-time optimisation; link with the driver's cuLink*" (numba-cuda's
// _have_nvjitlink, cuda.core's _decide_nvjitlink_or_driver). That is what the simulated GPU
// can do: LTO-IR is NVVM's, and only PTX runs here.

// Options: -arch=sm_NN is required, as nvJitLink requires it; -lto and -ptx are refused or
// honoured as below; optimisation, debug and register options change nothing here.
CUDAJIT_JITLINK_API nvJitLinkCreate(Handle* out, uint32_t count, const char** options) {
  if (!out || (count > 0 && !options)) return NVJITLINK_ERROR_NULL_INPUT;
  return jitlink_guarded([&] {
    std::string arch;
    int registers = 0;
    for (uint32_t i = 0; i < count; ++i) {
      std::string option = options[i] ? options[i] : "";
      if (option.rfind("-arch=", 0) == 0) arch = option.substr(6);
      if (option == "-lto") return int(NVJITLINK_ERROR_UNRECOGNIZED_OPTION);
      if (option.rfind("-maxrregcount=", 0) == 0) registers = std::atoi(option.c_str() + 14);
    }
    if (arch.rfind("sm_", 0) != 0) return int(NVJITLINK_ERROR_MISSING_ARCH);
    arch = "sm_" + std::to_string(std::atoi(arch.c_str() + 3));  // sm_90a -> sm_90
    *out = new JitLinkHandle{LinkJob(arch)};
    (*out)->job.linker.limit_registers(registers);
    return int(NVJITLINK_SUCCESS);
  });
}

CUDAJIT_JITLINK_API nvJitLinkDestroy(Handle* handle) {
  if (!handle || !*handle) return NVJITLINK_ERROR_NULL_INPUT;
  delete *handle;
  *handle = nullptr;
  return NVJITLINK_SUCCESS;
}

CUDAJIT_JITLINK_API nvJitLinkAddData(Handle h, int type, const void* data, size_t size,
                                     const char* name) {
  if (!h || !data) return NVJITLINK_ERROR_NULL_INPUT;
  return jitlink_guarded([&] {
    try {
      add_input(h->job, jitlink_input(type), data, size, name ? name : "(data)");
      return int(NVJITLINK_SUCCESS);
    } catch (const link::LinkError& e) {
      h->job.error_log += std::string("error   : ") + e.what() + "\n";
      return int(NVJITLINK_ERROR_INVALID_INPUT);
    }
  });
}

CUDAJIT_JITLINK_API nvJitLinkAddFile(Handle h, int type, const char* path) {
  if (!h || !path) return NVJITLINK_ERROR_NULL_INPUT;
  return jitlink_guarded([&] {
    try {
      std::optional<std::string> data = read_file(path);
      if (!data) throw link::LinkError(std::string("cannot open '") + path + "'");
      add_input(h->job, jitlink_input(type), data->data(), data->size(), path);
      return int(NVJITLINK_SUCCESS);
    } catch (const link::LinkError& e) {
      h->job.error_log += std::string("error   : ") + e.what() + "\n";
      return int(NVJITLINK_ERROR_INVALID_INPUT);
    }
  });
}

CUDAJIT_JITLINK_API nvJitLinkComplete(Handle h) {
  if (!h) return NVJITLINK_ERROR_NULL_INPUT;
  return jitlink_guarded(
      [&] { return int(complete(h->job) ? NVJITLINK_SUCCESS : NVJITLINK_ERROR_PTX_COMPILE); });
}

// The linked image: PTX, which the simulated GPU's cuModuleLoadData takes where a cubin goes.
CUDAJIT_JITLINK_API nvJitLinkGetLinkedCubinSize(Handle h, size_t* size) {
  if (!h || !size) return NVJITLINK_ERROR_NULL_INPUT;
  if (!h->job.complete) return NVJITLINK_ERROR_INVALID_INPUT;
  *size = h->job.linked.size() + 1;
  return NVJITLINK_SUCCESS;
}
CUDAJIT_JITLINK_API nvJitLinkGetLinkedCubin(Handle h, void* out) {
  if (!h) return NVJITLINK_ERROR_NULL_INPUT;
  return copy_out(h->job.linked, static_cast<char*>(out), h->job.complete);
}
CUDAJIT_JITLINK_API nvJitLinkGetLinkedPtxSize(Handle h, size_t* size) {
  return nvJitLinkGetLinkedCubinSize(h, size);
}
CUDAJIT_JITLINK_API nvJitLinkGetLinkedPtx(Handle h, char* out) {
  if (!h) return NVJITLINK_ERROR_NULL_INPUT;
  return copy_out(h->job.linked, out, h->job.complete);
}

CUDAJIT_JITLINK_API nvJitLinkGetErrorLogSize(Handle h, size_t* size) {
  if (!h || !size) return NVJITLINK_ERROR_NULL_INPUT;
  *size = h->job.error_log.size() + 1;
  return NVJITLINK_SUCCESS;
}
CUDAJIT_JITLINK_API nvJitLinkGetErrorLog(Handle h, char* out) {
  if (!h) return NVJITLINK_ERROR_NULL_INPUT;
  return copy_out(h->job.error_log, out, true);
}
CUDAJIT_JITLINK_API nvJitLinkGetInfoLogSize(Handle h, size_t* size) {
  if (!h || !size) return NVJITLINK_ERROR_NULL_INPUT;
  *size = h->job.info_log.size() + 1;
  return NVJITLINK_SUCCESS;
}
CUDAJIT_JITLINK_API nvJitLinkGetInfoLog(Handle h, char* out) {
  if (!h) return NVJITLINK_ERROR_NULL_INPUT;
  return copy_out(h->job.info_log, out, true);
}
