"""Loops, translated for the function translator (translator.py): ``for`` over range(),
over tuples (unrolled when their items are known here, Numba's literal_unroll too) and
arrays, over enumerate() and zip() of those; ``while``; and the else clauses of both, run
under a flag that the loop's own breaks clear. Every function takes the translator first."""

from __future__ import annotations

import ast
import builtins
from typing import TYPE_CHECKING, Any, Callable

from ..errors import CompileError
from ..kernel_ir import IRNode
from . import calls, objects
from .entities import Constant, FrozenTuple
from .scope import NotConstant

if TYPE_CHECKING:
    from .translator import FunctionTranslator


def translate_while(t: FunctionTranslator, node: ast.While) -> list[IRNode]:
    unrolled = _unrolled_warp_while(t, node)
    if unrolled is not None:
        return unrolled
    return _with_else_clause(t, node, lambda: [
        IRNode("while", t.loc(node), t.expr(node.test),
               t.block(node.body, node))])


def _with_else_clause(t: FunctionTranslator, node: ast.For | ast.While,
                      translate: Callable[[], list[IRNode]]) -> list[IRNode]:
    """A loop, translated by `translate`; with an else clause, a flag that the loop's
    own breaks clear and the else clause runs under: ``loop.N = True; <loop>; if
    loop.N: <else>``."""
    loc = t.loc(node)
    flag = IRNode("name", loc, f"loop.{t.temp_number()}") if node.orelse else None
    t.break_flags.append(flag)
    try:
        loop = translate()
    finally:
        t.break_flags.pop()
    if flag is None:
        return loop
    return [IRNode("assign", loc, flag, IRNode("bool", loc, "1")), *loop,
            IRNode("if", t.loc(node.orelse[0]), flag, t.block(node.orelse, node),
                   IRNode("block", loc))]


def translate_break(t: FunctionTranslator, node: ast.stmt) -> list[IRNode]:
    loc = t.loc(node)
    flag = t.break_flags[-1] if t.break_flags else None
    cleared = [] if flag is None else [IRNode("assign", loc, flag, IRNode("bool", loc, "0"))]
    return [*cleared, IRNode("break", loc)]


def translate_for(t: FunctionTranslator, node: ast.For) -> list[IRNode]:
    return _with_else_clause(t, node, lambda: _for_loop(t, node))


def _for_loop(t: FunctionTranslator, node: ast.For) -> list[IRNode]:
    call = node.iter
    if isinstance(call, ast.Call) and _is_literal_unroll(t, call):
        # Numba's literal_unroll(t): a tuple known here is unrolled anyway
        node = ast.copy_location(ast.For(node.target, call.args[0], node.body,
                                         node.orelse, node.type_comment), node)
        call = node.iter
    if not (isinstance(call, ast.Call) and _is_range(t, call.func)):
        return _for_each(t, node)
    if not isinstance(node.target, ast.Name):
        raise t.error("a for loop's target must be a single variable in kernels",
                      node.target)
    unrolled = _unrolled_warp_range(t, node)
    if unrolled is not None:
        return unrolled
    return [IRNode("for", t.loc(node), t.target(node.target), *_range_bounds(t, call),
                   t.block(node.body, node))]


def _range_bounds(t: FunctionTranslator, call: ast.Call) -> list[IRNode]:
    """range(...)'s start, stop and step, the defaults filled in."""
    call = calls.check_call_syntax(t, call)
    if not 1 <= len(call.args) <= 3:
        raise t.error(f"range() takes 1 to 3 arguments; got {len(call.args)}", call)
    bounds = [t.expr(a) for a in call.args]
    call_loc = t.loc(call)
    if len(bounds) == 1:
        bounds.insert(0, IRNode("int", call_loc, "0"))
    if len(bounds) == 2:
        bounds.append(IRNode("int", call_loc, "1"))
    return bounds


def _range_items(t: FunctionTranslator, call: ast.Call, name: str, index: IRNode,
                 setup: list[IRNode]) -> tuple[IRNode, IRNode]:
    """range(...) as an iterable of enumerate() or zip(): its bounds evaluated once (into
    `setup`), its item at `index` and its length, Python's
    ``max(0, (stop - start + step - sign(step)) // step)``."""
    loc = t.loc(call)
    start, stop, step = (IRNode("name", loc, f"{name}.{part}")
                         for part in ("start", "stop", "step"))
    setup += [IRNode("assign", loc, held, bound)
              for held, bound in zip((start, stop, step), _range_bounds(t, call))]
    item = IRNode("binop", loc, "+", start, IRNode("binop", loc, "*", index, step))
    one = IRNode("int", loc, "1")
    sign = IRNode("ifexp", loc, IRNode("compare", loc, step, ">", IRNode("int", loc, "0")),
                  one, IRNode("unary", loc, "-", one))
    span = IRNode("binop", loc, "-", IRNode("binop", loc, "+",
                                            IRNode("binop", loc, "-", stop, start), step), sign)
    length = IRNode("call", loc, "max", IRNode("int", loc, "0"),
                    IRNode("binop", loc, "//", span, step))
    return item, length


def _for_each(t: FunctionTranslator, node: ast.For) -> list[IRNode]:
    """``for x in <tuple or array>``. A constant tuple (a literal, a global) is
    unrolled, so its items may differ in type; anything else, or a loop with
    break/continue, becomes ``for i in range(len(t)): x = t[i]`` over the
    iterable evaluated once (tuples whose items unify, and arrays, by rows)."""
    loc = t.loc(node)
    zipped = _enumerate_or_zip(t, node)
    if zipped is not None:
        return zipped
    items = _constant_items(t, node.iter)
    if items is not None and not _breaks_out(node.body):
        statements: list[IRNode] = []
        for item in items:
            statements.append(IRNode("assign", loc, t.target(node.target), item))
            statements.extend(t.statements(node.body))
        return statements
    number = t.temp_number()
    iterable = IRNode("name", loc, f"iter.{number}")
    index = IRNode("name", loc, f"iter.{number}.i")
    body = IRNode("block", loc,
                  IRNode("assign", loc, t.target(node.target),
                         IRNode("subscript", loc, iterable, index)),
                  *t.statements(node.body))
    length = IRNode("call", loc, "len", iterable)
    return [IRNode("assign", loc, iterable, t.expr(node.iter)),
            IRNode("for", loc, index, IRNode("int", loc, "0"), length,
                   IRNode("int", loc, "1"), body)]


def _constant_items(t: FunctionTranslator, node: ast.expr) -> list[IRNode] | None:
    """The items of a tuple known here (a literal or a frozen global), as IR."""
    if isinstance(node, ast.Tuple):
        return [t.expr(e) for e in node.elts]
    if isinstance(node, (ast.Name, ast.Attribute)):
        resolved = t.resolve(node)
        if isinstance(resolved, Constant) and isinstance(resolved.value, tuple):
            return [t.literal(v, node) for v in resolved.value]
        if isinstance(resolved, FrozenTuple):
            return list(t.frozen_tuple(resolved, node).children)
    return None


def _is_literal_unroll(t: FunctionTranslator, call: ast.Call) -> bool:
    """Whether `call` is Numba's ``literal_unroll(t)`` (one argument, no keywords)."""
    if len(call.args) != 1 or call.keywords:
        return False
    try:
        function = t.scope.static_value(call.func)
    except (NotConstant, CompileError):
        return False
    return objects.is_literal_unroll(function)


def _builtin_call(t: FunctionTranslator, node: ast.expr, function: Any) -> bool:
    """Whether `node` calls the builtin `function` (enumerate, zip)."""
    if not isinstance(node, ast.Call) or node.keywords:
        return False
    try:
        return t.scope.static_value(node.func) is function
    except (NotConstant, CompileError):
        return False


def _enumerate_or_zip(t: FunctionTranslator, node: ast.For) -> list[IRNode] | None:
    """``for i, x in enumerate(t[, start])``, ``for x, y in zip(a, b, ...)``,
    ``enumerate(zip(...))`` and ``zip(enumerate(a), b)`` over arrays, tuples and ranges: an
    index loop over the iterables evaluated once, to the shortest, the target assigned
    from the items."""
    call = node.iter
    enumerating = _builtin_call(t, call, builtins.enumerate)
    if not enumerating and not _builtin_call(t, call, builtins.zip):
        return None
    assert isinstance(call, ast.Call)
    loc = t.loc(node)
    if enumerating and not 1 <= len(call.args) <= 2:
        raise t.error(f"enumerate() takes 1 or 2 arguments; got {len(call.args)}", call)
    zipped = call if not enumerating else call.args[0]
    zipping = _builtin_call(t, zipped, builtins.zip)
    sequences = zipped.args if zipping else [zipped]  # type: ignore[union-attr]
    if not sequences:
        raise t.error("zip() needs at least one iterable in kernels", zipped)
    stem = f"iter.{t.temp_number()}"
    index = IRNode("name", loc, f"{stem}.i")
    setup: list[IRNode] = []
    items, lengths = [], []
    for k, sequence in enumerate(sequences):
        start = None
        if zipping and _builtin_call(t, sequence, builtins.enumerate):
            # zip(enumerate(a), b): that item is (index + start, a[index])
            if not 1 <= len(sequence.args) <= 2:  # type: ignore[attr-defined]
                raise t.error("enumerate() takes 1 or 2 arguments; got "
                              f"{len(sequence.args)}", sequence)  # type: ignore
            start = (t.expr(sequence.args[1])  # type: ignore[attr-defined]
                     if len(sequence.args) == 2 else IRNode("int", loc, "0"))
            sequence = sequence.args[0]  # type: ignore[attr-defined]
        if isinstance(sequence, ast.Call) and _is_range(t, sequence.func):
            item, length = _range_items(t, sequence, f"{stem}.{k}", index, setup)
        else:
            held = IRNode("name", loc, f"{stem}.{k}")
            setup.append(IRNode("assign", loc, held, t.expr(sequence)))
            item, length = IRNode("subscript", loc, held, index), IRNode("call", loc, "len", held)
        if start is not None:
            item = IRNode("tuple", loc, IRNode("binop", loc, "+", index, start), item)
        items.append(item)
        lengths.append(length)
    value = IRNode("tuple", loc, *items) if zipping else items[0]  # zip yields tuples
    if enumerating:
        start = t.expr(call.args[1]) if len(call.args) == 2 else IRNode("int", loc, "0")
        value = IRNode("tuple", loc, IRNode("binop", loc, "+", index, start), value)
    length = lengths[0] if len(lengths) == 1 else IRNode("call", loc, "min", *lengths)
    body = IRNode("block", loc, IRNode("assign", loc, t.target(node.target), value),
                  *t.statements(node.body))
    return setup + [IRNode("for", loc, index, IRNode("int", loc, "0"), length,
                           IRNode("int", loc, "1"), body)]


# Loops of warp functions unrolled here when their trip count is known (as NVVM would):
# `for k in range(5)` and `offset = 16; while offset > 0: ...; offset //= 2` over shuffles
# become straight-line code, whose shuffles the cpu device runs warp by warp with the
# lanes in registers (lower/warp_groups.cpp) rather than a loop of the block around them.
_WARP_FUNCTIONS = {"shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync", "all_sync",
                   "any_sync", "eq_sync", "ballot_sync", "match_any_sync", "match_all_sync",
                   "syncwarp", "activemask"}
_MOST_UNROLLED = 32  # iterations
_STEPS = {ast.FloorDiv: lambda a, b: a // b, ast.Mult: lambda a, b: a * b,
          ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
          ast.RShift: lambda a, b: a >> b, ast.LShift: lambda a, b: a << b}
_TESTS = {ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
          ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
          ast.NotEq: lambda a, b: a != b}


def _calls_warp_functions(body: list[ast.stmt]) -> bool:
    """Whether `body` calls a warp function and holds no loop of its own (a loop inside
    keeps both loops: unrolling nests would multiply the code)."""
    if any(isinstance(node, (ast.For, ast.While)) for stmt in body for node in ast.walk(stmt)):
        return False
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
                if name in _WARP_FUNCTIONS:
                    return True
    return False


def _constant_int(t: FunctionTranslator, node: ast.expr) -> int | None:
    """An int known here: a literal, or a global or attribute that is one."""
    if isinstance(node, ast.Constant):
        value = node.value
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _constant_int(t, node.operand)
        return None if inner is None else -inner
    else:
        try:
            value = t.scope.static_value(node)
        except (NotConstant, CompileError):
            return None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _repeated(t: FunctionTranslator, body: list[ast.stmt], times: int,
              before_each: Callable[[int], list[IRNode]]) -> list[IRNode]:
    statements: list[IRNode] = []
    for k in range(times):
        statements += before_each(k)
        statements += t.statements(body)
    return statements


def _unrolled_warp_range(t: FunctionTranslator, node: ast.For) -> list[IRNode] | None:
    """``for k in range(...)`` of warp functions over constant bounds, unrolled."""
    if node.orelse or _breaks_out(node.body) or not _calls_warp_functions(node.body):
        return None
    call = calls.check_call_syntax(t, node.iter)
    if call.keywords or not 1 <= len(call.args) <= 3:
        return None
    bounds = [_constant_int(t, a) for a in call.args]
    if None in bounds or bounds[-1] == 0 and len(bounds) == 3:
        return None
    values = range(*bounds)
    if len(values) > _MOST_UNROLLED:
        return None
    loc = t.loc(node)
    return _repeated(t, node.body, len(values), lambda k: [
        IRNode("assign", loc, t.target(node.target), IRNode("int", loc, str(values[k])))])


def _unrolled_warp_while(t: FunctionTranslator, node: ast.While) -> list[IRNode] | None:
    """``v = C0; while v < C: <warp functions>; v //= 2`` (any of <, <=, >, >=, != against
    a constant; the last statement steps v by a constant with //, *, +, -, >> or <<, and
    nothing else assigns v), unrolled: its iterations are known here."""
    before = t.previous_statement
    test = node.test
    if (node.orelse or _breaks_out(node.body) or not _calls_warp_functions(node.body)
            or not isinstance(before, ast.Assign) or len(before.targets) != 1
            or not isinstance(before.targets[0], ast.Name)
            or not isinstance(test, ast.Compare) or len(test.ops) != 1
            or not isinstance(test.left, ast.Name) or type(test.ops[0]) not in _TESTS):
        return None
    name = test.left.id
    start, bound = _constant_int(t, before.value), _constant_int(t, test.comparators[0])
    step = node.body[-1]
    if isinstance(step, ast.AugAssign):
        target, op, by = step.target, step.op, step.value
    elif (isinstance(step, ast.Assign) and len(step.targets) == 1
          and isinstance(step.value, ast.BinOp) and isinstance(step.value.left, ast.Name)
          and step.value.left.id == name):
        target, op, by = step.targets[0], step.value.op, step.value.right
    else:
        return None
    amount = _constant_int(t, by)
    if (before.targets[0].id != name or start is None or bound is None or amount is None
            or not isinstance(target, ast.Name) or target.id != name
            or type(op) not in _STEPS or (isinstance(op, ast.FloorDiv) and amount == 0)):
        return None
    for stmt in node.body[:-1]:  # v changes only at the end of an iteration
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load):
                return None
    times, value = 0, start
    while _TESTS[type(test.ops[0])](value, bound):
        times += 1
        if times > _MOST_UNROLLED or abs(value) > 1 << 62:
            return None
        value = _STEPS[type(op)](value, amount)
    return _repeated(t, node.body, times, lambda k: [])


def _breaks_out(body: list[ast.stmt]) -> bool:
    """Whether a break or continue of this loop (not of a loop inside it) occurs."""
    pending = list(body)
    while pending:
        stmt = pending.pop()
        if isinstance(stmt, (ast.Break, ast.Continue)):
            return True
        if isinstance(stmt, (ast.For, ast.While, ast.FunctionDef, ast.ClassDef)):
            continue
        pending.extend(child for child in ast.iter_child_nodes(stmt)
                       if isinstance(child, ast.stmt))
    return False


def _is_range(t: FunctionTranslator, func: ast.expr) -> bool:
    if not isinstance(func, ast.Name) or func.id in t.scope.locals:
        return False
    return t.scope.lookup(func.id, default=None) is builtins.range
