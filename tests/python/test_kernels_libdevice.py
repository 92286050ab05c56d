"""cuda.libdevice on every device: each function of numba.cuda.libdevice that
cudajit provides, called in a kernel over representative inputs (zeros of both
signs, negatives, large and tiny values, infinities, NaN) and compared with
NumPy, Python's math or mpmath; tuple results, Numba's int32-for-unsigned
typing, saturating conversions, and the PTX of a kernel using a dozen of them."""

import math
from fractions import Fraction

import numpy as np
import pytest

import cudajit as cuda
from cudajit import libdevice

from conftest import assert_bits_equal_any_nan

pytestmark = [pytest.mark.usefixtures("device"),
              pytest.mark.filterwarnings("ignore::cudajit.PerformanceWarning")]

F64 = np.float64
F32 = np.float32
I32 = np.int32
I64 = np.int64

SPECIAL = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, 2.5, -2.5, 3.0, 0.49999999999999994, 7.25,
           -10.0, 100.75, 1e-300, 5e-324, 1e300, -1e300, 1e10, math.inf, -math.inf, math.nan]


def floats(dtype, low=-50.0, high=50.0, n=40, seed=0, special=SPECIAL):
    rng = np.random.default_rng(seed)
    with np.errstate(all="ignore"):
        return np.concatenate([np.array(special, F64), rng.uniform(low, high, n)]).astype(dtype)


def positive(dtype, n=40, seed=1):
    rng = np.random.default_rng(seed)
    special = [0.0, -0.0, 1e-300, 5e-324, 1e-38, 0.5, 1.0, 2.0, 10.0, 1e300, math.inf, math.nan,
               -1.0]
    with np.errstate(all="ignore"):
        return np.concatenate([np.array(special, F64),
                               10.0 ** rng.uniform(-30, 30, n)]).astype(dtype)


def unit(dtype, n=40, seed=2):
    rng = np.random.default_rng(seed)
    special = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.999999, -0.999999, 1e-20, 1.5, -2.0,
               math.inf, math.nan]
    return np.concatenate([np.array(special, F64), rng.uniform(-1, 1, n)]).astype(dtype)


def vec(f, overflow=math.inf):
    """f over an array of floats, as float64; a domain error is NaN, an overflow ``overflow``."""
    def apply(*arrays):
        out = []
        for args in zip(*arrays):
            try:
                out.append(f(*(float(a) for a in args)))
            except ValueError:
                out.append(math.nan)
            except OverflowError:
                out.append(overflow)
        return np.array(out, F64)
    return apply


def mp_ref(f, at_inf=(math.nan, math.nan)):
    """f(mpmath, x) at 40 digits; at_inf: the results at +inf and -inf."""
    mpmath = pytest.importorskip("mpmath")

    def apply(x):
        out = []
        with mpmath.workdps(40):
            for v in x:
                v = float(v)
                if math.isinf(v):
                    out.append(at_inf[v < 0])
                else:
                    out.append(float(f(mpmath, v)) if math.isfinite(v) else math.nan)
        return np.array(out, F64)
    return apply


# --- kernels: one per arity, the function a closure variable -----------------------------


def call(fn, *args, out_dtypes):
    """Runs fn(args[0][i], args[1][i], ...) for every i in a kernel; returns one
    array per result (fn returns a tuple when out_dtypes has several)."""
    n = args[0].size
    outs = [np.zeros(n, d) for d in out_dtypes]
    nargs = len(args)
    if len(out_dtypes) == 1:
        if nargs == 1:
            @cuda.jit
            def kernel(a, o):
                i = cuda.grid(1)
                if i < o.size:
                    o[i] = fn(a[i])
        elif nargs == 2:
            @cuda.jit
            def kernel(a, b, o):
                i = cuda.grid(1)
                if i < o.size:
                    o[i] = fn(a[i], b[i])
        else:
            @cuda.jit
            def kernel(a, b, c, o):
                i = cuda.grid(1)
                if i < o.size:
                    o[i] = fn(a[i], b[i], c[i])
    else:
        if nargs == 1:
            @cuda.jit
            def kernel(a, o, p):
                i = cuda.grid(1)
                if i < o.size:
                    o[i], p[i] = fn(a[i])
        else:
            @cuda.jit
            def kernel(a, b, o, p):
                i = cuda.grid(1)
                if i < o.size:
                    o[i], p[i] = fn(a[i], b[i])
    kernel.forall(n)(*args, *outs)
    return outs


def assert_close(got, expected, rtol, atol=0.0):
    """NaN where NaN, infinities equal, else within rtol (and atol)."""
    expected = np.asarray(expected, F64)
    got64 = got.astype(F64)
    np.testing.assert_array_equal(np.isnan(got64), np.isnan(expected))
    finite = np.isfinite(expected)
    np.testing.assert_array_equal(got64[~finite], expected[~finite])
    np.testing.assert_allclose(got64[finite], expected[finite], rtol=rtol, atol=atol)


# --- float functions of one argument ------------------------------------------------------

def _round_half_away(x):
    if not math.isfinite(x):
        return x
    t = math.trunc(x)
    return float(t + math.copysign(1, x)) if abs(x - t) >= 0.5 else float(t)


def _logb(x):
    if math.isnan(x):
        return x
    if x == 0:
        return -math.inf
    if math.isinf(x):
        return math.inf
    return float(math.frexp(x)[1] - 1)


def _gamma(x):
    return math.copysign(math.inf, x) if x == 0 else math.gamma(x)


def _lgamma(x):
    return math.inf if x <= 0 and x == math.floor(x) else math.lgamma(x)


with np.errstate(all="ignore"):
    UNARY = {
        # name: (reference on float64, inputs, float64 rtol); the f variant uses rtol 4e-6
        "acos": (np.arccos, unit, 1e-15),
        "acosh": (np.arccosh, positive, 1e-15),
        "asin": (np.arcsin, unit, 1e-15),
        "asinh": (np.arcsinh, floats, 1e-15),
        "atan": (np.arctan, floats, 1e-15),
        "atanh": (np.arctanh, unit, 1e-15),
        "cbrt": (np.cbrt, floats, 1e-15),
        "rcbrt": (lambda x: 1 / np.cbrt(x), floats, 1e-15),
        "ceil": (np.ceil, floats, 0),
        "floor": (np.floor, floats, 0),
        "trunc": (np.trunc, floats, 0),
        "round": (vec(_round_half_away), floats, 0),
        "rint": (np.rint, floats, 0),
        "nearbyint": (np.rint, floats, 0),
        "cos": (np.cos, floats, 1e-15),
        "cosh": (np.cosh, floats, 1e-15),
        "cospi": (mp_ref(lambda mp, x: mp.cospi(x)), floats, 1e-15),
        "sin": (np.sin, floats, 1e-15),
        "sinh": (np.sinh, floats, 1e-15),
        "sinpi": (mp_ref(lambda mp, x: mp.sinpi(x)), floats, 1e-15),
        "tan": (np.tan, floats, 1e-15),
        "tanh": (np.tanh, floats, 1e-15),
        "erf": (vec(math.erf), floats, 1e-15),
        "erfc": (vec(math.erfc), floats, 1e-14),
        "erfcx": (mp_ref(lambda mp, x: math.inf if x < -30 else 1 / (x * mp.sqrt(mp.pi)) if x > 1e9
                        else mp.exp(mp.mpf(x) ** 2) * mp.erfc(x), (0.0, math.inf)), floats, 1e-13),
        "erfinv": (mp_ref(lambda mp, x: mp.erfinv(x) if abs(x) <= 1 else mp.nan), unit, 1e-13),
        "normcdf": (mp_ref(lambda mp, x: mp.ncdf(max(min(x, 100), -100)), (1.0, 0.0)),
                    floats, 1e-13),
        "exp": (np.exp, floats, 1e-15),
        "exp2": (np.exp2, floats, 1e-15),
        "exp10": (lambda x: np.power(10.0, x), floats, 1e-15),
        "expm1": (np.expm1, floats, 1e-15),
        "log": (np.log, positive, 1e-15),
        "log2": (np.log2, positive, 1e-15),
        "log10": (np.log10, positive, 1e-15),
        "log1p": (np.log1p, floats, 1e-15),
        "logb": (vec(_logb), floats, 0),
        "fabs": (np.abs, floats, 0),
        "sqrt": (np.sqrt, positive, 0),
        "rsqrt": (lambda x: 1 / np.sqrt(x), positive, 1e-15),
        "lgamma": (vec(_lgamma), floats, 1e-13),
        "tgamma": (vec(_gamma), floats, 1e-13),
    }
FLOAT64_ONLY = {"drcp_rn": (lambda x: 1 / x, floats, 0), "dsqrt_rn": (np.sqrt, positive, 0)}
FLOAT32_ONLY = {  # name: (reference on float32 inputs widened to float64, inputs, ulp-exact?)
    "saturatef": (lambda x: np.where(np.isnan(x), 0.0, np.clip(x, 0.0, 1.0)), floats, True),
    "frcp_rn": (lambda x: 1 / x, floats, True),
    "fsqrt_rn": (np.sqrt, positive, True),
    "frsqrt_rn": (lambda x: 1 / np.sqrt(x), positive, True),
    "fast_cosf": (np.cos, floats, False),
    "fast_sinf": (np.sin, floats, False),
    "fast_tanf": (np.tan, floats, False),
    "fast_expf": (np.exp, floats, False),
    "fast_exp10f": (lambda x: np.power(10.0, x), floats, False),
    "fast_logf": (np.log, positive, False),
    "fast_log2f": (np.log2, positive, False),
    "fast_log10f": (np.log10, positive, False),
}


def _float32_name(name):
    return {"fabs": "fabsf", "round": "roundf"}.get(name, name + "f")


@pytest.mark.parametrize("name", sorted(UNARY) + sorted(FLOAT64_ONLY))
def test_float64_functions_of_one_argument_match_numpy_and_math(name):
    ref, inputs, rtol = UNARY.get(name) or FLOAT64_ONLY[name]
    x = inputs(F64)
    (got,) = call(getattr(libdevice, name), x, out_dtypes=[F64])
    with np.errstate(all="ignore"):
        expected = ref(x)
    assert_close(got, expected, rtol=rtol, atol=1e-300 if rtol else 0)


@pytest.mark.parametrize("name", sorted(UNARY) + sorted(FLOAT32_ONLY))
def test_float32_functions_of_one_argument_match_the_float64_result_rounded(name):
    if name in UNARY:
        ref, inputs, rtol = UNARY[name]
        name, exact = _float32_name(name), rtol == 0
    else:
        ref, inputs, exact = FLOAT32_ONLY[name]
    x = inputs(F32)
    (got,) = call(getattr(libdevice, name), x, out_dtypes=[F32])
    with np.errstate(all="ignore"):
        expected = ref(x.astype(F64)).astype(F32)
    if exact:
        np.testing.assert_array_equal(got, expected)
    else:
        assert_close(got, expected, rtol=4e-6, atol=1e-37)


def test_the_inverse_error_functions_in_their_tails():
    mpmath = pytest.importorskip("mpmath")
    y = np.array([0.0, 5e-324, 1e-300, 1e-100, 1e-20, 1e-8, 1e-3, 0.1, 0.3, 0.5, 0.7, 1.0, 1.3,
                  1.5, 1.9, 1.999999, 2.0, -0.1, 2.1, math.nan])
    (got,) = call(libdevice.erfcinv, y, out_dtypes=[F64])
    with mpmath.workdps(60):
        for v, g in zip(y, got):
            if not 0 < v < 2:
                expected = {0.0: math.inf, 2.0: -math.inf}.get(v, math.nan)
                assert g == expected or (math.isnan(g) and math.isnan(expected)), (v, g)
                continue
            root = mpmath.findroot(lambda t: mpmath.erfc(t) - v, g)
            assert g == pytest.approx(float(root), rel=1e-13, abs=1e-300), v
    p = np.array([0.0, 1e-300, 1e-10, 0.01, 0.3, 0.5, 0.8, 0.999, 1.0, 1.5, math.nan])
    (got,) = call(libdevice.normcdfinv, p, out_dtypes=[F64])
    (got32,) = call(libdevice.normcdfinvf, p.astype(F32), out_dtypes=[F32])
    (erfcinv32,) = call(libdevice.erfcinvf, y.astype(F32), out_dtypes=[F32])
    with mpmath.workdps(60):
        for v, g, g32 in zip(p, got, got32):
            if not 0 < v < 1:
                expected = {0.0: -math.inf, 1.0: math.inf}.get(v, math.nan)
                assert g == expected or (math.isnan(g) and math.isnan(expected)), (v, g)
                continue
            root = float(mpmath.findroot(lambda t: mpmath.ncdf(t) - v, g))
            assert g == pytest.approx(root, rel=1e-13, abs=1e-300), v
            if float(F32(v)) > 0:
                root32 = float(mpmath.findroot(lambda t: mpmath.ncdf(t) - float(F32(v)), g))
                assert g32 == pytest.approx(root32, rel=1e-6), v
    finite = (y > 0) & (y < 2) & (y.astype(F32) > 0)
    np.testing.assert_allclose(erfcinv32[finite],
                               [float(mpmath.findroot(lambda t: mpmath.erfc(t) - float(F32(v)),
                                                      float(g)))
                                for v, g in zip(y[finite], erfcinv32[finite])], rtol=1e-6)


# --- float functions of two and three arguments ---------------------------------------


def pairs(dtype, seed=3):
    x = floats(dtype, seed=seed)
    return x, np.roll(floats(dtype, seed=seed + 1), 5)


def _remainder(x, y):
    if math.isnan(x) or math.isnan(y) or math.isinf(x) or y == 0:
        return math.nan
    return math.remainder(x, y)


def _fdim(x, y):
    return np.where(np.isnan(x) | np.isnan(y), np.nan, np.where(x > y, x - y, 0.0))


with np.errstate(all="ignore"):
    BINARY = {
        # name: (reference on float64, float64 rtol); the f variant exact if rtol is 0
        "atan2": (np.arctan2, 1e-15),
        "copysign": (np.copysign, 0),
        "fdim": (_fdim, 0),
        "fmax": (np.fmax, 0),
        "fmin": (np.fmin, 0),
        "fmod": (np.fmod, 0),
        "remainder": (vec(_remainder), 0),
        "hypot": (np.hypot, 1e-15),
        "nextafter": (np.nextafter, 0),
        "pow": (np.power, 1e-15),
    }
ARITHMETIC = {  # rounded to nearest: exact in both widths
    "dadd_rn": (F64, np.add), "dmul_rn": (F64, np.multiply), "ddiv_rn": (F64, np.divide),
    "fadd_rn": (F32, np.add), "fsub_rn": (F32, np.subtract), "fmul_rn": (F32, np.multiply),
    "fdiv_rn": (F32, np.divide), "fast_fdividef": (F32, np.divide),
    "fast_powf": (F32, np.power),
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_float_functions_of_two_arguments_match_numpy_and_math(name):
    ref, rtol = BINARY[name]
    x, y = pairs(F64)
    (got,) = call(getattr(libdevice, name), x, y, out_dtypes=[F64])
    with np.errstate(all="ignore"):
        assert_close(got, ref(x, y), rtol=rtol, atol=1e-300 if rtol else 0)
    x, y = pairs(F32)
    (got,) = call(getattr(libdevice, name + "f"), x, y, out_dtypes=[F32])
    with np.errstate(all="ignore"):
        expected = ref(x.astype(F64), y.astype(F64)).astype(F32)
        if name == "nextafter":
            expected = np.nextafter(x, y)
    if rtol == 0:
        np.testing.assert_array_equal(got, expected)
    else:
        assert_close(got, expected, rtol=4e-6, atol=1e-37)


@pytest.mark.parametrize("name", sorted(ARITHMETIC))
def test_arithmetic_rounded_to_nearest_is_exact(name):
    dtype, ref = ARITHMETIC[name]
    x, y = pairs(dtype)
    (got,) = call(getattr(libdevice, name), x, y, out_dtypes=[dtype])
    with np.errstate(all="ignore"):
        expected = ref(x, y)
    if name == "fast_powf":
        assert_close(got, expected, rtol=4e-6, atol=1e-37)
    else:
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("name, dtype", [("fma", F64), ("fma_rn", F64), ("fmaf", F32),
                                         ("fmaf_rn", F32)])
def test_fma_is_rounded_once(name, dtype):
    x = np.array([1 + 2.0 ** -20, 0.1, 3.0, -2.0, math.inf, math.nan, 1e30], dtype)
    y = np.array([1 - 2.0 ** -20, 10.0, 0.0, 0.5, 0.0, 1.0, 1e30], dtype)
    z = np.array([-1.0, -1.0, -0.0, 1.0, 1.0, 1.0, -math.inf], dtype)
    (got,) = call(getattr(libdevice, name), x, y, z, out_dtypes=[dtype])
    exact = [float(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c)))
             for a, b, c in zip(x[:3], y[:3], z[:3])]
    np.testing.assert_array_equal(got[:3], np.array(exact).astype(dtype))
    assert got[3] == 0 and math.isnan(got[4]) and math.isnan(got[5]) and got[6] == -math.inf


@pytest.mark.parametrize("name, dtype", [("ldexp", F64), ("scalbn", F64), ("ldexpf", F32),
                                         ("scalbnf", F32), ("powi", F64), ("powif", F32)])
def test_float_and_int32_exponent(name, dtype):
    x = floats(dtype, n=10)
    n = np.resize(np.array([0, 1, -1, 3, -7, 60, -1074, -1100, 2000, -2000, 1023], I32), x.size)
    (got,) = call(getattr(libdevice, name), x, n, out_dtypes=[dtype])
    with np.errstate(all="ignore"):
        if name.startswith("powi"):
            expected = np.power(x.astype(F64), n.astype(F64)).astype(dtype)
            assert_close(got, expected, rtol=1e-14 if dtype == F64 else 4e-6, atol=1e-300)
        else:
            np.testing.assert_array_equal(got, np.ldexp(x, n))


def test_ldexp_rounds_once_into_the_subnormals():
    x = np.array([1.5, 1.75, 3.0, -1.25, 1.0000000000000002], F64)
    n = np.array([-1075, -1074, -1076, -1074, -1022], I32)
    (got,) = call(libdevice.ldexp, x, n, out_dtypes=[F64])
    np.testing.assert_array_equal(got, np.ldexp(x, n))
    (got32,) = call(libdevice.ldexpf, x.astype(F32), n + 1074 - 149, out_dtypes=[F32])
    np.testing.assert_array_equal(got32, np.ldexp(x.astype(F32), n + 1074 - 149))


# --- tuples ----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype, suffix", [(F64, ""), (F32, "f")])
def test_frexp_modf_and_sincos_return_tuples(dtype, suffix):
    x = floats(dtype)
    m, e = call(getattr(libdevice, "frexp" + suffix), x, out_dtypes=[dtype, I32])
    em, ee = np.frexp(x)
    finite = np.isfinite(x)
    np.testing.assert_array_equal(m, em)
    np.testing.assert_array_equal(e[finite], ee[finite])
    assert (e[~finite] == 0).all()

    frac, whole = call(getattr(libdevice, "modf" + suffix), x, out_dtypes=[dtype, dtype])
    efrac, ewhole = np.modf(x)
    np.testing.assert_array_equal(frac, efrac)
    np.testing.assert_array_equal(whole, ewhole)
    np.testing.assert_array_equal(np.signbit(frac), np.signbit(efrac))

    names = ["sincos" + suffix, "sincospi" + suffix] + (["fast_sincosf"] if suffix else [])
    for name in names:
        s, c = call(getattr(libdevice, name), x, out_dtypes=[dtype, dtype])
        single = name.replace("cos", "", 1).replace("fast_", "").removesuffix("f")
        single = {"sin": "sin", "sinpi": "sinpi"}[single]
        (es,) = call(getattr(libdevice, single + suffix), x, out_dtypes=[dtype])
        (ec,) = call(getattr(libdevice, single.replace("sin", "cos") + suffix), x,
                     out_dtypes=[dtype])
        np.testing.assert_array_equal(s, es)
        np.testing.assert_array_equal(c, ec)


@pytest.mark.parametrize("dtype, name", [(F64, "remquo"), (F32, "remquof")])
def test_remquo_gives_the_remainder_and_the_low_bits_of_the_quotient(dtype, name):
    x, y = pairs(dtype)
    x = np.concatenate([x, np.array([7.0, -7.0, 5.0, 1e300, 2.5, 6.5e-320], dtype)])
    y = np.concatenate([y, np.array([2.0, 2.0, -2.0, 3e-300, 1.0, 1e-320], dtype)])
    rem, quo = call(getattr(libdevice, name), x, y, out_dtypes=[dtype, I32])
    for a, b, r, q in zip(x.astype(F64), y.astype(F64), rem, quo):
        if math.isnan(a) or math.isnan(b) or math.isinf(a) or b == 0:
            assert math.isnan(r)
            continue
        assert r == math.remainder(a, b), (a, b)
        if math.isinf(b):
            continue
        n = round(Fraction(a) / Fraction(b))        # halves to even, exactly
        assert abs(int(q)) == abs(n) % 8, (a, b, q, n)
        assert q == 0 or (q < 0) == (n < 0), (a, b, q, n)


# --- float classification and exponents -----------------------------------------------


@pytest.mark.parametrize("name, dtype, ref", [
    ("isnand", F64, np.isnan), ("isnanf", F32, np.isnan),
    ("isinfd", F64, np.isinf), ("isinff", F32, np.isinf),
    ("isfinited", F64, np.isfinite), ("finitef", F32, np.isfinite),
    ("signbitd", F64, np.signbit), ("signbitf", F32, np.signbit),
])
def test_classification_returns_int32_0_or_1(name, dtype, ref):
    x = np.concatenate([floats(dtype), -np.array([math.nan], dtype)])
    (got,) = call(getattr(libdevice, name), x, out_dtypes=[I32])
    np.testing.assert_array_equal(got, ref(x).astype(I32))


@pytest.mark.parametrize("name, dtype", [("ilogb", F64), ("ilogbf", F32)])
def test_ilogb_is_the_exponent_with_int_min_and_int_max_at_the_edges(name, dtype):
    x = floats(dtype)
    (got,) = call(getattr(libdevice, name), x, out_dtypes=[I32])
    expected = [-2**31 if (math.isnan(v) or v == 0) else 2**31 - 1 if math.isinf(v)
                else math.frexp(v)[1] - 1 for v in x.astype(F64)]
    np.testing.assert_array_equal(got, expected)


def test_nextafter_steps_through_subnormals_powers_of_two_and_to_infinity():
    x = np.array([0.0, -0.0, 5e-324, 1.0, 1.0, 2.0, 1.7976931348623157e308, math.inf, -1.0,
                  2.2250738585072014e-308], F64)
    y = np.array([1.0, -1.0, 0.0, 0.0, 2.0, 0.0, math.inf, 0.0, -math.inf, 0.0], F64)
    (got,) = call(libdevice.nextafter, x, y, out_dtypes=[F64])
    np.testing.assert_array_equal(got, np.nextafter(x, y))
    (got,) = call(libdevice.nextafterf, x.astype(F32), y.astype(F32), out_dtypes=[F32])
    np.testing.assert_array_equal(got, np.nextafter(x.astype(F32), y.astype(F32)))


# --- integer functions ----------------------------------------------------------------

INT32_EDGES = [0, 1, -1, 2, -2, 7, 255, 256, 0x7FFFFF, 0x800000, -0x800000, 0x12345678,
               -0x12345678, 2**31 - 1, -2**31, 1 << 30]
INT64_EDGES = INT32_EDGES + [2**32, -2**32, 2**63 - 1, -2**63, 0x123456789ABCDEF0,
                             -0x123456789ABCDEF0, 1 << 62]


def ints(dtype, seed=5, n=40):
    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype)
    edges = INT32_EDGES if dtype == I32 else INT64_EDGES
    return np.concatenate([np.array(edges, dtype),
                           rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)])


def u32(v):
    return int(v) & 0xFFFFFFFF


def u64(v):
    return int(v) & 0xFFFFFFFFFFFFFFFF


def s32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v


def s64(v):
    v &= 0xFFFFFFFFFFFFFFFF
    return v - (1 << 64) if v >> 63 else v


def _byte_perm(x, y, s):
    pair = (u32(y) << 32) | u32(x)
    return s32(sum(((pair >> (8 * ((u32(s) >> (4 * n)) & 7))) & 0xFF) << (8 * n)
                   for n in range(4)))


def _sext24(v):
    v &= 0xFFFFFF
    return v - (1 << 24) if v >> 23 else v


INTEGER = {
    # name: (argument dtype, result dtype, reference on Python ints)
    "abs": (I32, I32, lambda x: s32(abs(x))),
    "llabs": (I64, I64, lambda x: s64(abs(x))),
    "max": (I32, I32, max), "min": (I32, I32, min),
    "llmax": (I64, I64, max), "llmin": (I64, I64, min),
    "umax": (I32, I32, lambda x, y: s32(max(u32(x), u32(y)))),
    "umin": (I32, I32, lambda x, y: s32(min(u32(x), u32(y)))),
    "ullmax": (I64, I64, lambda x, y: s64(max(u64(x), u64(y)))),
    "ullmin": (I64, I64, lambda x, y: s64(min(u64(x), u64(y)))),
    "popc": (I32, I32, lambda x: bin(u32(x)).count("1")),
    "popcll": (I64, I32, lambda x: bin(u64(x)).count("1")),
    "brev": (I32, I32, lambda x: s32(int(f"{u32(x):032b}"[::-1], 2))),
    "brevll": (I64, I64, lambda x: s64(int(f"{u64(x):064b}"[::-1], 2))),
    "clz": (I32, I32, lambda x: 32 - u32(x).bit_length()),
    "clzll": (I64, I32, lambda x: 64 - u64(x).bit_length()),
    "ffs": (I32, I32, lambda x: (u32(x) & -u32(x)).bit_length()),
    "ffsll": (I64, I32, lambda x: (u64(x) & -u64(x)).bit_length()),
    "hadd": (I32, I32, lambda x, y: (x + y) >> 1),
    "rhadd": (I32, I32, lambda x, y: (x + y + 1) >> 1),
    "uhadd": (I32, I32, lambda x, y: s32((u32(x) + u32(y)) >> 1)),
    "urhadd": (I32, I32, lambda x, y: s32((u32(x) + u32(y) + 1) >> 1)),
    "mul24": (I32, I32, lambda x, y: s32(_sext24(x) * _sext24(y))),
    "umul24": (I32, I32, lambda x, y: s32((x & 0xFFFFFF) * (y & 0xFFFFFF))),
    "mulhi": (I32, I32, lambda x, y: s32((x * y) >> 32)),
    "umulhi": (I32, I32, lambda x, y: s32((u32(x) * u32(y)) >> 32)),
    "mul64hi": (I64, I64, lambda x, y: s64((x * y) >> 64)),
    "umul64hi": (I64, I64, lambda x, y: s64((u64(x) * u64(y)) >> 64)),
    "sad": (I32, I32, lambda x, y, z: s32(abs(x - y) + u32(z))),
    "usad": (I32, I32, lambda x, y, z: s32(abs(u32(x) - u32(y)) + u32(z))),
    "byte_perm": (I32, I32, _byte_perm),
}


@pytest.mark.parametrize("name", sorted(INTEGER))
def test_integer_functions_match_python_on_the_bits(name):
    dtype, result, ref = INTEGER[name]
    nargs = ref.__code__.co_argcount if hasattr(ref, "__code__") else 2
    args = [np.roll(ints(dtype, seed=7 + k), 3 * k) for k in range(nargs)]
    if name == "byte_perm":
        args[2] = args[2] & 0x7777                   # 3-bit selectors
    (got,) = call(getattr(libdevice, name), *args, out_dtypes=[result])
    expected = [ref(*(int(a) for a in vals)) for vals in zip(*args)]
    np.testing.assert_array_equal(got, np.array(expected, result))


# --- conversions ------------------------------------------------------------------------

CONVERSION_INPUTS = [0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.7, -2.7, 1e10, -1e10, 3e9,
                     4294967295.0, 2147483647.0, -2147483648.0, 1e19, 2e19, -1e19, 1e30, -1e30,
                     math.inf, -math.inf, math.nan, 123456.75]
ROUNDING = {"rn": np.rint, "rz": np.trunc, "rd": np.floor, "ru": np.ceil}
TARGET = {  # libdevice name: (bits, signed, result dtype)
    "int": (32, True, I32), "uint": (32, False, I32), "ll": (64, True, I64),
    "ull": (64, False, I64),
}


@pytest.mark.parametrize("source", ["double", "float"])
@pytest.mark.parametrize("target", sorted(TARGET))
@pytest.mark.parametrize("mode", sorted(ROUNDING))
def test_float_to_integer_conversions_round_then_saturate(source, target, mode):
    name = f"{source}2{target}_{mode}"
    dtype = F64 if source == "double" else F32
    bits, signed, result = TARGET[target]
    x = np.array(CONVERSION_INPUTS, dtype)
    (got,) = call(getattr(libdevice, name), x, out_dtypes=[result])
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    expected = []
    for v in ROUNDING[mode](x.astype(F64)):
        n = 0 if math.isnan(v) else lo if v < lo else hi if v > hi else int(v)
        expected.append(s32(n) if bits == 32 else s64(n))
    np.testing.assert_array_equal(got, np.array(expected, result))


@pytest.mark.parametrize("name, dtype, result, convert", [
    ("double2float_rn", F64, F32, lambda v: F32(v)),
    ("int2double_rn", I32, F64, lambda v: float(v)),
    ("uint2double_rn", I32, F64, lambda v: float(u32(v))),
    ("int2float_rn", I32, F32, lambda v: F32(v)),
    ("uint2float_rn", I32, F32, lambda v: F32(u32(v))),
    ("ll2float_rn", I64, F32, lambda v: F32(float(Fraction(v)) if abs(v) < 2**53 else v)),
    ("ull2float_rn", I64, F32, lambda v: F32(u64(v))),
    ("ll2double_rn", I64, F64, lambda v: float(v)),
    ("ull2double_rn", I64, F64, lambda v: float(u64(v))),
])
def test_conversions_rounded_to_nearest(name, dtype, result, convert):
    x = floats(F64) if dtype == F64 else ints(dtype)
    (got,) = call(getattr(libdevice, name), x, out_dtypes=[result])
    with np.errstate(all="ignore"):
        expected = np.array([convert(v if dtype == F64 else int(v)) for v in x], result)
    np.testing.assert_array_equal(got, expected)


# --- names, types and PTX ----------------------------------------------------------------


def test_the_module_has_numbas_names_and_is_cuda_libdevice():
    assert cuda.libdevice is libdevice
    assert len(libdevice.__all__) == 317                                   # all of Numba's
    assert {"sinf", "sin", "popc", "frexp", "sincos", "double2float_rn", "float_as_int",
            "j0", "ynf", "fadd_rz", "double2float_rz", "fma_ru"} <= set(libdevice.__all__)


TENTH_SQUARED_F32 = np.float32(0.1) * np.float32(0.1)


def test_results_have_libdevices_types():
    @cuda.jit
    def kinds(out):
        out[0] = libdevice.fmul_rn(0.1, 0.1) == TENTH_SQUARED_F32       # float32 rounding
        out[1] = libdevice.sqrtf(2.0) * libdevice.sqrtf(2.0) != 2.0      # float32 rounding
        out[2] = libdevice.umax(-1, 1) == -1                              # uint32 bits in int32
        out[3] = libdevice.popcll(-1) == 64
        out[4] = libdevice.double2float_rn(0.1) != 0.1

    out = np.zeros(5, np.bool_)
    kinds[1, 1](out)
    assert out.all()


def test_compile_ptx_of_a_kernel_using_a_dozen_functions(check_ptx):
    def uses_libdevice(x, n, out):
        i = cuda.grid(1)
        if i < x.size:
            m, e = libdevice.frexp(x[i])
            s, c = libdevice.sincosf(x[i])
            out[i] = (libdevice.sinf(x[i]) + libdevice.cospi(x[i]) + libdevice.erfinv(0.5)
                      + libdevice.fmax(m, s) + libdevice.ldexp(c, e) + libdevice.popc(n[i])
                      + libdevice.rsqrtf(x[i]) + libdevice.double2int_rd(x[i])
                      + libdevice.nextafter(x[i], 0.0) + libdevice.mulhi(n[i], n[i])
                      + libdevice.erfcx(x[i]) + libdevice.remainder(x[i], 0.75))

    ptx, _ = cuda.compile_ptx(uses_libdevice, "void(float64[::1], int32[::1], float64[::1])")
    check_ptx(ptx)


# --- bit reinterpretation and Bessel functions -------------------------------------------


def test_bit_reinterpretation_round_trips_every_pattern_and_matches_numpy_views():
    @cuda.jit
    def bits(f, d, as_int, back, as_long, halves, pieces, rebuilt):
        i = cuda.grid(1)
        if i < f.size:
            as_int[i] = libdevice.float_as_int(f[i])
            back[i] = libdevice.int_as_float(as_int[i])
            as_long[i] = libdevice.double_as_longlong(d[i])
            rebuilt[i, 0] = libdevice.longlong_as_double(as_long[i])
            pieces[i, 0] = libdevice.double2hiint(d[i])
            pieces[i, 1] = libdevice.double2loint(d[i])
            rebuilt[i, 1] = libdevice.hiloint2double(pieces[i, 0], pieces[i, 1])
            halves[i] = libdevice.float2half_rn(f[i])
            back[i + f.size] = libdevice.half2float(halves[i])

    f = np.array([1.5, -0.0, np.inf, -np.nan, 1e-45, 65519.0, 70000.0, 1 / 3], np.float32)
    d = np.array([2.75, -0.0, np.inf, 5e-324, -1e300, np.pi, 1.0, -2.5])
    n = f.size
    as_int, back = np.zeros(n, np.int32), np.zeros(2 * n, np.float32)
    as_long, halves = np.zeros(n, np.int64), np.zeros(n, np.int16)
    pieces, rebuilt = np.zeros((n, 2), np.int32), np.zeros((n, 2))
    bits[1, 32](f, d, as_int, back, as_long, halves, pieces, rebuilt)
    np.testing.assert_array_equal(as_int, f.view(np.int32))
    np.testing.assert_array_equal(back[:n].view(np.int32), f.view(np.int32))  # NaN bits too
    np.testing.assert_array_equal(as_long, d.view(np.int64))
    np.testing.assert_array_equal(rebuilt[:, 0].view(np.int64), d.view(np.int64))
    np.testing.assert_array_equal(rebuilt[:, 1].view(np.int64), d.view(np.int64))
    np.testing.assert_array_equal(pieces[:, 0], (d.view(np.int64) >> 32).astype(np.int32))
    np.testing.assert_array_equal(pieces[:, 1], d.view(np.uint64).astype(np.uint32).view(np.int32))
    with np.errstate(over="ignore"):
        assert_bits_equal_any_nan(halves, f.astype(np.float16).view(np.int16),
                                  lambda bits: bits.view(np.float16))
        np.testing.assert_array_equal(back[n:], f.astype(np.float16).astype(np.float32))


@pytest.mark.parametrize("name", ["j0", "j1", "y0", "y1", "jn", "yn"])
def test_bessel_functions_agree_with_mpmath(name):
    mpmath = pytest.importorskip("mpmath")
    wide = getattr(libdevice, name)
    narrow = getattr(libdevice, name + "f")
    with_order = name in ("jn", "yn")

    @cuda.jit
    def of_order_3(x, out64, out32):
        i = cuda.grid(1)
        if i < x.size:
            out64[i] = wide(3, x[i])
            out32[i] = narrow(3, np.float32(x[i]))

    @cuda.jit
    def of_x(x, out64, out32):
        i = cuda.grid(1)
        if i < x.size:
            out64[i] = wide(x[i])
            out32[i] = narrow(np.float32(x[i]))

    evaluate = of_order_3 if with_order else of_x

    x = np.array([0.25, 0.5, 1.0, 2.75, 5.5, 10.0, 31.0, 100.0])
    out64, out32 = np.zeros_like(x), np.zeros(x.size, np.float32)
    evaluate[1, 32](x, out64, out32)
    kind = mpmath.besselj if name[0] == "j" else mpmath.bessely
    order = 3 if with_order else int(name[1])
    expected = np.array([float(kind(order, v)) for v in x])
    # libm and libdevice document absolute errors of a few 1e-12 for large x.
    np.testing.assert_allclose(out64, expected, rtol=1e-10, atol=5e-12)
    expected32 = np.array([float(kind(order, float(np.float32(v)))) for v in x])
    np.testing.assert_allclose(out32, expected32, rtol=2e-5, atol=2e-6)
    assert out32.dtype == np.float32
