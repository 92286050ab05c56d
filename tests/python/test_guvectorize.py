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
    with pytest.raises(TypeError, match=r"gufunc 'dot': this gufunc accepts 2 positional "
                                        r"arguments \(when providing input only\) or 3 "
                                        r"positional arguments .* Got 1 positional argument\."):
        dot(np.ones(4))
    with pytest.raises(TypeError, match="Got 4 positional arguments"):
        dot(np.ones(4), np.ones(4), np.ones(1), np.ones(1))
    with pytest.raises(ValueError, match="cannot specify argument 'out' as both positional and "
                                         "keyword"):
        dot(np.ones(4), np.ones(4), np.ones(1), out=np.ones(1))
    with pytest.raises(ValueError, match=r"expected a form such as '\(m,n\),\(n\)->\(m\)'"):
        cuda.guvectorize(["void(float64[:], float64[:])"], "(n)->")(lambda a, b: None)
    with pytest.raises(TypeError, match="the layout '\\(n\\)->\\(n\\)' has 2"):
        @cuda.guvectorize(["void(float64[:], float64[:])"], "(n)->(n)")
        def three(a, b, c):
            pass


def test_options_and_signatures_follow_numba_cudas_rules():
    def copy(a, b):
        b[0] = a[0]

    sig = ["void(float32[:], float32[:])"]
    cuda.guvectorize(sig, "(n)->(n)", nopython=True)(copy)  # accepted, as numba-cuda does
    with pytest.raises(TypeError, match="^nopython flag must be True$"):
        cuda.guvectorize(sig, "(n)->(n)", nopython=False)(copy)
    with pytest.raises(TypeError, match="^The following target options are not supported: "
                                        "'what1', 'ever2'$"):
        cuda.guvectorize(sig, "(n)->(n)", what1=True, ever2=False)(copy)
    with pytest.raises(TypeError, match="caching is not supported"):
        cuda.guvectorize(sig, "(n)->(n)", cache=True)(copy)
    with pytest.raises(TypeError, match=r"guvectorized functions cannot return values: "
                                        r"signature .* specifies int32 return type"):
        cuda.guvectorize([cuda.int32(cuda.int32[:], cuda.int32[:])], "(m)->(m)")(copy)


def test_numbas_builder_protocol_makes_the_same_gufunc():
    # What numba.guvectorize(sigs, layout, target="cuda") calls where numba.cuda is cudajit.
    from cudajit.vectorizers import CUDAGUFuncVectorize

    def add_one(a, out):
        for i in range(a.shape[0]):
            out[i] = a[i] + 1

    builder = CUDAGUFuncVectorize(add_one, "(n)->(n)", targetoptions={"nopython": True})
    builder.add("void(int64[:], int64[:])")
    gufunc = builder.build_ufunc()
    x = np.arange(12, dtype=np.int64).reshape(3, 4)
    np.testing.assert_array_equal(gufunc(x), x + 1)
    with pytest.raises(TypeError, match="writable_args are not supported"):
        CUDAGUFuncVectorize(add_one, "(n)->(n)", writable_args=(0,))


def test_python_numbers_are_weak_and_host_inputs_cast_as_numba_cuda_casts_them():
    @cuda.guvectorize(["void(int32, int32[:])"], "()->()")
    def twice(inp, out):
        out[0] = inp * 2

    assert twice(10) == 20  # a Python int fits the int32 loop
    arg = np.arange(10, dtype=np.int32)
    np.testing.assert_array_equal(twice(arg), arg * 2)

    @cuda.guvectorize(["void(int32, int32[:], int32[:])"], "(),(t)->(t)")
    def scaled(a, b, out):
        for i in range(b.size):
            out[i] = a * b[i]

    b = np.arange(10, dtype=np.int32)
    np.testing.assert_array_equal(scaled(np.int64(2), b), 2 * b)  # a host int64 is cast
    with pytest.raises(TypeError, match=r"input 0 is a device array of int64 and the loop .* "
                                        r"takes int32; .* does not support \.astype\(\)"):
        scaled(cuda.to_device(np.array(2, np.int64)), b)


def test_a_scalar_layout_declared_as_an_array_is_a_one_element_view():
    # Numba's old style: "()" with an int32[:] type; the function reads y[0].
    @cuda.guvectorize(["void(int32[:], int32[:], int32[:])"], "(n),()->(n)")
    def shifted(x, y, res):
        for i in range(x.shape[0]):
            res[i] = x[i] + y[0]

    a = np.array([1, 2, 3, 4], np.int32)
    res = np.zeros(4, np.int32)
    shifted(a, np.array([2], np.int32), out=res)
    np.testing.assert_array_equal(res, a + 2)
    rows = np.array([[1, 2, 3, 4], [1, 2, 3, 4]], np.int32)
    res = np.zeros((2, 4), np.int32)
    shifted(rows, np.array([2, 10], np.int32), out=res)
    np.testing.assert_array_equal(res, rows + np.array([[2], [10]], np.int32))
