"""What a compiled kernel tells about itself beyond its code: the types of its variables
(Numba's ``overload._type_annotation.typemap``), read from cudajit's typed IR.

The typed IR (``kernel.inspect_types()``) starts each function with its variables and their
types, one a line (``  name: type``); :class:`TypeAnnotation` holds them as cudajit types
where the spelling names one (numbers, arrays of numbers), else as the spelling itself."""

from __future__ import annotations

import re
from typing import Any

from . import types as _types

__all__ = ["TypeAnnotation", "type_from_spelling"]

_ARRAY = re.compile(r"^(readonly )?array\((\w+), (\d+)d, ([CFA])\)$")
_VARIABLE = re.compile(r"^  ([A-Za-z_][\w.$]*): (.+)$")


def type_from_spelling(text: str) -> Any:
    """The cudajit type a typed-IR spelling names (``int32``, ``array(float64, 2d, C)``);
    the text itself for what has no such type here (records, tuples, functions)."""
    scalar = getattr(_types, text, None)
    if isinstance(scalar, _types.Type):
        return scalar
    match = _ARRAY.match(text)
    if match:
        dtype = getattr(_types, match.group(2), None)
        if isinstance(dtype, _types.ScalarType):
            return _types.Array(dtype, int(match.group(3)), match.group(4),
                                readonly=bool(match.group(1)))
    return text


class TypeAnnotation:
    """Numba's ``_type_annotation`` of a compiled kernel: ``typemap``, each variable of the
    kernel's own function by name to its type; ``str()`` is the typed IR."""

    def __init__(self, typed_ir: str):
        self.text = typed_ir
        self.typemap: dict[str, Any] = {}
        lines = typed_ir.splitlines()
        for line in lines[1:]:  # the first line is the function's signature
            match = _VARIABLE.match(line)
            if match is None:
                break
            self.typemap[match.group(1)] = type_from_spelling(match.group(2).strip())

    def __str__(self) -> str:
        return self.text
