"""Half-precision functions for kernels, as ``numba.cuda.fp16`` has them.

Each takes float16 values (others are converted to float16 first) and returns
float16. Arithmetic is rounded once to float16 (``hfma`` too); the math
functions compute in float32 and round once, as CUDA's ``hsin`` and friends
do. ``a + b`` on two float16 values is the same as ``hadd(a, b)``: the
operators and ``math.*`` work on float16 directly.
"""

from __future__ import annotations

import math

from .compiler import jit
from .intrinsics import fma
from .libdevice._base import _larger_not_nan, _smaller_not_nan
from .types import bool_, float16, float32

__all__ = ["hadd", "hsub", "hmul", "hdiv", "hneg", "habs", "hfma", "hmax", "hmin",
           "heq", "hne", "hge", "hgt", "hle", "hlt",
           "hsqrt", "hrsqrt", "hrcp", "hsin", "hcos", "htanh", "hlog", "hlog2", "hlog10",
           "hexp", "hexp2", "hexp10", "hceil", "hfloor", "htrunc", "hrint"]


@jit(device=True)
def hadd(a, b):
    """``a + b``."""
    return float16(a) + float16(b)


@jit(device=True)
def hsub(a, b):
    """``a - b``."""
    return float16(a) - float16(b)


@jit(device=True)
def hmul(a, b):
    """``a * b``."""
    return float16(a) * float16(b)


@jit(device=True)
def hdiv(a, b):
    """``a / b``."""
    return float16(a) / float16(b)


@jit(device=True)
def hneg(a):
    """``-a``."""
    return -float16(a)


@jit(device=True)
def habs(a):
    """``|a|``."""
    return abs(float16(a))


@jit(device=True)
def hfma(a, b, c):
    """``a * b + c`` rounded once."""
    return fma(float16(a), float16(b), float16(c))


@jit(device=True)
def hmax(a, b):
    """The larger of ``a`` and ``b``; a NaN gives way to the other value (CUDA's __hmax)."""
    return _larger_not_nan(float16(a), float16(b))


@jit(device=True)
def hmin(a, b):
    """The smaller of ``a`` and ``b``; a NaN gives way to the other value (CUDA's __hmin)."""
    return _smaller_not_nan(float16(a), float16(b))


@jit(device=True)
def heq(a, b):
    """``a == b``."""
    return bool_(float16(a) == float16(b))


@jit(device=True)
def hne(a, b):
    """``a != b`` (false when either is NaN, as CUDA's ordered __hne)."""
    x = float16(a)
    y = float16(b)
    return bool_(x < y or x > y)


@jit(device=True)
def hge(a, b):
    """``a >= b``."""
    return bool_(float16(a) >= float16(b))


@jit(device=True)
def hgt(a, b):
    """``a > b``."""
    return bool_(float16(a) > float16(b))


@jit(device=True)
def hle(a, b):
    """``a <= b``."""
    return bool_(float16(a) <= float16(b))


@jit(device=True)
def hlt(a, b):
    """``a < b``."""
    return bool_(float16(a) < float16(b))


@jit(device=True)
def hsqrt(a):
    """The square root."""
    return math.sqrt(float16(a))


@jit(device=True)
def hrsqrt(a):
    """``1 / sqrt(a)``."""
    return float16(float32(1.0) / math.sqrt(float32(a)))


@jit(device=True)
def hrcp(a):
    """``1 / a``."""
    return float16(float32(1.0) / float32(a))


@jit(device=True)
def hsin(a):
    """The sine."""
    return math.sin(float16(a))


@jit(device=True)
def hcos(a):
    """The cosine."""
    return math.cos(float16(a))


@jit(device=True)
def htanh(a):
    """The hyperbolic tangent."""
    return math.tanh(float16(a))


@jit(device=True)
def hlog(a):
    """The natural logarithm."""
    return math.log(float16(a))


@jit(device=True)
def hlog2(a):
    """The base-2 logarithm."""
    return math.log2(float16(a))


@jit(device=True)
def hlog10(a):
    """The base-10 logarithm."""
    return math.log10(float16(a))


@jit(device=True)
def hexp(a):
    """``e ** a``."""
    return math.exp(float16(a))


@jit(device=True)
def hexp2(a):
    """``2 ** a``."""
    return float16(float32(2.0) ** float32(a))


@jit(device=True)
def hexp10(a):
    """``10 ** a``."""
    return float16(float32(10.0) ** float32(a))


@jit(device=True)
def hceil(a):
    """The smallest integer value not less than ``a``, as float16."""
    return math.ceil(float16(a))


@jit(device=True)
def hfloor(a):
    """The largest integer value not greater than ``a``, as float16."""
    return math.floor(float16(a))


@jit(device=True)
def htrunc(a):
    """``a`` rounded towards zero, as float16."""
    return math.trunc(float16(a))


@jit(device=True)
def hrint(a):
    """``a`` rounded to the nearest integer, ties to even, as float16."""
    return round(float16(a), 0)
