"""Control flow: if/elif/else, for over range (negative steps too), while,
break, continue, return, and/or/not with short-circuit, conditional
expressions, and local variables whose type merges where control flow joins."""

import numpy as np
import pytest

import cudajit as cuda
from conftest import kernel_from_body, launch_1d

pytestmark = pytest.mark.usefixtures("device")


# --- if / elif / else ------------------------------------------------------


@cuda.jit
def classify(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        if v < -10:
            out[i] = -2
        elif v < 0:
            out[i] = -1
        elif v == 0:
            out[i] = 0
        elif v <= 10:
            out[i] = 1
        else:
            out[i] = 2


def test_if_elif_else_takes_the_first_true_branch():
    x = np.array([-100, -10, -11, -1, 0, 1, 10, 11, 1000], np.int64)
    out = np.full(x.size, 99, np.int8)
    classify[1, 16](x, out)
    np.testing.assert_array_equal(out, [-2, -1, -2, -1, 0, 1, 1, 2, 2])


def test_if_without_else_leaves_the_value_unchanged():
    @cuda.jit
    def clamp_negative(x):
        i = cuda.grid(1)
        if i < x.size:
            if x[i] < 0:
                x[i] = 0

    x = np.array([-3.0, 2.0, -0.5, 7.0])
    clamp_negative[1, 4](x)
    np.testing.assert_array_equal(x, [0.0, 2.0, 0.0, 7.0])


def test_nested_ifs():
    @cuda.jit
    def quadrant(xs, ys, out):
        i = cuda.grid(1)
        if i < xs.size:
            if xs[i] >= 0:
                if ys[i] >= 0:
                    out[i] = 1
                else:
                    out[i] = 4
            else:
                if ys[i] >= 0:
                    out[i] = 2
                else:
                    out[i] = 3

    xs = np.array([1.0, -1.0, -1.0, 1.0, 0.0])
    ys = np.array([1.0, 1.0, -1.0, -1.0, -0.0])
    out = np.zeros(5, np.int32)
    quadrant[1, 8](xs, ys, out)
    np.testing.assert_array_equal(out, [1, 2, 3, 4, 1])


@pytest.mark.parametrize(
    "value, truthy",
    [
        (0, False),
        (3, True),
        (-1, True),
        (0.0, False),
        (-0.0, False),
        (0.5, True),
        (float("nan"), True),
        (True, True),
        (False, False),
    ],
)
def test_if_uses_python_truthiness_of_numbers(value, truthy):
    @cuda.jit
    def truth(x, out):
        if x:
            out[0] = 1
        else:
            out[0] = 0

    out = np.full(1, 7, np.int64)
    truth[1, 1](value, out)
    assert out[0] == int(truthy)


# --- for over range ----------------------------------------------------------


@cuda.jit
def range_stats(start, stop, step, out):
    total = 0
    count = 0
    last = -999
    for i in range(start, stop, step):
        total += i
        count += 1
        last = i
    out[0] = total
    out[1] = count
    out[2] = last


RANGES = [
    (0, 10, 1),
    (3, 17, 4),
    (10, 0, -1),
    (10, 0, -3),
    (10, -10, -7),
    (-5, 5, 2),
    (5, 5, 1),
    (5, 0, 1),
    (0, 5, -1),
    (-1, -10, -2),
    (0, 1, 100),
]


@pytest.mark.parametrize("start, stop, step", RANGES)
def test_for_range_with_runtime_bounds_visits_what_python_visits(start, stop, step):
    out = np.zeros(3, np.int64)
    range_stats[1, 1](start, stop, step, out)
    visited = list(range(start, stop, step))
    expected = [sum(visited), len(visited), visited[-1] if visited else -999]
    np.testing.assert_array_equal(out, expected)


def test_for_range_with_int32_bounds():
    out = np.zeros(3, np.int64)
    range_stats[1, 1](np.int32(20), np.int32(-20), np.int32(-6), out)
    visited = list(range(20, -20, -6))
    np.testing.assert_array_equal(out, [sum(visited), len(visited), visited[-1]])


def test_for_range_with_one_two_and_three_literal_arguments():
    @cuda.jit
    def literal_ranges(out):
        for i in range(5):
            out[0] += i
        for i in range(2, 6):
            out[1] += i
        for i in range(10, 0, -3):
            out[2] = out[2] * 100 + i
        for i in range(0, -6, -2):
            out[3] += i

    out = np.zeros(4, np.int64)
    literal_ranges[1, 1](out)
    np.testing.assert_array_equal(out, [10, 14, 10070401, -6])


def test_loop_variable_keeps_its_last_value_after_the_loop():
    @cuda.jit
    def last(n, out):
        for i in range(n):
            pass
        out[0] = i

    out = np.zeros(1, np.int64)
    last[1, 1](7, out)
    assert out[0] == 6


def test_nested_loops_compute_a_matrix_product():
    @cuda.jit
    def matmul(a, b, c):
        i, j = cuda.grid(2)
        if i < c.shape[0] and j < c.shape[1]:
            acc = 0.0
            for k in range(a.shape[1]):
                acc += a[i, k] * b[k, j]
            c[i, j] = acc

    rng = np.random.default_rng(0)
    a = rng.standard_normal((7, 5))
    b = rng.standard_normal((5, 6))
    c = np.zeros((7, 6))
    matmul[(1, 1), (8, 8)](a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-12)


def test_reverse_iteration_with_negative_step_reverses_an_array():
    @cuda.jit
    def reverse_copy(src, dst):
        j = 0
        for i in range(src.size - 1, -1, -1):
            dst[j] = src[i]
            j += 1

    src = np.arange(11, dtype=np.float32)
    dst = np.zeros(11, np.float32)
    reverse_copy[1, 1](src, dst)
    np.testing.assert_array_equal(dst, src[::-1])


# --- while, break, continue ------------------------------------------------


def test_while_loop_runs_until_its_condition_is_false():
    @cuda.jit
    def collatz_steps(x, out):
        i = cuda.grid(1)
        if i < x.size:
            n = x[i]
            steps = 0
            while n != 1:
                if n % 2 == 0:
                    n //= 2
                else:
                    n = 3 * n + 1
                steps += 1
            out[i] = steps

    def steps(n):
        s = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            s += 1
        return s

    x = np.arange(1, 40, dtype=np.int64)
    out = np.zeros_like(x)
    launch_1d(collatz_steps, x.size, x, out)
    np.testing.assert_array_equal(out, [steps(int(n)) for n in x])


def test_break_leaves_the_innermost_loop_only():
    @cuda.jit
    def first_above(m, threshold, out):
        i = cuda.grid(1)
        if i < m.shape[0]:
            out[i] = -1
            for j in range(m.shape[1]):
                if m[i, j] > threshold:
                    out[i] = j
                    break
            out[i] += 100  # runs after the break

    m = np.array([[1, 5, 9, 2], [0, 0, 0, 0], [7, 1, 1, 1]], np.int32)
    out = np.zeros(3, np.int64)
    first_above[1, 4](m, 4, out)
    np.testing.assert_array_equal(out, [101, 99, 100])


def test_break_in_an_inner_loop_continues_the_outer_loop():
    @cuda.jit
    def count_pairs(n, out):
        count = 0
        for i in range(n):
            for j in range(n):
                if j > i:
                    break
                count += 1
        out[0] = count

    out = np.zeros(1, np.int64)
    count_pairs[1, 1](10, out)
    assert out[0] == 55


def test_continue_skips_the_rest_of_the_iteration():
    @cuda.jit
    def sum_positive_odd(x, out):
        total = 0
        for i in range(x.size):
            if x[i] <= 0:
                continue
            if x[i] % 2 == 0:
                continue
            total += x[i]
        out[0] = total

    x = np.array([1, -3, 4, 5, 0, 7, 8, -1, 9], np.int64)
    out = np.zeros(1, np.int64)
    sum_positive_odd[1, 1](x, out)
    assert out[0] == 1 + 5 + 7 + 9


def test_continue_in_a_while_loop_still_advances():
    @cuda.jit
    def count_multiples(n, k, out):
        i = 0
        count = 0
        while i < n:
            i += 1
            if i % k != 0:
                continue
            count += 1
        out[0] = count

    out = np.zeros(1, np.int64)
    count_multiples[1, 1](100, 7, out)
    assert out[0] == 14


def test_while_true_with_break():
    @cuda.jit
    def first_power_of_two_above(x, out):
        p = 1
        while True:
            if p > x:
                break
            p *= 2
        out[0] = p

    out = np.zeros(1, np.int64)
    first_power_of_two_above[1, 1](1000, out)
    assert out[0] == 1024


# --- return ------------------------------------------------------------------


def test_early_return_stops_only_the_threads_that_take_it():
    @cuda.jit
    def guarded_square(x, out):
        i = cuda.grid(1)
        if i >= x.size:
            return
        if x[i] < 0:
            return
        out[i] = x[i] * x[i]

    x = np.array([1.0, -2.0, 3.0, -4.0, 5.0])
    out = np.full(5, -1.0)
    guarded_square[2, 4](x, out)
    np.testing.assert_array_equal(out, [1.0, -1.0, 9.0, -1.0, 25.0])


def test_return_inside_a_loop_ends_the_kernel_for_that_thread():
    @cuda.jit
    def fill_until_zero(x, out):
        for i in range(x.size):
            if x[i] == 0:
                return
            out[i] = x[i]
        out[0] = -1  # only reached when there is no zero

    x = np.array([3, 4, 0, 5], np.int64)
    out = np.zeros(4, np.int64)
    fill_until_zero[1, 1](x, out)
    np.testing.assert_array_equal(out, [3, 4, 0, 0])
    x = np.array([3, 4, 6, 5], np.int64)
    fill_until_zero[1, 1](x, out)
    np.testing.assert_array_equal(out, [-1, 4, 6, 5])


def test_bare_return_at_the_end_of_a_kernel():
    @cuda.jit
    def one(out):
        out[0] = 1
        return

    out = np.zeros(1, np.int64)
    one[1, 1](out)
    assert out[0] == 1


# --- and / or / not ----------------------------------------------------------


@cuda.jit(device=True)
def mark(log, k, result):
    log[k] += 1
    return result


def test_and_does_not_evaluate_its_right_side_when_the_left_is_false():
    @cuda.jit
    def probe(flag, log):
        if flag and mark(log, 0, True):
            log[1] = 1

    log = np.zeros(2, np.int64)
    probe[1, 1](False, log)
    np.testing.assert_array_equal(log, [0, 0])
    probe[1, 1](True, log)
    np.testing.assert_array_equal(log, [1, 1])


def test_or_does_not_evaluate_its_right_side_when_the_left_is_true():
    @cuda.jit
    def probe(flag, log):
        if flag or mark(log, 0, False):
            log[1] += 1

    log = np.zeros(2, np.int64)
    probe[1, 1](True, log)
    np.testing.assert_array_equal(log, [0, 1])
    probe[1, 1](False, log)
    np.testing.assert_array_equal(log, [1, 1])


def test_and_chain_stops_at_the_first_false_operand():
    @cuda.jit
    def probe(log):
        x = mark(log, 0, True) and mark(log, 1, False) and mark(log, 2, True)
        log[3] = x

    log = np.zeros(4, np.int64)
    probe[1, 1](log)
    np.testing.assert_array_equal(log, [1, 1, 0, 0])


def test_or_chain_stops_at_the_first_true_operand():
    @cuda.jit
    def probe(log):
        x = mark(log, 0, False) or mark(log, 1, True) or mark(log, 2, True)
        log[3] = x

    log = np.zeros(4, np.int64)
    probe[1, 1](log)
    np.testing.assert_array_equal(log, [1, 1, 0, 1])


def test_short_circuit_guards_an_out_of_bounds_read():
    @cuda.jit
    def positive_in_bounds(x, n, out):
        for i in range(out.size):
            out[i] = i < n and x[i] > 0

    x = np.array([1.0, -1.0, 2.0])
    out = np.zeros(6, np.bool_)
    positive_in_bounds[1, 1](x, 3, out)
    np.testing.assert_array_equal(out, [True, False, True, False, False, False])


@pytest.mark.parametrize("a, b", [(0, 5), (3, 5), (3, 0), (0, 0), (-2, 7)])
def test_and_or_return_an_operand_like_python(a, b):
    @cuda.jit
    def values(a, b, out):
        out[0] = a and b
        out[1] = a or b
        out[2] = not a
        out[3] = not (a and b)
        out[4] = a and b and 7
        out[5] = a or 0 or b
        out[6] = 0 < a < b and b > 2 or a == b

    out = np.zeros(7, np.int64)
    values[1, 1](a, b, out)
    np.testing.assert_array_equal(out, [a and b, a or b, not a, not (a and b), a and b and 7,
                                        a or 0 or b, 0 < a < b and b > 2 or a == b])


def test_and_or_of_floats_return_an_operand_like_python():
    @cuda.jit
    def values(a, b, out):
        out[0] = a and b
        out[1] = a or b

    out = np.zeros(2)
    values[1, 1](0.0, 2.5, out)
    np.testing.assert_array_equal(out, [0.0, 2.5])
    values[1, 1](1.5, 2.5, out)
    np.testing.assert_array_equal(out, [2.5, 1.5])


@pytest.mark.parametrize("value", [0, 1, -3, 0.0, 2.5, float("nan"), True, False])
def test_not_is_python_truthiness_negated(value):
    @cuda.jit
    def negate(x, out):
        out[0] = not x

    out = np.zeros(1, np.bool_)
    negate[1, 1](value, out)
    assert out[0] == (not value)


def test_chained_comparison_evaluates_the_middle_operand_once():
    @cuda.jit
    def probe(log):
        if 0 < mark(log, 0, 5) < 10:
            log[1] = 1

    log = np.zeros(2, np.int64)
    probe[1, 1](log)
    np.testing.assert_array_equal(log, [1, 1])


def test_chained_comparison_short_circuits_after_the_first_false_link():
    @cuda.jit
    def probe(log):
        if 10 < mark(log, 0, 5) < mark(log, 1, 20):
            log[2] = 1

    log = np.zeros(3, np.int64)
    probe[1, 1](log)
    np.testing.assert_array_equal(log, [1, 0, 0])


PRIMES = (2, 3, 5, 7, 11, 13)


def test_in_and_not_in_a_tuple_compare_with_its_items():
    @cuda.jit
    def membership(x, t, out):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i]
            out[i, 0] = v in PRIMES  # a global tuple
            out[i, 1] = v not in (1, 4.0, 9)  # written out, of mixed types
            out[i, 2] = v in t  # an argument
            out[i, 3] = 0 < v in (3, 4)  # a link of a chain
            out[i, 4] = v in ()

    x = np.arange(12)
    out = np.zeros((12, 5), np.int64)
    given = (4, 5.0, 11j)
    membership[1, 12](x, given, out)
    expected = [[v in PRIMES, v not in (1, 4.0, 9), v in given, 0 < v in (3, 4), v in ()]
                for v in range(12)]
    np.testing.assert_array_equal(out, np.array(expected, np.int64))


@pytest.mark.parametrize("body, message", [
    ("out[0] = out[0] in out", r"'in' needs a tuple on its right in kernels; got "
                               r"array\(float64, 1d, C\)"),
    ("out[0] = out[0] in (1, out)", r"cannot compare float64 and array\(float64, 1d, C\) "
                                    r"\(an item of the tuple\)"),
])
def test_in_of_something_else_than_a_tuple_of_numbers_is_a_compile_error(body, message):
    with pytest.raises(cuda.CompileError, match=message):
        cuda.jit(kernel_from_body("out", body))[1, 1](np.zeros(1))


# --- conditional expressions -------------------------------------------------


def test_conditional_expression_picks_one_value():
    @cuda.jit
    def relu(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] if x[i] > 0 else 0.0

    x = np.linspace(-2, 2, 9)
    out = np.zeros(9)
    relu[1, 16](x, out)
    np.testing.assert_array_equal(out, np.maximum(x, 0.0))


def test_nested_conditional_expressions():
    @cuda.jit
    def sign(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = 1 if x[i] > 0 else -1 if x[i] < 0 else 0

    x = np.array([-5, 0, 5, -1, 1], np.int32)
    out = np.zeros(5, np.int64)
    sign[1, 8](x, out)
    np.testing.assert_array_equal(out, np.sign(x))


def test_conditional_expression_evaluates_only_the_chosen_branch():
    @cuda.jit
    def probe(flag, log):
        log[2] = mark(log, 0, 10) if flag else mark(log, 1, 20)

    log = np.zeros(3, np.int64)
    probe[1, 1](True, log)
    np.testing.assert_array_equal(log, [1, 0, 10])
    probe[1, 1](False, log)
    np.testing.assert_array_equal(log, [1, 1, 20])


def test_conditional_expression_of_int_and_float_is_float64():
    @cuda.jit
    def pick(flag, out):
        out[0] = 1 if flag else 2.5

    out = np.zeros(1)
    pick[1, 1](False, out)
    assert out[0] == 2.5
    pick[1, 1](True, out)
    assert out[0] == 1.0


# --- types merge where control flow joins ------------------------------------


def test_variable_assigned_int_and_float_in_branches_is_float64():
    @cuda.jit
    def merge(flag, out):
        x = 1
        if flag:
            x = 2.5
        out[0] = x / 2

    out = np.zeros(1)
    merge[1, 1](True, out)
    assert out[0] == 1.25
    merge[1, 1](False, out)
    assert out[0] == 0.5


def test_loop_accumulator_started_as_int_becomes_float():
    @cuda.jit
    def mean(x, out):
        acc = 0
        for i in range(x.size):
            acc += x[i]
        out[0] = acc / x.size

    x = np.array([0.5, 1.25, 2.0, 3.25])
    out = np.zeros(1)
    mean[1, 1](x, out)
    assert out[0] == x.mean()


def test_int32_and_int64_assignments_merge_to_int64():
    @cuda.jit
    def merge(a, flag, out):
        x = a[0]  # int32
        if flag:
            x = 2**40  # int64
        out[0] = x

    out = np.zeros(1, np.int64)
    merge[1, 1](np.array([5], np.int32), True, out)
    assert out[0] == 2**40


def test_pass_is_a_statement_that_does_nothing():
    @cuda.jit
    def nothing(x):
        i = cuda.grid(1)
        if i < x.size:
            pass
        else:
            pass

    x = np.arange(3)
    nothing[1, 4](x)
    np.testing.assert_array_equal(x, np.arange(3))


# --- for loops over tuples and arrays ----------------------------------------------------------

MIXED = (1, 2.5, 3)


def test_for_over_constant_tuples_unrolls_items_of_any_type():
    @cuda.jit
    def total(out):
        acc = 0.0
        for c in MIXED:  # a global: int, float, int
            acc += c
        for x in (10, 20):  # a literal
            acc += x
        for i, v in ((1, 2.0), (3, 4.0)):  # items unpacked
            acc += i * v
        out[0] = acc

    out = np.zeros(1)
    total[1, 1](out)
    assert out[0] == 6.5 + 30 + 2 + 12


def test_for_over_a_tuple_variable_with_break_and_continue():
    @cuda.jit
    def walk(a, out):
        t = (a[0], a[1], a[2], a[3])
        acc = 0.0
        for v in t:
            if v < 0:
                continue
            if v > 100:
                break
            acc += v
        for v in (a[0], a[1]):  # a literal with break: indexed, not unrolled
            if v > 1:
                break
            acc += 1000
        out[0] = acc

    out = np.zeros(1)
    walk[1, 1](np.array([1.0, -5.0, 200.0, 7.0]), out)
    assert out[0] == 1.0 + 2000  # 1, then 1000 for each of a[0], a[1] (neither above 1)


def test_for_over_arrays_yields_elements_and_rows():
    @cuda.jit
    def sums(v, m, out):
        for x in v:
            out[0] += x
        for row in m:
            for x in row:
                out[1] += x
        for k in range(2):  # the iterable is evaluated once per loop
            for x in m[k]:
                out[2] += x

    v = np.arange(5.0)
    m = np.arange(12.0).reshape(3, 4)
    out = np.zeros(3)
    sums[1, 1](v, m, out)
    np.testing.assert_array_equal(out, [v.sum(), m.sum(), m[:2].sum()])


def test_for_over_what_cannot_be_iterated_is_a_compile_error():
    def over_number(out):
        for x in out[0]:
            out[0] = x

    with pytest.raises(cuda.CompileError, match=r"len\(\) needs an array or a tuple, got float64"):
        cuda.jit(over_number)[1, 1](np.zeros(1))


def test_for_over_enumerate_and_zip_of_arrays_and_tuples():
    @cuda.jit
    def weighted(a, b, out):
        total = 0.0
        for i, x in enumerate(a):
            total += i * x
        out[0] = total
        for j, (x, y) in enumerate(zip(a, b), 10):
            out[1] += j * x * y
        for x, y, z in zip(a, b, (1.0, 2.0, 3.0)):  # to the shortest: 3 items
            out[2] += x * y * z

    a = np.arange(1.0, 6.0)
    b = np.arange(6.0, 10.0)  # one shorter than a
    out = np.zeros(3)
    weighted[1, 1](a, b, out)
    assert out[0] == sum(i * x for i, x in enumerate(a))
    assert out[1] == sum(j * x * y for j, (x, y) in enumerate(zip(a, b), 10))
    assert out[2] == sum(x * y * z for x, y, z in zip(a, b, (1.0, 2.0, 3.0)))


def test_zip_of_enumerate_and_an_array_as_in_python():
    @cuda.jit
    def zipped(x, y, out):
        for (i, xv), yv in zip(enumerate(x, 10), y):
            out[i - 10] = xv * 100 + yv + i

    x, y = np.arange(4.0), np.arange(5.0) * 2  # y is longer: zip stops at x's end
    out = np.zeros(4)
    zipped[1, 1](x, y, out)
    np.testing.assert_array_equal(out, [xv * 100 + yv + i
                                        for (i, xv), yv in zip(enumerate(x, 10), y)])


def test_is_compares_type_and_value_and_nothing_is_none():
    # Numba's `is` of values: the same type and the same value; no kernel value is None.
    @cuda.jit
    def kernel(pred, n, out):
        out[0] = pred is True
        out[1] = pred is not False
        out[2] = n is n
        out[3] = n is pred  # int64 and bool: never the same
        out[4] = n is None
        out[5] = n is not None
        out[6] = 1.5 is 1.5

    out = np.zeros(7, np.bool_)
    kernel[1, 1](True, 3, out)
    np.testing.assert_array_equal(out, [True, True, True, False, False, True, True])
    kernel[1, 1](False, 0, out)
    np.testing.assert_array_equal(out, [False, False, True, False, False, True, True])


def test_statements_after_a_return_are_not_compiled():
    # Numba drops unreachable code: here it would make the function return two types.
    @cuda.jit(device=True)
    def first_positive(a):
        for i in range(a.size):
            if a[i] > 0:
                return a[i]
                return None  # noqa: unreachable
            elif a[i] == 0:
                continue
            else:
                continue
            return None  # after an if whose branches all end
        return 0.0
        raise ValueError("unreachable")

    @cuda.jit
    def kernel(a, out):
        out[0] = first_positive(a)

    out = np.zeros(1)
    kernel[1, 1](np.array([-1.0, 2.5, 3.0]), out)
    assert out[0] == 2.5
