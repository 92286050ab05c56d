"""The pure-Python front end: types, kernel IR text, name resolution, errors.

These tests need no compiled cudajit._core, and test this checkout's sources.
When ``import cudajit`` would not give python/cudajit/ of this checkout, or
fails (the extension is not built), the modules are loaded from there under a
private package name, so nothing named ``cudajit`` is left half-imported for
other test modules.
"""

from __future__ import annotations

import importlib
import importlib.util
import pickle
import sys
import textwrap
import types as pytypes
from pathlib import Path

import numpy as np
import pytest

SOURCE_DIR = Path(__file__).resolve().parents[2] / "python" / "cudajit"


def _is_source_tree_package() -> bool:
    """Whether `import cudajit` would give python/cudajit of this checkout (and not
    another installed copy, whose extension we must not load)."""
    module = sys.modules.get("cudajit")
    if module is not None:
        locations = list(getattr(module, "__path__", []))
    else:
        try:
            spec = importlib.util.find_spec("cudajit")
        except (ImportError, ValueError):
            return False
        locations = list(spec.submodule_search_locations or []) if spec else []
    return any(Path(location).resolve() == SOURCE_DIR for location in locations)


def _load_cudajit_modules():
    if _is_source_tree_package():
        try:
            import cudajit
            from cudajit import errors, frontend, intrinsics, types
            return cudajit, errors, frontend, intrinsics, types
        except Exception:  # the extension is not built: load the sources alone
            pass
    package = pytypes.ModuleType("_cudajit_sources")
    package.__path__ = [str(SOURCE_DIR)]
    sys.modules[package.__name__] = package
    # The front end imports _core (device arrays): an installed cudajit's, already loaded by
    # the other tests, where this checkout's is not built for this Python (make test-pythons
    # runs this file against the wheel); one copy of the extension, never a second.
    try:
        from cudajit import _core
    except ImportError:
        pass
    else:
        sys.modules["_cudajit_sources._core"] = _core
        package._core = _core
    loaded = [importlib.import_module(f"_cudajit_sources.{name}")
              for name in ("errors", "frontend", "intrinsics", "types")]
    # What `import cudajit as cuda` gives a kernel: the front end knows it by name.
    facade = pytypes.ModuleType("cudajit")
    for module in (loaded[2], loaded[3]):
        for name in module.__all__:
            setattr(facade, name, getattr(module, name))
    return (facade, *loaded)


cudajit, errors, frontend, intrinsics, cjtypes = _load_cudajit_modules()
CompileError = errors.CompileError


class FakeDevice:
    """What @cuda.jit(device=True) returns, as far as the front end cares."""

    def __init__(self, pyfunc):
        self._cudajit_device_pyfunc = pyfunc


class FakeKernel:
    def __init__(self, pyfunc):
        self._cudajit_kernel_pyfunc = pyfunc


def load_source(tmp_path: Path, source: str, filename: str = "kernels.py", **names):
    """Executes ``source`` as a module saved at tmp_path/filename, so that line
    numbers in the expected IR are those of ``source`` (line 1 = first line)."""
    path = tmp_path / filename
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source).lstrip("\n"))
    module = pytypes.ModuleType(f"kernels_{abs(hash(str(path)))}")
    module.__file__ = str(path)
    module.__dict__.update(cuda=cudajit, np=np, device=FakeDevice, jit=FakeKernel, **names)
    exec(compile(path.read_text(), str(path), "exec"), module.__dict__)
    return module


def build(tmp_path: Path, source: str, name: str = "k", **names) -> str:
    module = load_source(tmp_path, source, **names)
    return frontend.build_module(getattr(module, name))


def body_ir(tmp_path: Path, source: str, **names) -> str:
    """The IR of function k without the module/func wrapper, spaces normalised."""
    text = " ".join(build(tmp_path, source, **names).split())
    start = text.index(")", text.index("(params")) + 2
    end = text.index(") (func@") if ") (func@" in text else len(text) - 2
    return text[start:end]


def compile_error(tmp_path: Path, source: str, name: str = "k", **names) -> CompileError:
    module = load_source(tmp_path, source, **names)
    with pytest.raises(CompileError) as info:
        frontend.build_module(getattr(module, name))
    return info.value


# --------------------------------------------------------------------------
# Kernel IR text

SAXPY = """\
@jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]
"""

# Copied from docs/dev/kernel-ir.md: the front end must produce exactly this.
SAXPY_IR_FROM_DOCS = """
(module "examples/saxpy.py"
 (func@2:0 saxpy (params a x y out)
  (assign@3:4 (name@3:4 i) (call@3:8 cuda.grid (int@3:18 1)))
  (if@4:4 (compare@4:7 (name@4:7 i) < (attr@4:11 (name@4:11 out) size))
   (block@5:8 (assign@5:8 (subscript@5:8 (name@5:8 out) (name@5:12 i))
     (binop@5:17 + (binop@5:17 * (name@5:17 a) (subscript@5:21 (name@5:21 x) (name@5:23 i)))
                   (subscript@5:28 (name@5:28 y) (name@5:30 i)))))
   (block@4:4))))
"""


def test_saxpy_ir_matches_the_example_in_kernel_ir_md(tmp_path):
    module = load_source(tmp_path, SAXPY, filename="examples/saxpy.py")
    text = frontend.build_module(module.saxpy)
    text = text.replace(str(tmp_path / "examples/saxpy.py"), "examples/saxpy.py")
    assert text.split() == SAXPY_IR_FROM_DOCS.split()


def test_a_file_edited_and_loaded_again_is_read_again(tmp_path):
    # The parsed-source cache must not outlive an edit (a module reloaded in a
    # notebook): the same size, the same lines, only a constant changed.
    first = load_source(tmp_path, "def k(a):\n    a[0] = 2.0\n")
    assert "(float@2:11 2.0)" in frontend.build_module(first.k)
    second = load_source(tmp_path, "def k(a):\n    a[0] = 3.0\n")
    assert "(float@2:11 3.0)" in frontend.build_module(second.k)


TRICKY_SOURCES = {
    "decorated, arguments on lines of their own": """\
@decorate(
    "void(float32[::1])",
)
def k(a):
    a[0] = 1.0
""",
    "signature over lines, closing at the def's column": """\
def k(
    a,
    b,
):
    a[0] = b[0]
""",
    "a string whose lines start at column 0": '''\
def k(a):
    s = """
not the end of k
"""
    a[0] = 2.0
''',
    "a continuation line at column 0": """\
def k(a):
    x = 1 + \\
2
    a[0] = x
""",
    "comments at column 0 and blank lines inside": """\
def k(a):
    x = 1
# a comment at column 0

    a[0] = x
y = 3
""",
    "another decorated function right after": """\
@jit
def k(a):
    a[0] = 1.0
@jit
def other(a):
    a[0] = 2.0
""",
    "brackets closing at column 0 in the body": """\
def k(a):
    t = (1,
2)
    a[0] = t[1]
""",
}


@pytest.mark.parametrize("source", TRICKY_SOURCES.values(), ids=TRICKY_SOURCES.keys())
def test_the_source_read_is_the_whole_function_as_inspect_gives_it(tmp_path, source):
    # source.py cuts a function's lines by indentation (inspect's tokenizer costs
    # milliseconds) and falls back on inspect where the cut does not parse.
    import ast
    import inspect

    from cudajit.source import read_function

    module = load_source(tmp_path, source, decorate=lambda *args: (lambda f: f))
    pyfunc = frontend.module_builder.unwrap(module.k)
    lines, first = inspect.getsourcelines(pyfunc)
    expected = ast.parse(textwrap.dedent("".join(lines))).body[0]
    ast.increment_lineno(expected, first - 1)
    got = read_function(pyfunc).funcdef
    assert ast.dump(got, include_attributes=True) == ast.dump(expected, include_attributes=True)


@pytest.mark.parametrize("name, needs_inspect", [
    ("decorated, arguments on lines of their own", False),
    ("signature over lines, closing at the def's column", False),
    ("comments at column 0 and blank lines inside", False),
    ("a string whose lines start at column 0", True),
])
def test_inspect_is_asked_only_where_indentation_cannot_cut(tmp_path, monkeypatch, name,
                                                           needs_inspect):
    import inspect

    from cudajit import source

    module = load_source(tmp_path, TRICKY_SOURCES[name], decorate=lambda *args: (lambda f: f))
    calls = []
    real = inspect.getsourcelines
    monkeypatch.setattr(source.inspect, "getsourcelines",
                        lambda f: calls.append(f) or real(f))
    source._SOURCE_CACHE.clear()
    source.read_function(module.k)
    assert bool(calls) == needs_inspect


def test_a_kernel_defined_inside_a_function_reads_its_indented_source(tmp_path):
    module = load_source(tmp_path, """\
        def make():
            @jit
            def k(a):
                a[0] = 4.0
            return k
        """)
    assert "(float@4:15 4.0)" in frontend.build_module(module.make())


def test_saxpy_ir_is_printed_one_statement_per_line(tmp_path):
    module = load_source(tmp_path, SAXPY)
    path = tmp_path / "kernels.py"
    assert frontend.build_module(module.saxpy) == (
        f'(module "{path}"\n'
        " (func@2:0 saxpy (params a x y out)\n"
        "  (assign@3:4 (name@3:4 i) (call@3:8 cuda.grid (int@3:18 1)))\n"
        "  (if@4:4 (compare@4:7 (name@4:7 i) < (attr@4:11 (name@4:11 out) size))\n"
        "   (block@5:8\n"
        "    (assign@5:8 (subscript@5:8 (name@5:8 out) (name@5:12 i)) (binop@5:17 + "
        "(binop@5:17 * (name@5:17 a) (subscript@5:21 (name@5:21 x) (name@5:23 i))) "
        "(subscript@5:28 (name@5:28 y) (name@5:30 i)))))\n"
        "   (block@4:4))))\n")


def test_file_name_is_a_string_with_quotes_and_backslashes_escaped(tmp_path):
    module = load_source(tmp_path, "def k():\n    pass\n", filename='we"ird\\dir/k.py')
    header = frontend.build_module(module.k).split("\n")[0]
    escaped = str(tmp_path / 'we"ird\\dir/k.py').replace("\\", "\\\\").replace('"', '\\"')
    assert header == f'(module "{escaped}"'


def test_columns_point_into_the_file_when_the_function_is_indented(tmp_path):
    source = """\
    class Holder:
        @staticmethod
        def k(a):
            a[0] = 1
    """
    module = load_source(tmp_path, source)
    text = " ".join(frontend.build_module(module.Holder.k).split())
    assert "(func@3:4 k (params a) (assign@4:8 (subscript@4:8 (name@4:8 a) (int@4:10 0))" in text


def test_docstring_is_dropped_and_kernel_dispatcher_is_unwrapped(tmp_path):
    source = '''\
    @jit
    def k(a):
        """Docstring."""
        return
    '''
    text = " ".join(build(tmp_path, source).split())
    assert text.endswith("(func@2:0 k (params a) (return@4:4)))")


@pytest.mark.parametrize("statement, expected", [
    ("a = b", "(assign@2:4 (name@2:4 a) (name@2:8 b))"),
    ("a, (b, c) = c, a, b",
     "(assign@2:4 (tuple@2:4 (name@2:4 a) (tuple@2:7 (name@2:8 b) (name@2:11 c))) "
     "(tuple@2:16 (name@2:16 c) (name@2:19 a) (name@2:22 b)))"),
    ("a = b = 1", "(assign@2:4 (name@2:4 a) (int@2:12 1)) (assign@2:4 (name@2:8 b) (int@2:12 1))"),
    ("a[b] = c = a[c]",
     "(assign@2:4 (name@2:15 chain.1) (subscript@2:15 (name@2:15 a) (name@2:17 c))) "
     "(assign@2:4 (subscript@2:4 (name@2:4 a) (name@2:6 b)) (name@2:15 chain.1)) "
     "(assign@2:4 (name@2:11 c) (name@2:15 chain.1))"),
    ("a[b, c] += 2", "(augassign@2:4 + (subscript@2:4 (name@2:4 a) "
     "(tuple@2:6 (name@2:6 b) (name@2:9 c))) (int@2:15 2))"),
    ("b //= c", "(augassign@2:4 // (name@2:4 b) (name@2:10 c))"),
    ("c: int = 3", "(assign@2:4 (name@2:4 c) (int@2:13 3))"),
    ("a.conjugate()", "(expr@2:4 (method@2:4 (name@2:4 a) conjugate))"),
    ("return a", "(return@2:4 (name@2:11 a))"),
    ("return None", "(return@2:4)"),
    ("pass", "(pass@2:4)"),
    ("...", "(pass@2:4)"),
    ("'a comment'", ""),
])
def test_simple_statements(tmp_path, statement, expected):
    assert body_ir(tmp_path, f"def k(a, b, c):\n    {statement}\n") == expected


@pytest.mark.parametrize("expression, expected", [
    ("a + b * c", "(binop@2:8 + (name@2:8 a) (binop@2:12 * (name@2:12 b) (name@2:16 c)))"),
    ("a ** b % c", "(binop@2:8 % (binop@2:8 ** (name@2:8 a) (name@2:13 b)) (name@2:17 c))"),
    ("a / b // c", "(binop@2:8 // (binop@2:8 / (name@2:8 a) (name@2:12 b)) (name@2:17 c))"),
    ("a & b | c ^ a", "(binop@2:8 | (binop@2:8 & (name@2:8 a) (name@2:12 b)) "
     "(binop@2:16 ^ (name@2:16 c) (name@2:20 a)))"),
    ("a << b >> c", "(binop@2:8 >> (binop@2:8 << (name@2:8 a) (name@2:13 b)) (name@2:18 c))"),
    ("-a + +b - ~c", "(binop@2:8 - (binop@2:8 + (unary@2:8 - (name@2:9 a)) (unary@2:13 + "
     "(name@2:14 b))) (unary@2:18 ~ (name@2:19 c)))"),
    ("not a", "(not@2:8 (name@2:12 a))"),
    ("a and b and c", "(and@2:8 (name@2:8 a) (name@2:14 b) (name@2:20 c))"),
    ("a or b", "(or@2:8 (name@2:8 a) (name@2:13 b))"),
    ("a < b <= c", "(compare@2:8 (name@2:8 a) < (name@2:12 b) <= (name@2:17 c))"),
    ("a > b >= c == a != b", "(compare@2:8 (name@2:8 a) > (name@2:12 b) >= (name@2:17 c) "
     "== (name@2:22 a) != (name@2:27 b))"),
    ("a if b else c", "(ifexp@2:8 (name@2:13 b) (name@2:8 a) (name@2:20 c))"),
    ("(a, b)", "(tuple@2:8 (name@2:9 a) (name@2:12 b))"),
    ("()", "(tuple@2:8)"),
    ("a[b]", "(subscript@2:8 (name@2:8 a) (name@2:10 b))"),
    ("a.shape[0] + a.strides[1] + a.ndim + a.size",
     "(binop@2:8 + (binop@2:8 + (binop@2:8 + (subscript@2:8 (attr@2:8 (name@2:8 a) shape) "
     "(int@2:16 0)) (subscript@2:21 (attr@2:21 (name@2:21 a) strides) (int@2:31 1))) "
     "(attr@2:36 (name@2:36 a) ndim)) (attr@2:45 (name@2:45 a) size))"),
    ("a.real - a.imag",
     "(binop@2:8 - (attr@2:8 (name@2:8 a) real) (attr@2:17 (name@2:17 a) imag))"),
    ("True", "(bool@2:8 1)"),
    ("2.5e-7", "(float@2:8 2.5e-07)"),
    ("1e300 * 1e300", "(binop@2:8 * (float@2:8 1e+300) (float@2:16 1e+300))"),
    ("3j", "(complex@2:8 0.0 3.0)"),
    ("9223372036854775807", "(int@2:8 9223372036854775807)"),
    ("-9223372036854775808", "(int@2:8 -9223372036854775808)"),
])
def test_expressions(tmp_path, expression, expected):
    assert body_ir(tmp_path, f"def k(a, b, c):\n    x = {expression}\n") == \
        f"(assign@2:4 (name@2:4 x) {expected})"


def test_if_elif_else_nests_the_elif_in_the_else_block(tmp_path):
    source = """\
    def k(a):
        if a:
            pass
        elif a > 1:
            return
        else:
            a = 2
    """
    assert body_ir(tmp_path, source) == (
        "(if@2:4 (name@2:7 a) (block@3:8 (pass@3:8)) (block@4:4 "
        "(if@4:4 (compare@4:9 (name@4:9 a) > (int@4:13 1)) (block@5:8 (return@5:8)) "
        "(block@7:8 (assign@7:8 (name@7:8 a) (int@7:12 2))))))")


def test_while_loop_with_break_and_continue(tmp_path):
    source = """\
    def k(a):
        while a:
            if a:
                break
            continue
    """
    assert body_ir(tmp_path, source) == (
        "(while@2:4 (name@2:10 a) (block@3:8 (if@3:8 (name@3:11 a) (block@4:12 (break@4:12)) "
        "(block@3:8)) (continue@5:8)))")


def test_a_loop_else_clause_runs_under_a_flag_that_the_loops_own_break_clears(tmp_path):
    source = """\
    def k(a):
        while a:
            for i in range(2):
                break
            break
        else:
            a = 0
    """
    assert body_ir(tmp_path, source) == (
        "(assign@2:4 (name@2:4 loop.1) (bool@2:4 1)) "
        "(while@2:4 (name@2:10 a) (block@3:8 (for@3:8 (name@3:12 i) (int@3:17 0) "
        "(int@3:23 2) (int@3:17 1) (block@4:12 (break@4:12))) "
        "(assign@5:8 (name@2:4 loop.1) (bool@5:8 0)) (break@5:8))) "
        "(if@7:8 (name@2:4 loop.1) (block@7:8 (assign@7:8 (name@7:8 a) (int@7:12 0))) "
        "(block@2:4))")


def test_loops_of_shuffles_whose_trip_count_is_known_are_unrolled(tmp_path):
    source = """\
    def k(a, v):
        for d in range(2):
            v += cuda.shfl_down_sync(-1, v, d)
        off = 4
        while off > 1:
            v += cuda.shfl_xor_sync(-1, v, off)
            off //= 2
    """
    text = body_ir(tmp_path, source)
    assert "(for@" not in text and "(while@" not in text
    assert text.count("shfl_down_sync") == 2 and text.count("shfl_xor_sync") == 2
    assert "(assign@2:4 (name@2:8 d) (int@2:4 0))" in text
    assert "(assign@2:4 (name@2:8 d) (int@2:4 1))" in text


@pytest.mark.parametrize("source", [
    "def k(a, v, n):\n    for d in range(n):\n        v += cuda.shfl_down_sync(-1, v, d)\n",
    "def k(a, v):\n    for d in range(3):\n        a[d] = v\n",  # no warp function
    "def k(a, v):\n    for d in range(40):\n        v += cuda.shfl_down_sync(-1, v, 1)\n",
    "def k(a, v):\n    for d in range(4):\n        for e in range(4):\n"
    "            v += cuda.shfl_down_sync(-1, v, e)\n",  # nested: the outer loop stays
    "def k(a, v):\n    off = 4\n    while off > 0:\n        v += cuda.shfl_down_sync(-1, v, off)\n"
    "        if v:\n            break\n        off //= 2\n",
    "def k(a, v, n):\n    off = n\n    while off > 0:\n        v += cuda.shfl_down_sync(-1, v, off)\n"
    "        off //= 2\n",
    "def k(a, v):\n    off = 4\n    while off > 0:\n        off -= 1\n"
    "        v += cuda.shfl_down_sync(-1, v, off)\n        off //= 2\n",
])
def test_other_loops_of_shuffles_stay_loops(tmp_path, source):
    text = body_ir(tmp_path, source)
    assert "(for@" in text or "(while@" in text


@pytest.mark.parametrize("head, bounds", [
    ("range(n)", "(int@2:13 0) (name@2:19 n) (int@2:13 1)"),
    ("range(1, n)", "(int@2:19 1) (name@2:22 n) (int@2:13 1)"),
    ("range(n, 0, -1)", "(name@2:19 n) (int@2:22 0) (unary@2:25 - (int@2:26 1))"),
])
def test_for_range_fills_default_start_and_step(tmp_path, head, bounds):
    source = f"def k(a, n):\n    for i in {head}:\n        a[i] = i\n"
    assert body_ir(tmp_path, source) == (
        f"(for@2:4 (name@2:8 i) {bounds} (block@3:8 (assign@3:8 "
        "(subscript@3:8 (name@3:8 a) (name@3:10 i)) (name@3:15 i))))")


# --------------------------------------------------------------------------
# Name resolution

def test_a_name_assigned_anywhere_is_local_even_if_a_global_has_it(tmp_path):
    source = """\
    x = 5
    def k(a):
        a[0] = x
        x = 1
    """
    assert body_ir(tmp_path, source).startswith(
        "(assign@3:4 (subscript@3:4 (name@3:4 a) (int@3:6 0)) (name@3:11 x))")


@pytest.mark.parametrize("prelude, expression, expected", [
    ("import math", "math.sqrt(a)", "(call@3:8 math.sqrt (name@3:18 a))"),
    ("import math as m", "m.atan2(a, 1.0)", "(call@3:8 math.atan2 (name@3:16 a) (float@3:19 1.0))"),
    ("from math import sqrt", "sqrt(a)", "(call@3:8 math.sqrt (name@3:13 a))"),
    ("from math import pi", "pi", "(float@3:8 3.141592653589793)"),
    ("import math", "math.e", "(float@3:8 2.718281828459045)"),
    ("import math", "math.tau", "(float@3:8 6.283185307179586)"),
    ("import math", "math.inf", "(float@3:8 inf)"),
    ("import math", "-math.inf", "(unary@3:8 - (float@3:9 inf))"),
    ("import math", "math.nan", "(float@3:8 nan)"),
    ("", "np.pi", "(float@3:8 3.141592653589793)"),
    ("", "np.float32(a)", "(call@3:8 cast.float32 (name@3:19 a))"),
    ("", "np.bool_(a)", "(call@3:8 cast.bool (name@3:17 a))"),
    ("", "np.complex128(a)", "(call@3:8 cast.complex128 (name@3:22 a))"),
    ("F32 = np.float32", "F32(a)", "(call@3:8 cast.float32 (name@3:12 a))"),
    ("", "cuda.threadIdx.x", "(call@3:8 cuda.threadIdx.x)"),
    ("", "cuda.blockIdx.y", "(call@3:8 cuda.blockIdx.y)"),
    ("", "cuda.blockDim.z", "(call@3:8 cuda.blockDim.z)"),
    ("", "cuda.gridDim.x", "(call@3:8 cuda.gridDim.x)"),
    ("", "cuda.grid(2)", "(call@3:8 cuda.grid (int@3:18 2))"),
    ("", "cuda.gridsize(3)", "(call@3:8 cuda.gridsize (int@3:22 3))"),
    ("NDIM = 2", "cuda.grid(NDIM)", "(call@3:8 cuda.grid (int@3:18 2))"),
    ("", "cuda.laneid", "(call@3:8 cuda.laneid)"),
    ("", "cuda.warpsize", "(call@3:8 cuda.warpsize)"),
    ("", "cuda.float32(a)", "(call@3:8 cast.float32 (name@3:21 a))"),
    ("", "cuda.uint16(a)", "(call@3:8 cast.uint16 (name@3:20 a))"),
    ("", "cuda.bool_(a)", "(call@3:8 cast.bool (name@3:19 a))"),
    ("", "cuda.float_(a)", "(call@3:8 cast.float32 (name@3:20 a))"),
    ("", "cuda.intp(a)", "(call@3:8 cast.int64 (name@3:18 a))"),
    ("cu = cuda", "cu.threadIdx.x", "(call@3:8 cuda.threadIdx.x)"),
    ("", "len(a) + abs(a)",
     "(binop@3:8 + (call@3:8 len (name@3:12 a)) (call@3:17 abs (name@3:21 a)))"),
    ("", "min(a, 1) + max(a, 2)", "(binop@3:8 + (call@3:8 min (name@3:12 a) (int@3:15 1)) "
     "(call@3:20 max (name@3:24 a) (int@3:27 2)))"),
    ("", "int(a) + float(a)",
     "(binop@3:8 + (call@3:8 int (name@3:12 a)) (call@3:17 float (name@3:23 a)))"),
    ("", "bool(a) + complex(a)", "(binop@3:8 + (call@3:8 bool (name@3:13 a)) "
     "(call@3:18 complex (name@3:26 a)))"),
    ("", "round(a, 2)", "(call@3:8 round (name@3:14 a) (int@3:17 2))"),
])
def test_names_resolve_to_builtins_and_intrinsics(tmp_path, prelude, expression, expected):
    source = f"{prelude or 'pass'}\ndef k(a):\n    x = {expression}\n"
    assert body_ir(tmp_path, source) == f"(assign@3:4 (name@3:4 x) {expected})"


def test_intrinsics_imported_by_name_resolve_by_identity(tmp_path):
    source = """\
    def k(a):
        a[0] = grid(1) + threadIdx.x + blockDim.y + laneid + warpsize
        a[1] = gridsize(1) + float64(a[0])
    """
    text = body_ir(tmp_path, source, grid=intrinsics.grid, gridsize=intrinsics.gridsize,
                   threadIdx=intrinsics.threadIdx, blockDim=intrinsics.blockDim,
                   laneid=intrinsics.laneid, warpsize=intrinsics.warpsize,
                   float64=cjtypes.float64)
    assert "(call@2:11 cuda.grid (int@2:16 1))" in text
    assert "(call@2:21 cuda.threadIdx.x)" in text
    assert "(call@2:35 cuda.blockDim.y)" in text
    assert "(call@2:48 cuda.laneid)" in text
    assert "(call@2:57 cuda.warpsize)" in text
    assert "(call@3:11 cuda.gridsize (int@3:20 1))" in text
    assert "(call@3:25 cast.float64 (subscript@3:33 (name@3:33 a) (int@3:35 0)))" in text


def test_intrinsics_raise_when_used_from_host_code():
    with pytest.raises(RuntimeError, match="only be used inside a kernel"):
        intrinsics.grid(1)
    with pytest.raises(RuntimeError, match="only be used inside a kernel"):
        int(intrinsics.threadIdx.x)


def test_the_module_named_cudajit_in_sys_modules_is_recognised(tmp_path, monkeypatch):
    real = pytypes.ModuleType("not_named_cudajit")
    monkeypatch.setitem(sys.modules, "cudajit", real)
    assert body_ir(tmp_path, "def k(a):\n    x = cu.laneid\n", cu=real) == \
        "(assign@2:4 (name@2:4 x) (call@2:8 cuda.laneid))"


@pytest.mark.parametrize("value, expected", [
    (5, "(int@2:8 5)"),
    (-7, "(int@2:8 -7)"),
    (2.5, "(float@2:8 2.5)"),
    (1e-7, "(float@2:8 1e-07)"),
    (float("-inf"), "(float@2:8 -inf)"),
    (True, "(bool@2:8 1)"),
    (np.False_, "(bool@2:8 0)"),
    (1 - 2.5j, "(complex@2:8 1.0 -2.5)"),
    # NumPy scalars keep their dtype (as Numba types them); big ints are uint64.
    (np.float32(0.5), "(call@2:8 cast.float32 (float@2:8 0.5))"),
    (np.int32(-3), "(call@2:8 cast.int32 (int@2:8 -3))"),
    (np.uint64(2**63 - 1), "(call@2:8 cast.uint64 (int@2:8 9223372036854775807))"),
    (np.uint64(2**64 - 1), "(call@2:8 cast.uint64 (int@2:8 -1))"),
    (2**64 - 1, "(call@2:8 cast.uint64 (int@2:8 -1))"),
    (np.complex64(2j), "(complex@2:8 0.0 2.0)"),
    ((1, (2.0, False)), "(tuple@2:8 (int@2:8 1) (tuple@2:8 (float@2:8 2.0) (bool@2:8 0)))"),
])
def test_global_numbers_and_tuples_are_frozen_as_constants(tmp_path, value, expected):
    assert body_ir(tmp_path, "def k():\n    x = C\n", C=value) == \
        f"(assign@2:4 (name@2:4 x) {expected})"


def test_closure_constants_are_frozen(tmp_path):
    source = """\
    def make(n):
        scale = 0.5
        def k(a):
            a[0] = n * scale
        return k
    """
    module = load_source(tmp_path, source)
    text = " ".join(frontend.build_module(module.make(3)).split())
    assert "(binop@4:15 * (int@4:15 3) (float@4:19 0.5))" in text


def test_device_functions_are_appended_once_each_transitively(tmp_path):
    source = """\
    @device
    def square(x):
        return x * x

    @device
    def norm2(x, y):
        return square(x) + square(y)

    @jit
    def k(a):
        a[0] = norm2(a[1], a[2]) + square(a[3])
    """
    text = build(tmp_path, source)
    funcs = [line.split()[1] for line in text.splitlines() if line.startswith(" (func@")]
    assert funcs == ["k", "norm2_1", "square_2"]
    assert "(callfn@11:11 norm2_1 (subscript@11:17" in text
    assert "(callfn@11:31 square_2 (subscript@11:38" in text
    assert "(func@6:0 norm2_1 (params x y)" in text
    assert ("(return@7:4 (binop@7:11 + (callfn@7:11 square_2 (name@7:18 x)) "
            "(callfn@7:23 square_2 (name@7:30 y))))") in text


def test_device_function_names_are_mangled_from_the_qualname(tmp_path):
    source = """\
    def make():
        @device
        def helper(x):
            return x
        return helper

    helper = make()

    def k(a):
        a[0] = helper(a[0])
    """
    text = build(tmp_path, source)
    assert "(callfn@10:11 make__locals__helper_1 " in text
    assert "(func@3:4 make__locals__helper_1 (params x)" in text


def test_a_recursive_device_function_calls_itself_by_its_ir_name(tmp_path):
    source = """\
    @device
    def fact(n):
        return 1 if n <= 1 else n * fact(n - 1)
    """
    text = build(tmp_path, source, name="fact")
    assert text.count("(func@") == 1
    assert "(callfn@3:32 fact (binop@3:37 -" in text


def test_non_ascii_identifiers_are_spelled_in_ascii(tmp_path):
    text = body_ir(tmp_path, "def k(a):\n    \u00e9 = a\n")
    # Columns are UTF-8 byte offsets, as ast gives them: \u00e9 takes two.
    assert text == "(assign@2:4 (name@2:4 _u00e9_) (name@2:9 a))"


# --------------------------------------------------------------------------
# CompileError: message and location of each unsupported construct

ERROR_CASES = [
    # (body of `def k(a, b):` from line 2, message fragment, line, col)
    ("for i in reversed(a):\n        pass", "builtin 'reversed' is not supported", 2, 13),
    ("for i, j in range(3):\n        pass", "target must be a single variable", 2, 8),
    ("for i in range():\n        pass", "range() takes 1 to 3 arguments; got 0", 2, 13),
    ("try:\n        pass\n    except Exception:\n        pass",
     "try statements are not supported", 2, 4),
    ("with a:\n        pass", "with statements are not supported", 2, 4),
    ("import os", "import statements are not supported", 2, 4),
    ("global g", "global declarations are not supported", 2, 4),
    ("del a", "del statements are not supported", 2, 4),
    ("async def inner():\n        pass", "async functions are not supported", 2, 4),
    ("@staticmethod\n    def inner():\n        pass", "decorators on functions defined in kernels",
     2, 5),
    ("c = max(lambda: 1, a)", "lambda expressions are not supported", 2, 12),
    ("f = g = lambda: 1", "a lambda in a kernel must be assigned to one name", 2, 12),
    ("c = [x for x in a]", "list comprehensions are not supported", 2, 8),
    ("c = [1, 2]", "lists are not supported", 2, 8),
    ("c = {1: 2}", "dicts are not supported", 2, 8),
    ("c = (d := 1)", "assignment expressions (:=) are not supported", 2, 9),
    ("c = 'text'", "strings are supported in kernels only as constants stored into", 2, 8),
    ("c = f'{a}'", "f-strings are not supported", 2, 8),
    ("c = None", "None is not supported", 2, 8),
    ("c = max(a, key=b)", "keyword arguments are not supported", 2, 15),
    ("c = (*a,)", "starred expressions (*x) are not supported", 2, 9),
    ("print(*a)", "f(*t) of a tuple known only when the kernel compiles works for device "
                  "functions", 2, 10),
    ("c = (a + 1) is None", "'is None' of an expression is not supported", 2, 8),
    ("c = a @ b", "the '@' operator is not supported", 2, 8),
    ("c = undefined_name", "name 'undefined_name' is not defined", 2, 8),
    ("c = a.cumsum()", "method '.cumsum()' is not supported", 2, 8),
    ("c = a.sum(1)", "a.sum() in kernels takes no arguments", 2, 8),
    ("c = np.sum(a, axis=1)", "np.sum() in kernels reduces the whole array; 'axis=' is not "
     "supported", 2, 18),
    ("c = range(3)", "range() can only be used as the iterable of a for loop", 2, 8),
    ("c = input(a)", "builtin 'input' is not supported", 2, 8),
    ("c = python_function(a)", "cannot call Python function 'python_function' from a kernel; "
     "decorate it with @cuda.jit(device=True)", 2, 8),
    ("c = a(1)", "cannot call 'a'", 2, 8),
    ("c = cuda.grid(b)", "cuda.grid() takes one literal argument 1, 2 or 3; got 'b'", 2, 18),
    ("c = cuda.grid(4)", "cuda.grid() takes one literal argument 1, 2 or 3; got '4'", 2, 18),
    ("c = cuda.gridsize()", "got 0 arguments", 2, 8),
    ("c = cuda.laneid()", "'cuda.laneid' is not a function; write it without parentheses", 2, 8),
    ("c = cuda.threadIdx", "'cuda.threadIdx' cannot be used as a value", 2, 8),
    ("c = cuda.threadIdx.w", "'cuda.threadIdx.w' is not supported; use .x, .y or .z", 2, 8),
    ("cuda.syncgrid()", "'cuda.syncgrid' is not supported in kernels", 2, 4),
    ("c = cuda.shared.array(b, cuda.float32)", "cuda.shared.array() needs a shape that is an "
     "integer constant or a tuple of them (literals, global ints, locals assigned one once, "
     "or expressions of them); "
     "'b' is not a constant", 2, 26),
    ("c = cuda.local.array((4, 2.5), np.float32)", "got (4, 2.5)", 2, 25),
    ("c = cuda.local.array((4, 1 + b), np.float32)", "'b' is not a constant", 2, 33),
    ("c = cuda.shared.array((1, 2, 3, 4), np.int32)", "arrays have 1 to 3 dimensions", 2, 26),
    ("c = cuda.shared.array(4, 'no_such_type')", "cuda.shared.array(): Invalid NumPy dtype "
     "specified: 'no_such_type' (expected the name of a NumPy dtype, such as 'float32' or 'f4')",
     2, 29),
    ("c = cuda.local.array(10, dtype='int33')", "cuda.local.array(): Invalid NumPy dtype "
     "specified: 'int33'", 2, 35),
    ("c = cuda.shared.array(4, None)", "expected a dtype (a NumPy dtype, a cudajit or Numba "
     "type, or a string); got None", 2, 29),
    ("c = cuda.shared.array(4, dtype=np.float32, order='C')",
     "cuda.shared.array() got an unexpected keyword argument 'order'", 2, 47),
    ("c = cuda.shared.array(4, np.int8, dtype=np.float32)",
     "got multiple values for 'dtype'", 2, 38),
    ("c = cuda.shared.array(4)", "cuda.shared.array() is missing its 'dtype' argument", 2, 8),
    ("c = cuda.atomic.add(a, 0, b, order=1)", "keyword arguments are not supported", 2, 33),
    ("c = cuda.atomic", "module 'cuda.atomic' cannot be used as a value", 2, 8),
    ("c = cuda.float32(a, b)", "cuda.float32() takes exactly one argument", 2, 8),
    ("c = math", "module 'math' cannot be used as a value", 2, 8),
    ("c = math.sqrt", "'math.sqrt' can only be called", 2, 8),
    ("float.as_integer_ratio(1.23)", "Unknown attribute 'as_integer_ratio' of 'float': kernels "
     "call functions, they do not read their attributes", 2, 4),
    ("c = math.not_a_function(a)", "'math.not_a_function' is not supported", 2, 8),
    ("c = np.gcd(a, b)", "'np.gcd' is not supported in kernels; use math.gcd", 2, 8),
    ("c = np.median(a)", "'np.median' is not supported in kernels", 2, 8),
    ("c = np.sin(a, b)", "np.sin() with an output array is a statement in kernels", 2, 8),
    ("c = np.longdouble(a)", "unsupported dtype float128", 2, 8),
    ("c = GLOBAL_ARRAY[0]", "array 'GLOBAL_ARRAY' cannot be frozen into the kernel: "
     "unsupported dtype <U1", 2, 8),
    ("c = cuda.const.array_like(a)", "cuda.const.array_like() needs a NumPy array known when "
     "compiling (a global or closure variable); 'a' is not one", 2, 30),
    ("c = cuda.const.array_like(GLOBAL_TEXT)", "cuda.const.array_like() needs a NumPy array; "
     "got str", 2, 30),
    ("c = GLOBAL_TEXT", "'GLOBAL_TEXT' (a str) cannot be used in kernels", 2, 8),
    ("c = BAD_TUPLE", "global tuple 'BAD_TUPLE' cannot be frozen", 2, 8),
    ("c = HUGE", "integer constant 18446744073709551616 does not fit in int64 or uint64", 2, 8),
    ("c = 2**64 + 18446744073709551616", "integer constant 18446744073709551616 does not fit",
     2, 16),
]


@pytest.mark.parametrize("body, message, line, col", ERROR_CASES,
                         ids=[case[0].split("\n")[0] for case in ERROR_CASES])
def test_unsupported_python_raises_compile_error_at_the_node(tmp_path, body, message, line, col):
    source = "import math\ndef k(a, b):\n    " + body + "\n"
    error = compile_error(
        tmp_path, source, python_function=lambda x: x, other_kernel=FakeKernel(lambda x: x),
        GLOBAL_ARRAY=np.array(["x"]), GLOBAL_TEXT="text", BAD_TUPLE=(1, "x"), HUGE=2**64)
    assert message in error.msg
    assert (error.filename, error.lineno - 1, error.col_offset) == \
        (str(tmp_path / "kernels.py"), line, col)


@pytest.mark.parametrize("signature, message, col", [
    ("def k(*args):", "*args parameters are supported in device functions, not in kernels", 7),
    ("def k(a, **kw):", "**kwargs parameters are not supported", 11),
    ("def k(a, *, b):", "keyword-only parameters are not supported", 12),
])
def test_unsupported_parameters_raise_compile_error(tmp_path, signature, message, col):
    error = compile_error(tmp_path, signature + "\n    pass\n")
    assert message in error.msg
    assert (error.lineno, error.col_offset) == (1, col)


def test_nonlocal_is_rejected(tmp_path):
    source = """\
    def make():
        n = 1
        def k(a):
            nonlocal n
        return k
    """
    module = load_source(tmp_path, source)
    with pytest.raises(CompileError, match="nonlocal declarations") as info:
        frontend.build_module(module.make())
    assert (info.value.lineno, info.value.col_offset) == (4, 8)


def test_errors_in_device_functions_point_at_the_device_function(tmp_path):
    source = """\
    @device
    def helper(x):
        return x @ x

    def k(a):
        a[0] = helper(a)
    """
    error = compile_error(tmp_path, source)
    assert (error.msg, error.lineno, error.col_offset) == (
        "the '@' operator is not supported in kernels", 3, 11)


def test_ambiguous_lambdas_and_non_functions_cannot_be_compiled():
    twins = (lambda x: x, lambda x: -x)
    with pytest.raises(CompileError, match="2 lambdas with these parameters are on that line"):
        frontend.build_module(twins[1])
    assert "(return@" in frontend.build_module(lambda y: y)  # one on its line: its body
    with pytest.raises(TypeError, match="expected a Python function"):
        frontend.build_module(len)


def test_function_without_source_raises_compile_error():
    # Compiled from a syntax tree: Python saw no text (exec of a string is fine, see
    # test_exec_sources.py).
    import ast

    namespace: dict = {}
    exec(compile(ast.parse("def k(a):\n    pass\n"), "<ast>", "exec"), namespace)
    with pytest.raises(CompileError, match="cannot read the source of 'k'"):
        frontend.build_module(namespace["k"])


# --------------------------------------------------------------------------
# CompileError itself

def test_compile_error_str_shows_file_line_col_source_and_caret(tmp_path):
    path = tmp_path / "src.py"
    path.write_text("def k(a):\n    x = a @ a\n")
    error = CompileError("the '@' operator is not supported", str(path), 2, 8)
    assert str(error) == (f"{path}:2:9: the '@' operator is not supported\n"
                          "    x = a @ a\n"
                          "        ^")


def test_compile_error_caret_counts_characters_not_utf8_bytes(tmp_path):
    path = tmp_path / "src.py"
    path.write_text("x = '\u00e9\u00e9' + y\n", encoding="utf-8")
    error = CompileError("bad", str(path), 1, 13)  # ast's byte offset of `y`
    assert str(error).splitlines()[2] == "    " + " " * 11 + "^"


def test_compile_error_without_location_is_just_the_message():
    assert str(CompileError("no location")) == "no location"
    assert str(CompileError("no line", "f.py")) == "f.py: no line"


def test_compile_error_keeps_its_four_fields_through_pickling():
    error = pickle.loads(pickle.dumps(CompileError("m", "f.py", 3, 4)))
    assert (error.msg, error.filename, error.lineno, error.col_offset) == ("m", "f.py", 3, 4)


def test_other_error_classes_have_the_expected_bases():
    assert issubclass(errors.CudaDriverError, RuntimeError)
    assert issubclass(errors.CudaSupportError, RuntimeError)
    assert issubclass(errors.PerformanceWarning, UserWarning)
    assert errors.NumbaPerformanceWarning is errors.PerformanceWarning


# --------------------------------------------------------------------------
# Types

@pytest.mark.parametrize("t, spelling", [
    (cjtypes.bool_, "bool"), (cjtypes.boolean, "bool"), (cjtypes.int8, "int8"),
    (cjtypes.uint64, "uint64"), (cjtypes.intp, "int64"), (cjtypes.float_, "float32"),
    (cjtypes.double, "float64"), (cjtypes.complex64, "complex64"),
    (cjtypes.c16, "complex128"), (cjtypes.void, "none"),
    (cjtypes.float32[::1], "array(float32, 1d, C)"),
    (cjtypes.float32[:], "array(float32, 1d, A)"),
    (cjtypes.int16[:, ::1], "array(int16, 2d, C)"),
    (cjtypes.int16[::1, :], "array(int16, 2d, F)"),
    (cjtypes.uint8[:, :], "array(uint8, 2d, A)"),
    (cjtypes.bool_[:, :, :, ::1], "array(bool, 4d, C)"),
    (cjtypes.float32[:].copy(readonly=True), "readonly array(float32, 1d, A)"),
    (cjtypes.Tuple([cjtypes.int64, cjtypes.int64]), "UniTuple(int64 x 2)"),
    (cjtypes.Tuple([cjtypes.int64, cjtypes.float32]), "Tuple(int64, float32)"),
])
def test_type_spellings_match_the_compiler(t, spelling):
    assert str(t) == spelling


def test_array_type_properties_and_copy():
    t = cjtypes.float64[:, ::1]
    assert (t.dtype, t.ndim, t.layout, t.readonly) == (cjtypes.float64, 2, "C", False)
    readonly = t.copy(readonly=True)
    assert readonly.readonly and not readonly.mutable and readonly != t
    assert readonly.copy(readonly=False) == t
    assert hash(cjtypes.float64[:, ::1]) == hash(t)


@pytest.mark.parametrize("make", [
    lambda: cjtypes.float32[1],
    lambda: cjtypes.float32[::2],
    lambda: cjtypes.float32[:, ::1, :],
    lambda: cjtypes.float32[::1, ::1],
    lambda: cjtypes.float32[:, :, :, :, :, :, :, :, :],
])
def test_bad_array_type_subscripts_raise_type_error(make):
    with pytest.raises(TypeError):
        make()


def test_calling_types_with_types_makes_a_signature():
    sig = cjtypes.void(cjtypes.float32[::1], cjtypes.float32)
    assert sig.return_type == cjtypes.none
    assert sig.args == (cjtypes.float32[::1], cjtypes.float32)
    assert str(sig) == "(array(float32, 1d, C), float32) -> none"
    assert cjtypes.float32(cjtypes.float32, cjtypes.float32).return_type == cjtypes.float32


def test_calling_a_scalar_type_with_a_value_converts_like_numpy():
    value = cjtypes.float32(1.1)
    assert type(value) is np.float32 and value == np.float32(1.1)
    assert type(cjtypes.int8(5)) is np.int8


# Stand-ins for Numba's type objects (Numba is not a dependency): what from_numba reads of
# them is their module, str(), and an Array's dtype/ndim/layout/mutable, a tuple's types, a
# Signature's args/return_type.
def _numba_class(name, **members):
    return type(name, (), dict(members, __module__="numba.core.types.npytypes"))


NumbaScalar = _numba_class("Float", __init__=lambda self, n: setattr(self, "name", n),
                           __str__=lambda self: self.name)
NumbaArray = _numba_class("Array", __init__=lambda self, dtype, ndim, layout, mutable=True:
                          self.__dict__.update(dtype=dtype, ndim=ndim, layout=layout,
                                               mutable=mutable))
NumbaTuple = _numba_class("UniTuple", __init__=lambda self, types: setattr(self, "types", types))
NumbaSignature = _numba_class("Signature", __init__=lambda self, rt, args:
                              self.__dict__.update(return_type=rt, args=args))


def test_numba_type_objects_make_cudajit_types_and_signatures():
    f32, i64, none = NumbaScalar("float32"), NumbaScalar("int64"), NumbaScalar("none")
    array = NumbaArray(f32, 2, "C", mutable=False)
    assert cjtypes.from_numba(array) == cjtypes.Array(cjtypes.float32, 2, "C", readonly=True)
    assert cjtypes.from_numba(NumbaTuple((i64, f32))) == cjtypes.Tuple([cjtypes.int64,
                                                                        cjtypes.float32])
    sig = cjtypes.parse_signature(NumbaSignature(none, (array, i64)))
    assert str(sig) == "(readonly array(float32, 2d, C), int64) -> none"
    assert str(cjtypes.parse_signature((array, f32))) == \
        "(readonly array(float32, 2d, C), float32)"
    assert str(cjtypes.void(NumbaArray(f32, 1, "A"))) == "(array(float32, 1d, A)) -> none"
    with pytest.raises(TypeError, match="is not a type"):
        cjtypes.parse_signature((NumbaScalar("float128"),))
    # Numba prints its boolean "bool"
    assert cjtypes.from_numba(NumbaArray(NumbaScalar("bool"), 1, "C")) == cjtypes.bool_[::1]
    assert cjtypes.parse_signature(NumbaSignature(NumbaScalar("bool"), (i64,))).return_type == \
        cjtypes.bool_


def test_cudajit_types_equal_the_numba_types_they_stand_for():
    # compile_ptx's return type against numba.cuda.types' (numba-cuda's tests compare them)
    assert cjtypes.uint8 == NumbaScalar("uint8") and cjtypes.bool_ == NumbaScalar("bool")
    assert cjtypes.uint8 != NumbaScalar("int8") and cjtypes.float32 != NumbaScalar("float128")
    assert cjtypes.float32[:, ::1] == NumbaArray(NumbaScalar("float32"), 2, "C")
    assert cjtypes.float32[:, ::1] != NumbaArray(NumbaScalar("float32"), 2, "A")
    assert cjtypes.int64 != "int64"  # only Numba's objects


NumbaRecord = _numba_class("Record", __init__=lambda self, dtype: setattr(self, "dtype", dtype))


def test_numba_record_types_make_cudajit_records():
    dtype = np.dtype([("a", np.float64), ("b", np.int32, 2)], align=True)
    record = cjtypes.from_numba(NumbaRecord(dtype))
    assert record == cjtypes.Record(dtype)
    assert cjtypes.from_numba(NumbaArray(NumbaRecord(dtype), 1, "C")) == record[::1]


def test_parse_signature_accepts_strings_signatures_and_tuples():
    expected = cjtypes.void(cjtypes.float32[::1], cjtypes.float32)
    assert cjtypes.parse_signature("void(float32[::1], float32)") == expected
    assert cjtypes.parse_signature(expected) is expected
    args_only = cjtypes.parse_signature((cjtypes.int32, cjtypes.float64[:, :]))
    assert args_only.return_type is None
    assert args_only.args == (cjtypes.int32, cjtypes.float64[:, :])
    assert cjtypes.parse_signature(["int32", "float32[::1]"]).args == \
        (cjtypes.int32, cjtypes.float32[::1])
    assert cjtypes.parse_signature("(int32, float32)").args == (cjtypes.int32, cjtypes.float32)


@pytest.mark.parametrize("bad", [
    "void(float32[::1]", "float32", "void(unknown_type)", "__import__('os')", 42, [1, 2],
])
def test_parse_signature_rejects_what_is_not_a_signature(bad):
    with pytest.raises(TypeError, match="expected a signature such as"):
        cjtypes.parse_signature(bad)


@pytest.mark.parametrize("array, expected", [
    (np.zeros((), np.float64), "array(float64, 0d, C)"),  # Numba's 0-d array
    (np.zeros(4, np.float32), "array(float32, 1d, C)"),
    (np.zeros((2, 3), np.int64), "array(int64, 2d, C)"),
    (np.zeros((2, 3), np.uint8, order="F"), "array(uint8, 2d, F)"),
    (np.zeros(8, np.complex64)[::2], "array(complex64, 1d, A)"),
    (np.zeros((4, 4), np.float64)[:, 1:3], "array(float64, 2d, A)"),
    (np.zeros((1, 2, 3, 4), np.bool_), "array(bool, 4d, C)"),
])
def test_typeof_numpy_arrays(array, expected):
    assert str(cjtypes.typeof(array)) == expected


def test_typeof_read_only_array_is_readonly():
    array = np.zeros((2, 2), np.int16, order="F")
    array.flags.writeable = False
    assert str(cjtypes.typeof(array)) == "readonly array(int16, 2d, F)"


@pytest.mark.parametrize("array, message", [
    (np.zeros((1,) * 9, np.float32), "0 to 8 dimensions; got 9"),
    (np.zeros(3, np.longdouble), "unsupported array dtype float128; expected one of bool, int8"),
    (np.zeros(3, ">f4"), "array dtype must have the native byte order; got '>f4'"),
    (np.zeros(3, object), "unsupported array dtype object"),
])
def test_typeof_rejects_unsupported_arrays(array, message):
    with pytest.raises(TypeError, match=message.replace("(", r"\(")):
        cjtypes.typeof(array)


@pytest.mark.parametrize("value, expected", [
    (True, "bool"), (np.bool_(False), "bool"), (3, "int64"), (2**63, "uint64"),
    (1.5, "float64"), (1j, "complex128"), (np.float32(1), "float32"),
    (np.float64(1), "float64"), (np.uint16(1), "uint16"), (np.complex64(1), "complex64"),
    ((1, 2), "UniTuple(int64 x 2)"), ((1, 2.0), "Tuple(int64, float64)"),
])
def test_typeof_scalars(value, expected):
    assert str(cjtypes.typeof(value)) == expected


@pytest.mark.parametrize("value", ["text", None, 2**64, [1.0]])
def test_typeof_rejects_other_values(value):
    with pytest.raises(TypeError):
        cjtypes.typeof(value)


def test_from_dtype():
    assert cjtypes.from_dtype(np.dtype("float32")) is cjtypes.float32
    assert cjtypes.from_dtype(np.int64) is cjtypes.int64
    assert cjtypes.from_dtype("?") is cjtypes.bool_
    assert str(cjtypes.from_dtype(np.dtype("datetime64[s]"))) == "datetime64[s]"
    assert cjtypes.from_dtype("m8") is cjtypes.TIMEDELTA_TYPES[-1]  # the generic unit
    with pytest.raises(TypeError, match="unsupported dtype"):
        cjtypes.from_dtype(np.dtype("<U3"))


def test_jit_takes_a_numba_signature_object():
    import cudajit

    sig = NumbaSignature(NumbaScalar("none"), (NumbaArray(NumbaScalar("float64"), 1, "C"),))
    kernel = cudajit.jit(sig)(lambda_free_kernel)
    assert kernel.signatures == [("array(float64, 1d, C)",)]


def lambda_free_kernel(values):
    values[0] = 1.0
