"""Numba's high-level extension API in kernels: calls of functions with ``@overload``
implementations, methods of ``@overload_method`` and attributes of ``@overload_attribute``.

An overload's *generator* (the decorated function) is called with the argument types of a
call and returns an implementation, a Python function compiled as a device function for
the call (cached per generator and types). Which generators exist is answered by the
registries registered here (``register_overload_registry``): cudajit.extending's own, and
numba-cuda's / Numba's when they are imported. Registrations for target ``"cuda"`` are
tried before ``"generic"`` ones, as on numba-cuda; other targets (``"cpu"``) do not apply.

The front end translates a call before the compiler types it, so the generator sees the
types of the arguments known when compiling (numbers, tuples of them and arrays frozen into
the kernel, in the registry's type system: cudajit's or Numba's) and ``UNDETERMINED`` for
the others: a generator that returns one implementation for every type works, one that
chooses by the type of a run-time argument gets ``UNDETERMINED`` there.
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass, field
from types import FunctionType
from typing import TYPE_CHECKING, Any, Callable, Sequence

from ..errors import CompileError
from .entities import Entity, OverloadedFunction, PythonFunction
from .scope import NotConstant

if TYPE_CHECKING:
    from .translator import FunctionTranslator

# The targets whose registrations apply to kernels, best first (numba-cuda's order).
KERNEL_TARGETS = ("cuda", "generic")
# Attributes every value kind of the compiler answers itself: never an overload's.
BUILTIN_ATTRIBUTES = frozenset({"shape", "strides", "ndim", "size", "real", "imag", "dtype",
                                "itemsize", "nbytes", "T", "flat", "x", "y", "z", "w"})


class Undetermined:
    """The type a generator is given for an argument whose type is known only when the
    kernel is typed (after the front end translated the call)."""

    def __repr__(self) -> str:
        return "undetermined"

    __str__ = __repr__


UNDETERMINED = Undetermined()


@dataclass(frozen=True)
class TypeSystem:
    """How a registry's generators expect argument types: ``typeof(value, literal)`` gives
    the type of a value known when compiling (its literal type where ``literal`` and the
    system has one), or raises."""
    name: str
    typeof: Callable[[Any, bool], Any]


@dataclass(frozen=True, eq=False)
class OverloadTemplate:
    """One registration: ``generator(*arg_types, **kw_types)`` returns an implementation
    (or ``(signature, implementation)``), or None where it has none for these types."""
    generator: Callable[..., Any]
    target: str
    types: TypeSystem
    prefer_literal: bool = False
    owner: Any = None  # overload_method/overload_attribute: the type class of the receiver
    strict: bool = False  # the implementation must have the generator's parameters
    cache: dict = field(default_factory=dict, compare=False)

    @property
    def where(self) -> str:
        """The generator's name, file and line, for messages."""
        code = getattr(self.generator, "__code__", None)
        name = getattr(self.generator, "__qualname__", repr(self.generator))
        if code is None:
            return f"'{name}'"
        return f"'{name}' ({code.co_filename}:{code.co_firstlineno})"


@dataclass(frozen=True)
class OverloadRegistry:
    """A source of registrations: ``functions(func)`` for a function's overloads,
    ``members(kind, name)`` for the methods (kind "method") or attributes ("attribute")
    of that name, of any type."""
    functions: Callable[[Any], Sequence[OverloadTemplate]]
    members: Callable[[str, str], Sequence[OverloadTemplate]]


_REGISTRIES: list[OverloadRegistry] = []


def register_overload_registry(registry: OverloadRegistry) -> None:
    """Make the front end consult ``registry`` (cudajit.extending registers its own and
    numba-cuda's)."""
    if registry not in _REGISTRIES:
        _REGISTRIES.append(registry)


def _for_kernels(templates: Sequence[OverloadTemplate]) -> list[OverloadTemplate]:
    """The registrations that apply to kernels, the "cuda" target's first."""
    ranked = [t for t in templates if t.target in KERNEL_TARGETS]
    return sorted(ranked, key=lambda t: KERNEL_TARGETS.index(t.target))


def overloaded_function(func: Any) -> OverloadedFunction | None:
    """The entity of ``func`` if a registry holds overloads of it for kernels."""
    found: list[OverloadTemplate] = []
    for registry in _REGISTRIES:
        found += registry.functions(func)
    templates = _for_kernels(found)
    if not templates:
        return None
    return OverloadedFunction(func, tuple(templates))


def _members(kind: str, name: str) -> list[OverloadTemplate]:
    found: list[OverloadTemplate] = []
    for registry in _REGISTRIES:
        found += registry.members(kind, name)
    return _for_kernels(found)


@dataclass(frozen=True)
class CallOf:
    """A method or attribute that is the call of an implementation: the callee, and the
    call with the receiver as its first argument."""
    callee: Entity
    call: ast.Call


# ---------------------------------------------------------------------------
# Argument types

def _static(t: FunctionTranslator, node: ast.expr) -> Any:
    """The value of `node` if known when compiling, else `_static` itself."""
    try:
        return t.scope.static_value(node)
    except (NotConstant, CompileError):
        return _static


def _type_of(types: TypeSystem, value: Any, literal: bool) -> Any:
    if value is _static:
        return UNDETERMINED
    try:
        return types.typeof(value, literal)
    except Exception:  # noqa: BLE001 - a value the type system has no type for
        return UNDETERMINED


def _arg_types(t: FunctionTranslator, types: TypeSystem, args: Sequence[ast.expr],
               keywords: Sequence[ast.keyword], literal: bool,
               receiver: Any = None) -> tuple[list[Any], dict[str, Any]]:
    values = [_static(t, a) for a in args]
    positional = [_type_of(types, v, literal) for v in values]
    if receiver is not None:
        positional.insert(0, receiver)
    named = {k.arg: _type_of(types, _static(t, k.value), literal) for k in keywords
             if k.arg is not None}
    return positional, named


def _receiver_type(t: FunctionTranslator, types: TypeSystem, node: ast.expr) -> Any:
    return _type_of(types, _static(t, node), False)


# ---------------------------------------------------------------------------
# Choosing the implementation

def _implementation(template: OverloadTemplate, args: list[Any],
                    kws: dict[str, Any]) -> Any:
    """What the generator returns for these types (cached per types)."""
    try:
        key: Any = (tuple(args), tuple(sorted(kws.items())))
        hash(key)
    except TypeError:
        key = None
    if key is not None and key in template.cache:
        return template.cache[key]
    result = template.generator(*args, **kws)
    if isinstance(result, tuple) and len(result) == 2:  # (signature, implementation)
        result = result[1]
    if key is not None:
        template.cache[key] = result
    return result


def _choose(t: FunctionTranslator, templates: Sequence[OverloadTemplate], spelled: str,
            args: Sequence[ast.expr], keywords: Sequence[ast.keyword], node: ast.AST,
            receiver: ast.expr | None = None) -> Any:
    """The first implementation the generators give (literal types first where a
    registration prefers them), else Numba's TypingError shape: what was tried and why
    each failed."""
    tried: list[str] = []
    shown = ""
    for template in templates:
        orders = (True, False) if template.prefer_literal else (False, True)
        seen: list[Any] = []
        for literal in orders:
            self_type = None if receiver is None else \
                _receiver_type(t, template.types, receiver)
            if receiver is not None and self_type is not UNDETERMINED and \
                    template.owner is not None and isinstance(template.owner, type) and \
                    not isinstance(self_type, template.owner):
                tried.append(f"{template.where}: not a method of {self_type}")
                break
            types = _arg_types(t, template.types, args, keywords, literal, self_type)
            if types in seen:
                continue
            seen.append(types)
            positional, named = types
            shown = ", ".join([repr(a) for a in positional] +
                              [f"{k}={v!r}" for k, v in named.items()])
            try:
                impl = _implementation(template, positional, named)
            except Exception as exc:  # noqa: BLE001 - Numba reports the generator's error
                tried.append(f"{template.where} raised {type(exc).__name__}: {exc}")
                continue
            if impl is not None:
                mismatch = signature_mismatch(template.generator, impl) \
                    if template.strict else None
                if mismatch is not None:
                    raise t.error(f"the overload {template.where} of '{spelled}': "
                                  f"{mismatch}", node)
                return impl
            tried.append(f"{template.where} returned None (no implementation for "
                         f"({shown}))")
    lines = "\n".join(f"  - {line}" for line in tried)
    raise t.error(
        f"No implementation of function '{spelled}' found for signature:\n"
        f" >>> {spelled}({shown})\n"
        f"There are {len(templates)} candidate implementations:\n{lines}\n"
        "(types the kernel knows only when it is typed are passed to the generators as "
        "'undetermined')", node)


def _parameters(function: Any) -> tuple[list[str], list[inspect.Parameter], str | None]:
    """A function's parameters without defaults (their names), those with defaults, and
    its *args parameter; a **kwargs parameter raises ValueError."""
    required: list[str] = []
    defaulted: list[inspect.Parameter] = []
    star = None
    for param in inspect.signature(function).parameters.values():
        if param.kind is param.VAR_KEYWORD:
            raise ValueError("the use of VAR_KEYWORD (e.g. **kwargs) is unsupported "
                             f"(offending argument name is '{param}')")
        if param.kind is param.VAR_POSITIONAL:
            star = param.name
        if param.default is param.empty:
            required.append(param.name)
        else:
            defaulted.append(param)
    return required, defaulted, star


def signature_mismatch(generator: Any, impl: Any) -> str | None:
    """Why an implementation's parameters differ from its generator's, which a strict
    overload requires to match (Numba's rule: the same names, keywords and defaults; a
    *args of the implementation may take several of the generator's parameters), or None."""
    try:
        shown = (f"typing signature {inspect.signature(generator)}, implementation "
                 f"signature {inspect.signature(impl)}")
        typing, typing_kws, typing_star = _parameters(generator)
        implementing, impl_kws, impl_star = _parameters(impl)
    except ValueError as exc:
        return str(exc)
    except TypeError:
        return None  # a callable inspect cannot read: nothing to compare
    prefix = "typing and implementation arguments differ in"
    if typing_star and not impl_star:
        return (f"VAR_POSITIONAL (e.g. *args) argument kind (offending argument name is "
                f"'*{typing_star}') found in the typing function signature, but is not in "
                f"the implementing function signature ({shown})")
    if impl_star and not typing_star:
        implementing = implementing[:implementing.index(impl_star)]
        typing = typing[:len(implementing)]
    if typing != implementing:
        return f"{prefix} argument names ({shown})"
    if [p.name for p in typing_kws] != [p.name for p in impl_kws]:
        return f"{prefix} keyword argument names ({shown})"
    if [p.default for p in typing_kws] != [p.default for p in impl_kws]:
        return f"{prefix} keyword argument default values ({shown})"
    return None


def _as_entity(t: FunctionTranslator, impl: Any, spelled: str, node: ast.AST) -> Entity:
    """An implementation as a callee: a Python function, or anything a kernel can call
    (a device function, a @numba.jit function)."""
    if isinstance(impl, FunctionType):
        return PythonFunction(impl)
    entity = t.meaning(impl, node)
    if isinstance(entity, OverloadedFunction) or not isinstance(entity, Entity):
        raise t.error(f"the overload of '{spelled}' returned {impl!r}, which is not a "
                      "function kernels can call", node)
    return entity


def resolve_call(t: FunctionTranslator, callee: OverloadedFunction,
                 node: ast.Call) -> Entity:
    """The implementation a call of an overloaded function compiles to."""
    spelled = getattr(callee.func, "__name__", ast.unparse(node.func))
    impl = _choose(t, callee.templates, spelled, node.args, node.keywords, node)
    return _as_entity(t, impl, spelled, node)


def method_call(t: FunctionTranslator, node: ast.Call, method: str) -> CallOf | None:
    """`x.method(...)` of an overload_method registration, as the call of its
    implementation with `x` first (None: no registration of that name)."""
    func = node.func
    assert isinstance(func, ast.Attribute)
    templates = _members("method", method)
    if not templates:
        return None
    impl = _choose(t, templates, method, node.args, node.keywords, node, receiver=func.value)
    entity = _as_entity(t, impl, method, node)
    call = ast.copy_location(ast.Call(func, [func.value, *node.args], node.keywords), node)
    return CallOf(entity, call)


def attribute(t: FunctionTranslator, node: ast.Attribute) -> CallOf | None:
    """`x.attr` of an overload_attribute registration, as the call of its implementation
    on `x` (None: no registration of that name)."""
    if node.attr in BUILTIN_ATTRIBUTES:
        return None
    templates = _members("attribute", node.attr)
    if not templates:
        return None
    impl = _choose(t, templates, node.attr, [], [], node, receiver=node.value)
    entity = _as_entity(t, impl, node.attr, node)
    return CallOf(entity, ast.copy_location(ast.Call(node, [node.value], []), node))
