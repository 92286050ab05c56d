"""Numba's high-level extension API for kernels: ``overload``, ``overload_method``,
``overload_attribute`` and ``register_jitable``, as ``numba.cuda.extending`` has them.

A kernel calling a function with ``@overload`` implementations calls what the overload's
generator returns for the call's argument types, compiled as a device function::

    def clamp(x):
        ...

    @overload(clamp, target="cuda")
    def ol_clamp(x):
        def impl(x):
            return min(max(x, 0), 1)
        return impl

    @cuda.jit
    def kernel(a):
        a[0] = clamp(a[0])

Registrations for the ``"cuda"`` target are preferred to ``"generic"`` ones; other targets
(``"cpu"``) do not apply to kernels. A generator returning None has no implementation for
those types: the call is a CompileError naming every overload tried. Overloads registered
through numba-cuda's ``numba.cuda.extending`` or Numba's ``numba.extending`` are honoured
too, when numba is imported (their generators are given Numba's types).

The front end translates a call before the compiler types it: a generator is given the
types of the arguments known when compiling (numbers and tuples of them, arrays frozen
into the kernel) and ``Undetermined`` for the others, so a generator that chooses its
implementation by the type of a run-time argument does not find it here (Numba's typing
would). ``@intrinsic`` (code generation with llvmlite) is refused: cudajit's compiler does
not lower through Numba's.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

from . import types as cjtypes
from .errors import CompileError
from .frontend.overloads import (
    UNDETERMINED, OverloadRegistry, OverloadTemplate, TypeSystem, Undetermined,
    register_overload_registry,
)

__all__ = ["overload", "overload_method", "overload_attribute", "register_jitable",
           "intrinsic", "Undetermined", "UNDETERMINED"]

TARGETS = ("cuda", "generic", "cpu", "gpu")
INLINE_OPTIONS = ("never", "always")


def _cudajit_typeof(value: Any, literal: bool) -> Any:
    """cudajit's type of a value known when compiling (cudajit has no literal types)."""
    return cjtypes.typeof(value)


CUDAJIT_TYPES = TypeSystem("cudajit", _cudajit_typeof)

_functions: dict[Any, list[OverloadTemplate]] = {}
_members: dict[tuple[str, str], list[OverloadTemplate]] = {}


def _check_target(target: str) -> None:
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r} for an overload; expected one of "
                         f"{', '.join(repr(t) for t in TARGETS)}")


def _check_options(jit_options: dict | None, inline: Any) -> None:
    if jit_options is not None and "inline" in jit_options:
        raise ValueError("`inline` should be passed as a separate argument, not in "
                         "`jit_options`")
    if not (inline in INLINE_OPTIONS or callable(inline)):
        raise ValueError(f"inline must be 'never', 'always' or a function; got {inline!r}")


def overload(func: Callable[..., Any], jit_options: dict | None = None, strict: bool = True,
             inline: Any = "never", prefer_literal: bool = False, target: str = "cuda",
             **kwargs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A decorator marking the decorated function as typing and implementing ``func`` in
    kernels. The decorated function (the generator) has ``func``'s parameters; it is
    called with their types and returns an implementation (a Python function, compiled as
    a device function for those types), ``(signature, implementation)``, or None where it
    has none for these types.

    ``target`` is the target the implementation is for ("cuda", or "generic" for every
    target; "cuda" wins over "generic" in kernels). ``prefer_literal`` gives the generator
    literal types first (cudajit has none: it is given the non-literal types).
    With ``strict`` (the default) the implementation must have the generator's parameters
    (names, keywords and their defaults; a ``*args`` of the implementation may take several),
    else the call is a CompileError saying how they differ. ``jit_options`` and ``inline``
    are accepted as Numba accepts them; the implementation is a device function, which LLVM
    inlines where it pays.
    """
    _check_target(target)
    _check_options(jit_options, inline)

    def decorate(generator: Callable[..., Any]) -> Callable[..., Any]:
        template = OverloadTemplate(generator, target, CUDAJIT_TYPES, prefer_literal,
                                    strict=strict)
        _functions.setdefault(func, []).append(template)
        return generator

    return decorate


def _member(kind: str, typ: Any, attr: str, target: str, prefer_literal: bool,
            ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    _check_target(target)

    def decorate(generator: Callable[..., Any]) -> Callable[..., Any]:
        template = OverloadTemplate(generator, target, CUDAJIT_TYPES, prefer_literal, typ)
        _members.setdefault((kind, attr), []).append(template)
        return generator

    return decorate


def overload_method(typ: Any, attr: str, target: str = "cuda", prefer_literal: bool = False,
                    **kwargs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A decorator marking the decorated function as typing and implementing method
    ``attr`` of values of type ``typ`` (a cudajit type class, such as ``types.Array``) in
    kernels: ``x.attr(args)`` calls what the generator returns for ``(type of x, types
    of args)``, with ``x`` first. Other keywords are accepted as Numba accepts them."""
    return _member("method", typ, attr, target, prefer_literal)


def overload_attribute(typ: Any, attr: str, target: str = "cuda", prefer_literal: bool = False,
                       **kwargs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A decorator marking the decorated function as typing and implementing attribute
    ``attr`` of values of type ``typ`` in kernels: ``x.attr`` is what the implementation
    the generator returns for the type of ``x`` gives for ``x``."""
    return _member("attribute", typ, attr, target, prefer_literal)


def register_jitable(*args: Any, **kwargs: Any) -> Any:
    """Make a plain Python function callable from kernels (and still from Python):
    ``@register_jitable`` or ``@register_jitable(**jit_options)``, an overload of the
    function by itself."""
    inline = kwargs.pop("inline", "never")

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        overload(fn, jit_options=kwargs, inline=inline, strict=False,
                 target="generic")(lambda *a, **k: fn)
        return fn

    if kwargs or not args:
        return wrap
    return wrap(*args)


class Intrinsic:
    """What ``@intrinsic`` makes: kernels refuse it with a CompileError that names it."""

    def __init__(self, definition: Callable[..., Any]) -> None:
        self._definition = definition
        self.__name__ = getattr(definition, "__name__", "intrinsic")
        self.__qualname__ = getattr(definition, "__qualname__", self.__name__)
        self.__doc__ = getattr(definition, "__doc__", None)
        self.__wrapped__ = definition

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise CompileError(f"@intrinsic '{self.__name__}' can only be called from kernels, "
                           "and cudajit cannot compile it there")


def intrinsic(*args: Any, **kwargs: Any) -> Any:
    """Numba's ``@intrinsic`` (a typing function returning a signature and an llvmlite
    code generator). cudajit lowers kernels with its own compiler, not Numba's, so an
    intrinsic cannot be compiled: a kernel calling one is a CompileError naming it. Write
    the operation as a ``@cuda.jit(device=True)`` function, an ``@overload``, or foreign
    code (``cuda.declare_device`` with ``link=``)."""
    if args and callable(args[0]) and not kwargs:
        return Intrinsic(args[0])
    return Intrinsic


# ---------------------------------------------------------------------------
# The registries the front end consults

def _cudajit_functions(func: Any) -> list[OverloadTemplate]:
    try:
        return list(_functions.get(func, ()))
    except TypeError:  # an unhashable callable
        return []


def _cudajit_members(kind: str, name: str) -> list[OverloadTemplate]:
    return list(_members.get((kind, name), ()))


register_overload_registry(OverloadRegistry(_cudajit_functions, _cudajit_members))


def _numba_typeof(value: Any, literal: bool) -> Any:
    """Numba's type of a value known when compiling (its literal type where asked)."""
    from numba.core import types as numba_types  # present: a numba registry is imported
    from numba.core.typing.typeof import typeof
    if literal:
        try:
            return numba_types.literal(value)
        except Exception:  # noqa: BLE001 - no literal type for this value
            pass
    return typeof(value)


NUMBA_TYPES = TypeSystem("numba", _numba_typeof)
# numba-cuda's registry first: its "generic" registrations are in Numba's too.
NUMBA_REGISTRIES = ("numba.cuda.typing.templates", "numba.core.typing.templates")


class _NumbaIndex:
    """numba-cuda's and Numba's overload registrations, indexed as they grow (their
    registries are append-only lists): by function, and by (kind, attribute name)."""

    def __init__(self) -> None:
        self.seen: dict[str, tuple[int, int]] = {}
        self.functions: dict[int, tuple[Any, list[OverloadTemplate]]] = {}
        self.members: dict[tuple[str, str], list[OverloadTemplate]] = {}
        self.generators: set[tuple[Any, ...]] = set()

    def refresh(self) -> None:
        for name in NUMBA_REGISTRIES:
            module = sys.modules.get(name)
            registry = getattr(module, "builtin_registry", None)
            if registry is None:
                continue
            done_globals, done_attributes = self.seen.get(name, (0, 0))
            entries, attributes = registry.globals, registry.attributes
            for func, typ in entries[done_globals:]:
                for template in getattr(typ, "templates", ()):
                    self._add_function(func, template)
            for template in attributes[done_attributes:]:
                self._add_member(template)
            self.seen[name] = (len(entries), len(attributes))

    def _template(self, template: Any, what: tuple, owner: Any = None,
                  ) -> OverloadTemplate | None:
        """The registration of `template` for `what` (a function, or a member's kind and
        name), None if it is no overload or already known."""
        generator = getattr(template, "_overload_func", None)
        if generator is None:
            return None
        target = dict(getattr(template, "metadata", {}) or {}).get("target", "cpu")
        key = (generator, *what, id(owner), target)
        if key in self.generators:
            return None  # numba-cuda registers "generic" overloads with Numba too
        self.generators.add(key)
        return OverloadTemplate(generator, target, NUMBA_TYPES,
                                bool(getattr(template, "prefer_literal", False)), owner,
                                strict=bool(getattr(template, "_strict", False)))

    def _add_function(self, func: Any, template: Any) -> None:
        made = self._template(template, (id(func),))
        if made is not None:
            self.functions.setdefault(id(func), (func, []))[1].append(made)

    def _add_member(self, template: Any) -> None:
        attr = getattr(template, "_attr", None)
        if attr is None:
            return
        bases = {cls.__name__ for cls in type.mro(template)}
        kind = "method" if "_OverloadMethodTemplate" in bases else "attribute"
        made = self._template(template, (kind, attr), getattr(template, "key", None))
        if made is not None:
            self.members.setdefault((kind, attr), []).append(made)


_numba_index = _NumbaIndex()


def _numba_functions(func: Any) -> list[OverloadTemplate]:
    _numba_index.refresh()
    found = _numba_index.functions.get(id(func))
    return list(found[1]) if found is not None and found[0] is func else []


def _numba_members(kind: str, name: str) -> list[OverloadTemplate]:
    _numba_index.refresh()
    return list(_numba_index.members.get((kind, name), ()))


register_overload_registry(OverloadRegistry(_numba_functions, _numba_members))
