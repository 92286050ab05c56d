"""``cuda.Reduce`` (and ``cuda.reduce``): reducing an array with a binary function,
as ``numba.cuda.Reduce`` does. Each block folds a strided share of the array and
then its threads' values in shared memory; the few per-block results, and
``init``, are folded on the host with the same function."""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from .api import device_array, to_device
from .compiler import jit
from .dispatcher import DeviceFunction
from .intrinsics import blockDim, blockIdx, gridDim, shared, syncthreads, threadIdx

__all__ = ["Reduce", "reduce"]

_THREADS = 128  # per block; a power of two for the tree in shared memory
_MAX_BLOCKS = 256


def _block_kernel(combine: DeviceFunction, dtype: np.dtype) -> Any:
    """The kernel folding `arr[:n]` into one value (and a 'has one' flag) per block."""

    @jit
    def fold(arr, n, out, has):
        tid = threadIdx.x
        values = shared.array(_THREADS, dtype)
        present = shared.array(_THREADS, np.int32)
        j = blockIdx.x * blockDim.x + tid
        stride = blockDim.x * gridDim.x
        present[tid] = 0
        if j < n:
            acc = arr[j]
            j += stride
            while j < n:
                acc = combine(acc, arr[j])
                j += stride
            values[tid] = acc
            present[tid] = 1
        syncthreads()
        step = _THREADS // 2
        while step > 0:
            if tid < step and present[tid + step] != 0:
                if present[tid] != 0:
                    values[tid] = combine(values[tid], values[tid + step])
                else:
                    values[tid] = values[tid + step]
                    present[tid] = 1
            syncthreads()
            step //= 2
        if tid == 0:
            out[blockIdx.x] = values[0]
            has[blockIdx.x] = present[0]

    return fold


class Reduce:
    """A reduction by ``functor``, a function of two values returning one (a plain
    Python function or lambda, compiled as a device function, or a device
    function), as ``numba.cuda.Reduce``."""

    def __init__(self, functor: Callable[[Any, Any], Any]):
        self._host = getattr(functor, "py_func", functor)  # the final fold, on the host
        self._device = functor if isinstance(functor, DeviceFunction) else \
            jit(device=True)(functor)
        self._kernels: dict[np.dtype, Any] = {}

    def __call__(self, arr: Any, size: int | None = None, res: Any = None, init: Any = 0,
                 stream: Any = 0) -> Any:
        """Reduce the first ``size`` items of the 1-D ``arr`` (host or device), starting
        from ``init``. With ``res`` (a device array) the result goes to ``res[0]`` and
        None is returned; else the result is returned."""
        if getattr(arr, "ndim", 1) != 1:
            raise TypeError(f"Reduce takes a 1-D array, got {getattr(arr, 'ndim', '?')} "
                            "dimensions")
        n = arr.shape[0] if size is None else int(size)
        if not 0 <= n <= arr.shape[0]:
            raise ValueError(f"Reduce: size {n} is outside the array's {arr.shape[0]} items")
        dtype = np.dtype(arr.dtype)
        init_value = dtype.type(init)
        if n == 0:
            result = init_value
        else:
            kernel = self._kernels.get(dtype)
            if kernel is None:
                kernel = self._kernels[dtype] = _block_kernel(self._device, dtype)
            blocks = min(_MAX_BLOCKS, (n + _THREADS - 1) // _THREADS)
            partial = device_array(blocks, dtype, stream=stream)
            has = device_array(blocks, np.int32, stream=stream)
            source = to_device(arr, stream=stream)  # a device array as it is
            kernel[blocks, _THREADS, stream](source, n, partial, has)
            flags = has.copy_to_host(stream=stream)  # pageable: complete on return
            values = [v for v, h in zip(partial.copy_to_host(stream=stream), flags) if h]
            result = functools.reduce(self._host, values, init_value)
        if res is None:
            return result
        to_device(np.array([result], dtype=res.dtype), stream=stream, to=res)
        return None


reduce = Reduce
