"""What each Python version adds to the language the front end reads (issue 27).

This file runs on every Python cudajit supports (make test-pythons runs the suite on 3.11,
3.13 and Debian unstable's newest); a case whose syntax the running Python lacks is skipped
with the version it needs. Kernels are written to a file and imported, as a user's are."""

import importlib.util
import itertools
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import cudajit as cuda
from cudajit.errors import CompileError

PYTHON_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")

_modules = itertools.count()


def needs(major: int, minor: int):
    return pytest.mark.skipif(sys.version_info < (major, minor),
                              reason=f"Python {major}.{minor}'s syntax")


def load(tmp_path, source: str):
    """The module that `source` (imports of numpy and cudajit prepended) makes, from a file."""
    path = tmp_path / f"kernels_{next(_modules)}.py"
    path.write_text("import numpy as np\nimport cudajit as cuda\n\n" + textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compile_error(kernel, *args) -> CompileError:
    with pytest.raises(CompileError) as info:
        kernel[1, 1](*args)
    return info.value


@needs(3, 12)
def test_a_generic_kernel_compiles_its_type_parameters_aside(tmp_path, device):
    module = load(tmp_path, """
        @cuda.jit
        def k[T](a: T):
            a[0] = 42
    """)
    values = np.zeros(2)
    module.k[1, 1](values)
    assert values.tolist() == [42.0, 0.0]


@needs(3, 12)
def test_an_edited_generic_kernel_is_still_refused_as_not_the_loaded_code(tmp_path):
    module = load(tmp_path, """
        @cuda.jit
        def k[T](a: T):
            a[0] = 1
    """)
    path = module.__file__
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text.replace("a[0] = 1", "a[0] = 100"))
    import linecache
    linecache.checkcache(path)
    error = compile_error(module.k, np.zeros(1))
    assert "is not the code Python loaded" in error.msg


@needs(3, 12)
def test_a_type_statement_in_a_kernel_is_a_compile_error_at_it(tmp_path):
    module = load(tmp_path, """
        @cuda.jit
        def k(a):
            type Pair = tuple[int, int]
            a[0] = 1
    """)
    error = compile_error(module.k, np.zeros(1))
    assert "type aliases (type X = ...) are not supported in kernels" in error.msg
    assert (error.lineno, error.col_offset) == (7, 4)


@needs(3, 12)
def test_an_f_string_reusing_its_quotes_is_a_compile_error_at_it(tmp_path):
    module = load(tmp_path, """
        @cuda.jit
        def k(a):
            b = f"{"nested"}"
    """)
    error = compile_error(module.k, np.zeros(1))
    assert "f-strings are not supported in kernels" in error.msg
    assert (error.lineno, error.col_offset) == (7, 8)


@needs(3, 14)
def test_a_template_string_in_a_kernel_is_a_compile_error_at_it(tmp_path):
    module = load(tmp_path, """
        @cuda.jit
        def k(a):
            b = t"{a}"
    """)
    error = compile_error(module.k, np.zeros(1))
    assert "template strings (t-strings) are not supported in kernels" in error.msg
    assert (error.lineno, error.col_offset) == (7, 8)


@needs(3, 14)
def test_a_parameter_annotated_with_a_name_defined_nowhere_binds_keywords(tmp_path, device):
    # 3.14 evaluates annotations only when asked: the def is legal, and a launch that binds
    # keywords must not evaluate them.
    module = load(tmp_path, """
        @cuda.jit
        def k(a: NotDefinedAnywhere, value: float):
            a[0] = value
    """)
    values = np.zeros(1)
    module.k[1, 1](a=values, value=3.0)
    assert values[0] == 3.0


def test_a_kernel_annotated_in_every_version_s_way_compiles(tmp_path, device):
    # Annotations are ignored by the front end: types come from the arguments.
    module = load(tmp_path, """
        @cuda.jit
        def k(a: "cuda.float64[:]", n: int) -> None:
            i: int = cuda.grid(1)
            if i < n:
                a[i] = i
    """)
    values = np.zeros(4)
    module.k[1, 4](values, 4)
    assert values.tolist() == [0.0, 1.0, 2.0, 3.0]


# --- Python 3.13's interactive prompt keeps what was typed -----------------------------

_PROGRAM = (
    "import numpy as np\n"
    "import cudajit as cuda\n"
    "@cuda.jit\n"
    "def typed(a):\n"
    "    a[0] = 42\n"
    "\n"
    "values = np.zeros(1)\n"
    "typed[1, 1](values)\n"
    "print('typed gave', values[0])\n"
)


def _type_at_the_prompt(program: str) -> str:
    """What the interactive prompt (on a terminal: 3.13's new prompt) prints when `program`
    is pasted into it, then exit() typed."""
    import pty
    import select
    import time

    env = dict(os.environ, CUDAJIT_DEVICE="cpu", TERM="xterm", PYTHON_COLORS="0")
    env.pop("PYTHON_BASIC_REPL", None)
    if "site-packages" not in cuda.__file__:  # this tree's cudajit, not an installed one
        env["PYTHONPATH"] = PYTHON_DIR + os.pathsep + os.environ.get("PYTHONPATH", "")
    main, terminal = pty.openpty()
    child = subprocess.Popen([sys.executable, "-q"], stdin=terminal, stdout=terminal,
                             stderr=terminal, env=env, start_new_session=True)
    os.close(terminal)
    fd = main
    output = b""
    # Pasted (bracketed paste) so that the prompt indents nothing itself, once the prompt reads
    # the terminal (it turns bracketed paste on: ESC[?2004h); then Enter once it has drawn the
    # paste's last line. 3.14's prompt takes an Enter read together with the paste's end as
    # part of the paste (a new line), and the block never runs.
    ready_mark = b"\x1b[?2004h"
    last_line = program.rstrip("\n").rsplit("\n", 1)[-1].encode()
    deadline = time.monotonic() + 120
    pasted_at = None
    sent_enter = sent_exit = False
    while time.monotonic() < deadline:
        if pasted_at is None and ready_mark in output:
            os.write(fd, b"\x1b[200~" + program.encode() + b"\x1b[201~")
            pasted_at = len(output)
        if pasted_at is not None and not sent_enter and last_line in output[pasted_at:]:
            os.write(fd, b"\r")
            sent_enter = True
        ready, _, _ = select.select([fd], [], [], 1.0)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
        # What the program printed (not the prompt's drawing of its text) ends the session.
        if sent_enter and not sent_exit and (b"typed gave 4" in output or b"Error" in output):
            os.write(fd, b"exit()\r")
            sent_exit = True
    child.kill()
    child.wait()
    os.close(fd)
    return output.decode(errors="replace")


@needs(3, 13)
def test_a_kernel_typed_at_python_313s_prompt_compiles():
    output = _type_at_the_prompt(_PROGRAM)
    assert "typed gave 42.0" in output, output
