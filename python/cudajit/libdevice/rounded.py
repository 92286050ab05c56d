"""libdevice's arithmetic rounded to nearest (the _rn variants)."""

from __future__ import annotations

import math  # noqa: F401  (math ... _rsqrt32: the table's)

from ..types import float32, float64  # noqa: F401
from ._base import _rsqrt32  # noqa: F401
from ._table import define, rows

# Generated (see _table.py): the type each argument is converted to, then (name,
# expression of the converted arguments, docstring).
_TABLE = [
    *rows("x: float64, y: float64",
          ("dadd_rn", "x + y", "``x + y`` of float64 values, rounded to nearest."),
          ("dmul_rn", "x * y", "``x * y`` of float64 values, rounded to nearest."),
          ("ddiv_rn", "x / y", "``x / y`` of float64 values, rounded to nearest.")),
    *rows("x: float64",
          ("drcp_rn", "1.0 / x", "``1 / x`` of a float64, rounded to nearest."),
          ("dsqrt_rn", "math.sqrt(x)", "The square root of a float64, rounded to nearest.")),
    *rows("x: float32, y: float32",
          ("fadd_rn", "x + y", "``x + y`` of float32 values, rounded to nearest."),
          ("fsub_rn", "x - y", "``x - y`` of float32 values, rounded to nearest."),
          ("fmul_rn", "x * y", "``x * y`` of float32 values, rounded to nearest."),
          ("fdiv_rn", "float32(float64(x) / float64(y))",
           "``x / y`` of float32 values, rounded to nearest (computed exactly enough in float64)."),
    ),
    *rows("x: float32",
          ("frcp_rn", "float32(1.0 / float64(x))", "``1 / x`` of a float32, rounded to nearest."),
          ("fsqrt_rn", "float32(math.sqrt(float64(x)))",
           "The square root of a float32, rounded to nearest."),
          ("frsqrt_rn", "_rsqrt32(x)", "``1 / sqrt(x)`` of a float32, rounded once to nearest.")),
]


__all__ = define(globals(), _TABLE)
