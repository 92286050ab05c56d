"""The front end's calls of device functions: a declared signature's conversions, and
the arguments known when compiling (dtypes, functions, constants), on which the callee
is specialised. A mixin of the function translator (frontend.py), which provides
_expr, _args, _static_value, _error and module."""

from __future__ import annotations

import ast
import inspect
from types import FunctionType
from typing import Any

import numpy as np

from . import types as cjtypes
from .errors import CompileError
from .frontend_static import NotConstant, is_number
from .kernel_ir import IRNode, ir_identifier
from .source import read_function

# The hidden last argument of debug kernels (a name no Python code can spell).
EXCEPTION_RECORD = "exception.record"
# Specialisations of one device function on constant arguments, at most.
MAX_SPECIALISATIONS = 32
# The static key of a device function's *args: how many values it gets (a name no
# parameter can have).
VARARG_COUNT = "*args"


class DeviceCalls:
    """Methods of the function translator that call device functions."""

    def _device_call(self, callee: Any, loc: Any, node: ast.Call) -> IRNode:
        """A device-function call; with declared signatures, the scalar arguments and
        the result are converted to the one that fits best, as Numba does: with several,
        the compiler's typing picks among the calls (IR `overload.N`: the N arguments as
        given, then one converting call per signature)."""
        # Compile-time arguments specialise the callee and are passed no more (a declared
        # signature takes values only).
        # f(*t): which parameters t fills is known only when typed, so none is static.
        starred = any(isinstance(a, ast.Starred) for a in node.args)
        static = {} if callee.signatures or starred else \
            self._static_arguments(callee.pyfunc, node)
        named = _parameter_names(callee.pyfunc)
        extra = len(node.args) - len(named)
        if callee.pyfunc.__code__.co_flags & inspect.CO_VARARGS and not callee.signatures:
            if extra < 0:
                raise self._error(f"device function '{callee.pyfunc.__name__}' takes at least "
                                  f"{len(named)} arguments, got {len(node.args)}", node)
            static[VARARG_COUNT] = extra  # specialised on how many: f(*args) is expanded
        if static and self.module.specialisations(callee.pyfunc) >= MAX_SPECIALISATIONS:
            # A recursion over constants (f(n - 1) from f(n)) would specialise without end:
            # from here on its numbers are passed as values.
            static = {p: v for p, v in static.items() if not is_number(v)}
        name = self.module.device_function_name(callee.pyfunc, static)
        if not callee.signatures:
            if starred:
                args = self._args(node)  # typing lines the tuple's items up with parameters
            else:
                args = [self._expr(a) for a, p in zip(node.args, named) if p not in static]
                rest = [self._expr(a) for a in node.args[len(named):]]
                if VARARG_COUNT in static:  # the rest, as one tuple
                    args.append(IRNode("tuple", loc, *rest))
                else:  # too many: the compiler's error counts them
                    args += rest
            # A function defined in this one: the variables of ours it reads, as they are now.
            captured = getattr(callee.pyfunc, "_cudajit_captured", ())
            if captured and callee.pyfunc not in self.nested.values():
                raise self._error(
                    f"function '{callee.pyfunc.__qualname__.rpartition('.')[2]}' reads "
                    "variables of the function "
                    f"that defines it ({', '.join(captured)}), so it can be called only there "
                    "in kernels, not passed to another function", node)
            args += [IRNode("name", loc, ir_identifier(n)) for n in captured]
            if self.module.debug:
                args.append(IRNode("name", loc, EXCEPTION_RECORD))
            return IRNode("callfn", loc, name, *args)
        calls = [self._declared_call(callee, sig, name, loc, node) for sig in callee.signatures]
        if len(calls) == 1:
            return calls[0]
        return IRNode("call", loc, f"overload.{len(node.args)}", *self._args(node), *calls)

    def _foreign_call(self, declared: Any, loc: Any, node: ast.Call) -> IRNode:
        """A call of a foreign device function (cuda.declare_device): IR `extern.NAME`,
        its declaration first (as bytes), then the arguments, numbers cast to the declared
        types as Numba converts them. Its code is linked with the kernel."""
        params = declared.sig.args
        if len(node.args) != len(params):
            raise self._error(f"foreign function '{declared.name}' takes {len(params)} "
                              f"arguments, got {len(node.args)}", node)
        args = [IRNode("call", loc, f"cast.{t}", a) if isinstance(t, cjtypes.ScalarType) else a
                for t, a in zip(params, self._args(node))]
        if declared not in self.module.foreign:
            self.module.foreign.append(declared)
        declaration = IRNode("bytes", loc, '"' + declared.ir_declaration.encode().hex() + '"')
        return IRNode("call", loc, f"extern.{declared.name}", declaration, *args)

    def _declared_call(self, callee: Any, sig: Any, name: str, loc: Any,
                       node: ast.Call) -> IRNode:
        """The call converting its scalar arguments and result to `sig`."""
        args = self._args(node)
        if len(args) != len(sig.args):
            raise self._error(f"device function '{callee.pyfunc.__name__}' is declared with "
                              f"{len(sig.args)} arguments, got {len(args)}", node)
        args = [IRNode("call", loc, f"cast.{t}", a) if isinstance(t, cjtypes.ScalarType) else a
                for a, t in zip(args, sig.args)]
        if self.module.debug:
            args.append(IRNode("name", loc, EXCEPTION_RECORD))
        call = IRNode("callfn", loc, name, *args)
        if isinstance(sig.return_type, cjtypes.ScalarType):
            return IRNode("call", loc, f"cast.{sig.return_type}", call)
        return call

    def _static_arguments(self, pyfunc: FunctionType, node: ast.Call) -> dict[str, Any]:
        """The arguments known when compiling (dtypes, functions, intrinsics, constants), by
        the callee's parameter names: the callee is specialised on them, as Numba types
        functions and literals, so a dtype or a shape may be passed down. A parameter the
        callee assigns stays a variable."""
        params = _parameter_names(pyfunc)
        varargs = bool(pyfunc.__code__.co_flags & inspect.CO_VARARGS)
        if len(node.args) != len(params) and not (varargs and len(node.args) > len(params)):
            return {}  # the call's arity error is reported with the function's own counts
        assigned = read_function(pyfunc).bound_names
        static: dict[str, Any] = {}
        for arg, param in zip(node.args, params):
            if param in assigned or isinstance(arg, ast.Starred):
                continue
            try:
                value = self._static_value(arg)
            except (NotConstant, CompileError):
                continue  # a variable, or an error the value's translation reports
            if _is_static_argument(value):
                static[param] = value
        return static


def _parameter_names(pyfunc: FunctionType) -> list[str]:
    code = pyfunc.__code__
    return list(code.co_varnames[:code.co_posonlyargcount + code.co_argcount])


def _is_static_argument(value: Any) -> bool:
    """A value a device function can be specialised on: numbers and tuples of them,
    dtypes and casts, kernel functions and device functions (not arrays or strings)."""
    if isinstance(value, tuple):
        return all(_is_static_argument(v) for v in value)
    if is_number(value):
        return True
    if isinstance(value, (np.ndarray, str, bytes)) or value is None:
        return False
    return True


def static_key(value: Any) -> Any:
    """Equal for the same compile-time value: numbers by type and value, the rest by identity."""
    if isinstance(value, tuple):
        return tuple(static_key(v) for v in value)
    if is_number(value):
        return (type(value), value)
    if isinstance(value, np.dtype):
        return value
    return id(value)
