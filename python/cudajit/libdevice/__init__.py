"""NVIDIA libdevice's functions for kernels, as ``numba.cuda.libdevice`` has them.

Each function is libdevice's ``__nv_<name>``, with Numba's argument and return
types: arguments are converted to the declared types first (``sinf(x)`` is the
float32 sine of ``float32(x)``), so results have libdevice's types. As in Numba,
the "unsigned" functions (``umax``, ``usad``, ``double2uint_rz``, ``ullmin``...)
take and return int32 or int64 holding the unsigned bits. Functions that
libdevice returns through pointers return tuples, as Numba's do: ``frexp`` gives
``(mantissa, exponent)``, ``modf`` ``(fraction, integral)``, ``remquo``
``(remainder, quotient)``, ``sincos`` ``(sin, cos)``.

The ``fast_`` functions compute the accurate function here. The arithmetic
and conversions with a directed rounding mode (``fadd_rz``, ``dmul_ru``,
``fsqrt_rd``, ``fma_rz``, ``double2float_ru``, ``ull2float_rd``...: module
``directed``) are exactly rounded on every device, computed in the kernel
language from the result rounded to nearest and its exact error (an
error-free transformation), subnormals, overflow and signed zeros as IEEE 754
has them; they are slower than a GPU's rounding-mode instructions. See
docs/guide/02-kernel-language.md.
"""

from __future__ import annotations

from . import bits, classification, conversions, directed, fast, integer, math32, math64, rounded
from .bits import *  # noqa: F401,F403  (each module's __all__: its public functions)
from .classification import *  # noqa: F401,F403
from .conversions import *  # noqa: F401,F403
from .directed import *  # noqa: F401,F403
from .fast import *  # noqa: F401,F403
from .integer import *  # noqa: F401,F403
from .math32 import *  # noqa: F401,F403
from .math64 import *  # noqa: F401,F403
from .rounded import *  # noqa: F401,F403

# Every public function: libdevice's names, as numba.cuda.libdevice has them.
__all__ = sorted([*bits.__all__, *classification.__all__, *conversions.__all__,
                  *directed.__all__, *fast.__all__, *integer.__all__, *math32.__all__,
                  *math64.__all__, *rounded.__all__])
