// The driver API's types and values that only the stand-in needs: what cuda.bindings,
// cuda.core and numba-cuda call beyond cudajit's own subset (runtime/include/cudajit/
// cuda_api.h). Values are the driver's ABI, as the toolkit's cuda.h documents them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cudajit/cuda_api.h"

extern "C" {

typedef struct CUlib_st* CUlibrary;
typedef struct CUkern_st* CUkernel;
typedef struct CUmemPoolHandle_st* CUmemoryPool;

typedef struct CUuuid_st {
  char bytes[16];
} CUuuid;

inline constexpr CUresult CUDA_ERROR_CONTEXT_IS_DESTROYED = CUresult(709);

// CUjit_option values beyond cuda_api.h's log buffers.
inline constexpr int CU_JIT_TARGET = 9;

typedef enum CUlimit_enum {
  CU_LIMIT_STACK_SIZE = 0,
  CU_LIMIT_PRINTF_FIFO_SIZE = 1,
  CU_LIMIT_MALLOC_HEAP_SIZE = 2,
  CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH = 3,
  CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT = 4,
  CU_LIMIT_MAX_L2_FETCH_GRANULARITY = 5,
  CU_LIMIT_PERSISTING_L2_CACHE_SIZE = 6,
} CUlimit;

typedef enum CUlaunchAttributeID_enum {
  CU_LAUNCH_ATTRIBUTE_IGNORE = 0,
  CU_LAUNCH_ATTRIBUTE_COOPERATIVE = 2,
  CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
} CUlaunchAttributeID;

typedef union CUlaunchAttributeValue_union {
  char pad[64];
  int cooperative;
  struct {
    unsigned x, y, z;
  } clusterDim;
} CUlaunchAttributeValue;

typedef struct CUlaunchAttribute_st {
  CUlaunchAttributeID id;
  char pad[8 - sizeof(CUlaunchAttributeID)];
  CUlaunchAttributeValue value;
} CUlaunchAttribute;

typedef struct CUlaunchConfig_st {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute* attrs;
  unsigned numAttrs;
} CUlaunchConfig;

typedef void (*CUstreamCallback)(CUstream stream, CUresult status, void* user_data);
typedef void (*CUhostFn)(void* user_data);

typedef struct CUipcMemHandle_st {
  char reserved[64];
} CUipcMemHandle;

// Pointer attributes beyond cuda_api.h's.
inline constexpr int CU_POINTER_ATTRIBUTE_SYNC_MEMOPS = 6;
inline constexpr int CU_POINTER_ATTRIBUTE_BUFFER_ID = 7;
inline constexpr int CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE = 10;
inline constexpr int CU_POINTER_ATTRIBUTE_MAPPED = 13;
inline constexpr int CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE = 17;

}  // extern "C"
