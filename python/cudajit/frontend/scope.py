"""One function's names, and what is known of them when it compiles: its parameters, locals,
closure, globals and builtins, the values given to it at a call site (a device function
specialised on a dtype, a function, a constant), the functions defined in it, and the
constant expressions read from them (array shapes, dtypes and alignments, enum members,
conditions known when compiling). No IR is made here."""

from __future__ import annotations

import ast
import builtins
import enum
import operator
from types import CellType, CodeType, FunctionType, ModuleType
from typing import Any

import numpy as np

from .. import types as cjtypes
from ..errors import CompileError
from ..source import read_function

MISSING = object()  # a name that resolves to nothing
# The hidden last argument of debug kernels (a name no Python code can spell).
EXCEPTION_RECORD = "exception.record"
# The static key of a device function's *args: how many values it gets (a name no
# parameter can have).
VARARG_COUNT = "*args"

# Operators a constant expression (an array shape) may use, on numbers only.
STATIC_COMPARISONS = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
STATIC_BINARY = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a ** b, ast.LShift: lambda a, b: a << b,
    ast.RShift: lambda a, b: a >> b, ast.BitAnd: lambda a, b: a & b,
    ast.BitOr: lambda a, b: a | b, ast.BitXor: lambda a, b: a ^ b,
}
STATIC_UNARY = {ast.USub: lambda a: -a, ast.UAdd: lambda a: +a, ast.Invert: lambda a: ~a}


class NotConstant(Exception):
    """A part of what must be a constant expression is not one."""

    def __init__(self, node: ast.AST):
        super().__init__(ast.unparse(node))
        self.node = node


class CapturedVariable:
    """The closure cell of a function defined in a kernel, for a variable of the enclosing
    function: a run-time value, which the inner function takes as a parameter."""

    def __init__(self, name: str):
        self.name = name


def cell_value(cell: Any) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None


def is_number(value: Any) -> bool:
    return isinstance(value, (bool, int, float, complex, np.bool_, np.number))


def dtype_of(value: Any) -> cjtypes.ScalarType:
    """The scalar type a dtype argument names: a NumPy dtype or scalar type, a cudajit
    or Numba type, or a string such as 'float32' or 'f4'. TypeError otherwise."""
    if isinstance(value, cjtypes.ScalarType):
        return value
    if value is None or isinstance(value, (bool, int, float)) or is_number(value):
        raise TypeError(f"expected a dtype (a NumPy dtype, a cudajit or Numba type, or a "
                        f"string); got {value!r}")
    if type(value).__module__.split(".")[0] == "numba":
        value = str(value)  # numba.float32 -> 'float32'
    try:
        dtype = np.dtype(value)
    except TypeError:
        if isinstance(value, str):  # numba-cuda's words for it
            raise TypeError(f"Invalid NumPy dtype specified: {value!r} (expected the name of "
                            "a NumPy dtype, such as 'float32' or 'f4')") from None
        raise TypeError(f"expected a dtype (a NumPy dtype, a cudajit or Numba type, or a "
                        f"string); got {value!r}") from None
    return cjtypes.from_dtype(dtype)


def record_of(value: Any) -> cjtypes.Record | None:
    """The record type a dtype argument names (a structured NumPy dtype, a cudajit or Numba
    Record), else None. TypeError for a structured dtype kernels cannot take."""
    value = cjtypes.from_numba(value)
    if isinstance(value, cjtypes.Record):
        return value
    if isinstance(value, np.dtype) and value.names is not None:
        return cjtypes.Record(value)
    return None


def static_key(value: Any) -> Any:
    """Equal for the same compile-time value: numbers by type and value, the rest by identity."""
    if isinstance(value, tuple):
        return tuple(static_key(v) for v in value)
    if is_number(value):
        return (type(value), value)
    if isinstance(value, np.dtype):
        return value
    return id(value)


class Scope:
    """The names of one function being compiled (`pyfunc`, with `static` parameters given
    values at the call site); `is_entry` for the kernel itself, `debug` for debug=True (every
    function takes the hidden last parameter EXCEPTION_RECORD)."""

    def __init__(self, pyfunc: FunctionType, static: dict[str, Any], is_entry: bool,
                 debug: bool):
        self.pyfunc = pyfunc
        self.is_entry = is_entry
        # Parameters given compile-time values at the call site (a dtype, a function, a
        # constant): names bound as globals are, not parameters (calls.device_call).
        self.static = static
        source = read_function(pyfunc)
        self.funcdef = source.funcdef
        self.filename = source.filename
        self.col_shift = source.col_shift
        self.globals = pyfunc.__globals__
        self.closure = dict(zip(pyfunc.__code__.co_freevars, pyfunc.__closure__ or ()))
        # A nested function's variables of the enclosing function: its last parameters.
        self.captured = [name for name, cell in self.closure.items()
                         if isinstance(cell_value(cell), CapturedVariable)]
        # Functions defined in this one (def inner(): ...), by name: device functions.
        self.nested: dict[str, FunctionType] = {}
        module_builtins = self.globals.get("__builtins__", builtins)
        self.builtins = vars(module_builtins) if isinstance(module_builtins, ModuleType) \
            else module_builtins
        self._constant_local_nodes: dict[str, ast.expr] | None = None
        self._call_result_names: frozenset[str] | None = None
        # The IR function's parameters: the static ones are not passed.
        self.params = [p for p in self.parameters() if p not in self.static] + self.captured
        if debug:  # the hidden record of the first exception (exceptions.cpp)
            self.params.append(EXCEPTION_RECORD)
        self.locals = set(self.params) | source.bound_names

    def loc(self, node: ast.AST) -> tuple[int, int]:
        return (node.lineno, node.col_offset + self.col_shift)

    def error(self, msg: str, node: ast.AST) -> CompileError:
        line, col = self.loc(node)
        return CompileError(msg, self.filename, line, col)

    def parameters(self) -> list[str]:
        """The function's parameter names (*args last); errors for those kernels lack."""
        args = self.funcdef.args
        if args.kwarg:
            raise self.error("**kwargs parameters are not supported in kernels", args.kwarg)
        # *args of a device function: a tuple, its length known at each call (static).
        if args.vararg and VARARG_COUNT not in self.static:
            raise self.error("*args parameters are supported in device functions, not "
                             "in kernels", args.vararg)
        if args.kwonlyargs:
            raise self.error("keyword-only parameters are not supported in kernels",
                             args.kwonlyargs[0])
        vararg = [args.vararg.arg] if args.vararg else []
        return [a.arg for a in args.posonlyargs + args.args] + vararg

    def lookup(self, name: str, default: Any = None) -> Any:
        """A non-local name's value: a static parameter, the closure, globals, builtins."""
        if name in self.static:
            return self.static[name]
        if name in self.closure:
            try:
                return self.closure[name].cell_contents
            except ValueError:
                return default  # an empty cell: assigned later in the enclosing function
        if name in self.globals:
            return self.globals[name]
        return self.builtins.get(name, default)

    # -- constant expressions -------------------------------------------------

    def constant_locals(self) -> dict[str, ast.expr]:
        """Local names bound once, by a plain assignment (``N = 100``), with what they are
        assigned: where a constant is needed (a shared array's shape), such a name is read
        as its value. Parameters and names bound anywhere else are not."""
        if self._constant_local_nodes is not None:
            return self._constant_local_nodes
        counts: dict[str, int] = {}
        assigned: dict[str, ast.expr] = {}
        for node in ast.walk(self.funcdef):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                counts[node.id] = counts.get(node.id, 0) + 1
            if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Name):
                assigned[node.targets[0].id] = node.value
            if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                counts[node.target.id] = counts.get(node.target.id, 0) + 1
        params = set(self.parameters())
        self._constant_local_nodes = {name: value for name, value in assigned.items()
                                      if counts.get(name) == 1 and name not in params}
        return self._constant_local_nodes

    def static_value(self, node: ast.expr) -> Any:
        """The value of a constant expression: literals, globals and closure values,
        their attributes, tuples, and arithmetic on numbers. Raises NotConstant."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in self.nested:  # a function defined here: passed on as a function
                return self.nested[node.id]
            if node.id in self.locals:
                value_node = self.constant_locals().pop(node.id, None)  # no cycles
                if value_node is None:
                    raise NotConstant(node)
                try:  # N = 100 assigned once: a constant, as Numba propagates it
                    return self.static_value(value_node)
                except NotConstant:
                    raise NotConstant(node) from None
                finally:
                    self.constant_locals()[node.id] = value_node
            value = self.lookup(node.id, MISSING)
            if value is MISSING:
                raise self.error(f"name '{node.id}' is not defined", node)
            return value
        if isinstance(node, ast.Attribute):
            base = self.static_value(node.value)
            value = getattr(base, node.attr, MISSING)
            if value is MISSING:
                raise self.error(f"'{ast.unparse(node.value)}' has no attribute "
                                 f"'{node.attr}'", node)
            return value
        if isinstance(node, ast.Tuple):
            return tuple(self.static_value(e) for e in node.elts)
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            try:
                base = self.static_value(node.value)
            except NotConstant:
                raise NotConstant(node) from None
            if isinstance(base, enum.EnumMeta):  # Color["red"]
                try:
                    return base[node.slice.value]
                except KeyError:
                    raise self.error(f"'{ast.unparse(node.value)}' has no member "
                                     f"{node.slice.value!r}", node) from None
        if isinstance(node, ast.BinOp) and type(node.op) in STATIC_BINARY:
            left = self.static_value(node.left)
            right = self.static_value(node.right)
            if is_number(left) and is_number(right):
                try:
                    return STATIC_BINARY[type(node.op)](left, right)
                except (ArithmeticError, ValueError) as exc:
                    raise self.error(f"'{ast.unparse(node)}' cannot be computed: {exc}",
                                     node) from None
        if isinstance(node, ast.UnaryOp) and type(node.op) in STATIC_UNARY:
            operand = self.static_value(node.operand)
            if is_number(operand):
                return STATIC_UNARY[type(node.op)](operand)
        if isinstance(node, ast.Call) and not node.keywords and len(node.args) == 1 \
                and self.static_value(node.func) is np.dtype:
            argument = self.static_value(node.args[0])
            try:
                return np.dtype(argument)
            except TypeError as exc:
                raise self.error(f"'{ast.unparse(node)}' is not a dtype: {exc}", node) from None
        raise NotConstant(node)

    def call_results(self) -> frozenset[str]:
        """Local names assigned a call's result (or such a name's value), which may hold
        None: a device function returning None on some paths returns an optional number."""
        if self._call_result_names is not None:
            return self._call_result_names
        assigned: list[tuple[str, ast.expr]] = [
            (node.targets[0].id, node.value) for node in ast.walk(self.funcdef)
            if isinstance(node, ast.Assign) and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)]
        names: set[str] = set()
        changed = True
        while changed:
            changed = False
            for name, value in assigned:
                if name not in names and (isinstance(value, ast.Call) or (
                        isinstance(value, ast.Name) and value.id in names)):
                    names.add(name)
                    changed = True
        self._call_result_names = frozenset(names)
        return self._call_result_names

    def static_shape(self, node: ast.expr, spelled: str) -> tuple[int, ...]:
        """The shape of a shared or local array, `spelled`(): constant integers."""
        expected = (f"{spelled}() needs a shape that is an integer constant or a tuple of them "
                    "(literals, global ints, locals assigned one once, or expressions of "
                    "them)")
        try:
            value = self.static_value(node)
        except NotConstant as exc:
            raise self.error(f"{expected}; '{ast.unparse(exc.node)}' is not a constant",
                             exc.node) from None
        extents = value if isinstance(value, tuple) else (value,)
        shape = []
        for extent in extents:
            if isinstance(extent, (bool, np.bool_)) or not is_number(extent):
                raise self.error(f"{expected}; got {value!r}", node)
            try:
                shape.append(operator.index(extent))
            except TypeError:
                raise self.error(f"{expected}; got {value!r}", node) from None
        if not 1 <= len(shape) <= 3:
            raise self.error(f"{spelled}() arrays have 1 to 3 dimensions; got shape {value!r}",
                             node)
        if any(extent < 0 for extent in shape):
            raise self.error(f"{spelled}() shape must not be negative; got {value!r}", node)
        return tuple(shape)

    def static_dtype(self, node: ast.expr, spelled: str) -> cjtypes.ScalarType | cjtypes.Record:
        try:
            value = self.static_value(node)
        except NotConstant as exc:
            raise self.error(f"{spelled}() needs a dtype known when compiling (a NumPy dtype, "
                             f"a cudajit or Numba type, or a string); '{ast.unparse(exc.node)}' "
                             "is not a constant", exc.node) from None
        try:
            return record_of(value) or dtype_of(value)
        except TypeError as exc:
            raise self.error(f"{spelled}(): {exc}", node) from None

    def static_alignment(self, node: ast.expr | None, spelled: str) -> int | None:
        """alignment= of a shared or local array: None, or a constant power of 2 that is a
        multiple of the pointer size (8), as Numba requires, up to 1024: a GPU of compute
        capability 8.0 and later keeps the first 1 KiB of a block's shared memory for
        itself, so the window's addresses promise no more (an H200 placed an array asked to
        be 4096-aligned at 0x...1400)."""
        if node is None:
            return None
        must = f"{spelled}(): alignment must be a constant integer; got"
        try:
            value = self.static_value(node)
        except NotConstant:
            raise self.error(f"{must} {ast.unparse(node)} (not known when compiling)",
                             node) from None
        if value is None:
            return None
        if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
            raise self.error(f"{must} {value!r}", node)
        value = int(value)
        if value <= 0 or value & (value - 1) or value % 8 or value > 1024:
            raise self.error(f"{spelled}(): alignment must be a power of 2 from 8 to 1024 "
                             f"(a multiple of the pointer size, as Numba requires); got {value}",
                             node)
        return value

    def known_condition(self, test: ast.expr) -> bool | None:
        """The truth of a condition that is a constant number, bool or None; else None."""
        try:
            value = self.static_value(test)
        except (NotConstant, CompileError):
            return None
        if value is None or is_number(value) and not isinstance(value, (complex,
                                                                       np.complexfloating)):
            return bool(value)
        return None

    def enum_comparison(self, node: ast.Compare) -> bool | None:
        """A comparison of enum members known here (Color.red == Color["green"]), as Python
        computes it: members of different enums never compare equal by value alone."""
        try:
            operands = [self.static_value(n) for n in [node.left, *node.comparators]]
        except (NotConstant, CompileError):
            return None
        if not any(isinstance(v, enum.Enum) or
                   (isinstance(v, tuple) and any(isinstance(i, enum.Enum) for i in v))
                   for v in operands):
            return None
        result = True
        for left, op, right in zip(operands, node.ops, operands[1:]):
            result = result and STATIC_COMPARISONS[type(op)](left, right)
        return bool(result)

    # -- functions defined in this one ------------------------------------------

    def define_inner_function(self, name: str, node: ast.AST, args: ast.arguments,
                              codes: list[CodeType]) -> None:
        """Makes the inner function `name` (a def or a lambda at `node`) of its code object,
        the one of `codes`, with this function's variables it reads as its closure: a
        device function of its own, those variables passed as its last parameters at each
        call (their values then, as Python's closures see them)."""
        if name in self.nested:
            raise self.error(f"function '{name}' is defined twice in "
                             f"'{self.pyfunc.__name__}'", node)
        if len(codes) != 1:
            raise self.error(f"the code of function '{name}' was not found (a function "
                             "defined in a kernel needs its source"
                             + ("; two lambdas alike on one line cannot be told apart)"
                                if codes else ")"), node)
        code = codes[0]
        cells = []
        for free in code.co_freevars:
            if free in self.closure:  # the enclosing function's own closure
                cells.append(self.closure[free])
            elif free in self.nested:
                cells.append(CellType(self.nested[free]))
            elif (constant := self._constant_local(free, node)) is not MISSING:
                cells.append(CellType(constant))  # y = 10, assigned once: a constant
            else:  # a variable of this function: passed at each call
                cells.append(CellType(CapturedVariable(free)))
        defaults = []
        for default in args.defaults:  # evaluated where the def runs: constants here
            try:
                defaults.append(self.static_value(default))
            except (NotConstant, CompileError):
                raise self.error("defaults of functions defined in kernels must be "
                                 "constants", default) from None
        # A lambda keeps its name, <lambda>: its source is found as a lambda's.
        inner = FunctionType(code, self.globals, code.co_name, tuple(defaults) or None,
                             tuple(cells))
        inner.__qualname__ = f"{self.pyfunc.__qualname__}.<locals>.{name}"
        inner._cudajit_device_pyfunc = inner  # type: ignore[attr-defined]
        inner._cudajit_captured = tuple(  # type: ignore[attr-defined]
            free for free, cell in zip(code.co_freevars, cells)
            if isinstance(cell.cell_contents, CapturedVariable))
        self.nested[name] = inner

    def _constant_local(self, name: str, where: ast.AST) -> Any:
        """The value of a local assigned a constant once (as shapes read it), else MISSING."""
        if name not in self.constant_locals():
            return MISSING
        try:
            return self.static_value(ast.copy_location(ast.Name(name, ast.Load()), where))
        except (NotConstant, CompileError):
            return MISSING
