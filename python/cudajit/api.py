"""The ``numba.cuda`` runtime API: devices, memory, streams and events.

Everything here works on the current device: the first CUDA GPU when a driver
and a GPU are present, else the cpu device (``CUDAJIT_DEVICE=cpu`` or ``cuda``
chooses). On the cpu device, device memory is host memory, streams are real
asynchronous queues and kernels run on worker threads.
"""

from __future__ import annotations

import contextlib
import functools
import math
import operator
from typing import Any, Callable, Iterator, NamedTuple, Sequence

import numpy as np

from . import _core
from . import host_arrays as _host_arrays
from .cudadrv import memory as _memory
from .cudadrv.memory import (BaseCUDAMemoryManager, GetIpcHandleMixin,  # noqa: F401
                             HostOnlyCUDAMemoryManager, ManagedMemory, MappedMemory, MemoryInfo,
                             MemoryPointer, PinnedMemory, set_memory_manager)
from .devicearray import (DeviceNDArray, as_shape, contiguous_strides, device_array,  # noqa: F401
                          is_default_stream, supported_dtype, to_device)

__all__ = [
    "to_device", "device_array", "device_array_like", "pinned_array", "mapped_array",
    "pinned_array_like", "mapped_array_like", "managed_array_like",
    "managed_array", "pinned", "mapped", "stream", "default_stream", "legacy_default_stream",
    "per_thread_default_stream", "external_stream", "event", "event_elapsed_time",
    "synchronize", "select_device", "get_current_device", "list_devices", "gpus",
    "is_available", "cuda_available", "cuda_error", "is_supported_version", "is_float16_supported",
    "is_bfloat16_supported", "require_context", "detect", "Stream", "Event", "Device",
    "current_context", "Context", "MemoryInfo", "MemoryPointer", "MappedMemory",
    "PinnedMemory", "ManagedMemory", "BaseCUDAMemoryManager", "HostOnlyCUDAMemoryManager",
    "GetIpcHandleMixin", "set_memory_manager",
]

Stream = _core.Stream
Event = _core.Event
Device = _core.Device


# --- Numba's Device attributes ------------------------------------------------------------

def _device_attribute(self: Device, name: str) -> int:
    """``device.MULTIPROCESSOR_COUNT``, ``device.WARP_SIZE`` ...: Numba's Device attributes,
    the names of CUDA's CUdevice_attribute without CU_DEVICE_ATTRIBUTE_. A GPU's driver
    answers; the cpu device gives its limits, 1 or 0 for what it can or cannot do, and 0 for
    GPU hardware it has not (clocks, PCI ids, textures)."""
    value = _core.device_attribute(self, name) if name.isupper() else None
    if value is None:
        raise AttributeError(f"'Device' object has no attribute {name!r}")
    return value


def _device_dir(self: Device) -> list[str]:
    return sorted(set(object.__dir__(self)) | set(_core.device_attribute_names()))


def _reset(self: Device) -> None:
    """numba.cuda's Device.reset() destroys the device's context and all its memory.
    cudajit's arrays free their own memory and the context lives as long as the process
    (a reset would leave live arrays dangling), so this waits for the device's work."""
    self.synchronize()


def _get_device_identity(self: Device) -> dict[str, int]:
    """The device's PCI domain, bus and device ids (Numba's ``get_device_identity``)."""
    return {"pci_domain_id": self.PCI_DOMAIN_ID, "pci_bus_id": self.PCI_BUS_ID,
            "pci_device_id": self.PCI_DEVICE_ID}


Device.__getattr__ = _device_attribute
Device.__dir__ = _device_dir
Device.reset = _reset
Device.get_device_identity = _get_device_identity
# float16 kernels run on every cudajit device (natively where the GPU has them).
Device.supports_float16 = property(lambda self: True)


# --- devices -----------------------------------------------------------------------------

def cuda_available() -> bool:
    """Whether a CUDA GPU and its driver can be used."""
    return _core.cuda_available()


def is_available() -> bool:
    """numba.cuda.is_available(): whether a CUDA GPU can be used."""
    return _core.cuda_available()


def cuda_error() -> str | None:
    """numba.cuda.cuda_error(): why the CUDA driver could not be used (no driver library, its
    initialisation failed, no GPU ...), or None when it initialised. Kernels then run on the
    cpu device."""
    return None if _core.cuda_available() else _core.cuda_unavailable_reason()


def is_supported_version() -> bool:
    """numba.cuda.is_supported_version(): whether the CUDA toolkit is one Numba supports.
    cudajit uses no CUDA runtime or toolkit library at run time (only the driver, and
    libdevice, found by path), so there is no version of them to refuse: always True."""
    return True


def is_float16_supported() -> bool:
    """numba.cuda.is_float16_supported(): float16 kernels work on every cudajit device (on
    the GPU natively, sm_75 and later; elsewhere in software): True."""
    return True


def is_bfloat16_supported() -> bool:
    """numba.cuda.is_bfloat16_supported(): whether the current device computes in bfloat16
    (``cudajit.bf16``, numba-cuda's ``numba.cuda.bf16``): a GPU of compute capability 8.0
    or later, as in Numba, and always the cpu device."""
    device = _core.current_device()
    return device.kind == "cpu" or device.compute_capability >= (8, 0)


def require_context(fn: Callable[..., Any]) -> Callable[..., Any]:
    """numba.cuda.require_context: ``fn``, calling which first makes sure that the current
    device is initialised (its context made current), as Numba's decorator does."""
    @functools.wraps(fn)
    def with_context(*args: Any, **kwargs: Any) -> Any:
        _core.current_device()
        return fn(*args, **kwargs)
    return with_context


def list_devices() -> list[Device]:
    """The CUDA GPUs of this machine (empty without a driver)."""
    if not _core.cuda_available():
        return []
    return [_core.cuda_device(i) for i in range(_core.cuda_device_count())]


class _GPUList(Sequence):
    """``cuda.gpus``: the CUDA GPUs, indexable and iterable; ``gpus.current`` is the
    current device; ``with cuda.gpus[i]:`` makes GPU i current for the block, on the
    calling thread (the current device is per thread, as Numba's context is)."""

    def __getitem__(self, index: Any) -> Any:
        return list_devices()[index]

    def __len__(self) -> int:
        return len(list_devices())

    @property
    def current(self) -> Device:
        return _core.current_device()


gpus = _GPUList()


def select_device(device_id: int) -> Device:
    """Make CUDA GPU ``device_id`` the current device. Without a GPU, only the
    cpu device exists, and ``select_device(0)`` selects it."""
    if not isinstance(device_id, int) or device_id < 0:
        raise ValueError(f"device_id must be a non-negative int, got {device_id!r}")
    if _core.cuda_available():
        count = _core.cuda_device_count()
        if device_id >= count:
            raise ValueError(f"device_id {device_id} is out of range: this machine has "
                             f"{count} CUDA GPU(s)")
        device = _core.cuda_device(device_id)
    elif device_id == 0:
        device = _core.cpu_device()
    else:
        raise ValueError(f"device_id {device_id} does not exist: no CUDA GPU is available "
                         f"({_core.cuda_unavailable_reason()}), only the cpu device (0)")
    _core.set_current_device(device)
    return device


def get_current_device() -> Device:
    """The device kernels launch on and memory is allocated on."""
    return _core.current_device()


class Context:
    """``cuda.current_context()``: the current device's context, as Numba names it
    (cudajit holds one primary context per device). Its memory calls go to its
    :attr:`memory_manager` (cudajit's own, or an EMM plugin); releases of that memory wait in
    :attr:`deallocations` (see :mod:`cudajit.cudadrv.memory`)."""

    def __init__(self, device: Device):
        self.device = device

    @property
    def handle(self) -> int:
        """The driver's context (a ``CUcontext``, as an int): the device's primary context,
        which cudajit retains and makes current for its work; 0 on the cpu device."""
        return self.device.context_handle

    @property
    def memory_manager(self) -> Any:
        """The device's memory manager (one per device, kept for the process): cudajit's own,
        or the EMM plugin set with ``cuda.set_memory_manager`` or assigned here."""
        return _memory.manager_of(self)

    @memory_manager.setter
    def memory_manager(self, plugin: Any) -> None:
        if plugin is not _memory._MANAGERS.get(repr(self.device)):
            _memory.install(self, plugin)

    @property
    def deallocations(self) -> _memory.PendingDeallocs:
        """The queue of releases of the memory this context gave out."""
        return self.memory_manager.deallocations

    def memalloc(self, bytesize: int) -> _memory.MemoryPointer:
        """``bytesize`` bytes of device memory, as a MemoryPointer."""
        return self.memory_manager.memalloc(bytesize)

    def memallocmanaged(self, bytesize: int,
                        attach_global: bool = True) -> _memory.ManagedMemory:
        """``bytesize`` bytes of managed memory (a buffer for NumPy, and device memory)."""
        return self.memory_manager.memallocmanaged(bytesize, attach_global=attach_global)

    def memhostalloc(self, bytesize: int, mapped: bool = False, portable: bool = False,
                     wc: bool = False) -> Any:
        """``bytesize`` bytes of page-locked host memory (PinnedMemory), mapped into the
        device with ``mapped`` (MappedMemory); NumPy takes either as a buffer."""
        return self.memory_manager.memhostalloc(bytesize, mapped=mapped, portable=portable,
                                                wc=wc)

    def mempin(self, owner: Any, pointer: int, size: int, mapped: bool = False) -> Any:
        """Page-lock ``size`` bytes at host address ``pointer`` until the result is freed."""
        return self.memory_manager.mempin(owner, pointer, size, mapped=mapped)

    def get_ipc_handle(self, memory: Any) -> Any:
        """CUDA IPC is not offered by cudajit: NotImplementedError."""
        return self.memory_manager.get_ipc_handle(memory)

    def create_stream(self) -> Stream:
        """A new stream on this context's device (``cuda.stream()``)."""
        return self.device.create_stream()

    def create_external_stream(self, ptr: int) -> Stream:
        """A Stream for a CUstream made by another library (``cuda.external_stream``)."""
        with self.device:
            return external_stream(ptr)

    def create_event(self, timing: bool = True) -> Event:
        """A new event on this context's device (``cuda.event(timing)``)."""
        return self.device.create_event(bool(timing))

    def get_default_stream(self) -> Stream:
        return self.device.legacy_default_stream()

    def get_legacy_default_stream(self) -> Stream:
        return self.device.legacy_default_stream()

    def get_per_thread_default_stream(self) -> Stream:
        return self.device.per_thread_default_stream()

    def get_memory_info(self) -> MemoryInfo:
        """Free and total memory of the device (the host's on the cpu device)."""
        return self.memory_manager.get_memory_info()

    def synchronize(self) -> None:
        """Wait for everything queued on the device."""
        self.device.synchronize()

    @contextlib.contextmanager
    def defer_cleanup(self) -> Iterator[None]:
        """Hold this context's queued releases back for the block."""
        with self.memory_manager.defer_cleanup():
            yield

    def reset(self) -> None:
        """Numba frees all the context's memory here. cudajit's arrays and memory objects
        free their own memory (freeing it under them would leave them dangling), so this
        waits for the device's work and runs the queued releases."""
        self.device.synchronize()
        self.memory_manager.reset()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Context) and repr(other.device) == repr(self.device)

    def __hash__(self) -> int:
        return hash(repr(self.device))

    def __repr__(self) -> str:
        return f"<cudajit Context of {self.device!r}>"


_memory.register_context_type(Context)


def current_context() -> Context:
    """The context of the current device (``numba.cuda.current_context``). As in Numba, a
    thread with no CUDA context current gets the device's primary context made current
    (so a third party's driver calls find it), and one with a context current that is
    not a primary context is a RuntimeError: cudajit works in primary contexts."""
    return _memory.current_context()


def detect() -> bool:
    """Print the CUDA GPUs found, in Numba's format, and return whether there is at least
    one; without one, say why and that kernels run on the cpu device."""
    if not _core.cuda_available():
        print(f"Found 0 CUDA devices\nNo CUDA GPU: {_core.cuda_unavailable_reason()}; "
              "cudajit uses the cpu device")
        return False
    devices = list_devices()
    print(f"Found {len(devices)} CUDA devices")
    for d in devices:
        major, minor = d.compute_capability
        print(f"id {d.id} {d.name!r:>40} [SUPPORTED]\n"
              f"{'Compute Capability':>40}: {major}.{minor}")
    print(f"Summary:\n\t{len(devices)}/{len(devices)} devices are supported")
    return True


def synchronize() -> None:
    """Wait until all work on the current device has finished."""
    _core.current_device().synchronize()


# --- streams and events -----------------------------------------------------------------

def stream() -> Stream:
    """A new stream on the current device."""
    return _core.current_device().create_stream()


def legacy_default_stream() -> Stream:
    return _core.current_device().legacy_default_stream()


def per_thread_default_stream() -> Stream:
    return _core.current_device().per_thread_default_stream()


def default_stream() -> Stream:
    """The default stream: the legacy default stream, as in Numba."""
    return legacy_default_stream()


def external_stream(ptr: int) -> Stream:
    """A Stream for a CUstream made by another library (not owned by cudajit; its
    ``external`` is True). As in Numba the handle is not touched here: on a GPU, the
    check that it is a stream of the device's primary context comes at its first use."""
    try:
        handle = operator.index(ptr)
    except TypeError:
        raise TypeError(f"external_stream() takes a CUstream handle (an int), got "
                        f"{type(ptr).__name__} {ptr!r}") from None
    if not 0 <= handle < 2**64:
        raise ValueError(f"external_stream() takes a CUstream handle from 0 to 2**64 - 1, "
                         f"got {handle}")
    return _core.current_device().external_stream(handle)


class _AutoSynchronize:
    def __init__(self, s: Stream):
        self.stream = s

    def __enter__(self) -> Stream:
        return self.stream

    def __exit__(self, *exc: Any) -> None:
        self.stream.synchronize()


def _auto_synchronize(self: Stream) -> _AutoSynchronize:
    """``with stream.auto_synchronize():`` synchronizes the stream when the block ends."""
    return _AutoSynchronize(self)


Stream.auto_synchronize = _auto_synchronize


def event(timing: bool = True) -> Event:
    """A new event on the current device; ``timing`` enables elapsed_time()."""
    if not isinstance(timing, (bool, np.bool_)):
        raise TypeError(f"event(timing) takes a bool, got {type(timing).__name__} {timing!r}")
    return _core.current_device().create_event(bool(timing))


def event_elapsed_time(evtstart: Event, evtend: Event) -> float:
    """Milliseconds between two recorded timing events."""
    for name, value in (("evtstart", evtstart), ("evtend", evtend)):
        if not isinstance(value, Event):
            raise TypeError(f"event_elapsed_time() takes two events; {name} is a "
                            f"{type(value).__name__}")
    return evtstart.elapsed_time(evtend)


# --- memory -----------------------------------------------------------------------------

def device_array_like(ary: Any, stream: Any = 0) -> DeviceNDArray:
    """An uninitialised device array with the shape and dtype of ``ary`` (and its
    layout when contiguous)."""
    if not (hasattr(ary, "shape") and hasattr(ary, "dtype")):
        raise TypeError(f"device_array_like() takes an array (with .shape and .dtype), got "
                        f"{type(ary).__name__}")
    return device_array(ary.shape, ary.dtype, order=_order_like(ary), stream=stream)


def _host_array(kind: str, shape: Any, dtype: Any, strides: Any, order: str,
                stream: Any = 0) -> np.ndarray:
    dims = as_shape(shape)
    dt = supported_dtype(dtype)
    if strides is None:
        strides = contiguous_strides(dims, dt.itemsize, order)
    nbytes = math.prod(dims) * dt.itemsize  # Python ints: never wraps
    if nbytes > 2**63 - 1:
        raise ValueError(f"{kind} array: shape {dims} with {dt.itemsize}-byte elements is larger "
                         "than 2**63 - 1 bytes")
    nbytes = max(1, nbytes)
    device = _core.current_device()
    if kind != "pinned" and not is_default_stream(stream):
        _core.resolve_stream(stream)  # a TypeError for what is no stream, before allocating
    memory = _core.allocate_host(device, nbytes, kind)
    if kind == "pinned":  # Numba's pinned arrays are plain NumPy arrays
        return np.ndarray(dims, dtype=dt, buffer=memory, strides=strides)
    cls = _host_arrays.MappedNDArray if kind == "mapped" else _host_arrays.ManagedNDArray
    return _host_arrays.host_array(cls, memory, dims, dt, strides, stream)


def pinned_array(shape: Any, dtype: Any = np.float64, strides: Any = None,
                 order: str = "C") -> np.ndarray:
    """A host array in page-locked memory (faster, asynchronous transfers)."""
    return _host_array("pinned", shape, dtype, strides, order)


def mapped_array(shape: Any, dtype: Any = np.float64, strides: Any = None, order: str = "C",
                 stream: Any = 0, portable: bool = False, wc: bool = False) -> np.ndarray:
    """A host array in page-locked memory mapped into the device's address space:
    kernels use it in place, without copies. A :class:`~cudajit.host_arrays.MappedNDArray`
    (a NumPy array) exporting ``__cuda_array_interface__`` with ``stream``."""
    return _host_array("mapped", shape, dtype, strides, order, stream)


def managed_array(shape: Any, dtype: Any = np.float64, strides: Any = None, order: str = "C",
                  stream: Any = 0, attach_global: bool = True) -> np.ndarray:
    """An array in managed (unified) memory, usable from the host and, in place,
    from kernels. A :class:`~cudajit.host_arrays.ManagedNDArray` (a NumPy array) exporting
    ``__cuda_array_interface__`` with ``stream``."""
    return _host_array("managed", shape, dtype, strides, order, stream)


def _order_like(ary: Any) -> str:
    """The order of a new array like ``ary``: NumPy's order "K" as far as C and F go (a
    non-contiguous view whose strides grow from the first axis to the last is F)."""
    flags = getattr(ary, "flags", None)
    if flags is not None and flags["F_CONTIGUOUS"] and not flags["C_CONTIGUOUS"]:
        return "F"
    if flags is not None and not flags["C_CONTIGUOUS"]:
        strides = [abs(s) for n, s in zip(ary.shape, ary.strides) if n > 1]
        if len(strides) > 1 and strides == sorted(strides) and len(set(strides)) == len(strides):
            return "F"
    return "C"


def _like(function: Any, ary: Any, **options: Any) -> np.ndarray:
    if not (hasattr(ary, "shape") and hasattr(ary, "dtype")):
        raise TypeError(f"{function.__name__}_like() takes an array (with .shape and .dtype), "
                        f"got {type(ary).__name__}")
    return function(ary.shape, ary.dtype, order=_order_like(ary), **options)


def pinned_array_like(ary: Any) -> np.ndarray:
    """A pinned host array with the shape, dtype and order of ``ary``."""
    return _like(pinned_array, ary)


def mapped_array_like(ary: Any, stream: Any = 0, portable: bool = False,
                      wc: bool = False) -> np.ndarray:
    """A mapped host array with the shape, dtype and order of ``ary``."""
    return _like(mapped_array, ary, stream=stream, portable=portable, wc=wc)


def managed_array_like(ary: Any, stream: Any = 0, attach_global: bool = True) -> np.ndarray:
    """A managed array with the shape, dtype and order of ``ary``."""
    return _like(managed_array, ary, stream=stream, attach_global=attach_global)


@contextlib.contextmanager
def mapped(*arylist: np.ndarray, stream: Any = 0) -> Iterator[Any]:
    """Page-lock host arrays and map them into the device's address space for the block:
    yields a device array over each (the array itself for one argument, else a list), which
    kernels read and write in place, without copies; ``stream`` is their default stream. The
    arrays are unmapped when the block ends, also on an exception; the device arrays must
    not be used after it."""
    device = _core.current_device()
    registrations = []
    views = []
    try:
        for ary in arylist:
            if not isinstance(ary, np.ndarray):
                raise TypeError(f"cuda.mapped() maps NumPy arrays, got {type(ary).__name__}")
            registrations.append(_core.register_host(device, ary))
            views.append(_mapped_view(ary, stream))
        yield views[0] if len(views) == 1 else views
    finally:
        for registration in registrations:
            registration.unregister()


def _mapped_view(ary: np.ndarray, stream: Any) -> DeviceNDArray:
    """A device array over the registered host array ``ary``: with unified addressing the
    device sees registered host memory at its host address (the cpu device: host memory)."""
    desc = {"shape": ary.shape, "strides": ary.strides, "typestr": ary.dtype.str,
            "data": (ary.ctypes.data if ary.size else 0, not ary.flags.writeable),
            "version": 3, "stream": None}
    if ary.dtype.names is not None:
        desc["descr"] = ary.dtype.descr
    view = DeviceNDArray(_core.import_cai_dict(desc, ary, False))
    return view if is_default_stream(stream) else view.bind(stream)


@contextlib.contextmanager
def pinned(*arylist: np.ndarray) -> Iterator[None]:
    """Page-lock the memory of host arrays for the duration of the block, so
    copies from and to them are faster and may be asynchronous."""
    registrations = [_core.register_host(_core.current_device(), np.asarray(a)) for a in arylist]
    try:
        yield
    finally:
        for r in registrations:
            r.unregister()
