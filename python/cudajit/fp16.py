"""Half-precision functions for kernels, as ``numba.cuda.fp16`` has them.

Each takes float16 values (others are converted to float16 first) and returns
float16. Arithmetic is rounded once to float16 (``hfma`` too); the math
functions compute in float32 and round once, as CUDA's ``hsin`` and friends
do. ``a + b`` on two float16 values is the same as ``hadd(a, b)``: the
operators and ``math.*`` work on float16 directly.
"""

from __future__ import annotations

import math  # noqa: F401  (math ... _smaller_not_nan: the table's)

from .compiler import jit
from .intrinsics import fma  # noqa: F401
from .libdevice._base import _larger_not_nan, _smaller_not_nan  # noqa: F401
from .libdevice._table import define, rows
from .types import bool_, float16, float32  # noqa: F401

# The functions of one expression, generated (see libdevice/_table.py): the type each
# argument is converted to, then (name, expression of the converted arguments, docstring).
# abs and round are Python's (this module defines no functions of those names).
_TABLE = [
    *rows("a: float16, b: float16",
          ("hadd", "a + b", "``a + b``."),
          ("hsub", "a - b", "``a - b``."),
          ("hmul", "a * b", "``a * b``."),
          ("hdiv", "a / b", "``a / b``."),
          ("hmax", "_larger_not_nan(a, b)",
           "The larger of ``a`` and ``b``; a NaN gives way to the other value (CUDA's __hmax)."),
          ("hmin", "_smaller_not_nan(a, b)",
           "The smaller of ``a`` and ``b``; a NaN gives way to the other value (CUDA's __hmin)."),
          ("heq", "bool_(a == b)", "``a == b``."),
          ("hge", "bool_(a >= b)", "``a >= b``."),
          ("hgt", "bool_(a > b)", "``a > b``."),
          ("hle", "bool_(a <= b)", "``a <= b``."),
          ("hlt", "bool_(a < b)", "``a < b``.")),
    *rows("a: float16",
          ("hneg", "-a", "``-a``."),
          ("habs", "abs(a)", "``|a|``."),
          ("hsqrt", "math.sqrt(a)", "The square root."),
          ("hsin", "math.sin(a)", "The sine."),
          ("hcos", "math.cos(a)", "The cosine."),
          ("htanh", "math.tanh(a)", "The hyperbolic tangent."),
          ("hlog", "math.log(a)", "The natural logarithm."),
          ("hlog2", "math.log2(a)", "The base-2 logarithm."),
          ("hlog10", "math.log10(a)", "The base-10 logarithm."),
          ("hexp", "math.exp(a)", "``e ** a``."),
          ("hceil", "math.ceil(a)", "The smallest integer value not less than ``a``, as float16."),
          ("hfloor", "math.floor(a)",
           "The largest integer value not greater than ``a``, as float16."),
          ("htrunc", "math.trunc(a)", "``a`` rounded towards zero, as float16."),
          ("hrint", "round(a, 0)",
           "``a`` rounded to the nearest integer, ties to even, as float16.")),
    *rows("a: float16, b: float16, c: float16",
          ("hfma", "fma(a, b, c)", "``a * b + c`` rounded once.")),
    *rows("a: float32",
          ("hrsqrt", "float16(float32(1.0) / math.sqrt(a))", "``1 / sqrt(a)``."),
          ("hrcp", "float16(float32(1.0) / a)", "``1 / a``."),
          ("hexp2", "float16(float32(2.0) ** a)", "``2 ** a``."),
          ("hexp10", "float16(float32(10.0) ** a)", "``10 ** a``.")),
]


@jit(device=True)
def hne(a, b):
    """``a != b`` (false when either is NaN, as CUDA's ordered __hne)."""
    x = float16(a)
    y = float16(b)
    return bool_(x < y or x > y)


__all__ = [*define(globals(), _TABLE), "hne"]
