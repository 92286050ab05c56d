"""Foreign arrays: the CUDA Array Interface (v0 to v3) and DLPack, as numba.cuda.

A kernel argument exporting ``__cuda_array_interface__`` (or else DLPack) is
used in place; these functions make DeviceNDArray views of such arrays. The
rules (validation, synchronisation, lifetime) are in docs/guide/05-interop.md.
"""

from __future__ import annotations

from typing import Any

from . import _core
from .devicearray import DeviceNDArray, as_cuda_array

__all__ = ["as_cuda_array", "from_cuda_array_interface", "is_cuda_array", "from_dlpack"]


def is_cuda_array(obj: Any) -> bool:
    """Whether ``obj`` exports ``__cuda_array_interface__``."""
    return hasattr(obj, "__cuda_array_interface__")


def from_cuda_array_interface(desc: dict, owner: Any = None, sync: bool = True) -> DeviceNDArray:
    """A DeviceNDArray for a ``__cuda_array_interface__`` dict; the view keeps
    ``owner`` alive (nothing else keeps the memory valid)."""
    return DeviceNDArray(_core.import_cai_dict(desc, owner, sync))


def from_dlpack(obj: Any) -> DeviceNDArray:
    """A DeviceNDArray viewing an object that exports DLPack (``__dlpack__`` and
    ``__dlpack_device__``); the capsule's deleter runs when the view is freed."""
    if not (hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__")):
        raise TypeError(f"from_dlpack() expects an object with __dlpack__ and "
                        f"__dlpack_device__, got {type(obj).__name__}")
    return DeviceNDArray(_core.import_array(_DlpackOnly(obj), True))


class _DlpackOnly:
    """Hides ``__cuda_array_interface__`` so that import goes through DLPack."""

    __slots__ = ("_obj",)

    def __init__(self, obj: Any):
        self._obj = obj

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        return self._obj.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self) -> Any:
        return self._obj.__dlpack_device__()
