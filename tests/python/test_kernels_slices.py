"""Slices of arrays in kernels: a[start:stop:step] and mixes such as a[i, ::2] are views,
as in Numba and NumPy (Python's clamping, negative bounds and steps); a slice of a shared,
local or constant array too; a number assigned to a slice is stored in every element."""

import itertools

import numpy as np
import pytest

import cudajit as cuda
from cudajit.errors import CompileError

from conftest import module_from_source

pytestmark = [pytest.mark.usefixtures("device"),
              pytest.mark.filterwarnings("ignore::cudajit.PerformanceWarning")]


@cuda.jit
def slice_1d(a, bounds, out, sizes):
    """Row r of `bounds` is (start, stop, step): out[r, :size] = a[start:stop:step]."""
    r = cuda.grid(1)
    if r < bounds.shape[0]:
        view = a[bounds[r, 0]:bounds[r, 1]:bounds[r, 2]]
        sizes[r] = view.size
        for k in range(view.size):
            out[r, k] = view[k]


def test_every_clamping_of_start_stop_and_step_matches_numpy():
    a = np.arange(10, dtype=np.int64) * 3
    values = [-12, -10, -3, -1, 0, 2, 5, 9, 10, 14]
    rows = list(itertools.product(values, values, [-3, -2, -1, 1, 2, 4]))
    bounds = np.array(rows, np.int64)
    out = np.full((len(rows), 10), -1, np.int64)
    sizes = np.zeros(len(rows), np.int64)
    slice_1d[(len(rows) + 63) // 64, 64](a, bounds, out, sizes)
    for r, (start, stop, step) in enumerate(rows):
        expected = a[start:stop:step]
        assert sizes[r] == expected.size, (start, stop, step)
        np.testing.assert_array_equal(out[r, :expected.size], expected, err_msg=str(rows[r]))


@cuda.jit(device=True)
def record(out, j, view):
    out[j, 0] = view.size
    out[j, 1] = view[0]
    out[j, 2] = view[view.size - 1]


def test_left_out_parts_and_constant_bounds():
    @cuda.jit
    def parts(a, out):
        if cuda.grid(1) == 0:
            record(out, 0, a[:])
            record(out, 1, a[3:])
            record(out, 2, a[:4])
            record(out, 3, a[::3])
            record(out, 4, a[::-1])
            record(out, 5, a[-2:])
            record(out, 6, a[:-7])

    a = np.arange(10.0)
    out = np.zeros((7, 3))
    parts[1, 1](a, out)
    for j, view in enumerate((a[:], a[3:], a[:4], a[::3], a[::-1], a[-2:], a[:-7])):
        np.testing.assert_array_equal(out[j], [view.size, view[0], view[-1]])


def test_two_dimensional_mixes_of_integers_and_slices_match_numpy():
    @cuda.jit
    def views(b, out):
        if cuda.grid(1) == 0:
            row = b[1, :]
            col = b[:, -2]
            block = b[1:, ::2]
            back = b[::-1, 1:3]
            for k in range(row.size):
                out[0, k] = row[k]
            for k in range(col.size):
                out[1, k] = col[k]
            for i in range(block.shape[0]):
                for j in range(block.shape[1]):
                    out[2 + i, j] = block[i, j]
            for i in range(back.shape[0]):
                for j in range(back.shape[1]):
                    out[4 + i, j] = back[i, j]

    b = np.arange(12.0).reshape(3, 4)
    out = np.zeros((7, 4))
    views[1, 1](b, out)
    np.testing.assert_array_equal(out[0], b[1, :])
    np.testing.assert_array_equal(out[1, :3], b[:, -2])
    np.testing.assert_array_equal(out[2:4, :2], b[1:, ::2])
    np.testing.assert_array_equal(out[4:7, :2], b[::-1, 1:3])


def test_a_number_assigned_to_a_slice_fills_it():
    @cuda.jit
    def fill(a, b):
        if cuda.grid(1) == 0:
            a[1:8:3] = 7
            a[-1:] = -2.5
            b[:, 1] = 9
            b[1:, 2:] = 0
            b[5:] = 1  # empty: nothing stored

    a, b = np.zeros(10), np.arange(12.0).reshape(3, 4)
    expected_a, expected_b = a.copy(), b.copy()
    expected_a[1:8:3] = 7
    expected_a[-1:] = -2.5
    expected_b[:, 1] = 9
    expected_b[1:, 2:] = 0
    fill[1, 1](a, b)
    np.testing.assert_array_equal(a, expected_a)
    np.testing.assert_array_equal(b, expected_b)


def test_slices_of_shared_and_dynamic_shared_memory():
    # numba-cuda's dynamic shared memory example: disjoint slices of one buffer.
    @cuda.jit
    def halves(x):
        dynsmem = cuda.shared.array(0, dtype=np.int32)
        first = dynsmem[0:1]
        rest = dynsmem[1:]
        first[0] = 1
        rest[0] = 2
        rest[1] = 3
        cuda.syncthreads()
        x[0] = dynsmem[0]
        x[1] = dynsmem[1]
        x[2] = dynsmem[2]
        x[3] = rest.size

    x = np.zeros(4, np.int32)
    halves[1, 1, 0, 4 * 5](x)
    np.testing.assert_array_equal(x, [1, 2, 3, 4])

    @cuda.jit
    def tiles(out):
        s = cuda.shared.array((4, 8), np.float32)
        t = cuda.threadIdx.x
        s[t // 8, t % 8] = t
        cuda.syncthreads()
        if t == 0:
            tile = s[1:3, 2:6]
            for i in range(tile.shape[0]):
                for j in range(tile.shape[1]):
                    out[i, j] = tile[i, j]

    out = np.zeros((2, 4), np.float32)
    tiles[1, 32](out)
    np.testing.assert_array_equal(out, np.arange(32, dtype=np.float32).reshape(4, 8)[1:3, 2:6])


@cuda.jit(device=True)
def total(view):
    s = 0.0
    for k in range(view.size):
        s += view[k]
    return s


def test_a_slice_passes_to_a_device_function_and_a_constant_array_slices():
    TABLE = np.arange(8.0)

    @cuda.jit
    def sums(a, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = total(a[i:]) + total(TABLE[::i + 1])

    a = np.arange(5.0)
    out = np.zeros(5)
    sums[1, 8](a, out)
    np.testing.assert_array_equal(out, [a[i:].sum() + np.arange(8.0)[::i + 1].sum()
                                        for i in range(5)])


@pytest.mark.parametrize("body, message", [
    ("a[1.5:3] = 0", r"slice bounds must be integers, got float64"),
    ("a[1:3] += 1", r"augmented assignment to a slice is not supported"),
    ("a[0, 1:] = 0", r"too many indices for array\(float64, 1d, C\): 2"),
    ("a[1:3] = a", r"only a number can be assigned to a slice .* got array\(float64, 1d, C\)"),
    ("x = 3\n    y = x[1:]", r"int64 cannot be sliced; only arrays can"),
])
def test_bad_slices_are_compile_errors_naming_what_was_given(tmp_path, body, message):
    module = module_from_source(tmp_path, "bad_slice", f"def kernel(a):\n    {body}\n")
    with pytest.raises(CompileError, match=message):
        cuda.jit(module.kernel)[1, 1](np.zeros(4))


def test_slice_kernels_assemble_with_ptxas(check_ptx):
    ptx, _ = cuda.compile_ptx(slice_1d.py_func, "void(int64[::1], int64[:, ::1], int64[:, ::1], "
                                                "int64[::1])")
    check_ptx(ptx)


@cuda.jit
def fill_columns(b, value):
    b[:, 1:3] = value


def test_slice_stores_assemble_with_ptxas(check_ptx):
    ptx, _ = cuda.compile_ptx(fill_columns.py_func, "void(float32[:, ::1], float32)")
    check_ptx(ptx)
    b = np.zeros((3, 4), np.float32)
    fill_columns[1, 1](b, np.float32(2.5))
    expected = np.zeros((3, 4), np.float32)
    expected[:, 1:3] = 2.5
    np.testing.assert_array_equal(b, expected)
