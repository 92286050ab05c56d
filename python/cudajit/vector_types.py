"""CUDA's vector types in kernels, as numba.cuda has them: ``cuda.float32x4(x, y, z, w)``
(from numbers, or from smaller vectors of the same type: ``float32x4(float32x2(a, b), c,
d)``) and their components ``v.x``, ``v.y``, ``v.z``, ``v.w``. Every ``<type>x<n>`` for the
integer and float types and n of 1 to 4, under CUDA's C names too (``float4``, ``int2``,
``uchar3`` ...). In a kernel a vector is a named tuple of its type (the compiler's
``cuda.vector.<name>``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import types as cjtypes

PREFIXES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
            "float32", "float64")
COMPONENTS = ("x", "y", "z", "w")

# CUDA's C names of the base types (as NumPy sizes them on this platform), as Numba's.
_C_NAMES = {
    "char": f"int{np.dtype(np.byte).itemsize * 8}",
    "short": f"int{np.dtype(np.short).itemsize * 8}",
    "int": f"int{np.dtype(np.intc).itemsize * 8}",
    "long": f"int{np.dtype(np.int_).itemsize * 8}",
    "longlong": f"int{np.dtype(np.longlong).itemsize * 8}",
    "uchar": f"uint{np.dtype(np.ubyte).itemsize * 8}",
    "ushort": f"uint{np.dtype(np.ushort).itemsize * 8}",
    "uint": f"uint{np.dtype(np.uintc).itemsize * 8}",
    "ulong": f"uint{np.dtype(np.uint).itemsize * 8}",
    "ulonglong": f"uint{np.dtype(np.ulonglong).itemsize * 8}",
    "float": f"float{np.dtype(np.single).itemsize * 8}",
    "double": f"float{np.dtype(np.double).itemsize * 8}",
}


class VectorType:
    """A vector type such as ``float32x4``: called in a kernel, it makes a vector."""

    def __init__(self, name: str, base_type: cjtypes.ScalarType, num_elements: int):
        self.name = self.__name__ = name
        self.base_type = base_type
        self.num_elements = num_elements
        self.attr_names = COMPONENTS[:num_elements]
        self.aliases: list[str] = []

    def __call__(self, *args: Any) -> Any:
        raise TypeError(f"cuda.{self.name}() makes a vector inside kernels only")

    def __repr__(self) -> str:
        return f"<cudajit vector type {self.name}>"


vector_types: dict[str, VectorType] = {}
for _prefix in PREFIXES:
    for _count in range(1, 5):
        _name = f"{_prefix}x{_count}"
        vector_types[_name] = VectorType(_name, getattr(cjtypes, _prefix), _count)
for _alias, _base in _C_NAMES.items():
    for _count in range(1, 5):
        vector_types[f"{_base}x{_count}"].aliases.append(f"{_alias}{_count}")

# Every name and alias, for `from .vector_types import *` in the package.
__all__: list[str] = []
for _vector in list(vector_types.values()):
    globals()[_vector.name] = _vector
    __all__.append(_vector.name)
    for _alias in _vector.aliases:
        globals()[_alias] = _vector
        __all__.append(_alias)
