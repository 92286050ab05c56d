"""Name resolution: module-level numeric constants and tuples (frozen at
compile time, as in Numba), closures, `cudajit` under any alias, names imported
from cudajit and math, and jitted functions reached through globals."""

import math
import math as m
from math import sqrt

import numpy as np
import pytest

import cudajit
import cudajit as cj
import cudajit as cuda
from cudajit import grid, gridsize

pytestmark = pytest.mark.usefixtures("device")

SCALE = 3
OFFSET = 0.5
BIG = 2**40
NEGATIVE = -7
ENABLED = True
ROTATION = 1j
WEIGHTS = (0.25, 0.5, 0.25)
SHAPE = (2, 3)
MIXED = (1, 2.5)
NESTED_LIMIT = SCALE * 2


@cuda.jit
def uses_numeric_globals(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * SCALE + OFFSET + NEGATIVE


def test_module_level_numeric_constants_are_usable():
    x = np.arange(5, dtype=np.float64)
    out = np.zeros(5)
    uses_numeric_globals[1, 8](x, out)
    np.testing.assert_array_equal(out, x * 3 + 0.5 - 7)


def test_int_bool_and_complex_constants_keep_their_types():
    @cuda.jit
    def k(iout, bout, cout):
        iout[0] = BIG * 4
        iout[1] = NESTED_LIMIT
        bout[0] = ENABLED and not False
        cout[0] = ROTATION * ROTATION

    iout = np.zeros(2, np.int64)
    bout = np.zeros(1, np.bool_)
    cout = np.zeros(1, np.complex128)
    k[1, 1](iout, bout, cout)
    np.testing.assert_array_equal(iout, [2**42, 6])
    assert bout[0]
    assert cout[0] == -1


def test_tuple_constant_indexed_by_literal_and_loop_variable_and_len():
    @cuda.jit
    def smooth(x, out):
        i = cuda.grid(1)
        if i < out.size:
            acc = 0.0
            for k in range(len(WEIGHTS)):
                acc += WEIGHTS[k] * x[i + k]
            out[i] = acc + WEIGHTS[0] - WEIGHTS[-1]

    x = np.arange(12, dtype=np.float64) ** 2
    out = np.zeros(10)
    smooth[1, 16](x, out)
    np.testing.assert_allclose(out, 0.25 * x[:-2] + 0.5 * x[1:-1] + 0.25 * x[2:], rtol=1e-15)


def test_tuple_constants_unpack():
    @cuda.jit
    def k(out):
        rows, cols = SHAPE
        a, b = MIXED
        out[0] = rows * 10 + cols
        out[1] = a + b

    out = np.zeros(2)
    k[1, 1](out)
    np.testing.assert_array_equal(out, [23.0, 3.5])


FROZEN = 10


def _reads_frozen(out):
    out[0] = FROZEN


def test_global_constants_are_frozen_when_the_kernel_is_compiled():
    global FROZEN
    kernel = cuda.jit(_reads_frozen)
    out = np.zeros(1, np.int64)
    kernel[1, 1](out)
    assert out[0] == 10
    FROZEN = 20
    try:
        kernel[1, 1](out)  # same argument types: the compiled kernel is reused
        assert out[0] == 10
    finally:
        FROZEN = 10


def make_scaler(factor):
    @cuda.jit
    def scale(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] * factor

    return scale


def test_closure_variables_are_frozen_per_kernel():
    x = np.arange(4, dtype=np.float64)
    out2 = np.zeros(4)
    out3 = np.zeros(4)
    make_scaler(2)[1, 4](x, out2)
    make_scaler(3.5)[1, 4](x, out3)
    np.testing.assert_array_equal(out2, x * 2)
    np.testing.assert_array_equal(out3, x * 3.5)


def test_closure_over_a_tuple_and_a_device_function():
    offsets = (-1, 0, 1)

    @cuda.jit(device=True)
    def weight(k):
        return 1.0 / (1 + k * k)

    @cuda.jit
    def blur(x, out):
        i = cuda.grid(1)
        if 0 < i < x.size - 1:
            acc = 0.0
            for k in range(3):
                acc += weight(offsets[k]) * x[i + offsets[k]]
            out[i] = acc

    x = np.arange(8, dtype=np.float64)
    out = np.zeros(8)
    blur[1, 8](x, out)
    expected = np.zeros(8)
    expected[1:-1] = 0.5 * x[:-2] + x[1:-1] + 0.5 * x[2:]
    np.testing.assert_allclose(out, expected, rtol=1e-15)


def test_local_constant_from_the_enclosing_test_is_captured():
    limit = 3

    @cuda.jit
    def k(x):
        i = cuda.grid(1)
        if i < x.size and x[i] > limit:
            x[i] = limit

    x = np.arange(6, dtype=np.int32)
    k[1, 8](x)
    np.testing.assert_array_equal(x, [0, 1, 2, 3, 3, 3])


# --- aliases -------------------------------------------------------------------


@cudajit.jit
def uses_plain_module_name(out):
    i = cudajit.grid(1)
    if i < out.size:
        out[i] = cudajit.threadIdx.x + cudajit.blockIdx.x * 100


@cj.jit
def uses_other_alias(out):
    i = cj.grid(1)
    if i < out.size:
        out[i] = cj.threadIdx.x + cj.blockIdx.x * 100


@cuda.jit
def uses_imported_names(out):
    i = grid(1)
    if i < out.size:
        out[i] = gridsize(1)


@pytest.mark.parametrize(
    "kernel", [uses_plain_module_name, uses_other_alias], ids=["cudajit", "cj"]
)
def test_cudajit_works_under_any_import_name(kernel):
    out = np.zeros(8, np.int64)
    kernel[2, 4](out)
    np.testing.assert_array_equal(out, [0, 1, 2, 3, 100, 101, 102, 103])


def test_names_imported_from_cudajit():
    out = np.zeros(6, np.int64)
    uses_imported_names[3, 2](out)
    np.testing.assert_array_equal(out, np.full(6, 6))


@cuda.jit
def uses_math_aliases(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = m.sqrt(x[i]) + sqrt(x[i]) + m.pi


def test_math_under_an_alias_and_imported_functions():
    x = np.array([1.0, 4.0, 9.0])
    out = np.zeros(3)
    uses_math_aliases[1, 4](x, out)
    np.testing.assert_array_equal(out, 2 * np.sqrt(x) + math.pi)


def test_numpy_alias_for_casts():
    @cuda.jit
    def k(x, out):
        out[0] = np.float32(x) * 2

    out = np.zeros(1)
    k[1, 1](0.1, out)
    assert out[0] == float(np.float32(0.1) * np.float32(2))


def test_kernel_arguments_shadow_globals():
    @cuda.jit
    def k(SCALE, out):
        out[0] = SCALE

    out = np.zeros(1, np.int64)
    k[1, 1](99, out)
    assert out[0] == 99


def test_local_variables_shadow_globals():
    @cuda.jit
    def k(out):
        OFFSET = 4
        out[0] = OFFSET

    out = np.zeros(1)
    k[1, 1](out)
    assert out[0] == 4.0
