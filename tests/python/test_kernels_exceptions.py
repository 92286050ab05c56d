"""raise and assert in kernels, as Numba has them: compiled with debug=True, the
first thread that raises is reported after the launch as the Python exception,
prefixed with the function, file, line and thread; without debug a raising
thread just stops and asserts are not checked. On every device."""

import os

import numpy as np
import pytest

import cudajit as cuda

from conftest import module_from_source

pytestmark = pytest.mark.usefixtures("device")

HERE = os.path.abspath(__file__)


class KernelTrouble(Exception):
    pass


@cuda.jit(device=True)
def checked_double(x):
    if x > 100:
        raise ValueError("too big")  # marker: device raise
    return x * 2


@cuda.jit(debug=True)
def debug_kernel(a, out):
    i = cuda.grid(1)
    assert a[i] >= 0, "negative input"  # marker: assert
    out[i] = checked_double(a[i])


def line_of(marker):
    with open(HERE) as f:
        return next(n for n, text in enumerate(f, 1) if f"marker: {marker}" in text)


def test_a_raise_in_a_device_function_surfaces_after_the_launch():
    a = np.arange(64.0)
    a[37] = 500.0
    out = np.zeros(64)
    with pytest.raises(ValueError) as info:
        debug_kernel[2, 32](a, out)
    assert str(info.value) == (f"In function 'checked_double', file {HERE}, line "
                               f"{line_of('device raise')}, tid=[0, 0, 5] ctaid=[0, 0, 1]: "
                               "too big")
    # The other threads ran; the next launch works.
    expected = a * 2
    np.testing.assert_array_equal(np.delete(out, 37), np.delete(expected, 37))
    a[37] = 1.0
    debug_kernel[2, 32](a, out)
    np.testing.assert_array_equal(out, a * 2)


def test_a_failed_assert_is_an_assertion_error_naming_the_thread():
    a = np.arange(96.0)
    a[70] = -1.0
    with pytest.raises(AssertionError) as info:
        debug_kernel[(3, 1), (32, 1)](a, np.zeros(96))
    assert str(info.value) == (f"In function 'debug_kernel', file {HERE}, line "
                               f"{line_of('assert')}, tid=[0, 0, 6] ctaid=[0, 0, 2]: "
                               "negative input")


def test_only_the_first_raising_thread_is_reported():
    @cuda.jit(debug=True)
    def everyone(out):
        i = cuda.grid(1)
        out[i] = 1
        raise KernelTrouble("thread trouble", 42)

    out = np.zeros(256)
    with pytest.raises(KernelTrouble) as info:
        everyone[4, 64](out)
    message, extra = info.value.args
    assert message.count("tid=") == 1 and message.endswith(": thread trouble")
    assert extra == 42
    assert np.all(out == 1)


def test_exception_classes_and_arguments():
    @cuda.jit(debug=True)
    def plain(out, which):
        if which[0] == 0:
            raise IndexError
        if which[0] == 1:
            assert out[0] > 5
        out[0] = 1

    with pytest.raises(IndexError, match=r"^In function 'plain', file .*, line \d+, "
                       r"tid=\[0, 0, 0\] ctaid=\[0, 0, 0\]$"):
        plain[1, 1](np.zeros(1), np.array([0]))
    with pytest.raises(AssertionError, match=r"tid=\[0, 0, 0\] ctaid=\[0, 0, 0\]$"):
        plain[1, 1](np.zeros(1), np.array([1]))
    out = np.zeros(1)
    plain[1, 1](out, np.array([2]))
    assert out[0] == 1


def test_without_debug_a_raising_thread_stops_and_asserts_are_not_checked():
    @cuda.jit
    def quiet(a, out):
        i = cuda.grid(1)
        assert a[i] > 1000  # not checked without debug
        if i == 3:
            raise ValueError("not reported")
        out[i] = checked_double(a[i])

    a = np.arange(8.0)
    a[6] = 1000.0
    out = np.full(8, -1.0)
    quiet[1, 8](a, out)
    cuda.synchronize()
    expected = a * 2
    expected[3] = -1.0  # stopped at its raise
    expected[6] = -1.0  # stopped in the device function
    np.testing.assert_array_equal(out, expected)


def test_debug_kernels_declared_eagerly_and_compiled_to_ptx(check_ptx):
    @cuda.jit("void(float64[::1])", debug=True)
    def eager(a):
        if a[0] < 0:
            raise ValueError("negative")
        a[0] = 1

    a = np.array([-1.0])
    with pytest.raises(ValueError, match="negative"):
        eager[1, 1](a)
    ptx = eager.inspect_asm(("array(float64, 1d, C)",))  # the hidden record is not named
    assert "exit;" in ptx and "atom" in ptx
    check_ptx(ptx)


@pytest.mark.parametrize("body, message", [
    ("raise", "a bare raise (re-raising) is not supported in kernels"),
    ("raise ValueError('x') from None", "'raise ... from ...' is not supported in kernels"),
    ("raise ValueError(a[0])", "an exception raised in a kernel must be a class known when "
                               "compiling, with constant arguments; 'a[0]' is not one"),
    ("raise len", "'len' is not an exception class"),
    ("assert a[0] > 0, a[0]", "an assert's message in a kernel must be a constant"),
])
def test_unsupported_raises_are_compile_errors(tmp_path, body, message):
    module = module_from_source(tmp_path, "bad_raise",
                                f"import cudajit as cuda\n\ndef kernel(a):\n    {body}\n")
    with pytest.raises(cuda.CompileError) as info:
        cuda.jit(module.kernel, debug=True)[1, 1](np.zeros(1))
    assert message in str(info.value)


def test_debug_mode_raises_zero_division_error_as_numba_does():
    @cuda.jit(debug=True)
    def divide(r, x, y, k):
        r[0] = y[0] / x[k]
        r[1] = y[0] // x[k]
        r[2] = y[0] % x[k]

    r = np.zeros(3)
    divide[1, 1](r, np.array([0.0, 4.0]), np.array([10.0]), 1)
    np.testing.assert_array_equal(r, [2.5, 2.0, 2.0])
    with pytest.raises(ZeroDivisionError, match=r"In function 'divide', .* tid=\[0, 0, 0\] "
                                                r"ctaid=\[0, 0, 0\]: division by zero"):
        divide[1, 1](r, np.array([0.0, 4.0]), np.array([10.0]), 0)

    @cuda.jit(debug=True)
    def divide_in_place(r, x):
        r[0] /= x[0]

    with pytest.raises(ZeroDivisionError, match="division by zero"):
        divide_in_place[1, 1](r, np.zeros(1))
    r[0] = 5.0
    divide_in_place[1, 1](r, np.array([2.0]))
    assert r[0] == 2.5

    @cuda.jit
    def unchecked(r, x):
        r[0] = 1.0 / x[0]

    unchecked[1, 1](r, np.zeros(1))  # without debug: IEEE's inf, as in Numba
    assert r[0] == np.inf


def test_debug_mode_raises_index_error_for_a_tuple_index_out_of_range():
    @cuda.jit(debug=True)
    def pick(a, out):
        x = cuda.threadIdx.x
        out[x] = a.shape[-x]

    out = np.zeros(3, np.int64)
    pick[1, 2](np.zeros(7), out)  # shape[0], shape[-1]
    np.testing.assert_array_equal(out[:2], [7, 7])
    with pytest.raises(IndexError, match=r"tid=\[0, 0, 2\] .*: tuple index out of range"):
        pick[1, 3](np.zeros(7), out)  # shape[-2] of a 1-tuple
