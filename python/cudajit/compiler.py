"""``cudajit.jit`` and ``cudajit.compile_ptx``, as in ``numba.cuda``."""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable

from . import _core, caching, frontend
from .dispatcher import (DebugDispatcher, DeviceFunction, Dispatcher, cc_number,
                         return_type_from_name)
from .errors import hides_cudajit_frames
from .linking import link_items
from .types import Signature, Type, from_numba, parse_signature

__all__ = ["jit", "compile_ptx"]

# Numba's options that cudajit accepts, with the values that are what it does anyway.
_ACCEPTED_WITHOUT_EFFECT: dict[str, tuple[Any, ...]] = {
    "inline": (False, "never"),
    # opt=False is Numba's spelling for debugging (with debug=True, so that cuda-gdb can
    # follow the code). cudajit optimises at -O3 either way; debug=True's exception checks and
    # line tables work on optimised code, so opt=False is what it means here: nothing to do.
    "opt": (True, False),
    # numba-cuda's forceinline=True inlines device functions at NVVM IR; cudajit leaves
    # inlining to LLVM's O3, as forceinline=False (the default) does.
    "forceinline": (False,),
}

# The most registers a thread can have (PTX ISA: .maxnreg; sm_50 and newer).
_MAX_REGISTERS_LIMIT = 255


def _is_signature(value: Any) -> bool:
    return isinstance(from_numba(value), (str, Signature, tuple)) or (
        isinstance(value, list) and all(_is_signature(v) for v in value))


def _check_max_registers(max_registers: Any) -> int | None:
    if max_registers is None:
        return None
    if (isinstance(max_registers, bool) or not isinstance(max_registers, int)
            or not 1 <= max_registers <= _MAX_REGISTERS_LIMIT):
        raise ValueError(f"max_registers must be an int from 1 to {_MAX_REGISTERS_LIMIT} "
                         f"(registers per thread) or None; got {max_registers!r}")
    return max_registers


def jit(func_or_sig: Any = None, device: bool = False, fastmath: bool = False,
        lineinfo: bool = False, debug: bool = False, max_registers: int | None = None,
        cache: bool = False, link: Any = None, **options: Any) -> Any:
    """Compile a Python function into a CUDA kernel or device function.

    ``@jit`` compiles lazily, at the first launch for each set of argument
    types; ``@jit("void(float32[::1], float32)")`` (or a list of signatures)
    compiles eagerly; ``@jit(device=True)`` makes a device function, callable
    from kernels and other device functions. ``fastmath`` enables fast-math
    flags, flush-to-zero, approximate division and square root, and on the GPU
    libdevice's fast float32 cos, sin, tan, exp, log, log2, log10 and pow.
    ``lineinfo=True`` puts line tables in the PTX (``.file``/``.loc``, as
    ``nvcc -lineinfo``), which profilers and cuda-gdb map back to the Python
    source; ``debug=True`` gives the same line tables (no variable
    information yet). ``max_registers`` caps the registers per thread of a
    kernel (PTX ``.maxnreg``), trading spills for occupancy. ``cache=True``
    keeps each kernel's PTX on disk (``__pycache__`` beside the source file,
    or ``CUDAJIT_CACHE_DIR``) so that later processes load it instead of
    compiling; on the cpu device it changes nothing. ``link`` names foreign code
    (files, ``cuda.CUSource`` and the other ``LinkableCode`` objects) that the driver links
    with the kernel on the cuda device, defining the functions of ``cuda.declare_device``.
    """
    max_registers = _check_max_registers(max_registers)
    link = link_items(link)
    unknown = set(options) - set(_ACCEPTED_WITHOUT_EFFECT)
    if unknown:
        raise TypeError(f"jit() got unexpected options {sorted(unknown)}; expected device, "
                        "fastmath, lineinfo, debug, max_registers, cache")
    # Numba programs pass these; say that they change nothing here rather than pretend.
    ignored = sorted(k for k, v in options.items() if v not in _ACCEPTED_WITHOUT_EFFECT[k])
    if ignored:
        warnings.warn(f"jit(): {', '.join(f'{k}={options[k]!r}' for k in ignored)} has no effect "
                      "in cudajit yet", UserWarning, stacklevel=2)

    @hides_cudajit_frames  # an eager compile's CompileError
    def decorate(pyfunc: Callable[..., Any], signatures: list[Any]) -> Any:
        if device:
            if link:
                raise NotImplementedError(
                    "cudajit links foreign code with kernels: give link= to the kernels "
                    "that call this device function, or to cuda.declare_device")
            return DeviceFunction(pyfunc, list(signatures), fastmath=fastmath)
        kind = DebugDispatcher if debug else Dispatcher
        return kind(pyfunc, signatures, fastmath=fastmath, lineinfo=lineinfo, debug=debug,
                    max_registers=max_registers,
                    cache_dir=caching.cache_dir_for(pyfunc) if cache else None, link=link)

    # functools.partial, not a lambda: a frame of ours between the user's decorator line
    # and decorate() would stay in a CompileError's traceback.
    if func_or_sig is None:
        return functools.partial(decorate, signatures=[])
    if _is_signature(func_or_sig):
        signatures = func_or_sig if isinstance(func_or_sig, list) else [func_or_sig]
        for s in signatures:
            parse_signature(s)  # bad signatures fail here, at decoration
        return functools.partial(decorate, signatures=signatures)
    if callable(func_or_sig):
        return decorate(func_or_sig, [])
    raise TypeError(f"jit() expects a function or a signature; got {func_or_sig!r}")


@hides_cudajit_frames
def compile_ptx(pyfunc: Callable[..., Any], sig: Any, device: bool = False,
                fastmath: bool = False, cc: tuple[int, int] | None = None,
                debug: bool = False, lineinfo: bool = False) -> tuple[str, Type | str]:
    """Compile ``pyfunc`` for ``sig`` to PTX, as ``numba.cuda.compile_ptx``.

    Returns ``(ptx, return_type)``. ``device=True`` compiles a device function
    (a ``.func``), else a kernel (an ``.entry``). ``cc`` is the compute
    capability as ``(major, minor)``, default (8, 0); the PTX uses the lowest
    PTX ISA version that supports it. ``lineinfo`` (or ``debug``) adds line
    tables: ``.loc`` directives naming the Python source lines.
    """
    signature = parse_signature(sig)
    declared = signature.return_type
    if not device and declared is not None and str(declared) != "none":
        raise TypeError(f"a kernel returns void; the signature declares {declared}")
    program = _core.Program(frontend.build_module(pyfunc))
    result = program.compile_ptx([str(t) for t in signature.args], device=device,
                                 fastmath=fastmath, cc=cc_number(cc),
                                 return_type=str(declared) if device and declared else None,
                                 lineinfo=lineinfo, debug=debug)
    return result["ptx"], return_type_from_name(result["return_type"])
