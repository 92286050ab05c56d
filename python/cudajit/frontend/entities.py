"""What a name in a kernel can mean when it is not a run-time value: the entities the front
end resolves names and attributes to (a module, a constant, an intrinsic, a device
function ...), and the table of objects known by identity (Python's, math's and NumPy's
functions, cudajit's intrinsics), which other modules fill by registration: the NumPy ufuncs
of ufuncs.py, the cmath functions of cmath_impl.py."""

from __future__ import annotations

import builtins
import math
import operator
import weakref
from dataclasses import dataclass
from types import FunctionType, ModuleType
from typing import Any, Union

import numpy as np

from .. import intrinsics, vector_types
from ..kernel_ir import IRNode

PYTHON_BUILTINS = ("range", "len", "min", "max", "abs", "int", "float", "bool", "complex", "round",
                   "isinstance")


class Entity:
    """A compile-time entity: usable only in some positions (called, or with .attr)."""


@dataclass(frozen=True)
class PythonModule(Entity):
    kind: str  # "cudajit", "math", "numpy" or "other"
    module: ModuleType


@dataclass(frozen=True)
class Constant(Entity):
    value: Any  # a number or a (nested) tuple of numbers


@dataclass(frozen=True, eq=False)
class FrozenArray(Entity):
    array: np.ndarray  # a global or closure NumPy array, frozen into the kernel


@dataclass(frozen=True, eq=False)
class FrozenTuple(Entity):
    items: tuple  # a global or closure tuple of NumPy arrays and numbers (nested tuples
    #               too): its arrays frozen into the kernel; a loop over it is unrolled


@dataclass(frozen=True, eq=False)
class CapturedArray(Entity):
    array: Any  # a global or closure device array (cudajit's, or one with the CUDA Array
    #             Interface): captured by its address, so the kernel sees later writes


@dataclass(frozen=True)
class BuiltinFunction(Entity):
    ir_name: str  # a BUILTIN symbol of the IR: "len", "math.sqrt", "cast.float32"
    numpy_inputs: int = 0  # a NumPy ufunc standing for it: its number of inputs


@dataclass(frozen=True, eq=False)
class CffiFFI(Entity):
    """A ``cffi.FFI()`` object: kernels call its ``from_buffer`` (an array's data pointer)."""
    ffi: Any


@dataclass(frozen=True)
class Dim3(Entity):
    name: str  # "threadIdx", ...


@dataclass(frozen=True)
class GridIntrinsic(Entity):
    name: str  # "grid" or "gridsize"


@dataclass(frozen=True)
class IntrinsicValue(Entity):
    ir_name: str  # "cuda.threadIdx.x", "cuda.laneid"


@dataclass(frozen=True)
class IntrinsicFunction(Entity):
    ir_name: str  # "cuda.syncthreads", "cuda.atomic.add", "cuda.shared.array"


@dataclass(frozen=True)
class PythonFunction(Entity):
    """A Python function that kernels call as a device function."""
    pyfunc: FunctionType
    signatures: tuple = ()  # declared cudajit Signatures: calls cast to the best one
    # Another function for calls with this many arguments (cmath.log(z, base)).
    by_arity: tuple[tuple[int, FunctionType], ...] = ()


@dataclass(frozen=True, eq=False)
class ArrayReduction(Entity):
    """NumPy's reduction of a whole array (np.sum, a.sum()): a call takes the array alone
    and is the call of `function`, the device function computing it."""
    function: PythonFunction


@dataclass(frozen=True, eq=False)
class OverloadedFunction(Entity):
    """A Python function with @overload implementations (cudajit's, numba-cuda's or
    Numba's): a call compiles what a generator returns for its arguments (overloads.py)."""
    func: Any
    templates: tuple  # overloads.OverloadTemplate, the "cuda" target's first


@dataclass(frozen=True, eq=False)
class ForeignFunction(Entity):
    """A foreign device function (cuda.declare_device): a call is IR `extern.NAME`."""
    declared: Any  # linking.DeclaredDevice


@dataclass(frozen=True)
class OperatorFunction(Entity):
    """operator.add and friends: a call is the operator's expression."""
    node: str  # "binop", "compare", "unary" or "not"
    symbol: str


@dataclass(frozen=True)
class NumpyUfunc(Entity):
    """A NumPy ufunc that is an operator on numbers (np.less, np.bitwise_and ...)."""
    name: str
    nin: int


@dataclass(frozen=True, eq=False)
class EnumClass(Entity):
    """An enum class: its members (Color.red, Color["red"]) are constants, their values."""
    cls: type


@dataclass(frozen=True)
class GridGroup(Entity):
    """cuda.cg.this_grid(): only its .sync() means something in a kernel."""


Resolved = Union[IRNode, Entity]

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

# Objects recognised by identity, keyed by id() with the object kept for an `is` check.
_KNOWN_OBJECTS: dict[int, tuple[Any, Entity]] = {}


def register_object(obj: Any, entity: Entity) -> None:
    """`obj`, wherever a kernel reads it (a global, a closure variable, a module's
    attribute), means `entity`."""
    _KNOWN_OBJECTS[id(obj)] = (obj, entity)


def known_entity(obj: Any) -> Entity | None:
    """What a registered object means, else None."""
    known = _KNOWN_OBJECTS.get(id(obj))
    return known[1] if known is not None and known[0] is obj else None


def is_known(obj: Any) -> bool:
    return known_entity(obj) is not None


# Numba's inlining of device functions (jit(device=True, inline="always") or forceinline=True),
# by their Python function: the IR's (inline always) or (inline force).
_INLINE_MODES: "weakref.WeakKeyDictionary[FunctionType, str]" = weakref.WeakKeyDictionary()


def set_inline_mode(pyfunc: FunctionType, mode: str | None) -> None:
    """Inline every call of `pyfunc` ("always"), mark it alwaysinline ("force"), or leave it
    to the optimiser (None)."""
    if mode is None:
        _INLINE_MODES.pop(pyfunc, None)
    else:
        _INLINE_MODES[pyfunc] = mode


def inline_mode(pyfunc: FunctionType) -> str | None:
    return _INLINE_MODES.get(pyfunc)


# cmath's functions in kernels (and NumPy's math ufuncs on complex numbers): device functions
# that cmath_impl.py registers, by name.
_COMPLEX_MATH: dict[str, PythonFunction] = {}


def register_complex_math(name: str, function: Any,
                          by_arity: dict[int, Any] | None = None) -> None:
    """cmath's `name` (or NumPy's, on a complex number) is the device function `function`
    (a @jit(device=True) function); `by_arity` gives others for other numbers of
    arguments (cmath.log(z, base))."""
    _COMPLEX_MATH[name] = PythonFunction(function._cudajit_device_pyfunc, by_arity=tuple(
        (n, f._cudajit_device_pyfunc) for n, f in (by_arity or {}).items()))


def complex_math(name: str) -> PythonFunction | None:
    """The device function registered for cmath's `name`, else None."""
    return _COMPLEX_MATH.get(name)


# NumPy's reductions of a whole array (np.sum, a.sum() ...): device functions that
# array_reductions.py registers; the array methods among them, by name.
_ARRAY_METHODS: dict[str, ArrayReduction] = {}


def register_array_reduction(function: Any, implementation: Any,
                             method: str | None = None) -> None:
    """NumPy's `function` (np.sum) in kernels is the device function `implementation` (a
    @jit(device=True) function taking the array); `method`, if given, names the array
    method of the same meaning (a.sum())."""
    entity = ArrayReduction(PythonFunction(implementation._cudajit_device_pyfunc))
    register_object(function, entity)
    if method is not None:
        _ARRAY_METHODS[method] = entity


def array_method(name: str) -> ArrayReduction | None:
    """The reduction registered for the array method `name` (a.sum()), else None."""
    return _ARRAY_METHODS.get(name)


def array_method_names() -> list[str]:
    return sorted(_ARRAY_METHODS)


for _dim3 in intrinsics.DIM3_INTRINSICS:
    register_object(_dim3, Dim3(_dim3.name))
    for _axis in "xyz":
        register_object(getattr(_dim3, _axis), IntrinsicValue(getattr(_dim3, _axis).ir_name))
register_object(intrinsics.grid, GridIntrinsic("grid"))
register_object(intrinsics.gridsize, GridIntrinsic("gridsize"))
register_object(intrinsics.laneid, IntrinsicValue(intrinsics.laneid.ir_name))
register_object(intrinsics.warpsize, IntrinsicValue(intrinsics.warpsize.ir_name))
for _function, _ir_name in intrinsics.KERNEL_FUNCTIONS.values():
    register_object(_function, IntrinsicFunction(_ir_name))
for _function, (_node, _symbol) in OPERATOR_FUNCTIONS.items():
    register_object(_function, OperatorFunction(_node, _symbol))
register_object(operator.abs, BuiltinFunction("abs"))
register_object(builtins.pow, OperatorFunction("binop", "**"))  # pow(a, b): a ** b
for _name in PYTHON_BUILTINS + ("print",):
    register_object(getattr(builtins, _name), BuiltinFunction(_name))
for _vector in vector_types.vector_types.values():  # cuda.float32x4(...): a vector
    register_object(_vector, IntrinsicFunction(f"cuda.vector.{_vector.name}"))
# Any public function of math passes through; the compiler owns the list it supports.
for _name, _obj in vars(math).items():
    if callable(_obj) and not _name.startswith("_"):
        register_object(_obj, BuiltinFunction(f"math.{_name}"))
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
    register_object(getattr(np, _name),
                    BuiltinFunction(f"math.{_target}", getattr(np, _name).nin))
register_object(np.absolute, BuiltinFunction("abs", 1))
