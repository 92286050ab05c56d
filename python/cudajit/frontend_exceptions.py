"""The front end's exceptions: ``raise`` and ``assert`` in kernels, and debug=True's
checks (ZeroDivisionError, IndexError) around a value. A mixin of the function
translator (frontend.py), which provides _expr, _static_value, _error, _loc, module,
filename and pyfunc."""

from __future__ import annotations

import ast

from .frontend_static import NotConstant
from .kernel_ir import IRNode


class Exceptions:
    """Methods of the function translator that raise exceptions from kernels."""

    def _stmt_Raise(self, node: ast.Raise) -> list[IRNode]:
        """``raise E`` / ``raise E(constants)``: the thread stops; with debug=True the
        host raises E after the launch (Numba's meaning), else nothing is reported."""
        if node.exc is None:
            raise self._error("a bare raise (re-raising) is not supported in kernels", node)
        if node.cause is not None:
            raise self._error("'raise ... from ...' is not supported in kernels", node)
        exc, arguments = node.exc, []
        if isinstance(exc, ast.Call):
            if exc.keywords:
                raise self._error("an exception raised in a kernel takes positional arguments "
                                  "only", exc.keywords[0])
            exc, arguments = exc.func, exc.args
        try:
            cls = self._static_value(exc)
            values = tuple(self._static_value(a) for a in arguments)
        except NotConstant as error:
            raise self._error("an exception raised in a kernel must be a class known when "
                              "compiling, with constant arguments; "
                              f"'{ast.unparse(error.node)}' is not one", error.node) from None
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            raise self._error(f"'{ast.unparse(exc)}' is not an exception class", exc)
        code = self._exception_code(cls, values, node)
        return [IRNode("raise", self._loc(node), str(code))]

    def _stmt_Assert(self, node: ast.Assert) -> list[IRNode]:
        """Checked only with debug=True, as in Numba; an AssertionError after the launch."""
        if not self.module.debug:
            return []
        message: tuple = ()
        if node.msg is not None:
            try:
                message = (self._static_value(node.msg),)
            except NotConstant as error:
                raise self._error("an assert's message in a kernel must be a constant",
                                  error.node) from None
        code = self._exception_code(AssertionError, message, node)
        return [IRNode("assert", self._loc(node), str(code), self._expr(node.test))]

    def _checked(self, check: str, error: BaseException, node: ast.AST, value: IRNode) -> IRNode:
        """`value` with debug=True's check (lower/exceptions.cpp) raising `error` there."""
        code = self._exception_code(type(error), error.args, node)
        return IRNode("call", self._loc(node), f"debug.{check}.{code}", value)

    def _exception_code(self, cls: type, args: tuple, node: ast.AST) -> int:
        """The code of exception `cls(*args)` raised at `node`, in the module's table (the host
        raises it after a launch with debug=True)."""
        return self.module.add_exception(cls, args, self.filename, node.lineno,
                                         self.pyfunc.__name__)
