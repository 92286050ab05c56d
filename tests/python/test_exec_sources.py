"""Kernels without a source file: defined by exec of a string (as Numba programs and
numba-cuda's tests generate them) or in the program of python -c. cudajit finds the text
Python compiled (exec_sources.py) and checks it against the function's bytecode."""

import os
import subprocess
import sys

import numpy as np
import pytest

import cudajit as cuda

pytestmark = [pytest.mark.usefixtures("device"),
              pytest.mark.filterwarnings("ignore::cudajit.PerformanceWarning")]

# Where the cudajit under test is (this tree's python/, or an installed wheel's site-packages).
PYTHON_DIR = os.path.dirname(os.path.dirname(cuda.__file__))

TEMPLATE = """
@cuda.jit(device=True)
def twice(v):
    return v * 2

def kernel(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = twice(x[i]) OP
"""


def make_kernel(op: str):
    namespace = {"cuda": cuda}
    exec(TEMPLATE.replace("OP", op), namespace)  # noqa: S102 - what the test is about
    return cuda.jit(namespace["kernel"])


def test_a_kernel_made_by_exec_compiles_with_its_device_function():
    x = np.arange(6.0)
    out = np.zeros(6)
    make_kernel("+ 1")[1, 8](x, out)
    np.testing.assert_array_equal(out, x * 2 + 1)


def test_kernels_of_one_name_from_different_strings_are_told_apart_by_their_bytecode():
    plus, minus = make_kernel("+ 1"), make_kernel("- 100")
    x = np.arange(4.0)
    out = np.zeros(4)
    minus[1, 4](x, out)
    np.testing.assert_array_equal(out, x * 2 - 100)
    plus[1, 4](x, out)
    np.testing.assert_array_equal(out, x * 2 + 1)


def test_a_lambda_made_by_exec_is_a_device_function():
    namespace = {"cuda": cuda}
    exec("add3 = cuda.jit(device=True)(lambda a: a + 3)\n"  # noqa: S102
         "def kernel(out):\n    out[0] = add3(out[0])\n", namespace)
    out = np.ones(1)
    cuda.jit(namespace["kernel"])[1, 1](out)
    assert out[0] == 4


PROGRAM = """
import numpy as np
import cudajit as cuda
@cuda.jit
def k(out):
    out[cuda.grid(1)] = cuda.grid(1) * 3
out = np.zeros(4)
k[1, 4](out)
print(out.tolist())
"""


def test_a_kernel_in_a_python_c_program_runs(device):
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR, CUDAJIT_DEVICE="cpu")
    result = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True,
                            timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[0.0, 3.0, 6.0, 9.0]"


def test_recording_can_be_turned_off():
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR, CUDAJIT_DEVICE="cpu", CUDAJIT_EXEC_SOURCES="0")
    program = ("import cudajit as cuda\n"
               "ns = {'cuda': cuda}\n"
               "exec('def k(out):\\n    out[0] = 1\\n', ns)\n"
               "try:\n    cuda.compile_ptx(ns['k'], 'void(float64[::1])')\n"
               "except cuda.CompileError as e:\n    print('refused:', e)\n")
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                            timeout=120, env=env)
    assert "refused:" in result.stdout and "cannot read the source of 'k'" in result.stdout, \
        result.stdout + result.stderr


def test_texts_from_one_template_that_differ_in_a_name_are_told_apart():
    # numba-cuda's atomics tests: the same text with cuda.atomic.max, then .min (one bytecode).
    def generate(func):
        namespace: dict = {}
        exec(f"def k(res, x):\n    {func}(res, 0, x[cuda.threadIdx.x])\n",  # noqa: S102
             {"cuda": cuda}, namespace)
        return cuda.jit(namespace["k"])

    largest, smallest = generate("cuda.atomic.max"), generate("cuda.atomic.min")
    x = np.array([3.0, 9.0, -2.0, 5.0])
    res = np.zeros(1)
    largest[1, 4](res, x)
    assert res[0] == 9.0
    smallest[1, 4](res, x)
    assert res[0] == -2.0


# --- the interactive prompt and python - < file ----------------------------------------

_TYPED_PROGRAM = """\
import numpy as np
import cudajit as cuda

@cuda.jit
def k(a):
    a[0] = 1

k[1, 1](np.zeros(1))
"""


@pytest.mark.parametrize("how", [["-"], ["-i"]], ids=["python - < file", "the 3.11 prompt"])
def test_a_kernel_without_source_text_says_what_to_do(how):
    if sys.version_info >= (3, 13) and how == ["-i"]:
        pytest.skip("Python 3.13's prompt keeps what was typed")
    result = subprocess.run([sys.executable, *how], input=_TYPED_PROGRAM + "\n",
                            capture_output=True, text=True, timeout=120,
                            env=dict(os.environ, PYTHONPATH=PYTHON_DIR, CUDAJIT_DEVICE="cpu"))
    assert "CompileError: <stdin>:" in result.stderr, result.stderr
    assert "cannot read the source of 'k' (it was typed at the interactive prompt or read " \
           "from standard input" in result.stderr
    assert "put it in a file and run it (python file.py) or import it" in result.stderr


def test_what_python_313s_prompt_keeps_in_linecache_is_compiled(monkeypatch):
    import linecache

    from cudajit import exec_sources

    text = "def typed(a):\n    a[0] = 42\n"
    scope = {}
    exec(compile(text, "<python-input-3>", "exec"), scope)  # as 3.13's prompt compiles it
    typed = scope["typed"]
    # Only the prompt's record has the text (not exec_sources', which would find it too).
    monkeypatch.setattr(exec_sources, "lines_for", lambda code: None)
    monkeypatch.setattr(linecache, "_getlines_from_code",
                        lambda code: text.splitlines(keepends=True)
                        if code is typed.__code__ else [], raising=False)
    values = cuda.to_device(np.zeros(2))
    cuda.jit(typed)[1, 1](values)
    assert values.copy_to_host().tolist() == [42.0, 0.0]
