"""Loads and stores with PTX cache operators (cuda.ldca ... cuda.stwt, numba-cuda's cache
hints): the values match NumPy on every device, the PTX has the operator, and misuse is a
CompileError in Numba's words."""

import numpy as np
import pytest

import cudajit as cuda

pytestmark = [pytest.mark.usefixtures("device"),
              pytest.mark.filterwarnings("ignore::cudajit.PerformanceWarning")]

LOADS = [(cuda.ldca, "ca"), (cuda.ldcg, "cg"), (cuda.ldcs, "cs"), (cuda.ldlu, "lu"),
         (cuda.ldcv, "cv")]
STORES = [(cuda.stcg, "cg"), (cuda.stcs, "cs"), (cuda.stwb, "wb"), (cuda.stwt, "wt")]
DTYPES = [np.int8, np.uint16, np.int32, np.uint64, np.float16, np.float32, np.float64]


@pytest.mark.parametrize("load, operator", LOADS, ids=[op for _, op in LOADS])
def test_loads_read_each_element_and_use_the_operator(load, operator):
    @cuda.jit
    def copy(r, x):
        for i in range(len(r)):
            r[i] = load(x, i)

    for dtype in DTYPES:
        x = (np.arange(7) * 3 - 5).astype(dtype)
        r = np.zeros_like(x)
        copy[1, 1](r, x)
        np.testing.assert_array_equal(r, x)
        bits = x.dtype.itemsize * 8
        assert f"ld.global.{operator}.b{bits}" in copy.inspect_asm(copy.signatures[-1])


@pytest.mark.parametrize("store, operator", STORES, ids=[op for _, op in STORES])
def test_stores_write_each_element_of_2d_arrays_and_use_the_operator(store, operator):
    @cuda.jit
    def copy(r, x):
        for i in range(x.shape[0]):
            for j in range(x.shape[1]):
                store(r, (i, j), x[i, j])

    for dtype in DTYPES:
        x = np.arange(12).reshape(3, 4).astype(dtype)
        r = np.zeros_like(x)
        copy[1, 1](r, x)
        np.testing.assert_array_equal(r, x)
        bits = x.dtype.itemsize * 8
        assert f"st.global.{operator}.b{bits}" in copy.inspect_asm(copy.signatures[-1])


def test_a_cpointer_is_read_at_an_offset():
    def gather(ptr, r, n):
        for i in range(n):
            r[i] = cuda.ldcs(ptr, i) + 1

    sig = "void(CPointer(int16), int16[::1], int64)"
    kernel = cuda.jit(sig)(gather)
    x = cuda.to_device(np.arange(5, dtype=np.int16))
    r = cuda.to_device(np.zeros(5, np.int16))
    kernel[1, 1](x.device_pointer, r, 5)
    np.testing.assert_array_equal(r.copy_to_host(), np.arange(1, 6))
    ptx, _ = cuda.compile_ptx(gather, sig)
    assert "ld.global.cs.b16" in ptx


def test_an_index_out_of_bounds_is_caught_on_the_cpu_device(device):
    if device != "cpu":  # a GPU faults (a sticky error that would end the test session)
        pytest.skip("bounds are checked on the cpu device")

    @cuda.jit
    def past_the_end(r, x):
        r[0] = cuda.ldcg(x, 5)

    with pytest.raises(IndexError):
        past_the_end[1, 1](np.zeros(1), np.zeros(5))


def test_misuse_is_a_compile_error_in_numbas_words():
    def float_index(x):
        cuda.ldcs(x, 1.0)

    def too_many(x):
        cuda.ldcs(x, (1, 2))

    def scalar_for_2d(x):
        cuda.ldcs(x, 1)

    def tuple_too_short(x):
        cuda.ldcs(x, (1,))

    def of_complex(r, x):
        r[0] = cuda.ldcs(x, 0)

    def into_a_number(x):
        cuda.stcg(x[0], 0, 1)

    cases = [
        (float_index, "void(float32[::1])", "float64 is not a valid index"),
        (too_many, "void(float32[::1])", "Expected 1 indices, got 2"),
        (scalar_for_2d, "void(float32[:, ::1])", "Expected 2 indices, got a scalar"),
        (tuple_too_short, "void(float32[:, ::1])", "Expected 2 indices, got 1"),
        (of_complex, "void(complex64[::1], complex64[::1])",
         "ldcs requires array of integer or float type, got complex64"),
        (into_a_number, "void(float32[::1])", "stcg operates on arrays or pointers"),
    ]
    for function, sig, message in cases:
        with pytest.raises(cuda.CompileError, match=message):
            cuda.compile_ptx(function, sig)
    with pytest.raises(RuntimeError, match=r"cuda.ldca\(\) can only be used inside a kernel"):
        cuda.ldca(np.zeros(1), 0)
