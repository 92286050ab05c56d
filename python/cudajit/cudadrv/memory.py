"""Numba's driver-level memory objects and memory managers, over cudajit's runtime.

``cuda.current_context().memalloc(n)`` and its siblings give raw memory, as Numba's do:
a :class:`MemoryPointer` for device memory; :class:`PinnedMemory`, :class:`MappedMemory`
and :class:`ManagedMemory` for host memory, which NumPy takes as a buffer
(``np.ndarray(n, buffer=mem)``). The memory comes from cudajit's runtime (the same
allocations device arrays and ``cuda.pinned_array`` use); releasing it goes through the
context's :class:`PendingDeallocs`, Numba's queue of deallocations, which
``cuda.defer_cleanup()`` holds back.

The memory manager classes are Numba's External Memory Management (EMM) interface. A
plugin (:func:`set_memory_manager`, or assigning ``Context.memory_manager``) allocates the
device memory of a GPU from then on: cudajit's runtime calls its ``memalloc`` for device
arrays and for the copies a launch makes, and holds the memory object it returns until the
memory is released.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import threading
import weakref
from typing import Any, Callable, Iterator, NamedTuple

import numpy as np

from .. import _core

__all__ = ["MemoryInfo", "PendingDeallocs", "MemoryPointer", "AutoFreePointer", "PinnedMemory",
           "MappedMemory", "ManagedMemory", "BaseCUDAMemoryManager",
           "HostOnlyCUDAMemoryManager", "GetIpcHandleMixin", "NumbaCUDAMemoryManager",
           "set_memory_manager", "EMM_INTERFACE_VERSION"]

# The EMM interface version plugins must implement (Numba's _SUPPORTED_EMM_INTERFACE_VERSION).
EMM_INTERFACE_VERSION = 1


class MemoryInfo(NamedTuple):
    """Free and total bytes of a device's memory."""
    free: int
    total: int


class PendingDeallocs:
    """``Context.deallocations``: the device's queue of pending deallocations, as Numba's
    ``_PendingDeallocs``, kept by cudajit's runtime. Memory whose last reference went (a
    device array's, a ``memalloc``'s, a temporary copy of a launch's, pinned, mapped and
    managed memory) waits in it; the queue frees everything once it holds more than
    ``config.CUDA_DEALLOCS_COUNT`` allocations or more than ``config.CUDA_DEALLOCS_RATIO``
    of the device's memory, when an allocation fails for lack of memory, and at
    :meth:`clear`. :meth:`disable` (``cuda.defer_cleanup()``) holds it all back."""

    def __init__(self, device: Any):
        self._device = device

    @property
    def memory_capacity(self) -> int:
        """The device's total memory, which the ratio applies to."""
        return self._device.deallocation_capacity()

    @property
    def _max_pending_bytes(self) -> int:
        """Past this many pending bytes the queue is freed."""
        return self._device.max_pending_deallocation_bytes()

    @property
    def _size(self) -> int:
        """The bytes waiting to be freed."""
        return self._device.pending_deallocation_bytes()

    def add_item(self, dtor: Callable[[Any], None], handle: Any, size: int = 0) -> None:
        """Numba's API for releases that are not cudajit's memory: ``dtor(handle)`` runs at
        once (only the runtime's allocations wait in the queue)."""
        dtor(handle)

    def clear(self) -> None:
        """Free every pending deallocation, unless :meth:`disable` is in force."""
        self._device.clear_deallocations()

    @contextlib.contextmanager
    def disable(self) -> Iterator[None]:
        """Hold releases back for the block (nestable): :meth:`clear` does nothing inside."""
        self._device.disable_deallocations()
        try:
            yield
        finally:
            self._device.enable_deallocations()

    @property
    def is_disabled(self) -> bool:
        """Whether a :meth:`disable` block is in force."""
        return self._device.deallocations_disabled()

    def __len__(self) -> int:
        """The number of pending deallocations."""
        return self._device.pending_deallocations()


class _DeviceAddress:
    """The device address (``device_pointer``, a ``ctypes.c_void_p``) in Numba's spellings."""

    device_pointer: ctypes.c_void_p

    @property
    def device_pointer_value(self) -> int:
        """The device address as an int (0 for NULL)."""
        return self.device_pointer.value or 0

    @property
    def device_ctypes_pointer(self) -> ctypes.c_void_p:
        """The device address as a ``ctypes.c_void_p``."""
        return self.device_pointer


class MemoryPointer(_DeviceAddress):
    """Numba's ``MemoryPointer``: ``size`` bytes of device memory at ``pointer`` (an int or a
    ``ctypes.c_void_p``) in ``context``. ``finalizer`` runs once, when the object is freed
    (:meth:`free`) or collected. ``device_pointer_value`` is the address as an int,
    ``device_ctypes_pointer`` as a ``ctypes.c_void_p``; :meth:`view` is a part of it."""

    __cuda_memory__ = True

    def __init__(self, context: Any, pointer: Any, size: int, owner: Any = None,
                 finalizer: Callable[[], None] | None = None):
        self._setup(context, pointer, size, owner, finalizer)

    def _setup(self, context: Any, pointer: Any, size: int, owner: Any,
               finalizer: Callable[[], None] | None) -> None:
        self.context = context
        self.device_pointer = pointer if isinstance(pointer, ctypes.c_void_p) \
            else ctypes.c_void_p(int(pointer))
        self.size = int(size)
        self._cuda_memsize_ = self.size
        self._owner = owner
        self.is_managed = finalizer is not None
        self._finalizer = weakref.finalize(self, finalizer) if finalizer is not None else None
        self.handle = self.device_pointer

    @property
    def owner(self) -> Any:
        """The object whose memory this is (itself, when it owns its memory)."""
        return self if self._owner is None else self._owner

    def own(self) -> "MemoryPointer":
        """Numba's owned reference: in cudajit the pointer itself (its lifetime is its
        references' already)."""
        return self

    def free(self) -> None:
        """Release the memory now (through the context's deallocation queue)."""
        if self._finalizer is not None and self._finalizer.alive:
            self._finalizer()

    def memset(self, byte: int, count: int | None = None, stream: Any = 0) -> None:
        """Set ``count`` bytes (all by default) to ``byte``, on ``stream`` (0: wait for it)."""
        _raw_bytes(self, self.size if count is None else count).memset(byte, stream or None)
        if not stream:
            self.context.synchronize()

    def view(self, start: int, stop: int | None = None) -> "MemoryPointer":
        """Bytes ``[start, stop)`` of this memory, keeping it alive."""
        stop = self.size if stop is None else stop
        if not 0 <= start <= stop <= self.size:
            raise IndexError(f"view [{start}, {stop}) of {self.size} bytes is out of range")
        view = MemoryPointer(self.context, self.device_pointer_value + start, stop - start,
                             owner=self.owner)
        view._runtime = getattr(self, "_runtime", None)
        return view

    def __repr__(self) -> str:
        return (f"<{type(self).__name__} of {self.size} bytes at "
                f"{self.device_pointer_value:#x}>")


class AutoFreePointer(MemoryPointer):
    """Numba's ``AutoFreePointer``: a MemoryPointer freed when its last reference goes
    (every cudajit MemoryPointer is)."""


class _HostMemory(_DeviceAddress):
    """What pinned, mapped and managed memory share: the host address, the device address
    where kernels see it, and NumPy's buffer protocol (the instances are ctypes arrays of
    their bytes, so ``np.ndarray(n, buffer=mem)`` works on them)."""

    __cuda_memory__ = True
    _mapped = True

    context: Any
    host_pointer: ctypes.c_void_p
    device_pointer: ctypes.c_void_p
    size: int
    _runtime: list
    _finalizer: Any

    @property
    def _cuda_memsize_(self) -> int:
        return self.size

    @property
    def owner(self) -> "_HostMemory":
        return self

    def own(self) -> "_HostMemory":
        return self

    def free(self) -> None:
        """Release the memory now (through the context's deallocation queue)."""
        if self._finalizer.alive:
            self._finalizer()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self.size} bytes at {self.host_pointer.value or 0:#x}>"


class PinnedMemory(_HostMemory):
    """Page-locked host memory (``Context.memhostalloc(n)``, ``Context.mempin``)."""

    _mapped = False


class MappedMemory(_HostMemory):
    """Page-locked host memory mapped into the device's address space
    (``Context.memhostalloc(n, mapped=True)``): kernels and the driver's copies use it at
    ``device_pointer``."""


class ManagedMemory(_HostMemory):
    """Managed (unified) memory (``Context.memallocmanaged(n)``), used in place by the host
    and by kernels."""


def _host_object(cls: type, context: Any, host: int, device: int, size: int,
                 runtime: Any) -> Any:
    """An instance of ``cls`` over ``size`` bytes at ``host`` (its buffer), holding
    ``runtime`` (what keeps the memory) until it is freed or collected; then the runtime's
    memory goes to the device's deallocation queue (a pinning ends at once)."""
    memory = _buffer_type(cls, size).from_address(host)
    memory.context = context
    memory.host_pointer = ctypes.c_void_p(host)
    memory.device_pointer = ctypes.c_void_p(device)
    memory.handle = memory.host_pointer
    memory.size = size
    holder = [runtime]
    memory._runtime = holder
    memory._finalizer = weakref.finalize(memory, holder.clear)
    return memory


@functools.lru_cache(maxsize=256)
def _buffer_type(cls: type, size: int) -> type:
    """``cls`` as a ctypes array of ``size`` bytes (one class per size, as ctypes needs)."""
    return type(cls.__name__, (cls, ctypes.c_ubyte * size), {"__module__": __name__})


def _host_address(memory: Any) -> int:
    """The host address of a runtime HostMemory's first byte."""
    return int(np.frombuffer(memory, dtype=np.uint8).ctypes.data) if memory.nbytes else 0


def _raw_bytes(obj: Any, size: int) -> Any:
    """A runtime byte array over the first ``size`` bytes of ``obj``'s device memory."""
    runtime = getattr(obj, "_runtime", None)
    address = obj.device_pointer_value
    desc = {"shape": (size,), "typestr": "|u1", "data": (address, False), "version": 3,
            "strides": None}
    return _core.import_cai_dict(desc, runtime, False)


class BaseCUDAMemoryManager:
    """Numba's EMM interface: what a memory manager plugin implements. ``context`` is the
    context it serves; see the module's docstring for what cudajit does with a plugin."""

    def __init__(self, *args: Any, **kwargs: Any):
        if "context" not in kwargs:
            raise RuntimeError("Memory manager requires a context")
        self.context = kwargs.pop("context")

    def memalloc(self, size: int) -> MemoryPointer:
        raise NotImplementedError

    def memhostalloc(self, size: int, mapped: bool = False, portable: bool = False,
                     wc: bool = False) -> Any:
        raise NotImplementedError

    def mempin(self, owner: Any, pointer: int, size: int, mapped: bool = False) -> Any:
        raise NotImplementedError

    def initialize(self) -> None:
        raise NotImplementedError

    def get_ipc_handle(self, memory: Any) -> Any:
        raise NotImplementedError

    def get_memory_info(self) -> MemoryInfo:
        raise NotImplementedError

    def reset(self) -> None:
        raise NotImplementedError

    @contextlib.contextmanager
    def defer_cleanup(self) -> Iterator[None]:
        raise NotImplementedError
        yield  # pragma: no cover

    @property
    def interface_version(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} does not define interface_version")


class HostOnlyCUDAMemoryManager(BaseCUDAMemoryManager):
    """Numba's base for plugins that manage device memory only: host memory (pinned, mapped,
    pinning) from cudajit's runtime, released through :attr:`deallocations`."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.allocations: dict[int, Any] = {}
        device = getattr(self.context, "device", None)
        self.deallocations = PendingDeallocs(device) if device is not None else None

    def _device(self) -> Any:
        return self.context.device

    def memhostalloc(self, size: int, mapped: bool = False, portable: bool = False,
                     wc: bool = False) -> Any:
        """``size`` bytes of page-locked host memory, mapped into the device's address space
        with ``mapped``. Every cudajit allocation is portable (usable from every context);
        ``wc`` (write-combined) is a hint cudajit's runtime does not apply."""
        runtime = _core.allocate_host(self._device(), max(int(size), 1),
                                      "mapped" if mapped else "pinned")
        host = _host_address(runtime)
        device = runtime.device_pointer if mapped else 0
        cls = MappedMemory if mapped else PinnedMemory
        return _host_object(cls, self.context, host, device, int(size), runtime)

    def mempin(self, owner: Any, pointer: int, size: int, mapped: bool = False) -> Any:
        """Page-lock ``size`` bytes of host memory at ``pointer`` (which ``owner`` keeps
        valid) until the returned PinnedMemory is released. cudajit's runtime pins without
        mapping: ``mapped=True`` raises NotImplementedError."""
        if mapped:
            raise NotImplementedError("mempin(mapped=True): cudajit pins host memory without "
                                      "mapping it into the device; use "
                                      "Context.memhostalloc(n, mapped=True) or "
                                      "cuda.mapped_array")
        address = pointer.value if isinstance(pointer, ctypes.c_void_p) else int(pointer)
        view = np.ctypeslib.as_array((ctypes.c_ubyte * int(size)).from_address(address))
        registration = _core.register_host(self._device(), view)
        runtime = _Pinning(registration, owner)
        return _host_object(PinnedMemory, self.context, address, 0, int(size), runtime)

    def reset(self) -> None:
        """Run the queued releases (cudajit's memory that objects still hold stays valid)."""
        self.deallocations.clear()

    @contextlib.contextmanager
    def defer_cleanup(self) -> Iterator[None]:
        """Hold the queued releases back for the block."""
        with self.deallocations.disable():
            yield


class _Pinning:
    """A host range's page-locking: unregistered when the queue releases it."""

    def __init__(self, registration: Any, owner: Any):
        self.registration = registration
        self.owner = owner

    def __del__(self) -> None:
        self.registration.unregister()


class GetIpcHandleMixin:
    """Numba's ``get_ipc_handle`` for plugins. cudajit offers no CUDA IPC (handles to share
    device memory with another process): NotImplementedError."""

    def get_ipc_handle(self, memory: Any) -> Any:
        raise NotImplementedError("cudajit does not offer CUDA IPC (get_ipc_handle); share "
                                  "device memory between processes with another library")


class NumbaCUDAMemoryManager(GetIpcHandleMixin, HostOnlyCUDAMemoryManager):
    """The memory manager every cudajit context has: its memory comes from cudajit's
    runtime (the device's driver, or host memory on the cpu device)."""

    def initialize(self) -> None:
        """Nothing to prepare: the runtime allocates on demand."""

    def memalloc(self, size: int) -> MemoryPointer:
        """``size`` bytes of device memory."""
        runtime = _core.allocate_array(self._device(), [max(int(size), 1)], [1], "uint8")
        holder = [runtime]
        pointer = MemoryPointer(self.context, runtime.device_pointer, int(size),
                                finalizer=holder.clear)
        pointer._runtime = holder
        del runtime
        return pointer

    def memallocmanaged(self, size: int, attach_global: bool = True) -> ManagedMemory:
        """``size`` bytes of managed memory, usable from the host and from kernels.
        ``attach_global=False`` (attached to the host) is accepted; cudajit's managed memory
        is always attached globally, which every device of compute capability 6.0 and later
        treats the same for the host's accesses."""
        runtime = _core.allocate_host(self._device(), max(int(size), 1), "managed")
        return _host_object(ManagedMemory, self.context, _host_address(runtime),
                            runtime.device_pointer, int(size), runtime)

    def get_memory_info(self) -> MemoryInfo:
        """Free and total bytes of the device's memory (the host's on the cpu device)."""
        free, total = self._device().memory_info()
        return MemoryInfo(free, total)

    @property
    def interface_version(self) -> int:
        return EMM_INTERFACE_VERSION


def check_plugin_version(plugin: Any) -> None:
    """Numba's check of an EMM plugin's ``interface_version``: a RuntimeError unless 1."""
    version = plugin.interface_version
    if version != EMM_INTERFACE_VERSION:
        raise RuntimeError(f"EMM Plugin interface has version {version} - version "
                           f"{EMM_INTERFACE_VERSION} required")


# The memory manager of each device (by repr(device)) once asked for or installed, and the
# plugin class set_memory_manager() chose for the devices whose manager is made later.
_MANAGERS: dict[str, Any] = {}
_PLUGIN_CLASS: list[type] = []
# The memory objects plugins gave for device memory, by device address, while they live.
_PLUGIN_MEMORY: "weakref.WeakValueDictionary[int, Any]" = weakref.WeakValueDictionary()


def _is_own(manager: Any) -> bool:
    """Whether ``manager`` allocates device memory as cudajit's runtime does (its memalloc is
    NumbaCUDAMemoryManager's)."""
    return getattr(type(manager), "memalloc", None) is NumbaCUDAMemoryManager.memalloc


def manager_of(context: Any) -> Any:
    """The memory manager of ``context``'s device: made at the first question, cudajit's own
    or an instance of the class :func:`set_memory_manager` chose."""
    manager = _MANAGERS.get(repr(context.device))
    if manager is None:
        use_plugin = _PLUGIN_CLASS and context.device.kind == "cuda"
        manager = (_PLUGIN_CLASS[0] if use_plugin else NumbaCUDAMemoryManager)(context=context)
        install(context, manager)
    return manager


def install(context: Any, manager: Any) -> None:
    """Make ``manager`` the memory manager of ``context``'s device (``Context.memory_manager =
    plugin``). An EMM plugin (one with a memalloc of its own) allocates every device array of
    a GPU and a launch's copies from then on, through the runtime: its memory objects are
    held while the runtime uses the memory and dropped when it is released (their finalizers
    free it; the deallocation queue does not hold them). Numba's version check first."""
    check_plugin_version(manager)
    device = context.device
    own = _is_own(manager)
    if not own and device.kind != "cuda":
        raise NotImplementedError(
            f"the memory manager {type(manager).__name__} cannot serve the cpu device: EMM "
            "plugins allocate GPU memory, and the cpu device's memory is the host's")
    manager.initialize()
    device.set_memory_plugin(None if own else functools.partial(_plugin_memalloc, manager))
    _MANAGERS[repr(device)] = manager


_IN_PLUGIN = threading.local()


def _plugin_memalloc(manager: Any, size: int) -> tuple[int, Any] | None:
    """What the runtime calls for device memory while ``manager`` is installed: its
    ``memalloc(size)`` and the memory's device address. None (the runtime's own allocation)
    for what the plugin allocates itself through cudajit (a plugin wrapping cudajit's own
    manager), which would otherwise come back here without end."""
    if getattr(_IN_PLUGIN, "active", False):
        return None
    _IN_PLUGIN.active = True
    try:
        memory = manager.memalloc(size)
    finally:
        _IN_PLUGIN.active = False
    pointer = getattr(memory, "device_pointer", None)
    address = getattr(memory, "device_pointer_value", None)
    if address is None:
        address = pointer.value if isinstance(pointer, ctypes.c_void_p) else pointer
    if not isinstance(address, int):
        raise TypeError(f"{type(manager).__name__}.memalloc({size}) returned "
                        f"{type(memory).__name__}, expected a MemoryPointer (with "
                        "device_pointer_value or device_pointer)")
    try:
        _PLUGIN_MEMORY[address] = memory
    except TypeError:  # no weak references to it: IPC handles cannot find it
        pass
    return address, memory


class IpcArrayHandle:
    """Numba's handle to share a device array with another process: ``_ipc_handle`` is what
    the memory manager's ``get_ipc_handle`` gave, ``_array_desc`` the array's shape, strides
    and dtype. Only EMM plugins give them (cudajit offers no CUDA IPC of its own)."""

    def __init__(self, ipc_handle: Any, array_desc: dict):
        self._ipc_handle = ipc_handle
        self._array_desc = array_desc


def ipc_handle(array: Any) -> IpcArrayHandle:
    """``DeviceNDArray.get_ipc_handle()``: the IPC handle of the plugin memory under
    ``array``, from the plugin that allocated it."""
    address = array.device_ctypes_pointer.value or 0
    manager = _MANAGERS.get(repr(array.device))
    for start, memory in list(_PLUGIN_MEMORY.items()):
        if manager is not None and start <= address < start + max(int(memory.size), 1):
            desc = {"shape": array.shape, "strides": array.strides, "dtype": array.dtype}
            return IpcArrayHandle(manager.get_ipc_handle(memory), desc)
    raise NotImplementedError("cudajit does not offer CUDA IPC (get_ipc_handle) for memory of "
                              "its own; an EMM plugin's memory (cuda.set_memory_manager) gives "
                              "the plugin's handle")


def set_memory_manager(mm_plugin: type) -> None:
    """numba.cuda.set_memory_manager: checks the plugin class's interface version (a
    RuntimeError unless 1, as Numba), then makes an instance of it the memory manager of
    every GPU: of the current one and those already used now, of the others when first
    used. The cpu device keeps its own (a plugin allocates GPU memory)."""
    check_plugin_version(mm_plugin(context=None))
    _PLUGIN_CLASS[:] = [] if mm_plugin is NumbaCUDAMemoryManager else [mm_plugin]
    current = _core.current_device()
    devices = {repr(current): current}
    if _core.cuda_available():
        for ordinal in range(_core.cuda_device_count()):
            device = _core.cuda_device(ordinal)
            devices.setdefault(repr(device), device)
    for device in devices.values():
        if device.kind == "cuda":
            context = _CONTEXT_TYPE[0](device)
            install(context, mm_plugin(context=context))


# The class of cuda.current_context()'s contexts (api.Context), registered by the module
# that defines it, which imports this one.
_CONTEXT_TYPE: list[type] = []


def register_context_type(context_type: type) -> None:
    """Make ``context_type(device)`` the context :func:`set_memory_manager` gives managers."""
    _CONTEXT_TYPE[:] = [context_type]


def current_context() -> Any:
    """The current device's context (``cuda.current_context()``), its primary context made
    current on this thread (a RuntimeError where another context is current)."""
    device = _core.current_device()
    device.activate_context()
    return _CONTEXT_TYPE[0](device)
