"""libdevice's fast_ functions (approximate in libdevice; accurate here)."""

from __future__ import annotations

from ._base import *  # noqa: F401,F403
from .integer import *  # noqa: F401,F403
from .classification import *  # noqa: F401,F403
from .math64 import *  # noqa: F401,F403
from .math32 import *  # noqa: F401,F403

# --- fast (approximate in libdevice; accurate here) --------------------------------------


@jit(device=True)
def fast_cosf(x):
    """The cosine of a float32 (libdevice's fast approximation; here the accurate cosf)."""
    return math.cos(float32(x))


@jit(device=True)
def fast_sinf(x):
    """The sine of a float32 (libdevice's fast approximation; here the accurate sinf)."""
    return math.sin(float32(x))


@jit(device=True)
def fast_tanf(x):
    """The tangent of a float32 (libdevice's fast approximation; here the accurate tanf)."""
    return math.tan(float32(x))


@jit(device=True)
def fast_sincosf(x):
    """``(sin(x), cos(x))`` of a float32 (here the accurate ones)."""
    x = float32(x)
    return math.sin(x), math.cos(x)


@jit(device=True)
def fast_expf(x):
    """``e ** x`` of a float32 (here the accurate expf)."""
    return math.exp(float32(x))


@jit(device=True)
def fast_exp10f(x):
    """``10 ** x`` of a float32 (here the accurate exp10f)."""
    return _F10 ** float32(x)


@jit(device=True)
def fast_logf(x):
    """The natural logarithm of a float32 (here the accurate logf)."""
    return math.log(float32(x))


@jit(device=True)
def fast_log2f(x):
    """The base-2 logarithm of a float32 (here the accurate log2f)."""
    return math.log2(float32(x))


@jit(device=True)
def fast_log10f(x):
    """The base-10 logarithm of a float32 (here the accurate log10f)."""
    return math.log10(float32(x))


@jit(device=True)
def fast_powf(x, y):
    """``x ** y`` of float32 values (here the accurate powf)."""
    return math.pow(float32(x), float32(y))


@jit(device=True)
def fast_fdividef(x, y):
    """``x / y`` of float32 values (here the correctly rounded quotient)."""
    return float32(float64(float32(x)) / float64(float32(y)))


# What the next modules of the package see (names starting with _ included).
__all__ = [name for name in list(globals()) if not name.startswith("__")]
