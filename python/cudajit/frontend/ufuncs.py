"""NumPy ufuncs in kernels. On numbers they are expressions: the math ones are math's
functions (entities.py registers them), the others below become the operator they stand
for. With an output array (``np.sin(x, out)``, ``np.less(a, b, out=out)``, a statement) a
ufunc runs over out's elements, one thread doing them all, as Numba compiles it: a loop
over ``cuda.ufunc.size`` elements whose items come from the compiler's ``cuda.ufunc.item``
(NumPy's broadcasting) and go to ``cuda.ufunc.store`` (a cast to out's dtype). On a complex
number, NumPy's math ufuncs call cmath's device functions (registered by cmath_impl.py)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..errors import CompileError
from ..kernel_ir import IRNode
from .entities import NumpyUfunc, complex_math, register_object
from .scope import EXCEPTION_RECORD

if TYPE_CHECKING:
    from .translator import FunctionTranslator

Loc = tuple[int, int]


def _real(loc: Loc, x: IRNode) -> IRNode:
    return IRNode("attr", loc, x, "real")


def _imag(loc: Loc, x: IRNode) -> IRNode:
    return IRNode("attr", loc, x, "imag")


def _ordered(symbol: str) -> Callable[[Loc, IRNode, IRNode], IRNode]:
    """a < b (or <=, >, >=) in NumPy's order, which for complex numbers is lexicographic
    (real parts, then imaginary parts); for real numbers it reduces to the comparison."""
    strict = symbol[0]

    def compare(loc: Loc, a: IRNode, b: IRNode) -> IRNode:
        return IRNode("or", loc, IRNode("compare", loc, _real(loc, a), strict, _real(loc, b)),
                      IRNode("and", loc,
                             IRNode("compare", loc, _real(loc, a), "==", _real(loc, b)),
                             IRNode("compare", loc, _imag(loc, a), symbol, _imag(loc, b))))
    return compare


def _is_nan(loc: Loc, x: IRNode) -> IRNode:
    return IRNode("compare", loc, x, "!=", x)


def _pick(order: str, nan_from: int) -> Callable[[Loc, IRNode, IRNode], IRNode]:
    """maximum/minimum (a NaN wins: nan_from 0 checks the first, and a NaN second loses
    every comparison) and fmax/fmin (a NaN loses: nan_from 1)."""
    better = _ordered(order)

    def pick(loc: Loc, a: IRNode, b: IRNode) -> IRNode:
        keep_a = IRNode("or", loc, better(loc, a, b), _is_nan(loc, (a, b)[nan_from]))
        return IRNode("ifexp", loc, keep_a, a, b)
    return pick


def _truth(loc: Loc, x: IRNode) -> IRNode:
    return IRNode("call", loc, "bool", x)


def _binop(symbol: str) -> Callable[[Loc, IRNode, IRNode], IRNode]:
    return lambda loc, a, b: IRNode("binop", loc, symbol, a, b)


def _compare(symbol: str) -> Callable[[Loc, IRNode, IRNode], IRNode]:
    return lambda loc, a, b: IRNode("compare", loc, a, symbol, b)


# name -> the element's expression from the items' IR.
ELEMENTWISE: dict[str, Callable[..., IRNode]] = {
    "add": _binop("+"), "subtract": _binop("-"), "multiply": _binop("*"),
    "divide": _binop("/"), "true_divide": _binop("/"), "floor_divide": _binop("//"),
    "power": _binop("**"), "remainder": _binop("%"), "mod": _binop("%"),
    "negative": lambda loc, a: IRNode("unary", loc, "-", a),
    "square": lambda loc, a: IRNode("binop", loc, "*", a, a),
    "bitwise_and": _binop("&"), "bitwise_or": _binop("|"), "bitwise_xor": _binop("^"),
    "left_shift": _binop("<<"), "right_shift": _binop(">>"),
    "invert": lambda loc, a: IRNode("unary", loc, "~", a),
    "equal": _compare("=="), "not_equal": _compare("!="),
    "less": _ordered("<"), "less_equal": _ordered("<="),
    "greater": _ordered(">"), "greater_equal": _ordered(">="),
    "logical_and": lambda loc, a, b: IRNode("and", loc, _truth(loc, a), _truth(loc, b)),
    "logical_or": lambda loc, a, b: IRNode("or", loc, _truth(loc, a), _truth(loc, b)),
    "logical_xor": lambda loc, a, b: IRNode("compare", loc, _truth(loc, a), "!=",
                                            _truth(loc, b)),
    "logical_not": lambda loc, a: IRNode("not", loc, a),
    "maximum": _pick(">=", 0), "minimum": _pick("<=", 0),
    "fmax": _pick(">=", 1), "fmin": _pick("<=", 1),
}
# math's functions that NumPy's ufunc also computes on complex numbers (through cmath).
COMPLEX_MATH = {"sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
                "acosh", "atanh", "exp", "log", "log2", "log10", "sqrt", "isnan", "isinf",
                "isfinite"}
UFUNCS = {getattr(np, name): NumpyUfunc(name, getattr(np, name).nin) for name in ELEMENTWISE}
UFUNCS[np.bitwise_not] = NumpyUfunc("invert", 1)  # the same ufunc under another name
for _ufunc, _entity in UFUNCS.items():
    register_object(_ufunc, _entity)


def _side_effect_free(node: ast.expr) -> bool:
    """Names, constants, attributes, indexing and arithmetic of them: evaluating twice is
    evaluating once."""
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.Attribute):
        return _side_effect_free(node.value)
    if isinstance(node, ast.Subscript):
        return _side_effect_free(node.value) and _side_effect_free(node.slice)
    if isinstance(node, ast.Tuple):
        return all(_side_effect_free(e) for e in node.elts)
    if isinstance(node, ast.BinOp):
        return _side_effect_free(node.left) and _side_effect_free(node.right)
    if isinstance(node, ast.UnaryOp):
        return _side_effect_free(node.operand)
    return False


def ufunc_element(t: FunctionTranslator, callee: Any, loc: Loc, items: list[IRNode]) -> IRNode:
    """The ufunc (a NumpyUfunc, or a math BuiltinFunction) on numbers `items` (IR values)."""
    if isinstance(callee, NumpyUfunc):
        return ELEMENTWISE[callee.name](loc, *items)
    real = IRNode("call", loc, callee.ir_name, *items)  # a math builtin
    name = callee.ir_name.removeprefix("math.")
    if name not in COMPLEX_MATH or len(items) != 1:
        return real
    # NumPy's math takes complex numbers too: cmath's function, chosen by the compiler's
    # typing when the argument is complex (only the chosen call is compiled).
    on_complex = _cmath_call(t, name, loc, items)
    return IRNode("call", loc, f"choose.complex.{len(items)}", *items, real, on_complex)


def _cmath_call(t: FunctionTranslator, name: str, loc: Loc, items: list[IRNode]) -> IRNode:
    implementation = complex_math(name)
    if implementation is None:
        raise RuntimeError(f"no device function is registered for cmath's {name} "
                           "(cudajit.cmath_impl registers them when cudajit is imported)")
    function = t.module.device_function_name(implementation.pyfunc, {})
    args = list(items)
    if t.module.debug:
        args.append(IRNode("name", loc, EXCEPTION_RECORD))
    return IRNode("callfn", loc, function, *args)


def call_ufunc(t: FunctionTranslator, callee: NumpyUfunc, node: ast.Call) -> IRNode:
    """An operator ufunc on numbers, as an expression (``np.less(a, b)``). Its arguments
    may be used twice (maximum's NaN test), so they must be free of side effects."""
    loc, spelled = t.loc(node), ast.unparse(node.func)
    if node.keywords or len(node.args) != callee.nin:
        raise t.error(f"{spelled}() with an output array is a statement in kernels "
                      f"(it returns nothing); on numbers it takes {callee.nin} "
                      f"argument(s), got {len(node.args) + len(node.keywords)}", node)
    if callee.name in ("less", "less_equal", "greater", "greater_equal"):
        symbol = {"less": "<", "less_equal": "<=", "greater": ">",
                  "greater_equal": ">="}[callee.name]
        return _compare(symbol)(loc, *(t.expr(a) for a in node.args))
    if callee.name in ("maximum", "minimum", "fmax", "fmin", "square"):
        for arg in node.args:
            if not _side_effect_free(arg):
                raise t.error(f"{spelled}() on numbers in kernels takes names, "
                              "constants and indexing; assign "
                              f"'{ast.unparse(arg)}' to a variable first", arg)
    return ufunc_element(t, callee, loc, [t.expr(a) for a in node.args])


def _ufunc_arity(callee: Any) -> int:
    if isinstance(callee, NumpyUfunc):
        return callee.nin
    return getattr(callee, "numpy_inputs", 0)


def ufunc_with_output(t: FunctionTranslator,
                      node: ast.expr) -> tuple[Any, list[ast.expr]] | None:
    """(the ufunc, its inputs and output) when `node` calls a ufunc with an output
    array, positional or ``out=``; else None."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, (ast.Name, ast.Attribute)):
        return None
    try:
        callee = t.resolve(node.func)
    except CompileError:  # translating the call reports it
        return None
    nin = _ufunc_arity(callee)
    if not nin:
        return None
    args = list(node.args)
    for keyword in node.keywords:
        if keyword.arg != "out":
            raise t.error(f"{ast.unparse(node.func)}() takes no keyword "
                          f"'{keyword.arg}' in kernels; only out=", keyword)
        args.append(keyword.value)
    if len(args) != nin + 1:
        if len(args) > nin + 1:
            raise t.error(f"{ast.unparse(node.func)}() takes {nin} input(s) and one "
                          f"output array; got {len(args)} arguments", node)
        return None
    return callee, args


def ufunc_loop(t: FunctionTranslator, callee: Any, args: list[ast.expr],
               node: ast.Call) -> list[IRNode]:
    """``np.f(x..., out)`` as a statement: every element of out, one by one."""
    loc = t.loc(node)
    stem = f"ufunc.{t.temp_number()}"
    names = [IRNode("name", loc, f"{stem}.{k}") for k in range(len(args))]
    setup = [IRNode("assign", loc, n, t.expr(a)) for n, a in zip(names, args)]
    inputs, out = names[:-1], names[-1]
    index = IRNode("name", loc, f"{stem}.i")
    items = [IRNode("name", loc, f"{stem}.x{k}") for k in range(len(inputs))]
    body = [IRNode("assign", loc, item, IRNode("call", loc, "cuda.ufunc.item", x, out, index))
            for item, x in zip(items, inputs)]
    value = ufunc_element(t, callee, loc, items)
    body.append(IRNode("expr", loc, IRNode("call", loc, "cuda.ufunc.store", out, index,
                                           value)))
    size = IRNode("call", loc, "cuda.ufunc.size", out)
    return setup + [IRNode("for", loc, index, IRNode("int", loc, "0"), size,
                           IRNode("int", loc, "1"), IRNode("block", loc, *body))]
