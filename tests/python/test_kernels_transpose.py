"""cudajit.kernels.transpose.transpose (numba.cuda.kernels.transpose.transpose): the
transpose of 2-D arrays of every kind of dtype, records included, into a given or a new
device array, checked against NumPy on the cpu device and the cuda device; bad input."""

import numpy as np
import pytest

import cudajit as cuda
from cudajit.kernels.transpose import transpose

pytestmark = [pytest.mark.usefixtures("device"),
              pytest.mark.filterwarnings("ignore::cudajit.PerformanceWarning")]

RECORD = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))])


@pytest.mark.parametrize("rows, cols", [(1, 1), (2, 3), (32, 32), (33, 31), (70, 5), (5, 70)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8, np.uint64, np.complex128,
                                   np.bool_])
def test_transpose_into_given_array(rows, cols, dtype):
    x = (np.arange(rows * cols) % 7).astype(dtype).reshape(rows, cols)
    if dtype == np.complex128:
        x = x + 1j * x[::-1]
    d_y = cuda.device_array((cols, rows), dtype)
    assert transpose(cuda.to_device(x), d_y) is d_y
    np.testing.assert_array_equal(d_y.copy_to_host(), x.T)


def test_transpose_records():
    arr = np.zeros((17, 16), RECORD)
    arr["i"] = np.arange(17 * 16).reshape(17, 16)
    arr["j"] = np.arange(17 * 16 * 6, dtype=np.float32).reshape(17, 16, 3, 2)
    d_t = cuda.device_array_like(arr.T)
    transpose(cuda.to_device(arr), d_t)
    np.testing.assert_array_equal(d_t.copy_to_host(), arr.T)


def test_transpose_of_large_records_uses_smaller_tiles():
    from cudajit.kernels.transpose import _tile_for

    assert [_tile_for(n) for n in (1, 8, 46, 47, 100, 1000)] == [32, 32, 32, 16, 16, 4]
    big = np.dtype([("v", np.float64, (12,)), ("k", np.int32)])  # 100 bytes
    arr = np.zeros((37, 21), big)
    arr["v"] = np.arange(37 * 21 * 12).reshape(37, 21, 12)
    arr["k"] = np.arange(37 * 21).reshape(37, 21)
    np.testing.assert_array_equal(transpose(cuda.to_device(arr)).copy_to_host(), arr.T)
    with pytest.raises(ValueError, match="elements of 40000 bytes: a tile of them does not fit"):
        transpose(np.zeros((2, 2), np.dtype([("v", np.float64, (5000,))])))


def test_transpose_allocates_output_and_takes_host_arrays():
    x = np.arange(40 * 3, dtype=np.float32).reshape(40, 3)
    d_y = transpose(x)
    assert d_y.shape == (3, 40) and d_y.dtype == np.float32
    np.testing.assert_array_equal(d_y.copy_to_host(), x.T)


def test_transpose_of_a_view_and_on_a_stream():
    a = np.arange(120, dtype=np.int64).reshape(10, 12)
    stream = cuda.stream()
    d_view = cuda.to_device(a, stream=stream)[::2, 1::3]
    result = transpose(d_view)
    stream.synchronize()
    np.testing.assert_array_equal(result.copy_to_host(), a[::2, 1::3].T)


def test_transpose_refuses_bad_input():
    with pytest.raises(ValueError, match=r"takes a 2-D array; got one of shape \(4,\)"):
        transpose(cuda.to_device(np.zeros(4)))
    with pytest.raises(TypeError, match="takes a 2-D device array or NumPy array; got list"):
        transpose([[1, 2]])
    d_x = cuda.to_device(np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"needs b of shape \(3, 2\); got \(2, 3\)"):
        transpose(d_x, cuda.device_array((2, 3)))
    with pytest.raises(ValueError, match="must have a's dtype float64; got float32"):
        transpose(d_x, cuda.device_array((3, 2), np.float32))
