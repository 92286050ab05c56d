"""NVIDIA libdevice's functions for kernels, as ``numba.cuda.libdevice`` has them.

Each function is libdevice's ``__nv_<name>``, with Numba's argument and return
types: arguments are converted to the declared types first (``sinf(x)`` is the
float32 sine of ``float32(x)``), so results have libdevice's types. As in Numba,
the "unsigned" functions (``umax``, ``usad``, ``double2uint_rz``, ``ullmin``...)
take and return int32 or int64 holding the unsigned bits. Functions that
libdevice returns through pointers return tuples, as Numba's do: ``frexp`` gives
``(mantissa, exponent)``, ``modf`` ``(fraction, integral)``, ``remquo``
``(remainder, quotient)``, ``sincos`` ``(sin, cos)``.

The ``fast_`` functions compute the accurate function here. Not provided
(they need a compiler intrinsic): arithmetic and conversions with a directed
rounding mode (``fadd_rz``, ``dmul_ru``, ``fsqrt_rd``, ``double2float_rz``,
``int2float_rd``...; the ``_rn`` variants are here) and bit reinterpretation
(``float_as_int``, ``int_as_float``, ``double_as_longlong``,
``longlong_as_double``, ``double2hiint``, ``double2loint``, ``hiloint2double``,
``float2half_rn``, ``half2float``); nor yet the Bessel functions (``j0``, ``j1``,
``jn``, ``y0``, ``y1``, ``yn`` and their ``f`` forms). See
docs/guide/02-kernel-language.md.
"""

from __future__ import annotations

from ._base import *  # noqa: F401,F403
from .integer import *  # noqa: F401,F403
from .classification import *  # noqa: F401,F403
from .math64 import *  # noqa: F401,F403
from .math32 import *  # noqa: F401,F403
from .fast import *  # noqa: F401,F403
from .rounded import *  # noqa: F401,F403
from .conversions import *  # noqa: F401,F403
from .bits import *  # noqa: F401,F403
from ..dispatcher import DeviceFunction

# Every public function above: libdevice's names, as numba.cuda.libdevice has them.
__all__ = sorted(name for name, value in list(globals().items())
                 if isinstance(value, DeviceFunction) and not name.startswith("_"))
