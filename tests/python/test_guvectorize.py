"""cuda.guvectorize: functions over core dimensions as generalized ufuncs, compared with
NumPy: loop dimensions broadcast, scalar inputs, "()" outputs, out arguments, device
arrays, loop selection and the errors."""

import numpy as np
import pytest

import cudajit as cuda

pytestmark = [pytest.mark.usefixtures("device"),
              pytest.mark.filterwarnings("ignore::cudajit.PerformanceWarning")]


@cuda.guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->()")
def dot(a, b, res):
    acc = 0.0
    for i in range(a.shape[0]):
        acc += a[i] * b[i]
    res[0] = acc


@cuda.guvectorize(["void(float32[:], float32, float32[:])",
                   "void(float64[:], float64, float64[:])"], "(n),()->(n)")
def scale(a, k, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * k


@cuda.guvectorize(["void(float64[:, :], float64[:], float64[:])"], "(m,n),(n)->(m)")
def matvec(m, v, out):
    for i in range(m.shape[0]):
        acc = 0.0
        for j in range(m.shape[1]):
            acc += m[i, j] * v[j]
        out[i] = acc


def test_core_dimensions_and_broadcast_loop_dimensions_match_numpy():
    x = np.arange(24.0).reshape(2, 3, 4)
    y = np.linspace(-1, 1, 4)
    np.testing.assert_allclose(dot(x, y), (x * y).sum(-1))
    assert dot(np.arange(4.0), np.ones(4)) == 6.0  # no loop dimensions: a number
    mats = np.arange(2 * 3 * 4.0).reshape(2, 3, 4)
    np.testing.assert_allclose(matvec(mats, y), mats @ y)


def test_scalar_inputs_pick_the_loop_and_out_is_written():
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(scale(x, 2.0), x * 2)
    single = scale(x.astype(np.float32), np.float32(3))
    assert single.dtype == np.float32
    out = np.zeros((3, 4))
    assert scale(x, 0.5, out) is out
    np.testing.assert_array_equal(out, x * 0.5)
    other = np.zeros((3, 4))
    assert scale(x, 0.25, out=other) is other
    np.testing.assert_array_equal(other, x * 0.25)


def test_device_arrays_give_device_arrays():
    x = np.arange(12.0).reshape(3, 4)
    got = scale(cuda.to_device(x), 2.0)
    assert cuda.is_device_array(got)
    np.testing.assert_array_equal(got.copy_to_host(), x * 2)


def test_bad_calls_and_layouts_are_clear_errors():
    with pytest.raises(ValueError, match="dimension n is 4 and 3 in the inputs"):
        dot(np.ones(4), np.ones(3))
    with pytest.raises(TypeError, match=r"gufunc 'dot' has no loop for inputs \(complex128"):
        dot(np.ones(4, np.complex128), np.ones(4))
    with pytest.raises(TypeError, match="gufunc 'dot' takes 2 inputs, got 1"):
        dot(np.ones(4))
    with pytest.raises(ValueError, match=r"expected a form such as '\(m,n\),\(n\)->\(m\)'"):
        cuda.guvectorize(["void(float64[:], float64[:])"], "(n)->")(lambda a, b: None)
    with pytest.raises(TypeError, match="the layout '\\(n\\)->\\(n\\)' has 2"):
        @cuda.guvectorize(["void(float64[:], float64[:])"], "(n)->(n)")
        def three(a, b, c):
            pass
