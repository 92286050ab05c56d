"""Numba's ufunc-builder protocol for the "cuda" target, made of cudajit's ufuncs.

``numba.vectorize(sigs, target="cuda")`` and ``numba.guvectorize(sigs, layout,
target="cuda")`` look their builder up in Numba's target registry, which imports
``numba.cuda.vectorizers`` on first use. Where ``numba.cuda`` is cudajit (``make compat``'s
binding puts this module there), Numba's decorators build cudajit ufuncs: the builder
collects the signatures (``add``) and ``build_ufunc`` returns a :class:`CUDAUFunc` or
:class:`CUDAGUFunc`, with numba-cuda's option rules.
"""

from __future__ import annotations

from typing import Any, Callable

from .gufunc import CUDAGUFunc, guvectorize_options
from .ufunc import CUDAUFunc, vectorize_options

__all__ = ["CUDAVectorize", "CUDAGUFuncVectorize"]


class CUDAVectorize:
    """Numba's builder of a CUDA ufunc: ``add(sig)`` per loop, then ``build_ufunc()``."""

    def __init__(self, func: Callable[..., Any], identity: Any = None, cache: bool = False,
                 targetoptions: dict[str, Any] | None = None):
        self.py_func = func
        self._options = vectorize_options({**(targetoptions or {}), "cache": cache})
        self._signatures: list[Any] = []

    def add(self, sig: Any = None) -> None:
        """Declare one loop (a signature such as ``float32(float32, float32)``)."""
        self._signatures.append(sig)

    def disable_compile(self) -> None:
        """Numba calls it after the declared loops: cudajit's ufunc compiles only those."""

    def build_ufunc(self) -> CUDAUFunc:
        """The ufunc with the loops added so far."""
        return CUDAUFunc(self.py_func, self._signatures, self._options)


class CUDAGUFuncVectorize:
    """Numba's builder of a CUDA generalized ufunc of one layout (``"(n),(n)->()"``)."""

    def __init__(self, func: Callable[..., Any], sig: str, identity: Any = None,
                 cache: bool = False, targetoptions: dict[str, Any] | None = None,
                 writable_args: tuple = ()):
        self.py_func = func
        self.signature = sig
        self._options = guvectorize_options(
            {**(targetoptions or {}), "cache": cache, "writable_args": writable_args})
        self._signatures: list[Any] = []

    def add(self, sig: Any = None) -> None:
        """Declare one loop (``void(float64[:], float64[:], float64[:])``)."""
        self._signatures.append(sig)

    def disable_compile(self) -> None:
        """Numba calls it after the declared loops: cudajit's gufunc compiles only those."""

    def build_ufunc(self) -> CUDAGUFunc:
        """The generalized ufunc with the loops added so far."""
        return CUDAGUFunc(self.py_func, self._signatures, self.signature, self._options)
