"""a.reshape(...) and a.view(dtype) in kernels, as NumPy makes them: views of the same
memory (writing through one writes the array), checked against NumPy on every device. What
NumPy refuses raises ValueError in the kernel (reported after the launch with debug=True)."""

import numpy as np
import pytest

import cudajit as cuda
from conftest import kernel_from_body

pytestmark = [pytest.mark.usefixtures("device"),
              pytest.mark.filterwarnings("ignore::cudajit.PerformanceWarning")]


@cuda.jit
def reshaped_three_ways(a, shape, out):
    y = a.reshape(shape)  # a tuple argument
    z = a.reshape(-1, 4)  # extents, one inferred
    w = a.reshape((2, 3, 4))  # a tuple written out
    for i in range(y.shape[0]):
        for j in range(y.shape[1]):
            k = i * y.shape[1] + j
            out[i, j] = y[i, j] + z[k // 4, k % 4] + w[1, 2, 3]


def test_reshape_views_a_contiguous_array_in_a_new_shape():
    a = np.arange(24.0)
    out = np.zeros((6, 4))
    reshaped_three_ways[1, 1](a, (6, 4), out)
    np.testing.assert_array_equal(out, a.reshape(6, 4) * 2 + a.reshape(2, 3, 4)[1, 2, 3])


def test_writing_through_a_reshaped_view_writes_the_array():
    @cuda.jit
    def fill_rows(a):
        rows = a.reshape(3, -1)
        for i in range(rows.shape[0]):
            for j in range(rows.shape[1]):
                rows[i, j] = 10 * i + j

    a = np.zeros((2, 6), np.int32)
    fill_rows[1, 1](a)
    np.testing.assert_array_equal(a, (10 * np.arange(3)[:, None] + np.arange(4)).reshape(2, 6))


def test_reshape_of_a_contiguous_slice_and_a_2d_array_to_1d():
    @cuda.jit
    def flatten(a, out):
        flat = a[1:3].reshape(-1)  # rows 1 and 2: contiguous, though not typed C
        for i in range(flat.size):
            out[i] = flat[i]

    a = np.arange(12.0).reshape(4, 3)
    out = np.zeros(6)
    flatten[1, 1](a, out)
    np.testing.assert_array_equal(out, a[1:3].reshape(-1))


@pytest.mark.parametrize("make, shape", [
    ("a", (5, 5)),  # another size
    ("a", (-1, -1)),  # two unknowns
    ("a", (-2, 12)),  # a negative extent
    ("a.reshape(4, 6)[:, ::2]", (12,)),  # not contiguous
    ("a[:0]", (2**32, 2**32)),  # extents whose product wraps to the size, 0
])
def test_a_reshape_numpy_refuses_raises_value_error(make, shape):
    body = f"y = ({make}).reshape(shape)\nout[0] = y.size"
    kernel = cuda.jit(kernel_from_body("a, shape, out", body), debug=True)
    out = np.full(1, -1.0)
    with pytest.raises(ValueError, match="cannot reshape the array: the new shape has another "
                                         "size, or the array is not contiguous"):
        kernel[1, 1](np.arange(24.0), shape, out)
    assert out[0] == -1.0  # the thread stopped there


def test_without_debug_a_refused_reshape_stops_the_thread():
    kernel = cuda.jit(kernel_from_body("a, out", "y = a.reshape(5, 5)\nout[0] = y.size"))
    out = np.full(1, -1.0)
    kernel[1, 1](np.arange(24.0), out)
    assert out[0] == -1.0


def test_view_reads_the_bytes_as_another_dtype():
    @cuda.jit
    def reinterpret(b, f, out):
        words = b[4:12].view(np.int32)  # a slice at a word boundary
        odd = b[1:9].view(np.int32)  # and one that is not: read byte by byte
        halves = b.view(np.uint16)
        bits = f.view(np.int32)  # the same size: only the dtype changes
        out[0] = words[0]
        out[1] = words[1]
        out[2] = words.size
        out[3] = odd[1]
        out[4] = halves[7]
        out[5] = bits[0]

    b = np.arange(16, dtype=np.uint8)
    f = np.array([1.5], np.float32)
    out = np.zeros(6, np.int64)
    reinterpret[1, 1](b, f, out)
    np.testing.assert_array_equal(out, [b[4:12].view(np.int32)[0], b[4:12].view(np.int32)[1], 2,
                                        b[1:9].view(np.int32)[1], b.view(np.uint16)[7],
                                        f.view(np.int32)[0]])


def test_writing_through_a_view_writes_the_bytes():
    @cuda.jit
    def set_words(b):
        words = b.view(np.uint32)
        words[1] = 0x04030201

    b = np.zeros(8, np.uint8)
    set_words[1, 1](b)
    np.testing.assert_array_equal(b, [0, 0, 0, 0, 1, 2, 3, 4])


@pytest.mark.parametrize("make", ["b[0:6]", "b[::2]"])  # 6 bytes; a strided last axis
def test_a_view_numpy_refuses_raises_value_error(make):
    kernel = cuda.jit(kernel_from_body("b, out", f"v = ({make}).view(np.int32)\nout[0] = v.size",
                                       np=np), debug=True)
    out = np.full(1, -1)
    with pytest.raises(ValueError, match="the last axis of the array is not contiguous, or its "
                                         "size in bytes is not a multiple of int32's"):
        kernel[1, 1](np.arange(16, dtype=np.uint8), out)
    assert out[0] == -1


@pytest.mark.parametrize("body, message", [
    ("y = a.reshape(2.5, 4)", r"\.reshape\(\) takes integers \(or one tuple of them\); got "
                              r"float64"),
    ("y = a.reshape(1, 1, 1, 1, 1, 1, 1, 1, 12)",
     r"\.reshape\(\) makes arrays of 1 to 8 dimensions; got 9"),
    ("y = a.reshape()", r"\.reshape\(\) takes a shape"),
    ("y = a.view()", r"\.view\(\) takes one dtype; got 0 arguments"),
    ("y = a[0].reshape(1)", r"float64 has no method 'reshape' in a kernel"),
])
def test_misused_array_methods_are_compile_errors(body, message):
    with pytest.raises(cuda.CompileError, match=message):
        cuda.jit(kernel_from_body("a", body))[1, 1](np.arange(12.0))
