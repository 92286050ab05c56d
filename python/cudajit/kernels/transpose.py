"""``transpose(a, b=None)``: a 2-D array's transpose, computed on the device, as
``numba.cuda.kernels.transpose.transpose``.

A tiled transpose through shared memory (NVIDIA's "efficient matrix transpose"): each block
reads a ``TILE`` x ``TILE`` tile of ``a`` row by row (coalesced), keeps it in shared memory,
and writes it to ``b`` row by row too. The tile has one column more than it is wide, so that
reading it by columns does not hit one shared-memory bank ``TILE`` times; elements too large
for such a tile in shared memory get a smaller one. Any dtype works, records included: one
kernel is compiled per dtype, at its first use."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..compiler import jit
from ..devicearray import device_array, is_device_array
from ..interop import is_cuda_array
from ..intrinsics import blockIdx, shared, syncthreads, threadIdx

# A tile's width and height, and how many rows of it a block's threads cover at once (each
# thread copies TILE // ROWS elements): blocks of TILE x ROWS = 256 threads. Elements too
# large for a TILE x (TILE + 1) tile in SHARED_BYTES (the static shared memory every CUDA
# GPU gives a block) get smaller tiles: 16, 8 ... wide.
TILE = 32
ROWS = 8
SHARED_BYTES = 48 * 1024

__all__ = ["transpose"]


def _tile_for(itemsize: int) -> int:
    """The widest tile, TILE or a smaller power of two, whose shared array of ``itemsize``
    elements fits in SHARED_BYTES; a ValueError for an element larger than SHARED_BYTES / 2."""
    tile = TILE
    while tile > 1 and tile * (tile + 1) * itemsize > SHARED_BYTES:
        tile //= 2
    if tile * (tile + 1) * itemsize > SHARED_BYTES:
        raise ValueError(f"transpose() of elements of {itemsize} bytes: a tile of them does not "
                         f"fit in {SHARED_BYTES} bytes of shared memory")
    return tile


@functools.lru_cache(maxsize=None)
def _kernel(dtype: np.dtype) -> tuple[Any, int, int]:
    """The transpose kernel for arrays of ``dtype`` (compiled lazily, once per dtype), with
    its tile's width and the rows of the tile a block covers at once."""
    width = _tile_for(dtype.itemsize)
    rows = min(ROWS, width)
    tile_shape = (width, width + 1)

    @jit
    def transpose_kernel(a, b):  # type: ignore[no-untyped-def]
        tile = shared.array(tile_shape, dtype)
        tx = threadIdx.x
        ty = threadIdx.y
        row0 = blockIdx.y * width  # the tile's first row and column in a
        col0 = blockIdx.x * width
        for k in range(0, width, rows):
            row = row0 + ty + k
            col = col0 + tx
            if row < a.shape[0] and col < a.shape[1]:
                tile[ty + k, tx] = a[row, col]
        syncthreads()
        for k in range(0, width, rows):
            row = col0 + ty + k  # b[row, col] is a[col, row], which is tile[tx, ty + k]
            col = row0 + tx
            if row < b.shape[0] and col < b.shape[1]:
                b[row, col] = tile[tx, ty + k]

    return transpose_kernel, width, rows


def transpose(a: Any, b: Any = None) -> Any:
    """Store the transpose of the 2-D array ``a`` in ``b`` and return ``b``; without ``b``, a
    new device array of shape ``a.shape[::-1]`` (C order) is allocated and returned.

    ``a`` is a device array, an array exporting ``__cuda_array_interface__``, or a NumPy
    array (copied to the device for the kernel). ``b`` is a device array of shape
    ``a.shape[::-1]`` and the same dtype. The kernel runs on ``a``'s stream where ``a`` has
    one (a device array made on a stream), else on the default stream."""
    shape = getattr(a, "shape", None)
    dtype = getattr(a, "dtype", None)
    if shape is None or dtype is None or not (isinstance(a, np.ndarray)
                                                           or is_device_array(a)
                                                           or is_cuda_array(a)):
        raise TypeError(f"transpose() takes a 2-D device array or NumPy array; got "
                        f"{type(a).__name__}")
    if len(shape) != 2:
        raise ValueError(f"transpose() takes a 2-D array; got one of shape {tuple(shape)}")
    stream = getattr(a, "stream", 0) if is_device_array(a) else 0
    rows, cols = shape
    if b is None:
        b = device_array((cols, rows), dtype=dtype, stream=stream)
    else:
        if not (is_device_array(b) or is_cuda_array(b)):
            raise TypeError(f"transpose()'s b must be a device array; got {type(b).__name__}")
        if tuple(b.shape) != (cols, rows):
            raise ValueError(f"transpose() of an array of shape {(rows, cols)} needs b of shape "
                             f"{(cols, rows)}; got {tuple(b.shape)}")
        if np.dtype(b.dtype) != np.dtype(dtype):
            raise ValueError(f"transpose()'s b must have a's dtype {np.dtype(dtype)}; got "
                             f"{np.dtype(b.dtype)}")
    if rows and cols:
        kernel, tile, tile_rows = _kernel(np.dtype(dtype))
        grid = ((cols + tile - 1) // tile, (rows + tile - 1) // tile)
        kernel[grid, (tile, tile_rows), stream](a, b)
    return b
