"""Kernels that take types as arguments, as Numba allows: ``kernel[g, b](a, np.float64)``
or ``kernel[g, b](a, numba.int32)``, the kernel using the parameter as a dtype
(``cuda.local.array(n, dty)``, ``cuda.shared.array(n, dty)``, ``dty(x)``).

Numba types such an argument as a compile-time constant (``NumberClass``, ``DType``) and
specialises the kernel on it. Here a :class:`TypeArgumentKernel` stands in front of one
ordinary kernel (a :class:`~cudajit.dispatcher.Dispatcher`) per distinct set of type
arguments, whose IR has the type parameters bound to their types as static values (as
device functions are specialised on the dtypes passed to them): nothing is passed for them
at the launch, and each of those kernels is specialised by the other arguments' types as
usual. A kernel is one when a parameter is used as a type in its body (called, or the dtype
of ``cuda.local.array``/``cuda.shared.array``/``.view``/``.astype``, or a ``dtype=``) or
when a declared signature names ``NumberClass``/``class(...)`` types
(``void(int32[::1], numba.typeof(np.int32))``); other kernels are untouched.
"""

from __future__ import annotations

import ast
import inspect
from types import FunctionType
from typing import Any, Sequence

from . import dispatcher
from .errors import hides_cudajit_frames
from .function_pickling import bind_owner, by_value
from .source import attach_text, function_text, read_function
from .types import NumberClass, ScalarType, Signature, parse_signature, type_argument

__all__ = ["TypeArgumentKernel", "takes_types"]

# Calls whose dtype argument (second positional, or dtype=) is a type: by the callee's
# attribute name (cuda.local.array, cuda.shared.array, np.empty ...).
_DTYPE_SECOND = {"array", "empty", "zeros", "ones", "full"}
_DTYPE_FIRST = {"view", "astype"}


def _callee(pyfunc: Any, node: ast.expr) -> Any:
    """The Python function a call's callee names (a device function, by a global or closure
    name), or None."""
    if not isinstance(node, ast.Name):
        return None
    closure = dict(zip(pyfunc.__code__.co_freevars, pyfunc.__closure__ or ()))
    try:
        value = closure[node.id].cell_contents if node.id in closure \
            else pyfunc.__globals__.get(node.id)
    except ValueError:
        return None
    value = getattr(value, "_cudajit_device_pyfunc", None) or value
    return value if isinstance(value, FunctionType) else None


def _parameters_used_as_types(pyfunc: Any, seen: frozenset = frozenset()) -> set[str]:
    """The parameters of ``pyfunc`` its body uses as types, or passes on to a device
    function that uses them as types."""
    try:
        funcdef = read_function(pyfunc).funcdef
    except Exception:  # noqa: BLE001 - no source: the compile reports it
        return set()
    args = funcdef.args
    params = {a.arg for a in args.posonlyargs + args.args}
    used: set[str] = set()

    def note(node: ast.AST | None) -> None:
        if isinstance(node, ast.Name) and node.id in params:
            used.add(node.id)

    for node in ast.walk(funcdef):
        if not isinstance(node, ast.Call):
            continue
        note(node.func)
        name = node.func.attr if isinstance(node.func, ast.Attribute) else None
        if name in _DTYPE_SECOND and len(node.args) >= 2:
            note(node.args[1])
        if name in _DTYPE_FIRST and node.args:
            note(node.args[0])
        for keyword in node.keywords:
            if keyword.arg == "dtype":
                note(keyword.value)
        callee = _callee(pyfunc, node.func)
        if callee is not None and callee not in seen and any(
                isinstance(a, ast.Name) and a.id in params for a in node.args):
            callee_code = callee.__code__
            callee_params = callee_code.co_varnames[:callee_code.co_argcount]
            typed = _parameters_used_as_types(callee, seen | {pyfunc})
            for arg, param in zip(node.args, callee_params):
                if param in typed:
                    note(arg)
    return used


def _signature_has_types(signature: Any) -> bool:
    try:
        return any(isinstance(a, NumberClass) for a in parse_signature(signature).args)
    except TypeError:
        return False


def takes_types(pyfunc: Any, signatures: Sequence[Any]) -> bool:
    """Whether the kernel of ``pyfunc`` may be given types as arguments: a parameter is used
    as a type in its body, or a signature names a type's type (NumberClass)."""
    return bool(_parameters_used_as_types(pyfunc)) or any(
        _signature_has_types(s) for s in signatures)


_BOUND_KINDS: dict[type, type] = {}


def _bound_kind(kind: type) -> type:
    """``kind`` (Dispatcher or DebugDispatcher) whose kernels have some parameters bound to
    types (``static=``), kept through specialize() (it copies ``_options``)."""
    bound = _BOUND_KINDS.get(kind)
    if bound is None:
        def __init__(self: Any, py_func: Any, signatures: Sequence[Any] = (), *,
                     static: dict[str, ScalarType], **options: Any) -> None:
            self._static_arguments = static  # read by _build_ir, at the first compile
            kind.__init__(self, py_func, signatures, **options)
            self._options["static"] = static

        # Found by pickle under its own name in this module (a kernel pickled by value).
        name = f"_TypeBound{kind.__name__}"
        bound = type(name, (kind,), {"__init__": __init__, "__module__": __name__,
                                     "__qualname__": name})
        globals()[name] = bound
        _BOUND_KINDS[kind] = bound
    return bound


class TypeArgumentKernel:
    """A kernel some of whose arguments may be types (see the module's docstring): one
    kernel of ``kind`` per distinct set of type arguments, by their positions and types."""

    def __init__(self, kind: type, py_func: Any, signatures: Sequence[Any] = (),
                 **options: Any):
        self._base_kind = kind
        self._kind = _bound_kind(kind)
        self._declared = list(signatures)
        self.py_func = py_func
        self._cudajit_kernel_pyfunc = py_func
        self.__name__ = getattr(py_func, "__name__", "kernel")
        self.__doc__ = getattr(py_func, "__doc__", None)
        self.__wrapped__ = py_func
        self._options = options
        code = py_func.__code__
        self._params = list(code.co_varnames[:code.co_posonlyargcount + code.co_argcount])
        # (position, type spelling) of each type argument -> the kernel for them
        self._kernels: dict[tuple[tuple[int, str], ...], Any] = {}
        self.specialized = len(signatures) == 1
        for signature in signatures:
            self.compile(signature)

    def __repr__(self) -> str:
        return f"<cudajit kernel {self.__name__} (taking types)>"

    def __call__(self, *args: Any) -> None:
        raise ValueError(f"kernel '{self.__name__}': the launch configuration was not "
                         f"specified; launch it as {self.__name__}[griddim, blockdim](...)")

    # -- the kernel for some type arguments -------------------------------------------

    def _kernel(self, type_args: dict[int, ScalarType]) -> Any:
        key = tuple(sorted((k, str(t)) for k, t in type_args.items()))
        kernel = self._kernels.get(key)
        if kernel is None:
            for position in type_args:
                if position >= len(self._params):
                    raise TypeError(f"kernel '{self.__name__}' takes {len(self._params)} "
                                    f"arguments; a type was given as argument {position + 1}")
            static = {self._params[k]: t for k, t in type_args.items()}
            kernel = self._kind(self.py_func, (), static=static, **self._options)
            self._kernels[key] = kernel
        return kernel

    @staticmethod
    def _split(values: Sequence[Any]) -> tuple[dict[int, ScalarType], list[Any]]:
        """The type arguments by position, and the other arguments in order."""
        types: dict[int, ScalarType] = {}
        rest: list[Any] = []
        for k, value in enumerate(values):
            type_arg = type_argument(value)
            if type_arg is None:
                rest.append(value)
            else:
                types[k] = type_arg
        return types, rest

    def _split_signature(self, signature: Any) -> tuple[dict[int, ScalarType], Any]:
        if isinstance(signature, tuple) and all(isinstance(a, str) for a in signature):
            # Type spellings, as kernel.signatures gives them: "class(float32)" for a type.
            spelled: dict[int, ScalarType] = {}
            for k, text in enumerate(signature):
                if text.startswith("class(") and text.endswith(")"):
                    spelled[k] = parse_signature((text[6:-1],)).args[0]
            return spelled, tuple(a for k, a in enumerate(signature) if k not in spelled)
        sig = parse_signature(signature)
        types = {k: a.instance_type for k, a in enumerate(sig.args) if isinstance(a, NumberClass)}
        rest = [a for a in sig.args if not isinstance(a, NumberClass)]
        return types, Signature(sig.return_type, rest)

    def _full_key(self, key: tuple[tuple[int, str], ...], sig: tuple[str, ...]) -> tuple:
        """A kernel's signature (type spellings) with its type arguments put back."""
        full = list(sig)
        for position, spelling in key:
            full.insert(position, f"class({spelling})")
        return tuple(full)

    # -- Dispatcher's face ------------------------------------------------------------

    @hides_cudajit_frames
    def compile(self, signature: Any) -> None:
        """Compiles for ``signature``, whose NumberClass arguments are the type arguments."""
        types, rest = self._split_signature(signature)
        self._kernel(types).compile(rest)

    def __reduce__(self) -> tuple:
        """As a kernel pickles (dispatcher.Dispatcher.__reduce__): by reference where
        importable, else by its function, declared signatures and options."""
        reference = dispatcher._by_reference(self, self.py_func)
        if reference is not None:
            return reference
        return (_rebuild, (self._base_kind, by_value(self.py_func, self), self._declared,
                           self._options, function_text(self.py_func)))

    def forall(self, ntasks: int, tpb: int = 0, stream: Any = 0, sharedmem: int = 0) -> Any:
        """A 1-d launch configuration covering ``ntasks`` threads (as a kernel's forall)."""
        return dispatcher.Dispatcher.forall(self, ntasks, tpb, stream, sharedmem)

    def __getitem__(self, config: Any) -> "_TypeArgumentLaunch":
        return _TypeArgumentLaunch(self, config if isinstance(config, tuple) else (config,))

    def configure(self, *config: Any) -> "_TypeArgumentLaunch":
        return _TypeArgumentLaunch(self, config)

    @hides_cudajit_frames
    def specialize(self, *args: Any) -> Any:
        """The kernel for the types of ``args`` only (Numba's ``specialize``): its type
        arguments bound, specialised on the others' types."""
        if self.specialized:
            raise RuntimeError(f"Dispatcher already specialized: kernel '{self.__name__}' "
                               "was compiled for one signature only")
        types, rest = self._split(args)
        return self._kernel(types).specialize(*rest)

    @property
    def signatures(self) -> list[tuple[str, ...]]:
        return [self._full_key(key, sig) for key, kernel in self._kernels.items()
                for sig in kernel.signatures]

    def _by_signature(self, method: str, signature: Any, *args: Any) -> Any:
        if signature is not None:
            types, rest = self._split_signature(signature)
            return getattr(self._kernel(types), method)(*args, rest)
        if self.specialized and len(self.signatures) == 1:
            kernel = next(iter(self._kernels.values()))
            return getattr(kernel, method)(*args, kernel.signatures[0])
        return {self._full_key(key, sig): getattr(kernel, method)(*args, sig)
                for key, kernel in self._kernels.items() for sig in kernel.signatures}

    def get_regs_per_thread(self, signature: Any = None) -> Any:
        return self._by_signature("get_regs_per_thread", signature)

    def get_shared_mem_per_block(self, signature: Any = None) -> Any:
        return self._by_signature("get_shared_mem_per_block", signature)

    def get_local_mem_per_thread(self, signature: Any = None) -> Any:
        return self._by_signature("get_local_mem_per_thread", signature)

    def get_const_mem_size(self, signature: Any = None) -> Any:
        return self._by_signature("get_const_mem_size", signature)

    def get_max_threads_per_block(self, signature: Any = None) -> Any:
        return self._by_signature("get_max_threads_per_block", signature)

    def __getattr__(self, name: str) -> Any:
        # Anything else a kernel has (overloads, inspect_types, ...): of the one kernel made
        # so far; with several, the kernel for the type arguments must be chosen.
        if name.startswith("__") or "_kernels" not in self.__dict__:
            raise AttributeError(name)
        if len(self._kernels) == 1:
            return getattr(next(iter(self._kernels.values())), name)
        raise AttributeError(
            f"kernel '{self.__name__}' takes types as arguments and has "
            f"{len(self._kernels)} kernels, one per set of type arguments: '{name}' is "
            "asked of one of them, kernel.specialize(*args) (or of a kernel declared with one "
            "signature)")


class _TypeArgumentLaunch:
    def __init__(self, kernel: TypeArgumentKernel, config: tuple):
        self.kernel = kernel
        self.config = config

    @hides_cudajit_frames
    def __call__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs:
            signature = inspect.signature(self.kernel.py_func)
            try:
                args = tuple(signature.bind(*args, **kwargs).args)
            except TypeError as exc:
                raise TypeError(f"kernel '{self.kernel.__name__}{signature}': {exc}") from None
        types, rest = self.kernel._split(args)
        self.kernel._kernel(types)[self.config](*rest)


def _rebuild(kind: type, py_func: Any, declared: list[Any], options: dict[str, Any],
             text: Any = None) -> TypeArgumentKernel:
    if text is not None:  # its source, for a process that has not its file
        attach_text(py_func, *text)
    kernel = TypeArgumentKernel(kind, py_func, declared, **options)
    bind_owner(py_func, kernel)
    return kernel
