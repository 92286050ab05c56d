"""Python functions pickled by value: how a kernel or device function defined in
``__main__`` (or in another function) travels to another process with plain pickle, as
Numba's do, so that multiprocessing's spawn pools and concurrent.futures need no
cloudpickle.

The payload is the function's code (marshal: the other process runs the same Python), the
globals its code names (modules by name, anything else pickled as itself: other kernels and
device functions by reference or by value in turn), its closure's values and its defaults.
References from the function back to the kernel or device function that owns it (a device
function calling itself) are left out and bound again once the owner is rebuilt: pickling
them would recurse without end."""

from __future__ import annotations

import builtins
import importlib
import marshal
import types
from typing import Any, Callable

__all__ = ["by_value", "bind_owner"]

_EMPTY_CELL = "<cudajit: empty cell>"


class _ByValue:
    """Pickles as ``_rebuild_function(payload)``."""

    def __init__(self, payload: tuple):
        self.payload = payload

    def __reduce__(self) -> tuple:
        return (_rebuild_function, self.payload)


def _names_in(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names_in(const)
    return names


def by_value(func: types.FunctionType, owner: Any) -> _ByValue:
    """What pickles ``func`` by value; ``owner`` (the kernel or device function made from
    it) is not pickled where ``func`` refers to it."""
    module_globals, value_globals, owner_names = {}, {}, []
    for name in sorted(_names_in(func.__code__)):
        if name not in func.__globals__:
            continue  # a builtin or an attribute name
        value = func.__globals__[name]
        if value is owner:
            owner_names.append(name)
        elif isinstance(value, types.ModuleType):
            module_globals[name] = value.__name__
        else:
            value_globals[name] = value
    cells, owner_cells = [], []
    for index, cell in enumerate(func.__closure__ or ()):
        try:
            value = cell.cell_contents
        except ValueError:
            value = _EMPTY_CELL
        if value is owner:
            owner_cells.append(index)
            value = None
        cells.append(value)
    return _ByValue((marshal.dumps(func.__code__), func.__name__, func.__qualname__,
                     func.__module__, func.__defaults__, func.__kwdefaults__, module_globals,
                     value_globals, None if func.__closure__ is None else tuple(cells),
                     (owner_names, owner_cells)))


def _rebuild_function(code: bytes, name: str, qualname: str, module: str, defaults: Any,
                      kwdefaults: Any, module_globals: dict[str, str],
                      value_globals: dict[str, Any], cells: tuple | None,
                      owner_refs: tuple[list[str], list[int]]) -> types.FunctionType:
    scope: dict[str, Any] = {"__builtins__": builtins, "__name__": module}
    scope.update({k: importlib.import_module(v) for k, v in module_globals.items()})
    scope.update(value_globals)
    closure = None if cells is None else tuple(
        types.CellType() if v == _EMPTY_CELL and isinstance(v, str) else types.CellType(v)
        for v in cells)
    func = types.FunctionType(marshal.loads(code), scope, name, defaults, closure)
    func.__qualname__ = qualname
    func.__kwdefaults__ = kwdefaults
    func.__module__ = module
    func._cudajit_owner_refs = owner_refs  # type: ignore[attr-defined]
    return func


def bind_owner(func: Callable[..., Any], owner: Any) -> None:
    """Points a rebuilt function's references to its owner at the owner rebuilt."""
    names, cells = getattr(func, "_cudajit_owner_refs", ((), ()))
    for name in names:
        func.__globals__[name] = owner
    for index in cells:
        func.__closure__[index].cell_contents = owner
