"""libdevice's bit reinterpretation and half conversions, and its Bessel functions
(libdevice's own on the GPU, the C library's on the cpu device)."""

from __future__ import annotations

from ._base import *  # noqa: F401,F403
from ..intrinsics import libm as _libm
from ..intrinsics import reinterpret as _reinterpret
from ..types import float16, int16

# --- bits --------------------------------------------------------------------------------


@jit(device=True)
def float_as_int(x):
    """The bits of the float32 ``x`` as an int32."""
    return _reinterpret.int32(float32(x))


@jit(device=True)
def int_as_float(x):
    """The bits of the int32 ``x`` as a float32."""
    return _reinterpret.float32(int32(x))


@jit(device=True)
def double_as_longlong(x):
    """The bits of the float64 ``x`` as an int64."""
    return _reinterpret.int64(float64(x))


@jit(device=True)
def longlong_as_double(x):
    """The bits of the int64 ``x`` as a float64."""
    return _reinterpret.float64(int64(x))


@jit(device=True)
def double2hiint(d):
    """The high 32 bits of the float64 ``d``, as an int32."""
    return int32(_reinterpret.int64(float64(d)) >> 32)


@jit(device=True)
def double2loint(d):
    """The low 32 bits of the float64 ``d``, as an int32."""
    return int32(_reinterpret.int64(float64(d)) & 0xFFFFFFFF)


@jit(device=True)
def hiloint2double(x, y):
    """The float64 whose high 32 bits are ``x`` and low 32 bits ``y`` (int32s)."""
    high = int64(int32(x)) << 32
    low = int64(int32(y)) & 0xFFFFFFFF
    return _reinterpret.float64(int64(high | low))


@jit(device=True)
def float2half_rn(f):
    """The float32 ``f`` rounded to the nearest float16, its bits as an int16."""
    return _reinterpret.int16(float16(float32(f)))


@jit(device=True)
def half2float(h):
    """The float16 whose bits are the int16 ``h``, as a float32."""
    return float32(_reinterpret.float16(int16(h)))


# --- Bessel functions -------------------------------------------------------------------


@jit(device=True)
def j0(x):
    """The Bessel function of the first kind of order 0, J0(x)."""
    return _libm.j0(float64(x))


@jit(device=True)
def j0f(x):
    """J0(x) of a float32."""
    return _libm.j0(float32(x))


@jit(device=True)
def j1(x):
    """The Bessel function of the first kind of order 1, J1(x)."""
    return _libm.j1(float64(x))


@jit(device=True)
def j1f(x):
    """J1(x) of a float32."""
    return _libm.j1(float32(x))


@jit(device=True)
def jn(n, x):
    """The Bessel function of the first kind of order ``n`` (int32), Jn(x)."""
    return _libm.jn(int32(n), float64(x))


@jit(device=True)
def jnf(n, x):
    """Jn(x) of a float32."""
    return _libm.jn(int32(n), float32(x))


@jit(device=True)
def y0(x):
    """The Bessel function of the second kind of order 0, Y0(x)."""
    return _libm.y0(float64(x))


@jit(device=True)
def y0f(x):
    """Y0(x) of a float32."""
    return _libm.y0(float32(x))


@jit(device=True)
def y1(x):
    """The Bessel function of the second kind of order 1, Y1(x)."""
    return _libm.y1(float64(x))


@jit(device=True)
def y1f(x):
    """Y1(x) of a float32."""
    return _libm.y1(float32(x))


@jit(device=True)
def yn(n, x):
    """The Bessel function of the second kind of order ``n`` (int32), Yn(x)."""
    return _libm.yn(int32(n), float64(x))


@jit(device=True)
def ynf(n, x):
    """Yn(x) of a float32."""
    return _libm.yn(int32(n), float32(x))


# What the next modules of the package see (names starting with _ included).
__all__ = [name for name in list(globals()) if not name.startswith("__")]
