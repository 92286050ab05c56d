"""Random kernels, each run by cudajit and by Python on the same data.

A seeded generator writes kernels from the language of the tests beside this
one: int64 arithmetic with Python's // and %, bitwise operators, min / max /
abs, conditional expressions, `and` / `or` / `not` and chained comparisons,
if / else, for loops over ranges with positive and negative steps, augmented
assignments, and array reads and writes at indices that are often negative
(wrapping from the end). Python runs the same source with `cuda.grid(1)`
standing for the thread index; a sample where Python raises (a zero divisor,
an index out of range) or leaves int64 is replaced by the seed's next one,
and cudajit's results must agree with Python's element for element (an
element of `b` that several threads write may hold any writer's last value).
Lowering decides per expression whether an index can be negative and
whether an operand may be evaluated early; these kernels are where such
decisions meet one another.

A second generator writes float64 kernels over a strided 2-d view: math
functions, while loops with break and continue, a device function, reads at
negative indices on both axes. Every kernel's PTX also goes through ptxas.
"""

import importlib.util
import random
import textwrap

import numpy as np
import pytest

import cudajit as cuda

pytestmark = pytest.mark.usefixtures("device")

THREADS = 12
SEEDS = range(40)


class _Generator:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.loops = 0  # loop variables k0 ... in scope

    def expr(self, depth):
        r = self.r
        if depth <= 0 or r.random() < 0.25:
            pick = r.random()
            if pick < 0.3:
                return str(r.randint(-5, 9))
            if pick < 0.6:
                return r.choice(["x", "y", "z", "i"])
            if pick < 0.75:
                return f"a[{self.index(depth - 1)}]"
            return r.choice(["n", "len(a)", "a.size", "a.shape[0]"])
        pick = r.random()
        if pick < 0.45:
            op = r.choice(["+", "-", "*", "//", "%", "&", "|", "^"])
            return f"({self.expr(depth - 1)} {op} {self.expr(depth - 1)})"
        if pick < 0.55:
            return f"({self.expr(depth - 1)} if {self.cond(depth - 1)} else {self.expr(depth - 1)})"
        if pick < 0.65:
            return f"{r.choice(['min', 'max'])}({self.expr(depth - 1)}, {self.expr(depth - 1)})"
        if pick < 0.75:
            return f"{r.choice(['abs', '-'])}({self.expr(depth - 1)})"
        if pick < 0.9:
            return f"({self.cond(depth - 1)} and {self.expr(depth - 1)} or {self.expr(depth - 1)})"
        return f"int({self.cond(depth - 1)})"

    def index(self, depth):
        r = self.r
        pick = r.random()
        if pick < 0.4:
            return f"({self.expr(depth)}) % n"
        if pick < 0.6:
            return f"-(({self.expr(depth)}) % n) - 1"
        if pick < 0.7:
            return r.choice(["i", "i - 1", "n - 1 - i", "-1 - i", "i // 2", "i % 3"])
        if pick < 0.8:  # variables: often negative, often out of range (then resampled)
            loop_variables = [f"k{j}" for j in range(self.loops)]
            return r.choice(["x", "y", "z", "x - i", "y * 2"] + loop_variables)
        return f"min(max({self.expr(depth)}, -n), n - 1)"

    def cond(self, depth):
        r = self.r
        pick = r.random()
        compare = r.choice(["<", "<=", ">", ">=", "==", "!="])
        if pick < 0.5 or depth <= 0:
            return f"{self.expr(depth)} {compare} {self.expr(depth)}"
        if pick < 0.7:
            return f"{self.expr(depth)} < {self.expr(depth)} <= {self.expr(depth)}"
        if pick < 0.85:
            op = r.choice(["and", "or"])
            return f"({self.cond(depth - 1)}) {op} ({self.cond(depth - 1)})"
        return f"not ({self.cond(depth - 1)})"

    def statements(self, depth):
        r = self.r
        lines = []
        for _ in range(r.randint(1, 3)):
            pick = r.random()
            if pick < 0.45 or depth <= 0:
                op = r.choice(["=", "=", "+=", "-=", "*=", "//=", "%="])
                lines.append(f"{r.choice(['x', 'y', 'z'])} {op} {self.expr(2)}")
            elif pick < 0.65:
                lines.append(f"if {self.cond(2)}:")
                lines += _indented(self.statements(depth - 1))
                if r.random() < 0.5:
                    lines.append("else:")
                    lines += _indented(self.statements(depth - 1))
            elif pick < 0.85:
                k = f"k{self.loops}"
                start, stop = r.randint(-4, 4), r.randint(-4, 6)
                lines.append(f"for {k} in range({start}, {stop}, {r.choice([1, 2, -1, -2])}):")
                self.loops += 1
                body = self.statements(depth - 1) + [f"x += a[{k}] + {k}"]
                self.loops -= 1
                lines += _indented(body)
            else:
                lines.append(f"b[{self.index(1)}] = {self.expr(1)}")
        return lines

    def kernel_source(self):
        body = ["x = i", "y = 1", "z = -2"] + self.statements(2) + ["out[i] = x * 7 + y * 3 + z"]
        return (
            "import cudajit as cuda\n\n\n"
            "def kernel(a, b, n, out):\n"
            "    i = cuda.grid(1)\n"
            "    if i < out.size:\n" + textwrap.indent("\n".join(body), " " * 8) + "\n"
        )


def _indented(lines):
    return ["    " + line for line in lines]


class _List(list):
    """A list with the array attributes the kernels read."""

    @property
    def size(self):
        return len(self)

    @property
    def shape(self):
        return (len(self),)


class _Writes(_List):
    """`b` as one thread sees it: zeros, recording the last value the thread
    writes to each element (b is write-only in these kernels)."""

    def __init__(self):
        super().__init__([0] * THREADS)
        self.last = {}

    def __setitem__(self, index, value):
        super().__setitem__(index, value)
        self.last[index % THREADS] = value


def _run_in_python(module, a):
    """Every thread of the kernel on lists; None when Python raises. Returns
    `out` and, per element of `b`, the values it may hold afterwards: threads
    writing one element race, and on a GPU any writer's last write may land
    (the simulator and the cpu device happen to run threads in order; the
    H200 did not). Unwritten elements stay 0."""
    a, out = _List(a), _List([0] * THREADS)
    possible = [set() for _ in range(THREADS)]
    for thread in range(THREADS):
        module.cuda.grid = lambda ndim, thread=thread: thread
        b = _Writes()
        try:
            module.kernel(a, b, THREADS, out)
        except (ZeroDivisionError, IndexError):
            return None
        for element, value in b.last.items():
            possible[element].add(value)
    return list(out), [values or {0} for values in possible]


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sample(seed, tmp_path):
    """The first kernel from `seed` for which Python neither raises (a zero
    divisor, an index out of range) nor leaves int64: (source, a, expected)."""
    for attempt in range(50):
        source = _Generator(seed * 1000 + attempt).kernel_source()
        path = tmp_path / f"random_kernel_{seed}_{attempt}.py"
        path.write_text(source)
        a = np.random.default_rng(seed).integers(-20, 21, THREADS).astype(np.int64)
        # Python's run gets a module of its own whose `cuda` is a stand-in.
        module = _load(path, f"random_kernel_{seed}_{attempt}_python")
        module.cuda = type("FakeCuda", (), {})()
        expected = _run_in_python(module, a.tolist())
        if expected is not None and all(
                abs(v) < 2**63 for v in expected[0] + [v for vs in expected[1] for v in vs]):
            return path, a, expected
    raise AssertionError(f"no usable kernel from seed {seed} in 50 attempts")


@pytest.mark.parametrize("seed", SEEDS)
def test_random_integer_kernel_agrees_with_python_and_assembles(seed, tmp_path, check_ptx):
    path, a, expected = _sample(seed, tmp_path)
    module = _load(path, path.stem)
    out = np.zeros(THREADS, np.int64)
    b = np.zeros(THREADS, np.int64)
    cuda.jit(module.kernel)[1, 16](a, b, THREADS, out)
    expected_out, possible_b = expected
    assert out.tolist() == expected_out, path.read_text()
    for element, value in enumerate(b.tolist()):
        assert value in possible_b[element], (
            f"b[{element}] = {value}, expected one of {sorted(possible_b[element])}\n"
            + path.read_text())
    ptx, _ = cuda.compile_ptx(module.kernel, "void(int64[::1], int64[::1], int64, int64[::1])")
    check_ptx(ptx)


# --- float64 kernels over a strided 2-d view -----------------------------------

ROWS, COLS = 4, 5
FLOAT_SEEDS = range(15)
MATH_1 = ["sin", "cos", "exp", "tanh", "atan", "sqrt", "log1p", "fabs", "floor", "ceil", "erf",
          "expm1", "asinh"]
MATH_2 = ["atan2", "hypot", "copysign", "pow", "fmod"]


class _FloatGenerator:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def expr(self, depth):
        r = self.r
        if depth <= 0 or r.random() < 0.25:
            pick = r.random()
            if pick < 0.3:
                return repr(round(r.uniform(-3, 3), 2))
            if pick < 0.6:
                return r.choice(["u", "v", "w"])
            row = r.choice(["i", "-1 - i", "i // 2"])
            return f"m[{row}, {r.choice(['j', 'j - 1', '-1', 'c - 1 - j'])}]"
        pick = r.random()
        if pick < 0.4:
            return f"({self.expr(depth - 1)} {r.choice(['+', '-', '*'])} {self.expr(depth - 1)})"
        if pick < 0.5:
            return f"({self.expr(depth - 1)} / (abs({self.expr(depth - 1)}) + 1.0))"
        if pick < 0.7:
            name, x = r.choice(MATH_1), self.expr(depth - 1)
            if name in ("sqrt", "log1p"):
                x = f"abs({x})"
            if name in ("exp", "expm1"):
                x = f"min({x}, 20.0)"
            return f"math.{name}({x})"
        if pick < 0.8:
            name, x, y = r.choice(MATH_2), self.expr(depth - 1), self.expr(depth - 1)
            if name == "pow":
                x, y = f"(abs({x}) + 0.5)", f"min(max({y}, -4.0), 4.0)"
            if name == "fmod":
                y = f"(abs({y}) + 0.5)"
            return f"math.{name}({x}, {y})"
        if pick < 0.9:
            e = [self.expr(depth - 1) for _ in range(4)]
            return f"({e[0]} if {e[1]} < {e[2]} else {e[3]})"
        return f"{r.choice(['min', 'max'])}({self.expr(depth - 1)}, {self.expr(depth - 1)})"

    def statements(self, depth):
        r = self.r
        lines = []
        for _ in range(r.randint(1, 3)):
            pick = r.random()
            if pick < 0.5 or depth <= 0:
                op = r.choice(["=", "+=", "-=", "*="])
                lines.append(f"{r.choice(['u', 'v', 'w'])} {op} {self.expr(2)}")
            elif pick < 0.7:
                lines.append(f"if {self.expr(1)} > {self.expr(1)}:")
                lines += _indented(self.statements(depth - 1))
                lines.append("else:")
                lines += _indented(self.statements(depth - 1))
            elif pick < 0.85:
                t = f"t{depth}"
                lines += [f"{t} = 0", f"while {t} < {r.randint(0, 4)}:", f"    {t} += 1"]
                lines += _indented(self.statements(depth - 1))
                lines += [f"    if u > {r.randint(2, 50)}.0:",
                          f"        {r.choice(['break', 'continue'])}"]
            else:
                lines.append(f"u = helper(u, m, {r.choice(['i', 'j'])})")
        return lines

    def kernel_source(self):
        body = (["u = m[i, j]", "v = 0.5", "w = -1.25"] + self.statements(2)
                + ["out[i, j] = u + 2.0 * v - w"])
        return (
            "import math\n\nimport cudajit as cuda\n\n\n"
            "@cuda.jit(device=True)\n"
            "def helper(x, mm, k):\n"
            "    if x > 1.0:\n"
            "        return x * 0.5 + mm[k % mm.shape[0], 0]\n"
            "    return x - 0.25\n\n\n"
            "def kernel(m, c, out):\n"
            "    i, j = cuda.grid(2)\n"
            "    if i < out.shape[0] and j < out.shape[1]:\n"
            + textwrap.indent("\n".join(body), " " * 8) + "\n"
        )


def _float_sample(seed, tmp_path, m):
    """The first float kernel from `seed` that Python runs without an error and
    with finite results: (path, expected)."""
    for attempt in range(50):
        source = _FloatGenerator(seed * 1000 + attempt).kernel_source()
        path = tmp_path / f"random_float_kernel_{seed}_{attempt}.py"
        path.write_text(source)
        module = _load(path, f"random_float_kernel_{seed}_{attempt}_python")
        module.helper = module.helper.py_func
        module.cuda = type("FakeCuda", (), {})()
        expected = np.zeros((ROWS, COLS))
        try:
            with np.errstate(all="raise"):
                for i in range(ROWS):
                    for j in range(COLS):
                        module.cuda.grid = lambda ndim, ij=(i, j): ij
                        module.kernel(m, COLS, expected)
        except (ZeroDivisionError, ValueError, OverflowError, FloatingPointError):
            continue
        if np.all(np.isfinite(expected)) and np.abs(expected).max() < 1e12:
            return path, expected
    raise AssertionError(f"no usable float kernel from seed {seed} in 50 attempts")


@pytest.mark.parametrize("seed", FLOAT_SEEDS)
def test_random_float_kernel_agrees_with_python_and_assembles(seed, tmp_path, check_ptx):
    m = np.random.default_rng(seed).uniform(-2, 2, (ROWS, COLS)).round(3)
    path, expected = _float_sample(seed, tmp_path, m)
    module = _load(path, path.stem)
    strided = np.zeros((ROWS * 2, COLS * 3))[::2, ::3]  # an "A" layout view
    strided[...] = m
    out = np.zeros((ROWS, COLS))
    cuda.jit(module.kernel)[(1, 2), (8, 4)](strided, COLS, out)
    np.testing.assert_allclose(out, expected, rtol=1e-9, atol=1e-9, err_msg=path.read_text())
    ptx, _ = cuda.compile_ptx(module.kernel, "void(float64[:, :], int64, float64[:, ::1])")
    check_ptx(ptx)
