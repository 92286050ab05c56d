"""``cudajit.jit`` and ``cudajit.compile_ptx``, as in ``numba.cuda``."""

from __future__ import annotations

import ast
import functools
import re
import warnings
from typing import Any, Callable

from . import _core, caching, frontend, type_arguments
from .config import config
from .dispatcher import (DebugDispatcher, DeviceFunction, Dispatcher, cc_number,
                         return_type_from_name)
from .errors import InvalidConfigWarning, hides_cudajit_frames
from .frontend.module_builder import unwrap
from .linking import link_items
from .source import read_function, warn_if_source_unreadable
from .types import Signature, Type, from_numba, parse_signature

__all__ = ["jit", "compile_ptx"]

# Numba's options that cudajit accepts, with the values that are what it does anyway.
_ACCEPTED_WITHOUT_EFFECT: dict[str, tuple[Any, ...]] = {
    # Device functions' inline="always" (or True) and forceinline=True are honoured (see
    # _inline_mode); a cost-model callable is not (Numba calls it with its own IR).
    "inline": (False, "never", True, "always", None),
    # numba-cuda's _dbg_optnone=True marks debug functions optnone; opt=False is cudajit's way.
    "_dbg_optnone": (False,),
    "forceinline": (False, True),
}

# The most registers a thread can have (PTX ISA: .maxnreg; sm_50 and newer).
_MAX_REGISTERS_LIMIT = 255


def _inline_mode(options: dict[str, Any]) -> str | None:
    """A device function's inlining, Numba's: inline="always" (or True) inlines each call (no
    call is left in the kernel's LLVM IR), forceinline=True marks the function alwaysinline
    (LLVM's optimiser then inlines it wherever it can); otherwise LLVM decides."""
    if options.get("inline") in ("always", True):
        return "always"
    return "force" if options.get("forceinline") is True else None


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


_LAUNCH_BOUNDS_NAMES = "(max_threads_per_block, min_blocks_per_sm, max_blocks_per_cluster)"


def check_launch_bounds(launch_bounds: Any, device: bool = False) -> tuple[int, int, int]:
    """Numba's ``launch_bounds`` (an int, or a tuple of one to three ints) as three ints,
    0 for those not given: the PTX's ``.maxntid``, ``.minnctapersm`` and ``.maxclusterrank``.
    A device function (``device``) takes none."""
    if launch_bounds is None:
        return (0, 0, 0)
    if device:
        raise ValueError("launch_bounds applies to kernels; a device function runs in the "
                         "kernel that calls it (give launch_bounds to that kernel)")
    bounds = (launch_bounds,) if isinstance(launch_bounds, int) else launch_bounds
    if not isinstance(bounds, (tuple, list)):
        raise TypeError(f"launch_bounds must be an int or a tuple of ints "
                        f"{_LAUNCH_BOUNDS_NAMES}; got {launch_bounds!r}")
    if len(bounds) > 3:
        raise ValueError(f"Got {len(bounds)} launch bounds: {launch_bounds}. A maximum of three "
                         f"are supported: {_LAUNCH_BOUNDS_NAMES}")
    if not bounds or any(isinstance(b, bool) or not isinstance(b, int) or b < 1 for b in bounds):
        raise ValueError(f"launch_bounds must be positive ints {_LAUNCH_BOUNDS_NAMES}; "
                         f"got {launch_bounds!r}")
    if bounds[0] > 1024:
        raise ValueError(f"launch_bounds: a block has at most 1024 threads; got "
                         f"max_threads_per_block={bounds[0]}")
    return tuple(bounds) + (0,) * (3 - len(bounds))  # type: ignore[return-value]


# jit(shared_memory_carveout=)'s names for percentages (Numba's, any case).
_CARVEOUT_NAMES = {"default": -1, "maxl1": 0, "maxshared": 100}


def check_shared_memory_carveout(carveout: Any) -> int:
    """jit(shared_memory_carveout=) as a percentage of the unified L1/shared memory to prefer
    as shared memory: None or "default" is -1 (the driver's default), "MaxL1" 0, "MaxShared"
    100, or an int from -1 to 100."""
    if carveout is None:
        return -1
    if isinstance(carveout, str):
        if carveout.lower() not in _CARVEOUT_NAMES:
            raise ValueError(f"Invalid carveout value: {carveout!r}; expected 'MaxL1', "
                             f"'MaxShared', 'default' or an int from -1 to 100")
        return _CARVEOUT_NAMES[carveout.lower()]
    if isinstance(carveout, bool) or not isinstance(carveout, int):
        raise TypeError(f"shared_memory_carveout must be a str ('MaxL1', 'MaxShared', "
                        f"'default') or an int from -1 to 100; got {carveout!r}")
    if not -1 <= carveout <= 100:
        raise ValueError(f"shared_memory_carveout must be between -1 and 100; got {carveout}")
    return carveout


def jit(func_or_sig: Any = None, device: bool = False, fastmath: bool = False,
        lineinfo: bool = False, debug: bool | None = None, max_registers: int | None = None,
        cache: bool = False, link: Any = None, launch_bounds: Any = None,
        shared_memory_carveout: Any = None, opt: bool | None = None, **options: Any) -> Any:
    """Compile a Python function into a CUDA kernel or device function.

    ``@jit`` compiles lazily, at the first launch for each set of argument
    types; ``@jit("void(float32[::1], float32)")`` (or a list of signatures)
    compiles eagerly; ``@jit(device=True)`` makes a device function, callable
    from kernels and other device functions. ``fastmath`` enables fast-math
    flags, flush-to-zero, approximate division and square root, and on the GPU
    libdevice's fast float32 cos, sin, tan, exp, log, log2, log10 and pow.
    ``lineinfo=True`` puts line tables in the PTX (``.file``/``.loc``, as
    ``nvcc -lineinfo``), which profilers and cuda-gdb map back to the Python
    source; ``debug=True`` adds DWARF debug information (each function, and each
    Python variable with its type) for cuda-gdb, as ``nvcc -G``, besides its
    exception checks; with ``opt=False`` the PTX is not optimised (``-O0``), so that
    every variable stays where the debugger reads it (``opt`` defaults to True: ``-O3``;
    the cpu device's code is always optimised). Not given, ``debug`` and ``opt`` follow
    ``cudajit.config.CUDA_DEBUGINFO_DEFAULT`` and ``cudajit.config.OPT`` (Numba's
    NUMBA_CUDA_DEBUGINFO and NUMBA_OPT). ``max_registers`` caps the
    registers per thread of a kernel (PTX ``.maxnreg``), trading spills for
    occupancy. ``launch_bounds``
    (``max_threads_per_block`` or a tuple adding ``min_blocks_per_sm`` and
    ``max_blocks_per_cluster``) promises the compiler the largest block the kernel is
    launched with (PTX ``.maxntid``, ``.minnctapersm``, ``.maxclusterrank``); a larger block
    is refused with CUDA_ERROR_INVALID_VALUE, as the driver refuses it.
    ``shared_memory_carveout`` (``"MaxL1"``, ``"MaxShared"``, ``"default"`` or a percentage
    from 0 to 100, -1 for the default) is the kernel's preferred split of the unified
    L1/shared memory on GPUs that have one (the driver's
    ``CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT``); a hint, not a limit, and of no
    meaning on the cpu device. ``cache=True``
    keeps each kernel's PTX on disk (``__pycache__`` beside the source file,
    or ``CUDAJIT_CACHE_DIR``) so that later processes load it instead of
    compiling; on the cpu device it changes nothing. ``link`` names foreign code
    (files, ``cuda.CUSource`` and the other ``LinkableCode`` objects) that the driver links
    with the kernel on the cuda device, defining the functions of ``cuda.declare_device``.
    """
    max_registers = _check_max_registers(max_registers)
    bounds = check_launch_bounds(launch_bounds, device)
    carveout = check_shared_memory_carveout(shared_memory_carveout)
    link = link_items(link)
    unknown = set(options) - set(_ACCEPTED_WITHOUT_EFFECT)
    if unknown:
        raise TypeError(f"jit() got unexpected options {sorted(unknown)}; expected device, "
                        "fastmath, lineinfo, debug, max_registers, cache, link, launch_bounds, "
                        "shared_memory_carveout")
    # Numba programs pass these; say that they change nothing here rather than pretend.
    ignored = sorted(k for k, v in options.items() if v not in _ACCEPTED_WITHOUT_EFFECT[k])
    if ignored:
        warnings.warn(f"jit(): {', '.join(f'{k}={options[k]!r}' for k in ignored)} has no effect "
                      "in cudajit yet", UserWarning, stacklevel=2)
    debug = config.CUDA_DEBUGINFO_DEFAULT if debug is None else bool(debug)
    opt = config.OPT != 0 if opt is None else bool(opt)
    inline = _inline_mode(options)
    if debug and opt:  # Numba's rule; cudajit's reason
        warnings.warn("debug=True with opt=True: debugging optimised device code is not "
                      "supported by CUDA's debugger (cuda-gdb reads few of its variables: their "
                      "debug information says optimised out); set opt=False to debug "
                      "unoptimised code, or debug=False",
                      InvalidConfigWarning, stacklevel=2)
    if debug and lineinfo:  # Numba's rule and the start of its message
        warnings.warn("debug and lineinfo are mutually exclusive: debug=True's debug information "
                      "holds the line tables; lineinfo=True alone gives them without it",
                      InvalidConfigWarning, stacklevel=2)

    @hides_cudajit_frames  # an eager compile's CompileError
    def decorate(pyfunc: Callable[..., Any], signatures: list[Any]) -> Any:
        # jit() of a kernel or device function compiles its Python function anew (as Numba).
        pyfunc = (getattr(pyfunc, "_cudajit_kernel_pyfunc", None)
                  or getattr(pyfunc, "_cudajit_device_pyfunc", None) or pyfunc)
        if device:
            if link:
                raise NotImplementedError(
                    "cudajit links foreign code with kernels: give link= to the kernels "
                    "that call this device function, or to cuda.declare_device")
            return DeviceFunction(pyfunc, list(signatures), fastmath=fastmath,
                                  inline=inline, debug=debug,
                                  lineinfo=lineinfo, opt=opt)
        kind = DebugDispatcher if debug else Dispatcher
        if inline:  # a kernel called from a kernel is a device function
            frontend.set_inline_mode(pyfunc, inline)
        if type_arguments.takes_types(pyfunc, signatures):  # kernel[g, b](a, np.float32)
            return type_arguments.TypeArgumentKernel(
                kind, pyfunc, signatures, fastmath=fastmath, lineinfo=lineinfo, debug=debug,
                max_registers=max_registers, launch_bounds=bounds,
                cache_dir=caching.cache_dir_for(pyfunc) if cache else None, link=link,
                shared_memory_carveout=carveout, opt=opt)
        return kind(pyfunc, signatures, fastmath=fastmath, lineinfo=lineinfo, debug=debug,
                    max_registers=max_registers, launch_bounds=bounds,
                    cache_dir=caching.cache_dir_for(pyfunc) if cache else None, link=link,
                    shared_memory_carveout=carveout, opt=opt)

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
                debug: bool = False, lineinfo: bool = False, abi: str = "numba",
                abi_info: dict[str, Any] | None = None,
                launch_bounds: Any = None, opt: bool | None = None) -> tuple[str, Type | str]:
    """Compile ``pyfunc`` for ``sig`` to PTX, as ``numba.cuda.compile_ptx``.

    Returns ``(ptx, return_type)``. ``device=True`` compiles a device function
    (a ``.func``), else a kernel (an ``.entry``). ``cc`` is the compute
    capability as ``(major, minor)``, default (8, 0); the PTX uses the lowest
    PTX ISA version that supports it. ``lineinfo`` adds line tables: ``.loc``
    directives naming the Python source lines; ``debug`` also DWARF sections
    (``.debug_info``) describing the functions and their variables. A device function
    returns its value (``func_retval0``) with either ``abi``; ``abi="c"`` names it as
    C code calls it: the Python function's ``__name__``, or ``abi_info["abi_name"]``
    (a mangled C++ name, say). ``launch_bounds`` and ``opt`` (False: ``-O0``) are as in
    :func:`jit`.
    """
    export_name = _export_name(pyfunc, device, abi, abi_info)
    if not device:
        _check_kernel_returns_nothing(pyfunc)
    bounds = check_launch_bounds(launch_bounds, device)
    signature = parse_signature(sig)
    declared = signature.return_type
    if not device and declared is not None and str(declared) != "none":
        raise TypeError(f"a kernel returns void; the signature declares {declared}")
    program = _core.Program(frontend.build_module(pyfunc))
    if debug:  # as a debug kernel's compile warns (module_builder.py)
        warn_if_source_unreadable(unwrap(pyfunc))
    result = program.compile_ptx([str(t) for t in signature.args], device=device,
                                 fastmath=fastmath, cc=cc_number(cc),
                                 return_type=str(declared) if device and declared else None,
                                 lineinfo=lineinfo, debug=debug, launch_bounds=bounds,
                                 export_name=export_name, opt=True if opt is None else bool(opt))
    return result["ptx"], return_type_from_name(result["return_type"])


def _check_kernel_returns_nothing(pyfunc: Callable[..., Any]) -> None:
    """Numba's TypeError for compile_ptx of a kernel whose body returns a value (nested
    functions aside). A source that cannot be read is left to the compiler's own error."""
    try:
        funcdef = read_function(unwrap(pyfunc)).funcdef
    except Exception:  # no source: the compile says what it can
        return
    pending: list[ast.AST] = list(funcdef.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.Return) and node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value is None):
            raise TypeError(f"CUDA kernel must have void return type: kernel "
                            f"'{funcdef.name}' returns a value (line {node.lineno}); write "
                            "results into an array argument, or compile a device function "
                            "(device=True)")
        pending.extend(ast.iter_child_nodes(node))


def _export_name(pyfunc: Callable[..., Any], device: bool, abi: str,
                 abi_info: dict[str, Any] | None) -> str:
    """The name compile_ptx gives a device function: "" (the compiler's) for Numba's ABI."""
    if abi not in ("numba", "c"):
        raise NotImplementedError(f"Unsupported ABI: {abi} (expected 'numba' or 'c')")
    if abi == "numba":
        return ""
    if not device:
        raise NotImplementedError("The C ABI is not supported for kernels (pass device=True)")
    name = (abi_info or {}).get("abi_name") or getattr(pyfunc, "__name__", "function")
    if not isinstance(name, str):
        raise TypeError(f"abi_info['abi_name'] must be a str; got {name!r}")
    # A PTX identifier: letters, digits, _ and $, not starting with a digit ("<lambda>").
    name = re.sub(r"[^A-Za-z0-9_$]", "_", name)
    return "_" + name if name[0].isdigit() else name
