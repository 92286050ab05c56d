"""libdevice's float classification."""

from __future__ import annotations

import math  # noqa: F401  (math ... _F1: the table's)

from ..types import float32, float64, int32  # noqa: F401
from ._base import _F0, _F1  # noqa: F401
from ._table import define, rows

# Generated (see _table.py): the type each argument is converted to, then (name,
# expression of the converted arguments, docstring).
_TABLE = [
    *rows("x: float64",
          ("isnand", "int32(math.isnan(x))", "1 if the float64 ``x`` is NaN, else 0."),
          ("isinfd", "int32(math.isinf(x))", "1 if the float64 ``x`` is infinite, else 0."),
          ("isfinited", "int32(math.isfinite(x))", "1 if the float64 ``x`` is finite, else 0."),
          ("signbitd", "int32(math.copysign(1.0, x) < 0.0)",
           "1 if the sign bit of the float64 ``x`` is set (-0.0 and negative NaNs too), else 0.")),
    *rows("x: float32",
          ("isnanf", "int32(math.isnan(x))", "1 if the float32 ``x`` is NaN, else 0."),
          ("isinff", "int32(math.isinf(x))", "1 if the float32 ``x`` is infinite, else 0."),
          ("finitef", "int32(math.isfinite(x))", "1 if the float32 ``x`` is finite, else 0."),
          ("signbitf", "int32(math.copysign(_F1, x) < _F0)",
           "1 if the sign bit of the float32 ``x`` is set (-0.0 and negative NaNs too), else 0.")),
]


__all__ = define(globals(), _TABLE)
