"""cudajit: a Numba-style JIT for CUDA kernels.

Replace ``from numba import cuda`` with ``import cudajit as cuda``: kernels are
Python functions decorated with ``@cuda.jit``, compiled through LLVM to PTX for
the GPU and to native code for the cpu device.
"""

from __future__ import annotations

from . import errors, exec_sources, libdevice_search, types

exec_sources.install()  # kernels defined by exec of a string or by python -c have a source
libdevice_search.install()  # libdevice from NVIDIA's pip wheels, where no toolkit has it
from .api import *  # noqa: F401,F403  (to_device, stream, synchronize, ...)
from .api import cuda_available, is_available
from . import cudadrv  # noqa: E402  (cuda.cudadrv.driver.CudaAPIError ...)
from .cudadrv.driver import profile_start, profile_stop, profiling  # noqa: E402
from .cudadrv.runtime import runtime  # noqa: E402  (cuda.runtime.get_version())
from .compiler import compile_ptx, jit
from .linking import (LTOIR, Archive, Cubin, CUSource, Fatbin, LinkableCode,  # noqa: E402
                      Object, PTXSource, declare_device)
from .config import config
from .devicearray import DeviceNDArray, is_device_array
from .interop import as_cuda_array, from_cuda_array_interface, from_dlpack, is_cuda_array
from .dispatcher import DeviceFunction, Dispatcher
from .errors import CompileError, CudaDriverError, CudaSupportError, PerformanceWarning
from .intrinsics import (activemask, all_sync, any_sync, atomic, ballot_sync, blockDim, blockIdx,
                         brev, cbrt, cg, clz, const, eq_sync, ffs, fma, grid, gridDim, gridsize,
                         laneid, lanemask_lt, ldca, ldcg, ldcs, ldcv, ldlu, local,
                         match_all_sync, match_any_sync, popc, selp, stcg, stcs, stwb, stwt,
                         shared, shfl_down_sync, shfl_sync, shfl_up_sync, shfl_xor_sync,
                         syncthreads, syncthreads_and, syncthreads_count, syncthreads_or,
                         syncwarp, threadIdx, threadfence, threadfence_block, threadfence_system,
                         warpsize)
from .types import *  # noqa: F401,F403  (int32, float32[::1], void, ...)
from .reduction import Reduce, reduce  # noqa: E402
from .args import In, InOut, Out  # noqa: E402  (argument hints, as numba.cuda)
from .ufunc import vectorize  # noqa: E402  (CUDA ufuncs, as numba.cuda.vectorize)
from .gufunc import guvectorize  # noqa: E402  (generalized ufuncs)
from .host_api import (close, compile, compile_all, compile_for_current_device,  # noqa: E402
                       compile_ptx_for_current_device, defer_cleanup)
from . import fp16  # noqa: E402  (cuda.fp16.hadd ...: device functions, needs jit)
from . import bf16  # noqa: E402  (cuda.bf16.hadd ...: device functions, needs jit)
from .vector_types import *  # noqa: E402,F401,F403  (cuda.float32x4, cuda.float4 ...)
from . import libdevice  # noqa: E402  (cuda.libdevice.sinf ...: device functions, needs jit)
from . import cmath_impl  # noqa: E402,F401  (cmath in kernels: registers with the front end)
from . import array_reductions  # noqa: E402,F401  (np.sum ... in kernels: registers too)
from . import extending  # noqa: E402,F401  (@overload ...: registers with the front end)
from . import kernels  # noqa: E402,F401  (cuda.kernels.transpose.transpose)

__version__ = "0.1.0"

