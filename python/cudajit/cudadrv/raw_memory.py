"""Numba's raw memory helpers (``numba.cuda.cudadrv.driver.device_memset``,
``host_to_device``, ``device_to_host``, ``device_to_device``, ``device_memory_size``,
``device_pointer``): byte operations on device memory, whatever holds it.

Device memory here is a device array (cudajit's, or any object exporting
``__cuda_array_interface__``), a :class:`~.memory.MemoryPointer` or the host memory objects of
``Context.memhostalloc``/``memallocmanaged``, or a NumPy array over mapped or managed memory
(``cuda.mapped_array``, ``cuda.managed_array``). As in Numba, ``stream=0`` makes the call
synchronous (the host may read the bytes when it returns); with a stream the work is queued
on it."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _core

__all__ = ["device_memset", "host_to_device", "device_to_host", "device_to_device",
           "device_memory_size", "device_pointer", "is_device_memory", "require_device_memory"]

# Numba's message for an object that is not device memory.
NOT_DEVICE_MEMORY = "Not a CUDA memory object."


def is_device_memory(obj: Any) -> bool:
    """Whether ``obj`` is device memory in Numba's sense (it has ``__cuda_memory__``)."""
    return bool(getattr(obj, "__cuda_memory__", False))


def require_device_memory(obj: Any) -> None:
    """A TypeError unless ``obj`` is device memory (:func:`is_device_memory`)."""
    if not is_device_memory(obj):
        raise TypeError(NOT_DEVICE_MEMORY)


def _host_memory_base(obj: Any) -> Any:
    """The runtime's host memory (mapped, managed or pinned) under a NumPy array, or None."""
    base = obj
    while isinstance(base, np.ndarray):
        base = base.base
    return base if isinstance(base, _core.HostMemory) else None


def _device_bytes(obj: Any) -> Any:
    """A runtime byte array (uint8, 1-D) over all of ``obj``'s device memory."""
    if isinstance(obj, _core.DeviceArray):
        lo, hi = obj.extent()
        return _core.DeviceArray.view(obj, lo, [hi - lo], [1], "uint8")
    if isinstance(obj, np.ndarray):
        host_memory = _host_memory_base(obj)
        if host_memory is None:
            raise TypeError(f"{NOT_DEVICE_MEMORY} A NumPy array is device memory only over "
                            "mapped or managed memory (cuda.mapped_array, cuda.managed_array)")
        start = int(np.frombuffer(host_memory, dtype=np.uint8).ctypes.data)
        address = host_memory.device_pointer + (int(obj.ctypes.data) - start)
        return _cai_bytes(address, obj.nbytes, obj)
    if hasattr(obj, "device_pointer_value") and hasattr(obj, "_cuda_memsize_"):
        return _cai_bytes(obj.device_pointer_value, obj._cuda_memsize_, obj)
    if hasattr(obj, "__cuda_array_interface__"):
        return _device_bytes(_core.import_array(obj, True))
    raise TypeError(f"{NOT_DEVICE_MEMORY} Got {type(obj).__name__}")


def _cai_bytes(address: int, size: int, owner: Any) -> Any:
    desc = {"shape": (size,), "typestr": "|u1", "data": (address, False), "version": 3,
            "strides": None}
    return _core.import_cai_dict(desc, owner, False)


def _first_bytes(raw: Any, size: int, what: str) -> Any:
    total = raw.shape[0]
    if not 0 <= size <= total:
        raise ValueError(f"{what}: {size} bytes asked of device memory of {total} bytes")
    return _core.DeviceArray.view(raw, 0, [size], [1], None)


def _host_bytes(obj: Any, size: int, what: str) -> np.ndarray:
    """The first ``size`` bytes of a contiguous host buffer, as a uint8 array."""
    array = np.asarray(obj)
    if not (array.flags.c_contiguous or array.flags.f_contiguous):
        raise ValueError(f"{what}: the host array must be contiguous")
    flat = array.reshape(-1, order="A").view(np.uint8)
    if size > flat.size:
        raise ValueError(f"{what}: {size} bytes asked of a host buffer of {flat.size} bytes")
    return flat[:size]


def _finish(stream: Any) -> None:
    """Numba's stream-0 calls are the driver's synchronous ones: wait for the copy."""
    if not stream:
        _core.current_device().synchronize()


def device_memset(dst: Any, val: int, size: int, stream: Any = 0) -> None:
    """Set the first ``size`` bytes of device memory ``dst`` to the byte ``val``."""
    _first_bytes(_device_bytes(dst), int(size), "device_memset").memset(int(val), stream or None)
    _finish(stream)


def host_to_device(dst: Any, src: Any, size: int, stream: Any = 0) -> None:
    """Copy ``size`` bytes from the host buffer ``src`` to device memory ``dst``."""
    if size <= 0:
        return
    target = _first_bytes(_device_bytes(dst), int(size), "host_to_device")
    target.copy_from_host(_host_bytes(src, int(size), "host_to_device"), stream or None)
    _finish(stream)


def device_to_host(dst: Any, src: Any, size: int, stream: Any = 0) -> None:
    """Copy ``size`` bytes from device memory ``src`` to the host buffer ``dst``."""
    if size <= 0:
        return
    source = _first_bytes(_device_bytes(src), int(size), "device_to_host")
    source.copy_to_host(_host_bytes(dst, int(size), "device_to_host"), stream or None)
    _finish(stream)


def device_to_device(dst: Any, src: Any, size: int, stream: Any = 0) -> None:
    """Copy ``size`` bytes from device memory ``src`` to device memory ``dst``."""
    if size <= 0:
        return
    target = _first_bytes(_device_bytes(dst), int(size), "device_to_device")
    target.copy_from_device(_first_bytes(_device_bytes(src), int(size), "device_to_device"),
                            stream or None)
    _finish(stream)


def device_memory_size(obj: Any) -> int:
    """Bytes of device memory ``obj`` spans (an array's extent, a pointer's size)."""
    return int(_device_bytes(obj).shape[0])


def device_pointer(obj: Any) -> int:
    """The device address of ``obj``'s first byte."""
    return int(_device_bytes(obj).device_pointer)
