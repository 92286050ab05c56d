// Memory: device, managed, pinned and registered host memory (all host memory
// here, every range entered in the context's GlobalMemory so kernels may touch
// it), pointer attributes, stream-ordered copies and memsets.
#include <cstdlib>
#include <cstring>
#include <optional>

#include "api_types.hpp"
#include "exec/checks.hpp"
#include "export.hpp"

using namespace cudajit::sim::driver;

namespace {

constexpr uint64_t kAlignment = 256;  // cuMemAlloc's guarantee

const char* kind_name(Allocation::Kind kind) {
  switch (kind) {
    case Allocation::Kind::Device:
      return "a device allocation";
    case Allocation::Kind::Managed:
      return "a managed allocation";
    case Allocation::Kind::HostAllocated:
      return "a pinned host allocation";
    case Allocation::Kind::HostRegistered:
      return "registered host memory";
    case Allocation::Kind::ModuleVariable:
      return "a module variable";
  }
  return "memory";
}

CUresult allocate(Context* c, void** out, size_t bytes, Allocation::Kind kind) {
  if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  if (bytes > device_model().total_memory) return CUDA_ERROR_OUT_OF_MEMORY;
  size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void* p = std::aligned_alloc(kAlignment, rounded);
  if (!p) return CUDA_ERROR_OUT_OF_MEMORY;
  uint64_t address = uint64_t(uintptr_t(p));
  {
    std::lock_guard lock(c->mutex);
    c->allocations[address] = {bytes, kind};
  }
  // initcheck: device memory starts unwritten (managed and host memory the host may write
  // without the driver seeing it, so they count as written).
  bool track = kind == Allocation::Kind::Device &&
               (cudajit::sim::checks_from_environment() & cudajit::sim::kInitCheck);
  c->memory.add(address, bytes, kind_name(kind), track);
  *out = p;
  return CUDA_SUCCESS;
}

// Frees an allocation of one of `kinds`; waits for the device first, as cuMemFree may.
CUresult release(Context* c, uint64_t address, std::initializer_list<Allocation::Kind> kinds) {
  c->synchronize();
  {
    std::lock_guard lock(c->mutex);
    auto it = c->allocations.find(address);
    if (it == c->allocations.end()) return CUDA_ERROR_INVALID_VALUE;
    bool ok = false;
    for (auto k : kinds) ok = ok || it->second.kind == k;
    if (!ok) return CUDA_ERROR_INVALID_VALUE;
    c->allocations.erase(it);
  }
  c->memory.remove(address);
  std::free(reinterpret_cast<void*>(uintptr_t(address)));
  return CUDA_SUCCESS;
}

// An allocation, copied out of the context's map (another thread may free it meanwhile).
struct Found {
  uint64_t begin;
  Allocation allocation;
  bool holds(uint64_t address, uint64_t bytes) const {
    return bytes <= allocation.size - (address - begin);
  }
};

// The allocation holding `address`, if any.
std::optional<Found> find(Context* c, uint64_t address) {
  std::lock_guard lock(c->mutex);
  auto it = c->allocations.upper_bound(address);
  if (it == c->allocations.begin()) return std::nullopt;
  --it;
  if (address - it->first >= it->second.size) return std::nullopt;
  return Found{it->first, it->second};
}

bool overlaps(Context* c, uint64_t address, uint64_t bytes) {
  std::lock_guard lock(c->mutex);
  auto it = c->allocations.lower_bound(address + bytes);
  if (it == c->allocations.begin()) return false;
  --it;
  return it->first + it->second.size > address;
}

}  // namespace

CUDAJIT_SIM_API cuMemAlloc_v2(CUdeviceptr* out, size_t bytes) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  return guarded([&] {
    void* p = nullptr;
    CUresult r = allocate(c, &p, bytes, Allocation::Kind::Device);
    if (r == CUDA_SUCCESS) *out = CUdeviceptr(uintptr_t(p));
    return r;
  });
}

CUDAJIT_SIM_API cuMemAllocManaged(CUdeviceptr* out, size_t bytes, unsigned flags) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!out || (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST))
    return CUDA_ERROR_INVALID_VALUE;
  return guarded([&] {
    void* p = nullptr;
    CUresult r = allocate(c, &p, bytes, Allocation::Kind::Managed);
    if (r == CUDA_SUCCESS) *out = CUdeviceptr(uintptr_t(p));
    return r;
  });
}

CUDAJIT_SIM_API cuMemFree_v2(CUdeviceptr pointer) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (pointer == 0) return CUDA_SUCCESS;
  return guarded([&] {
    return release(c, pointer, {Allocation::Kind::Device, Allocation::Kind::Managed});
  });
}

CUDAJIT_SIM_API cuMemHostAlloc(void** out, size_t bytes, unsigned flags) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!out || (flags & ~unsigned(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP |
                                 CU_MEMHOSTALLOC_WRITECOMBINED)))
    return CUDA_ERROR_INVALID_VALUE;
  return guarded([&] { return allocate(c, out, bytes, Allocation::Kind::HostAllocated); });
}

CUDAJIT_SIM_API cuMemAllocHost_v2(void** out, size_t bytes) {
  return cuMemHostAlloc(out, bytes, 0);
}

CUDAJIT_SIM_API cuMemFreeHost(void* pointer) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  return guarded(
      [&] { return release(c, uint64_t(uintptr_t(pointer)), {Allocation::Kind::HostAllocated}); });
}

CUDAJIT_SIM_API cuMemHostGetDevicePointer_v2(CUdeviceptr* out, void* host, unsigned flags) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!out || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  auto a = find(c, uint64_t(uintptr_t(host)));
  if (!a || (a->allocation.kind != Allocation::Kind::HostAllocated &&
             a->allocation.kind != Allocation::Kind::HostRegistered))
    return CUDA_ERROR_INVALID_VALUE;
  *out = CUdeviceptr(uintptr_t(host));  // unified addressing: the same address
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuMemHostRegister_v2(void* pointer, size_t bytes, unsigned flags) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!pointer || bytes == 0 ||
      (flags & ~unsigned(CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP)))
    return CUDA_ERROR_INVALID_VALUE;
  return guarded([&] {
    uint64_t address = uint64_t(uintptr_t(pointer));
    if (overlaps(c, address, bytes)) return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    {
      std::lock_guard lock(c->mutex);
      c->allocations[address] = {bytes, Allocation::Kind::HostRegistered};
    }
    c->memory.add(address, bytes, kind_name(Allocation::Kind::HostRegistered));
    return CUDA_SUCCESS;
  });
}

CUDAJIT_SIM_API cuMemHostUnregister(void* pointer) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  return guarded([&] {
    uint64_t address = uint64_t(uintptr_t(pointer));
    c->synchronize();
    {
      std::lock_guard lock(c->mutex);
      auto it = c->allocations.find(address);
      if (it == c->allocations.end() || it->second.kind != Allocation::Kind::HostRegistered)
        return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
      c->allocations.erase(it);
    }
    c->memory.remove(address);
    return CUDA_SUCCESS;
  });
}

CUDAJIT_SIM_API cuMemGetInfo_v2(size_t* free, size_t* total) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!free || !total) return CUDA_ERROR_INVALID_VALUE;
  uint64_t used = 0;
  {
    std::lock_guard lock(c->mutex);
    for (const auto& [address, a] : c->allocations)
      if (a.kind == Allocation::Kind::Device || a.kind == Allocation::Kind::Managed) used += a.size;
  }
  *total = device_model().total_memory;
  *free = used > *total ? 0 : *total - used;
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuPointerGetAttribute(void* data, CUpointer_attribute attribute,
                                      CUdeviceptr pointer) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!data) return CUDA_ERROR_INVALID_VALUE;
  auto a = find(c, pointer);
  if (!a) return CUDA_ERROR_INVALID_VALUE;  // memory this driver does not know
  bool host = a->allocation.kind == Allocation::Kind::HostAllocated ||
              a->allocation.kind == Allocation::Kind::HostRegistered;
  switch (attribute) {
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
      *static_cast<int*>(data) = 0;
      break;
    case CU_POINTER_ATTRIBUTE_CONTEXT:
      *static_cast<CUcontext*>(data) = reinterpret_cast<CUcontext>(c);
      break;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
      *static_cast<unsigned*>(data) = host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
      break;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
      *static_cast<CUdeviceptr*>(data) = pointer;
      break;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
      if (!host && a->allocation.kind != Allocation::Kind::Managed) return CUDA_ERROR_INVALID_VALUE;
      *static_cast<void**>(data) = reinterpret_cast<void*>(uintptr_t(pointer));
      break;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
      *static_cast<int*>(data) = a->allocation.kind == Allocation::Kind::Managed;
      break;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
      *static_cast<CUdeviceptr*>(data) = a->begin;
      break;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
      *static_cast<size_t*>(data) = a->allocation.size;
      break;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream handle) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  Stream* stream = c->stream(handle);
  if (!stream) return CUDA_ERROR_INVALID_HANDLE;
  if (bytes == 0) return CUDA_SUCCESS;
  if (!dst || !src) return CUDA_ERROR_INVALID_VALUE;
  return guarded([&] {
    // Memory the driver knows must hold the whole copy; other addresses are pageable host
    // memory (unified addressing), where the real driver stages: a pageable source is read
    // before the call returns, and a copy into pageable memory is complete when it returns.
    // Module variables and device-heap blocks are device memory too, though no allocation
    // (numba-cuda reads its exception flag with cuMemcpyDtoH right after the launch).
    auto to = find(c, dst);
    auto from = find(c, src);
    if ((to && !to->holds(dst, bytes)) || (from && !from->holds(src, bytes)))
      return CUDA_ERROR_INVALID_VALUE;
    const bool device_to = to || c->memory.find(dst, bytes).end != 0;
    const bool device_from = from || c->memory.find(src, bytes).end != 0;
    std::shared_ptr<std::vector<uint8_t>> staged;
    const void* source = reinterpret_cast<const void*>(uintptr_t(src));
    if (!device_from) {
      staged = std::make_shared<std::vector<uint8_t>>(static_cast<const uint8_t*>(source),
                                                      static_cast<const uint8_t*>(source) + bytes);
      source = staged->data();
    }
    void* target = reinterpret_cast<void*>(uintptr_t(dst));
    Point done = stream->enqueue(
        [c, target, source, bytes, staged] {
          if (c->sticky.load() != CUDA_SUCCESS) return;
          std::memmove(target, source, bytes);
          c->memory.mark_written(uint64_t(uintptr_t(target)), bytes);  // initcheck
        },
        c->implicit_waits(stream));
    if (!device_to) done.wait();
    return CUDA_SUCCESS;
  });
}

CUDAJIT_SIM_API cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  CUresult r = cuMemcpyAsync(dst, src, bytes, CU_STREAM_LEGACY);
  return r != CUDA_SUCCESS ? r : cuCtxSynchronize();
}

namespace {

// Fills `count` elements of `size` bytes (1, 2 or 4) with `value`, in stream order.
CUresult memset_async(CUdeviceptr dst, uint32_t value, size_t size, size_t count, CUstream handle) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  Stream* stream = c->stream(handle);
  if (!stream) return CUDA_ERROR_INVALID_HANDLE;
  if (count == 0) return CUDA_SUCCESS;
  if (dst % size != 0) return CUDA_ERROR_INVALID_VALUE;
  // An allocation, or a module variable (cuModuleGetGlobal's address: numba-cuda clears its
  // exception flag so), must hold the whole range.
  auto target_allocation = find(c, dst);
  bool held = target_allocation ? target_allocation->holds(dst, count * size)
                                : c->memory.find(dst, count * size).end != 0;
  if (!held) return CUDA_ERROR_INVALID_VALUE;
  return guarded([&] {
    auto* target = reinterpret_cast<uint8_t*>(uintptr_t(dst));
    stream->enqueue(
        [c, target, value, size, count] {
          if (c->sticky.load() != CUDA_SUCCESS) return;
          c->memory.mark_written(uint64_t(uintptr_t(target)), size * count);  // initcheck
          if (size == 1) return void(std::memset(target, int(value), count));
          for (size_t i = 0; i < count; ++i) std::memcpy(target + i * size, &value, size);
        },
        c->implicit_waits(stream));
    return CUDA_SUCCESS;
  });
}

CUresult memset_sync(CUdeviceptr dst, uint32_t value, size_t size, size_t count) {
  CUresult r = memset_async(dst, value, size, count, CU_STREAM_LEGACY);
  return r != CUDA_SUCCESS ? r : cuCtxSynchronize();
}

}  // namespace

CUDAJIT_SIM_API cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count,
                                CUstream stream) {
  return memset_async(dst, value, 1, count, stream);
}
CUDAJIT_SIM_API cuMemsetD16Async(CUdeviceptr dst, unsigned short value, size_t count,
                                 CUstream stream) {
  return memset_async(dst, value, 2, count, stream);
}
CUDAJIT_SIM_API cuMemsetD32Async(CUdeviceptr dst, unsigned value, size_t count, CUstream stream) {
  return memset_async(dst, value, 4, count, stream);
}
CUDAJIT_SIM_API cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t count) {
  return memset_sync(dst, value, 1, count);
}
CUDAJIT_SIM_API cuMemsetD16_v2(CUdeviceptr dst, unsigned short value, size_t count) {
  return memset_sync(dst, value, 2, count);
}
CUDAJIT_SIM_API cuMemsetD32_v2(CUdeviceptr dst, unsigned value, size_t count) {
  return memset_sync(dst, value, 4, count);
}

// The typed copies: with unified addressing each is cuMemcpy(Async) of the same addresses.
CUDAJIT_SIM_API cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t bytes) {
  return cuMemcpy(dst, CUdeviceptr(uintptr_t(src)), bytes);
}
CUDAJIT_SIM_API cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t bytes) {
  return cuMemcpy(CUdeviceptr(uintptr_t(dst)), src, bytes);
}
CUDAJIT_SIM_API cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  return cuMemcpy(dst, src, bytes);
}
CUDAJIT_SIM_API cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t bytes,
                                     CUstream stream) {
  return cuMemcpyAsync(dst, CUdeviceptr(uintptr_t(src)), bytes, stream);
}
CUDAJIT_SIM_API cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t bytes, CUstream stream) {
  return cuMemcpyAsync(CUdeviceptr(uintptr_t(dst)), src, bytes, stream);
}
CUDAJIT_SIM_API cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                                     CUstream stream) {
  return cuMemcpyAsync(dst, src, bytes, stream);
}

CUDAJIT_SIM_API cuMemGetAddressRange_v2(CUdeviceptr* base, size_t* size, CUdeviceptr pointer) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  auto a = find(c, pointer);  // mapped host memory has a device address too (unified)
  if (!a) return CUDA_ERROR_NOT_FOUND;
  if (base) *base = a->begin;
  if (size) *size = a->allocation.size;
  return CUDA_SUCCESS;
}

CUDAJIT_SIM_API cuPointerGetAttributes(unsigned count, CUpointer_attribute* attributes, void** data,
                                       CUdeviceptr pointer) {
  if (count > 0 && (!attributes || !data)) return CUDA_ERROR_INVALID_VALUE;
  Context* c;
  if (CUresult r = check_context(c)) return r;
  auto a = find(c, pointer);
  for (unsigned i = 0; i < count; ++i) {
    if (!data[i]) continue;
    // Unlike cuPointerGetAttribute, memory the driver does not know is answered, not refused.
    if (!a) {
      switch (int(attributes[i])) {
        case CU_POINTER_ATTRIBUTE_CONTEXT:
          *static_cast<CUcontext*>(data[i]) = nullptr;
          continue;
        case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
          *static_cast<unsigned*>(data[i]) = 0;
          continue;
        case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
          *static_cast<int*>(data[i]) = -2;
          continue;
        case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        case CU_POINTER_ATTRIBUTE_MAPPED:
          *static_cast<int*>(data[i]) = 0;
          continue;
        default:
          std::memset(data[i], 0, sizeof(void*));
          continue;
      }
    }
    switch (int(attributes[i])) {
      case CU_POINTER_ATTRIBUTE_MAPPED:
        *static_cast<int*>(data[i]) = 1;
        continue;
      case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
      case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
        *static_cast<int*>(data[i]) = 0;
        continue;
      case CU_POINTER_ATTRIBUTE_BUFFER_ID:
        *static_cast<unsigned long long*>(data[i]) = a->begin;
        continue;
      case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
        *static_cast<void**>(data[i]) = nullptr;
        continue;
      default:
        if (CUresult r = cuPointerGetAttribute(data[i], attributes[i], pointer)) {
          if (r != CUDA_ERROR_INVALID_VALUE) return r;
          std::memset(data[i], 0, sizeof(void*));
        }
    }
  }
  return CUDA_SUCCESS;
}

// Stream-ordered allocation: memory is taken at once (it is host memory), and freed once
// the stream reaches the free.
CUDAJIT_SIM_API cuMemAllocAsync(CUdeviceptr* out, size_t bytes, CUstream handle) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  if (!c->stream(handle)) return CUDA_ERROR_INVALID_HANDLE;
  return cuMemAlloc_v2(out, bytes);
}

CUDAJIT_SIM_API cuMemFreeAsync(CUdeviceptr pointer, CUstream handle) {
  Context* c;
  if (CUresult r = check_context(c)) return r;
  Stream* stream = c->stream(handle);
  if (!stream) return CUDA_ERROR_INVALID_HANDLE;
  {
    std::lock_guard lock(c->mutex);
    auto it = c->allocations.find(pointer);
    if (it == c->allocations.end() || it->second.kind != Allocation::Kind::Device)
      return CUDA_ERROR_INVALID_VALUE;
  }
  return guarded([&] {
    stream->enqueue(
        [c, pointer] {
          {
            std::lock_guard lock(c->mutex);
            if (c->allocations.erase(pointer) == 0) return;  // freed meanwhile
          }
          c->memory.remove(pointer);
          std::free(reinterpret_cast<void*>(uintptr_t(pointer)));
        },
        c->implicit_waits(stream));
    return CUDA_SUCCESS;
  });
}
