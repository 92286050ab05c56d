"""libdevice's arithmetic rounded to nearest (the _rn variants)."""

from __future__ import annotations

from ._base import *  # noqa: F401,F403
from .integer import *  # noqa: F401,F403
from .classification import *  # noqa: F401,F403
from .math64 import *  # noqa: F401,F403
from .math32 import *  # noqa: F401,F403
from .fast import *  # noqa: F401,F403

# --- arithmetic rounded to nearest (the _rn variants) -------------------------------------


@jit(device=True)
def dadd_rn(x, y):
    """``x + y`` of float64 values, rounded to nearest."""
    return float64(x) + float64(y)


@jit(device=True)
def dmul_rn(x, y):
    """``x * y`` of float64 values, rounded to nearest."""
    return float64(x) * float64(y)


@jit(device=True)
def ddiv_rn(x, y):
    """``x / y`` of float64 values, rounded to nearest."""
    return float64(x) / float64(y)


@jit(device=True)
def drcp_rn(x):
    """``1 / x`` of a float64, rounded to nearest."""
    return 1.0 / float64(x)


@jit(device=True)
def dsqrt_rn(x):
    """The square root of a float64, rounded to nearest."""
    return math.sqrt(float64(x))


@jit(device=True)
def fadd_rn(x, y):
    """``x + y`` of float32 values, rounded to nearest."""
    return float32(x) + float32(y)


@jit(device=True)
def fsub_rn(x, y):
    """``x - y`` of float32 values, rounded to nearest."""
    return float32(x) - float32(y)


@jit(device=True)
def fmul_rn(x, y):
    """``x * y`` of float32 values, rounded to nearest."""
    return float32(x) * float32(y)


@jit(device=True)
def fdiv_rn(x, y):
    """``x / y`` of float32 values, rounded to nearest (computed exactly enough in float64)."""
    return float32(float64(float32(x)) / float64(float32(y)))


@jit(device=True)
def frcp_rn(x):
    """``1 / x`` of a float32, rounded to nearest."""
    return float32(1.0 / float64(float32(x)))


@jit(device=True)
def fsqrt_rn(x):
    """The square root of a float32, rounded to nearest."""
    return float32(math.sqrt(float64(float32(x))))


@jit(device=True)
def frsqrt_rn(x):
    """``1 / sqrt(x)`` of a float32, rounded once to nearest."""
    return _rsqrt32(float32(x))


# What the next modules of the package see (names starting with _ included).
__all__ = [name for name in list(globals()) if not name.startswith("__")]
