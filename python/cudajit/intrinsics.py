"""Placeholders for CUDA's thread-indexing intrinsics.

These objects only mean something inside a kernel: the front end recognises
them by identity (``from cudajit import grid, threadIdx`` works as well as
``cuda.grid``) and emits the matching IR call. Used from host code they raise.
"""

from __future__ import annotations

from typing import NoReturn

__all__ = ["threadIdx", "blockIdx", "blockDim", "gridDim", "grid", "gridsize",
           "laneid", "warpsize", "IndexIntrinsic", "Dim3Intrinsic", "ValueIntrinsic"]


def _host_call_error(name: str) -> NoReturn:
    raise RuntimeError(f"{name} can only be used inside a kernel compiled with @cuda.jit")


class ValueIntrinsic:
    """A read-only per-thread value such as ``cuda.laneid`` (used without parentheses)."""

    def __init__(self, ir_name: str):
        self.ir_name = ir_name  # the IR builtin, e.g. "cuda.laneid"

    def __repr__(self) -> str:
        return f"<cudajit intrinsic {self.ir_name}>"

    def __int__(self) -> NoReturn:
        _host_call_error(self.ir_name)

    __index__ = __int__


class IndexIntrinsic(ValueIntrinsic):
    """One component of a dim3 intrinsic, e.g. ``cuda.threadIdx.x``."""


class Dim3Intrinsic:
    """``threadIdx``, ``blockIdx``, ``blockDim`` or ``gridDim``, with ``.x .y .z``."""

    def __init__(self, name: str):
        self.name = name
        self.x = IndexIntrinsic(f"cuda.{name}.x")
        self.y = IndexIntrinsic(f"cuda.{name}.y")
        self.z = IndexIntrinsic(f"cuda.{name}.z")

    def __repr__(self) -> str:
        return f"<cudajit intrinsic cuda.{self.name}>"


threadIdx = Dim3Intrinsic("threadIdx")
blockIdx = Dim3Intrinsic("blockIdx")
blockDim = Dim3Intrinsic("blockDim")
gridDim = Dim3Intrinsic("gridDim")

laneid = ValueIntrinsic("cuda.laneid")
warpsize = ValueIntrinsic("cuda.warpsize")


def grid(ndim: int) -> NoReturn:
    """The absolute index of the thread in the grid: an int for ``ndim`` 1, else a
    tuple of ``ndim`` ints (``ndim`` a literal 1, 2 or 3). Kernels only."""
    _host_call_error("cuda.grid()")


def gridsize(ndim: int) -> NoReturn:
    """The number of threads in the grid along each of ``ndim`` dimensions (a literal
    1, 2 or 3): an int for 1, else a tuple. Kernels only."""
    _host_call_error("cuda.gridsize()")


DIM3_INTRINSICS = (threadIdx, blockIdx, blockDim, gridDim)
