"""DeviceNDArray: an array in device memory, as ``numba.cuda``'s.

The memory, shape, strides, dtype and default stream live in the C++ base
class (``cudajit._core.DeviceArray``), which kernel launches read directly;
this class adds the NumPy-like surface: copies to and from the host, views by
indexing, reshape, ravel, transpose, and ``__cuda_array_interface__``.
"""

from __future__ import annotations

import ctypes
import operator
import sys
import types
from typing import Any

import numpy as np

from . import _core
from . import types as _types
from .cudadrv import memory as _memory

__all__ = ["DeviceNDArray", "is_device_array", "auto_device"]

# Numba's text for a copy that a non-contiguous array cannot take part in (its tests and
# programs match it).
errmsg_contiguous_buffer = ("Array contains non-contiguous buffer and cannot be transferred "
                            "as a single memory region. Please ensure contiguous buffer with "
                            "numpy .ascontiguousarray()")

_INDEX_TYPES = (int, np.integer, slice, type(None), type(Ellipsis))


def _numpy_view(shape: tuple, strides: tuple, dtype: np.dtype) -> np.ndarray:
    """A NumPy array with this shape and these strides over a one-element buffer:
    indexing it computes the offset, shape and strides of a view without
    touching memory (the result is never read)."""
    base = np.empty(1, dtype=dtype)
    return np.lib.stride_tricks.as_strided(base, shape=shape, strides=strides)


def _shape_text(shape: tuple) -> str:
    """A shape as NumPy writes it in broadcasting errors: (2,3), (5,)."""
    return "(" + ",".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def is_default_stream(stream: Any) -> bool:
    """0 and None name no stream in particular (Numba's convention): synchronous
    copies, and arrays with no default stream of their own."""
    return stream is None or (isinstance(stream, int) and stream == 0)


def contiguous_strides(shape: tuple[int, ...], itemsize: int, order: str) -> tuple[int, ...]:
    """Byte strides of a C- or F-contiguous array of this shape."""
    if order not in ("C", "F"):
        raise ValueError(f"order must be 'C' or 'F', got {order!r}")
    strides = [0] * len(shape)
    step = itemsize
    dims = range(len(shape) - 1, -1, -1) if order == "C" else range(len(shape))
    for d in dims:
        strides[d] = step
        step *= max(shape[d], 1)
    return tuple(strides)


class _ArrayMemory(_memory.MemoryPointer):
    """A device array's memory as its ``gpu_data``: two arrays over the same bytes have equal
    ones, as Numba's views share one object."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _memory.MemoryPointer) and \
            (self.device_pointer_value, self.size) == (other.device_pointer_value, other.size)

    def __hash__(self) -> int:
        return hash((self.device_pointer_value, self.size))


class DeviceNDArray(_core.DeviceArray):
    """An array in the memory of a device (the GPU, or the cpu device)."""

    # Numba's markers of device memory and of its device arrays: numba.cuda's own helpers
    # (is_device_memory, is_cuda_ndarray) accept ours.
    __cuda_memory__ = True
    __cuda_ndarray__ = True

    def __init__(self, core: _core.DeviceArray):
        super().__init__(core)

    # --- description -----------------------------------------------------------------

    @property
    def dtype(self) -> np.dtype:
        record = self.record_dtype
        return np.dtype(self.dtype_name) if record is None else record

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d device array")
        return self.shape[0]

    def __repr__(self) -> str:
        return (f"<cudajit DeviceNDArray shape={self.shape} dtype={self.dtype} "
                f"on {self.device.name}>")

    @property
    def stream(self) -> Any:
        """The array's default stream (for its copies, and the stream a foreign array's
        CUDA Array Interface named); 0 when it has none of its own, as in Numba."""
        own = super().stream
        return 0 if own is None else own

    # Numba's attributes of its device arrays, which numba.cuda code (its runtime, its tests,
    # libraries written for it) reads.

    @property
    def _numba_type_(self) -> Any:
        """The type a launch gives this array (element, dimensions, layout, read-only), under
        the name Numba's ``typeof`` asks objects for. Where Numba is imported (who asks for it),
        Numba's own ``Array`` type, so that numba-cuda's kernels and Numba's typing take
        cudajit's arrays (as their memory, through the CUDA Array Interface); else cudajit's
        type, ``cuda.typeof(d)`` (``array(float64, 2d, C)``, with the same ``.dtype``,
        ``.ndim`` and ``.layout``)."""
        own = _types.typeof(self)
        numba_types = sys.modules.get("numba.core.types")
        if numba_types is None:
            return own
        from numba.np.numpy_support import from_dtype  # imported with numba.core.types
        return numba_types.Array(from_dtype(self.dtype), own.ndim, own.layout,
                                 readonly=own.readonly)

    @property
    def gpu_data(self) -> Any:
        """Numba's ``gpu_data``: the array's device memory as a ``MemoryPointer`` (its first
        element's address and the bytes it spans), keeping the array alive. Two arrays over the
        same bytes (``d.view(np.int64)`` of a datetime64 array) have equal ``gpu_data``, as
        Numba's views share one object."""
        return _ArrayMemory(_memory.current_context(), self.device_pointer, self.nbytes,
                            owner=self)

    @property
    def device_ctypes_pointer(self) -> ctypes.c_size_t:
        """The address of the first element as a ctypes integer, as Numba's
        ``DeviceNDArray.device_ctypes_pointer``: what its ctypes and cuda-python launches
        take for a pointer argument. 0 for an array of no elements (Numba's NULL)."""
        return ctypes.c_size_t(self.device_pointer if self.size else 0)

    @property
    def _strided_memory_view_shim(self) -> types.SimpleNamespace:
        """What numba-cuda's launches read of an object that is device memory by its markers
        (``__cuda_memory__``): address, shape, dtype, size and the strided layout, so that
        numba-cuda's kernels take cudajit's arrays in place."""
        layout = types.SimpleNamespace(
            strides_in_bytes=tuple(self.strides), is_contiguous_c=self.is_c_contiguous(),
            is_contiguous_f=self.is_f_contiguous(),
            is_contiguous_any=self.is_c_contiguous() or self.is_f_contiguous())
        return types.SimpleNamespace(ptr=self.device_pointer, shape=tuple(self.shape),
                                     dtype=self.dtype, size=self.size, _layout=layout)

    @property
    def alloc_size(self) -> int:
        """Bytes from the lowest to the highest byte an element touches, as Numba's
        ``alloc_size`` (the extent a copy moves): ``d.size * d.itemsize`` for a contiguous
        array, more for a strided view, 0 for an array of no elements."""
        lo, hi = self.extent()
        return hi - lo

    def is_c_contiguous(self) -> bool:
        return self.layout == "C"

    @property
    def flags(self) -> dict[str, bool]:
        """``{'C_CONTIGUOUS': ..., 'F_CONTIGUOUS': ...}``, as Numba's device arrays have."""
        return {"C_CONTIGUOUS": self.is_c_contiguous(), "F_CONTIGUOUS": self.is_f_contiguous()}

    def is_f_contiguous(self) -> bool:
        return self.layout == "F" or (self.layout == "C" and sum(n > 1 for n in self.shape) <= 1)

    @property
    def __cuda_array_interface__(self) -> dict:
        """CUDA Array Interface v3: strides None when C-contiguous; stream the
        array's default stream, or None for the legacy default stream (never 0).
        Only for GPU memory: an array of the cpu device is host memory, which the
        interface cannot describe (a consumer would take it for device memory), so
        it has none; ``np.asarray`` copies it (``__array__``, as on a GPU) and DLPack
        exports it as kDLCPU memory."""
        if self.device.kind != "cuda":
            raise AttributeError(
                "an array of the cpu device is host memory and exports no "
                "__cuda_array_interface__ (cuda.is_cuda_array() is False for it): its address "
                "is d.device_pointer (as ['data'][0] would be, on every device); np.asarray() "
                "copies it, DLPack exports it as kDLCPU")
        stream = super().stream
        handle = None if stream is None else stream.handle
        return {
            "shape": self.shape,
            "strides": None if self.is_c_contiguous() else self.strides,
            # Zero-size arrays export 0, as the interface asks.
            "data": (self.device_pointer if self.size else 0, self.readonly),
            "typestr": self.dtype.str,
            "descr": self.dtype.descr if self.dtype.names else [("", self.dtype.str)],
            "version": 3,
            # The legacy default stream is 1 in the interface (0 is forbidden).
            "stream": 1 if handle == 0 else handle,
        }

    def __dlpack__(self, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: Any = None) -> Any:
        """A DLPack capsule viewing this array (array-API ``__dlpack__``). ``stream``
        is the consumer's (1 legacy default, 2 per-thread default, -1 no
        synchronisation); it is made to wait for this array's stream."""
        if copy:
            raise BufferError("__dlpack__(copy=True) is not supported: cudajit exports views")
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(f"__dlpack__: the array is on {self.__dlpack_device__()}, "
                              f"not {tuple(dl_device)}")
        versioned = max_version is not None and tuple(max_version) >= (1, 0)
        return _core.export_dlpack(self, stream, versioned)

    def get_ipc_handle(self) -> Any:
        """Numba's handle to share this array with another process (an ``IpcArrayHandle``):
        for memory an EMM plugin allocated, the plugin's ``get_ipc_handle``; cudajit offers
        no CUDA IPC of its own (NotImplementedError)."""
        return _memory.ipc_handle(self)

    def __dlpack_device__(self) -> tuple[int, int]:
        device = self.device
        return (2, device.id) if device.kind == "cuda" else (1, 0)

    # --- copies ------------------------------------------------------------------------

    def _host_buffer_view(self, raw: np.ndarray) -> np.ndarray:
        """The elements of a host byte buffer laid out as this array's extent."""
        lo, _ = self.extent()
        return np.ndarray(self.shape, dtype=self.dtype, buffer=raw, offset=-lo,
                          strides=self.strides)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """``np.asarray(d)``: a host copy, as Numba's device arrays give (one bulk copy, not
        an element at a time). ``np.array(d, copy=False)`` asks for no copy, which device
        memory cannot give: a ValueError, as NumPy's protocol wants and Numba raises."""
        if copy is False:
            raise ValueError("`copy=False` is not supported. A copy is always created.")
        host = self.copy_to_host()
        return host if dtype is None else host.astype(dtype, copy=False)

    def copy_to_host(self, ary: np.ndarray | None = None, stream: Any = 0) -> np.ndarray:
        """Copy to host memory: into ``ary`` if given, else into a new array.
        With ``stream=0`` the copy has finished on return; with a stream it is
        queued there (synchronize the stream before reading the result)."""
        if ary is not None and not isinstance(ary, np.ndarray):
            raise TypeError(f"copy_to_host() copies into a NumPy array, got "
                            f"{type(ary).__name__}")
        lo, hi = self.extent()
        raw = np.empty(hi - lo, dtype=np.uint8)
        direct = (ary is not None and ary.dtype == self.dtype and ary.shape == self.shape
                  and ary.strides == self.strides and self.layout != "A"
                  and ary.flags.writeable)
        if direct:
            raw = ary.ravel(order="A").view(np.uint8)  # a view: ary is contiguous
        if ary is not None and not direct:
            if ary.shape != self.shape:
                raise ValueError(f"copy_to_host: the host array has shape {ary.shape}, the "
                                 f"device array {self.shape}")
        super().copy_to_host(raw, None if is_default_stream(stream) else stream)
        if is_default_stream(stream) or (ary is not None and not direct):
            self._synchronize(stream)
        if direct:
            return ary
        view = self._host_buffer_view(raw)
        if ary is not None:
            np.copyto(ary, view)
            return ary
        return view if self.layout != "A" else view.copy()

    def copy_to_device(self, ary: Any, stream: Any = 0) -> None:
        """Copy ``ary`` (a host array, or a device array of the same shape) into this array.
        An array of another dtype is refused, as in Numba (convert it first)."""
        s = None if is_default_stream(stream) else stream
        source_dtype = getattr(ary, "dtype", None)
        if source_dtype is not None and np.dtype(source_dtype) != self.dtype:
            raise TypeError(f"copy_to_device: incompatible dtype: the source is "
                            f"{np.dtype(source_dtype)}, the device array {self.dtype}")
        if isinstance(ary, _core.DeviceArray):
            if ary.shape == self.shape and self.size == 0:
                return  # nothing to copy; the strides of empty arrays do not matter
            # One copy of the bytes: same layout on both sides (Numba's messages).
            if not (ary.is_c_contiguous() or ary.is_f_contiguous()):
                raise ValueError(errmsg_contiguous_buffer)
            if ary.shape != self.shape:
                raise ValueError(f"incompatible shape: {self.shape} vs. {ary.shape}")
            if ary.strides != self.strides:
                raise ValueError(f"incompatible strides: {self.strides} vs. {ary.strides}")
            self.copy_from_device(ary, s)
        else:
            host = np.asarray(ary)
            if host.shape != self.shape:
                try:
                    host = np.broadcast_to(host, self.shape)
                except ValueError:
                    raise ValueError(f"could not broadcast input array from shape "
                                     f"{_shape_text(host.shape)} into shape "
                                     f"{_shape_text(self.shape)}") from None
            lo, hi = self.extent()
            raw = np.empty(hi - lo, dtype=np.uint8)
            if self.layout == "A" and self.size:
                # A strided view: keep the bytes between its elements as they are.
                super().copy_to_host(raw, s)
                self._synchronize(stream)
            self._host_buffer_view(raw)[...] = host
            self.copy_from_host(raw, s)
        if is_default_stream(stream):
            self._synchronize(stream)

    def _synchronize(self, stream: Any) -> None:
        if is_default_stream(stream):
            own = super().stream
            (own if own is not None else _core.resolve_stream(0)).synchronize()
        else:
            _core.resolve_stream(stream).synchronize()

    # --- views -------------------------------------------------------------------------

    def _view(self, offset: int, shape: tuple, strides: tuple) -> "DeviceNDArray":
        return DeviceNDArray(_core.DeviceArray.view(self, offset, list(shape), list(strides)))

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):  # a field of every record: NumPy's a["x"]
            return _field_view(self, key)
        parts = key if isinstance(key, tuple) else (key,)
        # A bool is an int to Python but a mask to NumPy (a copy, not a view): refused.
        if not all(isinstance(p, _INDEX_TYPES) and not isinstance(p, (bool, np.bool_))
                   for p in parts):
            raise TypeError("device arrays support indexing by integers, slices, None and "
                            f"Ellipsis; got {key!r}")
        scalar = all(isinstance(p, (int, np.integer)) for p in parts) and len(parts) == self.ndim
        if not any(p is Ellipsis for p in parts):
            parts = parts + (Ellipsis,)  # keeps NumPy from reading an element
        model = _numpy_view(self.shape, self.strides, self.dtype)
        sub = model[parts]
        if sub.size and not np.may_share_memory(sub, model):  # a copy: its offset is wild
            raise TypeError(f"device array index {key!r} does not select a view")
        offset = sub.__array_interface__["data"][0] - model.__array_interface__["data"][0]
        view = self._view(offset, sub.shape, sub.strides)
        if scalar:  # one element: a number, copied; a record stays in device memory
            return DeviceRecord(view) if self.dtype.names else view.copy_to_host()[()]
        return view

    def __setitem__(self, key: Any, value: Any) -> None:
        self.setitem(key, value)

    def setitem(self, key: Any, value: Any, stream: Any = 0) -> None:
        """``self[key] = value`` (Numba's ``DeviceNDArray.setitem``), queued on ``stream``,
        else on the array's own default stream, without waiting; with neither, on the legacy
        default stream, finished on return (Numba's rule)."""
        if is_default_stream(stream) and super().stream is not None:
            stream = super().stream
        parts = key if isinstance(key, tuple) else (key,)
        if isinstance(key, str) or any(p is Ellipsis for p in parts):
            target = self[key]
        else:  # a view even of one element (self[i] would copy it to the host)
            target = self[parts + (Ellipsis,)]
        value = np.asarray(value, dtype=self.dtype)
        if value.ndim > target.ndim:  # Numba's words
            raise ValueError(f"Can't assign {value.ndim}-D array to {target.ndim}-D self")
        target.copy_to_device(value, stream=stream)

    def reshape(self, *newshape: Any, order: str = "C") -> "DeviceNDArray":
        """A view with a new shape; the array must be contiguous in ``order``."""
        if len(newshape) == 1 and isinstance(newshape[0], (tuple, list)):
            newshape = tuple(newshape[0])
        if order not in ("C", "F"):
            raise ValueError(f"order must be 'C' or 'F', got {order!r}")
        contiguous = self.is_c_contiguous() if order == "C" else self.is_f_contiguous()
        if not contiguous:
            raise NotImplementedError(f"reshape of a non-{order}-contiguous device array; "
                                      "copy it first")
        sizes = list(newshape)
        unknown = [i for i, n in enumerate(sizes) if n == -1]
        known = int(np.prod([n for n in sizes if n != -1], dtype=np.int64))
        if len(unknown) > 1:
            raise ValueError("can only specify one unknown dimension (-1)")
        if unknown:
            if known == 0 or self.size % known:
                raise ValueError(f"cannot reshape array of size {self.size} into {newshape}")
            sizes[unknown[0]] = self.size // known
        if int(np.prod(sizes, dtype=np.int64)) != self.size:
            raise ValueError(f"cannot reshape array of size {self.size} into shape {tuple(sizes)}")
        return self._view(0, tuple(sizes), contiguous_strides(tuple(sizes), self.dtype.itemsize,
                                                              order))

    def ravel(self, order: str = "C") -> "DeviceNDArray":
        """A 1-d view; the array must be contiguous in ``order`` ("A": F for an
        F-contiguous array, else C, as NumPy reads it)."""
        if order == "A":
            order = "F" if self.layout == "F" and self.ndim > 1 else "C"
        return self.reshape(self.size, order=order)

    def view(self, dtype: Any) -> "DeviceNDArray":
        """The same memory seen as another dtype, without a copy (Numba's
        ``view``): NumPy's rules, so with another item size the last axis must
        be contiguous, and its extent scales."""
        dt = supported_dtype(dtype)
        model = _numpy_view(self.shape, self.strides, self.dtype)
        try:
            seen = model.view(dt)
        except ValueError as exc:
            raise ValueError(str(exc)) from None  # NumPy's rule, in NumPy's words
        return DeviceNDArray(_core.DeviceArray.view(self, 0, list(seen.shape),
                                                    list(seen.strides), dt.name))

    def transpose(self, axes: Any = None) -> "DeviceNDArray":
        axes = tuple(reversed(range(self.ndim))) if axes is None else tuple(axes)
        if len(axes) != self.ndim:
            raise ValueError(f"axes don't match array: {len(axes)} axes for an array of "
                             f"dimension {self.ndim}")
        for a in axes:
            if not -self.ndim <= a < self.ndim:
                raise ValueError(f"axis {a} is out of bounds for array of dimension {self.ndim}")
        axes = tuple(a % self.ndim for a in axes)
        if len(set(axes)) != self.ndim:
            raise ValueError("repeated axis in transpose")
        return self._view(0, tuple(self.shape[a] for a in axes),
                          tuple(self.strides[a] for a in axes))

    @property
    def T(self) -> "DeviceNDArray":
        return self.transpose()

    def bind(self, stream: Any = 0) -> "DeviceNDArray":
        """The same memory with ``stream`` as its default stream."""
        return DeviceNDArray(super().bind(stream))

    def split(self, section: int) -> list["DeviceNDArray"]:
        """Views of consecutive ``section``-element pieces of a 1-d array."""
        if self.ndim != 1:
            raise ValueError("split() needs a 1-d device array")
        return [self[i:i + section] for i in range(0, self.shape[0], section)]


# --- making device arrays (the runtime API, api.py, exports these) -------------------------

def as_shape(shape: Any) -> tuple[int, ...]:
    """A shape argument (an int or a sequence of ints) as a tuple of extents."""
    # NumPy's rule: each extent is an integer by operator.index (not 2.0, not "10").
    try:
        return as_shape((operator.index(shape),))
    except TypeError:
        pass
    try:
        dims = tuple(operator.index(n) for n in shape)
    except TypeError:
        raise TypeError(f"shape must be an int or a tuple of ints, got {shape!r}") from None
    if any(n < 0 for n in dims):
        raise ValueError(f"negative dimensions are not allowed: {dims}")
    if any(n >= 2**63 for n in dims):
        raise ValueError(f"array dimensions must be less than 2**63, got {dims}")
    return dims


def as_strides(strides: Any, ndim: int) -> list[int]:
    """A strides argument (bytes) for an array of ``ndim`` dimensions."""
    try:
        values = [operator.index(s) for s in strides]
    except TypeError:
        raise TypeError(f"strides must be a tuple of ints, got {strides!r}") from None
    if len(values) != ndim:
        raise ValueError(f"{len(values)} strides {tuple(values)} for a shape of {ndim} "
                         "dimensions")
    if any(not -2**63 <= s < 2**63 for s in values):
        raise ValueError(f"strides must fit in 64 bits, got {tuple(values)}")
    return values


def _field_view(array: DeviceNDArray, name: str) -> DeviceNDArray:
    """The field `name` of each record of `array`, as a device view (its extents after the
    array's, for a field that is an array)."""
    fields = array.dtype.fields
    if not fields or name not in fields:
        raise ValueError(f"no field of name {name!r}: the device array's dtype {array.dtype} has "
                       + (f"the fields {', '.join(fields)}" if fields else "no fields"))
    field_dtype, offset = fields[name][:2]
    base, extents = field_dtype.subdtype or (field_dtype, ())
    if base.names is None and base.kind in "USVO":
        raise TypeError(f"field {name!r} holds {base}, which has no device view; read it from "
                        "the record (d[i][name] copies it), or copy the array to the host")
    inner = tuple(int(np.prod(extents[k + 1:], dtype=np.int64)) * base.itemsize
                  for k in range(len(extents)))  # the field's own extents, in C order
    dtype = base if base.names else base.name
    return DeviceNDArray(_core.DeviceArray.view(array, offset, list(array.shape + tuple(extents)),
                                                list(array.strides + tuple(inner)), dtype))


class DeviceRecord:
    """One record of a device array of records, left in device memory (Numba's
    ``DeviceRecord``): ``rec["x"]`` reads a number field (a copy) and gives an array field or
    a record inside it as a device view; ``rec["x"] = v`` writes device memory."""

    def __init__(self, array: DeviceNDArray):
        self._array = array  # 0-d

    dtype = property(lambda self: self._array.dtype)
    shape = property(lambda self: ())
    size = property(lambda self: 1)
    nbytes = property(lambda self: self._array.dtype.itemsize)
    device_pointer = property(lambda self: self._array.device_pointer)

    def copy_to_host(self, ary: Any = None, stream: Any = 0) -> Any:
        """The record, copied to the host: a NumPy record (``numpy.void``), or into ``ary``."""
        host = self._array.copy_to_host(stream=stream)
        if ary is None:
            return host[()]
        ary[...] = host
        return ary

    def copy_to_device(self, ary: Any, stream: Any = 0) -> None:
        """Overwrite the record with a host record of its dtype (or a device one)."""
        self._array.copy_to_device(ary._array if isinstance(ary, DeviceRecord) else
                                   np.asarray(ary, dtype=self.dtype).reshape(()), stream=stream)

    def _holds_a_value(self, name: str) -> bool:
        """Whether the field `name` is one number (or characters), read and written through a
        copy of the record; arrays and records inside it are device views."""
        field = (self.dtype.fields or {}).get(name)
        return field is not None and field[0].subdtype is None and field[0].names is None

    def __getitem__(self, name: str) -> Any:
        if self._holds_a_value(name):
            return self.copy_to_host()[name]
        view = _field_view(self._array, name)
        return DeviceRecord(view) if view.ndim == 0 else view

    def __setitem__(self, name: str, value: Any) -> None:
        if self._holds_a_value(name):
            host = self.copy_to_host()  # one record: written back whole
            host[name] = value
            self.copy_to_device(host)
            return
        view = _field_view(self._array, name)
        view.copy_to_device(np.ascontiguousarray(
            np.broadcast_to(np.asarray(value, dtype=view.dtype), view.shape)))

    def __repr__(self) -> str:
        return f"<cudajit DeviceRecord dtype={self.dtype} on {self._array.device.name}>"


def supported_dtype(dtype: Any) -> np.dtype:
    """``dtype`` as a NumPy dtype that device arrays can hold (TypeError otherwise)."""
    dt = np.dtype(dtype)
    if dt.names is not None:  # records: fields of numbers, checked by the compiler's reader
        _core.record_type(dt)
        return dt
    if dt.kind not in "biufcMm" or dt.byteorder == ">":
        raise TypeError(f"unsupported dtype {dt}: expected bool, int8..int64, uint8..uint64, "
                        "float32, float64, complex64, complex128, datetime64 or timedelta64 "
                        "in native byte order")
    return dt


def device_array(shape: Any, dtype: Any = np.float64, strides: Any = None, order: str = "C",
                 stream: Any = 0) -> DeviceNDArray:
    """An uninitialised array in device memory."""
    dims = as_shape(shape)
    dt = supported_dtype(dtype)
    if strides is None:
        strides = contiguous_strides(dims, dt.itemsize, order)
    core = _core.allocate_array(_core.current_device(), list(dims), as_strides(strides, len(dims)),
                                dt if dt.names is not None else dt.name,
                                None if is_default_stream(stream) else stream)
    return DeviceNDArray(core)


def to_device(obj: Any, stream: Any = 0, copy: bool = True,
              to: DeviceNDArray | None = None) -> DeviceNDArray:
    """Copy a host array (or anything ``np.asarray`` accepts) to the device.
    With ``to``, copy into that device array instead. ``copy=False`` allocates
    without copying."""
    if isinstance(obj, DeviceNDArray) and to is None:
        return obj
    host = np.asarray(obj)
    supported_dtype(host.dtype)
    if to is not None:
        if copy:
            to.copy_to_device(host, stream=stream)
        return to
    if not (host.flags.c_contiguous or host.flags.f_contiguous):
        host = np.ascontiguousarray(host)
    order = "F" if host.flags.f_contiguous and not host.flags.c_contiguous else "C"
    # An empty array keeps its strides, as in Numba (they address nothing).
    strides = host.strides if host.size == 0 else None
    device = device_array(host.shape, host.dtype, strides=strides, order=order, stream=stream)
    if copy:
        device.copy_to_device(host, stream=stream)
    return device


def is_device_array(obj: Any) -> bool:
    """Whether ``obj`` is a cudajit device array."""
    return isinstance(obj, _core.DeviceArray)


def as_cuda_array(obj: Any, sync: bool = True) -> DeviceNDArray:
    """A DeviceNDArray viewing the memory of ``obj`` (CAI, else DLPack), without a
    copy. The view keeps ``obj`` alive. With ``sync`` (and synchronisation on in
    ``cudajit.config``), the producer's stream becomes the view's default
    stream, and launches on other streams are ordered after it.

    A NumPy array is a TypeError, as in Numba: it is host memory (``cuda.to_device``
    copies it; ``cuda.from_dlpack`` views it on the cpu device), unless it exports the
    interface (a mapped or managed array on a GPU)."""
    if isinstance(obj, np.ndarray) and not hasattr(obj, "__cuda_array_interface__"):
        raise TypeError("*obj* doesn't implement the cuda array interface: as_cuda_array() "
                        "views device memory, and a NumPy array is host memory; copy it with "
                        "cuda.to_device(), or view it on the cpu device with cuda.from_dlpack()")
    return DeviceNDArray(_core.import_array(obj, sync))


def device_view(obj: Any) -> Any:
    """``obj`` as a DeviceNDArray when it is device memory: a cudajit array as it is, an
    object exporting ``__cuda_array_interface__`` as a view of its memory (as_cuda_array);
    anything else (host arrays, numbers) unchanged. Numba's ufuncs take both kinds."""
    if is_device_array(obj) or not hasattr(obj, "__cuda_array_interface__"):
        return obj
    return as_cuda_array(obj)


def auto_device(obj: Any, stream: Any = 0, copy: bool = True,
                user_explicit: bool = False) -> tuple[DeviceNDArray, bool]:
    """Numba's helper: ``obj`` as a device array, and whether it was copied there. A
    device array comes back as it is, an object exporting ``__cuda_array_interface__`` as
    a view of its memory; anything else NumPy takes (arrays, numbers) is copied to a new
    device array (with ``copy=False``, only allocated), which needs it contiguous.
    ``user_explicit`` is accepted for Numba's signature (it only silences a warning)."""
    if isinstance(obj, DeviceNDArray):
        return obj, False
    if hasattr(obj, "__cuda_array_interface__"):
        return as_cuda_array(obj), False
    host = np.asarray(obj)
    if not (host.flags.c_contiguous or host.flags.f_contiguous):
        raise ValueError(errmsg_contiguous_buffer)
    return to_device(host, stream=stream, copy=copy), True
