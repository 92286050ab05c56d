"""Kernels and device functions as ``@cuda.jit`` makes them.

A kernel is a :class:`Dispatcher`: ``kernel[griddim, blockdim](*args)`` launches
it, compiling a specialization for the argument types at the first launch that
sees them (or eagerly, for the signatures given to ``@jit``). The launch path —
classifying arguments, finding the specialization, packing parameters — is in
C++ (``cudajit._core.Dispatcher``); this module only holds the Python face.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from . import _core, frontend
from .types import Type, parse_signature

__all__ = ["Dispatcher", "DeviceFunction", "LaunchConfiguration"]

DEFAULT_CC = (8, 0)


def cc_number(cc: tuple[int, int] | None) -> int:
    """(8, 0) -> 80, checked."""
    if cc is None:
        cc = DEFAULT_CC
    if (not isinstance(cc, tuple) or len(cc) != 2
            or not all(isinstance(v, int) and v >= 0 for v in cc)):
        raise TypeError(f"cc must be a tuple (major, minor) such as (8, 0); got {cc!r}")
    number = cc[0] * 10 + cc[1]
    try:
        _core.ptx_feature(number)
    except ValueError as exc:
        raise ValueError(f"unsupported compute capability {cc!r}: {exc}") from None
    return number


def _signature_key(signature: Any) -> tuple[str, ...]:
    """The argument type spellings of a signature given as a Signature, a string or types."""
    if isinstance(signature, tuple) and all(isinstance(t, str) for t in signature):
        return signature
    return tuple(str(t) for t in parse_signature(signature).args)


class LaunchConfiguration:
    """``kernel[griddim, blockdim, stream, sharedmem]``: call it with the arguments."""

    __slots__ = ("dispatcher", "griddim", "blockdim", "stream", "sharedmem", "_launch")

    def __init__(self, dispatcher: "Dispatcher", griddim: Any, blockdim: Any, stream: Any = 0,
                 sharedmem: int = 0):
        if not isinstance(sharedmem, int) or sharedmem < 0:
            raise ValueError(f"sharedmem must be a non-negative int (bytes); got {sharedmem!r}")
        self.dispatcher = dispatcher
        self.griddim = griddim
        self.blockdim = blockdim
        self.stream = stream
        self.sharedmem = sharedmem
        self._launch = dispatcher._core.launch

    def __call__(self, *args: Any) -> None:
        self._launch(self.griddim, self.blockdim, *args)


class Dispatcher:
    """A CUDA kernel compiled from ``py_func``, specialised per argument types."""

    def __init__(self, py_func: Callable[..., Any], signatures: Sequence[Any] = (),
                 fastmath: bool = False, lineinfo: bool = False, debug: bool = False):
        self.py_func = py_func
        self._cudajit_kernel_pyfunc = py_func
        self.__name__ = getattr(py_func, "__name__", "kernel")
        self.__doc__ = getattr(py_func, "__doc__", None)
        self.__wrapped__ = py_func
        self.fastmath = fastmath
        self._core = _core.Dispatcher(self.__name__, lambda: frontend.build_module(py_func),
                                      fastmath=fastmath, lineinfo=lineinfo, debug=debug)
        self._ptx_cache: dict[tuple[tuple[str, ...], int], dict[str, str]] = {}
        for signature in signatures:
            self.compile(signature)

    def __getitem__(self, config: Any) -> LaunchConfiguration:
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise ValueError("a kernel launch needs kernel[griddim, blockdim] or "
                             f"kernel[griddim, blockdim, stream, sharedmem]; got [{config!r}]")
        return LaunchConfiguration(self, *config)

    def __call__(self, *args: Any) -> None:
        raise ValueError(f"kernel '{self.__name__}' has no launch configuration: launch it as "
                         f"{self.__name__}[griddim, blockdim](...)")

    def __repr__(self) -> str:
        return f"<cudajit kernel {self.__name__}>"

    def compile(self, signature: Any) -> None:
        """Compile eagerly for ``signature`` (a Signature, a string or a tuple of types)."""
        sig = parse_signature(signature)
        if sig.return_type is not None and str(sig.return_type) != "none":
            raise TypeError(f"kernel '{self.__name__}' must return void; the signature "
                            f"declares {sig.return_type}")
        self._core.declare([str(t) for t in sig.args])

    @property
    def signatures(self) -> list[tuple[str, ...]]:
        """The argument types of every specialization compiled so far."""
        return [tuple(s) for s in self._core.signatures]

    def _ptx(self, signature: tuple[str, ...], cc: int) -> dict[str, str]:
        key = (signature, cc)
        if key not in self._ptx_cache:
            self._ptx_cache[key] = self._core.compile_ptx(list(signature), cc)
        return self._ptx_cache[key]

    def _inspect(self, field: str, signature: Any, cc: tuple[int, int] | None) -> Any:
        number = cc_number(cc)
        if signature is not None:
            return self._ptx(_signature_key(signature), number)[field]
        return {sig: self._ptx(sig, number)[field] for sig in self.signatures}

    def inspect_llvm(self, signature: Any = None, cc: tuple[int, int] | None = None) -> Any:
        """The LLVM IR (for the GPU) of one signature, or a dict over every compiled one."""
        return self._inspect("llvm_ir", signature, cc)

    def inspect_asm(self, signature: Any = None, cc: tuple[int, int] | None = None) -> Any:
        """The PTX of one signature, or a dict over every compiled one."""
        return self._inspect("ptx", signature, cc)


class DeviceFunction:
    """A function compiled into the kernels that call it (``@cuda.jit(device=True)``)."""

    def __init__(self, py_func: Callable[..., Any], signature: Any = None,
                 fastmath: bool = False):
        self.py_func = py_func
        # A declared signature: calls convert their arguments and result to it.
        self.signature = parse_signature(signature) if signature is not None else None
        self._cudajit_device_pyfunc = py_func
        self.__name__ = getattr(py_func, "__name__", "device_function")
        self.__doc__ = getattr(py_func, "__doc__", None)
        self.__wrapped__ = py_func
        self.fastmath = fastmath

    def __call__(self, *args: Any) -> Any:
        raise TypeError(f"device function '{self.__name__}' can only be called from a kernel "
                        "or another device function")

    def __repr__(self) -> str:
        return f"<cudajit device function {self.__name__}>"


def return_type_from_name(name: str) -> Type | str:
    """The cudajit type object for a C++ type spelling (scalars and none); else the string."""
    from . import types

    if name == "none":
        return types.void
    if name == "bool":
        return types.boolean
    found = getattr(types, name, None)
    return found if isinstance(found, Type) else name

