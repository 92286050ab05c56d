"""Operators and typing: + - * / // % ** and unary minus, & | ^ ~ << >>,
comparisons, augmented assignment, literals, and Numba's result types
(int32 + int32 -> int64, mixed int and float -> float64, `/` on integers ->
float64, Python semantics of // and % for negative operands)."""

import math

import numpy as np
import pytest

import cudajit as cuda
from conftest import dtype_id, launch_1d

pytestmark = pytest.mark.usefixtures("device")

N = 64


# --- kernels: one per operator ---------------------------------------------


@cuda.jit
def k_add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


@cuda.jit
def k_sub(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] - b[i]


@cuda.jit
def k_mul(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * b[i]


@cuda.jit
def k_truediv(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] / b[i]


@cuda.jit
def k_floordiv(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] // b[i]


@cuda.jit
def k_mod(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] % b[i]


@cuda.jit
def k_pow(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] ** b[i]


@cuda.jit
def k_and(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] & b[i]


@cuda.jit
def k_or(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] | b[i]


@cuda.jit
def k_xor(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] ^ b[i]


@cuda.jit
def k_lshift(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] << b[i]


@cuda.jit
def k_rshift(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] >> b[i]


@cuda.jit
def k_neg(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = -a[i]


@cuda.jit
def k_pos(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = +a[i]


@cuda.jit
def k_invert(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = ~a[i]


def operands(a_dtype, b_dtype, kind, seed=0):
    """Two arrays of N values suited to an operator class."""
    rng = np.random.default_rng(seed)

    def draw(dtype, low, high):
        dtype = np.dtype(dtype)
        if dtype == np.bool_:
            return rng.integers(0, 2, N).astype(bool)
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            return rng.integers(
                max(low, info.min), min(high, info.max), N, endpoint=True, dtype=dtype
            )
        return rng.uniform(low, high, N).astype(dtype)

    if kind == "full":  # the whole range of each type: results need the wider type
        a = draw(a_dtype, -(2**63), 2**64 - 1)
        b = draw(b_dtype, -(2**63), 2**64 - 1)
        for arr in (a, b):
            if arr.dtype.kind in "iu":
                arr[:2] = [np.iinfo(arr.dtype).min, np.iinfo(arr.dtype).max]
    elif kind == "small":  # products of int64 operands stay in range
        a = draw(a_dtype, -(2**31), 2**31)
        b = draw(b_dtype, -(2**31), 2**31)
    elif kind == "divisor":  # b never zero; both signs where the type has them
        a = draw(a_dtype, -1000, 1000)
        b = draw(b_dtype, -50, 50)
        if b.dtype.kind == "f":
            b = np.where(np.abs(b) < 0.5, b + np.copysign(1, b), b).astype(b.dtype)
        else:
            b[b == 0] = 7
        a[:8] = (
            np.array([7, -7, 7, -7, 0, 1, -1, 6], a.dtype)
            if a.dtype.kind != "u"
            else [7, 7, 7, 7, 0, 1, 1, 6]
        )
        b[:8] = (
            np.array([2, 2, -2, -2, 3, -3, 3, 3], b.dtype)
            if b.dtype.kind != "u"
            else [2, 2, 2, 2, 3, 3, 3, 3]
        )
    elif kind == "bits":
        a = draw(a_dtype, -(2**63), 2**64 - 1)
        b = draw(b_dtype, 0, 31)
    else:
        raise ValueError(kind)
    return a, b


# (a dtype, b dtype, result dtype) as Numba types them.
ARITHMETIC_PAIRS = [
    (np.int32, np.int32, np.int64),
    (np.int8, np.int16, np.int64),
    (np.uint8, np.uint8, np.uint64),
    (np.uint32, np.int32, np.int64),
    (np.int8, np.uint8, np.int64),
    (np.int64, np.int64, np.int64),
    (np.uint64, np.uint64, np.uint64),
    (np.bool_, np.bool_, np.int64),
    (np.float32, np.float32, np.float32),
    (np.float32, np.float64, np.float64),
    (np.int32, np.float32, np.float64),
    (np.int64, np.float64, np.float64),
]


def pair_id(pair):
    return "-".join(np.dtype(t).name for t in pair[:2]) + "->" + np.dtype(pair[2]).name


def run_binary(kernel, a, b, result_dtype):
    out = np.zeros(N, result_dtype)
    launch_1d(kernel, N, a, b, out)
    return out


@pytest.mark.parametrize("pair", ARITHMETIC_PAIRS, ids=pair_id)
@pytest.mark.parametrize("op", ["+", "-", "*"])
def test_add_sub_mul_compute_in_the_numba_result_type(op, pair):
    a_dtype, b_dtype, result = pair
    a, b = operands(a_dtype, b_dtype, "small" if op == "*" else "full")
    kernel, ufunc = {"+": (k_add, np.add), "-": (k_sub, np.subtract), "*": (k_mul, np.multiply)}[op]
    out = run_binary(kernel, a, b, result)
    with np.errstate(over="ignore"):
        expected = ufunc(a.astype(result), b.astype(result))
    np.testing.assert_array_equal(out, expected)


def test_int32_plus_int32_does_not_overflow_because_the_result_is_int64():
    a = np.array([2**31 - 1, -(2**31)], np.int32)
    out = run_binary(k_add, np.resize(a, N), np.resize(a, N), np.int64)
    np.testing.assert_array_equal(out[:2], [2**32 - 2, -(2**32)])


def test_uint64_arithmetic_wraps_modulo_2_to_the_64():
    a = np.resize(np.array([3], np.uint64), N)
    b = np.resize(np.array([5], np.uint64), N)
    out = run_binary(k_sub, a, b, np.uint64)
    assert out[0] == 2**64 - 2


@pytest.mark.parametrize(
    "pair",
    [
        (np.int32, np.int32, np.float64),
        (np.int64, np.int64, np.float64),
        (np.uint8, np.uint8, np.float64),
        (np.uint64, np.uint64, np.float64),
        (np.float32, np.float32, np.float32),
        (np.float32, np.int32, np.float64),
        (np.float64, np.float64, np.float64),
    ],
    ids=pair_id,
)
def test_true_division_of_integers_is_float64(pair):
    a_dtype, b_dtype, result = pair
    a, b = operands(a_dtype, b_dtype, "divisor")
    out = run_binary(k_truediv, a, b, result)
    np.testing.assert_array_equal(out, a.astype(result) / b.astype(result))


def test_int_division_result_is_exact_in_float64():
    a = np.resize(np.array([1, 2**53 + 2, -7], np.int64), N)
    b = np.resize(np.array([3, 2, 2], np.int64), N)
    out = run_binary(k_truediv, a, b, np.float64)
    assert out[0] == 1 / 3
    assert out[1] == float(2**52 + 1)
    assert out[2] == -3.5


FLOOR_PAIRS = [
    (np.int32, np.int32, np.int64),
    (np.int8, np.int8, np.int64),
    (np.int64, np.int64, np.int64),
    (np.uint8, np.uint8, np.uint64),
    (np.uint32, np.uint32, np.uint64),
    (np.float32, np.float32, np.float32),
    (np.float64, np.float64, np.float64),
    (np.int64, np.float64, np.float64),
]


@pytest.mark.parametrize("pair", FLOOR_PAIRS, ids=pair_id)
def test_floor_division_rounds_toward_negative_infinity(pair):
    a, b = operands(pair[0], pair[1], "divisor")
    out = run_binary(k_floordiv, a, b, pair[2])
    np.testing.assert_array_equal(out, np.floor_divide(a.astype(pair[2]), b.astype(pair[2])))


@pytest.mark.parametrize("pair", FLOOR_PAIRS, ids=pair_id)
def test_modulo_takes_the_sign_of_the_divisor(pair):
    a, b = operands(pair[0], pair[1], "divisor")
    out = run_binary(k_mod, a, b, pair[2])
    expected = np.mod(a.astype(pair[2]), b.astype(pair[2]))
    if np.dtype(pair[2]).kind == "f":
        np.testing.assert_allclose(
            out, expected, rtol=1e-5 if pair[2] == np.float32 else 1e-12, atol=1e-6
        )
        assert np.all(
            (out == 0) | (np.sign(out) == np.sign(b))
        ), "the remainder has the sign of the divisor"
    else:
        np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize(
    "a, b, quotient, remainder",
    [(7, 2, 3, 1), (-7, 2, -4, 1), (7, -2, -4, -1), (-7, -2, 3, -1), (-1, 5, -1, 4), (0, -3, 0, 0)],
)
def test_integer_floordiv_and_mod_follow_python_for_negative_operands(a, b, quotient, remainder):
    a_arr = np.full(N, a, np.int64)
    b_arr = np.full(N, b, np.int64)
    assert run_binary(k_floordiv, a_arr, b_arr, np.int64)[0] == quotient == a // b
    assert run_binary(k_mod, a_arr, b_arr, np.int64)[0] == remainder == a % b


@pytest.mark.parametrize(
    "a, b",
    [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (-7.5, -2.0), (-0.5, 3.0), (1e-3, -1.0)],
)
def test_float_floordiv_and_mod_follow_python_for_negative_operands(a, b):
    a_arr = np.full(N, a)
    b_arr = np.full(N, b)
    assert run_binary(k_floordiv, a_arr, b_arr, np.float64)[0] == a // b
    assert run_binary(k_mod, a_arr, b_arr, np.float64)[0] == a % b


@pytest.mark.parametrize("kernel", [k_floordiv, k_mod], ids=["floordiv", "mod"])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.uint64], ids=dtype_id)
def test_integer_division_by_zero_does_not_crash(kernel, dtype):
    a = np.resize(np.array([7, 9], dtype), N)
    b = np.resize(np.array([0, 2], dtype), N)  # every other divisor is zero
    result = np.int64 if np.dtype(dtype).kind == "i" else np.uint64
    out = run_binary(kernel, a, b, result)  # the value at a zero divisor is unspecified
    expected = 9 // 2 if kernel is k_floordiv else 9 % 2
    np.testing.assert_array_equal(out[1::2], expected)


# --- power -----------------------------------------------------------------


def test_integer_power_of_integers_is_exact_int64():
    a = np.resize(np.array([2, -2, 3, 0, 1, -1, 5, 10], np.int32), N)
    b = np.resize(np.array([10, 3, 0, 0, 100, 7, 13, 18], np.int32), N)
    out = run_binary(k_pow, a, b, np.int64)
    np.testing.assert_array_equal(out[:8], [1024, -8, 1, 1, 1, -1, 5**13, 10**18])


@pytest.mark.parametrize(
    "a_dtype, b_dtype, result, rtol",
    [
        (np.float64, np.float64, np.float64, 1e-14),
        (np.float32, np.float32, np.float32, 2e-6),
        (np.float64, np.int64, np.float64, 1e-14),
        (np.int64, np.float64, np.float64, 1e-14),
    ],
    ids=["f64**f64", "f32**f32", "f64**int", "int**f64"],
)
def test_float_power_matches_numpy(a_dtype, b_dtype, result, rtol):
    rng = np.random.default_rng(1)
    a = (
        rng.uniform(0.1, 10, N) if np.dtype(a_dtype).kind == "f" else rng.integers(1, 10, N)
    ).astype(a_dtype)
    b = (rng.uniform(-3, 3, N) if np.dtype(b_dtype).kind == "f" else rng.integers(-3, 4, N)).astype(
        b_dtype
    )
    out = run_binary(k_pow, a, b, result)
    np.testing.assert_allclose(out, np.power(a.astype(result), b.astype(result)), rtol=rtol)


def test_float_to_negative_integer_power_is_the_reciprocal():
    a = np.full(N, 2.0)
    b = np.full(N, -2, np.int64)
    assert run_binary(k_pow, a, b, np.float64)[0] == 0.25


# --- bitwise ---------------------------------------------------------------

BITWISE_PAIRS = [
    (np.int32, np.int32, np.int64),
    (np.int8, np.uint8, np.int64),
    (np.uint8, np.uint8, np.uint64),
    (np.int64, np.int64, np.int64),
    (np.uint64, np.uint64, np.uint64),
    (np.bool_, np.bool_, np.bool_),
]


@pytest.mark.parametrize("pair", BITWISE_PAIRS, ids=pair_id)
@pytest.mark.parametrize("op", ["&", "|", "^"])
def test_bitwise_and_or_xor_on_integers_and_booleans(op, pair):
    a, b = operands(pair[0], pair[1], "full")
    kernel, ufunc = {
        "&": (k_and, np.bitwise_and),
        "|": (k_or, np.bitwise_or),
        "^": (k_xor, np.bitwise_xor),
    }[op]
    out = run_binary(kernel, a, b, pair[2])
    np.testing.assert_array_equal(out, ufunc(a.astype(pair[2]), b.astype(pair[2])))


SHIFT_PAIRS = [
    (np.int32, np.int32, np.int64),
    (np.int64, np.int64, np.int64),
    (np.uint32, np.int32, np.uint64),
    (np.uint64, np.uint64, np.uint64),
    (np.int8, np.int64, np.int64),
]


@pytest.mark.parametrize("pair", SHIFT_PAIRS, ids=pair_id)
@pytest.mark.parametrize("op", ["<<", ">>"])
def test_shifts_are_arithmetic_for_signed_and_logical_for_unsigned(op, pair):
    a, b = operands(pair[0], pair[1], "bits")
    kernel, ufunc = {"<<": (k_lshift, np.left_shift), ">>": (k_rshift, np.right_shift)}[op]
    out = run_binary(kernel, a, b, pair[2])
    np.testing.assert_array_equal(out, ufunc(a.astype(pair[2]), b.astype(pair[2])))


def test_right_shift_of_a_negative_number_keeps_the_sign():
    a = np.full(N, -256, np.int64)
    b = np.full(N, 4, np.int64)
    assert run_binary(k_rshift, a, b, np.int64)[0] == -16


# --- unary -----------------------------------------------------------------


@pytest.mark.parametrize(
    "values, result, expected",
    [
        pytest.param([-(2**31), 5], np.int32, [2**31, -5], id="int32-widens-to-int64"),
        pytest.param([3, 0], np.uint8, [2**64 - 3, 0], id="uint8-wraps-as-uint64"),
        pytest.param([1.5, -0.0], np.float32, [-1.5, 0.0], id="float32"),
        pytest.param([True, False], np.bool_, [-1, 0], id="bool-is-int64"),
    ],
)
def test_unary_minus(values, result, expected):
    a = np.resize(np.array(values, result), N)
    out_dtype = {
        np.int32: np.int64,
        np.uint8: np.uint64,
        np.float32: np.float32,
        np.bool_: np.int64,
    }[result]
    out = np.zeros(N, out_dtype)
    launch_1d(k_neg, N, a, out)
    np.testing.assert_array_equal(out[:2], np.array(expected, out_dtype))


def test_unary_minus_of_float_zero_is_negative_zero():
    out = np.zeros(N)
    launch_1d(k_neg, N, np.zeros(N), out)
    assert math.copysign(1.0, out[0]) == -1.0


def test_unary_plus_is_identity():
    a = np.linspace(-3, 3, N)
    out = np.zeros(N)
    launch_1d(k_pos, N, a, out)
    np.testing.assert_array_equal(out, a)


@pytest.mark.parametrize(
    "values, result, expected",
    [
        pytest.param(
            np.array([0, -1, 2**31 - 1], np.int32), np.int64, [-1, 0, -(2**31)], id="int32"
        ),
        pytest.param(
            np.array([0, 5, 255], np.uint8),
            np.uint64,
            [2**64 - 1, 2**64 - 6, 2**64 - 256],
            id="uint8-as-uint64",
        ),
        pytest.param(np.array([0, 2**62], np.int64), np.int64, [-1, -(2**62) - 1], id="int64"),
    ],
)
def test_invert_is_bitwise_not_in_the_widened_type(values, result, expected):
    a = np.resize(values, N)
    out = np.zeros(N, result)
    launch_1d(k_invert, N, a, out)
    np.testing.assert_array_equal(out[: len(expected)], np.array(expected, result))


# --- comparisons -----------------------------------------------------------


@cuda.jit
def k_compare_all(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] < b[i]
        out[i, 1] = a[i] <= b[i]
        out[i, 2] = a[i] > b[i]
        out[i, 3] = a[i] >= b[i]
        out[i, 4] = a[i] == b[i]
        out[i, 5] = a[i] != b[i]


@pytest.mark.parametrize(
    "a, b",
    [
        pytest.param(
            np.array([1, 2, 3, -5], np.int32), np.array([2, 2, 2, -5], np.int32), id="int32"
        ),
        pytest.param(
            np.array([-1, 0, 100, -128], np.int8),
            np.array([200, 0, 100, 255], np.uint8),
            id="int8-vs-uint8",
        ),
        pytest.param(
            np.array([1.5, 2.0, np.nan, -0.0]),
            np.array([2, 2, 1, 0], np.int64),
            id="float64-vs-int64",
        ),
        pytest.param(
            np.array([0.1, 1.0, np.inf, np.nan], np.float32),
            np.array([0.1, 1.0, np.inf, np.nan]),
            id="float32-vs-float64",
        ),
        pytest.param(
            np.array([True, False, True, False]), np.array([True, True, False, False]), id="bool"
        ),
        pytest.param(
            np.array([2**63 - 1, 0, 5, 2**40], np.uint64),
            np.array([2**63 - 1, 1, 5, 1], np.uint64),
            id="uint64",
        ),
    ],
)
def test_comparisons_compare_values_not_bit_patterns(a, b):
    out = np.zeros((len(a), 6), np.bool_)
    k_compare_all[1, 32](a, b, out)
    # Python compares the mathematical values (float32(0.1) != 0.1)
    expected = np.array(
        [[x < y, x <= y, x > y, x >= y, x == y, x != y] for x, y in zip(a.tolist(), b.tolist())]
    )
    np.testing.assert_array_equal(out, expected)


@cuda.jit
def k_chained(a, lo, hi, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = lo <= a[i] < hi
        out[i, 1] = lo < a[i] > hi
        out[i, 2] = lo == a[i] == hi
        out[i, 3] = lo < a[i] < hi < 100
        out[i, 4] = a[i] != lo != hi


def test_chained_comparisons_are_pairwise_conjunctions():
    a = np.arange(-3, 13, dtype=np.int64)
    lo, hi = 2, 8
    out = np.zeros((a.size, 5), np.bool_)
    k_chained[1, 32](a, lo, hi, out)
    expected = [
        [lo <= x < hi, lo < x > hi, lo == x == hi, lo < x < hi < 100, x != lo != hi]
        for x in a.tolist()
    ]
    np.testing.assert_array_equal(out, expected)


def test_chained_comparison_with_equal_bounds_picks_out_one_value():
    a = np.arange(10, dtype=np.int64)
    out = np.zeros((10, 5), np.bool_)
    k_chained[1, 32](a, 4, 4, out)
    np.testing.assert_array_equal(out[:, 2], a == 4)


# --- augmented assignment --------------------------------------------------


@cuda.jit
def k_augmented_locals(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        x += b[i]
        out[i, 0] = x
        x = a[i]
        x -= b[i]
        out[i, 1] = x
        x = a[i]
        x *= b[i]
        out[i, 2] = x
        x = a[i]
        x //= b[i]
        out[i, 3] = x
        x = a[i]
        x %= b[i]
        out[i, 4] = x
        x = a[i]
        x **= 2
        out[i, 5] = x
        x = a[i]
        x &= b[i]
        out[i, 6] = x
        x = a[i]
        x |= b[i]
        out[i, 7] = x
        x = a[i]
        x ^= b[i]
        out[i, 8] = x
        x = a[i]
        x <<= b[i] & 7
        out[i, 9] = x
        x = a[i]
        x >>= b[i] & 7
        out[i, 10] = x


def test_augmented_assignment_of_every_operator_on_a_local():
    a = np.array([17, -17, 5, 0, 1000, -1], np.int64)
    b = np.array([5, 5, -3, 7, 33, 2], np.int64)
    out = np.zeros((a.size, 11), np.int64)
    k_augmented_locals[1, 8](a, b, out)
    expected = [
        [x + y, x - y, x * y, x // y, x % y, x**2, x & y, x | y, x ^ y, x << (y & 7), x >> (y & 7)]
        for x, y in zip(a.tolist(), b.tolist())
    ]
    np.testing.assert_array_equal(out, expected)


def test_true_divide_assignment_turns_an_int_local_into_a_float():
    @cuda.jit
    def halve(out):
        x = 7
        x /= 2
        out[0] = x

    out = np.zeros(1)
    halve[1, 1](out)
    assert out[0] == 3.5


@cuda.jit
def k_augmented_elements(f, n, m):
    i = cuda.grid(1)
    if i < f.size:
        f[i] += 1.5
        f[i] *= 2
        f[i] -= 0.25
        f[i] /= 4
        n[i] += 3
        n[i] //= 2
        n[i] %= 5
        n[i] **= 2
        n[i] |= 16
        n[i] <<= 1
        m[i, -1] -= i


def test_augmented_assignment_updates_array_elements_in_place():
    f = np.arange(8, dtype=np.float32)
    n = np.arange(-4, 4, dtype=np.int32)
    m = np.ones((8, 3), np.int16)
    k_augmented_elements[1, 8](f, n, m)
    ef = ((np.arange(8, dtype=np.float32) + 1.5) * 2 - 0.25) / 4
    en = np.array([((((x + 3) // 2) % 5) ** 2 | 16) << 1 for x in range(-4, 4)], np.int32)
    em = np.ones((8, 3), np.int16)
    em[:, -1] -= np.arange(8, dtype=np.int16)
    np.testing.assert_array_equal(f, ef)
    np.testing.assert_array_equal(n, en)
    np.testing.assert_array_equal(m, em)


def test_augmented_float_add_to_an_int_element_truncates_on_store():
    @cuda.jit
    def add_and_a_half(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1.5

    a = np.array([3, -3, 0], np.int32)
    add_and_a_half[1, 4](a)
    np.testing.assert_array_equal(a, [4, -1, 1])  # 4.5 -> 4, -1.5 -> -1, 1.5 -> 1


# --- literals --------------------------------------------------------------


def test_integer_literals_are_int64():
    @cuda.jit
    def big(out):
        out[0] = 3000000000 + 3000000000
        out[1] = 2**40
        out[2] = -9223372036854775807 - 1
        out[3] = 0x7FFFFFFF * 4

    out = np.zeros(4, np.int64)
    big[1, 1](out)
    np.testing.assert_array_equal(out, [6000000000, 2**40, -(2**63), 0x7FFFFFFF * 4])


def test_float_literals_are_float64():
    @cuda.jit
    def lits(out):
        out[0] = 0.1
        out[1] = 1e300 * 10.0
        out[2] = 1.0 / 3.0

    out = np.zeros(3)
    lits[1, 1](out)
    assert out[0] == 0.1
    assert out[1] == 1e301
    assert out[2] == 1.0 / 3.0


def test_float32_times_a_float_literal_is_computed_in_float64():
    @cuda.jit
    def scale(x, out):
        out[0] = x[0] * 0.1

    x = np.array([3.0], np.float32)
    out = np.zeros(1)
    scale[1, 1](x, out)
    assert out[0] == 3.0 * 0.1


def test_bool_literal_arithmetic_counts_as_integers():
    @cuda.jit
    def truth(out):
        out[0] = True + True
        out[1] = True * 7
        out[2] = False - True

    out = np.zeros(3, np.int64)
    truth[1, 1](out)
    np.testing.assert_array_equal(out, [2, 7, -1])


def test_operator_precedence_and_parentheses_follow_python():
    @cuda.jit
    def prec(a, out):
        x = a[0]
        out[0] = x + 2 * 3**2
        out[1] = (x + 2) * 3
        out[2] = -(x**2)
        out[3] = 2**3**2
        out[4] = x - 10 - 3
        out[5] = 1 << 2 + 1
        out[6] = x & 3 | 8 ^ 1
        out[7] = 100 // 7 % 4

    out = np.zeros(8, np.int64)
    prec[1, 1](np.array([5], np.int64), out)
    x = 5
    np.testing.assert_array_equal(
        out,
        [
            x + 2 * 3**2,
            (x + 2) * 3,
            -(x**2),
            2**3**2,
            x - 10 - 3,
            1 << 2 + 1,
            x & 3 | 8 ^ 1,
            100 // 7 % 4,
        ],
    )


# --- result types, as compile_ptx reports them ------------------------------


def f_add(a, b):
    return a + b


def f_sub(a, b):
    return a - b


def f_mul(a, b):
    return a * b


def f_truediv(a, b):
    return a / b


def f_floordiv(a, b):
    return a // b


def f_mod(a, b):
    return a % b


def f_pow(a, b):
    return a**b


def f_and(a, b):
    return a & b


def f_lshift(a, b):
    return a << b


def f_neg(a):
    return -a


def f_invert(a):
    return ~a


def f_less(a, b):
    return a < b


def f_times_half(a):
    return a * 0.5


def f_times_two(a):
    return a * 2


def f_int_literal():
    return 1


def f_float_literal():
    return 1.0


def f_bool_literal():
    return True


T = cuda
TYPING_RULES = [
    (f_add, (T.int32, T.int32), T.int64),
    (f_add, (T.int64, T.int64), T.int64),
    (f_add, (T.int8, T.int16), T.int64),
    (f_add, (T.uint8, T.uint8), T.uint64),
    (f_add, (T.uint32, T.int32), T.int64),
    (f_add, (T.int8, T.uint8), T.int64),
    (f_add, (T.uint64, T.uint64), T.uint64),
    (f_add, (T.float32, T.float32), T.float32),
    (f_add, (T.float32, T.float64), T.float64),
    (f_add, (T.int32, T.float32), T.float64),
    (f_add, (T.int64, T.float64), T.float64),
    (f_add, (T.boolean, T.boolean), T.int64),
    (f_add, (T.boolean, T.int32), T.int64),
    (f_sub, (T.uint8, T.uint8), T.uint64),
    (f_mul, (T.int16, T.int16), T.int64),
    (f_mul, (T.float32, T.float32), T.float32),
    (f_truediv, (T.int32, T.int32), T.float64),
    (f_truediv, (T.int64, T.int64), T.float64),
    (f_truediv, (T.uint8, T.uint8), T.float64),
    (f_truediv, (T.float32, T.float32), T.float32),
    (f_truediv, (T.float32, T.int32), T.float64),
    (f_floordiv, (T.int32, T.int32), T.int64),
    (f_floordiv, (T.uint8, T.uint8), T.uint64),
    (f_floordiv, (T.float32, T.float32), T.float32),
    (f_mod, (T.int8, T.int8), T.int64),
    (f_mod, (T.float32, T.float32), T.float32),
    (f_pow, (T.int32, T.int32), T.int64),
    (f_pow, (T.float32, T.float32), T.float32),
    (f_pow, (T.float64, T.int64), T.float64),
    (f_pow, (T.float32, T.int64), T.float32),  # numba-cuda keeps the float's type
    (f_pow, (T.int64, T.float64), T.float64),
    (f_and, (T.int32, T.int32), T.int64),
    (f_and, (T.uint8, T.uint8), T.uint64),
    (f_and, (T.boolean, T.boolean), T.boolean),
    (f_lshift, (T.int32, T.int32), T.int64),
    (f_lshift, (T.uint32, T.int32), T.uint64),
    (f_neg, (T.int32,), T.int64),
    (f_neg, (T.float32,), T.float32),
    (f_neg, (T.boolean,), T.int64),
    (f_invert, (T.int32,), T.int64),
    (f_invert, (T.boolean,), T.boolean),
    (f_less, (T.int32, T.float32), T.boolean),
    (f_less, (T.uint64, T.uint64), T.boolean),
    (f_times_half, (T.float32,), T.float64),
    (f_times_half, (T.int32,), T.float64),
    (f_times_two, (T.float32,), T.float64),
    (f_times_two, (T.int32,), T.int64),
    (f_int_literal, (), T.int64),
    (f_float_literal, (), T.float64),
    (f_bool_literal, (), T.boolean),
]


def rule_id(rule):
    func, args, result = rule
    return f"{func.__name__}({','.join(str(a) for a in args)})->{result}"


@pytest.mark.parametrize("rule", TYPING_RULES, ids=rule_id)
def test_result_type_follows_numba(rule):
    func, args, expected = rule
    _, result = cuda.compile_ptx(func, args, device=True)
    assert result == expected


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_float_remainder_is_exact_when_the_quotient_is_huge(dtype):
    # LLVM's NVPTX backend expands frem as x - trunc(x / y) * y, which loses every digit
    # here; the remainder is libdevice's/libm's exact fmod on every device.
    @cuda.jit
    def remainders(x, y, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i, 0] = math.fmod(x[i], y[i])
            out[i, 1] = x[i] % y[i]

    big = 1e300 if dtype == np.float64 else 1e30
    x = np.array([1e17, big, -big, 5.5, -7.0], dtype)
    y = np.array([3.0, 7.25, 7.25, -2.0, 0.75], dtype)
    out = np.zeros((5, 2), dtype)
    remainders[1, 32](x, y, out)
    np.testing.assert_array_equal(out[:, 0], np.fmod(x, y))
    np.testing.assert_array_equal(out[:, 1], np.mod(x, y))
