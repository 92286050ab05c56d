"""libdevice's float64 math functions."""

from __future__ import annotations

from ._base import *  # noqa: F401,F403
from .integer import *  # noqa: F401,F403
from .classification import *  # noqa: F401,F403

# --- float64 math ----------------------------------------------------------------------


@jit(device=True)
def acos(x):
    """The arc cosine of a float64."""
    return math.acos(float64(x))


@jit(device=True)
def acosh(x):
    """The inverse hyperbolic cosine of a float64."""
    return math.acosh(float64(x))


@jit(device=True)
def asin(x):
    """The arc sine of a float64."""
    return math.asin(float64(x))


@jit(device=True)
def asinh(x):
    """The inverse hyperbolic sine of a float64."""
    return math.asinh(float64(x))


@jit(device=True)
def atan(x):
    """The arc tangent of a float64."""
    return math.atan(float64(x))


@jit(device=True)
def atan2(x, y):
    """The arc tangent of ``x / y`` in the quadrant of (y, x): libdevice's argument
    order is C's ``atan2(y, x)`` with the first argument named x."""
    return math.atan2(float64(x), float64(y))


@jit(device=True)
def atanh(x):
    """The inverse hyperbolic tangent of a float64."""
    return math.atanh(float64(x))


@jit(device=True)
def cbrt(x):
    """The cube root of a float64."""
    return _cbrt(float64(x))


@jit(device=True)
def rcbrt(x):
    """``1 / cbrt(x)`` of a float64."""
    return 1.0 / _cbrt(float64(x))


@jit(device=True)
def ceil(x):
    """The smallest integer value not less than the float64 ``x``, as float64."""
    return math.ceil(float64(x))


@jit(device=True)
def floor(x):
    """The largest integer value not greater than the float64 ``x``, as float64."""
    return math.floor(float64(x))


@jit(device=True)
def trunc(x):
    """The float64 ``x`` rounded towards zero, as float64."""
    return math.trunc(float64(x))


@jit(device=True)
def round(x):
    """The float64 ``x`` rounded to the nearest integer, halves away from zero, as float64."""
    return _round_half_away(float64(x))


@jit(device=True)
def rint(x):
    """The float64 ``x`` rounded to the nearest integer, halves to even, as float64."""
    return _bround(float64(x), 0)


@jit(device=True)
def nearbyint(x):
    """The float64 ``x`` rounded to the nearest integer, halves to even, as float64."""
    return _bround(float64(x), 0)


@jit(device=True)
def llrint(x):
    """The float64 ``x`` rounded to the nearest integer, halves to even, as int64
    (saturated; NaN gives 0)."""
    return int64(_bround(float64(x), 0))


@jit(device=True)
def llround(x):
    """The float64 ``x`` rounded to the nearest integer, halves away from zero, as
    int64 (saturated; NaN gives 0)."""
    return int64(_round_half_away(float64(x)))


@jit(device=True)
def copysign(x, y):
    """The magnitude of ``x`` with the sign of ``y`` (float64)."""
    return math.copysign(float64(x), float64(y))


@jit(device=True)
def cos(x):
    """The cosine of a float64."""
    return math.cos(float64(x))


@jit(device=True)
def cosh(x):
    """The hyperbolic cosine of a float64."""
    return math.cosh(float64(x))


@jit(device=True)
def cospi(x):
    """``cos(pi * x)`` of a float64, with ``x`` reduced exactly first."""
    return _cospi64(float64(x))


@jit(device=True)
def sin(x):
    """The sine of a float64."""
    return math.sin(float64(x))


@jit(device=True)
def sinh(x):
    """The hyperbolic sine of a float64."""
    return math.sinh(float64(x))


@jit(device=True)
def sinpi(x):
    """``sin(pi * x)`` of a float64, with ``x`` reduced exactly first."""
    return _sinpi64(float64(x))


@jit(device=True)
def sincos(x):
    """``(sin(x), cos(x))`` of a float64."""
    x = float64(x)
    return math.sin(x), math.cos(x)


@jit(device=True)
def sincospi(x):
    """``(sinpi(x), cospi(x))`` of a float64."""
    x = float64(x)
    return _sinpi64(x), _cospi64(x)


@jit(device=True)
def tan(x):
    """The tangent of a float64."""
    return math.tan(float64(x))


@jit(device=True)
def tanh(x):
    """The hyperbolic tangent of a float64."""
    return math.tanh(float64(x))


@jit(device=True)
def erf(x):
    """The error function of a float64."""
    return math.erf(float64(x))


@jit(device=True)
def erfc(x):
    """The complementary error function ``1 - erf(x)`` of a float64."""
    return math.erfc(float64(x))


@jit(device=True)
def erfcx(x):
    """The scaled complementary error function ``exp(x*x) * erfc(x)`` of a float64."""
    return _erfcx64(float64(x))


@jit(device=True)
def erfinv(x):
    """The inverse error function of a float64 (NaN outside [-1, 1])."""
    return _erfinv64(float64(x))


@jit(device=True)
def erfcinv(x):
    """The inverse complementary error function of a float64 (NaN outside [0, 2])."""
    return _erfcinv64(float64(x))


@jit(device=True)
def normcdf(x):
    """The standard normal cumulative distribution function of a float64."""
    return 0.5 * math.erfc(float64(x) * -0.7071067811865476)


@jit(device=True)
def normcdfinv(x):
    """The inverse of ``normcdf`` of a float64 (NaN outside [0, 1])."""
    return -_SQRT2 * _erfcinv64(2.0 * float64(x))


@jit(device=True)
def exp(x):
    """``e ** x`` of a float64."""
    return math.exp(float64(x))


@jit(device=True)
def exp2(x):
    """``2 ** x`` of a float64."""
    return 2.0 ** float64(x)


@jit(device=True)
def exp10(x):
    """``10 ** x`` of a float64."""
    return 10.0 ** float64(x)


@jit(device=True)
def expm1(x):
    """``e ** x - 1`` of a float64, accurate near 0."""
    return math.expm1(float64(x))


@jit(device=True)
def log(x):
    """The natural logarithm of a float64."""
    return math.log(float64(x))


@jit(device=True)
def log2(x):
    """The base-2 logarithm of a float64."""
    return math.log2(float64(x))


@jit(device=True)
def log10(x):
    """The base-10 logarithm of a float64."""
    return math.log10(float64(x))


@jit(device=True)
def log1p(x):
    """``log(1 + x)`` of a float64, accurate near 0."""
    return math.log1p(float64(x))


@jit(device=True)
def logb(x):
    """The exponent of the float64 ``x`` as a float64 (``floor(log2(|x|))``):
    -inf for 0, inf for infinities."""
    return _logb64(float64(x))


@jit(device=True)
def ilogb(x):
    """The exponent of the float64 ``x`` as an int32: INT_MIN for 0 and NaN,
    INT_MAX for infinities."""
    return _ilogb64(float64(x))


@jit(device=True)
def frexp(x):
    """``(m, e)``: a float64 and an int32 with ``x == m * 2**e`` and
    ``0.5 <= |m| < 1``; ``(x, 0)`` for 0, infinities and NaN."""
    return _frexp64(float64(x))


@jit(device=True)
def ldexp(x, y):
    """``x * 2**y`` of a float64 ``x`` and an int32 ``y``, rounded once."""
    return _scalbn64(float64(x), int32(y))


@jit(device=True)
def scalbn(x, y):
    """``x * 2**y`` of a float64 ``x`` and an int32 ``y``, rounded once."""
    return _scalbn64(float64(x), int32(y))


@jit(device=True)
def modf(x):
    """``(fraction, integral)`` parts of a float64, both with the sign of ``x``."""
    x = float64(x)
    t = math.trunc(x)
    if math.isinf(x):
        return math.copysign(0.0, x), x
    return math.copysign(x - t, x), t


@jit(device=True)
def fabs(x):
    """``|x|`` of a float64."""
    return math.fabs(float64(x))


@jit(device=True)
def fdim(x, y):
    """``x - y`` if ``x > y``, else +0 (float64; NaN if either is NaN)."""
    x = float64(x)
    y = float64(y)
    if x != x or y != y:
        return x + y
    return x - y if x > y else 0.0


@jit(device=True)
def fmax(x, y):
    """The larger of two float64; a NaN gives way to the other value."""
    return _larger_not_nan(float64(x), float64(y))


@jit(device=True)
def fmin(x, y):
    """The smaller of two float64; a NaN gives way to the other value."""
    return _smaller_not_nan(float64(x), float64(y))


@jit(device=True)
def fma(x, y, z):
    """``x * y + z`` of float64 values, rounded once."""
    return _fma(float64(x), float64(y), float64(z))


@jit(device=True)
def fma_rn(x, y, z):
    """``x * y + z`` of float64 values, rounded once to nearest."""
    return _fma(float64(x), float64(y), float64(z))


@jit(device=True)
def fmod(x, y):
    """The remainder of ``x / y`` rounded towards zero, with the sign of ``x`` (float64), exact."""
    return _fmod64(float64(x), float64(y))


@jit(device=True)
def remainder(x, y):
    """``x - n * y`` with ``n`` the nearest integer to ``x / y`` (halves to even), float64."""
    r, q = _remquo64(float64(x), float64(y))
    return r


@jit(device=True)
def remquo(x, y):
    """``(remainder(x, y), q)``: q an int32 with the sign of ``x / y`` and the low 3
    bits of the rounded quotient (float64)."""
    return _remquo64(float64(x), float64(y))


@jit(device=True)
def hypot(x, y):
    """``sqrt(x*x + y*y)`` of float64 values, without undue overflow."""
    return math.hypot(float64(x), float64(y))


@jit(device=True)
def nextafter(x, y):
    """The float64 after ``x`` in the direction of ``y``."""
    return _nextafter64(float64(x), float64(y))


@jit(device=True)
def pow(x, y):
    """``x ** y`` of float64 values."""
    return math.pow(float64(x), float64(y))


@jit(device=True)
def powi(x, y):
    """``x ** y`` of a float64 ``x`` and an int32 ``y``."""
    return float64(x) ** int32(y)


@jit(device=True)
def sqrt(x):
    """The square root of a float64."""
    return math.sqrt(float64(x))


@jit(device=True)
def rsqrt(x):
    """``1 / sqrt(x)`` of a float64."""
    return 1.0 / math.sqrt(float64(x))


@jit(device=True)
def lgamma(x):
    """The natural logarithm of ``|gamma(x)|`` of a float64."""
    return math.lgamma(float64(x))


@jit(device=True)
def tgamma(x):
    """The gamma function of a float64."""
    return math.gamma(float64(x))


# What the next modules of the package see (names starting with _ included).
__all__ = [name for name in list(globals()) if not name.startswith("__")]
