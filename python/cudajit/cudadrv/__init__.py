"""The parts of ``numba.cuda.cudadrv`` that programs reach through ``cuda.cudadrv``:
``driver`` (its exceptions, the driver's version, the profiler calls) and ``runtime``."""

from __future__ import annotations

from . import driver, runtime

__all__ = ["driver", "runtime"]
