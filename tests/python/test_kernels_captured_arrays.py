"""Device arrays that a kernel reads from its globals or its closure are captured by
their address, as Numba captures them (numba-cuda's "global device array capture"
documentation example): the kernel reads and writes the array's memory, so it sees
what is copied into it later, and it holds the array, so rebinding the name does not
free the memory under it. NumPy arrays, by contrast, are frozen (test_kernels_constants)."""

import gc

import numpy as np
import pytest

import cudajit as cuda
from cudajit import _core

pytestmark = pytest.mark.usefixtures("device")

PRICES = None  # a device array, set by the tests


def test_a_global_device_array_is_read_by_address_and_sees_later_copies():
    global PRICES
    PRICES = cuda.to_device(np.array([10.0, 25.0, 5.0, 15.0, 30.0], np.float32))

    @cuda.jit
    def totals(quantities, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = quantities[i] * PRICES[i]

    quantities = cuda.to_device(np.array([1, 2, 3, 4, 5], np.float32))
    out = cuda.device_array(5, np.float32)
    totals[1, 32](quantities, out)
    np.testing.assert_array_equal(out.copy_to_host(), [10, 50, 15, 60, 150])
    PRICES.copy_to_device(np.array([20.0, 50.0, 10.0, 30.0, 60.0], np.float32))
    totals[1, 32](quantities, out)
    np.testing.assert_array_equal(out.copy_to_host(), [20, 100, 30, 120, 300])


def test_a_kernel_writes_a_captured_closure_array_and_a_device_function_reads_it():
    counts = cuda.to_device(np.zeros(4, np.int64))

    @cuda.jit(device=True)
    def count_of(k):
        return counts[k]

    @cuda.jit
    def tally(values, seen):
        i = cuda.grid(1)
        if i < values.size:
            cuda.atomic.add(counts, values[i], 1)
        cuda.syncthreads()
        if i < seen.size:
            seen[i] = count_of(i)

    values = np.array([0, 1, 1, 3, 3, 3, 2, 3], np.int64)
    seen = np.zeros(4, np.int64)
    tally[1, 8](values, seen)
    np.testing.assert_array_equal(seen, np.bincount(values, minlength=4))
    np.testing.assert_array_equal(counts.copy_to_host(), np.bincount(values, minlength=4))


def test_strided_and_fortran_order_views_are_captured_with_their_strides():
    host = np.arange(48, dtype=np.float64).reshape(6, 8)
    whole = cuda.to_device(host)
    every_other = whole[::2, 1::3]  # a strided view: layout A
    fortran = cuda.to_device(np.asfortranarray(host))

    @cuda.jit
    def copy_out(a, b):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            a[i, j] = every_other[i, j]
        if i < b.shape[0] and j < b.shape[1]:
            b[i, j] = fortran[i, j] * 2

    a = np.zeros(every_other.shape)
    b = np.zeros(host.shape)
    copy_out[(1, 1), (8, 8)](a, b)
    np.testing.assert_array_equal(a, host[::2, 1::3])
    np.testing.assert_array_equal(b, host * 2)


def test_the_kernel_holds_the_array_it_captured():
    global PRICES
    PRICES = cuda.to_device(np.arange(64, dtype=np.float64))

    @cuda.jit
    def read(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = PRICES[i]

    out = np.zeros(64)
    read[1, 64](out)
    # Rebound and collected: the kernel keeps the first array (Numba captures the array
    # of the first compile), whose memory must stay valid.
    PRICES = cuda.to_device(np.full(8, -1.0))
    gc.collect()
    noise = [cuda.to_device(np.full(64, 7.0)) for _ in range(4)]  # reuse freed memory, if any
    out[:] = 0
    read[1, 64](out)
    np.testing.assert_array_equal(out, np.arange(64))
    del noise


def test_captured_record_arrays_read_their_fields():
    dtype = np.dtype([("x", np.float64), ("n", np.int32)], align=True)
    host = np.zeros(5, dtype)
    host["x"] = [1.5, 2.5, 3.5, 4.5, 5.5]
    host["n"] = [1, 2, 3, 4, 5]
    points = cuda.to_device(host)

    @cuda.jit
    def weigh(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = points[i].x * points[i].n

    out = np.zeros(5)
    weigh[1, 8](out)
    np.testing.assert_array_equal(out, host["x"] * host["n"])


class _Exported:
    """A foreign GPU array: only the CUDA Array Interface of a cudajit array, read-only
    when asked."""

    def __init__(self, array, readonly=False):
        self._array = array
        self._readonly = readonly

    @property
    def __cuda_array_interface__(self):
        cai = dict(self._array.__cuda_array_interface__)
        cai["data"] = (cai["data"][0], self._readonly)
        return cai


def test_arrays_of_other_libraries_are_captured_through_their_interface(device):
    if device != "cuda":
        pytest.skip("the CUDA Array Interface describes GPU memory only")
    backing = cuda.to_device(np.arange(10, dtype=np.int32))
    foreign = _Exported(backing)

    @cuda.jit
    def double(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = foreign[i] * 2
            foreign[i] = -1

    out = np.zeros(10, np.int32)
    double[1, 16](out)
    np.testing.assert_array_equal(out, np.arange(10) * 2)
    np.testing.assert_array_equal(backing.copy_to_host(), np.full(10, -1))


def test_a_read_only_foreign_array_cannot_be_written(device):
    if device != "cuda":
        pytest.skip("the CUDA Array Interface describes GPU memory only")
    frozen = _Exported(cuda.to_device(np.arange(4.0)), readonly=True)

    @cuda.jit
    def write(out):
        frozen[0] = out[0]

    with pytest.raises(cuda.CompileError, match=r"read-only"):
        write[1, 1](np.zeros(1))


def test_an_array_of_another_kind_of_device_is_refused_when_compiled(device):
    # Captured on the other device: its address means nothing here (on the cpu device a
    # GPU address would crash the process), so compiling for this device is an error.
    from conftest import _cuda_unavailable_reason

    if _cuda_unavailable_reason() is not None:
        pytest.skip("needs both the cpu device and the cuda device")
    other = _core.cpu_device() if device == "cuda" else _core.cuda_device(0)
    here = _core.current_device()
    _core.set_current_device(other)
    try:
        elsewhere = cuda.to_device(np.arange(4.0))
    finally:
        _core.set_current_device(here)

    @cuda.jit
    def read(out):
        out[0] = elsewhere[1]

    memory = "cpu device" if device == "cuda" else "GPU"
    with pytest.raises(cuda.CompileError, match=rf"this device array is in the memory of the "
                                                rf"{memory}, and a kernel that captures it "
                                                r"runs there only"):
        read[1, 1](np.zeros(1))


def test_device_arrays_that_cannot_be_captured_say_why():
    scalar = cuda.to_device(np.float64(3.0).reshape(()))

    @cuda.jit
    def zero_d(out):
        out[0] = scalar[()]

    with pytest.raises(cuda.CompileError, match=r"device array 'scalar' cannot be captured by "
                                                r"the kernel: it has 0 dimensions \(1 to 8 are "
                                                r"supported\)"):
        zero_d[1, 1](np.zeros(1))
