"""NumPy arrays read in kernels: globals and closure variables, and
cuda.const.array_like(ary), frozen into the kernel when it compiles (constant
memory on the GPU), read-only, as Numba does. On every device."""

import numpy as np
import pytest

import cudajit as cuda

from conftest import ALL_DTYPES, dtype_id, random_array

pytestmark = pytest.mark.usefixtures("device")

WEIGHTS = np.array([0.25, 0.5, 0.25])
TABLE_2D = np.arange(12, dtype=np.int32).reshape(3, 4)


@cuda.jit
def smooth(a, out):
    i = cuda.grid(1)
    if 0 < i < a.size - 1:
        acc = 0.0
        for k in range(WEIGHTS.size):
            acc += WEIGHTS[k] * a[i - 1 + k]
        out[i] = acc


def test_a_global_array_is_read_in_the_kernel():
    a = np.arange(50, dtype=np.float64) ** 2
    out = np.zeros_like(a)
    smooth[1, 64](a, out)
    np.testing.assert_allclose(out[1:-1], np.convolve(a, WEIGHTS[::-1], "valid"))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_closure_arrays_of_each_dtype_and_array_like(dtype):
    values = random_array(dtype, (2, 5), seed=3)

    @cuda.jit
    def copy_out(out, out2):
        c = cuda.const.array_like(values)
        i = cuda.threadIdx.x
        out[i // 5, i % 5] = values[i // 5, i % 5]
        out2[i // 5, i % 5] = c[i // 5, i % 5]

    out, out2 = np.zeros_like(values), np.zeros_like(values)
    copy_out[1, 10](out, out2)
    np.testing.assert_array_equal(out, values)
    np.testing.assert_array_equal(out2, values)


def test_frozen_array_attributes_and_non_contiguous_sources():
    strided = np.arange(20, dtype=np.int64)[::2]  # frozen as a C-contiguous copy
    transposed = TABLE_2D.T

    @cuda.jit
    def describe(out):
        out[0] = strided.size
        out[1] = strided[3]
        out[2] = transposed.shape[0]
        out[3] = transposed[3, 1]
        out[4] = TABLE_2D.strides[0]
        out[5] = len(TABLE_2D)

    out = np.zeros(6, np.int64)
    describe[1, 1](out)
    np.testing.assert_array_equal(out, [10, 6, 4, TABLE_2D[1, 3], 16, 3])


def test_the_array_is_frozen_when_the_kernel_compiles():
    table = np.array([1, 2, 3], np.int64)

    @cuda.jit
    def read(out):
        out[0] = table[0]

    out = np.zeros(1, np.int64)
    read[1, 1](out)
    table[0] = 100  # as in Numba: the compiled kernel keeps what it froze
    read[1, 1](out)
    assert out[0] == 1


def test_a_frozen_array_is_read_only(assert_compile_error):
    table = np.zeros(4)

    def write(out):
        table[0] = 1.0  # marker: write
        out[0] = table[0]

    with pytest.raises(cuda.CompileError) as error:
        cuda.jit(write)[1, 1](np.zeros(1))
    assert "read-only" in str(error.value)


def test_arrays_too_large_for_constant_memory_are_refused():
    big = np.zeros(64 * 1024 // 8 + 1)

    def read(out):
        out[0] = big[0]

    with pytest.raises(cuda.CompileError,
                       match=r"array 'big' \(65544 bytes\) is larger than the 64 KiB of "
                             r"constant memory it would be frozen into; pass it as an argument"):
        cuda.jit(read)[1, 1](np.zeros(1))


def test_array_like_needs_an_array_known_when_compiling():
    def from_argument(a, out):
        c = cuda.const.array_like(a)
        out[0] = c[0]

    with pytest.raises(cuda.CompileError, match=r"cuda.const.array_like\(\) needs a NumPy array "
                       r"known when compiling \(a global or closure variable\); 'a' is not one"):
        cuda.jit(from_argument)[1, 1](np.zeros(1), np.zeros(1))


LOOKUP = np.linspace(0.0, 1.0, 64)


def gather(index, out):
    i = cuda.grid(1)
    out[i] = LOOKUP[index[i]]


def test_frozen_arrays_live_in_constant_memory_in_ptx(check_ptx):
    for cc in [(7, 5), (9, 0)]:
        ptx, _ = cuda.compile_ptx(gather, "void(int32[::1], float64[::1])", cc=cc)
        check_ptx(ptx, cc=cc)
        assert ".const .align 16 .b8 const_array_0[512]" in ptx
        assert "ld.const.f64" in ptx
    # WEIGHTS in smooth's unrolled loop: folded into immediates.
    ptx, _ = cuda.compile_ptx(smooth, "void(float64[::1], float64[::1])")
    assert "0d3FD0000000000000" in ptx
