"""scripts/compat/binding.py, the binding of numba.cuda to cudajit for numba-cuda's tests:
the parts that need no numba-cuda (stand-in modules)."""

import importlib.util
import types
from pathlib import Path

import cudajit

_PATH = Path(__file__).parents[2] / "scripts" / "compat" / "binding.py"
_spec = importlib.util.spec_from_file_location("compat_binding", _PATH)
binding = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(binding)


def test_names_numba_cuda_reexports_from_its_compiler_are_cudajits():
    # numba.cuda.compile_ptx is numba.cuda.compiler.compile_ptx: the tests import it from
    # there and pass it cudajit's types, so the view of numba.cuda.compiler gives cudajit's.
    def numba_compile_ptx(*args):
        raise AssertionError("numba-cuda's compile_ptx called")

    def run_frontend(func):
        return "numba-cuda's IR"

    internal = types.ModuleType("numba.cuda.compiler")
    internal.compile_ptx, internal.run_frontend = numba_compile_ptx, run_frontend
    internal.helper = lambda: None  # not re-exported by numba.cuda: numba-cuda's
    real = types.ModuleType("numba.cuda")
    real.compile_ptx = numba_compile_ptx
    bound = types.ModuleType("cudajit")
    bound.compile_ptx = cudajit.compile_ptx

    view = binding._api_view(internal, real, bound)
    assert view.__name__ == "numba.cuda.compiler"
    assert view.compile_ptx is cudajit.compile_ptx
    assert view.run_frontend is run_frontend
    assert view.helper is internal.helper
    assert internal.compile_ptx is numba_compile_ptx  # numba-cuda's module is unchanged
    ptx, _ = view.compile_ptx(lambda r, x: None, (cudajit.float32[::1], cudajit.float32))
    assert ".entry" in ptx


def test_compile_errors_become_numbas_typing_errors_keeping_their_own_behaviour(monkeypatch):
    # numba-cuda raises TypingError where cudajit raises CompileError; bound, a program that
    # catches numba's (and numba-cuda's) TypingError catches cudajit's. A copy of CompileError
    # stands in for it here, and stand-ins for numba's two errors modules.
    import pickle
    import sys

    def errors_module(name):
        module = types.ModuleType(name)

        class NumbaError(Exception):
            def __init__(self, msg, loc=None, highlighting=True):
                raise AssertionError("NumbaError.__init__ called")

        class TypingError(NumbaError):
            pass

        module.TypingError = TypingError
        return module

    for name in ("numba.cuda.core.errors", "numba.core.errors"):
        monkeypatch.setitem(sys.modules, name, errors_module(name))
    own = {k: v for k, v in vars(cudajit.errors.CompileError).items()
           if k not in ("__dict__", "__weakref__")}
    copy = type("CompileError", cudajit.errors.CompileError.__bases__, own)
    bound = types.SimpleNamespace(errors=types.SimpleNamespace(CompileError=copy))
    binding._compile_errors_are_typing_errors(bound)
    binding._compile_errors_are_typing_errors(bound)  # once is enough: a second call is a no-op
    error = copy("boom", "kernel.py", 3, 4)
    assert isinstance(error, sys.modules["numba.core.errors"].TypingError)
    assert isinstance(error, sys.modules["numba.cuda.core.errors"].TypingError)
    assert str(error) == "kernel.py:3:5: boom" and error.args == ("boom", "kernel.py", 3, 4)
    assert isinstance(cudajit.CompileError("x"), Exception)  # cudajit's own class untouched
    assert not any(b.__name__ == "TypingError" for b in cudajit.CompileError.__mro__)
    assert pickle.loads(pickle.dumps(cudajit.CompileError("m", "f.py", 1, 0))).args == (
        "m", "f.py", 1, 0)
