"""Operands run left to right, as in Python (and Numba): a device function that writes an array
runs after the reads written before it in the same expression, and before those after it."""

import numpy as np
import pytest

import cudajit as cuda

pytestmark = pytest.mark.usefixtures("device")


@cuda.jit(device=True)
def bump(marks, i):
    marks[i] += 1
    return 7


@cuda.jit(device=True)
def pair(a, b):
    return 1000 * a + b


@cuda.jit
def reads_around_a_call(marks, out):
    i = cuda.grid(1)
    if i < marks.size:
        out[i, 0] = 1000 * marks[i] + bump(marks, i)  # reads 4, then writes 5
        out[i, 1] = bump(marks, i) + 1000 * marks[i]  # writes 6, then reads it: 7 + 6000
        out[i, 2] = marks[i] < bump(marks, i) + marks[i] - 7  # 6 < 7 + 7 - 7
        out[i, 3] = pair(marks[i], bump(marks, i))  # arguments in order: 7, then 8
        out[i, 4] = marks[i]


def test_operands_and_arguments_run_left_to_right():
    marks = np.full(8, 4)
    out = np.zeros((8, 5), np.int64)
    reads_around_a_call[1, 8](marks, out)
    np.testing.assert_array_equal(out, np.tile([4007, 6007, 1, 7007, 8], (8, 1)))
    np.testing.assert_array_equal(marks, 8)
