"""libdevice's conversions."""

from __future__ import annotations

from ._base import *  # noqa: F401,F403
from .integer import *  # noqa: F401,F403
from .classification import *  # noqa: F401,F403
from .math64 import *  # noqa: F401,F403
from .math32 import *  # noqa: F401,F403
from .fast import *  # noqa: F401,F403
from .rounded import *  # noqa: F401,F403

# --- conversions ------------------------------------------------------------------------
# Float to integer conversions saturate (NaN gives 0), as PTX's cvt does; the
# rounding picks the integer first (floor, ceil, trunc, ties-to-even), exactly.


@jit(device=True)
def double2float_rn(d):
    """The float64 ``d`` rounded to the nearest float32."""
    return float32(float64(d))


@jit(device=True)
def double2int_rn(d):
    """The float64 ``d`` rounded to the nearest int32, halves to even."""
    return int32(_bround(float64(d), 0))


@jit(device=True)
def double2int_rz(d):
    """The float64 ``d`` rounded towards zero to an int32."""
    return int32(math.trunc(float64(d)))


@jit(device=True)
def double2int_rd(d):
    """The float64 ``d`` rounded down to an int32."""
    return int32(math.floor(float64(d)))


@jit(device=True)
def double2int_ru(d):
    """The float64 ``d`` rounded up to an int32."""
    return int32(math.ceil(float64(d)))


@jit(device=True)
def double2uint_rn(d):
    """The float64 ``d`` rounded to the nearest uint32, halves to even (int32 bits)."""
    return int32(uint32(_bround(float64(d), 0)))


@jit(device=True)
def double2uint_rz(d):
    """The float64 ``d`` rounded towards zero to a uint32 (int32 bits)."""
    return int32(uint32(math.trunc(float64(d))))


@jit(device=True)
def double2uint_rd(d):
    """The float64 ``d`` rounded down to a uint32 (int32 bits)."""
    return int32(uint32(math.floor(float64(d))))


@jit(device=True)
def double2uint_ru(d):
    """The float64 ``d`` rounded up to a uint32 (int32 bits)."""
    return int32(uint32(math.ceil(float64(d))))


@jit(device=True)
def double2ll_rn(f):
    """The float64 ``f`` rounded to the nearest int64, halves to even."""
    return int64(_bround(float64(f), 0))


@jit(device=True)
def double2ll_rz(f):
    """The float64 ``f`` rounded towards zero to an int64."""
    return int64(math.trunc(float64(f)))


@jit(device=True)
def double2ll_rd(f):
    """The float64 ``f`` rounded down to an int64."""
    return int64(math.floor(float64(f)))


@jit(device=True)
def double2ll_ru(f):
    """The float64 ``f`` rounded up to an int64."""
    return int64(math.ceil(float64(f)))


@jit(device=True)
def double2ull_rn(f):
    """The float64 ``f`` rounded to the nearest uint64, halves to even (int64 bits)."""
    return int64(uint64(_bround(float64(f), 0)))


@jit(device=True)
def double2ull_rz(f):
    """The float64 ``f`` rounded towards zero to a uint64 (int64 bits)."""
    return int64(uint64(math.trunc(float64(f))))


@jit(device=True)
def double2ull_rd(f):
    """The float64 ``f`` rounded down to a uint64 (int64 bits)."""
    return int64(uint64(math.floor(float64(f))))


@jit(device=True)
def double2ull_ru(f):
    """The float64 ``f`` rounded up to a uint64 (int64 bits)."""
    return int64(uint64(math.ceil(float64(f))))


@jit(device=True)
def float2int_rn(x):
    """The float32 ``x`` rounded to the nearest int32, halves to even."""
    return int32(_bround(float32(x), 0))


@jit(device=True)
def float2int_rz(x):
    """The float32 ``x`` rounded towards zero to an int32."""
    return int32(math.trunc(float32(x)))


@jit(device=True)
def float2int_rd(x):
    """The float32 ``x`` rounded down to an int32."""
    return int32(math.floor(float32(x)))


@jit(device=True)
def float2int_ru(x):
    """The float32 ``x`` rounded up to an int32."""
    return int32(math.ceil(float32(x)))


@jit(device=True)
def float2uint_rn(x):
    """The float32 ``x`` rounded to the nearest uint32, halves to even (int32 bits)."""
    return int32(uint32(_bround(float32(x), 0)))


@jit(device=True)
def float2uint_rz(x):
    """The float32 ``x`` rounded towards zero to a uint32 (int32 bits)."""
    return int32(uint32(math.trunc(float32(x))))


@jit(device=True)
def float2uint_rd(x):
    """The float32 ``x`` rounded down to a uint32 (int32 bits)."""
    return int32(uint32(math.floor(float32(x))))


@jit(device=True)
def float2uint_ru(x):
    """The float32 ``x`` rounded up to a uint32 (int32 bits)."""
    return int32(uint32(math.ceil(float32(x))))


@jit(device=True)
def float2ll_rn(f):
    """The float32 ``f`` rounded to the nearest int64, halves to even."""
    return int64(_bround(float32(f), 0))


@jit(device=True)
def float2ll_rz(f):
    """The float32 ``f`` rounded towards zero to an int64."""
    return int64(math.trunc(float32(f)))


@jit(device=True)
def float2ll_rd(f):
    """The float32 ``f`` rounded down to an int64."""
    return int64(math.floor(float32(f)))


@jit(device=True)
def float2ll_ru(f):
    """The float32 ``f`` rounded up to an int64."""
    return int64(math.ceil(float32(f)))


@jit(device=True)
def float2ull_rn(f):
    """The float32 ``f`` rounded to the nearest uint64, halves to even (int64 bits)."""
    return int64(uint64(_bround(float32(f), 0)))


@jit(device=True)
def float2ull_rz(f):
    """The float32 ``f`` rounded towards zero to a uint64 (int64 bits)."""
    return int64(uint64(math.trunc(float32(f))))


@jit(device=True)
def float2ull_rd(f):
    """The float32 ``f`` rounded down to a uint64 (int64 bits)."""
    return int64(uint64(math.floor(float32(f))))


@jit(device=True)
def float2ull_ru(f):
    """The float32 ``f`` rounded up to a uint64 (int64 bits)."""
    return int64(uint64(math.ceil(float32(f))))


@jit(device=True)
def int2double_rn(i):
    """The int32 ``i`` as a float64 (exact)."""
    return float64(int32(i))


@jit(device=True)
def uint2double_rn(i):
    """The uint32 ``i`` (int32 bits) as a float64 (exact)."""
    return float64(uint32(int32(i)))


@jit(device=True)
def int2float_rn(x):
    """The int32 ``x`` rounded to the nearest float32."""
    return float32(int32(x))


@jit(device=True)
def uint2float_rn(x):
    """The uint32 ``x`` (int32 bits) rounded to the nearest float32."""
    return float32(uint32(int32(x)))


@jit(device=True)
def ll2float_rn(l):  # noqa: E741  (Numba's argument name)
    """The int64 ``l`` rounded to the nearest float32."""
    return float32(int64(l))


@jit(device=True)
def ull2float_rn(l):  # noqa: E741
    """The uint64 ``l`` (int64 bits) rounded to the nearest float32."""
    return float32(uint64(int64(l)))


@jit(device=True)
def ll2double_rn(l):  # noqa: E741
    """The int64 ``l`` rounded to the nearest float64."""
    return float64(int64(l))


@jit(device=True)
def ull2double_rn(l):  # noqa: E741
    """The uint64 ``l`` (int64 bits) rounded to the nearest float64."""
    return float64(uint64(int64(l)))


# What the next modules of the package see (names starting with _ included).
__all__ = [name for name in list(globals()) if not name.startswith("__")]
