"""A name rebound to a value of another type is another variable, as in Numba's SSA form:
assignments that reach a common read are one variable (their types unify); the others
are variables of their own (compiler/src/ir/variable_webs.cpp). numba-cuda's test_ssa
cases among them."""

import numpy as np
import pytest

import cudajit as cuda

pytestmark = pytest.mark.usefixtures("device")


def test_an_array_reshaped_to_other_dimensions_in_turn():
    # numba issue 3931: arr is 2-d, then 1-d, then 2-d again.
    @cuda.jit
    def reshape_twice(result, arr):
        for i in range(1):
            arr = arr.reshape(3 * 2)
            arr = arr.reshape(3, 2)
        for i in range(arr.shape[0]):
            for j in range(arr.shape[1]):
                result[i, j] = arr[i, j]

    arr = np.arange(6.0).reshape(3, 2)
    result = np.zeros((3, 2))
    reshape_twice[1, 1](result, arr)
    np.testing.assert_array_equal(result, arr)


B = np.array([1.5])


def test_a_loop_variable_rebound_to_an_array_inside_the_loop():
    # numba issue 5493: the for loop's t (an int) becomes an array in each pass.
    @cuda.jit
    def accumulate(res, m, n):
        for t in range(1, m):
            for idx in range(n):
                t = B
                if idx == 0:
                    res[0] = t[0]
                else:
                    res[0] += t[0]

    res = np.zeros(1)
    accumulate[1, 1](res, 10, 10)
    assert res[0] == 15.0


def test_each_value_keeps_its_own_type_as_python_computes_it():
    @cuda.jit
    def rebind(out, n):
        y = n
        half = y // 2  # y is an int here: floor division of integers
        y = 0.5
        out[0] = half
        out[1] = y
        n = (n, n)  # a parameter rebound to a tuple
        out[2] = n[0] + n[1]

    out = np.zeros(3)
    rebind[1, 1](out, 7)
    np.testing.assert_array_equal(out, [3, 0.5, 14])


def test_values_that_meet_after_a_branch_unify_as_before():
    @cuda.jit
    def either(out, flag):
        if flag:
            x = 1
        else:
            x = 2.5
        out[0] = x  # both reach here: one variable, float64
        total = 0
        for i in range(4):
            total += 0.5  # an augmented assignment updates the same variable
        out[1] = total

    out = np.zeros(2)
    either[1, 1](out, True)
    np.testing.assert_array_equal(out, [1.0, 2.0])
    either[1, 1](out, False)
    np.testing.assert_array_equal(out, [2.5, 2.0])


def test_values_that_meet_and_cannot_unify_name_the_variable():
    @cuda.jit
    def mixed(out, a, flag):
        if flag:
            x = 1
        else:
            x = a
        out[0] = x[0]

    with pytest.raises(cuda.CompileError, match=r"variable 'x' is assigned int64 and "
                                                r"array\(float64, 1d, C\), which do not unify"):
        mixed[1, 1](np.zeros(1), np.zeros(3), True)


def test_a_value_carried_round_a_loop_is_one_variable():
    @cuda.jit
    def carry(out, n):
        x = 1
        i = 0
        while i < n:
            out[i] = x
            x = x * 1.5
            i += 1

    out = np.zeros(4)
    carry[1, 1](out, 4)
    np.testing.assert_array_equal(out, [1.0, 1.5, 2.25, 3.375])
