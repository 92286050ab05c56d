// The table of Numba's Device attribute names: one row per CUdevice_attribute (CUDA 13's
// names and codes, aliases included), with what the cpu device answers.
#include "cudajit/runtime/device_attributes.hpp"

#include <algorithm>
#include <array>

#include "cuda_device.hpp"

namespace cudajit::runtime {

namespace {

struct AttributeRow {
  std::string_view name;  // without CU_DEVICE_ATTRIBUTE_
  int code;               // the CUdevice_attribute
  int (*on_cpu)(const DeviceLimits&);
};

// Generated from CUDA's CUdevice_attribute enumeration.
constexpr AttributeRow kAttributes[] = {
    {"MAX_THREADS_PER_BLOCK", 1, [](const DeviceLimits& l) { return l.max_threads_per_block; }},
    {"MAX_BLOCK_DIM_X", 2, [](const DeviceLimits& l) { return int(l.max_block[0]); }},
    {"MAX_BLOCK_DIM_Y", 3, [](const DeviceLimits& l) { return int(l.max_block[1]); }},
    {"MAX_BLOCK_DIM_Z", 4, [](const DeviceLimits& l) { return int(l.max_block[2]); }},
    {"MAX_GRID_DIM_X", 5, [](const DeviceLimits& l) { return int(l.max_grid[0]); }},
    {"MAX_GRID_DIM_Y", 6, [](const DeviceLimits& l) { return int(l.max_grid[1]); }},
    {"MAX_GRID_DIM_Z", 7, [](const DeviceLimits& l) { return int(l.max_grid[2]); }},
    {"MAX_SHARED_MEMORY_PER_BLOCK", 8, [](const DeviceLimits& l) { return int(l.max_shared_per_block); }},
    {"SHARED_MEMORY_PER_BLOCK", 8, [](const DeviceLimits& l) { return int(l.max_shared_per_block); }},
    {"TOTAL_CONSTANT_MEMORY", 9, [](const DeviceLimits&) { return 65536; }},
    {"WARP_SIZE", 10, [](const DeviceLimits& l) { return l.warp_size; }},
    {"MAX_PITCH", 11, [](const DeviceLimits&) { return 0; }},
    {"MAX_REGISTERS_PER_BLOCK", 12, [](const DeviceLimits&) { return 0; }},
    {"REGISTERS_PER_BLOCK", 12, [](const DeviceLimits&) { return 0; }},
    {"CLOCK_RATE", 13, [](const DeviceLimits&) { return 0; }},
    {"TEXTURE_ALIGNMENT", 14, [](const DeviceLimits&) { return 0; }},
    {"GPU_OVERLAP", 15, [](const DeviceLimits&) { return 1; }},
    {"MULTIPROCESSOR_COUNT", 16, [](const DeviceLimits& l) { return l.multiprocessors; }},
    {"KERNEL_EXEC_TIMEOUT", 17, [](const DeviceLimits&) { return 0; }},
    {"INTEGRATED", 18, [](const DeviceLimits&) { return 1; }},
    {"CAN_MAP_HOST_MEMORY", 19, [](const DeviceLimits&) { return 1; }},
    {"COMPUTE_MODE", 20, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURE1D_WIDTH", 21, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURE2D_WIDTH", 22, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURE2D_HEIGHT", 23, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURE3D_WIDTH", 24, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURE3D_HEIGHT", 25, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURE3D_DEPTH", 26, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURE2D_LAYERED_WIDTH", 27, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURE2D_ARRAY_WIDTH", 27, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURE2D_LAYERED_HEIGHT", 28, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURE2D_ARRAY_HEIGHT", 28, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURE2D_LAYERED_LAYERS", 29, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURE2D_ARRAY_NUMSLICES", 29, [](const DeviceLimits&) { return 0; }},
    {"SURFACE_ALIGNMENT", 30, [](const DeviceLimits&) { return 0; }},
    {"CONCURRENT_KERNELS", 31, [](const DeviceLimits&) { return 1; }},
    {"ECC_ENABLED", 32, [](const DeviceLimits&) { return 0; }},
    {"PCI_BUS_ID", 33, [](const DeviceLimits&) { return 0; }},
    {"PCI_DEVICE_ID", 34, [](const DeviceLimits&) { return 0; }},
    {"TCC_DRIVER", 35, [](const DeviceLimits&) { return 0; }},
    {"MEMORY_CLOCK_RATE", 36, [](const DeviceLimits&) { return 0; }},
    {"GLOBAL_MEMORY_BUS_WIDTH", 37, [](const DeviceLimits&) { return 0; }},
    {"L2_CACHE_SIZE", 38, [](const DeviceLimits&) { return 0; }},
    {"MAX_THREADS_PER_MULTIPROCESSOR", 39, [](const DeviceLimits& l) { return l.max_threads_per_block; }},
    {"ASYNC_ENGINE_COUNT", 40, [](const DeviceLimits&) { return 0; }},
    {"UNIFIED_ADDRESSING", 41, [](const DeviceLimits&) { return 1; }},
    {"MAXIMUM_TEXTURE1D_LAYERED_WIDTH", 42, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURE1D_LAYERED_LAYERS", 43, [](const DeviceLimits&) { return 0; }},
    {"CAN_TEX2D_GATHER", 44, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURE2D_GATHER_WIDTH", 45, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURE2D_GATHER_HEIGHT", 46, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE", 47, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE", 48, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE", 49, [](const DeviceLimits&) { return 0; }},
    {"PCI_DOMAIN_ID", 50, [](const DeviceLimits&) { return 0; }},
    {"TEXTURE_PITCH_ALIGNMENT", 51, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURECUBEMAP_WIDTH", 52, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH", 53, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS", 54, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_SURFACE1D_WIDTH", 55, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_SURFACE2D_WIDTH", 56, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_SURFACE2D_HEIGHT", 57, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_SURFACE3D_WIDTH", 58, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_SURFACE3D_HEIGHT", 59, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_SURFACE3D_DEPTH", 60, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_SURFACE1D_LAYERED_WIDTH", 61, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_SURFACE1D_LAYERED_LAYERS", 62, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_SURFACE2D_LAYERED_WIDTH", 63, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_SURFACE2D_LAYERED_HEIGHT", 64, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_SURFACE2D_LAYERED_LAYERS", 65, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_SURFACECUBEMAP_WIDTH", 66, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH", 67, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS", 68, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURE1D_LINEAR_WIDTH", 69, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURE2D_LINEAR_WIDTH", 70, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURE2D_LINEAR_HEIGHT", 71, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURE2D_LINEAR_PITCH", 72, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH", 73, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT", 74, [](const DeviceLimits&) { return 0; }},
    {"COMPUTE_CAPABILITY_MAJOR", 75, [](const DeviceLimits&) { return 0; }},
    {"COMPUTE_CAPABILITY_MINOR", 76, [](const DeviceLimits&) { return 0; }},
    {"MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH", 77, [](const DeviceLimits&) { return 0; }},
    {"STREAM_PRIORITIES_SUPPORTED", 78, [](const DeviceLimits&) { return 0; }},
    {"GLOBAL_L1_CACHE_SUPPORTED", 79, [](const DeviceLimits&) { return 0; }},
    {"LOCAL_L1_CACHE_SUPPORTED", 80, [](const DeviceLimits&) { return 0; }},
    {"MAX_SHARED_MEMORY_PER_MULTIPROCESSOR", 81, [](const DeviceLimits& l) { return int(l.max_shared_per_block); }},
    {"MAX_REGISTERS_PER_MULTIPROCESSOR", 82, [](const DeviceLimits&) { return 0; }},
    {"MANAGED_MEMORY", 83, [](const DeviceLimits&) { return 1; }},
    {"MULTI_GPU_BOARD", 84, [](const DeviceLimits&) { return 0; }},
    {"MULTI_GPU_BOARD_GROUP_ID", 85, [](const DeviceLimits&) { return 0; }},
    {"HOST_NATIVE_ATOMIC_SUPPORTED", 86, [](const DeviceLimits&) { return 1; }},
    {"SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO", 87, [](const DeviceLimits&) { return 0; }},
    {"PAGEABLE_MEMORY_ACCESS", 88, [](const DeviceLimits&) { return 1; }},
    {"CONCURRENT_MANAGED_ACCESS", 89, [](const DeviceLimits&) { return 1; }},
    {"COMPUTE_PREEMPTION_SUPPORTED", 90, [](const DeviceLimits&) { return 0; }},
    {"CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM", 91, [](const DeviceLimits&) { return 1; }},
    {"CAN_USE_STREAM_MEM_OPS_V1", 92, [](const DeviceLimits&) { return 0; }},
    {"CAN_USE_64_BIT_STREAM_MEM_OPS_V1", 93, [](const DeviceLimits&) { return 0; }},
    {"CAN_USE_STREAM_WAIT_VALUE_NOR_V1", 94, [](const DeviceLimits&) { return 0; }},
    {"COOPERATIVE_LAUNCH", 95, [](const DeviceLimits&) { return 1; }},
    {"COOPERATIVE_MULTI_DEVICE_LAUNCH", 96, [](const DeviceLimits&) { return 0; }},
    {"MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", 97, [](const DeviceLimits& l) { return int(l.max_shared_per_block); }},
    {"CAN_FLUSH_REMOTE_WRITES", 98, [](const DeviceLimits&) { return 0; }},
    {"HOST_REGISTER_SUPPORTED", 99, [](const DeviceLimits&) { return 1; }},
    {"PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES", 100, [](const DeviceLimits&) { return 0; }},
    {"DIRECT_MANAGED_MEM_ACCESS_FROM_HOST", 101, [](const DeviceLimits&) { return 1; }},
    {"VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED", 102, [](const DeviceLimits&) { return 0; }},
    {"VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED", 102, [](const DeviceLimits&) { return 0; }},
    {"HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED", 103, [](const DeviceLimits&) { return 0; }},
    {"HANDLE_TYPE_WIN32_HANDLE_SUPPORTED", 104, [](const DeviceLimits&) { return 0; }},
    {"HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED", 105, [](const DeviceLimits&) { return 0; }},
    {"MAX_BLOCKS_PER_MULTIPROCESSOR", 106, [](const DeviceLimits&) { return 1; }},
    {"GENERIC_COMPRESSION_SUPPORTED", 107, [](const DeviceLimits&) { return 0; }},
    {"MAX_PERSISTING_L2_CACHE_SIZE", 108, [](const DeviceLimits&) { return 0; }},
    {"MAX_ACCESS_POLICY_WINDOW_SIZE", 109, [](const DeviceLimits&) { return 0; }},
    {"GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED", 110, [](const DeviceLimits&) { return 0; }},
    {"RESERVED_SHARED_MEMORY_PER_BLOCK", 111, [](const DeviceLimits&) { return 0; }},
    {"SPARSE_CUDA_ARRAY_SUPPORTED", 112, [](const DeviceLimits&) { return 0; }},
    {"READ_ONLY_HOST_REGISTER_SUPPORTED", 113, [](const DeviceLimits&) { return 0; }},
    {"TIMELINE_SEMAPHORE_INTEROP_SUPPORTED", 114, [](const DeviceLimits&) { return 0; }},
    {"MEMORY_POOLS_SUPPORTED", 115, [](const DeviceLimits&) { return 0; }},
    {"GPU_DIRECT_RDMA_SUPPORTED", 116, [](const DeviceLimits&) { return 0; }},
    {"GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS", 117, [](const DeviceLimits&) { return 0; }},
    {"GPU_DIRECT_RDMA_WRITES_ORDERING", 118, [](const DeviceLimits&) { return 0; }},
    {"MEMPOOL_SUPPORTED_HANDLE_TYPES", 119, [](const DeviceLimits&) { return 0; }},
    {"CLUSTER_LAUNCH", 120, [](const DeviceLimits&) { return 0; }},
    {"DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED", 121, [](const DeviceLimits&) { return 0; }},
    {"CAN_USE_64_BIT_STREAM_MEM_OPS", 122, [](const DeviceLimits&) { return 0; }},
    {"CAN_USE_STREAM_WAIT_VALUE_NOR", 123, [](const DeviceLimits&) { return 0; }},
    {"DMA_BUF_SUPPORTED", 124, [](const DeviceLimits&) { return 0; }},
    {"IPC_EVENT_SUPPORTED", 125, [](const DeviceLimits&) { return 0; }},
    {"MEM_SYNC_DOMAIN_COUNT", 126, [](const DeviceLimits&) { return 0; }},
    {"TENSOR_MAP_ACCESS_SUPPORTED", 127, [](const DeviceLimits&) { return 0; }},
    {"HANDLE_TYPE_FABRIC_SUPPORTED", 128, [](const DeviceLimits&) { return 0; }},
    {"UNIFIED_FUNCTION_POINTERS", 129, [](const DeviceLimits&) { return 0; }},
    {"NUMA_CONFIG", 130, [](const DeviceLimits&) { return 0; }},
    {"NUMA_ID", 131, [](const DeviceLimits&) { return 0; }},
    {"MULTICAST_SUPPORTED", 132, [](const DeviceLimits&) { return 0; }},
    {"MPS_ENABLED", 133, [](const DeviceLimits&) { return 0; }},
    {"HOST_NUMA_ID", 134, [](const DeviceLimits&) { return 0; }},
    {"D3D12_CIG_SUPPORTED", 135, [](const DeviceLimits&) { return 0; }},
    {"MEM_DECOMPRESS_ALGORITHM_MASK", 136, [](const DeviceLimits&) { return 0; }},
    {"MEM_DECOMPRESS_MAXIMUM_LENGTH", 137, [](const DeviceLimits&) { return 0; }},
    {"VULKAN_CIG_SUPPORTED", 138, [](const DeviceLimits&) { return 0; }},
    {"GPU_PCI_DEVICE_ID", 139, [](const DeviceLimits&) { return 0; }},
    {"GPU_PCI_SUBSYSTEM_ID", 140, [](const DeviceLimits&) { return 0; }},
    {"HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED", 141, [](const DeviceLimits&) { return 0; }},
    {"HOST_NUMA_MEMORY_POOLS_SUPPORTED", 142, [](const DeviceLimits&) { return 0; }},
    {"HOST_NUMA_MULTINODE_IPC_SUPPORTED", 143, [](const DeviceLimits&) { return 0; }},
    {"HOST_MEMORY_POOLS_SUPPORTED", 144, [](const DeviceLimits&) { return 0; }},
    {"HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED", 145, [](const DeviceLimits&) { return 0; }},
    {"HOST_ALLOC_DMA_BUF_SUPPORTED", 146, [](const DeviceLimits&) { return 0; }},
    {"ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED", 147, [](const DeviceLimits&) { return 0; }},
    {"ATOMIC_REDUCTION_SUPPORTED", 148, [](const DeviceLimits&) { return 0; }},
    {"LOCALITY_DOMAIN_COUNT", 149, [](const DeviceLimits&) { return 0; }},
    {"MAX_OVERSIZED_SHARED_MEMORY_PER_BLOCK", 150, [](const DeviceLimits&) { return 0; }},
    {"D3D12_CIG_STREAMS_SUPPORTED", 151, [](const DeviceLimits&) { return 0; }},
    {"DMA_BUF_MMAP_SUPPORTED", 152, [](const DeviceLimits&) { return 0; }},
    {"LOGICAL_ENDPOINT_UNICAST_SUPPORTED", 153, [](const DeviceLimits&) { return 0; }},
    {"LOGICAL_ENDPOINT_MULTICAST_SUPPORTED", 154, [](const DeviceLimits&) { return 0; }},
    {"LOGICAL_ENDPOINT_COUNTED_OPS_SUPPORTED", 155, [](const DeviceLimits&) { return 0; }},
    {"LOGICAL_ENDPOINT_UNICAST_ACCESS_ON_OWNER_DEVICE_SUPPORTED", 156, [](const DeviceLimits&) { return 0; }},
    {"LOCALITY_DOMAIN_MULTIPROCESSOR_COUNT", 157, [](const DeviceLimits&) { return 0; }},
    {"LOGICAL_ENDPOINT_SUPPORTED_HANDLE_TYPES", 158, [](const DeviceLimits&) { return 0; }},
    {"VULKAN_CIG_STREAMS_SUPPORTED", 159, [](const DeviceLimits&) { return 0; }},
    {"TENSOR_MAP_LARGE_TENSOR_MIN_SIZE", 160, [](const DeviceLimits&) { return 0; }},
    {"GPU_DIRECT_RDMA_WITH_LOCALIZED_MEMORY_SUPPORTED", 161, [](const DeviceLimits&) { return 0; }},
};

const AttributeRow* find_row(std::string_view name) {
  for (const AttributeRow& row : kAttributes)
    if (row.name == name) return &row;
  return nullptr;
}

}  // namespace

std::optional<int> device_attribute(Device& device, std::string_view name) {
  const AttributeRow* row = find_row(name);
  if (row == nullptr) return std::nullopt;
  if (device.kind() == DeviceKind::Cpu) return row->on_cpu(device.limits());
  return static_cast<cuda::CudaDevice&>(device).attribute(static_cast<CUdevice_attribute>(row->code));
}

std::vector<std::string_view> device_attribute_names() {
  std::vector<std::string_view> names;
  names.reserve(std::size(kAttributes));
  for (const AttributeRow& row : kAttributes) names.push_back(row.name);
  return names;
}

int cuda_driver_version() {
  auto& device = static_cast<cuda::CudaDevice&>(cuda_device(0));  // throws CudaUnavailable
  int version = 0;
  cuda::check(device.api(), device.api().cuDriverGetVersion(&version), "cuDriverGetVersion");
  return version;
}

}  // namespace cudajit::runtime
