"""libdevice's integer functions."""

from __future__ import annotations

from ..compiler import jit
from ..intrinsics import brev as _brev  # noqa: F401  (_brev ... _popc, _bmax, _bmin: the table's)
from ..intrinsics import clz as _clz  # noqa: F401
from ..intrinsics import ffs as _ffs  # noqa: F401
from ..intrinsics import popc as _popc  # noqa: F401
from ..types import int32, int64, uint32, uint64
from ._base import _babs, _bmax, _bmin  # noqa: F401
from ._table import define, rows

# The functions of one expression, generated (see _table.py): the type each argument is
# converted to, then (name, expression of the converted arguments, docstring).
_TABLE = [
    *rows("x: int32",
          ("abs", "int32(_babs(int64(x)))", "``|x|`` of an int32 (``abs(-2**31)`` is ``-2**31``)."),
          ("popc", "int32(_popc(uint32(x)))", "The number of set bits of an int32."),
          ("brev", "int32(_brev(uint32(x)))", "The bits of an int32 in reverse order."),
          ("clz", "int32(_clz(x))", "The number of leading zero bits of an int32 (32 for 0)."),
          ("ffs", "int32(_ffs(x))",
           "The 1-based position of the lowest set bit of an int32; 0 for 0.")),
    *rows("x: int32, y: int32",
          ("max", "_bmax(x, y)", "The larger of two int32."),
          ("min", "_bmin(x, y)", "The smaller of two int32."),
          ("umax", "int32(_bmax(uint32(x), uint32(y)))",
           "The larger of two uint32 (int32 bits in and out, as Numba types it)."),
          ("umin", "int32(_bmin(uint32(x), uint32(y)))",
           "The smaller of two uint32 (int32 bits in and out, as Numba types it)."),
          ("hadd", "int32((int64(x) + int64(y)) >> 1)",
           "``(x + y) >> 1`` of two int32, without overflow."),
          ("rhadd", "int32((int64(x) + int64(y) + 1) >> 1)",
           "``(x + y + 1) >> 1`` of two int32, without overflow."),
          ("uhadd", "int32((uint64(uint32(x)) + uint64(uint32(y))) >> uint32(1))",
           "``(x + y) >> 1`` of two uint32, without overflow (int32 bits in and out)."),
          ("umul24", "int32((int64(x) & 0xFFFFFF) * (int64(y) & 0xFFFFFF))",
           "The low 32 bits of the product of the low 24 bits of x and y, unsigned."),
          ("mulhi", "int32((int64(x) * int64(y)) >> 32)",
           "The high 32 bits of the 64-bit product of two int32.")),
    *rows("x: int64, y: int64",
          ("llmax", "_bmax(x, y)", "The larger of two int64."),
          ("llmin", "_bmin(x, y)", "The smaller of two int64."),
          ("ullmax", "int64(_bmax(uint64(x), uint64(y)))",
           "The larger of two uint64 (int64 bits in and out)."),
          ("ullmin", "int64(_bmin(uint64(x), uint64(y)))",
           "The smaller of two uint64 (int64 bits in and out)."),
          ("umul64hi", "int64(_umul64hi(uint64(x), uint64(y)))",
           "The high 64 bits of the 128-bit product of two uint64 (int64 bits in and out).")),
    *rows("x: int64",
          ("popcll", "int32(_popc(uint64(x)))", "The number of set bits of an int64, as int32."),
          ("brevll", "int64(_brev(uint64(x)))", "The bits of an int64 in reverse order."),
          ("clzll", "int32(_clz(x))",
           "The number of leading zero bits of an int64 (64 for 0), as int32."),
          ("ffsll", "int32(_ffs(x))",
           "The 1-based position of the lowest set bit of an int64, as int32; 0 for 0.")),
]


@jit(device=True)
def llabs(x):
    """``|x|`` of an int64 (``llabs(-2**63)`` is ``-2**63``)."""
    x = int64(x)
    return x if x >= 0 else -x


@jit(device=True)
def byte_perm(x, y, z):
    """Byte ``n`` of the result is byte ``(z >> 4n) & 7`` of the 8 bytes ``y:x``
    (bytes 0-3 from ``x``, 4-7 from ``y``)."""
    pair = (uint64(uint32(int32(y))) << uint32(32)) | uint64(uint32(int32(x)))
    s = uint32(int32(z))
    r = uint64(0)
    for n in range(4):
        byte = (s >> uint32(4 * n)) & uint32(7)
        r |= ((pair >> (uint32(8) * byte)) & uint64(0xFF)) << uint32(8 * n)
    return int32(r)


@jit(device=True)
def urhadd(x, y):
    """``(x + y + 1) >> 1`` of two uint32, without overflow (int32 bits in and out)."""
    s = uint64(uint32(int32(x))) + uint64(uint32(int32(y))) + uint64(1)
    return int32(s >> uint32(1))


@jit(device=True)
def sad(x, y, z):
    """``|x - y| + z``: x and y int32, z uint32 (int32 bits out)."""
    d = int64(int32(x)) - int64(int32(y))
    return int32(_babs(d) + int64(uint32(int32(z))))


@jit(device=True)
def usad(x, y, z):
    """``|x - y| + z`` of uint32 values (int32 bits in and out)."""
    d = int64(uint32(int32(x))) - int64(uint32(int32(y)))
    return int32(_babs(d) + int64(uint32(int32(z))))


@jit(device=True)
def mul24(x, y):
    """The low 32 bits of the product of the low 24 bits of x and y, as signed 24-bit values."""
    a = ((int64(int32(x)) & 0xFFFFFF) ^ 0x800000) - 0x800000
    b = ((int64(int32(y)) & 0xFFFFFF) ^ 0x800000) - 0x800000
    return int32(a * b)


@jit(device=True)
def umulhi(x, y):
    """The high 32 bits of the 64-bit product of two uint32 (int32 bits in and out)."""
    p = uint64(uint32(int32(x))) * uint64(uint32(int32(y)))
    return int32(p >> uint32(32))


@jit(device=True)
def _umul64hi(a, b):
    """The high 64 bits of the 128-bit product of two uint64, by 32-bit halves."""
    mask = uint64(0xFFFFFFFF)
    a_lo = a & mask
    a_hi = a >> uint32(32)
    b_lo = b & mask
    b_hi = b >> uint32(32)
    lo_lo = a_lo * b_lo
    hi_lo = a_hi * b_lo
    lo_hi = a_lo * b_hi
    hi_hi = a_hi * b_hi
    middle = (lo_lo >> uint32(32)) + (hi_lo & mask) + lo_hi
    return hi_hi + (hi_lo >> uint32(32)) + (middle >> uint32(32))


@jit(device=True)
def mul64hi(x, y):
    """The high 64 bits of the 128-bit product of two int64."""
    a = int64(x)
    b = int64(y)
    hi = _umul64hi(uint64(a), uint64(b))
    if a < 0:
        hi -= uint64(b)
    if b < 0:
        hi -= uint64(a)
    return int64(hi)


__all__ = [*define(globals(), _TABLE),
           "llabs", "byte_perm", "urhadd", "sad", "usad", "mul24", "umulhi", "mul64hi"]
