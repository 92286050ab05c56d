"""print() in kernels on every device, formatted as Numba does (items separated
by spaces, integers as %lld, floats as %f, booleans as True/False), one whole
line per call: vprintf on the cuda device (the simulated GPU formats it like
the driver), one write per line on the cpu device."""

import numpy as np
import pytest

import cudajit as cuda

pytestmark = pytest.mark.usefixtures("device")


def printed_lines(capfd):
    return capfd.readouterr().out.splitlines()


def test_numbers_bools_and_strings_are_formatted_as_numba_does(capfd):
    @cuda.jit
    def show(a, flags):
        i = cuda.grid(1)
        if i < a.size:
            print("item", i, a[i], flags[i], np.uint64(18446744073709551615), "100%", -7)

    a = np.array([0.5, -2.25, 1e10])
    flags = np.array([True, False, True])
    show[1, 4](a, flags)
    cuda.synchronize()
    lines = sorted(printed_lines(capfd))
    assert lines == [
        "item 0 0.500000 True 18446744073709551615 100% -7",
        "item 1 -2.250000 False 18446744073709551615 100% -7",
        "item 2 10000000000.000000 True 18446744073709551615 100% -7",
    ]


def test_every_thread_prints_whole_lines(capfd):
    @cuda.jit
    def many(n):
        i = cuda.grid(1)
        if i < n:
            print("thread", i, "of", n, "says", i * 3)

    many[8, 64](500)
    cuda.synchronize()
    lines = printed_lines(capfd)
    assert sorted(lines) == sorted(f"thread {i} of 500 says {i * 3}" for i in range(500))


def test_print_from_a_device_function_and_an_empty_print(capfd):
    @cuda.jit(device=True)
    def report(x):
        print("x is", x)
        print()

    @cuda.jit
    def kernel():
        report(np.float32(1.5))

    kernel[1, 1]()
    cuda.synchronize()
    assert printed_lines(capfd) == ["x is 1.500000", ""]


def test_printing_what_cannot_be_printed_is_a_compile_error():
    def array(a):
        print(a)

    def complex_number(a):
        print(1j)

    def keyword(a):
        print(1, sep=",")

    with pytest.raises(cuda.CompileError, match="print\\(\\) in kernels takes numbers, bools, "
                       "tuples of them and string literals, got array\\(float64, 1d, C\\)"):
        cuda.jit(array)[1, 1](np.zeros(2))
    with pytest.raises(cuda.CompileError, match="got complex128"):
        cuda.jit(complex_number)[1, 1](np.zeros(2))
    with pytest.raises(cuda.CompileError, match="keyword arguments are not supported"):
        cuda.jit(keyword)[1, 1](np.zeros(2))


def test_tuples_print_as_python_writes_them(capfd):
    @cuda.jit
    def show(tup, flag):
        print(tup, (flag, 2.5), (7,))

    show[1, 1]((1, ((2, 4), 3.0), (4,), 5), True)
    cuda.synchronize()
    assert printed_lines(capfd) == ["(1, ((2, 4), 3.000000), (4,), 5) (True, 2.500000) (7,)"]


def test_a_dim3_prints_as_its_axes(capfd):
    @cuda.jit
    def show():
        print(cuda.threadIdx)

    show[1, (2, 2, 2)]()
    cuda.synchronize()
    assert sorted(printed_lines(capfd)) == [str(i) for i in np.ndindex(2, 2, 2)]


def test_print_compiles_to_vprintf_that_ptxas_accepts(check_ptx):
    def kernel(a):
        print("value", a[0], a[0] > 0, 3)

    for cc in [(7, 5), (9, 0)]:
        ptx, _ = cuda.compile_ptx(kernel, "void(float32[::1])", cc=cc)
        check_ptx(ptx, cc=cc)
        assert "vprintf" in ptx
