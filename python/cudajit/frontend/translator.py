"""The function translator: one visitor from a function's ``ast`` to its kernel IR
(docs/dev/kernel-ir.md): statements, raise and assert, expressions, and names resolved to
what they mean (scope.py's namespaces, objects.py's meanings). Loops go to loops.py, calls
to calls.py's table, NumPy ufuncs with an output array to ufuncs.py; the functions a call
reaches are queued in the module builder (module_builder.py)."""

from __future__ import annotations

import ast
from types import CodeType, FunctionType
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import CompileError
from ..kernel_ir import IRNode, ir_identifier, string_atom
from . import calls, loops, objects, overloads, ufuncs
from .entities import (
    CapturedArray, CffiFFI, Constant, Dim3, EnumClass, Entity, FrozenArray, FrozenTuple,
    GridGroup, inline_mode,
    IntrinsicFunction, IntrinsicValue, PythonFunction, PythonModule, Resolved,
)
from .objects import INT64_MIN, NotUsableInKernels, meaning_of, namespace_attribute
from .scope import MISSING, NotConstant, Scope, is_number

if TYPE_CHECKING:
    from .module_builder import ModuleBuilder

BINARY_OPERATORS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
    ast.Mod: "%", ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
    ast.LShift: "<<", ast.RShift: ">>",
}
UNARY_OPERATORS = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~"}
# What kernels do with str and bytes: constants stored into NumPy 'U'/'S' elements and fields.
STRING_CONSTANT_USE = (
    "strings are supported in kernels only as constants stored into an element of a NumPy "
    "'U' (str) or 'S' (bytes) array or into such a record field: a[i] = 'abc', r.f = b'abc'")
COMPARE_OPERATORS = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
    ast.Is: "is", ast.IsNot: "isnot",  # of numbers: the same type and value, as in Numba
    ast.In: "in", ast.NotIn: "notin",  # a number in a tuple: == with one of its items
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


def _ends_block(stmt: ast.stmt) -> bool:
    """Whether nothing after `stmt` in its block can run: a return, raise, break or
    continue, or an if whose branches all end so."""
    if isinstance(stmt, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
        return True
    if isinstance(stmt, ast.If) and stmt.orelse:
        return any(map(_ends_block, stmt.body)) and any(map(_ends_block, stmt.orelse))
    return False


class FunctionTranslator:
    """Translates one function (`pyfunc`, specialised on `static` arguments) to its IR
    function `ir_name` of `module`."""

    def __init__(self, pyfunc: FunctionType, ir_name: str, module: ModuleBuilder,
                 static: dict[str, Any] | None = None):
        self.ir_name = ir_name
        self.module = module
        self.scope = Scope(pyfunc, static or {}, pyfunc is module.entry, module.debug)
        self.col_shift = self.scope.col_shift
        self.chain_temps = 0
        # Names bound to cuda.cg.this_grid(): compile-time groups, never IR values.
        self.grid_groups: set[str] = set()
        self.grid_groups = self._grid_group_names()
        # Makes cuda.cg.this_grid() or calls a cooperative foreign function: the kernel is
        # launched cooperatively, as Numba marks it (the IR's launch.cooperative).
        self.cooperative = bool(self.grid_groups)
        # The loops being translated, innermost last: the flag a `break` of each clears
        # when the loop has an else clause, else None.
        self.break_flags: list[IRNode | None] = []
        # The statement before the one being translated in its block (loops.py's unrolling
        # of `v = C0; while v < C: ...` reads it), None for a block's first.
        self.previous_statement: ast.stmt | None = None

    # -- helpers ------------------------------------------------------------

    def loc(self, node: ast.AST) -> tuple[int, int]:
        return (node.lineno, node.col_offset + self.col_shift)  # as Scope.loc, called often

    def error(self, msg: str, node: ast.AST) -> CompileError:
        return self.scope.error(msg, node)

    def unsupported(self, node: ast.AST) -> CompileError:
        what = UNSUPPORTED_SYNTAX.get(type(node).__name__, f"'{type(node).__name__}' nodes")
        return self.error(f"{what} are not supported in kernels", node)

    def temp_number(self) -> int:
        """A new number for the names of temporaries (names no Python code can spell)."""
        self.chain_temps += 1
        return self.chain_temps

    def translate(self) -> IRNode:
        body = self.scope.funcdef.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]  # the docstring
        params = IRNode("params", None, *(ir_identifier(p) for p in self.scope.params))
        # A device function from another file names its own, for the compiler's errors.
        header = self.ir_name
        if self.scope.filename != self.module.entry.__code__.co_filename:
            header += " " + string_atom(self.scope.filename)
        mode = None if self.scope.is_entry else inline_mode(self.scope.pyfunc)
        attributes = [IRNode("inline", None, mode)] if mode else []
        statements = self.statements(body)
        if self.cooperative:
            loc = self.loc(self.scope.funcdef)
            statements.insert(0, IRNode("expr", loc, IRNode("call", loc, "launch.cooperative")))
        return IRNode("func", self.loc(self.scope.funcdef), header, params, *attributes,
                      *statements)

    # -- statements ---------------------------------------------------------

    def statements(self, stmts: list[ast.stmt]) -> list[IRNode]:
        result: list[IRNode] = []
        for k, stmt in enumerate(stmts):
            handler = getattr(self, "_stmt_" + type(stmt).__name__, None)
            if handler is None:
                raise self.unsupported(stmt)
            self.previous_statement = stmts[k - 1] if k else None  # loops.py reads it
            result.extend(handler(stmt))
            if _ends_block(stmt):
                break  # what follows in the block never runs: not compiled, as in Numba
        return result

    def block(self, stmts: list[ast.stmt], fallback: ast.AST) -> IRNode:
        # A block sits at its first statement; an empty one at its owner.
        return IRNode("block", self.loc(stmts[0] if stmts else fallback),
                      *self.statements(stmts))

    def _stmt_Assign(self, node: ast.Assign) -> list[IRNode]:
        if all(isinstance(t, ast.Name) and t.id in self.grid_groups for t in node.targets):
            return []  # g = cuda.cg.this_grid(), known when compiling: g.sync() is all it does
        if self._lambda_assigned(node):
            return []
        loc = self.loc(node)
        value = self._character_constant(node) or self.expr(node.value)
        result = []
        if len(node.targets) > 1 and not self._is_cheap(node.value):
            # a = b = f(x): evaluate f(x) once, into a name no Python code can spell.
            temp = IRNode("name", self.loc(node.value), f"chain.{self.temp_number()}")
            result.append(IRNode("assign", loc, temp, value))
            value = temp
        for target in node.targets:
            result.append(IRNode("assign", loc, self.target(target), value))
        return result

    def _character_constant(self, node: ast.Assign) -> IRNode | None:
        """``r.f = "abc"`` (or ``b"abc"``) into a record's NumPy 'U' (or 'S') field, or
        ``a[i] = "abc"`` into an element of such an array:
        ``(call chars.unichr (bytes HEX))`` of the text as NumPy stores it (UTF-32, or the
        bytes), which typing accepts only as such a store; lowering truncates or zero-pads it to
        the field's width. None when the value is no str or bytes constant."""
        value = node.value
        if not isinstance(value, ast.Constant) or not isinstance(value.value, (str, bytes)):
            return None
        if not all(isinstance(t, (ast.Subscript, ast.Attribute)) for t in node.targets):
            raise self.error(STRING_CONSTANT_USE, value)
        text = value.value
        data = text.encode("utf-32-le") if isinstance(text, str) else text
        kind = "chars.unichr" if isinstance(text, str) else "chars.char"
        return IRNode("call", self.loc(value), kind,
                      IRNode("bytes", self.loc(value), '"' + data.hex() + '"'))

    @staticmethod
    def _is_cheap(node: ast.expr) -> bool:
        if isinstance(node, ast.UnaryOp):
            node = node.operand
        return isinstance(node, (ast.Name, ast.Constant))

    def _stmt_AugAssign(self, node: ast.AugAssign) -> list[IRNode]:
        if not isinstance(node.target, (ast.Name, ast.Subscript, ast.Attribute)):
            raise self.error("augmented assignment needs a variable, an array element or a "
                             "record's field",
                             node.target)
        if isinstance(node.target, ast.Subscript) and any(
                isinstance(e, ast.Slice) for e in ast.walk(node.target.slice)):
            raise self.error("augmented assignment to a slice is not supported in kernels; "
                             "loop over its elements", node.target)
        value = self.expr(node.value)
        if self.module.debug and isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)):
            # debug=True: x /= 0 raises ZeroDivisionError too (the divisor checked as it is read)
            value = self._checked("nonzero", ZeroDivisionError("division by zero"), node, value)
        return [IRNode("augassign", self.loc(node), self._binary_operator(node.op, node),
                       self.target(node.target), value)]

    def _stmt_AnnAssign(self, node: ast.AnnAssign) -> list[IRNode]:
        if node.value is None:
            return []  # a bare annotation binds nothing
        return [IRNode("assign", self.loc(node), self.target(node.target),
                       self.expr(node.value))]

    def target(self, node: ast.expr) -> IRNode:
        """An assignment's target."""
        if isinstance(node, ast.Name):
            return IRNode("name", self.loc(node), ir_identifier(node.id))
        if isinstance(node, ast.Subscript):
            return self._expr_Subscript(node)
        if isinstance(node, (ast.Tuple, ast.List)):
            return IRNode("tuple", self.loc(node), *(self.target(e) for e in node.elts))
        if isinstance(node, ast.Attribute):  # a record's field: r.x = v
            return self.as_value(self.resolve(node), node)
        if isinstance(node, ast.Starred):
            raise self.unsupported(node)
        raise self.error("cannot assign to this expression in a kernel", node)

    def _stmt_If(self, node: ast.If) -> list[IRNode]:
        taken = self.scope.known_condition(node.test)
        if taken is not None:
            # Known when compiling (a global, a constant argument the device function is
            # specialised on): as Numba prunes such a branch, the other side is not compiled.
            return self.statements(node.body if taken else node.orelse)
        return [IRNode("if", self.loc(node), self.expr(node.test),
                       self.block(node.body, node), self.block(node.orelse, node))]

    def _stmt_While(self, node: ast.While) -> list[IRNode]:
        return loops.translate_while(self, node)

    def _stmt_Break(self, node: ast.stmt) -> list[IRNode]:
        return loops.translate_break(self, node)

    def _stmt_Continue(self, node: ast.stmt) -> list[IRNode]:
        return [IRNode("continue", self.loc(node))]

    def _stmt_Pass(self, node: ast.stmt) -> list[IRNode]:
        return [IRNode("pass", self.loc(node))]

    def _stmt_Return(self, node: ast.Return) -> list[IRNode]:
        value = node.value
        if value is None or (isinstance(value, ast.Constant) and value.value is None):
            return [IRNode("return", self.loc(node))]
        return [IRNode("return", self.loc(node), self.expr(value))]

    def _stmt_Expr(self, node: ast.Expr) -> list[IRNode]:
        if isinstance(node.value, ast.Constant):
            if isinstance(node.value.value, str):
                return []  # a string used as a comment does nothing
            if node.value.value is Ellipsis:
                return [IRNode("pass", self.loc(node))]
        if self.is_this_grid(node.value):
            self.cooperative = True
            return []  # a grid group made and dropped: only marks the kernel cooperative
        with_output = ufuncs.ufunc_with_output(self, node.value)
        if with_output is not None:
            assert isinstance(node.value, ast.Call)
            return ufuncs.ufunc_loop(self, *with_output, node.value)
        return [IRNode("expr", self.loc(node), self.expr(node.value))]

    # -- functions defined in this one --------------------------------------

    def _stmt_FunctionDef(self, node: ast.FunctionDef) -> list[IRNode]:
        """def inner(...): a device function of its own (Scope.define_inner_function)."""
        if node.decorator_list:
            raise self.error("decorators on functions defined in kernels are not supported",
                             node.decorator_list[0])
        codes = [c for c in self.scope.pyfunc.__code__.co_consts
                 if isinstance(c, CodeType) and c.co_name == node.name
                 and c.co_firstlineno == node.lineno]
        self.scope.define_inner_function(node.name, node, node.args, codes)
        return []

    def _lambda_assigned(self, node: ast.Assign) -> bool:
        """name = lambda ...: an inner function, as a def of that name would be."""
        if not isinstance(node.value, ast.Lambda):
            return False
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            raise self.error("a lambda in a kernel must be assigned to one name "
                             "(f = lambda x: ...)", node.value)
        lam = node.value
        params = [a.arg for a in lam.args.posonlyargs + lam.args.args]
        codes = [c for c in self.scope.pyfunc.__code__.co_consts
                 if isinstance(c, CodeType) and c.co_name == "<lambda>"
                 and c.co_firstlineno == lam.lineno
                 and list(c.co_varnames[:c.co_posonlyargcount + c.co_argcount]) == params]
        self.scope.define_inner_function(node.targets[0].id, lam, lam.args, codes)
        return True

    def _stmt_For(self, node: ast.For) -> list[IRNode]:
        return loops.translate_for(self, node)


    # -- exceptions ---------------------------------------------------------

    def _stmt_Raise(self, node: ast.Raise) -> list[IRNode]:
        """``raise E`` / ``raise E(constants)``: the thread stops; with debug=True the
        host raises E after the launch (Numba's meaning), else nothing is reported."""
        if node.exc is None:
            raise self.error("a bare raise (re-raising) is not supported in kernels", node)
        if node.cause is not None:
            raise self.error("'raise ... from ...' is not supported in kernels", node)
        exc, arguments = node.exc, []
        if isinstance(exc, ast.Call):
            if exc.keywords:
                raise self.error("an exception raised in a kernel takes positional arguments "
                                 "only", exc.keywords[0])
            exc, arguments = exc.func, exc.args
        try:
            cls = self.scope.static_value(exc)
            values = tuple(self.scope.static_value(a) for a in arguments)
        except NotConstant as error:
            raise self.error("an exception raised in a kernel must be a class known when "
                             "compiling, with constant arguments; "
                             f"'{ast.unparse(error.node)}' is not one", error.node) from None
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            raise self.error(f"'{ast.unparse(exc)}' is not an exception class", exc)
        code = self.exception_code(cls, values, node)
        return [IRNode("raise", self.loc(node), str(code))]

    def _stmt_Assert(self, node: ast.Assert) -> list[IRNode]:
        """Checked only with debug=True, as in Numba; an AssertionError after the launch."""
        if not self.module.debug:
            return []
        message: tuple = ()
        if node.msg is not None:
            try:
                message = (self.scope.static_value(node.msg),)
            except NotConstant as error:
                raise self.error("an assert's message in a kernel must be a constant",
                                 error.node) from None
        code = self.exception_code(AssertionError, message, node)
        return [IRNode("assert", self.loc(node), str(code), self.expr(node.test))]

    def _checked(self, check: str, error: BaseException, node: ast.AST, value: IRNode) -> IRNode:
        """`value` with debug=True's check (lower/exceptions.cpp) raising `error` there."""
        code = self.exception_code(type(error), error.args, node)
        return IRNode("call", self.loc(node), f"debug.{check}.{code}", value)

    def exception_code(self, cls: type, args: tuple, node: ast.AST) -> int:
        """The code of exception `cls(*args)` raised at `node`, in the module's table (the host
        raises it after a launch with debug=True)."""
        return self.module.add_exception(cls, args, self.scope.filename, node.lineno,
                                         self.scope.pyfunc.__name__)

    # -- expressions --------------------------------------------------------

    def expr(self, node: ast.expr) -> IRNode:
        if isinstance(node, (ast.Name, ast.Attribute)):
            return self.as_value(self.resolve(node), node)
        handler = getattr(self, "_expr_" + type(node).__name__, None)
        if handler is None:
            raise self.unsupported(node)
        value = handler(node)
        if self.module.debug and isinstance(node, ast.Subscript) and value.head == "subscript" \
                and not isinstance(node.slice, (ast.Constant, ast.Slice, ast.Tuple)):
            # debug=True: a tuple indexed out of range raises IndexError, as in Numba
            return self._checked("index", IndexError("tuple index out of range"), node, value)
        return value

    def args(self, node: ast.Call) -> list[IRNode]:
        """A call's arguments; `*t` of a tuple whose length typing knows: (star T)."""
        return [IRNode("star", self.loc(a), self.expr(a.value)) if isinstance(a, ast.Starred)
                else self.expr(a) for a in node.args]

    def _expr_Call(self, node: ast.Call) -> IRNode:
        return calls.translate_call(self, node)

    def _expr_Constant(self, node: ast.Constant) -> IRNode:
        value = node.value
        if isinstance(value, (str, bytes)):
            raise self.error(STRING_CONSTANT_USE, node)
        if value is None:
            raise self.error("None is not supported here in kernels", node)
        if not is_number(value):
            raise self.error(f"the constant {value!r} is not supported in kernels", node)
        return self.literal(value, node)

    def _expr_UnaryOp(self, node: ast.UnaryOp) -> IRNode:
        operand = node.operand
        if isinstance(node.op, ast.Not):
            return IRNode("not", self.loc(node), self.expr(operand))
        if isinstance(node.op, ast.USub) and isinstance(operand, ast.Constant) \
                and type(operand.value) is int and operand.value == -INT64_MIN:
            return IRNode("int", self.loc(node), str(INT64_MIN))  # -2**63 as one literal
        return IRNode("unary", self.loc(node), UNARY_OPERATORS[type(node.op)],
                      self.expr(operand))

    def _binary_operator(self, op: ast.operator, node: ast.AST) -> str:
        symbol = BINARY_OPERATORS.get(type(op))
        if symbol is None:
            raise self.error("the '@' operator is not supported in kernels", node)
        return symbol

    def _expr_BinOp(self, node: ast.BinOp) -> IRNode:
        value = IRNode("binop", self.loc(node), self._binary_operator(node.op, node),
                       self.expr(node.left), self.expr(node.right))
        if self.module.debug and isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)):
            # debug=True: a zero divisor raises ZeroDivisionError, as Numba's debug mode does
            return self._checked("zerodiv", ZeroDivisionError("division by zero"), node, value)
        return value

    def _expr_BoolOp(self, node: ast.BoolOp) -> IRNode:
        head = "and" if isinstance(node.op, ast.And) else "or"
        return IRNode(head, self.loc(node), *(self.expr(v) for v in node.values))

    def _expr_Compare(self, node: ast.Compare) -> IRNode:
        folded = self.scope.enum_comparison(node)
        if folded is None:
            folded = self._none_comparison(node)
        if isinstance(folded, IRNode):
            return folded
        if folded is not None:
            return self.literal(folded, node)
        children: list[IRNode | str] = [self.expr(node.left)]
        for op, right in zip(node.ops, node.comparators):
            children += [COMPARE_OPERATORS[type(op)], self.expr(right)]
        return IRNode("compare", self.loc(node), *children)

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
            same = self.scope.static_value(sides[0]) is self.scope.static_value(sides[1])
        except (NotConstant, CompileError):
            other = sides[1] if isinstance(sides[0], ast.Constant) else sides[0]
            if not isinstance(other, (ast.Name, ast.Attribute, ast.Subscript)):
                raise self.error("'is None' of an expression is not supported in kernels "
                                 "(no value there is None); compare a variable", node)
            if isinstance(other, ast.Name) and other.id in self.scope.call_results():
                test = "isnone" if isinstance(node.ops[0], ast.Is) else "notnone"
                return IRNode("call", self.loc(node), test, self.expr(other))
            same = False
        return same if isinstance(node.ops[0], ast.Is) else not same

    def _expr_IfExp(self, node: ast.IfExp) -> IRNode:
        return IRNode("ifexp", self.loc(node), self.expr(node.test),
                      self.expr(node.body), self.expr(node.orelse))

    def _expr_Tuple(self, node: ast.Tuple) -> IRNode:
        return IRNode("tuple", self.loc(node), *(self.expr(e) for e in node.elts))

    def _expr_Subscript(self, node: ast.Subscript) -> IRNode:
        if isinstance(node.value, (ast.Name, ast.Attribute)) and \
                isinstance(self.resolve(node.value), EnumClass):  # Color["red"]
            return self.as_value(self._meaning(self.scope.static_value(node), node), node)
        index = node.slice
        if isinstance(index, ast.Constant) and isinstance(index.value, str):
            return self._record_field(node, index.value)
        if isinstance(index, ast.Tuple) and any(isinstance(e, ast.Slice) for e in index.elts):
            parts = IRNode("tuple", self.loc(index), *(self._index_part(e) for e in index.elts))
        else:
            parts = self._index_part(index)
        return IRNode("subscript", self.loc(node), self.expr(node.value), parts)

    def _record_field(self, node: ast.Subscript, name: str) -> IRNode:
        """r["x"]: the field x of a record (or of every record of a record array), as r.x."""
        if not name.isidentifier():
            raise self.error(f"record field {name!r} cannot be used in kernels: field names "
                             "in kernels must be Python identifiers", node.slice)
        return IRNode("attr", self.loc(node), self.expr(node.value), name)

    def _index_part(self, element: ast.expr) -> IRNode:
        """An index, or a slice: the IR call slice.PPP with the parts given (1) or left out
        (0), as the compiler reads it (ir.hpp)."""
        if not isinstance(element, ast.Slice):
            return self.expr(element)
        parts = [element.lower, element.upper, element.step]
        given = [p is not None and not (isinstance(p, ast.Constant) and p.value is None)
                 for p in parts]
        return IRNode("call", self.loc(element),
                      "slice." + "".join("1" if g else "0" for g in given),
                      *(self.expr(p) for p, g in zip(parts, given) if g))

    # What objects.py finds unusable (NotUsableInKernels) is a CompileError at the node.

    def literal(self, value: Any, node: ast.AST) -> IRNode:
        try:
            return objects.literal(value, self.loc(node))
        except NotUsableInKernels as exc:
            raise self.error(str(exc), node) from None

    def frozen_tuple(self, resolved: FrozenTuple, node: ast.expr) -> IRNode:
        """A global tuple of NumPy arrays and numbers, as an IR tuple of them frozen."""
        def item(value: Any) -> IRNode:
            if isinstance(value, np.ndarray):
                return self.frozen_array(value, node)
            if isinstance(value, tuple):
                return IRNode("tuple", self.loc(node), *map(item, value))
            return self.literal(value, node)
        return item(resolved.items)

    def frozen_array(self, array: np.ndarray, node: ast.expr) -> IRNode:
        try:
            return objects.frozen_array(array, self.loc(node), ast.unparse(node))
        except NotUsableInKernels as exc:
            raise self.error(str(exc), node) from None

    def namespace_attribute(self, base: PythonModule | Dim3 | CffiFFI,
                            node: ast.Attribute) -> Entity:
        try:
            return namespace_attribute(base, node)
        except NotUsableInKernels as exc:
            raise self.error(str(exc), node) from None

    # -- names and attributes -----------------------------------------------

    def meaning(self, value: Any, node: ast.AST) -> Entity:
        """What a Python object means in kernels (read at `node`), or a CompileError."""
        return self._meaning(value, node)

    def _meaning(self, value: Any, node: ast.AST) -> Entity:
        try:
            return meaning_of(value, ast.unparse(node))
        except NotUsableInKernels as exc:
            raise self.error(str(exc), node) from None

    def resolve(self, node: ast.expr) -> Resolved:
        """A name or attribute chain as IR (a value) or as a compile-time entity."""
        if isinstance(node, ast.Name):
            if node.id in self.grid_groups:
                return GridGroup()
            if node.id in self.scope.nested:
                return PythonFunction(self.scope.nested[node.id])
            if node.id in self.scope.locals:
                return IRNode("name", self.loc(node), ir_identifier(node.id))
            value = self.scope.lookup(node.id, MISSING)
            if value is MISSING:
                if node.id in self.scope.closure:
                    raise self.error(f"free variable '{node.id}' is referenced before "
                                     "assignment in the enclosing function", node)
                raise self.error(f"name '{node.id}' is not defined", node)
            return self._meaning(value, node)
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            if isinstance(base, (PythonModule, Dim3, CffiFFI)):
                return self.namespace_attribute(base, node)
            if isinstance(base, EnumClass):
                return self._meaning(self.scope.static_value(node), node)
            if node.attr == "value" and isinstance(node.value, ast.Attribute) \
                    and isinstance(self.resolve(node.value.value), EnumClass):
                return self._meaning(self.scope.static_value(node), node)  # Color.red.value
            if node.attr == "data" and isinstance(node.value, ast.Attribute) \
                    and node.value.attr == "ctypes":  # an array's address, as Numba has it
                return IRNode("call", self.loc(node), "array.address",
                              self.expr(node.value.value))
            overloaded = overloads.attribute(self, node)  # @overload_attribute
            if overloaded is not None:
                return calls.call_entity(self, overloaded.callee, overloaded.call)
            # .shape, .real, a record's field ...: the compiler knows the value's type.
            return IRNode("attr", self.loc(node), self.as_value(base, node.value), node.attr)
        return self.expr(node)

    def as_value(self, resolved: Resolved, node: ast.expr) -> IRNode:
        """What `node` resolved to, as a value: an error for entities that are none."""
        if isinstance(resolved, IRNode):
            return resolved
        if isinstance(resolved, Constant):
            return self.literal(resolved.value, node)
        if isinstance(resolved, IntrinsicValue):
            return IRNode("call", self.loc(node), resolved.ir_name)
        if isinstance(resolved, FrozenArray):
            return self.frozen_array(resolved.array, node)
        if isinstance(resolved, FrozenTuple):
            return self.frozen_tuple(resolved, node)
        if isinstance(resolved, CapturedArray):
            try:
                value = objects.captured_array(resolved.array, self.loc(node), ast.unparse(node))
            except NotUsableInKernels as exc:
                raise self.error(str(exc), node) from None
            self.module.captured.append(resolved.array)  # the kernel holds it
            return value
        spelled = ast.unparse(node)
        if isinstance(resolved, PythonModule):
            raise self.error(f"module '{spelled}' cannot be used as a value in kernels", node)
        if isinstance(resolved, Dim3):
            raise self.error(f"'{spelled}' cannot be used as a value; use "
                             f"{spelled}.x, .y or .z", node)
        if isinstance(resolved, GridGroup):
            raise self.error(f"the grid group '{spelled}' can only call .sync() in kernels "
                             "(it cannot be stored, passed or returned)", node)
        raise self.error(f"'{spelled}' can only be called, not used as a value, in kernels",
                         node)

    # -- grid groups --------------------------------------------------------

    def is_this_grid(self, node: ast.expr) -> bool:
        """Whether `node` is a call of cuda.cg.this_grid()."""
        if not isinstance(node, ast.Call) or node.args or node.keywords:
            return False
        try:
            callee = self.resolve(node.func)
        except CompileError:
            return False
        return isinstance(callee, IntrinsicFunction) and callee.ir_name == "cuda.cg.this_grid"

    def _grid_group_names(self) -> set[str]:
        """Local names assigned cuda.cg.this_grid(); each must be assigned nothing else."""
        groups: dict[str, ast.AST] = {}
        others: dict[str, ast.AST] = {}
        for node in ast.walk(self.scope.funcdef):
            if isinstance(node, ast.Assign):
                grid = self.is_this_grid(node.value)
                for target in node.targets:
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name):
                            (groups if grid and name is target else others)[name.id] = node
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.NamedExpr)):
                target = node.target
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        others[name.id] = node
        for name, node in groups.items():
            if name in others or name in self.scope.params:
                raise self.error(f"'{name}' holds cuda.cg.this_grid() and cannot also hold "
                                 "another value", others.get(name, node))
        return set(groups)
