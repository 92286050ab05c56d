"""The cmath module in kernels: device functions that the front end calls for cmath.sqrt,
cmath.exp ..., registered with it (frontend.register_complex_math) when cudajit imports this
module. Results agree with CPython's cmath, special values included, as Numba's do:

- finite arguments use the algorithms of C99 Annex G as CPython arranges them (scaling
  near overflow, log1p near |z| = 1, the square-root forms of the inverse functions), in
  float64, rounded once to the argument's precision (complex64 in, complex64 out);
- an infinite or NaN part looks its result up in a 7 x 7 table (by the class of each part:
  -inf, negative, -0, +0, positive, +inf, nan) that this module builds from CPython's own
  cmath when it is imported; where C99 makes the result depend on the finite part's value
  (exp, cosh, sinh, tanh and rect of an infinite part), the code computes it.

Where CPython raises ValueError a kernel cannot: it returns C99's value for log(0) and
atanh(+-1), and NaNs for the infinite arguments CPython refuses (a NaN cell of a table).
"""

from __future__ import annotations

import cmath as _cmath
import math

import numpy as np

from .compiler import jit
from .frontend import register_complex_math
from .intrinsics import like as _like

__all__ = ["BY_ARITY", "IMPLEMENTATIONS"]

_DBL_MAX = 1.7976931348623157e308
_DBL_MIN = 2.2250738585072014e-308
_LARGE = _DBL_MAX / 4.0
_SQRT_LARGE = math.sqrt(_LARGE)
_LOG_LARGE = math.log(_LARGE)
_SQRT_DBL_MIN = math.sqrt(_DBL_MIN)
_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_E = math.e
_PI = math.pi
_SCALE_UP = 2.0**54  # subnormal parts are scaled into the normal range first
_SCALE_DOWN = 2.0**27


# --- special values ---------------------------------------------------------------

_CLASS_VALUES = (-math.inf, -2.5, -0.0, 0.0, 2.5, math.inf, math.nan)


def _table(function) -> np.ndarray:
    """CPython's result of `function` for each class of real and imaginary part."""
    table = np.full((7, 7, 2), np.nan)
    for i, x in enumerate(_CLASS_VALUES):
        for j, y in enumerate(_CLASS_VALUES):
            try:
                w = complex(function(complex(x, y)))
            except (ValueError, OverflowError):
                continue  # a domain error in CPython: NaN here
            table[i, j] = (w.real, w.imag)
    return table


@jit(device=True)
def _klass(v):
    if v != v:
        return 6
    if v == math.inf:
        return 5
    if v == -math.inf:
        return 0
    if v == 0.0:
        return 2 if math.copysign(1.0, v) < 0.0 else 3
    return 1 if v < 0.0 else 4


@jit(device=True)
def _finite(x, y):
    return math.isfinite(x) and math.isfinite(y)


@jit(device=True)
def _special(table, x, y):
    """CPython's result for parts of the classes of x and y (a table above)."""
    i = _klass(x)
    j = _klass(y)
    return table[i, j, 0], table[i, j, 1]


# --- square root, exponential, logarithm --------------------------------------------

_SQRT = _table(_cmath.sqrt)


@jit(device=True)
def _sqrt(x, y):
    if not _finite(x, y):
        return _special(_SQRT, x, y)
    if x == 0.0 and y == 0.0:
        return 0.0, y
    ax = abs(x)
    ay = abs(y)
    if ax < _DBL_MIN and ay < _DBL_MIN:
        # Subnormal parts: scaled by 2**54 into the normal range; the root by 2**27 back.
        ax = ax * _SCALE_UP / 8.0
        ay = ay * _SCALE_UP / 8.0
        s = 2.0 * math.sqrt(ax + math.hypot(ax, ay)) / _SCALE_DOWN
    else:
        ax = ax / 8.0
        s = 2.0 * math.sqrt(ax + math.hypot(ax, ay / 8.0))
    d = abs(y) / (2.0 * s)
    if x >= 0.0:
        return s, math.copysign(d, y)
    return d, math.copysign(s, y)


_EXP = _table(_cmath.exp)


@jit(device=True)
def _exp(x, y):
    if not _finite(x, y):
        if math.isinf(x) and math.isfinite(y) and y != 0.0:
            if x > 0.0:
                return math.copysign(math.inf, math.cos(y)), math.copysign(math.inf, math.sin(y))
            return math.copysign(0.0, math.cos(y)), math.copysign(0.0, math.sin(y))
        return _special(_EXP, x, y)
    if y == 0.0:
        return math.exp(x), y
    if x > _LOG_LARGE:
        scale = math.exp(x - 1.0)
        return math.cos(y) * scale * _E, math.sin(y) * scale * _E
    scale = math.exp(x)
    return math.cos(y) * scale, math.sin(y) * scale


_LOG = _table(_cmath.log)


@jit(device=True)
def _log(x, y):
    if not _finite(x, y):
        return _special(_LOG, x, y)
    ax = abs(x)
    ay = abs(y)
    if ax > _LARGE or ay > _LARGE:
        real = math.log(math.hypot(ax / 2.0, ay / 2.0)) + _LN2
    elif ax < _DBL_MIN and ay < _DBL_MIN:
        if ax > 0.0 or ay > 0.0:
            real = math.log(math.hypot(ax * _SCALE_UP, ay * _SCALE_UP)) - 54.0 * _LN2
        else:
            real = -math.inf  # log(0): CPython's domain error
    else:
        h = math.hypot(ax, ay)
        if 0.71 <= h <= 1.73:
            big = max(ax, ay)
            small = min(ax, ay)
            real = math.log1p((big - 1.0) * (big + 1.0) + small * small) / 2.0
        else:
            real = math.log(h)
    return real, math.atan2(y, x)


# --- hyperbolic functions (and through them the circular ones) -----------------------

_COSH = _table(_cmath.cosh)
_SINH = _table(_cmath.sinh)
_TANH = _table(_cmath.tanh)


@jit(device=True)
def _cosh(x, y):
    if not _finite(x, y):
        if math.isinf(x) and math.isfinite(y) and y != 0.0:
            return (math.copysign(math.inf, math.cos(y)),
                    math.copysign(math.inf, math.sin(y) * x))
        return _special(_COSH, x, y)
    if abs(x) > _LOG_LARGE:
        shifted = x - math.copysign(1.0, x)
        return (math.cos(y) * math.cosh(shifted) * _E, math.sin(y) * math.sinh(shifted) * _E)
    return math.cos(y) * math.cosh(x), math.sin(y) * math.sinh(x)


@jit(device=True)
def _sinh(x, y):
    if not _finite(x, y):
        if math.isinf(x) and math.isfinite(y) and y != 0.0:
            return (math.copysign(math.inf, math.cos(y) * x),
                    math.copysign(math.inf, math.sin(y)))
        return _special(_SINH, x, y)
    if abs(x) > _LOG_LARGE:
        shifted = x - math.copysign(1.0, x)
        return (math.cos(y) * math.sinh(shifted) * _E, math.sin(y) * math.cosh(shifted) * _E)
    return math.cos(y) * math.sinh(x), math.sin(y) * math.cosh(x)


@jit(device=True)
def _tanh(x, y):
    if not _finite(x, y):
        if math.isinf(x) and math.isfinite(y):
            return math.copysign(1.0, x), math.copysign(0.0, 2.0 * math.sin(y) * math.cos(y))
        return _special(_TANH, x, y)
    if abs(x) > _LOG_LARGE:
        return (math.copysign(1.0, x),
                4.0 * math.sin(y) * math.cos(y) * math.exp(-2.0 * abs(x)))
    tx = math.tanh(x)
    ty = math.tan(y)
    cx = 1.0 / math.cosh(x)
    txty = tx * ty
    denominator = 1.0 + txty * txty
    return tx * (1.0 + ty * ty) / denominator, ((ty / denominator) * cx) * cx


# --- inverse functions -----------------------------------------------------------------

_ACOS = _table(_cmath.acos)
_ACOSH = _table(_cmath.acosh)
_ASINH = _table(_cmath.asinh)
_ATANH = _table(_cmath.atanh)


@jit(device=True)
def _acos(x, y):
    if not _finite(x, y):
        return _special(_ACOS, x, y)
    if abs(x) > _LARGE or abs(y) > _LARGE:
        real = math.atan2(abs(y), x)
        magnitude = math.log(math.hypot(x / 2.0, y / 2.0)) + 2.0 * _LN2
        if x < 0.0:
            return real, -math.copysign(magnitude, y)
        return real, math.copysign(magnitude, -y)
    s1r, s1i = _sqrt(1.0 - x, -y)
    s2r, s2i = _sqrt(1.0 + x, y)
    return 2.0 * math.atan2(s1r, s2r), math.asinh(s2r * s1i - s2i * s1r)


@jit(device=True)
def _acosh(x, y):
    if not _finite(x, y):
        return _special(_ACOSH, x, y)
    if abs(x) > _LARGE or abs(y) > _LARGE:
        return math.log(math.hypot(x / 2.0, y / 2.0)) + 2.0 * _LN2, math.atan2(y, x)
    s1r, s1i = _sqrt(x - 1.0, y)
    s2r, s2i = _sqrt(x + 1.0, y)
    return math.asinh(s1r * s2r + s1i * s2i), 2.0 * math.atan2(s1i, s2r)


@jit(device=True)
def _asinh(x, y):
    if not _finite(x, y):
        return _special(_ASINH, x, y)
    if abs(x) > _LARGE or abs(y) > _LARGE:
        magnitude = math.log(math.hypot(x / 2.0, y / 2.0)) + 2.0 * _LN2
        if y >= 0.0:
            real = math.copysign(magnitude, x)
        else:
            real = -math.copysign(magnitude, -x)
        return real, math.atan2(y, abs(x))
    s1r, s1i = _sqrt(1.0 + y, -x)
    s2r, s2i = _sqrt(1.0 - y, x)
    return (math.asinh(s1r * s2i - s2r * s1i), math.atan2(y, s1r * s2r - s1i * s2i))


@jit(device=True)
def _atanh_nonnegative(x, y):
    # x >= 0 (atanh is odd: the caller reflects).
    ay = abs(y)
    if x > _SQRT_LARGE or ay > _SQRT_LARGE:
        h = math.hypot(x / 2.0, y / 2.0)
        return x / 4.0 / h / h, -math.copysign(_PI / 2.0, -y)
    if x == 1.0 and ay < _SQRT_DBL_MIN:
        if ay == 0.0:
            return math.inf, y  # CPython's domain error
        return (-math.log(math.sqrt(ay) / math.sqrt(math.hypot(ay, 2.0))),
                math.copysign(math.atan2(2.0, -ay) / 2.0, y))
    return (math.log1p(4.0 * x / ((1.0 - x) * (1.0 - x) + ay * ay)) / 4.0,
            -math.atan2(-2.0 * y, (1.0 - x) * (1.0 + x) - ay * ay) / 2.0)


@jit(device=True)
def _atanh(x, y):
    if not _finite(x, y):
        return _special(_ATANH, x, y)
    if x < 0.0:
        re, im = _atanh_nonnegative(-x, -y)
        return -re, -im
    return _atanh_nonnegative(x, y)


_RECT = np.full((7, 7, 2), np.nan)
for _i, _r in enumerate(_CLASS_VALUES):
    for _j, _phi in enumerate(_CLASS_VALUES):
        try:
            _w = _cmath.rect(_r, _phi)
            _RECT[_i, _j] = (_w.real, _w.imag)
        except (ValueError, OverflowError):
            pass


@jit(device=True)
def _rect(r, phi):
    if not _finite(r, phi):
        if math.isinf(r) and math.isfinite(phi) and phi != 0.0:
            if r > 0.0:
                return (math.copysign(math.inf, math.cos(phi)),
                        math.copysign(math.inf, math.sin(phi)))
            return (-math.copysign(math.inf, math.cos(phi)),
                    -math.copysign(math.inf, math.sin(phi)))
        return _special(_RECT, r, phi)
    if phi == 0.0:
        return r, r * phi
    return r * math.cos(phi), r * math.sin(phi)


# --- the cmath functions ----------------------------------------------------------------
# Each applies one of the float64 functions above to the parts of z (or of iz, for the
# circular functions: sin(z) = -i sinh(iz), cos(z) = cosh(iz), tan(z) = -i tanh(iz),
# asin(z) = -i asinh(iz), atan(z) = -i atanh(iz)), in z's precision.


@jit(device=True)
def _of(parts, z):
    re, im = parts(np.float64(z.real), np.float64(z.imag))
    return _like.complex(z, re, im)


@jit(device=True)
def _of_iz(parts, z):
    re, im = parts(-np.float64(z.imag), np.float64(z.real))
    return _like.complex(z, re, im)


@jit(device=True)
def _minus_i_of_iz(parts, z):
    re, im = parts(-np.float64(z.imag), np.float64(z.real))
    return _like.complex(z, im, -re)


@jit(device=True)
def sqrt(z):
    return _of(_sqrt, z)


@jit(device=True)
def exp(z):
    return _of(_exp, z)


@jit(device=True)
def log(z):
    return _of(_log, z)


@jit(device=True)
def log_base(z, base):  # cmath.log(z, base), as CPython computes it
    return log(z) / log(_like.complex(z, np.float64(base.real), np.float64(base.imag)))


@jit(device=True)
def log10(z):  # divided in float64, rounded once
    re, im = _log(np.float64(z.real), np.float64(z.imag))
    return _like.complex(z, re / _LN10, im / _LN10)


@jit(device=True)
def log2(z):  # not in cmath: NumPy's log2 of a complex number, as log10
    re, im = _log(np.float64(z.real), np.float64(z.imag))
    return _like.complex(z, re / _LN2, im / _LN2)


@jit(device=True)
def cosh(z):
    return _of(_cosh, z)


@jit(device=True)
def sinh(z):
    return _of(_sinh, z)


@jit(device=True)
def tanh(z):
    return _of(_tanh, z)


@jit(device=True)
def acos(z):
    return _of(_acos, z)


@jit(device=True)
def acosh(z):
    return _of(_acosh, z)


@jit(device=True)
def asinh(z):
    return _of(_asinh, z)


@jit(device=True)
def atanh(z):
    return _of(_atanh, z)


@jit(device=True)
def cos(z):
    return _of_iz(_cosh, z)


@jit(device=True)
def sin(z):
    return _minus_i_of_iz(_sinh, z)


@jit(device=True)
def tan(z):
    return _minus_i_of_iz(_tanh, z)


@jit(device=True)
def asin(z):
    return _minus_i_of_iz(_asinh, z)


@jit(device=True)
def atan(z):
    return _minus_i_of_iz(_atanh, z)


@jit(device=True)
def phase(z):
    return _like.real(z, math.atan2(np.float64(z.imag), np.float64(z.real)))


@jit(device=True)
def polar(z):
    x = np.float64(z.real)
    y = np.float64(z.imag)
    return _like.real(z, math.hypot(x, y)), _like.real(z, math.atan2(y, x))


@jit(device=True)
def rect(r, phi):
    re, im = _rect(np.float64(r), np.float64(phi))
    return _like.complex(r * phi, re, im)


@jit(device=True)
def isnan(z):
    return math.isnan(z.real) or math.isnan(z.imag)


@jit(device=True)
def isinf(z):
    return math.isinf(z.real) or math.isinf(z.imag)


@jit(device=True)
def isfinite(z):
    return math.isfinite(z.real) and math.isfinite(z.imag)


IMPLEMENTATIONS = {name: globals()[name] for name in (
    "sqrt", "exp", "log", "log10", "cosh", "sinh", "tanh", "cos", "sin", "tan", "acos",
    "acosh", "asinh", "asin", "atanh", "atan", "phase", "polar", "rect", "isnan", "isinf",
    "isfinite", "log2")}

# cmath functions whose calls with more arguments take another implementation.
BY_ARITY = {"log": {2: log_base}}

for _name, _function in IMPLEMENTATIONS.items():
    register_complex_math(_name, _function, BY_ARITY.get(_name))
