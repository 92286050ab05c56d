"""Front end: a Python function's source -> kernel IR text (docs/dev/kernel-ir.md).

The source is read with ``inspect`` and ``ast`` (never bytecode). Names are
resolved here, against the function's locals, closure, globals and builtins:
``math``, ``cudajit`` and NumPy under any alias, frozen numeric constants, and
device functions, which are translated too and appended to the module. The
C++ compiler then types and lowers the IR without seeing a Python object.
Anything outside the supported subset raises CompileError at its node.

The stages, each a module (docs/dev/architecture.md):

- entities.py: what a name can mean when it is not a run-time value, and the objects
  known by identity (filled by registration: ufuncs.py, cmath_impl.py,
  array_reductions.py);
- objects.py: what a Python object read by a kernel means, and the IR of its value;
- scope.py: one function's names and the constant expressions read from them;
- translator.py: the visitor, statements and expressions to IR;
- loops.py: for and while loops (unrolled tuples, enumerate/zip, else clauses);
- calls.py: calls, by a table from the callee's kind to its handler; ufuncs.py: NumPy ufuncs;
- module_builder.py: the kernel and the device functions it reaches, as one module.
"""

from __future__ import annotations

from typing import Any, Callable

from .entities import register_array_reduction, register_complex_math, set_inline_mode
from .module_builder import KernelModule, build_kernel_module

__all__ = ["build_module", "build_kernel_module", "KernelModule",
           "register_array_reduction", "register_complex_math", "set_inline_mode"]


def build_module(pyfunc: Callable[..., Any]) -> str:
    """The kernel IR text of ``pyfunc`` and of every device function it calls.

    ``pyfunc`` is a plain Python function or a cudajit kernel/device function
    wrapping one. Raises CompileError at the first unsupported construct.
    """
    return build_kernel_module(pyfunc, debug=False)[0]
