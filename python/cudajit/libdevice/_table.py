"""Device functions generated from a table: the one-expression wrappers of
``cudajit.libdevice`` and ``cudajit.fp16``.

A row gives a function's name, its parameters with the type each argument is
converted to (Numba's signature of the function), the expression it returns, and
its docstring. cudajit compiles a device function from its Python source, so each
function is made from text, ``def name(params): return expression``, where each
typed parameter is replaced by its conversion: with ``x: float32``, the expression
``math.sin(x)`` becomes ``math.sin(float32(x))``. The expression's other names are
looked up in the module that defines the row (its helpers, ``math``, the types).
The text of a module's rows is registered with linecache under a pseudo file name,
``<cudajit.libdevice.math32 (generated)>``, so that the front end, compile errors,
tracebacks and ``inspect.getsource`` read it.

Compiling hundreds of functions would make ``import cudajit`` slower, so a
module holds a :class:`GeneratedFunction` per row (a ``DeviceFunction``) whose
Python function is compiled the first time something asks for it: the front end
compiling a kernel that calls it, ``inspect``, ``pickle``.
"""

from __future__ import annotations

import linecache
import re
import threading
from typing import Any, NamedTuple

from ..dispatcher import DeviceFunction
from ..source import attach_text

__all__ = ["Row", "rows", "parse_params", "source_lines", "define", "GeneratedFunction"]

# (parameter, the type its argument is converted to, or None to pass it as it is)
Params = tuple[tuple[str, "str | None"], ...]


class Row(NamedTuple):
    """One generated function: ``def name(params): return expression``."""

    name: str
    params: Params
    expression: str  # in the parameters' names, each standing for its converted argument
    doc: str


def parse_params(spec: str) -> Params:
    """``"x: float32, n: int32, l"`` as ``(("x", "float32"), ("n", "int32"), ("l", None))``."""
    params = []
    for item in spec.split(","):
        name, _, type_name = item.partition(":")
        params.append((name.strip(), type_name.strip() or None))
    return tuple(params)


def rows(params: str, *entries: tuple[str, str, str]) -> list[Row]:
    """The rows of functions with the same parameters, ``params`` as
    :func:`parse_params` reads it, from ``(name, expression, docstring)`` entries."""
    parsed = parse_params(params)
    return [Row(name, parsed, expression, doc) for name, expression, doc in entries]


def source_lines(row: Row) -> list[str]:
    """The two lines of the function a row defines."""
    conversions = {name: f"{type_name}({name})" for name, type_name in row.params if type_name}
    body = row.expression
    if conversions:  # each parameter name, not an attribute (.x) nor part of a name
        pattern = r"(?<![\w.])(" + "|".join(conversions) + r")\b"
        body = re.sub(pattern, lambda match: conversions[match.group(1)], body)
    params = ", ".join(name for name, _ in row.params)
    return [f"def {row.name}({params}):\n", f"    return {body}\n"]


class _Listing:
    """The rows of one module and their text (made, and registered with linecache, at
    the first function compiled): row ``i`` is at lines ``2i + 1`` and ``2i + 2``."""

    def __init__(self, namespace: dict[str, Any], table: list[Row]) -> None:
        self.namespace = namespace
        self.table = table
        self.filename = f"<{namespace['__name__']} (generated)>"
        self._lines: list[str] | None = None

    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = [line for row in self.table for line in source_lines(row)]
        entry = linecache.cache.get(self.filename)
        if entry is None or entry[2] is not self._lines:  # first use, or linecache cleared
            # No modification time: linecache.checkcache keeps the entry.
            linecache.cache[self.filename] = (sum(map(len, self._lines)), None, self._lines,
                                              self.filename)
        return self._lines

    def function(self, index: int) -> Any:
        """The Python function of row ``index``, compiled from its lines at their place."""
        row = self.table[index]
        lines = self.lines()
        text = "\n" * (2 * index) + lines[2 * index] + lines[2 * index + 1]
        scope: dict[str, Any] = {}
        # The module's globals: the function's names resolve there and its __module__ is
        # the module's; the def binds into `scope`, not over the GeneratedFunction.
        exec(compile(text, self.filename, "exec", dont_inherit=True),  # noqa: S102
             self.namespace, scope)
        function = scope[row.name]
        function.__doc__ = row.doc
        attach_text(function, 1, lines)  # the front end's source even if linecache is cleared
        return function


_LOCK = threading.Lock()


class GeneratedFunction(DeviceFunction):
    """A device function made from a table row; its Python function (``py_func``) is
    compiled from the row's text the first time it is asked for."""

    _MADE_AT_FIRST_USE = ("py_func", "_cudajit_device_pyfunc", "__wrapped__")

    def __init__(self, listing: _Listing, index: int) -> None:
        super().__init__(None)
        for attribute in self._MADE_AT_FIRST_USE:
            vars(self).pop(attribute, None)  # made by __getattr__
        row = listing.table[index]
        self.__name__ = row.name
        self.__doc__ = row.doc
        self._listing = listing
        self._index = index

    def __getattr__(self, attribute: str) -> Any:
        # Called only for attributes not set: the Python function before its first use.
        if attribute not in GeneratedFunction._MADE_AT_FIRST_USE or "_listing" not in vars(self):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute "
                                 f"'{attribute}'")
        with _LOCK:
            function = vars(self).get("py_func")
            if function is None:
                function = self._listing.function(self._index)
                for name in self._MADE_AT_FIRST_USE:
                    setattr(self, name, function)
        return function


def define(namespace: dict[str, Any], table: list[Row]) -> list[str]:
    """Binds a :class:`GeneratedFunction` for each row in ``namespace``, a module's
    globals; returns the rows' names (for the module's ``__all__``)."""
    listing = _Listing(namespace, table)
    for index, row in enumerate(table):
        if row.name in namespace:
            raise ValueError(f"{namespace['__name__']}: '{row.name}' is defined twice")
        namespace[row.name] = GeneratedFunction(listing, index)
    return [row.name for row in table]
