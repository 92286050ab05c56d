"""cuda.vectorize: a scalar function as a ufunc over NumPy and device arrays, compared with
NumPy: loop selection by the inputs' dtypes, broadcasting, scalars, out=, streams, and the
errors."""

import math

import numpy as np
import pytest

import cudajit as cuda

pytestmark = [pytest.mark.usefixtures("device"),
              pytest.mark.filterwarnings("ignore::cudajit.PerformanceWarning")]


@cuda.vectorize(["float32(float32, float32)", "float64(float64, float64)"])
def rel_diff(a, b):
    return 2 * (a - b) / (a + b)


@cuda.vectorize(["float64(float64)"])
def gauss(x):
    return math.exp(-x * x)


@cuda.vectorize
def plus_one(a):
    return a + 1


def expected_rel_diff(a, b):
    return 2 * (a - b) / (a + b)


def test_numpy_arrays_give_a_numpy_array_of_the_chosen_loops_type():
    x = np.linspace(1, 6, 12).reshape(3, 4)
    y = np.full((3, 4), 2.0)
    got = rel_diff(x, y)
    assert isinstance(got, np.ndarray) and got.dtype == np.float64 and got.shape == (3, 4)
    np.testing.assert_allclose(got, expected_rel_diff(x, y), rtol=1e-15)
    f32 = rel_diff(x.astype(np.float32), y.astype(np.float32))
    assert f32.dtype == np.float32  # the exact loop, not the float64 one
    np.testing.assert_allclose(f32, expected_rel_diff(x, y).astype(np.float32), rtol=1e-6)
    ints = rel_diff(np.arange(1, 5, dtype=np.int16), np.int16(3))  # int16 -> float32 is safe
    assert ints.dtype == np.float32


def test_scalars_and_broadcasting_as_numpy_does():
    row = np.arange(1.0, 4.0)
    grid = np.arange(1.0, 7.0).reshape(2, 3)
    np.testing.assert_allclose(rel_diff(row, grid), expected_rel_diff(row, grid))
    np.testing.assert_allclose(rel_diff(grid, 2.5), expected_rel_diff(grid, 2.5))
    np.testing.assert_allclose(rel_diff(np.ones((2, 1)), row), expected_rel_diff(np.ones((2, 1)), row))
    assert rel_diff(3.0, 1.0) == pytest.approx(1.0)  # scalars in: a 0-d result
    assert rel_diff(np.zeros(0), np.zeros(0)).shape == (0,)


def test_device_arrays_give_a_device_array_and_out_and_stream_are_honoured():
    x = np.linspace(-2, 2, 50)
    d = cuda.to_device(x)
    s = cuda.stream()
    got = gauss(d, stream=s)
    assert cuda.is_device_array(got)
    np.testing.assert_allclose(got.copy_to_host(stream=s), np.exp(-x * x), rtol=1e-15)
    out = np.empty(50)
    assert gauss(x, out=out) is out
    np.testing.assert_allclose(out, np.exp(-x * x), rtol=1e-15)
    d_out = cuda.device_array(50)
    assert gauss(d, out=d_out) is d_out
    np.testing.assert_allclose(d_out.copy_to_host(), np.exp(-x * x), rtol=1e-15)


def test_without_signatures_the_inputs_types_decide():
    got = plus_one(np.arange(4, dtype=np.float32))
    assert got.dtype == np.float64  # float32 + an int literal is float64, as Numba types it
    np.testing.assert_array_equal(got, np.arange(1.0, 5.0))
    np.testing.assert_array_equal(plus_one(np.arange(3)), [1, 2, 3])


def test_bad_calls_are_clear_errors():
    with pytest.raises(TypeError, match=r"ufunc 'rel_diff' has no loop for inputs \(complex128, "
                                        r"float64\); its loops are \(float32, float32\) -> "
                                        r"float32, \(float64, float64\) -> float64"):
        rel_diff(np.ones(2, np.complex128), 1.0)
    with pytest.raises(TypeError, match="ufunc 'rel_diff' takes 2 inputs, got 1"):
        rel_diff(np.ones(2))
    with pytest.raises(ValueError, match=r"out has shape \(3,\), the inputs broadcast to \(2,\)"):
        rel_diff(np.ones(2), np.ones(2), out=np.empty(3))
    with pytest.raises(TypeError, match="out has dtype float32, the loop makes float64"):
        rel_diff(np.ones(2), np.ones(2), out=np.empty(2, np.float32))
    with pytest.raises(TypeError, match=r"vectorize signature .* has 1 arguments; 'f' takes 2"):
        @cuda.vectorize(["float64(float64)"])
        def f(a, b):
            return a
    with pytest.raises(ValueError, match="target 'cuda'"):
        cuda.vectorize(["float64(float64)"], target="cpu")
    assert rel_diff.types == ["ff->f", "dd->d"]


# --- ufunc.reduce: a binary ufunc folding a 1-d array on the device, as Numba's ----------------


@cuda.vectorize(["float64(float64, float64)", "int64(int64, int64)"])
def _add(a, b):
    return a + b


@cuda.vectorize(["float32(float32, float32)"])
def _larger(a, b):
    return max(a, b)


@pytest.mark.parametrize("n", [1, 2, 3, 7, 64, 1001])
def test_reduce_folds_host_and_device_arrays_as_numpy_does(device, n):
    values = np.arange(n, dtype=np.int64)
    assert _add.reduce(values) == values.sum()
    floats = np.random.default_rng(n).random(n).astype(np.float32)
    assert _larger.reduce(floats) == floats.max()
    on_device = cuda.to_device(np.arange(n, dtype=np.float64))
    assert _add.reduce(on_device, stream=cuda.stream()) == n * (n - 1) / 2
    np.testing.assert_array_equal(on_device.copy_to_host(), np.arange(n))  # left as it was


def test_reduce_converts_to_the_loops_type():
    # int32 takes the first declared loop it casts to safely, as in NumPy: float64.
    folded = _add.reduce(np.arange(10, dtype=np.int32))
    assert folded == 45 and isinstance(folded, np.float64)
    assert isinstance(_add.reduce(np.arange(10, dtype=np.int64)), np.int64)


def test_reduce_of_what_cannot_be_folded_says_why():
    with pytest.raises(ValueError, match=r"'_add'.reduce needs a 1-d array, got 2 dimensions"):
        _add.reduce(np.zeros((2, 2)))
    with pytest.raises(TypeError, match="Reduction on an empty array"):
        _add.reduce(np.zeros(0))

    @cuda.vectorize(["float64(float64)"])
    def negate(a):
        return -a

    with pytest.raises(TypeError, match="reduce needs a binary ufunc; 'negate' takes 1 inputs"):
        negate.reduce(np.ones(3))


def test_options_follow_numba_cudas_rules():
    def add(a, b):
        return a + b

    with pytest.warns(RuntimeWarning, match="nopython kwarg for cuda target is redundant"):
        cuda.vectorize(["float64(float64, float64)"], nopython=True)(add)
    with pytest.raises(KeyError, match="Unrecognized options. cuda vectorize target does not "
                                       "support option: 'nonexistent'"):
        cuda.vectorize(["float64(float64, float64)"], nonexistent=2)(add)
    with pytest.raises(TypeError, match="caching is not supported"):
        cuda.vectorize(["float64(float64, float64)"], cache=True)(add)
    fast = cuda.vectorize(["float32(float32, float32)"], fastmath=True, identity=0)(add)
    np.testing.assert_array_equal(fast(np.ones(3, np.float32), np.ones(3, np.float32)), 2)


def test_numbas_builder_protocol_makes_the_same_ufunc():
    # What numba.vectorize(sigs, target="cuda") calls where numba.cuda is cudajit.
    from cudajit.vectorizers import CUDAVectorize

    def mul(a, b):
        return a * b

    builder = CUDAVectorize(mul, identity=1, targetoptions={})
    builder.add("float64(float64, float64)")
    builder.add("int32(int32, int32)")
    builder.disable_compile()
    ufunc = builder.build_ufunc()
    assert ufunc.types == ["dd->d", "ii->i"]
    x = np.arange(5, dtype=np.int32)
    result = ufunc(x, x)
    np.testing.assert_array_equal(result, x * x)
    assert result.dtype == np.int32
    with pytest.raises(TypeError, match="caching is not supported"):
        CUDAVectorize(mul, cache=True)
