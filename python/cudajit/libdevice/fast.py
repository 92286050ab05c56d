"""libdevice's fast_ functions (approximate in libdevice; accurate here)."""

from __future__ import annotations

import math

from ..compiler import jit
from ..types import float32, float64  # noqa: F401
from ._base import _F10  # noqa: F401  (the table's)
from ._table import define, rows

# Generated (see _table.py): the type each argument is converted to, then (name,
# expression of the converted arguments, docstring).
_TABLE = [
    *rows("x: float32",
          ("fast_cosf", "math.cos(x)",
           "The cosine of a float32 (libdevice's fast approximation; here the accurate cosf)."),
          ("fast_sinf", "math.sin(x)",
           "The sine of a float32 (libdevice's fast approximation; here the accurate sinf)."),
          ("fast_tanf", "math.tan(x)",
           "The tangent of a float32 (libdevice's fast approximation; here the accurate tanf)."),
          ("fast_expf", "math.exp(x)", "``e ** x`` of a float32 (here the accurate expf)."),
          ("fast_exp10f", "_F10 ** x", "``10 ** x`` of a float32 (here the accurate exp10f)."),
          ("fast_logf", "math.log(x)",
           "The natural logarithm of a float32 (here the accurate logf)."),
          ("fast_log2f", "math.log2(x)",
           "The base-2 logarithm of a float32 (here the accurate log2f)."),
          ("fast_log10f", "math.log10(x)",
           "The base-10 logarithm of a float32 (here the accurate log10f).")),
    *rows("x: float32, y: float32",
          ("fast_powf", "math.pow(x, y)", "``x ** y`` of float32 values (here the accurate powf)."),
          ("fast_fdividef", "float32(float64(x) / float64(y))",
           "``x / y`` of float32 values (here the correctly rounded quotient).")),
]


@jit(device=True)
def fast_sincosf(x):
    """``(sin(x), cos(x))`` of a float32 (here the accurate ones)."""
    x = float32(x)
    return math.sin(x), math.cos(x)


__all__ = [*define(globals(), _TABLE), "fast_sincosf"]
