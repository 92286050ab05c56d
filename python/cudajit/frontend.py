"""Front end: a Python function's source -> kernel IR text (docs/dev/kernel-ir.md).

The source is read with ``inspect`` and ``ast`` (never bytecode). Names are
resolved here, against the function's locals, closure, globals and builtins:
``math``, ``cudajit`` and NumPy under any alias, frozen numeric constants, and
device functions, which are translated too and appended to the module. The
C++ compiler then types and lowers the IR without seeing a Python object.
Anything outside the supported subset raises CompileError at its node.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import math
from types import FunctionType, ModuleType
from typing import Any, Callable, NamedTuple

import numpy as np

from . import types as cjtypes
from .errors import CompileError
from .kernel_ir import IRNode, ir_identifier, mangle, render, string_atom
from .frontend_static import MISSING as _MISSING
from .frontend_calls import EXCEPTION_RECORD, VARARG_COUNT, DeviceCalls, static_key
from .frontend_functions import CapturedVariable, InnerFunctions, cell_value
from .frontend_exceptions import Exceptions
from .frontend_grid import GridIntrinsics
from .frontend_objects import GlobalObjects
from .frontend_loops import ForLoops
from .frontend_ufuncs import NumpyUfunc, NumpyUfuncs
from .frontend_static import CompileTimeValues
from .frontend_static import NotConstant as _NotConstant
from .frontend_static import is_number as _is_number
from .source import read_function
from .frontend_names import (  # what names refer to
    METHODS, MATH_CONSTANTS, DIM3_NAMES, ARRAY_ALLOCATORS, BINARY_OPERATORS,
    UNARY_OPERATORS, COMPARE_OPERATORS, UNSUPPORTED_SYNTAX, _Ref, _ModuleRef, _Constant,
    _ConstArray, _CapturedArray, _BuiltinFunction, _Dim3, _GridIntrinsic, _ValueIntrinsic,
    _KernelIntrinsic, _DeviceFunction, _OperatorFunction, _EnumClass, _GridGroup, Resolved,
    _ForeignFunction, _KNOWN_OBJECTS,
)

__all__ = ["build_module"]

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1

# ---------------------------------------------------------------------------
# One function -> (func@ ...)


def _ends_block(stmt: ast.stmt) -> bool:
    """Whether nothing after `stmt` in its block can run: a return, raise, break or
    continue, or an if whose branches all end so."""
    if isinstance(stmt, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
        return True
    if isinstance(stmt, ast.If) and stmt.orelse:
        return any(map(_ends_block, stmt.body)) and any(map(_ends_block, stmt.orelse))
    return False

class _FunctionTranslator(CompileTimeValues, GlobalObjects, ForLoops, DeviceCalls, InnerFunctions,
                          NumpyUfuncs, Exceptions, GridIntrinsics):
    def __init__(self, pyfunc: FunctionType, ir_name: str, module: "_ModuleBuilder",
                 static: dict[str, Any] | None = None):
        self.pyfunc = pyfunc
        self.ir_name = ir_name
        self.module = module
        # Parameters given compile-time values at the call site (a dtype, a function, a
        # constant): names bound as globals are, not parameters (_device_call).
        self.static = static or {}
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
        self.params = [p for p in self._parameters() if p not in self.static] + self.captured
        if module.debug:  # the hidden record of the first exception (exceptions.cpp)
            self.params.append(EXCEPTION_RECORD)
        self.locals = set(self.params) | source.bound_names
        self.chain_temps = 0
        # Names bound to cuda.cg.this_grid(): compile-time groups, never IR values.
        self.grid_groups: set[str] = set()
        self.grid_groups = self._grid_group_names()

    # -- helpers ------------------------------------------------------------

    def _loc(self, node: ast.AST) -> tuple[int, int]:
        return (node.lineno, node.col_offset + self.col_shift)

    def _error(self, msg: str, node: ast.AST) -> CompileError:
        line, col = self._loc(node)
        return CompileError(msg, self.filename, line, col)

    def _unsupported(self, node: ast.AST) -> CompileError:
        what = UNSUPPORTED_SYNTAX.get(type(node).__name__, f"'{type(node).__name__}' nodes")
        return self._error(f"{what} are not supported in kernels", node)

    def _parameters(self) -> list[str]:
        args = self.funcdef.args
        if args.kwarg:
            raise self._error("**kwargs parameters are not supported in kernels", args.kwarg)
        # *args of a device function: a tuple, its length known at each call (static).
        if args.vararg and VARARG_COUNT not in self.static:
            raise self._error("*args parameters are supported in device functions, not "
                              "in kernels", args.vararg)
        if args.kwonlyargs:
            raise self._error("keyword-only parameters are not supported in kernels",
                              args.kwonlyargs[0])
        if args.defaults and self.pyfunc is self.module.entry:
            raise self._error("default parameter values are supported in device functions, "
                              "not in kernels", args.defaults[0])
        vararg = [args.vararg.arg] if args.vararg else []
        return [a.arg for a in args.posonlyargs + args.args] + vararg

    def translate(self) -> IRNode:
        body = self.funcdef.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]  # the docstring
        params = IRNode("params", None, *(ir_identifier(p) for p in self.params))
        # A device function from another file names its own, for the compiler's errors.
        header = self.ir_name
        if self.filename != self.module.entry.__code__.co_filename:
            header += " " + string_atom(self.filename)
        return IRNode("func", self._loc(self.funcdef), header, params,
                      *self._statements(body))

    # -- statements ---------------------------------------------------------

    def _statements(self, stmts: list[ast.stmt]) -> list[IRNode]:
        result: list[IRNode] = []
        for stmt in stmts:
            handler = getattr(self, "_stmt_" + type(stmt).__name__, None)
            if handler is None:
                raise self._unsupported(stmt)
            result.extend(handler(stmt))
            if _ends_block(stmt):
                break  # what follows in the block never runs: not compiled, as in Numba
        return result

    def _block(self, stmts: list[ast.stmt], fallback: ast.AST) -> IRNode:
        # A block sits at its first statement; an empty one at its owner.
        return IRNode("block", self._loc(stmts[0] if stmts else fallback),
                      *self._statements(stmts))

    def _stmt_Assign(self, node: ast.Assign) -> list[IRNode]:
        if all(isinstance(t, ast.Name) and t.id in self.grid_groups for t in node.targets):
            return []  # g = cuda.cg.this_grid(), known when compiling: g.sync() is all it does
        if self._lambda_assigned(node):
            return []
        loc = self._loc(node)
        value = self._expr(node.value)
        result = []
        if len(node.targets) > 1 and not self._is_cheap(node.value):
            # a = b = f(x): evaluate f(x) once, into a name no Python code can spell.
            self.chain_temps += 1
            temp = IRNode("name", self._loc(node.value), f"chain.{self.chain_temps}")
            result.append(IRNode("assign", loc, temp, value))
            value = temp
        for target in node.targets:
            result.append(IRNode("assign", loc, self._target(target), value))
        return result

    @staticmethod
    def _is_cheap(node: ast.expr) -> bool:
        if isinstance(node, ast.UnaryOp):
            node = node.operand
        return isinstance(node, (ast.Name, ast.Constant))

    def _stmt_AugAssign(self, node: ast.AugAssign) -> list[IRNode]:
        if not isinstance(node.target, (ast.Name, ast.Subscript, ast.Attribute)):
            raise self._error("augmented assignment needs a variable, an array element or a "
                              "record's field",
                              node.target)
        if isinstance(node.target, ast.Subscript) and any(
                isinstance(e, ast.Slice) for e in ast.walk(node.target.slice)):
            raise self._error("augmented assignment to a slice is not supported in kernels; "
                              "loop over its elements", node.target)
        value = self._expr(node.value)
        if self.module.debug and isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)):
            # debug=True: x /= 0 raises ZeroDivisionError too (the divisor checked as it is read)
            value = self._checked("nonzero", ZeroDivisionError("division by zero"), node, value)
        return [IRNode("augassign", self._loc(node), self._binary_operator(node.op, node),
                       self._target(node.target), value)]

    def _stmt_AnnAssign(self, node: ast.AnnAssign) -> list[IRNode]:
        if node.value is None:
            return []  # a bare annotation binds nothing
        return [IRNode("assign", self._loc(node), self._target(node.target),
                       self._expr(node.value))]

    def _target(self, node: ast.expr) -> IRNode:
        if isinstance(node, ast.Name):
            return IRNode("name", self._loc(node), ir_identifier(node.id))
        if isinstance(node, ast.Subscript):
            return self._expr_Subscript(node)
        if isinstance(node, (ast.Tuple, ast.List)):
            return IRNode("tuple", self._loc(node), *(self._target(e) for e in node.elts))
        if isinstance(node, ast.Attribute):  # a record's field: r.x = v
            return self._as_value(self._resolve(node), node)
        if isinstance(node, ast.Starred):
            raise self._unsupported(node)
        raise self._error("cannot assign to this expression in a kernel", node)

    def _stmt_If(self, node: ast.If) -> list[IRNode]:
        taken = self._known_condition(node.test)
        if taken is not None:
            # Known when compiling (a global, a constant argument the device function is
            # specialised on): as Numba prunes such a branch, the other side is not compiled.
            return self._statements(node.body if taken else node.orelse)
        return [IRNode("if", self._loc(node), self._expr(node.test),
                       self._block(node.body, node), self._block(node.orelse, node))]

    def _known_condition(self, test: ast.expr) -> bool | None:
        """The truth of a condition that is a constant number, bool or None; else None."""
        try:
            value = self._static_value(test)
        except (_NotConstant, CompileError):
            return None
        if value is None or _is_number(value) and not isinstance(value, (complex, np.complexfloating)):
            return bool(value)
        return None

    def _stmt_While(self, node: ast.While) -> list[IRNode]:
        if node.orelse:
            raise self._error("'else' clauses on while loops are not supported in kernels",
                              node)
        return [IRNode("while", self._loc(node), self._expr(node.test),
                       self._block(node.body, node))]

    def _constant_items(self, node: ast.expr) -> list[IRNode] | None:
        """The items of a tuple known here (a literal or a frozen global), as IR."""
        if isinstance(node, ast.Tuple):
            return [self._expr(e) for e in node.elts]
        if isinstance(node, (ast.Name, ast.Attribute)):
            resolved = self._resolve(node)
            if isinstance(resolved, _Constant) and isinstance(resolved.value, tuple):
                return [self._literal(v, node) for v in resolved.value]
        return None

    def _stmt_Break(self, node: ast.stmt) -> list[IRNode]:
        return [IRNode("break", self._loc(node))]

    def _stmt_Continue(self, node: ast.stmt) -> list[IRNode]:
        return [IRNode("continue", self._loc(node))]

    def _stmt_Pass(self, node: ast.stmt) -> list[IRNode]:
        return [IRNode("pass", self._loc(node))]

    def _stmt_Return(self, node: ast.Return) -> list[IRNode]:
        value = node.value
        if value is None or (isinstance(value, ast.Constant) and value.value is None):
            return [IRNode("return", self._loc(node))]
        return [IRNode("return", self._loc(node), self._expr(value))]

    def _stmt_Expr(self, node: ast.Expr) -> list[IRNode]:
        if isinstance(node.value, ast.Constant):
            if isinstance(node.value.value, str):
                return []  # a string used as a comment does nothing
            if node.value.value is Ellipsis:
                return [IRNode("pass", self._loc(node))]
        if self._is_this_grid(node.value):
            return []  # a grid group made and dropped: nothing to do
        with_output = self._ufunc_with_output(node.value)
        if with_output is not None:
            assert isinstance(node.value, ast.Call)
            return self._ufunc_loop(*with_output, node.value)
        return [IRNode("expr", self._loc(node), self._expr(node.value))]

    # -- expressions --------------------------------------------------------

    def _expr(self, node: ast.expr) -> IRNode:
        if isinstance(node, (ast.Name, ast.Attribute)):
            return self._as_value(self._resolve(node), node)
        handler = getattr(self, "_expr_" + type(node).__name__, None)
        if handler is None:
            raise self._unsupported(node)
        value = handler(node)
        if self.module.debug and isinstance(node, ast.Subscript) and value.head == "subscript" \
                and not isinstance(node.slice, (ast.Constant, ast.Slice, ast.Tuple)):
            # debug=True: a tuple indexed out of range raises IndexError, as in Numba
            return self._checked("index", IndexError("tuple index out of range"), node, value)
        return value

    def _expr_Constant(self, node: ast.Constant) -> IRNode:
        value = node.value
        if isinstance(value, (str, bytes)):
            raise self._error("strings are not supported in kernels", node)
        if value is None:
            raise self._error("None is not supported here in kernels", node)
        if not _is_number(value):
            raise self._error(f"the constant {value!r} is not supported in kernels", node)
        return self._literal(value, node)

    def _expr_UnaryOp(self, node: ast.UnaryOp) -> IRNode:
        operand = node.operand
        if isinstance(node.op, ast.Not):
            return IRNode("not", self._loc(node), self._expr(operand))
        if isinstance(node.op, ast.USub) and isinstance(operand, ast.Constant) \
                and type(operand.value) is int and operand.value == -INT64_MIN:
            return IRNode("int", self._loc(node), str(INT64_MIN))  # -2**63 as one literal
        return IRNode("unary", self._loc(node), UNARY_OPERATORS[type(node.op)],
                      self._expr(operand))

    def _binary_operator(self, op: ast.operator, node: ast.AST) -> str:
        symbol = BINARY_OPERATORS.get(type(op))
        if symbol is None:
            raise self._error("the '@' operator is not supported in kernels", node)
        return symbol

    def _expr_BinOp(self, node: ast.BinOp) -> IRNode:
        value = IRNode("binop", self._loc(node), self._binary_operator(node.op, node),
                       self._expr(node.left), self._expr(node.right))
        if self.module.debug and isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)):
            # debug=True: a zero divisor raises ZeroDivisionError, as Numba's debug mode does
            return self._checked("zerodiv", ZeroDivisionError("division by zero"), node, value)
        return value

    def _expr_BoolOp(self, node: ast.BoolOp) -> IRNode:
        head = "and" if isinstance(node.op, ast.And) else "or"
        return IRNode(head, self._loc(node), *(self._expr(v) for v in node.values))

    def _expr_Compare(self, node: ast.Compare) -> IRNode:
        folded = self._enum_comparison(node)
        if folded is None:
            folded = self._none_comparison(node)
        if isinstance(folded, IRNode):
            return folded
        if folded is not None:
            return self._literal(folded, node)
        children: list[IRNode | str] = [self._expr(node.left)]
        for op, right in zip(node.ops, node.comparators):
            children += [COMPARE_OPERATORS[type(op)], self._expr(right)]
        return IRNode("compare", self._loc(node), *children)

    def _expr_IfExp(self, node: ast.IfExp) -> IRNode:
        return IRNode("ifexp", self._loc(node), self._expr(node.test),
                      self._expr(node.body), self._expr(node.orelse))

    def _expr_Tuple(self, node: ast.Tuple) -> IRNode:
        return IRNode("tuple", self._loc(node), *(self._expr(e) for e in node.elts))

    def _expr_Subscript(self, node: ast.Subscript) -> IRNode:
        if isinstance(node.value, (ast.Name, ast.Attribute)) and \
                isinstance(self._resolve(node.value), _EnumClass):  # Color["red"]
            return self._as_value(self._classify(self._static_value(node), node), node)
        index = node.slice
        if isinstance(index, ast.Constant) and isinstance(index.value, str):
            return self._record_field(node, index.value)
        if isinstance(index, ast.Tuple) and any(isinstance(e, ast.Slice) for e in index.elts):
            parts = IRNode("tuple", self._loc(index), *(self._index_part(e) for e in index.elts))
        else:
            parts = self._index_part(index)
        return IRNode("subscript", self._loc(node), self._expr(node.value), parts)

    def _record_field(self, node: ast.Subscript, name: str) -> IRNode:
        """r["x"]: the field x of a record (or of every record of a record array), as r.x."""
        if not name.isidentifier():
            raise self._error(f"record field {name!r} cannot be used in kernels: field names "
                              "in kernels must be Python identifiers", node.slice)
        return IRNode("attr", self._loc(node), self._expr(node.value), name)

    def _index_part(self, element: ast.expr) -> IRNode:
        """An index, or a slice: the IR call slice.PPP with the parts given (1) or left out (0),
        as the compiler reads it (ir.hpp)."""
        if not isinstance(element, ast.Slice):
            return self._expr(element)
        parts = [element.lower, element.upper, element.step]
        given = [p is not None and not (isinstance(p, ast.Constant) and p.value is None)
                 for p in parts]
        return IRNode("call", self._loc(element), "slice." + "".join("1" if g else "0" for g in given),
                      *(self._expr(p) for p, g in zip(parts, given) if g))

    def _literal(self, value: Any, node: ast.AST) -> IRNode:
        loc = self._loc(node)
        if isinstance(value, (bool, np.bool_)):
            return IRNode("bool", loc, "1" if value else "0")
        if isinstance(value, np.number) and not isinstance(value, np.complexfloating):
            # A NumPy scalar keeps its type, as Numba types it by its dtype.
            dtype = cjtypes.from_dtype(value.dtype)
            if isinstance(value, np.integer):
                number = int(value)  # a uint64 above int64's range: the same bits
                inner = IRNode("int", loc, str(number - 2**64 if number > INT64_MAX else number))
            else:
                inner = IRNode("float", loc, repr(float(value)))
            return IRNode("call", loc, f"cast.{dtype}", inner)
        if isinstance(value, (int, np.integer)):
            number = int(value)
            if INT64_MAX < number <= UINT64_MAX:
                # uint64 as Numba types it: the same bits, written as an int64.
                return IRNode("call", loc, "cast.uint64", IRNode("int", loc, str(number - 2**64)))
            if not INT64_MIN <= number <= INT64_MAX:
                raise self._error(f"integer constant {number} does not fit in int64 or uint64",
                                  node)
            return IRNode("int", loc, str(number))
        if isinstance(value, (float, np.floating)):
            return IRNode("float", loc, repr(float(value)))
        if isinstance(value, (complex, np.complexfloating)):
            number = complex(value)
            return IRNode("complex", loc, repr(number.real), repr(number.imag))
        if isinstance(value, tuple):
            return IRNode("tuple", loc, *(self._literal(v, node) for v in value))
        raise self._error(f"the constant {value!r} is not supported in kernels", node)

    # -- names, attributes and calls ------------------------------------------

    def _lookup(self, name: str, default: Any = None) -> Any:
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

    def _resolve(self, node: ast.expr) -> Resolved:
        """A name or attribute chain as IR (a value) or as a compile-time entity."""
        if isinstance(node, ast.Name):
            if node.id in self.grid_groups:
                return _GridGroup()
            if node.id in self.nested:
                return _DeviceFunction(self.nested[node.id])
            if node.id in self.locals:
                return IRNode("name", self._loc(node), ir_identifier(node.id))
            value = self._lookup(node.id, _MISSING)
            if value is _MISSING:
                if node.id in self.closure:
                    raise self._error(f"free variable '{node.id}' is referenced before "
                                      "assignment in the enclosing function", node)
                raise self._error(f"name '{node.id}' is not defined", node)
            return self._classify(value, node)
        if isinstance(node, ast.Attribute):
            base = self._resolve(node.value)
            if isinstance(base, (_ModuleRef, _Dim3)):
                return self._attribute_of_namespace(base, node)
            if isinstance(base, _EnumClass):
                return self._classify(self._static_value(node), node)
            if node.attr == "value" and isinstance(node.value, ast.Attribute) \
                    and isinstance(self._resolve(node.value.value), _EnumClass):
                return self._classify(self._static_value(node), node)  # Color.red.value
            if node.attr == "data" and isinstance(node.value, ast.Attribute) \
                    and node.value.attr == "ctypes":  # an array's address, as Numba has it
                return IRNode("call", self._loc(node), "array.address",
                              self._expr(node.value.value))
            # .shape, .real, a record's field ...: the compiler knows the value's type.
            return IRNode("attr", self._loc(node), self._as_value(base, node.value), node.attr)
        return self._expr(node)

    def _attribute_of_namespace(self, base: _ModuleRef | _Dim3, node: ast.Attribute) -> _Ref:
        attr, spelled = node.attr, ast.unparse(node)
        if isinstance(base, _Dim3):
            if attr in ("x", "y", "z"):
                return _ValueIntrinsic(f"cuda.{base.name}.{attr}")
            raise self._error(f"'{spelled}' is not supported; use .x, .y or .z", node)
        if base.kind == "cudajit":
            if attr in DIM3_NAMES:
                return _Dim3(attr)
            if attr in ("grid", "gridsize"):
                return _GridIntrinsic(attr)
            if attr in ("laneid", "warpsize"):
                return _ValueIntrinsic(f"cuda.{attr}")
            scalar = cjtypes.SIGNATURE_NAMESPACE.get(attr)
            if isinstance(scalar, cjtypes.ScalarType):
                return _BuiltinFunction(f"cast.{scalar}")
            member = getattr(base.module, attr, None)
            known = _KNOWN_OBJECTS.get(id(member))
            if isinstance(member, ModuleType) or (known is not None and known[0] is member):
                return self._classify(member, node)
            raise self._error(f"'{spelled}' is not supported in kernels", node)
        if base.kind == "math":
            if attr in MATH_CONSTANTS:
                return _Constant(getattr(math, attr))
            if callable(getattr(math, attr, None)) and not attr.startswith("_"):
                return _BuiltinFunction(f"math.{attr}")
            raise self._error(f"'{spelled}' is not supported in kernels", node)
        value = getattr(base.module, attr, _MISSING)
        if value is _MISSING:
            raise self._error(f"module '{ast.unparse(node.value)}' has no attribute '{attr}'",
                              node)
        known = _KNOWN_OBJECTS.get(id(value))
        if base.kind == "numpy" and known is None and not (_is_number(value) or (
                isinstance(value, type) and issubclass(value, np.generic))):
            hint = f"; use math.{attr}" if callable(getattr(math, attr, None)) else ""
            raise self._error(f"'{spelled}' is not supported in kernels{hint}", node)
        return self._classify(value, node)

    def _as_value(self, resolved: Resolved, node: ast.expr) -> IRNode:
        if isinstance(resolved, IRNode):
            return resolved
        if isinstance(resolved, _Constant):
            return self._literal(resolved.value, node)
        if isinstance(resolved, _ValueIntrinsic):
            return IRNode("call", self._loc(node), resolved.ir_name)
        if isinstance(resolved, _ConstArray):
            return self._const_array(resolved.array, node)
        if isinstance(resolved, _CapturedArray):
            return self._captured_array(resolved.array, node)
        spelled = ast.unparse(node)
        if isinstance(resolved, _ModuleRef):
            raise self._error(f"module '{spelled}' cannot be used as a value in kernels", node)
        if isinstance(resolved, _Dim3):
            raise self._error(f"'{spelled}' cannot be used as a value; use "
                              f"{spelled}.x, .y or .z", node)
        if isinstance(resolved, _GridGroup):
            raise self._error(f"the grid group '{spelled}' can only call .sync() in kernels "
                              "(it cannot be stored, passed or returned)", node)
        raise self._error(f"'{spelled}' can only be called, not used as a value, in kernels",
                          node)

    def _check_call_syntax(self, node: ast.Call, callee: Any = None) -> ast.Call:
        """The call with its arguments positional: *args expanded, and a device function's
        keywords and defaults bound. A new node: the parsed source is shared (cached), and
        each specialisation of this function expands it anew."""
        node = ast.copy_location(ast.Call(node.func, self._expand_starred(node.args),
                                          node.keywords), node)
        starred = [arg for arg in node.args if isinstance(arg, ast.Starred)]
        if isinstance(callee, _DeviceFunction) and not callee.signatures and not starred:
            self._bind_keywords(callee.pyfunc, node)  # f(x, scale=2), f(x) with a default
        if node.keywords:
            raise self._error("keyword arguments are not supported in kernels",
                              node.keywords[0])
        if starred and not _unpacks_when_typed(callee):
            raise self._error("f(*t) of a tuple known only when the kernel compiles works for "
                              "device functions (without declared signatures or *args) and "
                              "for Python's and math's number functions; not for "
                              f"'{ast.unparse(node.func)}'", starred[0])
        return node

    def _expr_Call(self, node: ast.Call) -> IRNode:
        func = node.func
        if isinstance(func, ast.Attribute):
            base = _GridGroup() if self._is_this_grid(func.value) else self._resolve(func.value)
            if isinstance(base, _GridGroup):
                return self._grid_group_call(node, func)
            if isinstance(base, (_ModuleRef, _Dim3)):
                callee = self._attribute_of_namespace(base, func)
            else:
                node = self._check_call_syntax(node)
                return self._method_call(node, self._as_value(base, func.value), func.attr)
        else:
            callee = self._resolve(func)
        if isinstance(callee, _KernelIntrinsic) and callee.ir_name in ARRAY_ALLOCATORS:
            return self._array_allocation(callee, node)
        if isinstance(callee, _KernelIntrinsic) and callee.ir_name == "cuda.const.array_like":
            return self._array_like(node)
        return self._call(callee, self._check_call_syntax(node, callee))

    def _method_call(self, node: ast.Call, receiver: IRNode, method: str) -> IRNode:
        if method not in METHODS:
            supported = " ".join(f".{m}()" for m in METHODS)
            raise self._error(f"method '.{method}()' is not supported in kernels; "
                              f"supported: {supported}", node.func)
        if method in ("reshape", "view"):
            return self._array_method(node, receiver, method)
        return IRNode("method", self._loc(node), receiver, method,
                      *(self._expr(a) for a in node.args))

    def _array_method(self, node: ast.Call, receiver: IRNode, method: str) -> IRNode:
        """a.reshape(shape) and a.view(dtype): views of the same memory, with the code of the
        ValueError the kernel raises where NumPy's would (a shape of another size, a
        non-contiguous array, a last axis the new dtype does not divide)."""
        node = self._check_call_syntax(node)
        if method == "view":
            if len(node.args) != 1:
                raise self._error(f".view() takes one dtype; got {len(node.args)} arguments",
                                  node)
            dtype = self._static_dtype(node.args[0], ".view")
            if isinstance(dtype, cjtypes.Record):
                raise self._error(".view() of records is not supported in kernels", node)
            code = self._exception_code(ValueError, (
                "the last axis of the array is not contiguous, or its size in bytes is not a "
                f"multiple of {dtype}'s",), node)
            return IRNode("method", self._loc(node), receiver, f"view.{dtype}.{code}")
        args = node.args
        if len(args) == 1 and isinstance(args[0], ast.Tuple):
            args = args[0].elts  # a.reshape((m, n)) as a.reshape(m, n)
        if not args:
            raise self._error(".reshape() takes a shape", node)
        code = self._exception_code(ValueError, (
            "cannot reshape the array: the new shape has another size, or the array is not "
            "contiguous",), node)
        return IRNode("method", self._loc(node), receiver, f"reshape.{code}",
                      *(self._expr(a) for a in args))

    def _call(self, callee: Resolved, node: ast.Call) -> IRNode:
        loc, spelled = self._loc(node), ast.unparse(node.func)
        if isinstance(callee, _BuiltinFunction):
            if callee.numpy_inputs and (len(node.args) > callee.numpy_inputs or node.keywords):
                raise self._error(f"{spelled}() with an output array is a statement in "
                                  f"kernels (it returns nothing); on numbers it takes "
                                  f"{callee.numpy_inputs} argument(s)", node)
            if callee.ir_name == "range":
                raise self._error("range() can only be used as the iterable of a for loop "
                                  "in kernels", node)
            if callee.ir_name == "print":
                return IRNode("call", loc, "print", *(self._print_item(a) for a in node.args))
            if callee.ir_name.startswith("cast.") and len(node.args) != 1:
                raise self._error(f"{spelled}() takes exactly one argument in kernels; "
                                  f"got {len(node.args)}", node)
            if callee.numpy_inputs:  # np.sin: complex numbers too
                return self._ufunc_element(callee, loc, self._args(node))
            return IRNode("call", loc, callee.ir_name, *self._args(node))
        if isinstance(callee, _GridIntrinsic):
            return IRNode("call", loc, f"cuda.{callee.name}", self._grid_ndim(node, spelled))
        if isinstance(callee, NumpyUfunc):
            return self._ufunc_call(callee, node)
        if isinstance(callee, _OperatorFunction):
            arity = 2 if callee.node in ("binop", "compare") else 1
            if len(node.args) != arity:
                raise self._error(f"{spelled}() takes {arity} argument{'s' * (arity > 1)}; "
                                  f"got {len(node.args)}", node)
            args = self._args(node)
            if callee.node == "compare":
                return IRNode("compare", loc, args[0], callee.symbol, args[1])
            if callee.node == "not":
                return IRNode("not", loc, args[0])
            return IRNode(callee.node, loc, callee.symbol, *args)
        if isinstance(callee, _KernelIntrinsic):
            return IRNode("call", loc, callee.ir_name, *self._args(node))
        if isinstance(callee, _ForeignFunction):
            return self._foreign_call(callee.declared, loc, node)
        if isinstance(callee, _DeviceFunction):
            other = dict(callee.by_arity).get(len(node.args))
            if other is not None:
                callee = _DeviceFunction(other)
            return self._device_call(callee, loc, node)
        if isinstance(callee, _ValueIntrinsic):
            raise self._error(f"'{spelled}' is not a function; write it without parentheses",
                              node)
        if isinstance(callee, IRNode):
            raise self._error(f"cannot call '{spelled}'; kernels can call device functions, "
                              "builtins, math functions, casts and cuda intrinsics", node)
        raise self._error(f"'{spelled}' is not callable in kernels", node)

    def _print_item(self, node: ast.expr) -> IRNode:
        """A string literal as its UTF-8 bytes (print() writes it as it is); a dim3 as the
        tuple of its axes; else a value."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            data = node.value.encode("utf-8")
            if b"\0" in data:
                raise self._error("print() in kernels cannot write a NUL character", node)
            return IRNode("bytes", self._loc(node), '"' + data.hex() + '"')
        if isinstance(node, (ast.Name, ast.Attribute)):
            resolved = self._resolve(node)
            if isinstance(resolved, _Dim3):  # print(cuda.threadIdx): "(x, y, z)", as Numba
                loc = self._loc(node)
                return IRNode("tuple", loc, *(IRNode("call", loc, f"cuda.{resolved.name}.{axis}")
                                              for axis in "xyz"))
            return self._as_value(resolved, node)
        return self._expr(node)

    def _args(self, node: ast.Call) -> list[IRNode]:
        """A call's arguments; `*t` of a tuple whose length typing knows: (star T)."""
        return [IRNode("star", self._loc(a), self._expr(a.value)) if isinstance(a, ast.Starred)
                else self._expr(a) for a in node.args]


# Builtins that take `*t` of a tuple whose length only typing knows (their arguments are
# numbers, read in order).
_STAR_BUILTINS = frozenset({"complex", "min", "max", "abs", "round", "int", "float", "bool"})


def _unpacks_when_typed(callee: Any) -> bool:
    """Whether a call of `callee` may take `*t` of a tuple the front end cannot count:
    typing then expands it (IR `star`)."""
    if isinstance(callee, _BuiltinFunction):
        return not callee.numpy_inputs and (callee.ir_name in _STAR_BUILTINS or
                                            callee.ir_name.startswith(("math.", "cast.")))
    if isinstance(callee, _DeviceFunction):
        code = callee.pyfunc.__code__
        return not callee.signatures and not callee.by_arity and \
            not code.co_flags & inspect.CO_VARARGS
    return False


# ---------------------------------------------------------------------------
# The module: the entry function, then the device functions it reaches

class _ModuleBuilder:
    def __init__(self, entry: FunctionType, debug: bool = False):
        self.entry = entry
        self.debug = debug
        # Exceptions the kernel may raise: code k is exceptions[k - 1], as
        # (class, arguments, file, line, function name).
        self.exceptions: list[tuple[type, tuple, str, int, str]] = []
        entry_name = mangle(entry.__name__)  # a symbol: <lambda> is not one
        # (function, its static arguments' key) -> IR name
        self.names: dict[tuple[FunctionType, Any], str] = {(entry, ()): entry_name}
        self.used_names = {entry_name}
        self.pending: list[tuple[FunctionType, dict[str, Any], str]] = [(entry, {}, entry_name)]
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
        pyfunc = _unwrap(pyfunc)
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
        pyfunc = _unwrap(pyfunc)
        return sum(1 for function, _ in self.names if function is pyfunc)

    def build(self) -> str:
        functions = []
        while self.pending:  # grows while translating: calls queue their callees
            pyfunc, static, name = self.pending.pop(0)
            functions.append(_FunctionTranslator(pyfunc, name, self, static).translate())
        module = IRNode("module", None, string_atom(self.entry.__code__.co_filename),
                        *functions)
        return render(module) + "\n"


def _unwrap(function: Any) -> FunctionType:
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


def build_module(pyfunc: Callable[..., Any]) -> str:
    """The kernel IR text of ``pyfunc`` and of every device function it calls.

    ``pyfunc`` is a plain Python function or a cudajit kernel/device function
    wrapping one. Raises CompileError at the first unsupported construct.
    """
    return build_kernel_module(pyfunc, debug=False)[0]


class KernelModule(NamedTuple):
    text: str  # the kernel IR
    exceptions: list[tuple[type, tuple, str, int, str]]
    captured: list[Any]  # device arrays captured by address: whoever runs it keeps them alive
    foreign: list[Any]  # the foreign device functions it calls (linking.DeclaredDevice)


def build_kernel_module(pyfunc: Callable[..., Any], debug: bool) -> KernelModule:
    """As build_module, and the exceptions the kernel may raise, the device arrays it
    captured by address (global or closure device arrays), which whoever runs the kernel
    must keep alive, and the foreign device functions it calls. With ``debug`` every function
    takes the hidden last argument ``exception.record`` (an int32 array the first raising
    thread writes; dispatcher.py reads it) and asserts are checked."""
    builder = _ModuleBuilder(_unwrap(pyfunc), debug)
    try:
        return KernelModule(builder.build(), builder.exceptions, builder.captured,
                            builder.foreign)
    except CompileError as exc:
        # Point the traceback at the user's code, not the translator's recursion.
        raise exc.with_traceback(None) from None
