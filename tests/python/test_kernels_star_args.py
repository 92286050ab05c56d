"""f(*t) of a tuple whose length only typing knows (a call's result, a tuple variable):
typing lines its items up with the parameters (IR `star`), for device functions and for
Python's and math's number functions. numba-cuda's TestCMath::test_polar
(`complex(*cmath.polar(z))`) among them."""

import cmath
import math

import numpy as np
import pytest

import cudajit as cuda

pytestmark = pytest.mark.usefixtures("device")


@cuda.jit(device=True)
def weigh(a, b, c):
    return a * 100 + b * 10 + c


@cuda.jit(device=True)
def pair(x):
    return (x, x + 1)


def test_tuples_from_calls_and_variables_unpack_into_arguments():
    @cuda.jit
    def kernel(z, rebuilt, out):
        i = cuda.grid(1)
        if i < z.size:
            rebuilt[i] = complex(*cmath.polar(z[i]))
            t = (1, 2)
            out[i, 0] = weigh(*t, i)
            out[i, 1] = weigh(i, *pair(i))
            out[i, 2] = max(*pair(i))
            out[i, 3] = math.hypot(*pair(3.0))
            out[i, 4] = weigh(*cuda.grid(2), i)  # (x, y): y is 0 in a 1-D launch

    z = np.array([1 + 2j, -3 + 0.5j, 2j, -1 - 1j])
    rebuilt = np.zeros(4, np.complex128)
    out = np.zeros((4, 5))
    kernel[1, 4](z, rebuilt, out)
    np.testing.assert_allclose(rebuilt, [complex(*cmath.polar(v)) for v in z], rtol=1e-14)
    i = np.arange(4)
    np.testing.assert_array_equal(out, np.stack(
        [120 + i, i * 110 + i + 1, i + 1, np.full(4, 5.0), 101 * i], axis=1))


@pytest.mark.parametrize("call, message", [
    ("weigh(*pair(1))", r"device function 'weigh' takes 3 arguments, got 2"),
    ("weigh(*a, 1, 2)", r"only a tuple can be unpacked into arguments \(\*\.\.\.\), got "
                        r"array\(float64, 1d, C\)"),
    ("print(*pair(1))", r"f\(\*t\) of a tuple known only when the kernel compiles works for "
                        r"device functions .* not for 'print'"),
    ("declared(*pair(1))", r"not for 'declared'"),
])
def test_what_cannot_be_unpacked_says_why(call, message, tmp_path):
    import importlib.util

    source = tmp_path / "star_kernels.py"
    source.write_text(
        "import cudajit as cuda\n"
        "from test_kernels_star_args import weigh, pair\n"
        "declared = cuda.jit('float64(float64, float64)', device=True)(lambda x, y: x + y)\n"
        "def kernel(a, out):\n"
        f"    out[0] = {call}\n")
    spec = importlib.util.spec_from_file_location("star_kernels", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(cuda.CompileError, match=message):
        cuda.jit(module.kernel)[1, 1](np.zeros(3), np.zeros(1))
