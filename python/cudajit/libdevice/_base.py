"""Constants and helpers of the libdevice functions (float64 and exact powers of two).

A private module: the package's modules import what they use from it by name."""

from __future__ import annotations

import builtins
import math

import numpy as np

from ..compiler import jit
from ..intrinsics import fma as _fma
from ..types import float32, float64, int32, int64

# Python's builtins, by other names: the package defines its own abs, max, min and round.
_babs = builtins.abs
_bmax = builtins.max
_bmin = builtins.min
_bround = builtins.round

_F0 = np.float32(0.0)
_F1 = np.float32(1.0)
_F2 = np.float32(2.0)
_F10 = np.float32(10.0)
_FHALF = np.float32(0.5)
_INT32_MIN = np.int32(-2147483648)
_INT32_MAX = np.int32(2147483647)
_MAX64 = 1.7976931348623157e308
_MAX32 = np.float32(3.4028234663852886e38)
_TINY64 = 5e-324                       # the smallest subnormal float64, 2**-1074
_TINY32 = np.float32(1.401298464324817e-45)  # the smallest subnormal float32, 2**-149
_SQRT2 = 1.4142135623730951
_TWO_OVER_SQRT_PI = 1.1283791670955126
_SQRT_PI_OVER_TWO = 0.886226925452758
_SQRT_PI = 1.7724538509055159


# --- helpers (float64 and exact powers of two) ---------------------------------------


@jit(device=True)
def _pow2(k):
    """2.0 ** k exactly, as float64, for -1074 <= k <= 1023 (by squaring)."""
    r = 1.0
    b = 2.0 if k >= 0 else 0.5
    n = _babs(int64(k))
    while n > 0:
        if n & 1:
            r *= b
        b *= b
        n >>= 1
    return r


@jit(device=True)
def _scalbn64(x, n):
    """x * 2**n rounded once (musl's scalbn)."""
    y = float64(x)
    n = int64(n)
    if n > 1023:
        y *= _pow2(1023)
        n -= 1023
        if n > 1023:
            y *= _pow2(1023)
            n -= 1023
            if n > 1023:
                n = 1023
    elif n < -1022:
        y *= _pow2(-969)               # 2**-1022 * 2**53: no double rounding below
        n += 969
        if n < -1022:
            y *= _pow2(-969)
            n += 969
            if n < -1022:
                n = -1022
    return y * _pow2(n)


@jit(device=True)
def _scalbn32(x, n):
    """x * 2**n rounded once to float32 (musl's scalbnf)."""
    y = float32(x)
    n = int64(n)
    if n > 127:
        y *= float32(_pow2(127))
        n -= 127
        if n > 127:
            y *= float32(_pow2(127))
            n -= 127
            if n > 127:
                n = 127
    elif n < -126:
        y *= float32(_pow2(-102))      # 2**-126 * 2**24
        n += 102
        if n < -126:
            y *= float32(_pow2(-102))
            n += 102
            if n < -126:
                n = -126
    return y * float32(_pow2(n))


@jit(device=True)
def _frexp64(x):
    """(m, e) with x == m * 2**e, 0.5 <= |m| < 1; (x, 0) for 0, inf and NaN."""
    if x == 0.0 or not math.isfinite(x):
        return x, int32(0)
    a = _babs(x)
    e = int64(0)
    if a < 2.2250738585072014e-308:   # subnormal: make it normal first
        a *= _pow2(54)
        e = int64(-54)
    k = int64(math.floor(math.log2(a)))
    a *= _pow2(-k)
    while a >= 2.0:
        a *= 0.5
        k += 1
    while a < 1.0:
        a *= 2.0
        k -= 1
    return math.copysign(a * 0.5, x), int32(e + k + 1)


@jit(device=True)
def _nextafter64(x, y):
    if x != x or y != y:
        return x + y
    if x == y:
        return y
    if x == 0.0:
        return math.copysign(_TINY64, y)
    if math.isinf(x):
        return math.copysign(_MAX64, x)
    m, e = _frexp64(x)
    step = _pow2(_bmax(int64(e) - 53, -1074))
    if (y > x) != (x > 0.0) and _babs(m) == 0.5:   # towards zero from a power of two
        step = _pow2(_bmax(int64(e) - 54, -1074))
    return x + step if y > x else x - step


@jit(device=True)
def _nextafter32(x, y):
    if x != x or y != y:
        return x + y
    if x == y:
        return y
    if x == _F0:
        return math.copysign(_TINY32, y)
    if math.isinf(x):
        return math.copysign(_MAX32, x)
    m, e = _frexp64(float64(x))
    step = float32(_pow2(_bmax(int64(e) - 24, -149)))
    if (y > x) != (x > _F0) and _babs(m) == 0.5:
        step = float32(_pow2(_bmax(int64(e) - 25, -149)))
    return x + step if y > x else x - step


@jit(device=True)
def _fmod64(x, y):
    """The exact remainder of x / y truncated, with x's sign: in chunks of 40
    quotient bits, each step exact (trunc, then an fma)."""
    if x != x or y != y or math.isinf(x) or y == 0.0:
        return math.nan
    a = _babs(x)
    b = _babs(y)
    if math.isinf(b) or a < b:
        return x
    while a >= b:
        ma, ea = _frexp64(a)
        mb, eb = _frexp64(b)
        k = int64(ea) - int64(eb) - 40
        t = _scalbn64(b, k) if k > 0 else b
        q = math.trunc(a / t)
        r = _fma(-q, t, a)
        if r < 0.0:
            r += t
        a = r
    return math.copysign(a, x)


@jit(device=True)
def _ilogb64(x):
    if x != x or x == 0.0:
        return _INT32_MIN
    if math.isinf(x):
        return _INT32_MAX
    m, e = _frexp64(x)
    return int32(e - 1)


@jit(device=True)
def _logb64(x):
    if x != x:
        return x
    if x == 0.0:
        return -math.inf
    if math.isinf(x):
        return math.inf
    m, e = _frexp64(x)
    return float64(e - 1)


@jit(device=True)
def _round_half_away(x):
    """x rounded to the nearest integer, halves away from zero."""
    t = math.trunc(x)
    if _babs(x - t) >= 0.5:
        t += math.copysign(1.0, x)
    return t


@jit(device=True)
def _round_half_away32(x):
    t = math.trunc(x)
    if _babs(x - t) >= _FHALF:
        t += math.copysign(_F1, x)
    return t


@jit(device=True)
def _remquo64(x, y):
    """IEEE remainder of x / y and the low 3 bits of the rounded quotient, signed."""
    if x != x or y != y or math.isinf(x) or y == 0.0:
        return math.nan, int32(0)
    if math.isinf(y):
        return x, int32(0)
    p = _babs(y)
    r = _babs(x)
    q = 0
    if p < 2.2470328229206232e307:   # 8p does not overflow: r mod 8p, exactly
        r = _fmod64(r, 8.0 * p)
    for k in (4, 2, 1):                # each subtraction is exact (Sterbenz)
        if r >= k * p:
            r -= k * p
            q += k
    if p < 4.450147717014403e-308:   # 2p is exact, p/2 may not be
        if r + r > p or (r + r == p and (q & 1) == 1):
            r -= p
            q += 1
    else:
        if r > 0.5 * p or (r == 0.5 * p and (q & 1) == 1):
            r -= p
            q += 1
    q &= 7
    rem = -r if x < 0.0 else r
    if (x < 0.0) != (y < 0.0):
        q = -q
    return rem, int32(q)


@jit(device=True)
def _sinpi64(x):
    if math.isinf(x):
        return math.nan
    r = _fmod64(x, 2.0)                # exact, in (-2, 2)
    if r > 1.0:
        r -= 2.0
    elif r < -1.0:
        r += 2.0
    if r > 0.5:
        r = 1.0 - r
    elif r < -0.5:
        r = -1.0 - r
    if r == 0.0:
        return math.copysign(0.0, x)
    return math.sin(math.pi * r)


@jit(device=True)
def _cospi64(x):
    if math.isinf(x):
        return math.nan
    a = _babs(_fmod64(x, 2.0))         # exact, in [0, 2)
    if a > 1.0:
        a = 2.0 - a
    if a < 0.25:
        return math.cos(math.pi * a)
    return _sinpi64(0.5 - a)           # 0.5 - a is exact here


@jit(device=True)
def _erfcx64(x):
    """exp(x*x) * erfc(x) without overflow for large x."""
    if x != x:
        return x
    if x < -26.7:
        return math.inf
    if x < 10.0:
        # x*x = hi + lo exactly (Veltkamp split). fma(.., 0.0): a product the GPU
        # compiler cannot fuse into the subtraction below (that would break the split).
        c = _fma(134217729.0, x, 0.0)
        xh = c - (c - x)
        xl = x - xh
        return math.exp(xh * xh) * math.exp((xh + xh) * xl + xl * xl) * math.erfc(x)
    # The asymptotic series: 1/(x sqrt(pi)) * sum (-1)**k (2k-1)!! / (2x**2)**k
    v = 0.5 / (x * x)
    term = 1.0
    total = 1.0
    for k in range(1, 14):
        term *= -(2 * k - 1) * v
        total += term
    return total / (x * _SQRT_PI)


@jit(device=True)
def _giles_erfinv(w):
    """Giles' float approximation of erfinv(t) / t, from w = -log((1-t)(1+t))."""
    if w < 5.0:
        w -= 2.5
        p = 2.81022636e-08
        p = 3.43273939e-07 + p * w
        p = -3.5233877e-06 + p * w
        p = -4.39150654e-06 + p * w
        p = 0.00021858087 + p * w
        p = -0.00125372503 + p * w
        p = -0.00417768164 + p * w
        p = 0.246640727 + p * w
        p = 1.50140941 + p * w
        return p
    w = math.sqrt(w) - 3.0
    p = -0.000200214257
    p = 0.000100950558 + p * w
    p = 0.00134934322 + p * w
    p = -0.00367342844 + p * w
    p = 0.00573950773 + p * w
    p = -0.0076224613 + p * w
    p = 0.00943887047 + p * w
    p = 1.00167406 + p * w
    p = 2.83297682 + p * w
    return p


@jit(device=True)
def _erfinv_central(t):
    """erfinv(t) for |t| <= 0.5: Giles' guess and two Newton steps on erf."""
    x = _giles_erfinv(-math.log((1.0 - t) * (1.0 + t))) * t
    for _ in range(2):
        x -= (math.erf(x) - t) / (_TWO_OVER_SQRT_PI * math.exp(-x * x))
    return x


@jit(device=True)
def _erfcinv_tail(y):
    """erfcinv(y) for 0 < y <= 0.5: Newton on log(erfc(x)) = log(y)."""
    log_y = math.log(y)
    if y >= 1e-7:
        x = _giles_erfinv(-math.log(y * (2.0 - y))) * (1.0 - y)
    else:                              # erfc(x) ~ exp(-x*x) / (x sqrt(pi))
        x = math.sqrt(-log_y)
        x = math.sqrt(-log_y - math.log(x * _SQRT_PI))
    for _ in range(6):
        ex = _erfcx64(x)
        dx = (math.log(ex) - x * x - log_y) * _SQRT_PI_OVER_TWO * ex
        x += dx
        if _babs(dx) <= 1e-17 * x:
            break
    return x


@jit(device=True)
def _erfinv64(y):
    if y != y or y > 1.0 or y < -1.0:
        return math.nan
    if y == 1.0 or y == -1.0:
        return math.copysign(math.inf, y)
    if _babs(y) <= 0.5:
        return _erfinv_central(y)
    return math.copysign(_erfcinv_tail(1.0 - _babs(y)), y)   # 1 - |y| is exact


@jit(device=True)
def _erfcinv64(y):
    if y != y or y < 0.0 or y > 2.0:
        return math.nan
    if y == 0.0:
        return math.inf
    if y == 2.0:
        return -math.inf
    if y >= 0.5 and y <= 1.5:
        return _erfinv_central(1.0 - y)                   # exact
    if y > 1.5:
        return -_erfcinv_tail(2.0 - y)                    # exact
    return _erfcinv_tail(y)


@jit(device=True)
def _rsqrt32(x):
    """1 / sqrt(x) rounded once to float32: the float64 guess, then corrected
    against the exact midpoints to its neighbours (m*m*x - 1 has the exact sign)."""
    y = float32(1.0 / math.sqrt(float64(x)))
    if not (x > _F0) or math.isinf(x):
        return y
    up = _nextafter32(y, _MAX32)
    mid = (float64(y) + float64(up)) * 0.5
    if _fma(mid * mid, float64(x), -1.0) < 0.0:
        return up
    down = _nextafter32(y, _F0)
    mid = (float64(y) + float64(down)) * 0.5
    if _fma(mid * mid, float64(x), -1.0) > 0.0:
        return down
    return y


# fmax/fmin (float32, float64) and fp16's hmax/hmin: a device function is specialised per
# argument types, so one pair serves every float type.
@jit(device=True)
def _larger_not_nan(x, y):
    """The larger of x and y (one float type); a NaN gives way to the other value."""
    if x != x:
        return y
    if y != y:
        return x
    return x if x > y else y


@jit(device=True)
def _smaller_not_nan(x, y):
    """The smaller of x and y (one float type); a NaN gives way to the other value."""
    if x != x:
        return y
    if y != y:
        return x
    return x if x < y else y


__all__: list[str] = []  # nothing for `import *`: its helpers are imported by name
