"""What a name in a kernel refers to: the tables of Python's, math's and NumPy's functions
and of cudajit's intrinsics, and the compile-time entities (``_Ref``) that the function
translator (frontend.py) resolves names and attributes to."""

from __future__ import annotations

import ast
import builtins
import math
import operator
import sys
from dataclasses import dataclass
from types import FunctionType, ModuleType
from typing import Any, Union

import numpy as np

from . import intrinsics, vector_types
from .frontend_static import is_number as _is_number
from .frontend_ufuncs import UFUNCS
from .kernel_ir import IRNode

METHODS = ("conjugate", "bit_count", "reshape", "view")
PYTHON_BUILTINS = ("range", "len", "min", "max", "abs", "int", "float", "bool", "complex", "round")
MATH_CONSTANTS = ("pi", "e", "inf", "nan", "tau")
DIM3_NAMES = tuple(d.name for d in intrinsics.DIM3_INTRINSICS)
# Calls whose shape and dtype are read here, at compile time (keywords allowed).
ARRAY_ALLOCATORS = ("cuda.shared.array", "cuda.local.array")

BINARY_OPERATORS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
    ast.Mod: "%", ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
    ast.LShift: "<<", ast.RShift: ">>",
}
UNARY_OPERATORS = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~"}
COMPARE_OPERATORS = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
    ast.Is: "is", ast.IsNot: "isnot",  # of numbers: the same type and value, as in Numba
    ast.In: "in", ast.NotIn: "notin",  # a number in a tuple: == with one of its items
}

# The operator module's functions: the IR node each call becomes, and its operator.
OPERATOR_FUNCTIONS: dict[Any, tuple[str, str]] = {
    **{getattr(operator, name): ("binop", symbol) for names, symbol in [
        (("add", "iadd"), "+"), (("sub", "isub"), "-"), (("mul", "imul"), "*"),
        (("truediv", "itruediv"), "/"), (("floordiv", "ifloordiv"), "//"),
        (("mod", "imod"), "%"), (("pow", "ipow"), "**"), (("and_", "iand"), "&"),
        (("or_", "ior"), "|"), (("xor", "ixor"), "^"), (("lshift", "ilshift"), "<<"),
        (("rshift", "irshift"), ">>")] for name in names},
    **{getattr(operator, name): ("compare", symbol) for name, symbol in [
        ("lt", "<"), ("le", "<="), ("gt", ">"), ("ge", ">="), ("eq", "=="), ("ne", "!=")]},
    operator.neg: ("unary", "-"), operator.pos: ("unary", "+"), operator.invert: ("unary", "~"),
    operator.inv: ("unary", "~"), operator.not_: ("not", ""),
}

# Plural descriptions for the message "<what> are not supported in kernels".
UNSUPPORTED_SYNTAX = {
    "Try": "try statements", "TryStar": "try statements", "With": "with statements",
    "AsyncWith": "async with statements", "AsyncFor": "async for loops",
    "Delete": "del statements",
    "Import": "import statements", "ImportFrom": "import statements",
    "Global": "global declarations", "Nonlocal": "nonlocal declarations",
    "AsyncFunctionDef": "async functions",
    "ClassDef": "class definitions", "Match": "match statements",
    "Lambda": "lambda expressions", "ListComp": "list comprehensions",
    "SetComp": "set comprehensions", "DictComp": "dict comprehensions",
    "GeneratorExp": "generator expressions", "List": "lists", "Dict": "dicts", "Set": "set literals",
    "JoinedStr": "f-strings", "FormattedValue": "f-strings", "Await": "await expressions",
    "Yield": "yield expressions", "YieldFrom": "yield expressions",
    "NamedExpr": "assignment expressions (:=)", "Starred": "starred expressions (*x)",
    "Slice": "slices",
    # Python 3.12's type statement, 3.14's template strings
    "TypeAlias": "type aliases (type X = ...)",
    "TemplateStr": "template strings (t-strings)", "Interpolation": "template strings (t-strings)",
}


# ---------------------------------------------------------------------------
# What a non-local name or attribute resolves to, before it becomes IR

class _Ref:
    """A compile-time entity: usable only in some positions (called, or with .attr)."""


@dataclass(frozen=True)
class _ModuleRef(_Ref):
    kind: str  # "cudajit", "math", "numpy" or "other"
    module: ModuleType


@dataclass(frozen=True)
class _Constant(_Ref):
    value: Any  # a number or a (nested) tuple of numbers


@dataclass(frozen=True, eq=False)
class _ConstArray(_Ref):
    array: np.ndarray  # a global or closure NumPy array, frozen into the kernel


@dataclass(frozen=True, eq=False)
class _CapturedArray(_Ref):
    array: Any  # a global or closure device array (cudajit's, or one with the CUDA Array
    #             Interface): captured by its address, so the kernel sees later writes


@dataclass(frozen=True)
class _BuiltinFunction(_Ref):
    ir_name: str  # a BUILTIN symbol of the IR: "len", "math.sqrt", "cast.float32"
    numpy_inputs: int = 0  # a NumPy ufunc standing for it: its number of inputs


@dataclass(frozen=True)
class _Dim3(_Ref):
    name: str  # "threadIdx", ...


@dataclass(frozen=True)
class _GridIntrinsic(_Ref):
    name: str  # "grid" or "gridsize"


@dataclass(frozen=True)
class _ValueIntrinsic(_Ref):
    ir_name: str  # "cuda.threadIdx.x", "cuda.laneid"


@dataclass(frozen=True)
class _KernelIntrinsic(_Ref):
    ir_name: str  # "cuda.syncthreads", "cuda.atomic.add", "cuda.shared.array"


@dataclass(frozen=True)
class _DeviceFunction(_Ref):
    pyfunc: FunctionType
    signatures: tuple = ()  # declared cudajit Signatures: calls cast to the best one
    # Another function for calls with this many arguments (cmath.log(z, base)).
    by_arity: tuple[tuple[int, FunctionType], ...] = ()


@dataclass(frozen=True, eq=False)
class _ForeignFunction(_Ref):
    """A foreign device function (cuda.declare_device): a call is IR `extern.NAME`."""
    declared: Any  # linking.DeclaredDevice


@dataclass(frozen=True)
class _OperatorFunction(_Ref):
    """operator.add and friends: a call is the operator's expression."""
    node: str  # "binop", "compare", "unary" or "not"
    symbol: str


@dataclass(frozen=True, eq=False)
class _EnumClass(_Ref):
    """An enum class: its members (Color.red, Color["red"]) are constants, their values."""
    cls: type


@dataclass(frozen=True)
class _GridGroup(_Ref):
    """cuda.cg.this_grid(): only its .sync() means something in a kernel."""


Resolved = Union[IRNode, _Ref]

# Objects recognised by identity, keyed by id() with the object kept for an `is` check.
_KNOWN_OBJECTS: dict[int, tuple[Any, _Ref]] = {}


def _register(obj: Any, ref: _Ref) -> None:
    _KNOWN_OBJECTS[id(obj)] = (obj, ref)


for _dim3 in intrinsics.DIM3_INTRINSICS:
    _register(_dim3, _Dim3(_dim3.name))
    for _axis in "xyz":
        _register(getattr(_dim3, _axis), _ValueIntrinsic(getattr(_dim3, _axis).ir_name))
_register(intrinsics.grid, _GridIntrinsic("grid"))
_register(intrinsics.gridsize, _GridIntrinsic("gridsize"))
_register(intrinsics.laneid, _ValueIntrinsic(intrinsics.laneid.ir_name))
_register(intrinsics.warpsize, _ValueIntrinsic(intrinsics.warpsize.ir_name))
for _function, _ir_name in intrinsics.KERNEL_FUNCTIONS.values():
    _register(_function, _KernelIntrinsic(_ir_name))
for _function, (_node, _symbol) in OPERATOR_FUNCTIONS.items():
    _register(_function, _OperatorFunction(_node, _symbol))
_register(operator.abs, _BuiltinFunction("abs"))
_register(builtins.pow, _OperatorFunction("binop", "**"))  # pow(a, b): a ** b
for _name in PYTHON_BUILTINS + ("print",):
    _register(getattr(builtins, _name), _BuiltinFunction(_name))
for _vector in vector_types.vector_types.values():  # cuda.float32x4(...): a vector
    _register(_vector, _KernelIntrinsic(f"cuda.vector.{_vector.name}"))
# Any public function of math passes through; the compiler owns the list it supports.
for _name, _obj in vars(math).items():
    if callable(_obj) and not _name.startswith("_"):
        _register(_obj, _BuiltinFunction(f"math.{_name}"))
# NumPy's math ufuncs on numbers are math's functions (Numba compiles them alike; on
# arrays inside a kernel they are not supported: a CompileError from typing).
NUMPY_MATH = {
    "sin": "sin", "cos": "cos", "tan": "tan", "arcsin": "asin", "arccos": "acos",
    "arctan": "atan", "arctan2": "atan2", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
    "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh", "exp": "exp", "exp2": "exp2",
    "expm1": "expm1", "log": "log", "log2": "log2", "log10": "log10", "log1p": "log1p",
    "sqrt": "sqrt", "fabs": "fabs", "floor": "floor", "ceil": "ceil", "trunc": "trunc",
    "hypot": "hypot", "copysign": "copysign", "isnan": "isnan", "isinf": "isinf",
    "isfinite": "isfinite", "degrees": "degrees", "radians": "radians", "deg2rad": "radians",
    "rad2deg": "degrees", "nextafter": "nextafter", "ldexp": "ldexp", "fmod": "fmod",
}
for _name, _target in NUMPY_MATH.items():
    _register(getattr(np, _name), _BuiltinFunction(f"math.{_target}", getattr(np, _name).nin))
_register(np.absolute, _BuiltinFunction("abs", 1))
for _ufunc, _operator in UFUNCS.items():
    _KNOWN_OBJECTS[id(_ufunc)] = (_ufunc, _operator)


def _is_frozen_constant(value: Any) -> bool:
    if isinstance(value, tuple):
        return all(_is_frozen_constant(v) for v in value)
    return _is_number(value)


def _module_kind(module: ModuleType) -> str:
    if module is sys.modules.get("cudajit") or module.__name__ == "cudajit":
        return "cudajit"
    if module.__name__ in ("math", "numpy"):
        return module.__name__
    return "other"
