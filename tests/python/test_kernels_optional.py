"""Device functions that return None on some paths and a number on others return an
optional number (Numba's OptionalType): `r is None` tests it at run time, and elsewhere
r is used as its number. numba-cuda's test_ssa.py::test_unhandled_undefined among them."""

import numpy as np
import pytest

import cudajit as cuda

pytestmark = pytest.mark.usefixtures("device")


@cuda.jit(device=True)
def find(a, x):
    for i in range(a.size):
        if a[i] == x:
            return i
    return None


@cuda.jit(device=True)
def half_if_even(v):
    if v % 2 == 0:
        return v // 2
    # falls off the end: None


@cuda.jit(device=True)
def find_through(a, x):
    return find(a, x)  # an optional passed on


def test_a_found_index_or_none_is_tested_at_run_time():
    @cuda.jit
    def lookup(a, xs, out):
        i = cuda.grid(1)
        if i < xs.size:
            r = find(a, xs[i])
            if r is None:
                out[i, 0] = -1
            else:
                out[i, 0] = r
            h = half_if_even(xs[i])
            out[i, 1] = 99 if h is None else h
            out[i, 2] = h is not None
            s = find_through(a, xs[i])
            out[i, 3] = -7 if s is None else s + 100

    a = np.array([5, 3, 8, 1])
    xs = np.array([8, 2, 1, 5, 7])
    out = np.zeros((5, 4), np.int64)
    lookup[1, 8](a, xs, out)

    def expected(x):
        r = next((i for i, v in enumerate(a) if v == x), None)
        h = x // 2 if x % 2 == 0 else None
        return [-1 if r is None else r, 99 if h is None else h, h is not None,
                -7 if r is None else r + 100]

    np.testing.assert_array_equal(out, [expected(x) for x in xs])


@cuda.jit(device=True)
def sign_or_none(x):
    if x > 0:
        return 1
    elif x < 0:
        return -2.5
    return None


def test_optionals_unify_as_their_numbers_and_take_numbers_later():
    @cuda.jit
    def signs(xs, out):
        i = cuda.grid(1)
        if i < xs.size:
            s = sign_or_none(xs[i])  # OptionalType(float64)
            if s is None:
                s = 0  # a number assigned to the optional variable
            out[i] = s

    xs = np.array([3.0, -1.0, 0.0, 7.0])
    out = np.full(4, np.nan)
    signs[1, 4](xs, out)
    np.testing.assert_array_equal(out, [1.0, -2.5, 0.0, 1.0])


@cuda.jit(device=True)
def always_a_number(x):
    return x + 1


def test_a_variable_that_is_never_none_prunes_its_none_branch():
    # Typing knows r is an int64: the `is None` branch, which would not type (an array
    # stored into an element), is pruned as Numba prunes it.
    @cuda.jit
    def kernel(out):
        r = always_a_number(out.size)
        if r is None:
            out[0] = out
        else:
            out[0] = r

    out = np.zeros(3, np.int64)
    kernel[1, 1](out)
    assert out[0] == 4


def test_a_declared_number_return_refuses_the_none_paths():
    def maybe(x):
        if x > 0:
            return x

    ptx, returned = cuda.compile_ptx(maybe, "(int64,)", device=True)
    assert str(returned) == "OptionalType(int64)"
    with pytest.raises(cuda.CompileError, match=r"returns OptionalType\(int64\), which cannot "
                                                r"be converted to the declared return type "
                                                r"int64"):
        cuda.compile_ptx(maybe, "int64(int64)", device=True)


def test_none_and_an_array_are_no_optional():
    @cuda.jit(device=True)
    def row_or_none(a, i):
        if i < 0:
            return None
        return a[i]

    @cuda.jit
    def kernel(a, out):
        out[0] = row_or_none(a, 0)[0]

    with pytest.raises(cuda.CompileError, match=r"a device function cannot return an array"):
        kernel[1, 1](np.zeros((2, 2)), np.zeros(1))
