"""libdevice's integer functions."""

from __future__ import annotations

from ._base import *  # noqa: F401,F403

# --- integer functions ---------------------------------------------------------------


@jit(device=True)
def abs(x):
    """``|x|`` of an int32 (``abs(-2**31)`` is ``-2**31``)."""
    return int32(_babs(int64(int32(x))))


@jit(device=True)
def llabs(x):
    """``|x|`` of an int64 (``llabs(-2**63)`` is ``-2**63``)."""
    x = int64(x)
    return x if x >= 0 else -x


@jit(device=True)
def max(x, y):
    """The larger of two int32."""
    return _bmax(int32(x), int32(y))


@jit(device=True)
def min(x, y):
    """The smaller of two int32."""
    return _bmin(int32(x), int32(y))


@jit(device=True)
def umax(x, y):
    """The larger of two uint32 (int32 bits in and out, as Numba types it)."""
    return int32(_bmax(uint32(int32(x)), uint32(int32(y))))


@jit(device=True)
def umin(x, y):
    """The smaller of two uint32 (int32 bits in and out, as Numba types it)."""
    return int32(_bmin(uint32(int32(x)), uint32(int32(y))))


@jit(device=True)
def llmax(x, y):
    """The larger of two int64."""
    return _bmax(int64(x), int64(y))


@jit(device=True)
def llmin(x, y):
    """The smaller of two int64."""
    return _bmin(int64(x), int64(y))


@jit(device=True)
def ullmax(x, y):
    """The larger of two uint64 (int64 bits in and out)."""
    return int64(_bmax(uint64(int64(x)), uint64(int64(y))))


@jit(device=True)
def ullmin(x, y):
    """The smaller of two uint64 (int64 bits in and out)."""
    return int64(_bmin(uint64(int64(x)), uint64(int64(y))))


@jit(device=True)
def popc(x):
    """The number of set bits of an int32."""
    return int32(_popc(uint32(int32(x))))


@jit(device=True)
def popcll(x):
    """The number of set bits of an int64, as int32."""
    return int32(_popc(uint64(int64(x))))


@jit(device=True)
def brev(x):
    """The bits of an int32 in reverse order."""
    return int32(_brev(uint32(int32(x))))


@jit(device=True)
def brevll(x):
    """The bits of an int64 in reverse order."""
    return int64(_brev(uint64(int64(x))))


@jit(device=True)
def clz(x):
    """The number of leading zero bits of an int32 (32 for 0)."""
    return int32(_clz(int32(x)))


@jit(device=True)
def clzll(x):
    """The number of leading zero bits of an int64 (64 for 0), as int32."""
    return int32(_clz(int64(x)))


@jit(device=True)
def ffs(x):
    """The 1-based position of the lowest set bit of an int32; 0 for 0."""
    return int32(_ffs(int32(x)))


@jit(device=True)
def ffsll(x):
    """The 1-based position of the lowest set bit of an int64, as int32; 0 for 0."""
    return int32(_ffs(int64(x)))


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
def hadd(x, y):
    """``(x + y) >> 1`` of two int32, without overflow."""
    return int32((int64(int32(x)) + int64(int32(y))) >> 1)


@jit(device=True)
def rhadd(x, y):
    """``(x + y + 1) >> 1`` of two int32, without overflow."""
    return int32((int64(int32(x)) + int64(int32(y)) + 1) >> 1)


@jit(device=True)
def uhadd(x, y):
    """``(x + y) >> 1`` of two uint32, without overflow (int32 bits in and out)."""
    return int32((uint64(uint32(int32(x))) + uint64(uint32(int32(y)))) >> uint32(1))


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
def umul24(x, y):
    """The low 32 bits of the product of the low 24 bits of x and y, unsigned."""
    return int32((int64(int32(x)) & 0xFFFFFF) * (int64(int32(y)) & 0xFFFFFF))


@jit(device=True)
def mulhi(x, y):
    """The high 32 bits of the 64-bit product of two int32."""
    return int32((int64(int32(x)) * int64(int32(y))) >> 32)


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
def umul64hi(x, y):
    """The high 64 bits of the 128-bit product of two uint64 (int64 bits in and out)."""
    return int64(_umul64hi(uint64(int64(x)), uint64(int64(y))))


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


# What the next modules of the package see (names starting with _ included).
__all__ = [name for name in list(globals()) if not name.startswith("__")]
