"""libdevice's float32 math functions."""

from __future__ import annotations

import math

from ..compiler import jit
from ..intrinsics import cbrt as _cbrt  # noqa: F401  (_cbrt, _fma and most helpers: the table's)
from ..intrinsics import fma as _fma  # noqa: F401
from ..types import float32, float64, int32, int64  # noqa: F401
from ._base import (_F0, _F1, _F2, _F10, _SQRT2, _bround, _cospi64,  # noqa: F401
                    _erfcinv64, _erfcx64, _erfinv64, _fmod64, _frexp64, _ilogb64,
                    _larger_not_nan, _logb64, _nextafter32, _remquo64, _round_half_away32,
                    _rsqrt32, _scalbn32, _sinpi64, _smaller_not_nan)
from ._table import define, rows

# The functions of one expression, generated (see _table.py): the type each argument is
# converted to, then (name, expression of the converted arguments, docstring).
_TABLE = [
    *rows("x: float32",
          ("acosf", "math.acos(x)", "The arc cosine of a float32."),
          ("acoshf", "math.acosh(x)", "The inverse hyperbolic cosine of a float32."),
          ("asinf", "math.asin(x)", "The arc sine of a float32."),
          ("asinhf", "math.asinh(x)", "The inverse hyperbolic sine of a float32."),
          ("atanf", "math.atan(x)", "The arc tangent of a float32."),
          ("atanhf", "math.atanh(x)", "The inverse hyperbolic tangent of a float32."),
          ("cbrtf", "_cbrt(x)", "The cube root of a float32."),
          ("rcbrtf", "float32(1.0 / _cbrt(float64(x)))", "``1 / cbrt(x)`` of a float32."),
          ("ceilf", "math.ceil(x)",
           "The smallest integer value not less than the float32 ``x``, as float32."),
          ("floorf", "math.floor(x)",
           "The largest integer value not greater than the float32 ``x``, as float32."),
          ("truncf", "math.trunc(x)", "The float32 ``x`` rounded towards zero, as float32."),
          ("roundf", "_round_half_away32(x)",
           "The float32 ``x`` rounded to the nearest integer, halves away from zero, as float32."),
          ("rintf", "_bround(x, 0)",
           "The float32 ``x`` rounded to the nearest integer, halves to even, as float32."),
          ("nearbyintf", "_bround(x, 0)",
           "The float32 ``x`` rounded to the nearest integer, halves to even, as float32."),
          ("llrintf", "int64(_bround(x, 0))",
           "The float32 ``x`` rounded to the nearest integer, halves to even, as int64 "
           "(saturated; NaN gives 0)."),
          ("llroundf", "int64(_round_half_away32(x))",
           "The float32 ``x`` rounded to the nearest integer, halves away from zero, as int64 "
           "(saturated; NaN gives 0)."),
          ("cosf", "math.cos(x)", "The cosine of a float32."),
          ("coshf", "math.cosh(x)", "The hyperbolic cosine of a float32."),
          ("cospif", "float32(_cospi64(float64(x)))", "``cos(pi * x)`` of a float32."),
          ("sinf", "math.sin(x)", "The sine of a float32."),
          ("sinhf", "math.sinh(x)", "The hyperbolic sine of a float32."),
          ("sinpif", "float32(_sinpi64(float64(x)))", "``sin(pi * x)`` of a float32."),
          ("tanf", "math.tan(x)", "The tangent of a float32."),
          ("tanhf", "math.tanh(x)", "The hyperbolic tangent of a float32."),
          ("erff", "math.erf(x)", "The error function of a float32."),
          ("erfcf", "math.erfc(x)", "The complementary error function of a float32."),
          ("erfcxf", "float32(_erfcx64(float64(x)))",
           "The scaled complementary error function ``exp(x*x) * erfc(x)`` of a float32."),
          ("erfinvf", "float32(_erfinv64(float64(x)))",
           "The inverse error function of a float32 (NaN outside [-1, 1])."),
          ("erfcinvf", "float32(_erfcinv64(float64(x)))",
           "The inverse complementary error function of a float32 (NaN outside [0, 2])."),
          ("normcdff", "float32(0.5 * math.erfc(float64(x) * -0.7071067811865476))",
           "The standard normal cumulative distribution function of a float32."),
          ("normcdfinvf", "float32(-_SQRT2 * _erfcinv64(2.0 * float64(x)))",
           "The inverse of ``normcdff`` of a float32 (NaN outside [0, 1])."),
          ("expf", "math.exp(x)", "``e ** x`` of a float32."),
          ("exp2f", "_F2 ** x", "``2 ** x`` of a float32."),
          ("exp10f", "_F10 ** x", "``10 ** x`` of a float32."),
          ("expm1f", "math.expm1(x)", "``e ** x - 1`` of a float32, accurate near 0."),
          ("logf", "math.log(x)", "The natural logarithm of a float32."),
          ("log2f", "math.log2(x)", "The base-2 logarithm of a float32."),
          ("log10f", "math.log10(x)", "The base-10 logarithm of a float32."),
          ("log1pf", "math.log1p(x)", "``log(1 + x)`` of a float32, accurate near 0."),
          ("logbf", "float32(_logb64(float64(x)))",
           "The exponent of the float32 ``x`` as a float32: -inf for 0, inf for infinities."),
          ("ilogbf", "_ilogb64(float64(x))",
           "The exponent of the float32 ``x`` as an int32: INT_MIN for 0 and NaN, INT_MAX for "
           "infinities."),
          ("fabsf", "math.fabs(x)", "``|x|`` of a float32."),
          ("sqrtf", "math.sqrt(x)", "The square root of a float32."),
          ("rsqrtf", "_rsqrt32(x)", "``1 / sqrt(x)`` of a float32."),
          ("lgammaf", "math.lgamma(x)", "The natural logarithm of ``|gamma(x)|`` of a float32."),
          ("tgammaf", "math.gamma(x)", "The gamma function of a float32.")),
    *rows("x: float32, y: float32",
          ("atan2f", "math.atan2(x, y)",
           "The arc tangent of ``x / y`` in the quadrant of (y, x), float32 (C's atan2f(y, x))."),
          ("copysignf", "math.copysign(x, y)",
           "The magnitude of ``x`` with the sign of ``y`` (float32)."),
          ("fmaxf", "_larger_not_nan(x, y)",
           "The larger of two float32; a NaN gives way to the other value."),
          ("fminf", "_smaller_not_nan(x, y)",
           "The smaller of two float32; a NaN gives way to the other value."),
          ("fmodf", "float32(_fmod64(float64(x), float64(y)))",
           "The remainder of ``x / y`` rounded towards zero, with the sign of ``x`` (float32), "
           "exact."),
          ("hypotf", "math.hypot(x, y)",
           "``sqrt(x*x + y*y)`` of float32 values, without undue overflow."),
          ("nextafterf", "_nextafter32(x, y)",
           "The float32 after ``x`` in the direction of ``y``."),
          ("powf", "math.pow(x, y)", "``x ** y`` of float32 values.")),
    *rows("x: float32, y: int32",
          ("ldexpf", "_scalbn32(x, y)",
           "``x * 2**y`` of a float32 ``x`` and an int32 ``y``, rounded once."),
          ("scalbnf", "_scalbn32(x, y)",
           "``x * 2**y`` of a float32 ``x`` and an int32 ``y``, rounded once."),
          ("powif", "x ** y", "``x ** y`` of a float32 ``x`` and an int32 ``y``.")),
    *rows("x: float32, y: float32, z: float32",
          ("fmaf", "_fma(x, y, z)", "``x * y + z`` of float32 values, rounded once."),
          ("fmaf_rn", "_fma(x, y, z)", "``x * y + z`` of float32 values, rounded once to nearest."),
    ),
]


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
def frexpf(x):
    """``(m, e)``: a float32 and an int32 with ``x == m * 2**e`` and
    ``0.5 <= |m| < 1``; ``(x, 0)`` for 0, infinities and NaN."""
    m, e = _frexp64(float64(float32(x)))
    return float32(m), e


@jit(device=True)
def modff(x):
    """``(fraction, integral)`` parts of a float32, both with the sign of ``x``."""
    x = float32(x)
    t = math.trunc(x)
    if math.isinf(x):
        return math.copysign(_F0, x), x
    return math.copysign(x - t, x), t


@jit(device=True)
def fdimf(x, y):
    """``x - y`` if ``x > y``, else +0 (float32; NaN if either is NaN)."""
    x = float32(x)
    y = float32(y)
    if x != x or y != y:
        return x + y
    return x - y if x > y else _F0


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
def saturatef(x):
    """The float32 ``x`` clamped to [0, 1]; NaN gives 0."""
    x = float32(x)
    if not (x > _F0):
        return _F0
    return _F1 if x > _F1 else x


__all__ = [*define(globals(), _TABLE),
           "sincosf", "sincospif", "frexpf", "modff", "fdimf", "remainderf", "remquof", "saturatef"]
