// Memory of the cuda device. Pinned and mapped memory are page-locked host
// memory mapped into the device's address space (with unified addressing the
// device sees it at the host address); managed memory is unified memory.
#include "cuda_device.hpp"

namespace cudajit::runtime::cuda {

namespace {

// "cuMemAlloc(1024 bytes) on cuda:0": the call, its size and the device, for the message.
std::string sized_call(const char* call, size_t bytes, const std::string& device) {
  std::string text = call;
  text += '(';
  text += std::to_string(bytes);
  text += " bytes) on ";
  text += device;
  return text;
}

}  // namespace

CudaAllocation::CudaAllocation(CudaDevice& device, size_t bytes, MemoryKind kind)
    : device_(device), size_(bytes), kind_(kind) {
  if (bytes == 0) return;  // the driver refuses 0 bytes; a null pointer, as the cpu device gives
  device_.bind();
  try {
    allocate();
  } catch (...) {
    release();  // the destructor does not run when the constructor throws
    throw;
  }
}

void CudaAllocation::allocate() {
  const DriverApi& api = device_.api();
  switch (kind_) {
    case MemoryKind::Device:
      check(api, api.cuMemAlloc_v2(&address_, size_),
            sized_call("cuMemAlloc", size_, device_.label()).c_str());
      return;
    case MemoryKind::Pinned:
    case MemoryKind::Mapped:
      check(api,
            api.cuMemHostAlloc(&host_, size_, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP),
            sized_call("cuMemHostAlloc", size_, device_.label()).c_str());
      check(api, api.cuMemHostGetDevicePointer_v2(&address_, host_, 0),
            "cuMemHostGetDevicePointer");
      return;
    case MemoryKind::Managed:
      check(api, api.cuMemAllocManaged(&address_, size_, CU_MEM_ATTACH_GLOBAL),
            sized_call("cuMemAllocManaged", size_, device_.label()).c_str());
      host_ = reinterpret_cast<void*>(uintptr_t(address_));
      return;
  }
}

void CudaAllocation::release() noexcept {
  // Failures are ignored: nothing can be done about them in a destructor, and
  // at exit the driver may already be shutting down.
  if (address_ == 0 && host_ == nullptr) return;
  const DriverApi& api = device_.api();
  if (!try_bind_context(api, device_.context())) return;
  if (kind_ == MemoryKind::Pinned || kind_ == MemoryKind::Mapped) {
    if (host_ != nullptr) api.cuMemFreeHost(host_);
  } else if (address_ != 0) {
    api.cuMemFree_v2(address_);
  }
  address_ = 0;
  host_ = nullptr;
}

CudaAllocation::~CudaAllocation() { release(); }

Device& CudaAllocation::device() const { return device_; }

}  // namespace cudajit::runtime::cuda
