"""The front end's for loops: over range(), over tuples (a constant one unrolled) and
arrays, and over enumerate() and zip() of them. A mixin of the function translator
(frontend.py), which provides _expr, _target, _block, _statements, _resolve,
_constant_items, _check_call_syntax, _error, _loc, _lookup and locals."""

from __future__ import annotations

import ast
import builtins
from typing import Any

from .errors import CompileError
from .frontend_static import NotConstant
from .kernel_ir import IRNode


class ForLoops:
    """Methods of the function translator that translate for loops."""

    def _stmt_For(self, node: ast.For) -> list[IRNode]:
        if node.orelse:
            raise self._error("'else' clauses on for loops are not supported in kernels",
                              node)
        call = node.iter
        if not (isinstance(call, ast.Call) and self._is_range(call.func)):
            return self._for_each(node)
        if not isinstance(node.target, ast.Name):
            raise self._error("a for loop's target must be a single variable in kernels",
                              node.target)
        call = self._check_call_syntax(call)
        if not 1 <= len(call.args) <= 3:
            raise self._error(f"range() takes 1 to 3 arguments; got {len(call.args)}", call)
        bounds = [self._expr(a) for a in call.args]
        call_loc = self._loc(call)
        if len(bounds) == 1:
            bounds.insert(0, IRNode("int", call_loc, "0"))
        if len(bounds) == 2:
            bounds.append(IRNode("int", call_loc, "1"))
        return [IRNode("for", self._loc(node), self._target(node.target), *bounds,
                       self._block(node.body, node))]

    def _for_each(self, node: ast.For) -> list[IRNode]:
        """``for x in <tuple or array>``. A constant tuple (a literal, a global) is
        unrolled, so its items may differ in type; anything else, or a loop with
        break/continue, becomes ``for i in range(len(t)): x = t[i]`` over the
        iterable evaluated once (tuples whose items unify, and arrays, by rows)."""
        loc = self._loc(node)
        zipped = self._enumerate_or_zip(node)
        if zipped is not None:
            return zipped
        items = self._constant_items(node.iter)
        if items is not None and not self._breaks_out(node.body):
            statements: list[IRNode] = []
            for item in items:
                statements.append(IRNode("assign", loc, self._target(node.target), item))
                statements.extend(self._statements(node.body))
            return statements
        self.chain_temps += 1
        iterable = IRNode("name", loc, f"iter.{self.chain_temps}")
        index = IRNode("name", loc, f"iter.{self.chain_temps}.i")
        body = IRNode("block", loc,
                      IRNode("assign", loc, self._target(node.target),
                             IRNode("subscript", loc, iterable, index)),
                      *self._statements(node.body))
        length = IRNode("call", loc, "len", iterable)
        return [IRNode("assign", loc, iterable, self._expr(node.iter)),
                IRNode("for", loc, index, IRNode("int", loc, "0"), length,
                       IRNode("int", loc, "1"), body)]

    def _builtin_call(self, node: ast.expr, function: Any) -> bool:
        """Whether `node` calls the builtin `function` (enumerate, zip)."""
        if not isinstance(node, ast.Call) or node.keywords:
            return False
        try:
            return self._static_value(node.func) is function
        except (NotConstant, CompileError):
            return False

    def _enumerate_or_zip(self, node: ast.For) -> list[IRNode] | None:
        """``for i, x in enumerate(t[, start])``, ``for x, y in zip(a, b, ...)``,
        ``enumerate(zip(...))`` and ``zip(enumerate(a), b)`` over arrays and tuples: an index loop over the iterables
        evaluated once, to the shortest, the target assigned from the items."""
        call = node.iter
        enumerating = self._builtin_call(call, builtins.enumerate)
        if not enumerating and not self._builtin_call(call, builtins.zip):
            return None
        assert isinstance(call, ast.Call)
        loc = self._loc(node)
        if enumerating and not 1 <= len(call.args) <= 2:
            raise self._error(f"enumerate() takes 1 or 2 arguments; got {len(call.args)}", call)
        zipped = call if not enumerating else call.args[0]
        zipping = self._builtin_call(zipped, builtins.zip)
        sequences = zipped.args if zipping else [zipped]  # type: ignore[union-attr]
        if not sequences:
            raise self._error("zip() needs at least one iterable in kernels", zipped)
        self.chain_temps += 1
        stem = f"iter.{self.chain_temps}"
        index = IRNode("name", loc, f"{stem}.i")
        setup, names, starts = [], [], []
        for k, sequence in enumerate(sequences):
            start = None
            if zipping and self._builtin_call(sequence, builtins.enumerate):
                # zip(enumerate(a), b): that item is (index + start, a[index])
                if not 1 <= len(sequence.args) <= 2:  # type: ignore[attr-defined]
                    raise self._error("enumerate() takes 1 or 2 arguments; got "
                                      f"{len(sequence.args)}", sequence)  # type: ignore
                start = (self._expr(sequence.args[1])  # type: ignore[attr-defined]
                         if len(sequence.args) == 2 else IRNode("int", loc, "0"))
                sequence = sequence.args[0]  # type: ignore[attr-defined]
            starts.append(start)
            names.append(IRNode("name", loc, f"{stem}.{k}"))
            setup.append(IRNode("assign", loc, names[-1], self._expr(sequence)))
        items = [IRNode("subscript", loc, n, index) if start is None else
                 IRNode("tuple", loc, IRNode("binop", loc, "+", index, start),
                        IRNode("subscript", loc, n, index))
                 for n, start in zip(names, starts)]
        value = IRNode("tuple", loc, *items) if zipping else items[0]  # zip yields tuples
        if enumerating:
            start = self._expr(call.args[1]) if len(call.args) == 2 else IRNode("int", loc, "0")
            value = IRNode("tuple", loc, IRNode("binop", loc, "+", index, start), value)
        lengths = [IRNode("call", loc, "len", n) for n in names]
        length = lengths[0] if len(lengths) == 1 else IRNode("call", loc, "min", *lengths)
        body = IRNode("block", loc, IRNode("assign", loc, self._target(node.target), value),
                      *self._statements(node.body))
        return setup + [IRNode("for", loc, index, IRNode("int", loc, "0"), length,
                               IRNode("int", loc, "1"), body)]

    @staticmethod
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

    def _is_range(self, func: ast.expr) -> bool:
        if not isinstance(func, ast.Name) or func.id in self.locals:
            return False
        return self._lookup(func.id, default=None) is builtins.range
