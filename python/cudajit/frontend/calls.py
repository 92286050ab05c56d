"""Calls in kernels. What a call becomes depends on the kind of its callee, looked up in
CALL_HANDLERS (entity type -> handler): a builtin, a grid intrinsic, a NumPy ufunc, an
operator function, a cuda intrinsic, a foreign device function or a Python device function.
The intrinsics whose arguments are read when compiling (shared and local arrays' shapes and
dtypes, cuda.const.array_like) come first, by name (COMPILE_TIME_INTRINSICS). Calls of device
functions bind keywords and defaults to positions, expand f(*t), convert to a declared
signature, and specialise the callee on the arguments known when compiling (dtypes,
functions, constants). NumPy's reductions (np.sum(a), and the methods a.sum() ...) are calls
of the device functions array_reductions.py registers, the array their one argument. Every
handler takes the function translator first."""

from __future__ import annotations

import ast
import inspect
from types import FunctionType
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from .. import types as cjtypes
from ..errors import CompileError
from ..kernel_ir import IRNode, ir_identifier
from ..source import read_function
from . import overloads
from .entities import (
    ArrayReduction, BuiltinFunction, CffiFFI, Constant, Dim3, ForeignFunction, GridGroup,
    GridIntrinsic, IntrinsicFunction,
    IntrinsicValue, NumpyUfunc, OperatorFunction, OverloadedFunction, PythonFunction,
    PythonModule, array_method, array_method_names,
)
from .scope import EXCEPTION_RECORD, VARARG_COUNT, NotConstant, is_number
from .ufuncs import call_ufunc, ufunc_element

if TYPE_CHECKING:
    from .translator import FunctionTranslator

METHODS = ("conjugate", "bit_count", "reshape", "view")
# Specialisations of one device function on constant arguments, at most.
MAX_SPECIALISATIONS = 32
# Builtins that take `*t` of a tuple whose length only typing knows (their arguments are
# numbers, read in order).
STAR_BUILTINS = frozenset({"complex", "min", "max", "abs", "round", "int", "float", "bool"})


def translate_call(t: FunctionTranslator, node: ast.Call) -> IRNode:
    """A call expression: a method, or a call of what its callee resolves to."""
    func = node.func
    if isinstance(func, ast.Attribute):
        base = GridGroup() if t.is_this_grid(func.value) else t.resolve(func.value)
        if isinstance(base, GridGroup):
            return _grid_group_call(t, node, func)
        if isinstance(base, (PythonModule, Dim3, CffiFFI)):
            callee = t.namespace_attribute(base, func)
        else:
            reduction = array_method(func.attr) if func.attr not in METHODS else None
            if reduction is not None:  # a.sum(): np.sum(a)
                return call_entity(t, reduction.function,
                                   _array_reduction_call(t, node, method=True))
            if func.attr not in METHODS:
                overloaded = overloads.method_call(t, node, func.attr)  # @overload_method
                if overloaded is not None:
                    return call_entity(t, overloaded.callee, overloaded.call)
            if isinstance(base, (BuiltinFunction, IntrinsicFunction, PythonFunction)):
                # float.as_integer_ratio(x): a function's attribute (Numba's words first)
                raise t.error(f"Unknown attribute '{func.attr}' of "
                              f"'{ast.unparse(func.value)}': kernels call functions, they do "
                              "not read their attributes", func)
            node = check_call_syntax(t, node)
            return _method_call(t, node, t.as_value(base, func.value), func.attr)
    else:
        callee = t.resolve(func)
    if isinstance(callee, IntrinsicFunction) and callee.ir_name in COMPILE_TIME_INTRINSICS:
        return COMPILE_TIME_INTRINSICS[callee.ir_name](t, callee, node)
    return call_entity(t, callee, node)


def call_entity(t: FunctionTranslator, callee: Any, node: ast.Call) -> IRNode:
    """The call `node` of what its callee resolved to; an overloaded function's call is
    the call of the implementation its overloads give for the arguments."""
    if isinstance(callee, OverloadedFunction):
        node = ast.copy_location(ast.Call(node.func, _expand_starred(t, node.args),
                                          node.keywords), node)
        callee = overloads.resolve_call(t, callee, node)
    if isinstance(callee, ArrayReduction):
        callee, node = callee.function, _array_reduction_call(t, node, method=False)
    node = check_call_syntax(t, node, callee)
    return CALL_HANDLERS.get(type(callee), _not_callable)(t, callee, node)


def _array_reduction_call(t: FunctionTranslator, node: ast.Call, method: bool) -> ast.Call:
    """np.sum(a), or the `method` a.sum() as np.sum(a): the call of a reduction of the whole
    array, its one argument. NumPy's other parameters (axis=, dtype=, out=, ddof= ...) are
    refused here, by name, rather than as unknown parameters of the device function."""
    func = node.func
    spelled = ast.unparse(func) + "()"
    if node.keywords:
        keyword = node.keywords[0]
        what = f"'{keyword.arg}='" if keyword.arg is not None else "'**' arguments"
        raise t.error(f"{spelled} in kernels reduces the whole array; {what} is not "
                      "supported", keyword)
    args = _expand_starred(t, node.args)
    if method:
        assert isinstance(func, ast.Attribute)
        args.insert(0, func.value)
    if len(args) != 1 or isinstance(args[0], ast.Starred):
        wanted = "no arguments" if method else "one argument, the array"
        raise t.error(f"{spelled} in kernels takes {wanted}; NumPy's other parameters "
                      "are not supported", node)
    return ast.copy_location(ast.Call(func, args, []), node)


def check_call_syntax(t: FunctionTranslator, node: ast.Call, callee: Any = None) -> ast.Call:
    """The call with its arguments positional: *args expanded, and a device function's
    keywords and defaults bound. A new node: the parsed source is shared (cached), and
    each specialisation of this function expands it anew."""
    node = ast.copy_location(ast.Call(node.func, _expand_starred(t, node.args),
                                      node.keywords), node)
    starred = [arg for arg in node.args if isinstance(arg, ast.Starred)]
    if isinstance(callee, PythonFunction) and not callee.signatures and not starred:
        _bind_keywords(t, callee.pyfunc, node)  # f(x, scale=2), f(x) with a default
    if node.keywords:
        raise t.error("keyword arguments are not supported in kernels", node.keywords[0])
    if starred and not _unpacks_when_typed(callee):
        raise t.error("f(*t) of a tuple known only when the kernel compiles works for "
                      "device functions (without declared signatures or *args) and "
                      "for Python's and math's number functions; not for "
                      f"'{ast.unparse(node.func)}'", starred[0])
    return node


def _unpacks_when_typed(callee: Any) -> bool:
    """Whether a call of `callee` may take `*t` of a tuple the front end cannot count:
    typing then expands it (IR `star`)."""
    if isinstance(callee, BuiltinFunction):
        return not callee.numpy_inputs and (callee.ir_name in STAR_BUILTINS or
                                            callee.ir_name.startswith(("math.", "cast.")))
    if isinstance(callee, PythonFunction):
        code = callee.pyfunc.__code__
        return not callee.signatures and not callee.by_arity and \
            not code.co_flags & inspect.CO_VARARGS
    return False


# ---------------------------------------------------------------------------
# Handlers by the callee's kind

def _call_builtin(t: FunctionTranslator, callee: BuiltinFunction, node: ast.Call) -> IRNode:
    loc, spelled = t.loc(node), ast.unparse(node.func)
    if callee.numpy_inputs and (len(node.args) > callee.numpy_inputs or node.keywords):
        raise t.error(f"{spelled}() with an output array is a statement in "
                      f"kernels (it returns nothing); on numbers it takes "
                      f"{callee.numpy_inputs} argument(s)", node)
    if callee.ir_name == "range":
        raise t.error("range() can only be used as the iterable of a for loop "
                      "in kernels", node)
    if callee.ir_name == "print":
        return IRNode("call", loc, "print", *(_print_item(t, a) for a in node.args))
    if callee.ir_name == "isinstance":
        return _isinstance(t, node)
    if (callee.ir_name == "float" and len(node.args) == 1 and not node.keywords
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
        return _float_of_string(t, node.args[0])
    if callee.ir_name.startswith("cast.") and len(node.args) != 1:
        raise t.error(f"{spelled}() takes exactly one argument in kernels; "
                      f"got {len(node.args)}", node)
    if callee.numpy_inputs:  # np.sin: complex numbers too
        return ufunc_element(t, callee, loc, t.args(node))
    return IRNode("call", loc, callee.ir_name, *t.args(node))


def _isinstance(t: FunctionTranslator, node: ast.Call) -> IRNode:
    """isinstance(x, T) or isinstance(x, (T1, T2)) for number types T (cudajit's, NumPy's,
    Numba's, or Python's int, float, complex and bool): known when compiling, from x's type,
    as in Numba; a tuple is the `or` of its types."""
    loc = t.loc(node)
    if len(node.args) != 2 or node.keywords:
        raise t.error("isinstance() takes exactly two arguments", node)
    spec = node.args[1]
    kinds = []
    for item in (spec.elts if isinstance(spec, ast.Tuple) else [spec]):
        resolved = t.resolve(item) if isinstance(item, (ast.Name, ast.Attribute)) else None
        name = getattr(resolved, "ir_name", "")
        kind = name[len("cast."):] if name.startswith("cast.") else name
        if not isinstance(resolved, BuiltinFunction) or not (
                name.startswith("cast.") or name in ("int", "float", "complex", "bool")):
            raise t.error(f"isinstance() in kernels takes a number type or a tuple of them, "
                          f"got {ast.unparse(item)}", item)
        kinds.append(kind)
    value = t.expr(node.args[0])
    tests = [IRNode("call", loc, f"isinstance.{kind}", value) for kind in kinds]
    return tests[0] if len(tests) == 1 else IRNode("or", loc, *tests)


def _float_of_string(t: FunctionTranslator, node: ast.Constant) -> IRNode:
    """float("nan"), float("inf"), float("1.5"): a float64 constant, as Numba folds it."""
    try:
        value = float(node.value)
    except ValueError:
        raise t.error(f"could not convert string to float: {node.value!r}", node) from None
    return t.literal(value, node)


def _call_grid_intrinsic(t: FunctionTranslator, callee: GridIntrinsic,
                         node: ast.Call) -> IRNode:
    """cuda.grid(N) and cuda.gridsize(N): N known here, a literal (or frozen constant)
    1, 2 or 3."""
    spelled = ast.unparse(node.func)
    expected = f"{spelled}() takes one literal argument 1, 2 or 3"
    if len(node.args) != 1:
        raise t.error(f"{expected}; got {len(node.args)} arguments", node)
    arg = node.args[0]
    value: Any = None
    if isinstance(arg, ast.Constant):
        value = arg.value
    elif isinstance(arg, (ast.Name, ast.Attribute)):
        resolved = t.resolve(arg)
        value = resolved.value if isinstance(resolved, Constant) else None
    is_int = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if not is_int or not 1 <= int(value) <= 3:
        raise t.error(f"{expected}; got '{ast.unparse(arg)}'", arg)
    return IRNode("call", t.loc(node), f"cuda.{callee.name}",
                  IRNode("int", t.loc(arg), str(int(value))))


def _call_operator(t: FunctionTranslator, callee: OperatorFunction, node: ast.Call) -> IRNode:
    loc, spelled = t.loc(node), ast.unparse(node.func)
    arity = 2 if callee.node in ("binop", "compare") else 1
    if len(node.args) != arity:
        raise t.error(f"{spelled}() takes {arity} argument{'s' * (arity > 1)}; "
                      f"got {len(node.args)}", node)
    args = t.args(node)
    if callee.node == "compare":
        return IRNode("compare", loc, args[0], callee.symbol, args[1])
    if callee.node == "not":
        return IRNode("not", loc, args[0])
    return IRNode(callee.node, loc, callee.symbol, *args)


def _call_intrinsic(t: FunctionTranslator, callee: IntrinsicFunction, node: ast.Call) -> IRNode:
    return IRNode("call", t.loc(node), callee.ir_name, *t.args(node))


def _call_foreign(t: FunctionTranslator, callee: ForeignFunction, node: ast.Call) -> IRNode:
    """A call of a foreign device function (cuda.declare_device): IR `extern.NAME`,
    its declaration first (as bytes), then the arguments, numbers cast to the declared
    types as Numba converts them. Its code is linked with the kernel."""
    declared, loc = callee.declared, t.loc(node)
    params = declared.sig.args
    if len(node.args) != len(params):
        raise t.error(f"foreign function '{declared.name}' takes {len(params)} "
                      f"arguments, got {len(node.args)}", node)
    args = [IRNode("call", loc, f"cast.{ty}", a) if isinstance(ty, cjtypes.ScalarType) else a
            for ty, a in zip(params, t.args(node))]
    if declared not in t.module.foreign:
        t.module.foreign.append(declared)
    if declared.use_cooperative:
        t.cooperative = True  # declare_device(use_cooperative=True): launched cooperatively
    declaration = IRNode("bytes", loc, '"' + declared.ir_declaration.encode().hex() + '"')
    return IRNode("call", loc, f"extern.{declared.name}", declaration, *args)


def _call_python_function(t: FunctionTranslator, callee: PythonFunction,
                          node: ast.Call) -> IRNode:
    other = dict(callee.by_arity).get(len(node.args))
    if other is not None:
        callee = PythonFunction(other)
    return device_call(t, callee, t.loc(node), node)


def _call_value_intrinsic(t: FunctionTranslator, callee: IntrinsicValue,
                          node: ast.Call) -> IRNode:
    raise t.error(f"'{ast.unparse(node.func)}' is not a function; write it without "
                  "parentheses", node)


def _call_value(t: FunctionTranslator, callee: IRNode, node: ast.Call) -> IRNode:
    raise t.error(f"cannot call '{ast.unparse(node.func)}'; kernels can call device "
                  "functions, builtins, math functions, casts and cuda intrinsics", node)


def _not_callable(t: FunctionTranslator, callee: Any, node: ast.Call) -> IRNode:
    raise t.error(f"'{ast.unparse(node.func)}' is not callable in kernels", node)


CALL_HANDLERS: dict[type, Callable[[Any, Any, ast.Call], IRNode]] = {
    BuiltinFunction: _call_builtin,
    GridIntrinsic: _call_grid_intrinsic,
    NumpyUfunc: call_ufunc,
    OperatorFunction: _call_operator,
    IntrinsicFunction: _call_intrinsic,
    ForeignFunction: _call_foreign,
    PythonFunction: _call_python_function,
    IntrinsicValue: _call_value_intrinsic,
    IRNode: _call_value,
}


def _print_item(t: FunctionTranslator, node: ast.expr) -> IRNode:
    """A string literal as its UTF-8 bytes (print() writes it as it is); a dim3 as the
    tuple of its axes; else a value."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        data = node.value.encode("utf-8")
        if b"\0" in data:
            raise t.error("print() in kernels cannot write a NUL character", node)
        return IRNode("bytes", t.loc(node), '"' + data.hex() + '"')
    if isinstance(node, (ast.Name, ast.Attribute)):
        resolved = t.resolve(node)
        if isinstance(resolved, Dim3):  # print(cuda.threadIdx): "(x, y, z)", as Numba
            loc = t.loc(node)
            return IRNode("tuple", loc, *(IRNode("call", loc, f"cuda.{resolved.name}.{axis}")
                                          for axis in "xyz"))
        return t.as_value(resolved, node)
    return t.expr(node)


# ---------------------------------------------------------------------------
# Intrinsics read when compiling

def _array_allocation(t: FunctionTranslator, callee: IntrinsicFunction,
                      node: ast.Call) -> IRNode:
    """cuda.shared.array(shape, dtype, alignment=None) / cuda.local.array: all read here,
    as constants."""
    spelled = ast.unparse(node.func)
    params = ("shape", "dtype", "alignment")
    if len(node.args) > len(params):
        raise t.error(f"{spelled}() takes 2 or 3 arguments (shape, dtype, alignment); "
                      f"got {len(node.args)}", node)
    given: dict[str, ast.expr] = {}
    for name, arg in zip(params, node.args):
        if isinstance(arg, ast.Starred):
            raise t.unsupported(arg)
        given[name] = arg
    for keyword in node.keywords:
        if keyword.arg not in params:
            what = "**kwargs" if keyword.arg is None else f"keyword argument '{keyword.arg}'"
            raise t.error(f"{spelled}() got an unexpected {what}; it takes shape, "
                          "dtype and alignment", keyword)
        if keyword.arg in given:
            raise t.error(f"{spelled}() got multiple values for '{keyword.arg}'", keyword)
        given[keyword.arg] = keyword.value
    for name in params[:2]:
        if name not in given:
            raise t.error(f"{spelled}() is missing its '{name}' argument", node)
    loc = t.loc(node)
    shape = t.scope.static_shape(given["shape"], spelled)
    dtype = t.scope.static_dtype(given["dtype"], spelled)
    shape_node = IRNode("tuple", t.loc(given["shape"]),
                        *(IRNode("int", loc, str(extent)) for extent in shape))
    args = [shape_node]
    if isinstance(dtype, cjtypes.Record):  # its spelling travels as bytes (no IR symbol)
        args.append(IRNode("bytes", loc, '"' + str(dtype).encode().hex() + '"'))
    alignment = t.scope.static_alignment(given.get("alignment"), spelled)
    if alignment is not None:
        args.append(IRNode("int", loc, str(alignment)))
    name = "record" if isinstance(dtype, cjtypes.Record) else str(dtype)
    return IRNode("call", loc, f"{callee.ir_name}.{name}", *args)


def _array_like(t: FunctionTranslator, callee: IntrinsicFunction, node: ast.Call) -> IRNode:
    """cuda.const.array_like(ary): ``ary`` (a global or closure NumPy array) frozen."""
    spelled = ast.unparse(node.func)
    node = check_call_syntax(t, node)
    if len(node.args) != 1:
        raise t.error(f"{spelled}() takes one NumPy array; got {len(node.args)} "
                      "arguments", node)
    try:
        value = t.scope.static_value(node.args[0])
    except NotConstant as exc:
        raise t.error(f"{spelled}() needs a NumPy array known when compiling (a global "
                      f"or closure variable); '{ast.unparse(exc.node)}' is not one",
                      exc.node) from None
    if not isinstance(value, np.ndarray):
        raise t.error(f"{spelled}() needs a NumPy array; got {type(value).__name__}",
                      node.args[0])
    return t.frozen_array(value, node.args[0])


COMPILE_TIME_INTRINSICS: dict[str, Callable[[Any, IntrinsicFunction, ast.Call], IRNode]] = {
    "cuda.shared.array": _array_allocation,
    "cuda.local.array": _array_allocation,
    "cuda.const.array_like": _array_like,
}


# ---------------------------------------------------------------------------
# Methods

def _method_call(t: FunctionTranslator, node: ast.Call, receiver: IRNode,
                 method: str) -> IRNode:
    if method not in METHODS:
        supported = " ".join(f".{m}()" for m in (*METHODS, *array_method_names()))
        raise t.error(f"method '.{method}()' is not supported in kernels; "
                      f"supported: {supported}", node.func)
    if method in ("reshape", "view"):
        return _array_method(t, node, receiver, method)
    return IRNode("method", t.loc(node), receiver, method, *(t.expr(a) for a in node.args))


def _array_method(t: FunctionTranslator, node: ast.Call, receiver: IRNode,
                  method: str) -> IRNode:
    """a.reshape(shape) and a.view(dtype): views of the same memory, with the code of the
    ValueError the kernel raises where NumPy's would (a shape of another size, a
    non-contiguous array, a last axis the new dtype does not divide)."""
    node = check_call_syntax(t, node)
    if method == "view":
        if len(node.args) != 1:
            raise t.error(f".view() takes one dtype; got {len(node.args)} arguments", node)
        dtype = t.scope.static_dtype(node.args[0], ".view")
        if isinstance(dtype, cjtypes.Record):
            raise t.error(".view() of records is not supported in kernels", node)
        code = t.exception_code(ValueError, (
            "the last axis of the array is not contiguous, or its size in bytes is not a "
            f"multiple of {dtype}'s",), node)
        return IRNode("method", t.loc(node), receiver, f"view.{dtype}.{code}")
    args = node.args
    if len(args) == 1 and isinstance(args[0], ast.Tuple):
        args = args[0].elts  # a.reshape((m, n)) as a.reshape(m, n)
    if not args:
        raise t.error(".reshape() takes a shape", node)
    code = t.exception_code(ValueError, (
        "cannot reshape the array: the new shape has another size, or the array is not "
        "contiguous",), node)
    return IRNode("method", t.loc(node), receiver, f"reshape.{code}",
                  *(t.expr(a) for a in args))


def _grid_group_call(t: FunctionTranslator, node: ast.Call, func: ast.Attribute) -> IRNode:
    if func.attr != "sync":
        raise t.error(f"'.{func.attr}()' of a grid group is not supported in kernels; "
                      "supported: .sync()", func)
    if node.args or node.keywords:
        raise t.error("grid group .sync() takes no arguments", node)
    return IRNode("call", t.loc(node), "cuda.cg.grid_sync")


# ---------------------------------------------------------------------------
# Device functions

def device_call(t: FunctionTranslator, callee: PythonFunction, loc: Any,
                node: ast.Call) -> IRNode:
    """A device-function call; with declared signatures, the scalar arguments and
    the result are converted to the one that fits best, as Numba does: with several,
    the compiler's typing picks among the calls (IR `overload.N`: the N arguments as
    given, then one converting call per signature)."""
    # Compile-time arguments specialise the callee and are passed no more (a declared
    # signature takes values only).
    # f(*t): which parameters t fills is known only when typed, so none is static.
    starred = any(isinstance(a, ast.Starred) for a in node.args)
    static = {} if callee.signatures or starred else \
        _static_arguments(t, callee.pyfunc, node)
    named = _parameter_names(callee.pyfunc)
    extra = len(node.args) - len(named)
    if callee.pyfunc.__code__.co_flags & inspect.CO_VARARGS and not callee.signatures:
        if extra < 0:
            raise t.error(f"device function '{callee.pyfunc.__name__}' takes at least "
                          f"{len(named)} arguments, got {len(node.args)}", node)
        static[VARARG_COUNT] = extra  # specialised on how many: f(*args) is expanded
    if static and t.module.specialisations(callee.pyfunc) >= MAX_SPECIALISATIONS:
        # A recursion over constants (f(n - 1) from f(n)) would specialise without end:
        # from here on its numbers are passed as values.
        static = {p: v for p, v in static.items() if not is_number(v)}
    name = t.module.device_function_name(callee.pyfunc, static)
    if not callee.signatures:
        if starred:
            args = t.args(node)  # typing lines the tuple's items up with parameters
        else:
            args = [t.expr(a) for a, p in zip(node.args, named) if p not in static]
            rest = [t.expr(a) for a in node.args[len(named):]]
            if VARARG_COUNT in static:  # the rest, as one tuple
                args.append(IRNode("tuple", loc, *rest))
            else:  # too many: the compiler's error counts them
                args += rest
        # A function defined in this one: the variables of ours it reads, as they are now.
        captured = getattr(callee.pyfunc, "_cudajit_captured", ())
        if captured and callee.pyfunc not in t.scope.nested.values():
            raise t.error(
                f"function '{callee.pyfunc.__qualname__.rpartition('.')[2]}' reads "
                "variables of the function "
                f"that defines it ({', '.join(captured)}), so it can be called only there "
                "in kernels, not passed to another function", node)
        args += [IRNode("name", loc, ir_identifier(n)) for n in captured]
        if t.module.debug:
            args.append(IRNode("name", loc, EXCEPTION_RECORD))
        return IRNode("callfn", loc, name, *args)
    calls = [_declared_call(t, callee, sig, name, loc, node) for sig in callee.signatures]
    if len(calls) == 1:
        return calls[0]
    return IRNode("call", loc, f"overload.{len(node.args)}", *t.args(node), *calls)


def _declared_call(t: FunctionTranslator, callee: PythonFunction, sig: Any, name: str,
                   loc: Any, node: ast.Call) -> IRNode:
    """The call converting its scalar arguments and result to `sig`."""
    args = t.args(node)
    if len(args) != len(sig.args):
        raise t.error(f"device function '{callee.pyfunc.__name__}' is declared with "
                      f"{len(sig.args)} arguments, got {len(args)}", node)
    args = [IRNode("call", loc, f"cast.{ty}", a) if isinstance(ty, cjtypes.ScalarType) else a
            for a, ty in zip(args, sig.args)]
    if t.module.debug:
        args.append(IRNode("name", loc, EXCEPTION_RECORD))
    call = IRNode("callfn", loc, name, *args)
    if isinstance(sig.return_type, cjtypes.ScalarType):
        return IRNode("call", loc, f"cast.{sig.return_type}", call)
    return call


def _static_arguments(t: FunctionTranslator, pyfunc: FunctionType,
                      node: ast.Call) -> dict[str, Any]:
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
            value = t.scope.static_value(arg)
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


def _expand_starred(t: FunctionTranslator, args: list[ast.expr]) -> list[ast.expr]:
    """f(*args) of this function's *args (a tuple of a length known here), or of a tuple
    written out: its items as arguments."""
    vararg = t.scope.funcdef.args.vararg
    expanded: list[ast.expr] = []
    for arg in args:
        if isinstance(arg, ast.Starred) and isinstance(arg.value, ast.Tuple):
            expanded += arg.value.elts
        elif isinstance(arg, ast.Starred) and isinstance(arg.value, ast.Name) \
                and vararg is not None and arg.value.id == vararg.arg:
            expanded += [ast.copy_location(ast.Subscript(arg.value, ast.copy_location(
                ast.Constant(k), arg), ast.Load()), arg)
                for k in range(t.scope.static[VARARG_COUNT])]
        else:
            expanded.append(arg)
    return expanded


def _bind_keywords(t: FunctionTranslator, pyfunc: FunctionType, node: ast.Call) -> None:
    """A device function's keyword arguments and default values, as positional arguments
    in its parameters' order (defaults are constants: literals in the call)."""
    code = pyfunc.__code__
    params = list(code.co_varnames[:code.co_posonlyargcount + code.co_argcount])
    defaults = pyfunc.__defaults__ or ()
    if not node.keywords and (not defaults or len(node.args) >= len(params)):
        return
    name = pyfunc.__name__
    given: dict[str, ast.expr] = dict(zip(params, node.args))
    for keyword in node.keywords:
        if keyword.arg is None:
            raise t.error("**kwargs in calls is not supported in kernels", keyword)
        if keyword.arg not in params or params.index(keyword.arg) < code.co_posonlyargcount:
            raise t.error(f"device function '{name}' got an unexpected keyword "
                          f"argument '{keyword.arg}'", keyword)
        if keyword.arg in given:
            raise t.error(f"device function '{name}' got multiple values for argument "
                          f"'{keyword.arg}'", keyword)
        given[keyword.arg] = keyword.value
    first_default = len(params) - len(defaults)
    args = []
    for k, param in enumerate(params):
        if param in given:
            args.append(given[param])
        elif k >= first_default:
            default = defaults[k - first_default]
            if not is_number(default):
                raise t.error(f"the default of parameter '{param}' of '{name}' is "
                              f"{default!r}; defaults in kernels must be numbers", node)
            args.append(ast.copy_location(ast.Constant(default), node))
        else:
            raise t.error(f"device function '{name}' is missing argument '{param}'", node)
    node.args = args + node.args[len(params):]
    node.keywords = []
