"""On the cpu device, a device function whose loop threads leave at different iterations
(`return n` inside the loop, an escape-time function) is inlined where the kernel calls it as a
whole statement, at its top level or in an `if` without else, so that its loop runs in
lockstep as the kernel's own would: each `return` becomes the result and a `break`, the
statements after the loop run where no return was taken. It stands only where the kernel,
typed again, keeps every inlined name's type and runs the loop in lockstep. Complex arithmetic
runs in lockstep too (a complex variable kept per thread is two arrays, its real and its
imaginary parts); a loop that passes a complex number to a function (abs() is hypot) stays each
thread's own. Every kernel runs on both devices against NumPy."""

import math

import numpy as np
import pytest

import cudajit as cuda

from conftest import cpu_dump_paths, needs_lockstep
from test_cpu_lockstep_loops import check_escape_times

pytestmark = pytest.mark.usefixtures("device")


@cuda.jit(device=True)
def escape_time(cr, ci, max_iter):
    zr = np.float32(0.0)
    zi = np.float32(0.0)
    for n in range(max_iter):
        zr2 = zr * zr
        zi2 = zi * zi
        if zr2 + zi2 > 4.0:
            return n
        zi = np.float32(2.0) * zr * zi + ci
        zr = zr2 - zi2 + cr
    return max_iter


@cuda.jit
def escape_times_by_function(out, iters):
    col, row = cuda.grid(2)
    rows, cols = out.shape
    if row < rows and col < cols:
        cr = np.float32(-2.0 + 3.0 * col / cols)
        ci = np.float32(-1.0 + 2.0 * row / rows)
        out[row, col] = escape_time(cr, ci, iters)


@pytest.mark.parametrize("block", [(32, 8), (7, 3), (64, 1)])
def test_an_escape_time_function_called_in_an_if(device, block):
    check_escape_times(escape_times_by_function, device, block)


@cuda.jit(device=True)
def newton_sqrt(x, tol):
    g = x if x > 1.0 else 1.0
    steps = 0
    while True:  # returns from an `if` inside an `if`, a value of another type at the end
        nxt = 0.5 * (g + x / g)
        steps += 1
        if abs(nxt - g) < tol:
            if steps > 1:
                return nxt
        g = nxt
        if steps == 60:
            break
    return -1.0 * steps


@cuda.jit
def roots_at_top_level(a, out, steps):
    i = cuda.grid(1)
    n = i % 3  # a kernel name the function also uses, kept apart
    r = newton_sqrt(a[min(i, a.size - 1)] + n, 1e-12)
    if i < a.size:
        out[i] = r
        steps[i] = n


@pytest.mark.parametrize("block", [64, 37, 256])
def test_a_newton_iteration_called_at_the_top_level(block):
    a = np.random.default_rng(block).random(500) * 1e4
    out = np.zeros_like(a)
    steps = np.full(a.size, -1)
    roots_at_top_level[(a.size + block - 1) // block, block](a, out, steps)
    n = np.arange(a.size) % 3
    np.testing.assert_allclose(out, np.sqrt(a + n), rtol=1e-12)
    np.testing.assert_array_equal(steps, n)


@cuda.jit(device=True)
def halvings(x, limit):
    count = 0
    while x > limit:  # assigns its parameter: bound to a variable of its own
        x = x * 0.5
        count += 1
        if count >= 40:
            return count
    return count


@cuda.jit
def two_calls_after_an_early_return(a, out):
    i = cuda.grid(1)
    if i >= a.size:
        return
    first = halvings(a[i], 1.0)
    second = halvings(a[i] * 3.0, first + 0.5)
    out[i] = 100 * first + second


def halvings_reference(x, limit):
    count = 0
    while x > limit:
        x *= 0.5
        count += 1
        if count >= 40:
            return count
    return count


def test_two_calls_after_an_early_return_each_their_own():
    a = np.concatenate([np.random.default_rng(5).random(150) * 1e6, [0.25, 1e15]])
    out = np.zeros(a.size, np.int64)
    two_calls_after_an_early_return[(a.size + 63) // 64, 64](a, out)
    want = []
    for x in a:
        first = halvings_reference(x, 1.0)
        want.append(100 * first + halvings_reference(x * 3.0, first + 0.5))
    np.testing.assert_array_equal(out, want)


@cuda.jit
def calls_inside_expressions(a, out, scaled):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = 100 * halvings(a[i], 1.0) + halvings(a[i] * 3.0, 2.0)  # both inlined
        root = newton_sqrt(a[i], 1e-12) if a[i] > 0.5 else 0.0  # conditional: stays a call
        scaled[i] = root


def test_calls_inside_an_expression_run_in_the_order_written():
    a = np.concatenate([np.random.default_rng(8).random(90) * 1e5, [0.25, 3.0]])
    out = np.zeros(a.size, np.int64)
    scaled = np.zeros(a.size)
    calls_inside_expressions[(a.size + 31) // 32, 32](a, out, scaled)
    want = [100 * halvings_reference(x, 1.0) + halvings_reference(x * 3.0, 2.0) for x in a]
    np.testing.assert_array_equal(out, want)
    np.testing.assert_allclose(scaled, np.where(a > 0.5, np.sqrt(a), 0.0), rtol=1e-12)


@cuda.jit(device=True)
def collatz_marked(x, marks, i):
    n = 0
    while x != 1:
        x = x // 2 if x % 2 == 0 else 3 * x + 1
        n += 1
    marks[i] += 1  # writes memory: inside an expression it must run where the call stands
    return n


@cuda.jit
def marks_read_before_the_call(start, marks, out):
    i = cuda.grid(1)
    if i < start.size:
        out[i] = 1000 * marks[i] + collatz_marked(start[i], marks, i)


def test_a_function_that_writes_memory_runs_after_what_the_expression_read_first():
    start = np.arange(1, 101)
    marks = np.full(start.size, 4)
    out = np.zeros(start.size, np.int64)
    marks_read_before_the_call[4, 32](start, marks, out)
    steps = []
    for x in start:
        n = 0
        while x != 1:
            x = x // 2 if x % 2 == 0 else 3 * x + 1
            n += 1
        steps.append(n)
    np.testing.assert_array_equal(out, 4000 + np.array(steps))
    np.testing.assert_array_equal(marks, 5)


@cuda.jit(device=True)
def complex_escape(c, max_iter):
    z = 0j
    for n in range(max_iter):
        if abs(z) > 2.0:  # hypot: each thread's own loop
            return n
        z = z * z + c
    return max_iter


@cuda.jit
def complex_escape_times(out):
    col, row = cuda.grid(2)
    rows, cols = out.shape
    if row < rows and col < cols:
        c = complex(-2.0 + 3.0 * col / cols, -1.25 + 2.5 * row / rows)
        out[row, col] = complex_escape(c, 50)


def complex_escape_reference(rows, cols, escapes):
    """complex_escape_times' counts, `escapes(z)` the test of a point that left."""
    col, row = np.meshgrid(np.arange(cols), np.arange(rows))
    c = (-2.0 + 3.0 * col / cols) + 1j * (-1.25 + 2.5 * row / rows)
    z = np.zeros_like(c)
    want = np.full(c.shape, 50, np.int32)
    escaped = np.zeros(c.shape, bool)
    for n in range(50):
        now = ~escaped & escapes(z)
        want[now] = n
        escaped |= now
        z = np.where(escaped, z, z * z + c)
    return want


def test_a_complex_escape_time_function_stays_each_threads_own():
    out = np.zeros((20, 30), np.int32)
    complex_escape_times[(2, 3), (16, 8)](out)
    np.testing.assert_array_equal(out, complex_escape_reference(20, 30, lambda z: np.abs(z) > 2))


@cuda.jit(device=True)
def complex_escape_by_parts(c, max_iter):
    z = 0j
    for n in range(max_iter):
        if z.real * z.real + z.imag * z.imag > 4.0:  # arithmetic alone: lockstep
            return n
        z = z * z + c
    return max_iter


@cuda.jit
def complex_escape_times_by_parts(out):
    col, row = cuda.grid(2)
    rows, cols = out.shape
    if row < rows and col < cols:
        c = complex(-2.0 + 3.0 * col / cols, -1.25 + 2.5 * row / rows)
        out[row, col] = complex_escape_by_parts(c, 50)


@pytest.mark.parametrize("block", [(16, 8), (5, 3)])
def test_a_complex_escape_time_by_its_parts(block):
    rows, cols = 20, 30
    out = np.zeros((rows, cols), np.int32)
    grid = ((cols + block[0] - 1) // block[0], (rows + block[1] - 1) // block[1])
    complex_escape_times_by_parts[grid, block](out)
    want = complex_escape_reference(rows, cols, lambda z: z.real * z.real + z.imag * z.imag > 4)
    np.testing.assert_array_equal(out, want)


@cuda.jit
def decays_in_the_kernel(a, out):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        n = 0
        while x > 0.1:  # a call of the C library's exp in each lane: lockstep all the same
            x = x * math.exp(-0.25)
            n += 1
        out[i] = n


def test_a_loop_calling_a_library_math_function():
    a = np.random.default_rng(9).random(300) * 50
    out = np.zeros(a.size, np.int64)
    decays_in_the_kernel[5, 64](a, out)
    want = []
    for x in a:
        n = 0
        while x > 0.1:
            x = x * math.exp(-0.25)
            n += 1
        want.append(n)
    np.testing.assert_array_equal(out, want)


PATHS = """import math
import numpy as np
import cudajit as cuda


{kernels}
escape_times_by_function[(1, 1), (8, 8)](np.zeros((8, 8), np.int32), 10)
complex_escape_times_by_parts[(1, 1), (8, 8)](np.zeros((8, 8), np.int32))
roots_at_top_level[1, 32](np.arange(32.0), np.zeros(32), np.zeros(32, np.int64))
complex_escape_times[(1, 1), (8, 8)](np.zeros((8, 8), np.int32))
two_calls_after_an_early_return[1, 32](np.arange(30.0), np.zeros(30, np.int64))
decays_in_the_kernel[1, 32](np.arange(32.0), np.zeros(32, np.int64))
calls_inside_expressions[1, 32](np.arange(32.0), np.zeros(32, np.int64), np.zeros(32))
"""


@needs_lockstep
def test_the_dump_names_the_inlined_loop(tmp_path):
    names = ("escape_time", "newton_sqrt", "halvings", "complex_escape", "complex_escape_by_parts",
             "complex_escape_times_by_parts",
             "escape_times_by_function", "roots_at_top_level", "complex_escape_times",
             "two_calls_after_an_early_return", "decays_in_the_kernel",
             "calls_inside_expressions")
    paths = cpu_dump_paths(tmp_path, __file__, names, PATHS)
    lines = [text.strip() for text in (tmp_path / "kernels.py").read_text().splitlines()]

    def line(text, after=""):  # the script's line that starts with `text` (after `after`)
        first = next(k for k, s in enumerate(lines) if s.startswith(after))
        return 1 + next(k for k, s in enumerate(lines) if k >= first and s.startswith(text))

    escape = line("for n in range(max_iter):")  # the device function's loop
    newton = line("while True:")
    assert f"lockstep loops (line {escape})" in paths["escape_times_by_function"]
    assert f"lockstep loops (line {newton})" in paths["roots_at_top_level"]
    assert paths["complex_escape_times"].startswith("thread loops: no barrier")
    by_parts = line("for n in range(max_iter):", after="def complex_escape_by_parts(")
    assert f"lockstep loops (line {by_parts})" in paths["complex_escape_times_by_parts"]
    assert "lockstep loops (line" in paths["decays_in_the_kernel"]
    halving = line("while x > limit:")  # inlined twice, one loop each
    assert f"lockstep loops (line {halving} {halving})" in paths["two_calls_after_an_early_return"]
    assert f"lockstep loops (line {halving} {halving})" in paths["calls_inside_expressions"]
