"""libdevice's float64 math functions."""

from __future__ import annotations

import math

from ..compiler import jit
from ..intrinsics import cbrt as _cbrt  # noqa: F401  (_cbrt, _fma and most helpers: the table's)
from ..intrinsics import fma as _fma  # noqa: F401
from ..types import float64, int32, int64  # noqa: F401
from ._base import (_SQRT2, _bround, _cospi64, _erfcinv64, _erfcx64,  # noqa: F401
                    _erfinv64, _fmod64, _frexp64, _ilogb64, _larger_not_nan, _logb64,
                    _nextafter64, _remquo64, _round_half_away, _scalbn64, _sinpi64,
                    _smaller_not_nan)
from ._table import define, rows

# The functions of one expression, generated (see _table.py): the type each argument is
# converted to, then (name, expression of the converted arguments, docstring).
_TABLE = [
    *rows("x: float64",
          ("acos", "math.acos(x)", "The arc cosine of a float64."),
          ("acosh", "math.acosh(x)", "The inverse hyperbolic cosine of a float64."),
          ("asin", "math.asin(x)", "The arc sine of a float64."),
          ("asinh", "math.asinh(x)", "The inverse hyperbolic sine of a float64."),
          ("atan", "math.atan(x)", "The arc tangent of a float64."),
          ("atanh", "math.atanh(x)", "The inverse hyperbolic tangent of a float64."),
          ("cbrt", "_cbrt(x)", "The cube root of a float64."),
          ("rcbrt", "1.0 / _cbrt(x)", "``1 / cbrt(x)`` of a float64."),
          ("ceil", "math.ceil(x)",
           "The smallest integer value not less than the float64 ``x``, as float64."),
          ("floor", "math.floor(x)",
           "The largest integer value not greater than the float64 ``x``, as float64."),
          ("trunc", "math.trunc(x)", "The float64 ``x`` rounded towards zero, as float64."),
          ("round", "_round_half_away(x)",
           "The float64 ``x`` rounded to the nearest integer, halves away from zero, as float64."),
          ("rint", "_bround(x, 0)",
           "The float64 ``x`` rounded to the nearest integer, halves to even, as float64."),
          ("nearbyint", "_bround(x, 0)",
           "The float64 ``x`` rounded to the nearest integer, halves to even, as float64."),
          ("llrint", "int64(_bround(x, 0))",
           "The float64 ``x`` rounded to the nearest integer, halves to even, as int64 "
           "(saturated; NaN gives 0)."),
          ("llround", "int64(_round_half_away(x))",
           "The float64 ``x`` rounded to the nearest integer, halves away from zero, as int64 "
           "(saturated; NaN gives 0)."),
          ("cos", "math.cos(x)", "The cosine of a float64."),
          ("cosh", "math.cosh(x)", "The hyperbolic cosine of a float64."),
          ("cospi", "_cospi64(x)",
           "``cos(pi * x)`` of a float64, with ``x`` reduced exactly first."),
          ("sin", "math.sin(x)", "The sine of a float64."),
          ("sinh", "math.sinh(x)", "The hyperbolic sine of a float64."),
          ("sinpi", "_sinpi64(x)",
           "``sin(pi * x)`` of a float64, with ``x`` reduced exactly first."),
          ("tan", "math.tan(x)", "The tangent of a float64."),
          ("tanh", "math.tanh(x)", "The hyperbolic tangent of a float64."),
          ("erf", "math.erf(x)", "The error function of a float64."),
          ("erfc", "math.erfc(x)", "The complementary error function ``1 - erf(x)`` of a float64."),
          ("erfcx", "_erfcx64(x)",
           "The scaled complementary error function ``exp(x*x) * erfc(x)`` of a float64."),
          ("erfinv", "_erfinv64(x)",
           "The inverse error function of a float64 (NaN outside [-1, 1])."),
          ("erfcinv", "_erfcinv64(x)",
           "The inverse complementary error function of a float64 (NaN outside [0, 2])."),
          ("normcdf", "0.5 * math.erfc(x * -0.7071067811865476)",
           "The standard normal cumulative distribution function of a float64."),
          ("normcdfinv", "-_SQRT2 * _erfcinv64(2.0 * x)",
           "The inverse of ``normcdf`` of a float64 (NaN outside [0, 1])."),
          ("exp", "math.exp(x)", "``e ** x`` of a float64."),
          ("exp2", "2.0 ** x", "``2 ** x`` of a float64."),
          ("exp10", "10.0 ** x", "``10 ** x`` of a float64."),
          ("expm1", "math.expm1(x)", "``e ** x - 1`` of a float64, accurate near 0."),
          ("log", "math.log(x)", "The natural logarithm of a float64."),
          ("log2", "math.log2(x)", "The base-2 logarithm of a float64."),
          ("log10", "math.log10(x)", "The base-10 logarithm of a float64."),
          ("log1p", "math.log1p(x)", "``log(1 + x)`` of a float64, accurate near 0."),
          ("logb", "_logb64(x)",
           "The exponent of the float64 ``x`` as a float64 (``floor(log2(|x|))``): -inf for 0, "
           "inf for infinities."),
          ("ilogb", "_ilogb64(x)",
           "The exponent of the float64 ``x`` as an int32: INT_MIN for 0 and NaN, INT_MAX for "
           "infinities."),
          ("frexp", "_frexp64(x)",
           "``(m, e)``: a float64 and an int32 with ``x == m * 2**e`` and ``0.5 <= |m| < 1``; "
           "``(x, 0)`` for 0, infinities and NaN."),
          ("fabs", "math.fabs(x)", "``|x|`` of a float64."),
          ("sqrt", "math.sqrt(x)", "The square root of a float64."),
          ("rsqrt", "1.0 / math.sqrt(x)", "``1 / sqrt(x)`` of a float64."),
          ("lgamma", "math.lgamma(x)", "The natural logarithm of ``|gamma(x)|`` of a float64."),
          ("tgamma", "math.gamma(x)", "The gamma function of a float64.")),
    *rows("x: float64, y: float64",
          ("atan2", "math.atan2(x, y)",
           "The arc tangent of ``x / y`` in the quadrant of (y, x): libdevice's argument order is "
           "C's ``atan2(y, x)`` with the first argument named x."),
          ("copysign", "math.copysign(x, y)",
           "The magnitude of ``x`` with the sign of ``y`` (float64)."),
          ("fmax", "_larger_not_nan(x, y)",
           "The larger of two float64; a NaN gives way to the other value."),
          ("fmin", "_smaller_not_nan(x, y)",
           "The smaller of two float64; a NaN gives way to the other value."),
          ("fmod", "_fmod64(x, y)",
           "The remainder of ``x / y`` rounded towards zero, with the sign of ``x`` (float64), "
           "exact."),
          ("remquo", "_remquo64(x, y)",
           "``(remainder(x, y), q)``: q an int32 with the sign of ``x / y`` and the low 3 bits of "
           "the rounded quotient (float64)."),
          ("hypot", "math.hypot(x, y)",
           "``sqrt(x*x + y*y)`` of float64 values, without undue overflow."),
          ("nextafter", "_nextafter64(x, y)", "The float64 after ``x`` in the direction of ``y``."),
          ("pow", "math.pow(x, y)", "``x ** y`` of float64 values.")),
    *rows("x: float64, y: int32",
          ("ldexp", "_scalbn64(x, y)",
           "``x * 2**y`` of a float64 ``x`` and an int32 ``y``, rounded once."),
          ("scalbn", "_scalbn64(x, y)",
           "``x * 2**y`` of a float64 ``x`` and an int32 ``y``, rounded once."),
          ("powi", "x ** y", "``x ** y`` of a float64 ``x`` and an int32 ``y``.")),
    *rows("x: float64, y: float64, z: float64",
          ("fma", "_fma(x, y, z)", "``x * y + z`` of float64 values, rounded once."),
          ("fma_rn", "_fma(x, y, z)", "``x * y + z`` of float64 values, rounded once to nearest.")),
]


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
def modf(x):
    """``(fraction, integral)`` parts of a float64, both with the sign of ``x``."""
    x = float64(x)
    t = math.trunc(x)
    if math.isinf(x):
        return math.copysign(0.0, x), x
    return math.copysign(x - t, x), t


@jit(device=True)
def fdim(x, y):
    """``x - y`` if ``x > y``, else +0 (float64; NaN if either is NaN)."""
    x = float64(x)
    y = float64(y)
    if x != x or y != y:
        return x + y
    return x - y if x > y else 0.0


@jit(device=True)
def remainder(x, y):
    """``x - n * y`` with ``n`` the nearest integer to ``x / y`` (halves to even), float64."""
    r, q = _remquo64(float64(x), float64(y))
    return r


__all__ = [*define(globals(), _TABLE), "sincos", "sincospi", "modf", "fdim", "remainder"]
