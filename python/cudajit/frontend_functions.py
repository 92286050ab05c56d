"""Functions inside functions, and calls that are not plain positional ones: a def (or a
lambda assigned to a name) in a kernel or device function becomes a device function of its own (the enclosing variables it reads
passed as hidden last parameters, as closures see them at each call), *args of device
functions and f(*args) calls, keyword arguments and defaults. A mixin of the function
translator (frontend.py), which provides _static_value, _constant_locals, _error, closure,
globals, nested, pyfunc and static."""

from __future__ import annotations

import ast
from types import CellType, CodeType, FunctionType
from typing import Any

from .errors import CompileError
from .frontend_calls import VARARG_COUNT
from .frontend_static import MISSING, NotConstant, is_number
from .kernel_ir import IRNode


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


class InnerFunctions:
    """Methods of the function translator for inner functions and argument binding."""

    def _stmt_FunctionDef(self, node: ast.FunctionDef) -> list[IRNode]:
        """def inner(...): a device function of its own. The variables of this function
        that it reads become its last parameters, passed at each call (their values then,
        as Python's closures see them)."""
        if node.decorator_list:
            raise self._error("decorators on functions defined in kernels are not supported",
                              node.decorator_list[0])
        codes = [c for c in self.pyfunc.__code__.co_consts
                 if isinstance(c, CodeType) and c.co_name == node.name
                 and c.co_firstlineno == node.lineno]
        self._inner_function(node.name, node, node.args, codes)
        return []

    def _lambda_assigned(self, node: ast.Assign) -> bool:
        """name = lambda ...: an inner function, as a def of that name would be."""
        if not isinstance(node.value, ast.Lambda):
            return False
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            raise self._error("a lambda in a kernel must be assigned to one name "
                              "(f = lambda x: ...)", node.value)
        lam = node.value
        params = [a.arg for a in lam.args.posonlyargs + lam.args.args]
        codes = [c for c in self.pyfunc.__code__.co_consts
                 if isinstance(c, CodeType) and c.co_name == "<lambda>"
                 and c.co_firstlineno == lam.lineno
                 and list(c.co_varnames[:c.co_posonlyargcount + c.co_argcount]) == params]
        self._inner_function(node.targets[0].id, lam, lam.args, codes)
        return True

    def _inner_function(self, name: str, node: ast.AST, args: ast.arguments,
                        codes: list[CodeType]) -> None:
        """Makes the inner function `name` (a def or a lambda at `node`) of its code object,
        the one of `codes`, with this function's variables it reads as its closure."""
        if name in self.nested:
            raise self._error(f"function '{name}' is defined twice in "
                              f"'{self.pyfunc.__name__}'", node)
        if len(codes) != 1:
            raise self._error(f"the code of function '{name}' was not found (a function "
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
                defaults.append(self._static_value(default))
            except (NotConstant, CompileError):
                raise self._error("defaults of functions defined in kernels must be "
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
        if name not in self._constant_locals():
            return MISSING
        try:
            return self._static_value(ast.copy_location(ast.Name(name, ast.Load()), where))
        except (NotConstant, CompileError):
            return MISSING

    def _expand_starred(self, args: list[ast.expr]) -> list[ast.expr]:
        """f(*args) of this function's *args (a tuple of a length known here), or of a tuple
        written out: its items as arguments."""
        vararg = self.funcdef.args.vararg
        expanded: list[ast.expr] = []
        for arg in args:
            if isinstance(arg, ast.Starred) and isinstance(arg.value, ast.Tuple):
                expanded += arg.value.elts
            elif isinstance(arg, ast.Starred) and isinstance(arg.value, ast.Name) \
                    and vararg is not None and arg.value.id == vararg.arg:
                expanded += [ast.copy_location(ast.Subscript(arg.value, ast.copy_location(
                    ast.Constant(k), arg), ast.Load()), arg)
                    for k in range(self.static[VARARG_COUNT])]
            else:
                expanded.append(arg)
        return expanded

    def _bind_keywords(self, pyfunc: FunctionType, node: ast.Call) -> None:
        """A device function's keyword arguments and default values, as positional arguments
        in its parameters' order (defaults are constants: literals in the call)."""
        code = pyfunc.__code__
        params = list(code.co_varnames[:code.co_posonlyargcount + code.co_argcount])
        defaults = pyfunc.__defaults__ or ()
        if not node.keywords and (not defaults or len(node.args) >= len(params)):
            return
        name = pyfunc.__name__
        given: dict[str, ast.expr] = dict(zip(params, node.args))
        for keyword in node.keywords:
            if keyword.arg is None:
                raise self._error("**kwargs in calls is not supported in kernels", keyword)
            if keyword.arg not in params or params.index(keyword.arg) < code.co_posonlyargcount:
                raise self._error(f"device function '{name}' got an unexpected keyword "
                                  f"argument '{keyword.arg}'", keyword)
            if keyword.arg in given:
                raise self._error(f"device function '{name}' got multiple values for argument "
                                  f"'{keyword.arg}'", keyword)
            given[keyword.arg] = keyword.value
        first_default = len(params) - len(defaults)
        args = []
        for k, param in enumerate(params):
            if param in given:
                args.append(given[param])
            elif k >= first_default:
                default = defaults[k - first_default]
                if not is_number(default):
                    raise self._error(f"the default of parameter '{param}' of '{name}' is "
                                      f"{default!r}; defaults in kernels must be numbers", node)
                args.append(ast.copy_location(ast.Constant(default), node))
            else:
                raise self._error(f"device function '{name}' is missing argument '{param}'",
                                  node)
        node.args = args + node.args[len(params):]
        node.keywords = []
