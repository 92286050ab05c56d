"""Where ``jit(cache=True)`` keeps compiled kernels, as Numba's cache does:
the ``__pycache__`` directory beside the kernel's source file, else (when that
cannot be written) a per-user directory; ``CUDAJIT_CACHE_DIR`` overrides both.

The files themselves are written and read by the C++ dispatcher
(python/src/disk_cache.hpp): PTX keyed by the kernel IR, the argument types,
the options, the target and the compiler's identity.
"""

from __future__ import annotations

import inspect
import os
from typing import Any, Callable

__all__ = ["cache_dir_for"]


def _user_cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "cudajit")


def _writable(directory: str) -> bool:
    """True when `directory` exists and can be written, or can be created."""
    probe = directory
    while not os.path.exists(probe):
        parent = os.path.dirname(probe)
        if parent == probe:
            return False
        probe = parent
    return os.path.isdir(probe) and os.access(probe, os.W_OK | os.X_OK)


def cache_dir_for(pyfunc: Callable[..., Any]) -> str:
    """The directory the compiled kernels of ``pyfunc`` are cached in."""
    override = os.environ.get("CUDAJIT_CACHE_DIR")
    if override:
        return os.path.abspath(override)
    try:
        source = inspect.getsourcefile(pyfunc)
    except TypeError:
        source = None
    if source:
        beside = os.path.join(os.path.dirname(os.path.abspath(source)), "__pycache__")
        if _writable(beside):
            return beside
    return _user_cache_dir()
