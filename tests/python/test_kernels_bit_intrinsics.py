"""cuda.popc, brev, clz, ffs, fma, cbrt and selp on every device, with Numba's
result types: popc and clz keep the argument's type, ffs is uint32 (1-based, 0
for 0), brev takes uint32 or uint64."""

import numpy as np
import pytest

import cudajit as cuda

from conftest import INT_DTYPES, dtype_id, module_from_source, random_array

pytestmark = pytest.mark.usefixtures("device")


def bits(dtype):
    return np.dtype(dtype).itemsize * 8


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=dtype_id)
def test_popc_clz_ffs_of_each_integer_type(dtype):
    @cuda.jit
    def counts(a, popc, clz, ffs):
        i = cuda.grid(1)
        if i < a.size:
            popc[i] = cuda.popc(a[i])
            clz[i] = cuda.clz(a[i])
            ffs[i] = cuda.ffs(a[i])

    a = random_array(dtype, (200,))
    a[2:5] = [0, 1, -1 if np.dtype(dtype).kind == "i" else 2]
    popc, clz = np.zeros_like(a), np.zeros_like(a)
    ffs = np.zeros(a.size, np.uint32)
    counts[4, 64](a, popc, clz, ffs)
    width = bits(dtype)
    unsigned = [int(v) & ((1 << width) - 1) for v in a]
    np.testing.assert_array_equal(popc, [bin(u).count("1") for u in unsigned])
    np.testing.assert_array_equal(clz, [width - u.bit_length() for u in unsigned])
    np.testing.assert_array_equal(ffs, [(u & -u).bit_length() for u in unsigned])


def test_result_types_follow_numba():
    @cuda.jit
    def types(a8, u64, out):
        out[0] = cuda.popc(a8[0])  # int8: 8 bits set in -1
        out[1] = cuda.clz(a8[1])   # int8: clz of 1 is 7
        out[2] = cuda.ffs(u64[0])  # uint32
        out[3] = cuda.clz(u64[1])  # uint64 of 0: 64

    out = np.zeros(4, np.int64)
    types[1, 1](np.array([-1, 1], np.int8), np.array([1 << 40, 0], np.uint64), out)
    np.testing.assert_array_equal(out, [8, 7, 41, 64])


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64], ids=dtype_id)
def test_brev_reverses_the_bits(dtype):
    @cuda.jit
    def reverse(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = cuda.brev(a[i])

    a = random_array(dtype, (100,))
    out = np.zeros_like(a)
    reverse[2, 64](a, out)
    width = bits(dtype)
    expected = [int(format(int(v), f"0{width}b")[::-1], 2) for v in a]
    np.testing.assert_array_equal(out, np.array(expected, dtype))


def test_fma_rounds_once_and_cbrt_and_selp():
    @cuda.jit
    def math(x, y, z, out32, out64, chosen):
        i = cuda.grid(1)
        if i < x.size:
            out32[i] = cuda.fma(x[i], y[i], z[i])
            out64[i] = cuda.cbrt(float(x[i]) * 8.0)
            chosen[i] = cuda.selp(x[i] > 0, i, -i)

    rng = np.random.default_rng(8)
    x = rng.standard_normal(300).astype(np.float32)
    y = rng.standard_normal(300).astype(np.float32)
    z = rng.standard_normal(300).astype(np.float32)
    out32 = np.zeros(300, np.float32)
    out64 = np.zeros(300)
    chosen = np.zeros(300, np.int64)
    math[5, 64](x, y, z, out32, out64, chosen)
    exact = (x.astype(np.float64) * y + z).astype(np.float32)  # the product is exact in f64
    np.testing.assert_array_equal(out32, exact)
    np.testing.assert_allclose(out64, np.cbrt(x.astype(np.float64) * 8.0), rtol=1e-15)
    np.testing.assert_array_equal(chosen, np.where(x > 0, np.arange(300), -np.arange(300)))


def test_misuse_names_what_was_given(tmp_path):
    module = module_from_source(
        tmp_path, "bits_misuse", "import cudajit as cuda\n\ndef brev64(a):\n"
        "    a[0] = cuda.brev(a[0])\n\ndef popc_float(a):\n    a[0] = cuda.popc(a[0])\n")
    with pytest.raises(cuda.CompileError, match=r"cuda.brev\(\) takes uint32 or uint64, got int64"):
        cuda.jit(module.brev64)[1, 1](np.zeros(1, np.int64))
    with pytest.raises(cuda.CompileError, match=r"cuda.popc\(\) needs an integer, got float64"):
        cuda.jit(module.popc_float)[1, 1](np.zeros(1))


def test_bit_intrinsics_compile_to_ptx_that_ptxas_accepts(check_ptx):
    def kernel(a, f):
        a[0] = cuda.popc(a[1]) + cuda.clz(a[2]) + cuda.ffs(a[3]) + cuda.brev(a[4])
        f[0] = cuda.fma(f[1], f[2], f[3]) + cuda.cbrt(f[4]) + cuda.selp(a[0] > 1, f[5], f[6])

    for cc in [(7, 5), (9, 0)]:
        ptx, _ = cuda.compile_ptx(kernel, "void(uint64[::1], float32[::1])", cc=cc)
        check_ptx(ptx, cc=cc)
        for text in ["popc.b64", "clz.b64", "brev.b64", "fma.rn.f32"]:
            assert text in ptx, text


def test_int_bit_count_counts_the_ones_of_the_magnitude_as_python_does():
    @cuda.jit
    def counts(u8, i64, out):
        out[0] = u8[0].bit_count()
        out[1] = i64[0].bit_count()
        out[2] = i64[1].bit_count()
        out[3] = i64[2].bit_count()

    u8 = np.array([0xFF], np.uint8)
    i64 = np.array([-1, -(2**63), 0x0F0F], np.int64)
    out = np.zeros(4, np.int64)
    counts[1, 1](u8, i64, out)
    expected = [int(u8[0]).bit_count()] + [int(v).bit_count() for v in i64]
    np.testing.assert_array_equal(out, expected)
