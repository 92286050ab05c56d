"""Loops' else clauses in kernels, as in Python: a for or while loop's else clause runs when
the loop ends without a break (a continue, or no iteration at all, still runs it; a return
skips it); a break in an inner loop ends that loop only, and leaves the outer loop's else
clause to run. Loops over a global tuple of NumPy arrays, and Numba's literal_unroll(t) of
one, are unrolled; range() inside enumerate() and zip() has Python's items and length. On
every device."""

import numpy as np
import pytest

import cudajit as cuda

pytestmark = pytest.mark.usefixtures("device")


@cuda.jit
def first_multiple(values, divisor, out):
    """out[i]: the index of the first multiple of divisor[i] in values, else -1."""
    i = cuda.grid(1)
    if i < out.size:
        for k in range(values.size):
            if values[k] % divisor[i] == 0:
                out[i] = k
                break
        else:
            out[i] = -1


def test_for_else_runs_when_the_loop_does_not_break():
    values = np.array([3, 5, 9, 14, 25], np.int64)
    divisor = np.array([3, 7, 11, 5, 13, 2], np.int64)
    out = np.zeros(6, np.int64)
    first_multiple[1, 32](values, divisor, out)
    assert out.tolist() == [0, 3, -1, 1, -1, 3]


@cuda.jit
def count_down(start, out):
    """out[0]: the steps a while loop takes from start[0] to 0, or -1 past 5 steps;
    out[1]: 1 when the else clause ran."""
    n = start[0]
    steps = 0
    while n > 0:
        n -= 1
        steps += 1
        if steps > 5:
            out[0] = -1
            break
    else:
        out[0] = steps
        out[1] = 1


@pytest.mark.parametrize("start, expected", [(3, [3, 1]), (0, [0, 1]), (9, [-1, 0])])
def test_while_else_runs_when_the_loop_does_not_break(start, expected):
    out = np.zeros(2, np.int64)
    count_down[1, 1](np.array([start], np.int64), out)
    assert out.tolist() == expected


@cuda.jit
def nested(limit, out):
    """The inner loop breaks at limit[0]; only the outer loop has an else clause."""
    for i in range(3):
        for j in range(4):
            if j == limit[0]:
                break
            out[0] += 1
    else:
        out[1] = 1


def test_a_break_in_an_inner_loop_leaves_the_outer_else_to_run():
    out = np.zeros(2, np.int64)
    nested[1, 1](np.array([2], np.int64), out)
    assert out.tolist() == [6, 1]


@cuda.jit
def both_with_else(limit, out):
    """Both loops have else clauses: the inner one's breaks skip its own only."""
    for i in range(3):
        for j in range(4):
            if i == limit[0]:
                break
            if j == 5:
                continue
        else:
            out[i] = 1
        if i == limit[1]:
            break
    else:
        out[3] = 1


@pytest.mark.parametrize("limit, expected", [
    ((1, 9), [1, 0, 1, 1]),  # the inner loop breaks at i == 1; the outer never
    ((9, 1), [1, 1, 0, 0]),  # the outer loop breaks at i == 1
    ((9, 9), [1, 1, 1, 1]),
])
def test_nested_else_clauses_belong_to_their_own_loops(limit, expected):
    out = np.zeros(4, np.int64)
    both_with_else[1, 1](np.array(limit, np.int64), out)
    assert out.tolist() == expected


@cuda.jit(device=True)
def index_of(values, wanted):
    for k in range(values.size):
        if values[k] == wanted:
            return k
    else:
        return -1


@cuda.jit
def find_each(values, wanted, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = index_of(values, wanted[i])


def test_a_return_in_the_loop_skips_the_else_clause():
    values = np.array([4.0, 2.0, 8.0])
    out = np.zeros(3, np.int64)
    find_each[1, 32](values, np.array([8.0, 5.0, 4.0]), out)
    assert out.tolist() == [2, -1, 0]


@cuda.jit
def over_arrays_and_tuples(a, out):
    for x in a:  # elements of an array, with a break
        if x < 0:
            break
    else:
        out[0] = 1
    for y in (1, 2.5, 3):  # a constant tuple, unrolled
        out[1] += y
    else:
        out[2] = 1


@pytest.mark.parametrize("a, expected", [([1.0, 2.0], [1, 6.5, 1]), ([1.0, -2.0], [0, 6.5, 1])])
def test_for_else_over_arrays_and_tuples(a, expected):
    out = np.zeros(3)
    over_arrays_and_tuples[1, 1](np.array(a), out)
    assert out.tolist() == expected


# --- loops over global tuples of arrays ------------------------------------------------

CASES = (np.array([1.0, 2.0, 3.0]), np.array([[4, 5], [6, 7]], np.int32),
         np.array([True, False]))
# Pairs of an array and a number.
SCALED = ((np.array([1.0, 2.0]), 3.0), (np.arange(6, dtype=np.int64).reshape(2, 3)[:, ::2], 2))


def literal_unroll(t):
    """A stand-in for Numba's literal_unroll, which the front end knows by its name and
    module (Numba is not installed where these tests run)."""
    return t


literal_unroll.__module__ = "numba.misc.special"


@cuda.jit
def sum_each(out):
    i = 0
    for case in literal_unroll(CASES):
        out[i] = np.sum(case)
        i += 1


@cuda.jit
def sum_each_directly(out):
    i = 0
    for case in CASES:  # items of different types: the loop is unrolled all the same
        out[i] = np.sum(case)
        i += 1
    else:
        out[i] = -1


@cuda.jit
def sum_scaled(out):
    i = 0
    for values, scale in literal_unroll(SCALED):
        out[i] = values.sum() * scale
        i += 1


def test_literal_unroll_of_a_global_tuple_of_arrays():
    out = np.zeros(3)
    sum_each[1, 1](out)
    assert out.tolist() == [6.0, 22.0, 1.0]
    out = np.zeros(4)
    sum_each_directly[1, 1](out)
    assert out.tolist() == [6.0, 22.0, 1.0, -1.0]


def test_literal_unroll_of_nested_tuples_of_arrays_and_numbers():
    out = np.zeros(2)
    sum_scaled[1, 1](out)
    assert out.tolist() == [9.0, 2 * (0 + 2 + 3 + 5)]


# --- ranges inside enumerate() and zip() ---------------------------------------------


@cuda.jit
def enumerate_a_range(bounds, out):
    start, stop, step = bounds[0], bounds[1], bounds[2]
    out[0] = 0
    for i, v in enumerate(range(start, stop, step)):
        out[1 + i] = v * 10 + i
        out[0] += 1


@pytest.mark.parametrize("bounds", [(0, 5, 1), (7, 2, -1), (7, 2, -2), (3, 3, 1), (5, 0, 1),
                                    (-4, 5, 3), (4, -5, -4)])
def test_enumerate_of_a_range_has_pythons_items_and_length(bounds):
    out = np.full(12, -1, np.int64)
    enumerate_a_range[1, 1](np.array(bounds, np.int64), out)
    expected = [v * 10 + i for i, v in enumerate(range(*bounds))]
    assert out[0] == len(expected)
    assert out[1:1 + len(expected)].tolist() == expected


@cuda.jit
def zip_ranges_and_arrays(a, out):
    for k, (j, x), y in zip(range(10, 0, -3), enumerate(range(2, 9), 100), a):
        out[k] = j + x + y
    else:
        out[0] = -1


def test_zip_of_ranges_enumerates_and_arrays_to_the_shortest():
    out = np.zeros(11, np.int64)
    a = np.array([1000, 2000, 3000], np.int64)
    zip_ranges_and_arrays[1, 1](a, out)
    expected = np.zeros(11, np.int64)
    for k, (j, x), y in zip(range(10, 0, -3), enumerate(range(2, 9), 100), a):
        expected[k] = j + x + y
    expected[0] = -1
    assert out.tolist() == expected.tolist()
