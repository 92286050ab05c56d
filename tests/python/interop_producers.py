"""Test-only producers of foreign arrays, for the interop tests on the cpu device.

On the cpu device, device memory is host memory and streams are real
asynchronous queues, so a producer can export ``__cuda_array_interface__``
(CAI) over a NumPy array or a cudajit device array, name one of cudajit's
streams as the stream its pending work is on, and queue slow work there.

- :class:`CaiProducer`: a CAI dict over host memory, every entry under the
  test's control (override or remove any key).
- :class:`StreamProducer`: a CAI producer that writes its array on its own
  stream with a kernel that spins first (``slow_fill``), and exports that
  stream, as CuPy does for an array on a non-default stream.
- DLPack-only wrappers: :class:`DlpackOnly` (hides that a NumPy array is one),
  :class:`LegacyDlpackProducer` (a pre-1.0 producer: no ``max_version``),
  :class:`TypeErrorOnMaxVersion` (raises TypeError when given ``max_version``).
- :func:`spin_iterations`: how many loop iterations the spinning kernels need
  to run for a given time on this machine (calibrated once).
"""

from __future__ import annotations

import ctypes
import time

import numpy as np

import cudajit as cuda

REMOVE = object()  # an entry override that deletes the key from the CAI dict


# --- kernels the producers and the tests queue ----------------------------------------------


@cuda.jit
def slow_fill(x, value, iterations):
    # One thread spins, then writes every element: the write lands at the end.
    acc = 0.0
    for k in range(iterations):
        acc = acc * 0.5 + 1.0
    if cuda.grid(1) == 0:
        for i in range(x.shape[0]):
            x[i] = value + acc * 0.0


@cuda.jit
def fill(x, value):
    i = cuda.grid(1)
    if i < x.shape[0]:
        x[i] = value


@cuda.jit
def copy_1d(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = x[i]


@cuda.jit
def copy_2d(x, out):
    i, j = cuda.grid(2)
    if i < x.shape[0] and j < x.shape[1]:
        out[i, j] = x[i, j]


@cuda.jit
def read_sum(x, out):
    if cuda.grid(1) == 0:
        acc = 0.0
        for i in range(x.shape[0]):
            acc += x[i]
        out[0] = acc


@cuda.jit
def write_ones(x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        x[i] = 1


@cuda.jit
def slow_copy(x, out, iterations):
    # One thread spins, then reads every element of x: the read happens late.
    acc = 0.0
    for k in range(iterations):
        acc = acc * 0.5 + 1.0
    if cuda.grid(1) == 0:
        for i in range(x.shape[0]):
            out[i] = x[i] + acc * 0.0


_calibration: list[float] = []  # seconds per iteration


def spin_iterations(seconds: float) -> int:
    """Iterations of the spinning loop (``slow_fill``/``slow_copy``) that take
    about ``seconds`` here; measured once per process, kernels compiled first."""
    if not _calibration:
        s = cuda.stream()
        scratch = cuda.device_array(1)
        slow_fill[1, 1, s](scratch, 0.0, 1)  # compile
        s.synchronize()
        probe = 20_000_000
        best = float("inf")
        for _ in range(2):
            t0 = time.perf_counter()
            slow_fill[1, 1, s](scratch, 0.0, probe)
            s.synchronize()
            best = min(best, time.perf_counter() - t0)
        _calibration.append(max(best, 1e-6) / probe)
    return max(1, int(seconds / _calibration[0]))


def warm_up_kernels() -> None:
    """Compiles the producers' kernels for the signatures the tests use, so
    that a timed launch or a race does not include a compilation."""
    s = cuda.stream()
    x = cuda.device_array(4)
    out = cuda.device_array(4)
    p = CaiProducer(x)
    slow_fill[1, 1, s](x, 0.0, 1)
    slow_fill[1, 1, s](p, 0.0, 1)
    fill[1, 4, s](x, 0.0)
    fill[1, 4, s](p, 0.0)
    copy_1d[1, 4, s](p, out)
    copy_1d[1, 4, s](x, out)
    slow_copy[1, 1, s](p, out, 1)
    slow_copy[1, 1, s](x, out, 1)
    s.synchronize()
    spin_iterations(0.1)


# --- CAI producers ----------------------------------------------------------------------------


def _pointer(array) -> int:
    """The address of element [0, ..., 0] of a NumPy or cudajit array."""
    if isinstance(array, np.ndarray):
        return array.__array_interface__["data"][0]
    return array.device_pointer


class CaiProducer:
    """Exports ``__cuda_array_interface__`` over ``array`` (a NumPy array or a
    cudajit device array on the cpu device).

    The dict is built at every access from the array: version 3, shape,
    strides (None when C-contiguous), typestr, descr, data (pointer, readonly),
    mask None, stream. Keyword arguments override any entry; an override of
    ``REMOVE`` deletes the key. ``accesses`` counts the reads of the attribute.
    """

    def __init__(self, array, *, readonly: bool = False, stream=None, **entries):
        self.array = array
        self.readonly = readonly
        self.stream = stream
        self.entries = entries
        self.accesses = 0

    def _base(self) -> dict:
        a = self.array
        dtype = np.dtype(a.dtype)
        c_contiguous = (a.flags.c_contiguous if isinstance(a, np.ndarray)
                        else a.is_c_contiguous())
        stream = self.stream
        if isinstance(stream, cuda.Stream):
            stream = stream.handle
        return {
            "version": 3,
            "shape": tuple(a.shape),
            "strides": None if c_contiguous else tuple(a.strides),
            "typestr": dtype.str,
            "descr": [("", dtype.str)],
            "data": (_pointer(a), self.readonly),
            "mask": None,
            "stream": stream,
        }

    @property
    def __cuda_array_interface__(self) -> dict:
        self.accesses += 1
        d = self._base()
        for key, value in self.entries.items():
            if value is REMOVE:
                d.pop(key, None)
            else:
                d[key] = value
        return d

    def host_view(self) -> np.ndarray:
        """The producer's elements as a NumPy array over the same memory (the
        cpu device: device memory is host memory)."""
        if isinstance(self.array, np.ndarray):
            return self.array
        return host_view_of(self.array)


def host_view_of(device_array) -> np.ndarray:
    """A NumPy array over the memory of a cudajit device array of the cpu
    device (no copy: device memory is host memory there)."""
    lo, hi = device_array.extent()
    if hi - lo == 0:
        return np.empty(device_array.shape, device_array.dtype)
    buffer = (ctypes.c_char * (hi - lo)).from_address(device_array.device_pointer + lo)
    return np.ndarray(device_array.shape, dtype=device_array.dtype, buffer=buffer, offset=-lo,
                      strides=device_array.strides)


class StreamProducer(CaiProducer):
    """A producer with pending work on its own stream: its array is written by
    kernels queued on ``self.stream`` (a cudajit stream), and the stream's
    handle is exported, as CuPy and PyTorch export their current stream."""

    def __init__(self, values, stream=None, **entries):
        values = np.asarray(values, dtype=np.float64)
        super().__init__(cuda.to_device(values), stream=stream or cuda.stream(), **entries)

    @property
    def cuda_stream(self):
        return self.stream

    def slow_fill(self, value: float, iterations: int) -> None:
        """Queues, on the producer's stream, a kernel that spins and then
        writes ``value`` to every element."""
        slow_fill[1, 1, self.stream](self.array, value, iterations)

    def fill(self, value: float) -> None:
        """Queues, on the producer's stream, a kernel that writes ``value``."""
        fill[1, max(1, self.array.shape[0]), self.stream](self.array, value)

    def values(self) -> np.ndarray:
        """The current contents, after the producer's stream is done."""
        self.stream.synchronize()
        return host_view_of(self.array).copy()


# --- DLPack producers ---------------------------------------------------------------------------


class DlpackOnly:
    """Exports only ``__dlpack__`` and ``__dlpack_device__`` of a NumPy array
    (or anything with them), hiding that it is an ndarray; records each call's
    keyword arguments in ``calls``."""

    def __init__(self, array):
        self._array = array
        self.calls: list[dict] = []

    def __dlpack__(self, **kwargs):
        self.calls.append(dict(kwargs))
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


class LegacyDlpackProducer:
    """A producer from before DLPack 1.0: ``__dlpack__(stream=None)`` only,
    returning an unversioned "dltensor" capsule."""

    def __init__(self, array):
        self._array = array
        self.calls: list[dict] = []

    def __dlpack__(self, stream=None):
        self.calls.append({"stream": stream})
        return self._array.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


class TypeErrorOnMaxVersion:
    """Accepts any keyword but raises TypeError when ``max_version`` is given,
    as some producers do: the consumer must retry without it."""

    def __init__(self, array):
        self._array = array
        self.calls: list[dict] = []

    def __dlpack__(self, **kwargs):
        self.calls.append(dict(kwargs))
        if "max_version" in kwargs:
            raise TypeError("__dlpack__() got an unexpected keyword argument 'max_version'")
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


class CapsuleProducer:
    """Returns the capsule it was given from every ``__dlpack__`` call."""

    def __init__(self, capsule, device=(1, 0)):
        self.capsule = capsule
        self.device = device

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return self.device


_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def set_capsule_device(capsule, device_type: int, device_id: int = 0):
    """Rewrites the device of the tensor in a 'dltensor_versioned' capsule: a producer
    whose memory is where it says (DLManagedTensorVersioned: version, manager_ctx,
    deleter, flags, then the DLTensor's data pointer and its device)."""
    tensor = _get_pointer(capsule, b"dltensor_versioned")
    device = ctypes.cast(tensor + 8 + 8 + 8 + 8 + 8, ctypes.POINTER(ctypes.c_int32))
    device[0], device[1] = device_type, device_id
    return capsule


def set_capsule_dtype(capsule, code: int, bits: int, lanes: int = 1):
    """Rewrites the dtype of the tensor in a 'dltensor_versioned' capsule (after the
    DLTensor's data pointer, device and ndim): to export types NumPy has not,
    such as bfloat16 (code 4), over memory of the same item size."""
    tensor = _get_pointer(capsule, b"dltensor_versioned")
    dtype = tensor + 32 + 8 + 8 + 4
    ctypes.cast(dtype, ctypes.POINTER(ctypes.c_uint8))[0] = code
    ctypes.cast(dtype + 1, ctypes.POINTER(ctypes.c_uint8))[0] = bits
    ctypes.cast(dtype + 2, ctypes.POINTER(ctypes.c_uint16))[0] = lanes
    return capsule


_get_name = ctypes.pythonapi.PyCapsule_GetName
_get_name.restype = ctypes.c_char_p
_get_name.argtypes = [ctypes.py_object]


def capsule_name(capsule) -> str:
    """The name of a PyCapsule ("dltensor", "used_dltensor_versioned", ...)."""
    return _get_name(capsule).decode()
