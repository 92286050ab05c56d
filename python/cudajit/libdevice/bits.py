"""libdevice's bit reinterpretation and half conversions, and its Bessel functions
(libdevice's own on the GPU, the C library's on the cpu device)."""

from __future__ import annotations

from ..compiler import jit
from ..intrinsics import libm as _libm  # noqa: F401  (the table's)
from ..intrinsics import reinterpret as _reinterpret
from ..types import float16, float32, float64, int16, int32, int64  # noqa: F401
from ._table import define, rows

# Generated (see _table.py): the type each argument is converted to, then (name,
# expression of the converted arguments, docstring).
_TABLE = [
    *rows("x: float32",
          ("float_as_int", "_reinterpret.int32(x)", "The bits of the float32 ``x`` as an int32."),
          ("j0f", "_libm.j0(x)", "J0(x) of a float32."),
          ("j1f", "_libm.j1(x)", "J1(x) of a float32."),
          ("y0f", "_libm.y0(x)", "Y0(x) of a float32."),
          ("y1f", "_libm.y1(x)", "Y1(x) of a float32.")),
    *rows("x: int32",
          ("int_as_float", "_reinterpret.float32(x)", "The bits of the int32 ``x`` as a float32.")),
    *rows("x: float64",
          ("double_as_longlong", "_reinterpret.int64(x)",
           "The bits of the float64 ``x`` as an int64."),
          ("j0", "_libm.j0(x)", "The Bessel function of the first kind of order 0, J0(x)."),
          ("j1", "_libm.j1(x)", "The Bessel function of the first kind of order 1, J1(x)."),
          ("y0", "_libm.y0(x)", "The Bessel function of the second kind of order 0, Y0(x)."),
          ("y1", "_libm.y1(x)", "The Bessel function of the second kind of order 1, Y1(x).")),
    *rows("x: int64",
          ("longlong_as_double", "_reinterpret.float64(x)",
           "The bits of the int64 ``x`` as a float64.")),
    *rows("d: float64",
          ("double2hiint", "int32(_reinterpret.int64(d) >> 32)",
           "The high 32 bits of the float64 ``d``, as an int32."),
          ("double2loint", "int32(_reinterpret.int64(d) & 0xFFFFFFFF)",
           "The low 32 bits of the float64 ``d``, as an int32.")),
    *rows("f: float32",
          ("float2half_rn", "_reinterpret.int16(float16(f))",
           "The float32 ``f`` rounded to the nearest float16, its bits as an int16.")),
    *rows("h: int16",
          ("half2float", "float32(_reinterpret.float16(h))",
           "The float16 whose bits are the int16 ``h``, as a float32.")),
    *rows("n: int32, x: float64",
          ("jn", "_libm.jn(n, x)",
           "The Bessel function of the first kind of order ``n`` (int32), Jn(x)."),
          ("yn", "_libm.yn(n, x)",
           "The Bessel function of the second kind of order ``n`` (int32), Yn(x).")),
    *rows("n: int32, x: float32",
          ("jnf", "_libm.jn(n, x)", "Jn(x) of a float32."),
          ("ynf", "_libm.yn(n, x)", "Yn(x) of a float32.")),
]


@jit(device=True)
def hiloint2double(x, y):
    """The float64 whose high 32 bits are ``x`` and low 32 bits ``y`` (int32s)."""
    high = int64(int32(x)) << 32
    low = int64(int32(y)) & 0xFFFFFFFF
    return _reinterpret.float64(int64(high | low))


__all__ = [*define(globals(), _TABLE), "hiloint2double"]
