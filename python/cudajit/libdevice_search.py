"""Where libdevice is found when no CUDA toolkit is installed: NVIDIA's PyPI wheels.

numba-cuda and CuPy users install libdevice with pip (``nvidia-nvvm`` for CUDA 13,
``nvidia-cuda-nvcc-cu12`` for CUDA 12); the compiler looks there after ``$CUDA_HOME`` and
``$CUDA_PATH`` and before the toolkit's usual places. Only kernels that call math
functions on a GPU need libdevice.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from . import _core

# Folders under site-packages/nvidia/ that hold nvvm/libdevice/libdevice.10.bc, newest first.
WHEEL_ROOTS = ("cu13", "cuda_nvcc")
LIBDEVICE = Path("nvvm", "libdevice", "libdevice.10.bc")


def package_roots() -> list[str]:
    """The roots of the NVIDIA wheels installed in this Python that carry libdevice."""
    try:
        spec = importlib.util.find_spec("nvidia")  # a namespace package; nothing is imported
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    roots = []
    for location in spec.submodule_search_locations:
        for name in WHEEL_ROOTS:
            root = Path(location, name)
            if (root / LIBDEVICE).is_file():
                roots.append(str(root))
    return roots


def install() -> None:
    """Tells the compiler about the wheels' libdevice (called once, at import)."""
    _core.set_libdevice_package_roots(package_roots())


def libdevice_path() -> str:
    """The libdevice.10.bc kernels are linked with; RuntimeError saying how to install one."""
    return _core.libdevice_path()
