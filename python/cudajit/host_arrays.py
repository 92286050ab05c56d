"""Mapped and managed arrays: host arrays (NumPy arrays) in memory the device reads in
place, which also describe themselves to the device, as Numba's ``MappedNDArray`` and
``ManagedNDArray`` do: ``__cuda_array_interface__`` (the device's address of the memory and
the stream the array was made with), ``device_ctypes_pointer`` and ``stream``.

A view of one (a slice, a reshape) is one too; an array NumPy computes from one (``m + 1``)
lives in ordinary memory, so it has no device address: its ``__cuda_array_interface__`` is an
AttributeError, and ``cuda.is_cuda_array()`` is False for it.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np
from numpy.lib.array_utils import byte_bounds

from . import _core

__all__ = ["MappedNDArray", "ManagedNDArray", "host_array"]


class _DeviceVisibleArray(np.ndarray):
    """A NumPy array whose memory, a ``_core.HostMemory``, the device also addresses."""

    # Set by host_array() on the array it makes, passed on to views by __array_finalize__.
    _memory: Any = None  # the HostMemory, while this array's elements lie in it
    _host_start: int = 0  # the host address of the memory's first byte
    _stream: Any = 0  # the stream the array was made with (0: none)

    def __array_finalize__(self, obj: Any) -> None:
        memory = getattr(obj, "_memory", None)
        start = getattr(obj, "_host_start", 0)
        self._stream = getattr(obj, "_stream", 0)
        if memory is not None and self.size:
            low, high = byte_bounds(self)
            if not (start <= low and high <= start + memory.nbytes):
                memory = None  # NumPy's result of a computation: new, ordinary memory
        self._memory, self._host_start = memory, start

    def _device_address(self) -> int:
        """The device's address of the first element; an AttributeError for an array outside
        the memory (so hasattr() and cuda.is_cuda_array() say no)."""
        if self._memory is None:
            raise AttributeError(f"this {type(self).__name__} is not in mapped or managed "
                                 "memory (NumPy computed it into new memory), so the device "
                                 "has no address for it")
        return self._memory.device_pointer + (self.ctypes.data - self._host_start)

    @property
    def __cuda_array_interface__(self) -> dict:
        """CUDA Array Interface v3, as a device array's: the device's address of the
        elements, strides None when C-contiguous, the stream the array was made with (None
        when it was made with none; the legacy default stream is 1)."""
        if _core.current_device().kind != "cuda":
            raise AttributeError("on the cpu device, mapped and managed arrays are host memory "
                                 "and export no __cuda_array_interface__ (as its device arrays)")
        address = self._device_address() if self.size else 0
        stream = self._stream
        handle = None
        if not (stream is None or (isinstance(stream, int) and stream == 0)):
            handle = _core.resolve_stream(stream).handle
            handle = 1 if handle == 0 else handle
        return {
            "shape": tuple(self.shape),
            "strides": None if self.flags.c_contiguous else tuple(self.strides),
            "data": (address, not self.flags.writeable),
            "typestr": self.dtype.str,
            "descr": self.dtype.descr if self.dtype.names else [("", self.dtype.str)],
            "version": 3,
            "stream": handle,
        }

    @property
    def device_ctypes_pointer(self) -> ctypes.c_size_t:
        """The device's address of the first element, as Numba's attribute (0 for no
        elements)."""
        return ctypes.c_size_t(self._device_address() if self.size else 0)

    @property
    def stream(self) -> Any:
        """The stream the array was made with (``stream=`` of mapped_array/managed_array),
        0 for none, as Numba's."""
        return self._stream

    @property
    def __cuda_memory__(self) -> bool:
        """Numba's marker of device memory (its driver helpers, ``device_memset`` ..., take
        such objects): true while the elements lie in the memory the device addresses."""
        return self._memory is not None

    @property
    def _cuda_memsize_(self) -> int:
        """Numba's size of the device memory at ``device_ctypes_pointer``: the bytes from the
        first element to the end of the array's extent."""
        return byte_bounds(self)[1] - self.ctypes.data if self.size else 0


class MappedNDArray(_DeviceVisibleArray):
    """``cuda.mapped_array()``: page-locked host memory mapped into the device's address
    space (Numba's class of the same name)."""


class ManagedNDArray(_DeviceVisibleArray):
    """``cuda.managed_array()``: managed (unified) memory, one address on host and device
    (Numba's class of the same name)."""


def host_array(cls: type, memory: Any, shape: tuple, dtype: np.dtype, strides: tuple,
               stream: Any) -> np.ndarray:
    """An array of class ``cls`` over all of ``memory`` (a ``_core.HostMemory``), made with
    ``stream``."""
    array = np.ndarray.__new__(cls, shape, dtype=dtype, buffer=memory, strides=strides)
    array._memory = memory
    array._host_start = np.frombuffer(memory, dtype=np.uint8).ctypes.data
    array._stream = stream
    return array
