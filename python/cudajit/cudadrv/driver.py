"""``numba.cuda.cudadrv.driver``'s names that programs use: the exceptions they catch, the
driver's version, the profiler calls, the memory objects of :mod:`.memory` and the raw
memory helpers (``device_memset``, ``host_to_device``, ``device_to_host`` ...).

``CudaAPIError`` is cudajit's :class:`~cudajit.errors.CudaDriverError` (a failed driver
call), so ``except cuda.cudadrv.driver.CudaAPIError`` catches what cudajit raises."""

from __future__ import annotations

import contextlib
from typing import Iterator

from .. import _core
from ..errors import CudaDriverError, CudaSupportError, LinkerError
from .memory import (AutoFreePointer, BaseCUDAMemoryManager, GetIpcHandleMixin,  # noqa: F401
                     HostOnlyCUDAMemoryManager, ManagedMemory, MappedMemory, MemoryInfo,
                     MemoryPointer, NumbaCUDAMemoryManager, PendingDeallocs, PinnedMemory,
                     set_memory_manager)
from .raw_memory import (device_memory_size, device_memset, device_pointer,  # noqa: F401
                         device_to_device, device_to_host, host_to_device, is_device_memory,
                         require_device_memory)

__all__ = ["CudaAPIError", "CudaDriverError", "CudaSupportError", "LinkerError", "Stream",
           "get_version", "profile_start", "profile_stop", "profiling",
           "AutoFreePointer", "BaseCUDAMemoryManager", "GetIpcHandleMixin",
           "HostOnlyCUDAMemoryManager", "ManagedMemory", "MappedMemory", "MemoryInfo",
           "MemoryPointer", "NumbaCUDAMemoryManager", "PendingDeallocs", "PinnedMemory",
           "set_memory_manager", "device_memory_size", "device_memset", "device_pointer",
           "device_to_device", "device_to_host", "host_to_device", "is_device_memory",
           "require_device_memory"]

CudaAPIError = CudaDriverError

# The class of cuda.stream(), cuda.default_stream() and cuda.external_stream() objects, under
# Numba's name (numba.cuda.cudadrv.driver.Stream): isinstance checks and patches of its
# methods (Stream.synchronize) reach cudajit's streams.
Stream = _core.Stream


def get_version() -> tuple[int, int]:
    """The CUDA driver's version as ``(major, minor)`` (``cuDriverGetVersion``); a
    CudaSupportError where no driver is usable."""
    version = _core.cuda_driver_version()
    return version // 1000, (version % 1000) // 10


def profile_start() -> None:
    """numba.cuda.profile_start: cudajit does not drive a profiler (it never calls
    cuProfilerStart), so this does nothing; a profiler records the whole run."""


def profile_stop() -> None:
    """numba.cuda.profile_stop: does nothing, as profile_start."""


@contextlib.contextmanager
def profiling() -> Iterator[None]:
    """numba.cuda.profiling: profile_start() on entry and profile_stop() on exit (no-ops)."""
    profile_start()
    try:
        yield
    finally:
        profile_stop()
