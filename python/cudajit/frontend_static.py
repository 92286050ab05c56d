"""The front end's compile-time values: what must be known when a kernel
compiles (array shapes and dtypes, frozen NumPy arrays), evaluated from the
function's globals and closure, and comparisons known then (enum members,
`x is None`). A mixin of the function translator
(frontend.py), which provides _error, _loc, _lookup, _check_call_syntax,
_unsupported and locals."""

from __future__ import annotations

import ast
import enum
import operator
from typing import Any

import numpy as np

from . import types as cjtypes
from .errors import CompileError
from .kernel_ir import IRNode

MISSING = object()  # a name that resolves to nothing

# NumPy arrays read in kernels are frozen into constant memory, which has 64 KiB.
CONSTANT_MEMORY_BYTES = 64 * 1024
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


def is_number(value: Any) -> bool:
    return isinstance(value, (bool, int, float, complex, np.bool_, np.number))


class CompileTimeValues:
    """Methods of the function translator that read values at compile time."""

    def _array_allocation(self, callee: Any, node: ast.Call) -> IRNode:
        """cuda.shared.array(shape, dtype, alignment=None) / cuda.local.array: all read here,
        as constants."""
        spelled = ast.unparse(node.func)
        params = ("shape", "dtype", "alignment")
        if len(node.args) > len(params):
            raise self._error(f"{spelled}() takes 2 or 3 arguments (shape, dtype, alignment); "
                              f"got {len(node.args)}", node)
        given: dict[str, ast.expr] = {}
        for name, arg in zip(params, node.args):
            if isinstance(arg, ast.Starred):
                raise self._unsupported(arg)
            given[name] = arg
        for keyword in node.keywords:
            if keyword.arg not in params:
                what = "**kwargs" if keyword.arg is None else f"keyword argument '{keyword.arg}'"
                raise self._error(f"{spelled}() got an unexpected {what}; it takes shape, "
                                  "dtype and alignment", keyword)
            if keyword.arg in given:
                raise self._error(f"{spelled}() got multiple values for '{keyword.arg}'",
                                  keyword)
            given[keyword.arg] = keyword.value
        for name in params[:2]:
            if name not in given:
                raise self._error(f"{spelled}() is missing its '{name}' argument", node)
        loc = self._loc(node)
        shape = self._static_shape(given["shape"], spelled)
        dtype = self._static_dtype(given["dtype"], spelled)
        shape_node = IRNode("tuple", self._loc(given["shape"]),
                            *(IRNode("int", loc, str(extent)) for extent in shape))
        args = [shape_node]
        if isinstance(dtype, cjtypes.Record):  # its spelling travels as bytes (no IR symbol)
            args.append(IRNode("bytes", loc, '"' + str(dtype).encode().hex() + '"'))
        alignment = self._static_alignment(given.get("alignment"), spelled)
        if alignment is not None:
            args.append(IRNode("int", loc, str(alignment)))
        name = "record" if isinstance(dtype, cjtypes.Record) else str(dtype)
        return IRNode("call", loc, f"{callee.ir_name}.{name}", *args)

    def _static_alignment(self, node: ast.expr | None, spelled: str) -> int | None:
        """alignment= of a shared or local array: None, or a constant power of 2 that is a
        multiple of the pointer size (8), as Numba requires, up to 1024: a GPU of compute
        capability 8.0 and later keeps the first 1 KiB of a block's shared memory for
        itself, so the window's addresses promise no more (an H200 placed an array asked to
        be 4096-aligned at 0x...1400)."""
        if node is None:
            return None
        must = f"{spelled}(): alignment must be a constant integer; got"
        try:
            value = self._static_value(node)
        except NotConstant:
            raise self._error(f"{must} {ast.unparse(node)} (not known when compiling)",
                              node) from None
        if value is None:
            return None
        if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
            raise self._error(f"{must} {value!r}", node)
        value = int(value)
        if value <= 0 or value & (value - 1) or value % 8 or value > 1024:
            raise self._error(f"{spelled}(): alignment must be a power of 2 from 8 to 1024 "
                              f"(a multiple of the pointer size, as Numba requires); got {value}",
                              node)
        return value

    def _array_like(self, node: ast.Call) -> IRNode:
        """cuda.const.array_like(ary): ``ary`` (a global or closure NumPy array) frozen."""
        spelled = ast.unparse(node.func)
        node = self._check_call_syntax(node)
        if len(node.args) != 1:
            raise self._error(f"{spelled}() takes one NumPy array; got {len(node.args)} "
                              "arguments", node)
        try:
            value = self._static_value(node.args[0])
        except NotConstant as exc:
            raise self._error(f"{spelled}() needs a NumPy array known when compiling (a global "
                              f"or closure variable); '{ast.unparse(exc.node)}' is not one",
                              exc.node) from None
        if not isinstance(value, np.ndarray):
            raise self._error(f"{spelled}() needs a NumPy array; got {type(value).__name__}",
                              node.args[0])
        return self._const_array(value, node.args[0])

    def _const_array(self, array: np.ndarray, node: ast.expr) -> IRNode:
        """A NumPy array as constant data of the kernel (constant memory on the GPU),
        as Numba freezes global arrays: later changes to it are not seen."""
        spelled = ast.unparse(node)
        try:
            record = array.dtype.names is not None
            dtype = cjtypes.Record(array.dtype) if record else cjtypes.from_dtype(array.dtype)
        except TypeError as exc:
            raise self._error(f"array '{spelled}' cannot be frozen into the kernel: {exc}",
                              node) from None
        if not 1 <= array.ndim <= cjtypes.MAX_ARRAY_NDIM:
            raise self._error(f"array '{spelled}' cannot be frozen into the kernel: it has "
                              f"{array.ndim} dimensions (1 to {cjtypes.MAX_ARRAY_NDIM} are "
                              "supported)", node)
        if array.nbytes > CONSTANT_MEMORY_BYTES:
            raise self._error(f"array '{spelled}' ({array.nbytes} bytes) is larger than the "
                              f"{CONSTANT_MEMORY_BYTES // 1024} KiB of constant memory it "
                              "would be frozen into; pass it as an argument", node)
        loc = self._loc(node)
        data = np.ascontiguousarray(array).tobytes()
        shape = IRNode("tuple", loc, *(IRNode("int", loc, str(n)) for n in array.shape))
        data_node = IRNode("bytes", loc, '"' + data.hex() + '"')
        if record:  # the record type's spelling travels as bytes too (it is no IR symbol)
            return IRNode("call", loc, "cuda.const.array.record", shape, data_node,
                          IRNode("bytes", loc, '"' + str(dtype).encode().hex() + '"'))
        return IRNode("call", loc, f"cuda.const.array.{dtype}", shape, data_node)

    def _constant_locals(self) -> dict[str, ast.expr]:
        """Local names bound once, by a plain assignment (``N = 100``), with what they are
        assigned: where a constant is needed (a shared array's shape), such a name is read
        as its value. Parameters and names bound anywhere else are not."""
        found = getattr(self, "_constant_local_nodes", None)
        if found is not None:
            return found
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
        params = set(self._parameters())
        found = {name: value for name, value in assigned.items()
                 if counts.get(name) == 1 and name not in params}
        self._constant_local_nodes = found
        return found

    def _static_value(self, node: ast.expr) -> Any:
        """The value of a constant expression: literals, globals and closure values,
        their attributes, tuples, and arithmetic on numbers. Raises NotConstant."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in self.nested:  # a function defined here: passed on as a function
                return self.nested[node.id]
            if node.id in self.locals:
                value_node = self._constant_locals().pop(node.id, None)  # no cycles
                if value_node is None:
                    raise NotConstant(node)
                try:  # N = 100 assigned once: a constant, as Numba propagates it
                    return self._static_value(value_node)
                except NotConstant:
                    raise NotConstant(node) from None
                finally:
                    self._constant_locals()[node.id] = value_node
            value = self._lookup(node.id, MISSING)
            if value is MISSING:
                raise self._error(f"name '{node.id}' is not defined", node)
            return value
        if isinstance(node, ast.Attribute):
            base = self._static_value(node.value)
            value = getattr(base, node.attr, MISSING)
            if value is MISSING:
                raise self._error(f"'{ast.unparse(node.value)}' has no attribute "
                                  f"'{node.attr}'", node)
            return value
        if isinstance(node, ast.Tuple):
            return tuple(self._static_value(e) for e in node.elts)
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            try:
                base = self._static_value(node.value)
            except NotConstant:
                raise NotConstant(node) from None
            if isinstance(base, enum.EnumMeta):  # Color["red"]
                try:
                    return base[node.slice.value]
                except KeyError:
                    raise self._error(f"'{ast.unparse(node.value)}' has no member "
                                      f"{node.slice.value!r}", node) from None
        if isinstance(node, ast.BinOp) and type(node.op) in STATIC_BINARY:
            left, right = self._static_value(node.left), self._static_value(node.right)
            if is_number(left) and is_number(right):
                try:
                    return STATIC_BINARY[type(node.op)](left, right)
                except (ArithmeticError, ValueError) as exc:
                    raise self._error(f"'{ast.unparse(node)}' cannot be computed: {exc}",
                                      node) from None
        if isinstance(node, ast.UnaryOp) and type(node.op) in STATIC_UNARY:
            operand = self._static_value(node.operand)
            if is_number(operand):
                return STATIC_UNARY[type(node.op)](operand)
        if isinstance(node, ast.Call) and not node.keywords and len(node.args) == 1 \
                and self._static_value(node.func) is np.dtype:
            argument = self._static_value(node.args[0])
            try:
                return np.dtype(argument)
            except TypeError as exc:
                raise self._error(f"'{ast.unparse(node)}' is not a dtype: {exc}", node) from None
        raise NotConstant(node)

    def _static_shape(self, node: ast.expr, spelled: str) -> tuple[int, ...]:
        expected = (f"{spelled}() needs a shape that is an integer constant or a tuple of them "
                    "(literals, global ints, locals assigned one once, or expressions of "
                    "them)")
        try:
            value = self._static_value(node)
        except NotConstant as exc:
            raise self._error(f"{expected}; '{ast.unparse(exc.node)}' is not a constant",
                              exc.node) from None
        extents = value if isinstance(value, tuple) else (value,)
        shape = []
        for extent in extents:
            if isinstance(extent, (bool, np.bool_)) or not is_number(extent):
                raise self._error(f"{expected}; got {value!r}", node)
            try:
                shape.append(operator.index(extent))
            except TypeError:
                raise self._error(f"{expected}; got {value!r}", node) from None
        if not 1 <= len(shape) <= 3:
            raise self._error(f"{spelled}() arrays have 1 to 3 dimensions; got shape {value!r}",
                              node)
        if any(extent < 0 for extent in shape):
            raise self._error(f"{spelled}() shape must not be negative; got {value!r}", node)
        return tuple(shape)

    def _static_dtype(self, node: ast.expr, spelled: str) -> cjtypes.ScalarType | cjtypes.Record:
        try:
            value = self._static_value(node)
        except NotConstant as exc:
            raise self._error(f"{spelled}() needs a dtype known when compiling (a NumPy dtype, "
                              f"a cudajit or Numba type, or a string); '{ast.unparse(exc.node)}' "
                              "is not a constant", exc.node) from None
        try:
            return record_of(value) or dtype_of(value)
        except TypeError as exc:
            raise self._error(f"{spelled}(): {exc}", node) from None

    def _none_comparison(self, node: ast.Compare) -> bool | IRNode | None:
        """`x is None` (`is not`): known here for a constant, and for a variable that never
        holds a call's result (no other value in a kernel is None); for one that does, which
        may hold None (a device function that returns None on some paths), the test
        ``isnone``/``notnone`` that typing resolves. An expression with effects is not
        skipped silently."""
        if len(node.ops) != 1 or not isinstance(node.ops[0], (ast.Is, ast.IsNot)):
            return None
        sides = [node.left, node.comparators[0]]
        if not any(isinstance(s, ast.Constant) and s.value is None for s in sides):
            return None
        try:
            same = self._static_value(sides[0]) is self._static_value(sides[1])
        except (NotConstant, CompileError):
            other = sides[1] if isinstance(sides[0], ast.Constant) else sides[0]
            if not isinstance(other, (ast.Name, ast.Attribute, ast.Subscript)):
                raise self._error("'is None' of an expression is not supported in kernels "
                                  "(no value there is None); compare a variable", node)
            if isinstance(other, ast.Name) and other.id in self._call_results():
                test = "isnone" if isinstance(node.ops[0], ast.Is) else "notnone"
                return IRNode("call", self._loc(node), test, self._expr(other))
            same = False
        return same if isinstance(node.ops[0], ast.Is) else not same

    def _call_results(self) -> frozenset[str]:
        """Local names assigned a call's result (or such a name's value), which may hold
        None: a device function returning None on some paths returns an optional number."""
        found = getattr(self, "_call_result_names", None)
        if found is not None:
            return found
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

    def _enum_comparison(self, node: ast.Compare) -> bool | None:
        """A comparison of enum members known here (Color.red == Color["green"]), as Python
        computes it: members of different enums never compare equal by value alone."""
        try:
            operands = [self._static_value(n) for n in [node.left, *node.comparators]]
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
