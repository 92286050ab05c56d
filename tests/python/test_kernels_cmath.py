"""cmath in kernels: every function of cmath that Numba supports, compared with CPython's
cmath on a grid of parts that holds zeros of both signs, +-1, +-pi, infinities, NaN, a
huge and a subnormal value, for complex128 and complex64 (whose results are complex64, as
Numba types them). Inputs where CPython raises a domain error are skipped, as numba-cuda's
own tests skip them."""

import cmath
import itertools
import math

import numpy as np
import pytest

import cudajit as cuda

pytestmark = [pytest.mark.usefixtures("device"),
              pytest.mark.filterwarnings("ignore::cudajit.PerformanceWarning")]

PARTS = [0.0, -0.0, 1.0, -1.0, math.pi, -math.pi, math.inf, -math.inf, math.nan, 0.5, -2.5,
         1e300, -1e-310, 3.7]
VALUES = [complex(x, y) for x, y in itertools.product(PARTS, PARTS)]

UNARY = ["sqrt", "exp", "log", "log10", "cosh", "sinh", "tanh", "cos", "sin", "tan", "acos",
         "acosh", "asinh", "asin", "atanh", "atan"]


def _kernel(name):
    function = getattr(cmath, name)

    @cuda.jit
    def apply(z, out):
        i = cuda.grid(1)
        if i < z.size:
            out[i] = function(z[i])

    return apply


KERNELS = {name: _kernel(name) for name in UNARY}


def ulps_apart(got: float, want: float, dtype) -> float:
    if math.isnan(got) and math.isnan(want):
        return 0
    if got == want:
        return 0 if math.copysign(1, got) == math.copysign(1, want) else math.inf
    if not (math.isfinite(got) and math.isfinite(want)):
        return math.inf
    ulp = float(np.spacing(dtype(max(abs(got), abs(want)))))
    return abs(got - want) / ulp


def expected_values(name, z, part):
    """CPython's results rounded to the array's precision; None where CPython raises."""
    out = []
    for v in z.tolist():
        try:
            w = getattr(cmath, name)(v)
        except (ValueError, OverflowError):
            out.append(None)
            continue
        with np.errstate(over="ignore", under="ignore"):
            out.append(complex(z.dtype.type(w)))
    return out


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("name", UNARY)
def test_cmath_function_matches_cpython_with_special_values(name, dtype):
    with np.errstate(over="ignore"):
        z = np.array(VALUES, dtype)
    out = np.zeros(z.size, dtype)
    KERNELS[name][(z.size + 63) // 64, 64](z, out)
    part = np.float64 if dtype == np.complex128 else np.float32
    for v, got, want in zip(z.tolist(), out.tolist(), expected_values(name, z, part)):
        if want is None:
            continue
        apart = max(ulps_apart(got.real, want.real, part), ulps_apart(got.imag, want.imag, part))
        assert apart <= 2, f"cmath.{name}({v!r}) = {got!r}, CPython {want!r}"


def test_phase_polar_rect_and_the_predicates():
    @cuda.jit
    def kernel(z, r, phi, out, flags):
        i = cuda.grid(1)
        if i < z.size:
            out[i, 0] = cmath.phase(z[i])
            m, a = cmath.polar(z[i])
            out[i, 1] = m
            out[i, 2] = a
            w = cmath.rect(r[i], phi[i])
            out[i, 3] = w.real
            out[i, 4] = w.imag
            flags[i, 0] = cmath.isnan(z[i])
            flags[i, 1] = cmath.isinf(z[i])
            flags[i, 2] = cmath.isfinite(z[i])

    z = np.array(VALUES)
    r = z.real.copy()
    phi = z.imag.copy()
    out = np.zeros((z.size, 5))
    flags = np.zeros((z.size, 3), np.bool_)
    kernel[(z.size + 63) // 64, 64](z, r, phi, out, flags)
    for k, v in enumerate(VALUES):
        # cmath's phase and polar are atan2 and hypot (CPython also raises OverflowError
        # where atan2 underflows, as for 1e300 - 1e-310j; a kernel cannot raise).
        angle = math.atan2(v.imag, v.real)
        expected = [angle, math.hypot(v.real, v.imag), angle]
        try:
            w = cmath.rect(v.real, v.imag)
            expected += [w.real, w.imag]
        except ValueError:
            expected += [out[k, 3], out[k, 4]]  # a domain error in CPython
        for got, want in zip(out[k], expected):
            assert ulps_apart(float(got), want, np.float64) <= 1, (v, out[k], expected)
        assert list(flags[k]) == [cmath.isnan(v), cmath.isinf(v), cmath.isfinite(v)]


def f_sqrt(z):
    return cmath.sqrt(z)


def f_phase(z):
    return cmath.phase(z)


@pytest.mark.parametrize("func, args, expected", [
    (f_sqrt, (cuda.complex64,), cuda.complex64),
    (f_sqrt, (cuda.complex128,), cuda.complex128),
    (f_phase, (cuda.complex64,), cuda.float32),
    (f_phase, (cuda.complex128,), cuda.float64),
])
def test_cmath_keeps_the_precision_of_its_argument_as_numba_types_it(func, args, expected):
    assert cuda.compile_ptx(func, args, device=True)[1] == expected


def test_cmath_kernels_assemble_with_ptxas(check_ptx):
    ptx, _ = cuda.compile_ptx(KERNELS["atanh"].py_func, "void(complex64[::1], complex64[::1])")
    check_ptx(ptx)


def test_complex_types_name_their_parts_type_as_numba_does():
    assert cuda.complex64.underlying_float == cuda.float32
    assert cuda.complex128.underlying_float == cuda.float64
    with pytest.raises(AttributeError, match="float32 is not a complex type"):
        cuda.float32.underlying_float  # noqa: B018


def test_log_with_a_base_is_cmaths_two_argument_log():
    @cuda.jit
    def log_base(z, base, out):
        i = cuda.grid(1)
        if i < z.size:
            out[i] = cmath.log(z[i], base[i])
        if i == 0:
            out[z.size] = cmath.log(z[0], 10)  # a real base

    z = np.array([1 + 2j, -3 + 0.5j, 0.5 - 4j])
    base = np.array([2 + 0j, 10 + 1j, 0.5 + 0.5j])
    out = np.zeros(4, np.complex128)
    log_base[1, 3](z, base, out)
    expected = [cmath.log(a, b) for a, b in zip(z, base)] + [cmath.log(z[0], 10)]
    np.testing.assert_allclose(out, expected, rtol=1e-14)
