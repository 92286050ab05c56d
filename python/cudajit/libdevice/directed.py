"""libdevice's arithmetic and conversions with a directed rounding mode (the _rz,
_rd and _ru variants), exactly rounded, in the kernel language.

Each function computes the result rounded to nearest ``r`` and the sign of the
exact error ``v - r`` with an error-free transformation (TwoSum; the product's
error ``fma(a, b, -p)``; the residuals ``fma(-q, b, a)`` of a quotient and
``fma(-s, s, x)`` of a square root; for fma, an exact expansion of
``a*b + c - r``), then steps ``r`` one unit towards the requested direction when
the exact value lies on the other side. Where an error term would underflow
(tiny products, quotients or square roots), the operands are first scaled by
powers of two and the result is rounded once to the subnormal grain. float32
functions compute in float64, where products, remainders and sums of float32
values are exact.

Products whose rounding matters are computed as ``fma(a, b, 0.0)``: the GPU's
code generator contracts a plain ``a * b`` into a later addition (one rounding
instead of two), which an fma is not.
"""

from __future__ import annotations

import math

import numpy as np

from ..compiler import jit
from ..intrinsics import fma as _fma
from ..types import float32, float64, int32, int64, uint32  # noqa: F401  (the table's)
from ._base import (_F0, _MAX32, _MAX64, _babs, _frexp64, _nextafter32, _nextafter64, _pow2,
                    _scalbn64)
from ._table import Row, define, rows

_RZ = 0                                # towards zero
_RD = 1                                # down, towards -inf
_RU = 2                                # up, towards +inf
_INF32 = np.float32(np.inf)
_TWO_M960 = 2.0 ** -960                # above it, product errors and residuals are exact
_TWO_M900 = 2.0 ** -900
_TWO_900 = 2.0 ** 900
_TWO_1000 = 2.0 ** 1000
_TWO_M500 = 2.0 ** -500
_TWO_32 = 4294967296.0

# --- helpers ------------------------------------------------------------------------------


@jit(device=True)
def _overflow64(negative, mode):
    """The result of an overflow (|v| > the largest float64) rounded in ``mode``."""
    big = _MAX64
    if mode == _RD and negative:
        big = math.inf
    elif mode == _RU and not negative:
        big = math.inf
    return -big if negative else big


@jit(device=True)
def _overflow32(negative, mode):
    """The result of an overflow (|v| > the largest float32) rounded in ``mode``."""
    big = _MAX32
    if mode == _RD and negative:
        big = _INF32
    elif mode == _RU and not negative:
        big = _INF32
    return -big if negative else big


@jit(device=True)
def _step64(r, d, mode):
    """v rounded in ``mode``, from ``r``, the float64 nearest v (finite), and ``d``,
    any value with the sign of ``v - r``: one step from ``r`` or none (a step to
    zero keeps v's sign)."""
    if mode == _RZ:
        if not ((r > 0.0 and d < 0.0) or (r < 0.0 and d > 0.0)):
            return r
        n = _nextafter64(r, 0.0)
    elif mode == _RD:
        if not (d < 0.0):
            return r
        n = _nextafter64(r, -math.inf)
    else:
        if not (d > 0.0):
            return r
        n = _nextafter64(r, math.inf)
    return math.copysign(n, r) if n == 0.0 else n


@jit(device=True)
def _step32(r, d, mode):
    """As _step64, for ``r`` the float32 nearest v."""
    if mode == _RZ:
        if not ((r > _F0 and d < 0.0) or (r < _F0 and d > 0.0)):
            return r
        n = _nextafter32(r, _F0)
    elif mode == _RD:
        if not (d < 0.0):
            return r
        n = _nextafter32(r, -_INF32)
    else:
        if not (d > 0.0):
            return r
        n = _nextafter32(r, _INF32)
    return math.copysign(n, r) if n == _F0 else n


@jit(device=True)
def _dround64(hi, lo, e, mode):
    """``(hi + lo) * 2**e`` rounded once to float64 in ``mode``: ``hi`` a nonzero
    float64 with 2**-200 <= |hi| < 2**120, nearer to ``hi + lo`` than any other
    float64, ``lo`` any value with the sign of the exact ``(hi + lo) - hi``."""
    m, k = _frexp64(hi)                # |hi| < 2**k, the result below 2**(k + e)
    x = int64(k) + int64(e)
    if x > 1024:
        return _overflow64(hi < 0.0, mode)
    if x >= -1021:                     # normal: hi * 2**e is exact (or overflows)
        r = _scalbn64(hi, e)
        if math.isinf(r):
            return _overflow64(hi < 0.0, mode)
        return _step64(r, lo, mode)
    # Subnormal: round |hi| to the grain g = 2**(-1074 - e) by adding 2**52 g.
    ge = int64(-1074) - int64(e)
    if ge >= int64(k) + 2:             # |hi| < g / 4: rounds to zero
        rs = 0.0
    else:
        big = _pow2(ge + 52)
        rs = (_babs(hi) + big) - big
    rs = math.copysign(rs, hi)
    t = hi - rs                        # exact
    d = t if t != 0.0 else lo
    return _step64(_scalbn64(rs, e), d, mode)


@jit(device=True)
def _dround32(hi, lo, mode):
    """``hi + lo`` rounded once to float32 in ``mode``: ``hi`` a finite float64
    nearer to ``hi + lo`` than any other float64, ``lo`` any value with the sign
    of the exact ``(hi + lo) - hi``."""
    r = float32(hi)
    if math.isinf(r):
        return _overflow32(hi < 0.0, mode)
    t = hi - float64(r)                # exact
    d = t if t != 0.0 else lo
    return _step32(r, d, mode)


@jit(device=True)
def _two_sum_err(a, b, s):
    """The exact error ``(a + b) - s`` of ``s = a + b`` (Knuth's TwoSum)."""
    bb = s - a
    return (a - (s - bb)) + (b - bb)


@jit(device=True)
def _sign4(x1, x2, x3, x4):
    """A value with the sign of the exact ``x1 + x2 + x3 + x4``: the four summed
    into a nonoverlapping expansion (Shewchuk's Grow-Expansion), whose sign is
    that of its largest nonzero component."""
    q = x2 + x1
    e1 = _two_sum_err(x2, x1, q)
    e2 = q
    q = x3 + e1
    f1 = _two_sum_err(x3, e1, q)
    q2 = q + e2
    f2 = _two_sum_err(q, e2, q2)
    f3 = q2
    q = x4 + f1
    k1 = _two_sum_err(x4, f1, q)
    q2 = q + f2
    k2 = _two_sum_err(q, f2, q2)
    q3 = q2 + f3
    k3 = _two_sum_err(q2, f3, q3)
    if q3 != 0.0:
        return q3
    if k3 != 0.0:
        return k3
    if k2 != 0.0:
        return k2
    return k1


@jit(device=True)
def _add64(a, b, mode):
    s = a + b
    if not math.isfinite(s):
        if math.isfinite(a) and math.isfinite(b):
            return _overflow64(s < 0.0, mode)
        return s
    if s == 0.0:                       # exact: x + (-x) is -0 rounding down
        if mode == _RD:
            return -((-a) + (-b))
        return s
    if _babs(a) >= _babs(b):           # Fast2Sum, the larger first
        return _step64(s, b - (s - a), mode)
    return _step64(s, a - (s - b), mode)


@jit(device=True)
def _mul64(a, b, mode):
    if a == 0.0 or b == 0.0 or not math.isfinite(a) or not math.isfinite(b):
        return a * b
    p = _fma(a, b, 0.0)                # a * b rounded, not contracted into later adds
    ap = _babs(p)
    if ap >= _TWO_M900 and ap <= _MAX64:
        return _step64(p, _fma(a, b, -p), mode)
    ma, ea = _frexp64(a)
    mb, eb = _frexp64(b)
    pm = _fma(ma, mb, 0.0)
    return _dround64(pm, _fma(ma, mb, -pm), int64(ea) + int64(eb), mode)


@jit(device=True)
def _div64(a, b, mode):
    q = a / b
    if a == 0.0 or b == 0.0 or not math.isfinite(a) or not math.isfinite(b):
        return q
    if math.isfinite(q) and _babs(a) >= _TWO_M960:
        rem = _fma(-q, b, a)           # exact: v - q = rem / b
        return _step64(q, rem if b > 0.0 else -rem, mode)
    ma, ea = _frexp64(a)
    mb, eb = _frexp64(b)
    qm = ma / mb
    rem = _fma(-qm, mb, ma)
    return _dround64(qm, rem if mb > 0.0 else -rem, int64(ea) - int64(eb), mode)


@jit(device=True)
def _sqrt64(x, mode):
    s = math.sqrt(x)
    if not (x > 0.0) or math.isinf(x):
        return s
    if x >= _TWO_M960:
        return _step64(s, _fma(-s, s, x), mode)
    xs = x * _TWO_1000                 # exact; the root of x is normal
    ss = math.sqrt(xs)
    return _step64(ss * _TWO_M500, _fma(-ss, ss, xs), mode)


@jit(device=True)
def _fma64(a, b, c, mode):
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return _fma(a, b, c)
    if a == 0.0 or b == 0.0:
        p = a * b                      # a signed zero
        if c != 0.0:
            return c
        if mode == _RD:
            return -((-p) + (-c))
        return p + c
    if c == 0.0:
        return _mul64(a, b, mode)
    p = _fma(a, b, 0.0)
    ap = _babs(p)
    if ap >= _TWO_M900 and ap <= _TWO_900 and _babs(c) <= _TWO_900:
        r = _fma(a, b, c)
        if r == 0.0:                   # a*b + c is exactly 0 (nothing underflows here)
            return -0.0 if mode == _RD else 0.0
        return _step64(r, _sign4(p, _fma(a, b, -p), c, -r), mode)
    # Scaled: a*b = ma*mb * 2**e with ma*mb in [1/4, 1).
    ma, ea = _frexp64(a)
    mb, eb = _frexp64(b)
    mc, ec = _frexp64(c)
    e = int64(ea) + int64(eb)
    ec = int64(ec)
    if ec > e + 110:                   # |a*b| < 2**-109 |c|: c is the nearest, a*b the sign
        return _step64(c, 1.0 if (a > 0.0) == (b > 0.0) else -1.0, mode)
    pm = _fma(ma, mb, 0.0)
    em = _fma(ma, mb, -pm)
    if ec < e - 110:                   # |c| < 2**-109 |a*b|: c only breaks ties and exact cases
        return _dround64(pm, em if em != 0.0 else c, e, mode)
    cs = _scalbn64(c, -e)              # exact: 2**-111 <= |cs| < 2**110
    r = _fma(ma, mb, cs)
    if r == 0.0:
        return -0.0 if mode == _RD else 0.0
    return _dround64(r, _sign4(pm, em, cs, -r), e, mode)


@jit(device=True)
def _add32(a, b, mode):
    """a + b (float32 values given as float64) rounded to float32 in ``mode``."""
    s = a + b
    if not math.isfinite(s):
        return float32(s)
    if s == 0.0:
        if mode == _RD:
            return float32(-((-a) + (-b)))
        return float32(s)
    if _babs(a) >= _babs(b):
        return _dround32(s, b - (s - a), mode)
    return _dround32(s, a - (s - b), mode)


@jit(device=True)
def _mul32(a, b, mode):
    p = a * b                          # exact
    if p == 0.0 or not math.isfinite(p):
        return float32(p)
    return _dround32(p, 0.0, mode)


@jit(device=True)
def _div32(a, b, mode):
    q = a / b
    if a == 0.0 or b == 0.0 or not math.isfinite(a) or not math.isfinite(b):
        return float32(q)
    rem = _fma(-q, b, a)               # exact
    return _dround32(q, rem if b > 0.0 else -rem, mode)


@jit(device=True)
def _sqrt32(x, mode):
    s = math.sqrt(x)
    if not (x > 0.0) or math.isinf(x):
        return float32(s)
    return _dround32(s, _fma(-s, s, x), mode)


@jit(device=True)
def _fma32(a, b, c, mode):
    p = a * b                          # exact
    return _add32(p, c, mode)


@jit(device=True)
def _int64_parts(h, lo):
    """(s, e): s = h * 2**32 + lo rounded to float64, e the exact error, for
    integers |h| < 2**32 and 0 <= lo < 2**32."""
    hf = float64(h) * _TWO_32
    lf = float64(lo)
    s = hf + lf
    return s, _two_sum_err(hf, lf, s)


@jit(device=True)
def _ll_parts(v):
    v = int64(v)
    return _int64_parts(v >> 32, v & 0xFFFFFFFF)


@jit(device=True)
def _ull_parts(v):
    v = int64(v)
    return _int64_parts((v >> 32) & 0xFFFFFFFF, v & 0xFFFFFFFF)


@jit(device=True)
def _d2f(d, mode):
    if not math.isfinite(d):
        return float32(d)
    return _dround32(d, 0.0, mode)


@jit(device=True)
def _ll2f(v, mode):
    s, e = _ll_parts(v)
    return _dround32(s, e, mode)


@jit(device=True)
def _ull2f(v, mode):
    s, e = _ull_parts(v)
    return _dround32(s, e, mode)


@jit(device=True)
def _ll2d(v, mode):
    s, e = _ll_parts(v)
    return _step64(s, e, mode)


@jit(device=True)
def _ull2d(v, mode):
    s, e = _ull_parts(v)
    return _step64(s, e, mode)


# --- the public functions: one row per rounding mode ----------------------------------------

# (name suffix, the mode the helpers take, the rounding in words)
_ROUNDINGS = (("rd", "_RD", "down (towards -inf)"), ("ru", "_RU", "up (towards +inf)"),
              ("rz", "_RZ", "towards zero"))


def _in_each_mode(params: str, *entries: tuple[str, str, str]) -> list[Row]:
    """The rows ``name_rd``, ``name_ru`` and ``name_rz`` of each ``(name, expression,
    docstring)`` entry: ``{mode}`` in the expression is the helpers' mode, ``{rounding}``
    in the docstring the rounding in words."""
    return rows(params, *((f"{name}_{suffix}", expression.format(mode=mode),
                           doc.format(rounding=rounding))
                          for name, expression, doc in entries
                          for suffix, mode, rounding in _ROUNDINGS))


_TABLE = [
    *_in_each_mode(
        "x: float32, y: float32",
        ("fadd", "_add32(float64(x), float64(y), {mode})",
         "``x + y`` of float32 values, rounded {rounding}."),
        ("fsub", "_add32(float64(x), -float64(y), {mode})",
         "``x - y`` of float32 values, rounded {rounding}."),
        ("fmul", "_mul32(float64(x), float64(y), {mode})",
         "``x * y`` of float32 values, rounded {rounding}."),
        ("fdiv", "_div32(float64(x), float64(y), {mode})",
         "``x / y`` of float32 values, rounded {rounding}.")),
    *_in_each_mode(
        "x: float32",
        ("frcp", "_div32(1.0, float64(x), {mode})", "``1 / x`` of a float32, rounded {rounding}."),
        ("fsqrt", "_sqrt32(float64(x), {mode})",
         "The square root of a float32, rounded {rounding}.")),
    *_in_each_mode(
        "x: float32, y: float32, z: float32",
        ("fmaf", "_fma32(float64(x), float64(y), float64(z), {mode})",
         "``x * y + z`` of float32 values, rounded once {rounding}.")),
    *_in_each_mode(
        "x: float64, y: float64",
        ("dadd", "_add64(x, y, {mode})", "``x + y`` of float64 values, rounded {rounding}."),
        ("dmul", "_mul64(x, y, {mode})", "``x * y`` of float64 values, rounded {rounding}."),
        ("ddiv", "_div64(x, y, {mode})", "``x / y`` of float64 values, rounded {rounding}.")),
    *_in_each_mode(
        "x: float64",
        ("drcp", "_div64(1.0, x, {mode})", "``1 / x`` of a float64, rounded {rounding}."),
        ("dsqrt", "_sqrt64(x, {mode})", "The square root of a float64, rounded {rounding}.")),
    *_in_each_mode(
        "x: float64, y: float64, z: float64",
        ("fma", "_fma64(x, y, z, {mode})",
         "``x * y + z`` of float64 values, rounded once {rounding}.")),
    *_in_each_mode(
        "d: float64",
        ("double2float", "_d2f(d, {mode})",
         "The float64 ``d`` rounded {rounding} to a float32.")),
    *_in_each_mode(
        "x: int32",
        ("int2float", "_dround32(float64(x), 0.0, {mode})",
         "The int32 ``x`` rounded {rounding} to a float32."),
        ("uint2float", "_dround32(float64(uint32(x)), 0.0, {mode})",
         "The uint32 ``x`` (int32 bits) rounded {rounding} to a float32.")),
    *_in_each_mode(
        "l",  # passed as it is: the helpers convert it to int64
        ("ll2float", "_ll2f(l, {mode})", "The int64 ``l`` rounded {rounding} to a float32."),
        ("ull2float", "_ull2f(l, {mode})",
         "The uint64 ``l`` (int64 bits) rounded {rounding} to a float32."),
        ("ll2double", "_ll2d(l, {mode})", "The int64 ``l`` rounded {rounding} to a float64."),
        ("ull2double", "_ull2d(l, {mode})",
         "The uint64 ``l`` (int64 bits) rounded {rounding} to a float64.")),
]

__all__ = define(globals(), _TABLE)
