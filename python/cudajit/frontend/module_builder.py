"""The module: the entry function, then the device functions it reaches, each translated
once per set of compile-time arguments (FunctionTranslator), with what the kernel needs
besides its IR: the exceptions it may raise, the device arrays it captured and the foreign
device functions it calls."""

from __future__ import annotations

import inspect
from types import FunctionType
from typing import Any, Callable, NamedTuple

from ..errors import CompileError
from ..source import source_file_readable, warn_unreadable_source
from ..kernel_ir import IRNode, mangle, render, string_atom
from .scope import static_key
from .translator import FunctionTranslator


class ModuleBuilder:
    def __init__(self, entry: FunctionType, debug: bool = False,
                 static: dict[str, Any] | None = None):
        self.entry = entry
        self.debug = debug
        # Exceptions the kernel may raise: code k is exceptions[k - 1], as
        # (class, arguments, file, line, function name).
        self.exceptions: list[tuple[type, tuple, str, int, str]] = []
        entry_name = mangle(entry.__name__)  # a symbol: <lambda> is not one
        # (function, its static arguments' key) -> IR name
        self.names: dict[tuple[FunctionType, Any], str] = {(entry, ()): entry_name}
        self.used_names = {entry_name}
        # The kernel's own static parameters: the types a launch passed (type_arguments.py).
        self.pending: list[tuple[FunctionType, dict[str, Any], str]] = [
            (entry, dict(static or {}), entry_name)]
        self.keep_alive: list[Any] = []  # static values keyed by id() stay alive
        # Device arrays the kernel captured by address: the kernel holds them.
        self.captured: list[Any] = []
        # Foreign device functions called (cuda.declare_device): their code is linked.
        self.foreign: list[Any] = []
        self.counter = 0

    def add_exception(self, cls: type, args: tuple, filename: str, line: int,
                      function: str) -> int:
        self.exceptions.append((cls, args, filename, line, function))
        return len(self.exceptions)

    def device_function_name(self, pyfunc: FunctionType,
                             static: dict[str, Any] | None = None) -> str:
        """The IR name of a device function (specialised on `static` arguments), queueing
        it for translation once."""
        pyfunc = unwrap(pyfunc)
        static = static or {}
        key = (pyfunc, tuple(sorted((p, static_key(v)) for p, v in static.items())))
        if key not in self.names:
            name = ""
            while not name or name in self.used_names:
                self.counter += 1
                name = f"{mangle(pyfunc.__qualname__)}_{self.counter}"
            self.names[key] = name
            self.used_names.add(name)
            self.pending.append((pyfunc, static, name))
            self.keep_alive.append(static)
        return self.names[key]

    def specialisations(self, pyfunc: FunctionType) -> int:
        """How many specialisations of `pyfunc` are named so far."""
        pyfunc = unwrap(pyfunc)
        return sum(1 for function, _ in self.names if function is pyfunc)

    def build(self) -> str:
        functions = []
        unreadable: list[FunctionType] = []
        while self.pending:  # grows while translating: calls queue their callees
            pyfunc, static, name = self.pending.pop(0)
            functions.append(FunctionTranslator(pyfunc, name, self, static).translate())
            if self.debug and pyfunc not in unreadable and not source_file_readable(pyfunc):
                unreadable.append(pyfunc)
                warn_unreadable_source(pyfunc)
        module = IRNode("module", None, string_atom(self.entry.__code__.co_filename),
                        *functions)
        return render(module) + "\n"


def unwrap(function: Any) -> FunctionType:
    """The Python function a kernel or device function (or a functools.wraps wrapper) holds."""
    for attribute in ("_cudajit_kernel_pyfunc", "_cudajit_device_pyfunc"):
        wrapped = getattr(function, attribute, None)
        if wrapped is not None:
            function = wrapped
            break
    # Source and globals must come from the same function: look through functools.wraps.
    function = inspect.unwrap(function) if callable(function) else function
    if not isinstance(function, FunctionType):
        raise TypeError(f"expected a Python function (def) to compile; got {function!r}")
    return function


class KernelModule(NamedTuple):
    text: str  # the kernel IR
    exceptions: list[tuple[type, tuple, str, int, str]]
    captured: list[Any]  # device arrays captured by address: whoever runs it keeps them alive
    foreign: list[Any]  # the foreign device functions it calls (linking.DeclaredDevice)


def build_kernel_module(pyfunc: Callable[..., Any], debug: bool,
                        static: dict[str, Any] | None = None) -> KernelModule:
    """The kernel IR of ``pyfunc`` and of every device function it calls, the exceptions
    the kernel may raise, the device arrays it captured by address (global or closure
    device arrays), which whoever runs the kernel must keep alive, and the foreign device
    functions it calls. With ``debug`` every function takes the hidden last argument
    ``exception.record`` (an int32 array the first raising thread writes; dispatcher.py
    reads it) and asserts are checked. ``static`` binds parameters of the kernel to
    compile-time values (the types given in place of arguments): they are no parameters of
    the IR function."""
    builder = ModuleBuilder(unwrap(pyfunc), debug, static)
    try:
        return KernelModule(builder.build(), builder.exceptions, builder.captured,
                            builder.foreign)
    except CompileError as exc:
        # Point the traceback at the user's code, not the translator's recursion.
        raise exc.with_traceback(None) from None
