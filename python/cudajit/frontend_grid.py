"""The front end's grid intrinsics known when compiling: cuda.grid(N)'s N, and the grid
groups of cooperative launches (``g = cuda.cg.this_grid()``, ``g.sync()``). A mixin of
the function translator (frontend.py), which provides _resolve, _error, _loc, funcdef
and params."""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from .errors import CompileError
from .frontend_names import _Constant, _KernelIntrinsic
from .kernel_ir import IRNode


class GridIntrinsics:
    """Methods of the function translator for grid groups and cuda.grid(N)."""

    def _is_this_grid(self, node: ast.expr) -> bool:
        """Whether `node` is a call of cuda.cg.this_grid()."""
        if not isinstance(node, ast.Call) or node.args or node.keywords:
            return False
        try:
            callee = self._resolve(node.func)
        except CompileError:
            return False
        return isinstance(callee, _KernelIntrinsic) and callee.ir_name == "cuda.cg.this_grid"

    def _grid_group_names(self) -> set[str]:
        """Local names assigned cuda.cg.this_grid(); each must be assigned nothing else."""
        groups: dict[str, ast.AST] = {}
        others: dict[str, ast.AST] = {}
        for node in ast.walk(self.funcdef):
            if isinstance(node, ast.Assign):
                grid = self._is_this_grid(node.value)
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
            if name in others or name in self.params:
                raise self._error(f"'{name}' holds cuda.cg.this_grid() and cannot also hold "
                                  "another value", others.get(name, node))
        return set(groups)

    def _grid_group_call(self, node: ast.Call, func: ast.Attribute) -> IRNode:
        if func.attr != "sync":
            raise self._error(f"'.{func.attr}()' of a grid group is not supported in kernels; "
                              "supported: .sync()", func)
        if node.args or node.keywords:
            raise self._error("grid group .sync() takes no arguments", node)
        return IRNode("call", self._loc(node), "cuda.cg.grid_sync")

    def _grid_ndim(self, node: ast.Call, spelled: str) -> IRNode:
        """cuda.grid(N) needs N known here: a literal (or frozen constant) 1, 2 or 3."""
        expected = f"{spelled}() takes one literal argument 1, 2 or 3"
        if len(node.args) != 1:
            raise self._error(f"{expected}; got {len(node.args)} arguments", node)
        arg = node.args[0]
        value: Any = None
        if isinstance(arg, ast.Constant):
            value = arg.value
        elif isinstance(arg, (ast.Name, ast.Attribute)):
            resolved = self._resolve(arg)
            value = resolved.value if isinstance(resolved, _Constant) else None
        is_int = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
        if not is_int or not 1 <= int(value) <= 3:
            raise self._error(f"{expected}; got '{ast.unparse(arg)}'", arg)
        return IRNode("int", self._loc(arg), str(int(value)))
