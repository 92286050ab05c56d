"""Builtins: range (see control flow), len, min, max, abs, int, float, bool,
complex, round, isinstance, and casts through cudajit's and NumPy's scalar types."""

import enum
import math

import numpy as np
import pytest

import cudajit as cuda
from conftest import launch_1d

pytestmark = pytest.mark.usefixtures("device")


def test_len_of_an_array_is_its_first_dimension():
    @cuda.jit
    def lengths(a, b, out):
        out[0] = len(a)
        out[1] = len(b)

    out = np.zeros(2, np.int64)
    lengths[1, 1](np.zeros(7), np.zeros((3, 9), np.int8), out)
    np.testing.assert_array_equal(out, [7, 3])


def test_len_bounds_a_loop():
    @cuda.jit
    def total(a, out):
        s = 0
        for i in range(len(a)):
            s += a[i]
        out[0] = s

    a = np.arange(1, 11, dtype=np.int32)
    out = np.zeros(1, np.int64)
    total[1, 1](a, out)
    assert out[0] == 55


# --- min / max -----------------------------------------------------------------


@cuda.jit
def min_max(a, b, c, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = min(a[i], b[i])
        out[i, 1] = max(a[i], b[i])
        out[i, 2] = min(a[i], b[i], c[i])
        out[i, 3] = max(a[i], b[i], c[i])


@pytest.mark.parametrize(
    "dtypes, out_dtype",
    [
        ((np.int64, np.int64, np.int64), np.int64),
        ((np.int32, np.int16, np.int8), np.int64),
        ((np.uint32, np.uint32, np.uint32), np.uint32),
        ((np.float32, np.float32, np.float32), np.float32),
        ((np.float64, np.int64, np.float32), np.float64),
    ],
    ids=["int64", "mixed-ints", "uint32", "float32", "mixed-int-float"],
)
def test_min_and_max_of_two_and_three_values(dtypes, out_dtype):
    rng = np.random.default_rng(4)
    a, b, c = (
        np.array(rng.integers(-50 if np.dtype(t).kind != "u" else 0, 50, 40), t) for t in dtypes
    )
    out = np.zeros((40, 4), out_dtype)
    launch_1d(min_max, 40, a, b, c, out)
    columns = [
        np.minimum(a, b),
        np.maximum(a, b),
        np.minimum(np.minimum(a, b), c),
        np.maximum(np.maximum(a, b), c),
    ]
    np.testing.assert_array_equal(out, np.stack(columns, axis=1).astype(out_dtype))


def test_max_of_int_and_float_is_a_float():
    @cuda.jit
    def mixed(out):
        out[0] = max(1, 2.5)
        out[1] = min(3, 2.5)
        out[2] = max(7, 2.5)

    out = np.zeros(3)
    mixed[1, 1](out)
    np.testing.assert_array_equal(out, [2.5, 2.5, 7.0])


def test_min_and_max_of_negative_zero_and_infinities():
    @cuda.jit
    def extremes(out):
        out[0] = max(-math.inf, -1e308)
        out[1] = min(math.inf, 1e308)
        out[2] = max(-5.0, math.inf)

    out = np.zeros(3)
    extremes[1, 1](out)
    np.testing.assert_array_equal(out, [-1e308, 1e308, np.inf])


def test_min_and_max_of_two_floats_ignore_a_nan_as_numba_cuda_does():
    # numba-cuda lowers min/max of two float32/float64 numbers to fmin/fmax (a NaN operand is
    # ignored); three or more values, or a mix with integers, follow Python's rule.
    @cuda.jit
    def nan_min_max(x, out):
        nan = x[0]
        one = x[1]
        out[0] = max(nan, one)
        out[1] = max(one, nan)
        out[2] = min(nan, one)
        out[3] = min(one, nan)
        out[4] = max(nan, one, 2.0)  # Python: the NaN met first is kept

    out = np.zeros(5)
    nan_min_max[1, 1](np.array([np.nan, 1.0]), out)
    np.testing.assert_array_equal(out, [1.0, 1.0, 1.0, 1.0, np.nan])


def test_min_and_max_of_two_floats_are_fmin_and_fmax_in_ptx():
    @cuda.jit
    def k(a, b, out):
        out[0] = max(a[0], b[0])
        out[1] = min(a[0], b[0])

    ptx = cuda.compile_ptx(k.py_func, "void(float32[:], float64[:], float64[:])")[0]
    assert "max.f64" in ptx and "min.f64" in ptx


# --- abs ---------------------------------------------------------------------


@cuda.jit
def k_abs(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = abs(x[i])


@pytest.mark.parametrize(
    "values, out_dtype",
    [
        pytest.param(np.array([-3, 0, 7, -(2**31) + 1], np.int32), np.int32, id="int32"),
        pytest.param(np.array([-(2**62), 5], np.int64), np.int64, id="int64"),
        pytest.param(np.array([-100, 100], np.int8), np.int8, id="int8"),
        pytest.param(
            np.array([-1.5, 0.0, -0.0, np.inf, -np.inf], np.float32), np.float32, id="float32"
        ),
        pytest.param(np.array([-1e300, 2.5, -0.0]), np.float64, id="float64"),
        pytest.param(
            np.array([3 + 4j, -1j, 0j], np.complex64), np.float32, id="complex64-magnitude"
        ),
        pytest.param(
            np.array([-5 - 12j, 1e200 + 1e200j]),
            np.float64,
            id="complex128-magnitude-without-overflow",
        ),
    ],
)
def test_abs_is_the_magnitude(values, out_dtype):
    out = np.zeros(values.size, out_dtype)
    k_abs[1, 8](values, out)
    np.testing.assert_allclose(
        out, np.abs(values).astype(out_dtype), rtol=1e-6 if out_dtype == np.float32 else 1e-15
    )
    assert not np.signbit(out).any()


# --- int / float / bool / complex ----------------------------------------------


@cuda.jit
def k_int(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = int(x[i])


@pytest.mark.parametrize(
    "values, expected",
    [
        pytest.param(
            np.array([2.7, -2.7, 0.5, -0.5, 1e15 + 0.5]),
            [2, -2, 0, 0, 10**15],
            id="float64-truncates",
        ),
        pytest.param(np.array([2.99, -2.99], np.float32), [2, -2], id="float32-truncates"),
        pytest.param(np.array([True, False]), [1, 0], id="bool"),
        pytest.param(np.array([-7, 2**40], np.int64), [-7, 2**40], id="int64"),
        pytest.param(np.array([200], np.uint8), [200], id="uint8"),
    ],
)
def test_int_truncates_toward_zero(values, expected):
    out = np.zeros(values.size, np.int64)
    k_int[1, 8](values, out)
    np.testing.assert_array_equal(out, expected)


def test_int_of_a_float_is_an_int64_that_holds_large_values():
    @cuda.jit
    def big(x, out):
        out[0] = int(x) * 4

    out = np.zeros(1, np.int64)
    big[1, 1](3e9, out)
    assert out[0] == 12_000_000_000


@cuda.jit
def k_float(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = float(x[i]) / 2


@pytest.mark.parametrize(
    "values",
    [
        np.array([3, -7, 2**53], np.int64),
        np.array([True, False]),
        np.array([1.25, -0.5]),
        np.array([250], np.uint8),
    ],
    ids=["int64", "bool", "float64", "uint8"],
)
def test_float_converts_to_a_floating_point_value(values):
    out = np.zeros(values.size)
    k_float[1, 8](values, out)
    np.testing.assert_array_equal(out, values.astype(np.float64) / 2)


def test_int_of_an_integer_and_float_of_a_float_keep_their_type_as_in_numba():
    def as_int(x):
        return int(x)

    def as_float(x):
        return float(x)

    cases = [(as_int, cuda.uint8, cuda.uint8), (as_int, cuda.float32, cuda.int64),
             (as_int, cuda.boolean, cuda.int64), (as_float, cuda.float32, cuda.float32),
             (as_float, cuda.float16, cuda.float16), (as_float, cuda.int32, cuda.float64)]
    for function, arg, result in cases:
        ptx, returned = cuda.compile_ptx(function, (arg,), device=True)
        assert returned == result, (function.__name__, arg)
    # float(x) of a float32 is no float64 computation
    ptx, _ = cuda.compile_ptx(as_float, (cuda.float32,), device=True)
    assert ".f64" not in ptx

    @cuda.jit
    def halves(x, out):
        out[0] = float(x[0]) / 3
        out[1] = int(x[1]) + 200  # an int64

    out = np.zeros(2, np.float32)
    halves[1, 1](np.array([1.0, 100], np.float32), out)
    np.testing.assert_array_equal(out, [np.float32(1.0) / np.float32(3), 300])


@cuda.jit
def k_bool(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = bool(x[i])


@pytest.mark.parametrize(
    "values",
    [
        np.array([0, 1, -1, 2**40], np.int64),
        np.array([0, 255], np.uint8),
        np.array([0.0, -0.0, 0.1, np.nan, np.inf]),
        np.array([0j, 1j, 1 + 0j, complex(0, -0.0)], np.complex128),
    ],
    ids=["int64", "uint8", "float64", "complex128"],
)
def test_bool_is_python_truthiness(values):
    out = np.zeros(values.size, np.bool_)
    k_bool[1, 8](values, out)
    np.testing.assert_array_equal(out, [bool(v) for v in values.tolist()])


def test_complex_builds_from_real_and_imaginary_parts():
    @cuda.jit
    def build(re, im, out):
        i = cuda.grid(1)
        if i < re.size:
            out[i, 0] = complex(re[i], im[i])
            out[i, 1] = complex(re[i])
            out[i, 2] = complex(re[i], 0) * 1j

    re = np.array([1.5, -2.0, 0.0])
    im = np.array([0.25, 3.0, -1.0])
    out = np.zeros((3, 3), np.complex128)
    build[1, 4](re, im, out)
    expected = np.stack([re + 1j * im, re + 0j, 1j * re], axis=1)
    np.testing.assert_array_equal(out, expected)


def test_complex_of_integers_is_complex128():
    @cuda.jit
    def build(a, b, out):
        out[0] = complex(a, b) / 3

    out = np.zeros(1, np.complex128)
    build[1, 1](1, 2, out)
    assert out[0] == complex(1, 2) / 3


# --- round -------------------------------------------------------------------


@cuda.jit
def k_round(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = round(x[i])


HALVES = [0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, 2.4999, 2.5001, -2.6, 0.0, 1e15 + 0.5, 123456.0]


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
def test_round_rounds_half_to_even_and_returns_an_int(dtype):
    x = np.array(HALVES, dtype)
    out = np.zeros(x.size, np.int64)
    k_round[1, 16](x, out)
    np.testing.assert_array_equal(out, [round(v) for v in x.tolist()])


def test_round_result_is_int64_so_it_indexes_and_holds_large_values():
    @cuda.jit
    def pick(a, x, out):
        out[0] = a[round(x)]
        out[1] = round(x * 1e10) * 2

    a = np.arange(10, dtype=np.int64) * 10
    out = np.zeros(2, np.int64)
    pick[1, 1](a, 3.6, out)
    np.testing.assert_array_equal(out, [40, 72_000_000_000])


# --- casts through scalar types ------------------------------------------------


def test_cudajit_scalar_types_cast_like_numba():
    @cuda.jit
    def casts(x, n, out, nout):
        out[0] = cuda.float32(x)
        out[1] = cuda.float64(cuda.float32(x))
        nout[0] = cuda.int32(-2.7)
        nout[1] = cuda.int8(n)
        nout[2] = cuda.uint8(-1)
        nout[3] = cuda.int16(70000)
        nout[4] = cuda.int64(x * 10)
        nout[5] = cuda.uint32(n)

    out = np.zeros(2)
    nout = np.zeros(6, np.int64)
    casts[1, 1](0.1, 300, out, nout)
    f32 = float(np.float32(0.1))
    np.testing.assert_array_equal(out, [f32, f32])
    np.testing.assert_array_equal(nout, [-2, 44, 255, 4464, 1, 300])


def test_numpy_scalar_types_cast_like_numba():
    @cuda.jit
    def casts(x, out, nout, cout):
        out[0] = np.float32(x)
        out[1] = np.float64(x)
        nout[0] = np.int32(x)
        nout[1] = np.uint16(-1)
        cout[0] = np.complex64(x)

    out = np.zeros(2)
    nout = np.zeros(2, np.int64)
    cout = np.zeros(1, np.complex128)
    casts[1, 1](1.1, out, nout, cout)
    np.testing.assert_array_equal(out, [float(np.float32(1.1)), 1.1])
    np.testing.assert_array_equal(nout, [1, 65535])
    assert cout[0] == complex(np.complex64(1.1))


def test_cast_to_bool_and_complex_types():
    @cuda.jit
    def casts(x, bout, cout):
        bout[0] = cuda.boolean(x)
        bout[1] = cuda.boolean(0)
        cout[0] = cuda.complex128(x)
        cout[1] = cuda.complex64(x) * 2

    bout = np.zeros(2, np.bool_)
    cout = np.zeros(2, np.complex128)
    casts[1, 1](0.5, bout, cout)
    np.testing.assert_array_equal(bout, [True, False])
    np.testing.assert_array_equal(cout, [0.5 + 0j, 1.0 + 0j])


def test_the_operator_module_in_kernels_is_the_operators():
    import operator

    @cuda.jit
    def apply(a, b, out, flags):
        i = cuda.grid(1)
        if i < a.size:
            out[i, 0] = operator.add(a[i], b[i])
            out[i, 1] = operator.truediv(a[i], b[i])
            out[i, 2] = operator.mod(a[i], b[i])
            out[i, 3] = operator.neg(a[i])
            out[i, 4] = operator.pow(a[i], 2)
            out[i, 5] = operator.abs(b[i])
            flags[i, 0] = operator.lt(a[i], b[i])
            flags[i, 1] = operator.not_(operator.eq(a[i], b[i]))

    a = np.array([1.5, -2.0, 3.0, 7.25])
    b = np.array([2.0, -2.0, -0.5, 3.0])
    out = np.zeros((4, 6))
    flags = np.zeros((4, 2), np.bool_)
    apply[1, 32](a, b, out, flags)
    expected = np.stack([a + b, a / b, np.mod(a, b), -a, a**2, np.abs(b)], axis=1)
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(flags, np.stack([a < b, a != b], axis=1))


# --- enum members: constants of their value, as Numba lowers them ----------------------------


class _Color(enum.Enum):
    red = 1
    green = 2


class _Shape(enum.IntEnum):
    circle = 1
    square = 2


class _RequestError(enum.IntEnum):
    not_found = 404
    internal_error = 500


def _enum_comparisons(out):
    out[0] = _Color.red == _Color.green
    out[1] = _Color["red"] == _Color["red"]
    out[2] = _Color.red is _Color.red
    out[3] = _Shape.circle == _Color.red  # same value, other enums: never equal
    out[4] = _Shape.circle != _Color.red


def _int_enum_arithmetic(x, out):
    if x > _RequestError.internal_error:
        out[0] = x - _RequestError.not_found
    else:
        out[0] = x + cuda.int16(_Shape["square"])


def test_enum_members_compare_as_python_compares_them(device):
    got, expected = np.zeros(5, np.bool_), np.zeros(5, np.bool_)
    cuda.jit(_enum_comparisons)[1, 1](got)
    _enum_comparisons(expected)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("x", [300, 450, 550])
def test_int_enum_members_are_their_integer_values(device, x):
    got, expected = np.zeros(1, np.int32), np.zeros(1, np.int32)
    cuda.jit(_int_enum_arithmetic)[1, 1](x, got)
    _int_enum_arithmetic(x, expected)
    np.testing.assert_array_equal(got, expected)


def test_a_plain_enum_members_value_compares_with_run_time_values(device):
    @cuda.jit
    def kernel(x, out):
        out[0] = x == _Color.red.value

    out = np.zeros(1, np.bool_)
    kernel[1, 1](_Color.red.value, out)
    assert out[0]


def test_a_missing_enum_member_is_a_compile_error_naming_it():
    def kernel(out):
        out[0] = _Color["blue"] == _Color.red

    with pytest.raises(cuda.CompileError, match=r"'_Color' has no member 'blue'"):
        cuda.jit(kernel)[1, 1](np.zeros(1, np.bool_))


def test_pow_is_the_power_operator():
    @cuda.jit
    def powers(a, out):
        out[0] = pow(a[0], 2) + pow(a[1], a[0])

    a = np.array([2 + 1j, 3 - 1j])
    out = np.zeros(1, np.complex128)
    powers[1, 1](a, out)
    np.testing.assert_allclose(out[0], pow(a[0], 2) + pow(a[1], a[0]), rtol=1e-14)


def test_pow_with_a_modulus_is_a_compile_error():
    def three(out):
        out[0] = pow(2, 3, 5)

    with pytest.raises(cuda.CompileError, match=r"pow\(\) takes 2 arguments; got 3"):
        cuda.jit(three)[1, 1](np.zeros(1))


def test_isinstance_of_number_types_is_known_when_compiling_as_numba_types_it():
    @cuda.jit
    def kinds(x, i, out):
        out[0] = isinstance(x, cuda.float32)
        out[1] = isinstance(x, np.float64)
        out[2] = isinstance(x, float)
        out[3] = isinstance(i, (float, complex))
        out[4] = isinstance(i, int)
        out[5] = isinstance(True, int)  # Numba: bool is not an integer type
        out[6] = isinstance(True, bool)
        out[7] = isinstance(x, (cuda.int64, cuda.float32))

    out = np.zeros(8, np.bool_)
    kinds[1, 1](np.float32(1.5), 3, out)
    assert list(out) == [True, False, True, False, True, False, True, True]


def test_isinstance_of_something_other_than_a_number_type_is_a_compile_error():
    def kernel(out):
        out[0] = isinstance(out, len)

    with pytest.raises(cuda.CompileError,
                       match="isinstance\\(\\) in kernels takes a number type or a tuple of "
                             "them, got len"):
        cuda.jit(kernel)[1, 1](np.zeros(1, np.bool_))
