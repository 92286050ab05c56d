"""CUDA C++ compiled to PTX with NVRTC, for foreign device functions (``cuda.CUSource``
and ``.cu`` files in ``link=``).

NVRTC is NVIDIA's runtime compiler library, found in the CUDA toolkit (``$CUDA_HOME``,
``$CUDA_PATH``, ``/usr/local/cuda``) or in NVIDIA's PyPI wheels (``nvidia-cuda-nvrtc`` for
CUDA 13, ``nvidia-cuda-nvrtc-cu12``), as numba-cuda finds it; it is loaded with ctypes at the
first compile, so cudajit needs it only where CUDA C++ is linked.
"""

from __future__ import annotations

import ctypes
import glob
import hashlib
import importlib.util
import os
import threading
import warnings
from pathlib import Path
from typing import Any

from .errors import CompileError, NvrtcError

# Library names, newest CUDA first.
_SONAMES = ("libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so")
# Folders under site-packages/nvidia/ that the wheels put libnvrtc in.
_WHEEL_LIB_DIRS = ("cu13/lib", "cuda_nvrtc/lib")

_lock = threading.Lock()
_library: ctypes.CDLL | None = None
_compiled: dict[tuple, bytes] = {}  # (source digest, arch, options) -> PTX


class NvrtcNotFound(RuntimeError):
    """No NVRTC library in the toolkit's places or NVIDIA's wheels."""


def _toolkit_roots() -> list[Path]:
    roots = [Path(os.environ[v]) for v in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(v)]
    return roots + [Path("/usr/local/cuda")]


def _wheel_lib_dirs() -> list[Path]:
    try:
        spec = importlib.util.find_spec("nvidia")  # a namespace package; nothing is imported
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    return [Path(location, sub) for location in spec.submodule_search_locations
            for sub in _WHEEL_LIB_DIRS]


def candidates() -> list[str]:
    """The files NVRTC is looked for in, in order (then the loader's own search)."""
    found = []
    for folder in [root / "lib64" for root in _toolkit_roots()] + _wheel_lib_dirs():
        for soname in _SONAMES:
            found += sorted(glob.glob(str(folder / (soname + "*"))), reverse=True)
    return list(dict.fromkeys(found + list(_SONAMES)))


def library() -> ctypes.CDLL:
    """The loaded NVRTC; NvrtcNotFound saying what to install where there is none."""
    global _library
    with _lock:
        if _library is None:
            for path in candidates():
                try:
                    _library = ctypes.CDLL(path)
                    break
                except OSError:
                    continue
            else:
                raise NvrtcNotFound(
                    "linking CUDA C++ (cuda.CUSource, .cu files) needs NVRTC, which was not "
                    "found: install the CUDA toolkit (and set CUDA_HOME) or the "
                    "'nvidia-cuda-nvrtc' wheel (pip install nvidia-cuda-nvrtc; "
                    "nvidia-cuda-nvrtc-cu12 for CUDA 12)")
            _declare(_library)
        return _library


def is_available() -> bool:
    """Whether NVRTC can be loaded."""
    try:
        library()
        return True
    except NvrtcNotFound:
        return False


def _declare(lib: ctypes.CDLL) -> None:
    p, c, s = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t
    for name, args in {
        "nvrtcCreateProgram": [ctypes.POINTER(p), c, c, ctypes.c_int, p, p],
        "nvrtcCompileProgram": [p, ctypes.c_int, ctypes.POINTER(c)],
        "nvrtcGetPTXSize": [p, ctypes.POINTER(s)],
        "nvrtcGetPTX": [p, c],
        "nvrtcGetProgramLogSize": [p, ctypes.POINTER(s)],
        "nvrtcGetProgramLog": [p, c],
        "nvrtcDestroyProgram": [ctypes.POINTER(p)],
        "nvrtcVersion": [ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int)],
        "nvrtcGetNumSupportedArchs": [ctypes.POINTER(ctypes.c_int)],
        "nvrtcGetSupportedArchs": [ctypes.POINTER(ctypes.c_int)],
    }.items():
        function = getattr(lib, name)
        function.argtypes = args
        function.restype = ctypes.c_int
    lib.nvrtcGetErrorString.argtypes = [ctypes.c_int]
    lib.nvrtcGetErrorString.restype = ctypes.c_char_p


def _check(lib: ctypes.CDLL, result: int, call: str) -> None:
    if result != 0:
        raise RuntimeError(f"{call} failed: {lib.nvrtcGetErrorString(result).decode()}")


def supported_ccs() -> list[int]:
    """The compute capabilities (major*10+minor) this NVRTC compiles for."""
    lib = library()
    count = ctypes.c_int()
    _check(lib, lib.nvrtcGetNumSupportedArchs(ctypes.byref(count)), "nvrtcGetNumSupportedArchs")
    archs = (ctypes.c_int * count.value)()
    _check(lib, lib.nvrtcGetSupportedArchs(archs), "nvrtcGetSupportedArchs")
    return sorted(archs)


def _arch_for(cc: int) -> int:
    """The newest capability NVRTC knows that is not newer than the device's: its PTX runs
    there (PTX for compute_XY runs on XY and later)."""
    usable = [a for a in supported_ccs() if a <= cc]
    if not usable:
        raise CompileError(f"this NVRTC compiles for compute capabilities "
                           f"{supported_ccs()[0] / 10:.1f} and newer; the device is "
                           f"{cc / 10:.1f}")
    return usable[-1]


def include_dirs() -> list[str]:
    """The toolkit's include folders, for cuda_fp16.h and friends (NVRTC brings its own
    builtins; the headers are the toolkit's or the nvidia-cuda-runtime wheel's), and their
    CCCL folder (include/cccl) where there is one."""
    folders = [root / "include" for root in _toolkit_roots()]
    folders += [d.parent / "include" for d in _wheel_lib_dirs()]
    found = [f for f in folders if (f / "cuda_runtime.h").is_file() or
             (f / "cuda_fp16.h").is_file()]
    # CUDA 13 keeps CCCL (libcu++'s <cuda/std/...>, <cuda/barrier>, which cooperative_groups.h
    # includes) in include/cccl; numba-cuda gives NVRTC that folder too.
    found += [f / "cccl" for f in found if (f / "cccl" / "cuda" / "std").is_dir()]
    return list(dict.fromkeys(str(f) for f in found))  # a toolkit found twice, once


def _program_log(lib: Any, program: ctypes.c_void_p) -> str:
    """NVRTC's log of a compile (errors and warnings), stripped; "" when empty."""
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(program, ctypes.byref(size))
    log = ctypes.create_string_buffer(max(size.value, 1))
    lib.nvrtcGetProgramLog(program, log)
    return log.value.decode(errors="replace").strip()


def compile_to_ptx(source: str, name: str, cc: int, extra_includes: list[str] = ()) -> bytes:
    """``source`` (CUDA C++) compiled to PTX for compute capability ``cc`` (major*10+minor),
    as relocatable device code so that its ``extern "C" __device__`` functions stay for the
    linker. Kept per process by the source's contents, the capability and the include
    folders. NvrtcError (a CompileError) with NVRTC's log when it does not compile."""
    arch = _arch_for(cc)
    includes = [*extra_includes, *include_dirs()]
    key = (hashlib.sha256(source.encode()).hexdigest(), arch, tuple(includes))
    with _lock:
        if key in _compiled:
            return _compiled[key]
    lib = library()
    options = [f"--gpu-architecture=compute_{arch}", "-rdc=true",
               *(f"-I{d}" for d in includes)]
    program = ctypes.c_void_p()
    _check(lib, lib.nvrtcCreateProgram(ctypes.byref(program), source.encode(), name.encode(),
                                       0, None, None), "nvrtcCreateProgram")
    try:
        argv = (ctypes.c_char_p * len(options))(*(o.encode() for o in options))
        result = lib.nvrtcCompileProgram(program, len(options), argv)
        if result != 0:
            raise NvrtcError(f"NVRTC could not compile '{name}' for compute_{arch} "
                             f"(NVRTC_ERROR_COMPILATION in the compilation of "
                             f"\"{os.path.basename(name)}\"):\n{_program_log(lib, program)}")
        log = _program_log(lib, program)
        if log:  # warnings that did not stop the compile, as Numba reports them
            warnings.warn(f"NVRTC log messages compiling '{name}' for compute_{arch}:\n{log}",
                          UserWarning, stacklevel=2)
        size = ctypes.c_size_t()
        _check(lib, lib.nvrtcGetPTXSize(program, ctypes.byref(size)), "nvrtcGetPTXSize")
        ptx = ctypes.create_string_buffer(size.value)
        _check(lib, lib.nvrtcGetPTX(program, ptx), "nvrtcGetPTX")
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(program))
    with _lock:
        _compiled[key] = ptx.value
    return ptx.value
