"""NumPy ufuncs in kernels: with an output array (``np.sin(x, out)``, a statement run by
one thread over every element, broadcasting as NumPy does) and on numbers (an expression),
checked against NumPy on the cpu device and the cuda device."""

import itertools

import numpy as np
import pytest

import cudajit as cuda
from conftest import kernel_from_body

pytestmark = pytest.mark.usefixtures("device")

INPUTS = {
    "uint32": np.uint32(1),
    "int64 scalar": np.int64(-1),
    "float32 scalar": np.float32(-0.5),
    "uint8[:]": np.array([0, 1, 255], np.uint8),
    "int64[:]": np.array([-1, 0, 1], np.int64),
    "float32[:]": np.array([-0.5, 0.0, 0.5], np.float32),
    "float64[:, :]": np.linspace(-1, 1, 50).reshape(5, -1),
    "float64[:, :, :]": np.linspace(0, 1, 50).reshape(2, 5, -1),
    "float64[::1, :] (F)": np.asfortranarray(np.linspace(0, 1, 50).reshape(5, -1)),
    "complex128[:]": np.array([-0.5 - 0.5j, 0.0, 0.5 + 0.5j, 0.5 - 1j]),
    "complex64[:, :]": np.linspace(0, 1 + 1j, 10).reshape(5, -1).astype(np.complex64),
}


def usecase(ufunc):
    """def fn(a0, ..., out): np.<ufunc>(a0, ..., out), as numba-cuda's tests write it."""
    names = ", ".join(f"a{i}" for i in range(ufunc.nargs))
    scope = {"np": np}
    exec(f"def fn({names}):\n    np.{ufunc.__name__}({names})", scope)  # noqa: S102
    return scope["fn"]


def run_like_numpy(ufunc, args, out_dtype):
    shape = args[0].shape if isinstance(args[0], np.ndarray) else (1,)
    expected, got = np.zeros(shape, out_dtype), np.zeros(shape, out_dtype)
    with np.errstate(all="ignore"):
        ufunc(*args, expected)
    cuda.jit(usecase(ufunc))[1, 1](*args, got)
    return got, expected


OPERATORS = [np.add, np.subtract, np.multiply, np.true_divide, np.negative, np.square,
             np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal,
             np.logical_and, np.logical_or, np.logical_xor, np.logical_not,
             np.maximum, np.minimum, np.fmax, np.fmin]


@pytest.mark.parametrize("ufunc", OPERATORS, ids=lambda u: u.__name__)
@pytest.mark.parametrize("name", INPUTS)
def test_operator_ufuncs_with_an_output_array_match_numpy(ufunc, name):
    x = INPUTS[name]
    with np.errstate(all="ignore"):
        out_dtype = np.asarray(ufunc(*(x,) * ufunc.nin)).dtype  # NumPy's result type
    got, expected = run_like_numpy(ufunc, (x,) * ufunc.nin, out_dtype)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


@pytest.mark.parametrize("ufunc", [np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.invert,
                                   np.bitwise_not, np.left_shift, np.right_shift],
                         ids=lambda u: u.__name__)
@pytest.mark.parametrize("x", [np.uint32(6), np.int64(-3), np.array([0, 1, 7], np.uint8),
                               np.array([-4, 0, 5], np.int32)], ids=str)
def test_bitwise_ufuncs_match_numpy(ufunc, x):
    args = (x,) * ufunc.nin
    if ufunc in (np.left_shift, np.right_shift):
        args = (x, x.dtype.type(1) if np.ndim(x) == 0 else np.ones_like(x))
    got, expected = run_like_numpy(ufunc, args, x.dtype)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("ufunc", [np.sin, np.arctan2, np.hypot, np.degrees, np.deg2rad,
                                   np.log10, np.sqrt], ids=lambda u: u.__name__)
@pytest.mark.parametrize("name", ["float32 scalar", "float32[:]", "float64[:, :]",
                                  "float64[:, :, :]", "float64[::1, :] (F)"])
def test_math_ufuncs_with_an_output_array_match_numpy(ufunc, name):
    x = np.abs(INPUTS[name]) + 0.25  # in every function's domain
    got, expected = run_like_numpy(ufunc, (x,) * ufunc.nin, x.dtype)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


@pytest.mark.parametrize("ufunc", [np.sin, np.cos, np.tan, np.arcsin, np.arccos, np.arctan,
                                   np.sinh, np.cosh, np.tanh, np.arcsinh, np.arccosh,
                                   np.arctanh, np.exp, np.log, np.log2, np.log10, np.sqrt],
                         ids=lambda u: u.__name__)
@pytest.mark.parametrize("name", ["complex128[:]", "complex64[:, :]"])
def test_math_ufuncs_take_complex_numbers_as_numpy_does(ufunc, name):
    x = INPUTS[name]
    got, expected = run_like_numpy(ufunc, (x,), x.dtype)
    rtol = 1e-5 if x.dtype == np.complex64 else 1e-12
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol)


def test_math_ufuncs_on_complex_numbers_are_expressions_too():
    @cuda.jit
    def kernel(z, out):
        out[0] = np.sin(z[0]) + np.sqrt(z[1]) + np.log2(z[0])

    z = np.array([1 + 1j, -4 + 0j])
    out = np.zeros(1, np.complex128)
    kernel[1, 1](z, out)
    np.testing.assert_allclose(out[0], np.sin(z[0]) + np.sqrt(z[1]) + np.log2(z[0]), rtol=1e-12)


def test_signed_and_unsigned_integers_compare_by_value_as_numpy_1_25():
    a = np.array([-1, -1, 0, 0, 1, 1], np.int64)
    b = np.array([0, 1, 0, 1, 0, 1], np.uint64)
    for ufunc, (x, y) in itertools.product([np.less, np.greater_equal, np.equal],
                                           [(a, b), (b, a), (np.int64(-1), np.uint64(0))]):
        got, expected = run_like_numpy(ufunc, (x, y), np.bool_)
        np.testing.assert_array_equal(got, expected)


def test_inputs_broadcast_against_the_output_as_in_numpy():
    @cuda.jit
    def combine(row, column, scalar, out):
        np.hypot(row, column, out=out)
        np.add(out, scalar, out)

    row, column = np.arange(4.0), np.arange(3.0).reshape(3, 1)
    out = np.zeros((3, 4))
    combine[1, 1](row, column, 0.5, out)
    np.testing.assert_allclose(out, np.hypot(row, column) + 0.5)


def test_the_output_dtype_is_cast_to_as_numpy_casts():
    @cuda.jit
    def kernel(x, out):
        np.sqrt(x, out)

    x = np.array([4, 9, 15], np.int32)
    out = np.zeros(3, np.float32)
    kernel[1, 1](x, out)
    np.testing.assert_allclose(out, np.sqrt(x).astype(np.float32))


def test_operator_ufuncs_on_numbers_are_expressions():
    @cuda.jit
    def kernel(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = (np.maximum(x[i], 0.0) + np.fmin(x[i], 10.0) + np.bitwise_and(3, 1)
                      + np.logical_not(x[i]) + np.less(x[i], 1.0) + np.square(x[i]))

    x = np.array([-1.0, 2.0, np.nan, 0.0])
    out = np.zeros(4)
    kernel[1, 4](x, out)
    with np.errstate(invalid="ignore"):
        expected = (np.maximum(x, 0.0) + np.fmin(x, 10.0) + 1 + np.logical_not(x)
                    + np.less(x, 1.0) + np.square(x))
    np.testing.assert_array_equal(out, expected)  # NaN propagates through maximum, not fmin


@pytest.mark.parametrize("body, message", [
    ("y = np.sin(x, out)", r"np.sin\(\) with an output array is a statement in kernels"),
    ("y = np.less(x, x, out)", r"np.less\(\) with an output array is a statement in kernels"),
    ("np.sin(x, 1.0)", r"a NumPy ufunc's output in a kernel must be an array, got float64"),
    ("np.true_divide(n, n, n)", r"a NumPy ufunc cannot store float64 results in an array of "
                                r"int64 \(NumPy's same_kind casting\)"),
    ("np.sin(out, x)", r"input array\(float64, 2d, C\) has more dimensions than its output "
                       r"array\(float64, 1d, C\)"),
    ("np.sin(x, out, out)", r"np.sin\(\) takes 1 input\(s\) and one output array; got 3"),
    ("np.sin(x, out=out, where=x)", r"np.sin\(\) takes no keyword 'where' in kernels"),
    ("out[0] = np.maximum(np.sin(x[0]), 0.0)",
     r"np.maximum\(\) on numbers in kernels takes names, constants and indexing; assign "
     r"'np.sin\(x\[0\]\)' to a variable first"),
])
def test_ufunc_misuse_is_a_compile_error_saying_what_is_wrong(body, message):
    kernel = kernel_from_body("x, out, n", body, np=np)
    x, out = np.ones(3), np.ones((3, 3)) if "np.sin(out, x)" in body else np.ones(3)
    with pytest.raises(cuda.CompileError, match=message):
        cuda.jit(kernel)[1, 1](x, out, np.ones(3, np.int64))
