"""cuda.Reduce / cuda.reduce: an array folded by a binary function (a lambda, a
plain function or a device function), host or device arrays, init, size, res,
streams; sizes around the block and grid boundaries. On every device."""

import numpy as np
import pytest

import cudajit as cuda

pytestmark = pytest.mark.usefixtures("device")

sum_reduce = cuda.Reduce(lambda a, b: a + b)


@pytest.mark.parametrize("n", [1, 15, 128, 129, 1025, 34567, 128 * 256 + 3])
def test_sum_of_sizes_around_block_and_grid_boundaries(n):
    values = np.arange(n, dtype=np.float64) + 1
    assert sum_reduce(values) == values.sum()


def test_max_product_init_size_and_device_arrays():
    def biggest(a, b):
        return max(a, b)

    values = np.arange(3717, dtype=np.float64) + 1
    assert cuda.Reduce(biggest)(values, init=0) == values.max()
    assert cuda.reduce(lambda a, b: a * b)(np.arange(1.0, 11.0), init=1) == 3628800.0
    assert sum_reduce(values, init=3) == values.sum() + 3
    assert sum_reduce(values, size=10) == values[:10].sum()
    device = cuda.to_device(np.arange(100, dtype=np.int64))
    assert sum_reduce(device) == 4950


@cuda.jit(device=True)
def bitwise_or(a, b):
    return a | b


def test_a_device_function_reduces_and_the_result_can_stay_on_the_device():
    flags = np.array([1, 2, 4, 64, 2], np.int64)
    result = cuda.to_device(np.zeros(1, np.int64))
    stream = cuda.stream()
    assert cuda.Reduce(bitwise_or)(flags, res=result, stream=stream) is None
    stream.synchronize()
    assert result.copy_to_host()[0] == 71


def test_empty_arrays_give_init_and_bad_input_is_refused():
    assert sum_reduce(np.zeros(0)) == 0.0
    assert sum_reduce(cuda.to_device(np.zeros(0)), init=5) == 5.0
    with pytest.raises(TypeError, match="1-D array"):
        sum_reduce(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="size 7 is outside"):
        sum_reduce(np.zeros(3), size=7)
