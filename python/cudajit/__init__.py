"""cudajit: a Numba-style JIT for CUDA kernels.

Replace ``from numba import cuda`` with ``import cudajit as cuda``: kernels are
Python functions decorated with ``@cuda.jit``, compiled through LLVM to PTX for
the GPU and to native code for the cpu device.
"""

from __future__ import annotations

from . import errors, types
from .compiler import compile_ptx, jit
from .dispatcher import DeviceFunction, Dispatcher
from .errors import CompileError, CudaDriverError, CudaSupportError, PerformanceWarning
from .intrinsics import blockDim, blockIdx, grid, gridDim, gridsize, laneid, threadIdx, warpsize
from .types import *  # noqa: F401,F403  (int32, float32[::1], void, ...)

__version__ = "0.1.0"


def cuda_available() -> bool:
    """Whether a CUDA GPU can be used. The cuda device comes with the runtime; until
    then kernels run on the cpu device."""
    return False


def is_available() -> bool:
    """numba.cuda.is_available(): whether a CUDA GPU can be used."""
    return cuda_available()
