"""libdevice's float32 math functions."""

from __future__ import annotations

from ._base import *  # noqa: F401,F403
from .integer import *  # noqa: F401,F403
from .classification import *  # noqa: F401,F403
from .math64 import *  # noqa: F401,F403

# --- float32 math ----------------------------------------------------------------------


@jit(device=True)
def acosf(x):
    """The arc cosine of a float32."""
    return math.acos(float32(x))


@jit(device=True)
def acoshf(x):
    """The inverse hyperbolic cosine of a float32."""
    return math.acosh(float32(x))


@jit(device=True)
def asinf(x):
    """The arc sine of a float32."""
    return math.asin(float32(x))


@jit(device=True)
def asinhf(x):
    """The inverse hyperbolic sine of a float32."""
    return math.asinh(float32(x))


@jit(device=True)
def atanf(x):
    """The arc tangent of a float32."""
    return math.atan(float32(x))


@jit(device=True)
def atan2f(x, y):
    """The arc tangent of ``x / y`` in the quadrant of (y, x), float32 (C's atan2f(y, x))."""
    return math.atan2(float32(x), float32(y))


@jit(device=True)
def atanhf(x):
    """The inverse hyperbolic tangent of a float32."""
    return math.atanh(float32(x))


@jit(device=True)
def cbrtf(x):
    """The cube root of a float32."""
    return _cbrt(float32(x))


@jit(device=True)
def rcbrtf(x):
    """``1 / cbrt(x)`` of a float32."""
    return float32(1.0 / _cbrt(float64(float32(x))))


@jit(device=True)
def ceilf(x):
    """The smallest integer value not less than the float32 ``x``, as float32."""
    return math.ceil(float32(x))


@jit(device=True)
def floorf(x):
    """The largest integer value not greater than the float32 ``x``, as float32."""
    return math.floor(float32(x))


@jit(device=True)
def truncf(x):
    """The float32 ``x`` rounded towards zero, as float32."""
    return math.trunc(float32(x))


@jit(device=True)
def roundf(x):
    """The float32 ``x`` rounded to the nearest integer, halves away from zero, as float32."""
    return _round_half_away32(float32(x))


@jit(device=True)
def rintf(x):
    """The float32 ``x`` rounded to the nearest integer, halves to even, as float32."""
    return _bround(float32(x), 0)


@jit(device=True)
def nearbyintf(x):
    """The float32 ``x`` rounded to the nearest integer, halves to even, as float32."""
    return _bround(float32(x), 0)


@jit(device=True)
def llrintf(x):
    """The float32 ``x`` rounded to the nearest integer, halves to even, as int64
    (saturated; NaN gives 0)."""
    return int64(_bround(float32(x), 0))


@jit(device=True)
def llroundf(x):
    """The float32 ``x`` rounded to the nearest integer, halves away from zero, as
    int64 (saturated; NaN gives 0)."""
    return int64(_round_half_away32(float32(x)))


@jit(device=True)
def copysignf(x, y):
    """The magnitude of ``x`` with the sign of ``y`` (float32)."""
    return math.copysign(float32(x), float32(y))


@jit(device=True)
def cosf(x):
    """The cosine of a float32."""
    return math.cos(float32(x))


@jit(device=True)
def coshf(x):
    """The hyperbolic cosine of a float32."""
    return math.cosh(float32(x))


@jit(device=True)
def cospif(x):
    """``cos(pi * x)`` of a float32."""
    return float32(_cospi64(float64(float32(x))))


@jit(device=True)
def sinf(x):
    """The sine of a float32."""
    return math.sin(float32(x))


@jit(device=True)
def sinhf(x):
    """The hyperbolic sine of a float32."""
    return math.sinh(float32(x))


@jit(device=True)
def sinpif(x):
    """``sin(pi * x)`` of a float32."""
    return float32(_sinpi64(float64(float32(x))))


@jit(device=True)
def sincosf(x):
    """``(sin(x), cos(x))`` of a float32."""
    x = float32(x)
    return math.sin(x), math.cos(x)


@jit(device=True)
def sincospif(x):
    """``(sinpi(x), cospi(x))`` of a float32."""
    x = float64(float32(x))
    return float32(_sinpi64(x)), float32(_cospi64(x))


@jit(device=True)
def tanf(x):
    """The tangent of a float32."""
    return math.tan(float32(x))


@jit(device=True)
def tanhf(x):
    """The hyperbolic tangent of a float32."""
    return math.tanh(float32(x))


@jit(device=True)
def erff(x):
    """The error function of a float32."""
    return math.erf(float32(x))


@jit(device=True)
def erfcf(x):
    """The complementary error function of a float32."""
    return math.erfc(float32(x))


@jit(device=True)
def erfcxf(x):
    """The scaled complementary error function ``exp(x*x) * erfc(x)`` of a float32."""
    return float32(_erfcx64(float64(float32(x))))


@jit(device=True)
def erfinvf(x):
    """The inverse error function of a float32 (NaN outside [-1, 1])."""
    return float32(_erfinv64(float64(float32(x))))


@jit(device=True)
def erfcinvf(x):
    """The inverse complementary error function of a float32 (NaN outside [0, 2])."""
    return float32(_erfcinv64(float64(float32(x))))


@jit(device=True)
def normcdff(x):
    """The standard normal cumulative distribution function of a float32."""
    return float32(0.5 * math.erfc(float64(float32(x)) * -0.7071067811865476))


@jit(device=True)
def normcdfinvf(x):
    """The inverse of ``normcdff`` of a float32 (NaN outside [0, 1])."""
    return float32(-_SQRT2 * _erfcinv64(2.0 * float64(float32(x))))


@jit(device=True)
def expf(x):
    """``e ** x`` of a float32."""
    return math.exp(float32(x))


@jit(device=True)
def exp2f(x):
    """``2 ** x`` of a float32."""
    return _F2 ** float32(x)


@jit(device=True)
def exp10f(x):
    """``10 ** x`` of a float32."""
    return _F10 ** float32(x)


@jit(device=True)
def expm1f(x):
    """``e ** x - 1`` of a float32, accurate near 0."""
    return math.expm1(float32(x))


@jit(device=True)
def logf(x):
    """The natural logarithm of a float32."""
    return math.log(float32(x))


@jit(device=True)
def log2f(x):
    """The base-2 logarithm of a float32."""
    return math.log2(float32(x))


@jit(device=True)
def log10f(x):
    """The base-10 logarithm of a float32."""
    return math.log10(float32(x))


@jit(device=True)
def log1pf(x):
    """``log(1 + x)`` of a float32, accurate near 0."""
    return math.log1p(float32(x))


@jit(device=True)
def logbf(x):
    """The exponent of the float32 ``x`` as a float32: -inf for 0, inf for infinities."""
    return float32(_logb64(float64(float32(x))))


@jit(device=True)
def ilogbf(x):
    """The exponent of the float32 ``x`` as an int32: INT_MIN for 0 and NaN,
    INT_MAX for infinities."""
    return _ilogb64(float64(float32(x)))


@jit(device=True)
def frexpf(x):
    """``(m, e)``: a float32 and an int32 with ``x == m * 2**e`` and
    ``0.5 <= |m| < 1``; ``(x, 0)`` for 0, infinities and NaN."""
    m, e = _frexp64(float64(float32(x)))
    return float32(m), e


@jit(device=True)
def ldexpf(x, y):
    """``x * 2**y`` of a float32 ``x`` and an int32 ``y``, rounded once."""
    return _scalbn32(float32(x), int32(y))


@jit(device=True)
def scalbnf(x, y):
    """``x * 2**y`` of a float32 ``x`` and an int32 ``y``, rounded once."""
    return _scalbn32(float32(x), int32(y))


@jit(device=True)
def modff(x):
    """``(fraction, integral)`` parts of a float32, both with the sign of ``x``."""
    x = float32(x)
    t = math.trunc(x)
    if math.isinf(x):
        return math.copysign(_F0, x), x
    return math.copysign(x - t, x), t


@jit(device=True)
def fabsf(x):
    """``|x|`` of a float32."""
    return math.fabs(float32(x))


@jit(device=True)
def fdimf(x, y):
    """``x - y`` if ``x > y``, else +0 (float32; NaN if either is NaN)."""
    x = float32(x)
    y = float32(y)
    if x != x or y != y:
        return x + y
    return x - y if x > y else _F0


@jit(device=True)
def fmaxf(x, y):
    """The larger of two float32; a NaN gives way to the other value."""
    return _larger_not_nan(float32(x), float32(y))


@jit(device=True)
def fminf(x, y):
    """The smaller of two float32; a NaN gives way to the other value."""
    return _smaller_not_nan(float32(x), float32(y))


@jit(device=True)
def fmaf(x, y, z):
    """``x * y + z`` of float32 values, rounded once."""
    return _fma(float32(x), float32(y), float32(z))


@jit(device=True)
def fmaf_rn(x, y, z):
    """``x * y + z`` of float32 values, rounded once to nearest."""
    return _fma(float32(x), float32(y), float32(z))


@jit(device=True)
def fmodf(x, y):
    """The remainder of ``x / y`` rounded towards zero, with the sign of ``x`` (float32), exact."""
    return float32(_fmod64(float64(float32(x)), float64(float32(y))))


@jit(device=True)
def remainderf(x, y):
    """``x - n * y`` with ``n`` the nearest integer to ``x / y`` (halves to even), float32."""
    r, q = _remquo64(float64(float32(x)), float64(float32(y)))
    return float32(r)


@jit(device=True)
def remquof(x, y):
    """``(remainderf(x, y), q)``: q an int32 with the sign of ``x / y`` and the low 3
    bits of the rounded quotient (float32)."""
    r, q = _remquo64(float64(float32(x)), float64(float32(y)))
    return float32(r), q


@jit(device=True)
def hypotf(x, y):
    """``sqrt(x*x + y*y)`` of float32 values, without undue overflow."""
    return math.hypot(float32(x), float32(y))


@jit(device=True)
def nextafterf(x, y):
    """The float32 after ``x`` in the direction of ``y``."""
    return _nextafter32(float32(x), float32(y))


@jit(device=True)
def powf(x, y):
    """``x ** y`` of float32 values."""
    return math.pow(float32(x), float32(y))


@jit(device=True)
def powif(x, y):
    """``x ** y`` of a float32 ``x`` and an int32 ``y``."""
    return float32(x) ** int32(y)


@jit(device=True)
def sqrtf(x):
    """The square root of a float32."""
    return math.sqrt(float32(x))


@jit(device=True)
def rsqrtf(x):
    """``1 / sqrt(x)`` of a float32."""
    return _rsqrt32(float32(x))


@jit(device=True)
def saturatef(x):
    """The float32 ``x`` clamped to [0, 1]; NaN gives 0."""
    x = float32(x)
    if not (x > _F0):
        return _F0
    return _F1 if x > _F1 else x


@jit(device=True)
def lgammaf(x):
    """The natural logarithm of ``|gamma(x)|`` of a float32."""
    return math.lgamma(float32(x))


@jit(device=True)
def tgammaf(x):
    """The gamma function of a float32."""
    return math.gamma(float32(x))


# What the next modules of the package see (names starting with _ included).
__all__ = [name for name in list(globals()) if not name.startswith("__")]
