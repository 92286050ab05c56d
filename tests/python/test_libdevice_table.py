"""The libdevice and fp16 functions generated from tables (libdevice/_table.py): each is
a device function with Numba's name, module, signature and docstring, compiled from its
row's text at first use, whose source the front end, errors, inspect and pickle read;
the modules export their public functions only."""

import ast
import builtins
import inspect
import linecache
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import cudajit as cuda
from cudajit import fp16, libdevice
from cudajit.errors import CompileError
from cudajit.libdevice import _table
from cudajit.types import float32

pytestmark = pytest.mark.filterwarnings("ignore::cudajit.PerformanceWarning")

GENERATED = [(module.__name__, name) for module in (libdevice, fp16) for name in module.__all__
             if isinstance(getattr(module, name), _table.GeneratedFunction)]


def test_a_generated_function_has_numbas_name_module_signature_docstring_and_source():
    sinf = libdevice.sinf
    assert isinstance(sinf, cuda.DeviceFunction)
    assert sinf.__name__ == "sinf" and sinf.__doc__ == "The sine of a float32."
    assert sinf.py_func.__module__ == "cudajit.libdevice.math32"
    assert sinf.py_func.__qualname__ == "sinf"
    assert str(inspect.signature(sinf)) == "(x)"
    assert inspect.getsource(sinf.py_func) == "def sinf(x):\n    return math.sin(float32(x))\n"
    assert inspect.getsource(libdevice.fadd_rz.py_func) == (
        "def fadd_rz(x, y):\n    return _add32(float64(float32(x)), float64(float32(y)), _RZ)\n")


def test_most_functions_are_generated_and_the_directed_ones_in_each_rounding_mode():
    assert len(GENERATED) == 324
    assert ("cudajit.libdevice", "fma_rz") in GENERATED
    assert libdevice.fma_ru.__doc__ == "``x * y + z`` of float64 values, rounded once up " \
                                       "(towards +inf)."


@pytest.mark.parametrize("module", [libdevice, fp16], ids=["libdevice", "fp16"])
def test_import_star_gives_the_public_functions_and_no_helper(module):
    names: dict = {}
    exec(f"from {module.__name__} import *", names)  # noqa: S102
    exported = {name for name in names if name != "__builtins__"}
    assert exported == set(module.__all__)
    assert all(isinstance(getattr(module, name), cuda.DeviceFunction) for name in exported)
    assert not any(name.startswith("_") for name in exported)


def test_each_libdevice_module_exports_only_its_public_functions():
    for module_name in ("bits", "classification", "conversions", "directed", "fast", "integer",
                        "math32", "math64", "rounded"):
        module = getattr(libdevice, module_name)
        assert module.__all__ and not any(name.startswith("_") for name in module.__all__)
    assert libdevice._base.__all__ == []
    assert not hasattr(libdevice, "_pow2") and not hasattr(libdevice, "math")


@pytest.mark.parametrize("module_name, name", GENERATED)
def test_every_name_a_row_uses_is_defined_in_its_module(module_name, name):
    function = getattr(sys.modules[module_name], name).py_func
    tree = ast.parse(inspect.getsource(function))
    used = {node.id for node in ast.walk(tree)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    params = set(inspect.signature(function).parameters)
    missing = {n for n in used - params
               if n not in function.__globals__ and not hasattr(builtins, n)}
    assert not missing


def test_functions_are_compiled_at_first_use_not_at_import():
    program = ("import cudajit.libdevice as ld\n"
               "assert 'py_func' not in vars(ld.cosf)\n"
               "assert ld.cosf.py_func.__name__ == 'cosf' and 'py_func' in vars(ld.cosf)\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(cuda.__file__)))
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                            timeout=120, env=env)
    assert result.returncode == 0, result.stderr


def test_a_generated_function_pickles_by_reference():
    assert pickle.loads(pickle.dumps(libdevice.erfinvf)) is libdevice.erfinvf
    assert pickle.loads(pickle.dumps(fp16.hmax)) is fp16.hmax


def test_an_error_inside_a_generated_function_shows_its_generated_line():
    def kernel(x):
        x[0] = libdevice.sinhf(x)

    with pytest.raises(CompileError) as error:
        cuda.compile_ptx(kernel, "void(float32[::1])")
    message = str(error.value)
    assert "<cudajit.libdevice.math32 (generated)>" in message
    assert "float32() needs a number, got array(float32, 1d, C)" in message
    assert "    return math.sinh(float32(x))\n" in message


def test_a_wrong_argument_count_names_the_function():
    def kernel(x):
        x[0] = libdevice.fadd_rz(x[0])

    with pytest.raises(CompileError, match="device function 'fadd_rz' takes 2 arguments, got 1"):
        cuda.compile_ptx(kernel, "void(float32[::1])")


def test_generated_functions_compile_after_linecache_is_cleared():
    def kernel(x):
        x[0] = libdevice.coshf(x[0]) + libdevice.log1pf(x[0])

    libdevice.coshf.py_func  # one made before, one after
    linecache.clearcache()
    ptx, _ = cuda.compile_ptx(kernel, "void(float32[::1])")
    assert ".entry" in ptx


def test_a_table_of_ones_own_defines_device_functions(device):
    namespace = {"__name__": "scratch_table", "float32": float32}
    names = _table.define(namespace, _table.rows(
        "x: float32, y: float32",
        ("twice_sum", "(x + y) * 2", "``2 (x + y)`` of float32 values."),
        ("difference", "x - y", "``x - y`` of float32 values.")))
    assert names == ["twice_sum", "difference"]
    twice_sum, difference = namespace["twice_sum"], namespace["difference"]

    @cuda.jit
    def kernel(out, a, b):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = twice_sum(a[i], b[i]) - difference(a[i], b[i])

    a = np.array([1.5, 2.0, -3.25], np.float64)
    b = np.array([0.5, 4.0, 1.0], np.float64)
    out = np.zeros(3, np.float32)
    kernel[1, 32](out, a, b)
    np.testing.assert_array_equal(out, np.float32(2) * (a + b).astype(np.float32)
                                  - (a - b).astype(np.float32))
    assert out.dtype == np.float32 and twice_sum.__doc__ == "``2 (x + y)`` of float32 values."


def test_a_name_defined_twice_is_refused():
    namespace = {"__name__": "scratch_table", "twice": None}
    with pytest.raises(ValueError, match="'twice' is defined twice"):
        _table.define(namespace, _table.rows("x", ("twice", "x + x", "")))


def test_a_parameter_is_converted_where_it_is_a_name_only():
    row = _table.Row("f", _table.parse_params("x: float32, xs: int32, y"),
                     "x + xs + y + math.x(x)", "")
    assert _table.source_lines(row) == [
        "def f(x, xs, y):\n",
        "    return float32(x) + int32(xs) + y + math.x(float32(x))\n"]
