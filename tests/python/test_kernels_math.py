"""The math module: every function of the issue list in float32 and float64
(float32 operands use the float32 variants, so results are float32), integer
operands (promoted to float64), and the constants pi, e, inf and nan."""

import math

import numpy as np
import pytest

import cudajit as cuda
from conftest import launch_1d

pytestmark = pytest.mark.usefixtures("device")

N = 200


# --- one kernel per function -------------------------------------------------


@cuda.jit
def k_sqrt(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.sqrt(x[i])


@cuda.jit
def k_exp(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.exp(x[i])


@cuda.jit
def k_expm1(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.expm1(x[i])


@cuda.jit
def k_log(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.log(x[i])


@cuda.jit
def k_log2(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.log2(x[i])


@cuda.jit
def k_log10(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.log10(x[i])


@cuda.jit
def k_log1p(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.log1p(x[i])


@cuda.jit
def k_sin(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.sin(x[i])


@cuda.jit
def k_cos(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.cos(x[i])


@cuda.jit
def k_tan(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.tan(x[i])


@cuda.jit
def k_asin(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.asin(x[i])


@cuda.jit
def k_acos(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.acos(x[i])


@cuda.jit
def k_atan(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.atan(x[i])


@cuda.jit
def k_sinh(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.sinh(x[i])


@cuda.jit
def k_cosh(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.cosh(x[i])


@cuda.jit
def k_tanh(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.tanh(x[i])


@cuda.jit
def k_asinh(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.asinh(x[i])


@cuda.jit
def k_acosh(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.acosh(x[i])


@cuda.jit
def k_atanh(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.atanh(x[i])


@cuda.jit
def k_floor(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.floor(x[i])


@cuda.jit
def k_ceil(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.ceil(x[i])


@cuda.jit
def k_trunc(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.trunc(x[i])


@cuda.jit
def k_fabs(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.fabs(x[i])


@cuda.jit
def k_erf(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.erf(x[i])


@cuda.jit
def k_erfc(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.erfc(x[i])


@cuda.jit
def k_gamma(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.gamma(x[i])


@cuda.jit
def k_lgamma(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.lgamma(x[i])


@cuda.jit
def k_pow(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.pow(x[i], y[i])


@cuda.jit
def k_atan2(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.atan2(x[i], y[i])


@cuda.jit
def k_copysign(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.copysign(x[i], y[i])


@cuda.jit
def k_fmod(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.fmod(x[i], y[i])


@cuda.jit
def k_hypot(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.hypot(x[i], y[i])


@cuda.jit
def k_isnan(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.isnan(x[i])


@cuda.jit
def k_isinf(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.isinf(x[i])


@cuda.jit
def k_isfinite(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.isfinite(x[i])


def uniform(low, high, specials=()):
    values = np.random.default_rng(7).uniform(low, high, N)
    values[: len(specials)] = specials
    return values


# name -> (kernel, reference, domain of the operand)
UNARY = {
    "sqrt": (k_sqrt, math.sqrt, uniform(0, 100, [0.0, 1.0, 4.0, 2.0, 1e-30])),
    "exp": (k_exp, math.exp, uniform(-20, 20, [0.0, 1.0, -1.0])),
    "expm1": (k_expm1, math.expm1, uniform(-2, 2, [0.0, 1e-10, -1e-10, 1e-5])),
    "log": (k_log, math.log, uniform(1e-3, 1e3, [1.0, math.e, 1e-30])),
    "log2": (k_log2, math.log2, uniform(1e-3, 1e3, [1.0, 2.0, 1024.0, 0.125])),
    "log10": (k_log10, math.log10, uniform(1e-3, 1e3, [1.0, 10.0, 1000.0, 1e-5])),
    "log1p": (k_log1p, math.log1p, uniform(-0.9, 10, [0.0, 1e-10, -1e-10])),
    "sin": (k_sin, math.sin, uniform(-10, 10, [0.0, 1e-8, math.pi / 2])),
    "cos": (k_cos, math.cos, uniform(-10, 10, [0.0, 1e-8, math.pi])),
    "tan": (k_tan, math.tan, uniform(-1.5, 1.5, [0.0, 1e-8, math.pi / 4])),
    "asin": (k_asin, math.asin, uniform(-1, 1, [0.0, 1.0, -1.0, 0.5])),
    "acos": (k_acos, math.acos, uniform(-1, 1, [0.0, 1.0, -1.0, 0.5])),
    "atan": (k_atan, math.atan, uniform(-10, 10, [0.0, 1.0, -1e8])),
    "sinh": (k_sinh, math.sinh, uniform(-5, 5, [0.0, 1e-8])),
    "cosh": (k_cosh, math.cosh, uniform(-5, 5, [0.0])),
    "tanh": (k_tanh, math.tanh, uniform(-5, 5, [0.0, 1e-8, 20.0])),
    "asinh": (k_asinh, math.asinh, uniform(-10, 10, [0.0, 1e-8])),
    "acosh": (k_acosh, math.acosh, uniform(1, 10, [1.0, 1e8])),
    "atanh": (k_atanh, math.atanh, uniform(-0.99, 0.99, [0.0, 1e-8, 0.5])),
    "fabs": (k_fabs, math.fabs, uniform(-10, 10, [0.0, -0.0, -1e-30])),
    "erf": (k_erf, math.erf, uniform(-3, 3, [0.0, 1e-8, 5.0])),
    "erfc": (k_erfc, math.erfc, uniform(-3, 3, [0.0, 5.0, -5.0])),
    "gamma": (k_gamma, math.gamma, uniform(0.1, 10, [1.0, 5.0, 0.5, -1.5, -2.5])),
    "lgamma": (k_lgamma, math.lgamma, uniform(2.5, 10, [0.1, 0.5, -1.5, 1e-5])),
}

BINARY = {
    "pow": (k_pow, math.pow, uniform(0.1, 10, [2.0, 0.0, 1.0]), uniform(-3, 3, [10.0, 0.0, 1e6])),
    "atan2": (
        k_atan2,
        math.atan2,
        uniform(-5, 5, [0.0, 1.0, -1.0, 0.0]),
        uniform(-5, 5, [1.0, 0.0, 0.0, -1.0]),
    ),
    "copysign": (
        k_copysign,
        math.copysign,
        uniform(-5, 5, [1.0, 1.0, 2.0]),
        uniform(-5, 5, [-0.0, 0.0, -3.0]),
    ),
    "fmod": (
        k_fmod,
        math.fmod,
        uniform(-10, 10, [7.5, -7.5, 7.5]),
        uniform(0.5, 3, [2.0, 2.0, -2.0]),
    ),
    "hypot": (
        k_hypot,
        math.hypot,
        uniform(-10, 10, [3.0, 0.0, 1e200]),
        uniform(-10, 10, [4.0, 0.0, 1e200]),
    ),
}

# Tolerances: float64 results within a few ulp of Python's math; float32
# variants within a few float32 ulp (looser where libdevice documents more).
F64_RTOL = 1e-13
F32_RTOL = 2e-6
F32_LOOSE = {
    "gamma": 2e-5,
    "lgamma": 2e-5,
    "erfc": 1e-5,
    "pow": 1e-5,
    "tan": 1e-5,
    "sinh": 1e-5,
    "cosh": 1e-5,
}


def reference(func, *operands, dtype=np.float64):
    """`func` of Python's math on each element, rounded to `dtype`."""
    columns = [np.asarray(op, dtype).astype(np.float64).tolist() for op in operands]
    return np.array([func(*args) for args in zip(*columns)]).astype(dtype)


def check_float_result(name, out, expected, dtype):
    if dtype == np.float64:
        np.testing.assert_allclose(out, expected, rtol=F64_RTOL, atol=1e-300)
    else:
        rtol = F32_LOOSE.get(name, F32_RTOL)
        np.testing.assert_allclose(
            out, expected, rtol=rtol, atol=1e-6 if name == "lgamma" else 1e-37
        )


@pytest.mark.parametrize("name", sorted(UNARY))
def test_math_function_of_float64_matches_python(name):
    kernel, func, x = UNARY[name]
    out = np.zeros(N)
    launch_1d(kernel, N, x, out)
    check_float_result(name, out, reference(func, x), np.float64)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_math_function_of_float32_uses_the_float32_variant(name):
    kernel, func, x = UNARY[name]
    x = x.astype(np.float32)
    out = np.zeros(N, np.float64)  # wide enough to show a float64 result
    launch_1d(kernel, N, x, out)
    check_float_result(name, out, reference(func, x, dtype=np.float32), np.float32)
    np.testing.assert_array_equal(
        out, out.astype(np.float32), err_msg="the result is not a float32"
    )


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_math_function_of_float64_matches_python(name):
    kernel, func, x, y = BINARY[name]
    out = np.zeros(N)
    launch_1d(kernel, N, x, y, out)
    check_float_result(name, out, reference(func, x, y), np.float64)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_math_function_of_float32_uses_the_float32_variant(name):
    kernel, func, x, y = BINARY[name]
    with np.errstate(over="ignore"):  # hypot's 1e200 does not fit: replaced below
        x, y = x.astype(np.float32), y.astype(np.float32)
    if name == "hypot":  # keep float32 operands finite
        x[2] = y[2] = 1e30
    out = np.zeros(N, np.float64)
    launch_1d(kernel, N, x, y, out)
    check_float_result(name, out, reference(func, x, y, dtype=np.float32), np.float32)
    np.testing.assert_array_equal(
        out, out.astype(np.float32), err_msg="the result is not a float32"
    )


def test_copysign_copies_the_sign_of_negative_zero():
    out = np.zeros(N)
    x = np.full(N, 2.0)
    y = np.full(N, -0.0)
    launch_1d(k_copysign, N, x, y, out)
    assert out[0] == -2.0


def test_fmod_has_the_sign_of_the_dividend_unlike_modulo():
    out = np.zeros(N)
    launch_1d(k_fmod, N, np.full(N, -7.5), np.full(N, 2.0), out)
    assert out[0] == -1.5  # whereas -7.5 % 2.0 == 0.5


def test_hypot_does_not_overflow_for_large_operands():
    out = np.zeros(N)
    launch_1d(k_hypot, N, np.full(N, 1e200), np.full(N, 1e200), out)
    np.testing.assert_allclose(out[0], math.hypot(1e200, 1e200), rtol=1e-15)


# --- floor / ceil / trunc keep the float type, as numba-cuda does ----------------

ROUNDING = {
    "floor": (k_floor, math.floor),
    "ceil": (k_ceil, math.ceil),
    "trunc": (k_trunc, math.trunc),
}
ROUNDING_INPUTS = [
    2.5,
    -2.5,
    2.0,
    -2.0,
    0.3,
    -0.3,
    0.0,
    -0.0,
    1e15 + 0.5,
    -1e15 - 0.5,
    7.999,
    -7.999,
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("name", sorted(ROUNDING))
def test_floor_ceil_trunc_round_to_integral_values(name, dtype):
    kernel, func = ROUNDING[name]
    x = np.array(ROUNDING_INPUTS, dtype)
    out = np.zeros(x.size, np.float64)
    launch_1d(kernel, x.size, x, out)
    np.testing.assert_array_equal(out, [func(v) for v in x.tolist()])


def test_floor_result_converted_with_int_can_index_an_array():
    @cuda.jit
    def bucket(x, table, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = table[int(math.floor(x[i]))]

    x = np.array([0.5, 3.99, 2.0, 9.1])
    table = np.arange(10, dtype=np.int64) * 100
    out = np.zeros(4, np.int64)
    bucket[1, 4](x, table, out)
    np.testing.assert_array_equal(out, [0, 300, 200, 900])


def test_floor_of_a_large_float_keeps_every_digit():
    @cuda.jit
    def big(x, out):
        out[0] = math.floor(x) + 1

    out = np.zeros(1, np.int64)
    big[1, 1](5e12 + 0.5, out)
    assert out[0] == 5_000_000_000_001


# --- predicates ---------------------------------------------------------------

SPECIALS = [0.0, -0.0, 1.5, -3e38, np.inf, -np.inf, np.nan, -np.nan, 1e-45]
PREDICATES = {
    "isnan": (k_isnan, math.isnan),
    "isinf": (k_isinf, math.isinf),
    "isfinite": (k_isfinite, math.isfinite),
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("name", sorted(PREDICATES))
def test_isnan_isinf_isfinite_classify_special_values(name, dtype):
    kernel, func = PREDICATES[name]
    x = np.array(SPECIALS, dtype)
    out = np.zeros(x.size, np.bool_)
    launch_1d(kernel, x.size, x, out)
    np.testing.assert_array_equal(out, [func(v) for v in x.tolist()])


@pytest.mark.parametrize("name", sorted(PREDICATES))
def test_isnan_isinf_isfinite_of_integers(name):
    kernel, func = PREDICATES[name]
    x = np.array([0, -5, 2**62], np.int64)
    out = np.zeros(3, np.bool_)
    launch_1d(kernel, 3, x, out)
    np.testing.assert_array_equal(out, [func(v) for v in x.tolist()])


# --- integer operands -----------------------------------------------------------


@pytest.mark.parametrize("name", ["sqrt", "exp", "log", "sin", "atan", "erf", "gamma"])
def test_math_function_of_an_integer_is_float64(name):
    kernel, func, _ = UNARY[name]
    x = np.array([1, 2, 3, 5, 8], np.int32)
    out = np.zeros(5)
    launch_1d(kernel, 5, x, out)
    np.testing.assert_allclose(out, [func(float(v)) for v in x], rtol=F64_RTOL)


def test_binary_math_function_of_mixed_int_and_float():
    x = np.array([2, 3, 10], np.int64)
    y = np.array([0.5, 2.0, -1.0])
    out = np.zeros(3)
    launch_1d(k_pow, 3, x, y, out)
    np.testing.assert_allclose(out, [math.pow(2, 0.5), 9.0, 0.1], rtol=F64_RTOL)


def test_mixed_float32_and_float64_operands_compute_in_float64():
    x = np.array([1.0, 2.0], np.float32)
    y = np.array([3.0, 7.0])
    out = np.zeros(2)
    launch_1d(k_atan2, 2, x, y, out)
    np.testing.assert_allclose(out, [math.atan2(1, 3), math.atan2(2, 7)], rtol=F64_RTOL)
    assert out[0] != float(np.float32(out[0]))


# --- constants ------------------------------------------------------------------


def test_math_constants_are_their_float64_values():
    @cuda.jit
    def constants(out):
        out[0] = math.pi
        out[1] = math.e
        out[2] = math.inf
        out[3] = -math.inf
        out[4] = math.nan
        out[5] = 2 * math.pi

    out = np.zeros(6)
    constants[1, 1](out)
    assert out[0] == math.pi
    assert out[1] == math.e
    assert out[2] == math.inf
    assert out[3] == -math.inf
    assert math.isnan(out[4])
    assert out[5] == 2 * math.pi


def test_math_constants_in_expressions():
    @cuda.jit
    def circle(r, out):
        i = cuda.grid(1)
        if i < r.size:
            out[i] = math.pi * r[i] ** 2

    r = np.array([1.0, 2.0, 0.5])
    out = np.zeros(3)
    circle[1, 4](r, out)
    np.testing.assert_allclose(out, math.pi * r**2, rtol=1e-15)


def test_nan_compares_unequal_to_itself_and_inf_is_greater_than_any_float():
    @cuda.jit
    def compare(out):
        out[0] = math.nan == math.nan
        out[1] = math.nan != math.nan
        out[2] = math.inf > 1e308
        out[3] = math.isnan(math.inf - math.inf)

    out = np.zeros(4, np.bool_)
    compare[1, 1](out)
    np.testing.assert_array_equal(out, [False, True, True, True])


def test_many_math_functions_in_one_kernel():
    @cuda.jit
    def blend(x, out):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i]
            out[i] = (
                math.sin(v) * math.cos(v)
                + math.exp(-v * v)
                + math.log1p(math.fabs(v))
                + math.sqrt(math.hypot(v, 1.0))
                + math.atan2(v, 2.0)
                + math.tanh(v)
                + math.erf(v)
                + math.floor(v)
            )

    x = np.linspace(-3, 3, 50)
    out = np.zeros(50)
    launch_1d(blend, 50, x, out)
    expected = [
        math.sin(v) * math.cos(v)
        + math.exp(-v * v)
        + math.log1p(abs(v))
        + math.sqrt(math.hypot(v, 1.0))
        + math.atan2(v, 2.0)
        + math.tanh(v)
        + math.erf(v)
        + math.floor(v)
        for v in x.tolist()
    ]
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-14)


# --- result types -----------------------------------------------------------------


def f_sqrt(x):
    return math.sqrt(x)


def f_exp(x):
    return math.exp(x)


def f_sin(x):
    return math.sin(x)


def f_gamma(x):
    return math.gamma(x)


def f_floor(x):
    return math.floor(x)


def f_ceil(x):
    return math.ceil(x)


def f_trunc(x):
    return math.trunc(x)


def f_isnan(x):
    return math.isnan(x)


def f_atan2(y, x):
    return math.atan2(y, x)


def f_pow(x, y):
    return math.pow(x, y)


def f_hypot(x, y):
    return math.hypot(x, y)


MATH_TYPES = [
    (f_sqrt, (cuda.float32,), cuda.float32),
    (f_sqrt, (cuda.float64,), cuda.float64),
    (f_sqrt, (cuda.int32,), cuda.float64),
    (f_exp, (cuda.float32,), cuda.float32),
    (f_sin, (cuda.float32,), cuda.float32),
    (f_gamma, (cuda.float32,), cuda.float32),
    (f_floor, (cuda.float32,), cuda.float32),
    (f_floor, (cuda.float64,), cuda.float64),
    (f_floor, (cuda.int64,), cuda.float64),
    (f_ceil, (cuda.float64,), cuda.float64),
    (f_trunc, (cuda.float32,), cuda.float32),
    (f_isnan, (cuda.float32,), cuda.boolean),
    (f_isnan, (cuda.int64,), cuda.boolean),
    (f_atan2, (cuda.float32, cuda.float32), cuda.float32),
    (f_atan2, (cuda.float32, cuda.float64), cuda.float64),
    (f_pow, (cuda.float32, cuda.float32), cuda.float32),
    (f_hypot, (cuda.float32, cuda.float32), cuda.float32),
    (f_hypot, (cuda.int32, cuda.float32), cuda.float64),
]


@pytest.mark.parametrize(
    "func, args, expected",
    MATH_TYPES,
    ids=[f"{f.__name__[2:]}({','.join(map(str, a))})" for f, a, _ in MATH_TYPES],
)
def test_math_result_type(func, args, expected):
    assert cuda.compile_ptx(func, args, device=True)[1] == expected


# --- frexp, modf, ldexp, exp2, degrees, radians, nextafter, remainder ---------


@cuda.jit
def k_more_math(x, e, out, exponents):
    i = cuda.grid(1)
    if i < x.size:
        mantissa, exponents[i] = math.frexp(x[i])
        fraction, whole = math.modf(x[i])
        out[i, 0] = mantissa
        out[i, 1] = fraction
        out[i, 2] = whole
        out[i, 3] = math.ldexp(x[i], e[i])
        out[i, 4] = math.exp2(x[i])
        out[i, 5] = math.degrees(x[i])
        out[i, 6] = math.radians(x[i])
        out[i, 7] = math.nextafter(x[i], x[0])  # both float32 for float32 arrays
        out[i, 8] = math.remainder(x[i], x[1])


def _python_more_math(x, e, dtype):
    rows = []
    for v, n in zip(x.astype(np.float64).tolist(), e.tolist()):
        try:
            scaled = math.ldexp(v, n)
        except OverflowError:
            scaled = math.copysign(math.inf, v)
        with np.errstate(over="ignore"):
            after = float(np.nextafter(dtype(v), dtype(x[0])))  # in the array's own type
        rows.append([math.frexp(v)[0], *math.modf(v), scaled,
                     math.inf if v == math.inf else 0.0 if v == -math.inf else 2.0**v,
                     math.degrees(v), math.radians(v), after,
                     math.remainder(v, float(x[1])) if math.isfinite(v) else math.nan])
    with np.errstate(over="ignore"):
        return np.array(rows).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_frexp_modf_ldexp_exp2_degrees_radians_nextafter_remainder_match_python(dtype):
    tiny = 1e-310 if dtype == np.float64 else 1e-40  # a subnormal
    x = np.array([1.5, 0.75, -3.0, 0.0, -0.0, np.inf, -np.inf, np.nan, tiny, 7.25, -0.375, 100.0],
                 dtype)
    e = np.array([3, -2, 5, 0, 1, 2, 3, 1, 1000, -1100, 2**40, -7], np.int64)
    out = np.zeros((x.size, 9), dtype)
    exponents = np.zeros(x.size, np.int32)
    k_more_math[1, 32](x, e, out, exponents)
    expected = _python_more_math(x, e, dtype)
    exact = [0, 1, 2, 3, 7, 8]  # exactly rounded: equal, signed zeros included
    np.testing.assert_array_equal(out[:, exact], expected[:, exact])
    numbers = ~np.isnan(expected[:, exact])  # a NaN's sign is unspecified
    np.testing.assert_array_equal(np.signbit(out[:, exact])[numbers],
                                  np.signbit(expected[:, exact])[numbers])
    rtol = 1e-15 if dtype == np.float64 else 1e-6
    np.testing.assert_allclose(out[:, 4:7], expected[:, 4:7], rtol=rtol, atol=0)
    finite = np.isfinite(x)
    np.testing.assert_array_equal(exponents[finite],
                                  [math.frexp(v)[1] for v in x[finite].astype(np.float64)])


def f_frexp_part(x):
    return math.frexp(x)[1]


def f_ldexp(x, n):
    return math.ldexp(x, n)


def f_exp2(x):
    return math.exp2(x)


@pytest.mark.parametrize("func, args, expected", [
    (f_frexp_part, (cuda.float32,), cuda.int32),  # a C int, as Numba types it
    (f_ldexp, (cuda.float32, cuda.int64), cuda.float32),
    (f_exp2, (cuda.int32,), cuda.float64),
])
def test_more_math_result_types(func, args, expected):
    assert cuda.compile_ptx(func, args, device=True)[1] == expected


def test_ldexp_needs_an_integer_exponent():
    with pytest.raises(cuda.CompileError, match=r"math.ldexp\(\) needs an integer exponent, "
                                                r"got float64"):
        cuda.compile_ptx(f_ldexp, (cuda.float64, cuda.float64), device=True)


def test_numpys_math_on_numbers_is_maths():
    from numpy import arctan2

    @cuda.jit
    def kernel(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i, 0] = np.sin(x[i])
            out[i, 1] = np.arcsinh(x[i])
            out[i, 2] = arctan2(x[i], 2.0)
            out[i, 3] = np.abs(-x[i])
            out[i, 4] = np.sqrt(np.fabs(x[i]))
            out[i, 5] = np.rad2deg(x[i])
            out[i, 6] = np.exp2(x[i])
            out[i, 7] = np.isfinite(x[i])

    x = np.array([-1.5, -0.25, 0.0, 0.5, 2.0, np.inf])
    out = np.zeros((x.size, 8))
    kernel[1, 32](x, out)
    with np.errstate(invalid="ignore"):
        expected = np.stack([np.sin(x), np.arcsinh(x), np.arctan2(x, 2.0), np.abs(x),
                             np.sqrt(np.abs(x)), np.rad2deg(x), np.exp2(x), np.isfinite(x)], 1)
    np.testing.assert_allclose(out, expected, rtol=1e-14)
