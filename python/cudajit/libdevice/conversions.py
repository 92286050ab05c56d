"""libdevice's conversions rounded to nearest, and those to integers in every rounding
mode.

Float to integer conversions saturate (NaN gives 0), as PTX's cvt does; the
rounding picks the integer first (floor, ceil, trunc, ties-to-even), exactly."""

from __future__ import annotations

import math  # noqa: F401  (math ... _bround: the table's)

from ..types import float32, float64, int32, int64, uint32, uint64  # noqa: F401
from ._base import _bround  # noqa: F401
from ._table import define, rows

# Generated (see _table.py): the type each argument is converted to, then (name,
# expression of the converted arguments, docstring).
_TABLE = [
    *rows("d: float64",
          ("double2float_rn", "float32(d)", "The float64 ``d`` rounded to the nearest float32."),
          ("double2int_rn", "int32(_bround(d, 0))",
           "The float64 ``d`` rounded to the nearest int32, halves to even."),
          ("double2int_rz", "int32(math.trunc(d))",
           "The float64 ``d`` rounded towards zero to an int32."),
          ("double2int_rd", "int32(math.floor(d))", "The float64 ``d`` rounded down to an int32."),
          ("double2int_ru", "int32(math.ceil(d))", "The float64 ``d`` rounded up to an int32."),
          ("double2uint_rn", "int32(uint32(_bround(d, 0)))",
           "The float64 ``d`` rounded to the nearest uint32, halves to even (int32 bits)."),
          ("double2uint_rz", "int32(uint32(math.trunc(d)))",
           "The float64 ``d`` rounded towards zero to a uint32 (int32 bits)."),
          ("double2uint_rd", "int32(uint32(math.floor(d)))",
           "The float64 ``d`` rounded down to a uint32 (int32 bits)."),
          ("double2uint_ru", "int32(uint32(math.ceil(d)))",
           "The float64 ``d`` rounded up to a uint32 (int32 bits).")),
    *rows("f: float64",
          ("double2ll_rn", "int64(_bround(f, 0))",
           "The float64 ``f`` rounded to the nearest int64, halves to even."),
          ("double2ll_rz", "int64(math.trunc(f))",
           "The float64 ``f`` rounded towards zero to an int64."),
          ("double2ll_rd", "int64(math.floor(f))", "The float64 ``f`` rounded down to an int64."),
          ("double2ll_ru", "int64(math.ceil(f))", "The float64 ``f`` rounded up to an int64."),
          ("double2ull_rn", "int64(uint64(_bround(f, 0)))",
           "The float64 ``f`` rounded to the nearest uint64, halves to even (int64 bits)."),
          ("double2ull_rz", "int64(uint64(math.trunc(f)))",
           "The float64 ``f`` rounded towards zero to a uint64 (int64 bits)."),
          ("double2ull_rd", "int64(uint64(math.floor(f)))",
           "The float64 ``f`` rounded down to a uint64 (int64 bits)."),
          ("double2ull_ru", "int64(uint64(math.ceil(f)))",
           "The float64 ``f`` rounded up to a uint64 (int64 bits).")),
    *rows("x: float32",
          ("float2int_rn", "int32(_bround(x, 0))",
           "The float32 ``x`` rounded to the nearest int32, halves to even."),
          ("float2int_rz", "int32(math.trunc(x))",
           "The float32 ``x`` rounded towards zero to an int32."),
          ("float2int_rd", "int32(math.floor(x))", "The float32 ``x`` rounded down to an int32."),
          ("float2int_ru", "int32(math.ceil(x))", "The float32 ``x`` rounded up to an int32."),
          ("float2uint_rn", "int32(uint32(_bround(x, 0)))",
           "The float32 ``x`` rounded to the nearest uint32, halves to even (int32 bits)."),
          ("float2uint_rz", "int32(uint32(math.trunc(x)))",
           "The float32 ``x`` rounded towards zero to a uint32 (int32 bits)."),
          ("float2uint_rd", "int32(uint32(math.floor(x)))",
           "The float32 ``x`` rounded down to a uint32 (int32 bits)."),
          ("float2uint_ru", "int32(uint32(math.ceil(x)))",
           "The float32 ``x`` rounded up to a uint32 (int32 bits).")),
    *rows("f: float32",
          ("float2ll_rn", "int64(_bround(f, 0))",
           "The float32 ``f`` rounded to the nearest int64, halves to even."),
          ("float2ll_rz", "int64(math.trunc(f))",
           "The float32 ``f`` rounded towards zero to an int64."),
          ("float2ll_rd", "int64(math.floor(f))", "The float32 ``f`` rounded down to an int64."),
          ("float2ll_ru", "int64(math.ceil(f))", "The float32 ``f`` rounded up to an int64."),
          ("float2ull_rn", "int64(uint64(_bround(f, 0)))",
           "The float32 ``f`` rounded to the nearest uint64, halves to even (int64 bits)."),
          ("float2ull_rz", "int64(uint64(math.trunc(f)))",
           "The float32 ``f`` rounded towards zero to a uint64 (int64 bits)."),
          ("float2ull_rd", "int64(uint64(math.floor(f)))",
           "The float32 ``f`` rounded down to a uint64 (int64 bits)."),
          ("float2ull_ru", "int64(uint64(math.ceil(f)))",
           "The float32 ``f`` rounded up to a uint64 (int64 bits).")),
    *rows("i: int32",
          ("int2double_rn", "float64(i)", "The int32 ``i`` as a float64 (exact)."),
          ("uint2double_rn", "float64(uint32(i))",
           "The uint32 ``i`` (int32 bits) as a float64 (exact).")),
    *rows("x: int32",
          ("int2float_rn", "float32(x)", "The int32 ``x`` rounded to the nearest float32."),
          ("uint2float_rn", "float32(uint32(x))",
           "The uint32 ``x`` (int32 bits) rounded to the nearest float32.")),
    *rows("l: int64",
          ("ll2float_rn", "float32(l)", "The int64 ``l`` rounded to the nearest float32."),
          ("ull2float_rn", "float32(uint64(l))",
           "The uint64 ``l`` (int64 bits) rounded to the nearest float32."),
          ("ll2double_rn", "float64(l)", "The int64 ``l`` rounded to the nearest float64."),
          ("ull2double_rn", "float64(uint64(l))",
           "The uint64 ``l`` (int64 bits) rounded to the nearest float64.")),
]


__all__ = define(globals(), _TABLE)
