"""libdevice's float classification."""

from __future__ import annotations

from ._base import *  # noqa: F401,F403
from .integer import *  # noqa: F401,F403

# --- float classification ------------------------------------------------------------


@jit(device=True)
def isnand(x):
    """1 if the float64 ``x`` is NaN, else 0."""
    return int32(math.isnan(float64(x)))


@jit(device=True)
def isnanf(x):
    """1 if the float32 ``x`` is NaN, else 0."""
    return int32(math.isnan(float32(x)))


@jit(device=True)
def isinfd(x):
    """1 if the float64 ``x`` is infinite, else 0."""
    return int32(math.isinf(float64(x)))


@jit(device=True)
def isinff(x):
    """1 if the float32 ``x`` is infinite, else 0."""
    return int32(math.isinf(float32(x)))


@jit(device=True)
def isfinited(x):
    """1 if the float64 ``x`` is finite, else 0."""
    return int32(math.isfinite(float64(x)))


@jit(device=True)
def finitef(x):
    """1 if the float32 ``x`` is finite, else 0."""
    return int32(math.isfinite(float32(x)))


@jit(device=True)
def signbitd(x):
    """1 if the sign bit of the float64 ``x`` is set (-0.0 and negative NaNs too), else 0."""
    return int32(math.copysign(1.0, float64(x)) < 0.0)


@jit(device=True)
def signbitf(x):
    """1 if the sign bit of the float32 ``x`` is set (-0.0 and negative NaNs too), else 0."""
    return int32(math.copysign(_F1, float32(x)) < _F0)


# What the next modules of the package see (names starting with _ included).
__all__ = [name for name in list(globals()) if not name.startswith("__")]
