"""float16 on every device: arrays in and out of kernels and in shared memory,
arithmetic rounded to float16 as Numba types it (float16 op float16 stays
float16), math functions, conversions both ways, scalars, cuda.fp16, atomic
add, print; and bfloat16 arrays (PyTorch's and JAX's) through CAI and DLPack
(bfloat16 values in kernels: test_kernels_bfloat16.py)."""

import math

import numpy as np
import pytest

import cudajit as cuda
from cudajit import fp16
from cudajit.errors import CompileError

from conftest import assert_bits_equal_any_nan
from interop_producers import CaiProducer, CapsuleProducer, set_capsule_dtype

pytestmark = pytest.mark.usefixtures("device")

H = np.float16
SPECIALS = np.array([0.0, -0.0, 1.0, -2.5, 65504.0, -65504.0, 6.1e-5, 6e-8, np.inf, -np.inf,
                     np.nan, 0.333, 1000.0, -7.0], H)


def halves(n, seed=0, low=-100.0, high=100.0):
    rng = np.random.default_rng(seed)
    return np.concatenate([SPECIALS, rng.uniform(low, high, n).astype(H)])


def assert_same_halves(got, expected):
    """Bit-for-bit, NaNs as NaNs (any payload)."""
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, expected.astype(H))


# --- arrays and arithmetic -------------------------------------------------------------


@pytest.mark.parametrize("op", ["+", "-", "*", "/"])
def test_arithmetic_on_float16_arrays_is_rounded_once_as_numpy_does(op):
    kernels = {}

    @cuda.jit
    def add(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = a[i] + b[i]

    @cuda.jit
    def sub(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = a[i] - b[i]

    @cuda.jit
    def mul(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = a[i] * b[i]

    @cuda.jit
    def div(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = a[i] / b[i]

    kernels = {"+": add, "-": sub, "*": mul, "/": div}
    a = halves(200, seed=1)
    b = np.roll(halves(200, seed=2), 3)
    out = np.zeros_like(a)
    kernels[op][4, 64](a, b, out)
    with np.errstate(all="ignore"):
        expected = {"+": a + b, "-": a - b, "*": a * b, "/": a / b}[op]
    assert_same_halves(out, expected)


def test_float16_with_float16_stays_float16_and_mixed_operands_widen_as_numba_types_them():
    @cuda.jit
    def widths(a, b32, n, out):
        out[0] = a[0] + a[1]       # float16: 1 + 2**-11 rounds to 1 (ties to even)
        out[1] = a[0] + b32[0]     # float32
        out[2] = a[0] + n          # int64 meets float16: float64
        out[3] = -a[1]             # unary minus keeps float16

    a = np.array([1.0, 2.0**-11], H)
    b32 = np.array([2.0**-11], np.float32)
    out = np.zeros(4, np.float64)
    widths[1, 1](a, b32, 2**40, out)
    assert out[0] == 1.0
    assert out[1] == 1.0 + 2.0**-11
    assert out[2] == 1.0 + 2.0**40
    assert out[3] == -(2.0**-11)


def test_multiply_add_is_within_one_rounding_of_the_fused_result():
    @cuda.jit
    def axpy(a, x, y, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = a[0] * x[i] + y[i]

    a = np.array([1.7], H)
    x = halves(300, seed=3, low=-8, high=8)[14:]
    y = halves(300, seed=4, low=-8, high=8)[14:]
    out = np.zeros_like(x)
    axpy[5, 64](a, x, y, out)
    unfused = a[0] * x + y
    fused = (a.astype(np.float64)[0] * x.astype(np.float64) + y.astype(np.float64)).astype(H)
    assert np.all((out == unfused) | (out == fused))


def test_comparisons_min_max_abs_on_float16():
    @cuda.jit
    def compare(a, b, flags, picked):
        i = cuda.grid(1)
        if i < a.size:
            flags[i, 0] = a[i] < b[i]
            flags[i, 1] = a[i] == b[i]
            flags[i, 2] = a[i] != b[i]
            picked[i, 0] = min(a[i], b[i])
            picked[i, 1] = max(a[i], b[i])
            picked[i, 2] = abs(a[i])

    a = np.array([1.0, 2.0, -0.0, np.nan, -3.0], H)
    b = np.array([2.0, 2.0, 0.0, 1.0, -4.0], H)
    flags = np.zeros((5, 3), np.bool_)
    picked = np.zeros((5, 3), H)
    compare[1, 32](a, b, flags, picked)
    np.testing.assert_array_equal(flags[:, 0], a < b)
    np.testing.assert_array_equal(flags[:, 1], a == b)
    np.testing.assert_array_equal(flags[:, 2], a != b)
    np.testing.assert_array_equal(picked[:, 0], [1.0, 2.0, -0.0, np.nan, -4.0])
    np.testing.assert_array_equal(picked[:, 1], [2.0, 2.0, -0.0, np.nan, -3.0])
    np.testing.assert_array_equal(picked[:, 2], np.abs(a))


# --- math and conversions --------------------------------------------------------------


MATH = {
    "sin": (math.sin, np.sin), "cos": (math.cos, np.cos), "exp": (math.exp, np.exp),
    "log": (math.log, np.log), "sqrt": (math.sqrt, np.sqrt), "tanh": (math.tanh, np.tanh),
    "floor": (math.floor, np.floor), "ceil": (math.ceil, np.ceil),
    "trunc": (math.trunc, np.trunc), "fabs": (math.fabs, np.fabs),
}


@pytest.mark.parametrize("name", sorted(MATH))
def test_math_functions_of_float16_return_float16_within_one_ulp_of_numpy(name):
    fn, reference = MATH[name]

    @cuda.jit
    def apply(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = fn(x[i])

    x = halves(100, seed=5, low=0.01, high=9.0)
    out = np.zeros_like(x)
    apply[4, 64](x, out)
    with np.errstate(all="ignore"):
        expected = reference(x)
    assert out.dtype == np.float16
    np.testing.assert_array_equal(np.isnan(out), np.isnan(expected))
    finite = np.isfinite(expected)
    np.testing.assert_array_equal(out[~finite & ~np.isnan(expected)],
                                  expected[~finite & ~np.isnan(expected)])
    ulp = np.spacing(np.abs(expected[finite]))
    assert np.all(np.abs(out[finite].astype(np.float64) - expected[finite]) <= ulp)


def test_conversions_to_and_from_float16_round_to_nearest_even_once():
    @cuda.jit
    def convert(d, f, i, halves_out, ints_out):
        k = cuda.grid(1)
        if k < d.size:
            halves_out[k, 0] = d[k]
            halves_out[k, 1] = f[k]
            halves_out[k, 2] = i[k]
            ints_out[k] = np.int32(halves_out[k, 1])

    # float64 -> float16 directly: 1 + 2**-11 + 2**-40 rounds up (through float32 it
    # would tie to 1.0); 65519.9 stays finite, 65520 overflows; 2**-25 ties to 0.
    d = np.array([1 + 2.0**-11 + 2.0**-40, 65519.9, 65520.0, 2.0**-25, -3.75, np.nan])
    f = np.array([65519.0, 65520.0, 0.1, -1e-9, 3.5, np.inf], np.float32)
    i = np.array([70000, -70000, 2049, 2051, -5, 0], np.int64)
    halves_out = np.zeros((6, 3), H)
    ints_out = np.zeros(6, np.int32)
    convert[1, 32](d, f, i, halves_out, ints_out)
    np.testing.assert_array_equal(halves_out[:, 0], d.astype(H))
    np.testing.assert_array_equal(halves_out[:, 1], f.astype(H))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(halves_out[:, 2], i.astype(H))
    assert halves_out[0, 0] == 1 + 2.0**-10
    # float16 -> int32 truncates; infinity saturates, as every float-to-int cast does.
    np.testing.assert_array_equal(ints_out, [65504, np.iinfo(np.int32).max, 0, 0, 3,
                                             np.iinfo(np.int32).max])


def test_float16_scalars_are_kernel_arguments():
    @cuda.jit
    def scale(x, by, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] * by

    x = np.array([1.0, -2.0, 3.5], H)
    out = np.zeros_like(x)
    scale[1, 32](x, H(1.5), out)
    assert_same_halves(out, x * H(1.5))

    explicit = cuda.jit("void(float16[::1], float16, float16[::1])")(scale.py_func)
    explicit[1, 32](x, 0.1, out)  # a Python float converted to the signature's float16
    assert_same_halves(out, x * H(0.1))


# --- shared memory, fp16, atomics, print --------------------------------------------------


def test_float16_shared_array_reverses_a_block():
    @cuda.jit
    def reverse(x, out):
        tile = cuda.shared.array(64, dtype=np.float16)
        t = cuda.threadIdx.x
        tile[t] = x[cuda.grid(1)]
        cuda.syncthreads()
        out[cuda.grid(1)] = tile[63 - t]

    x = halves(128 - 14, seed=6)
    out = np.zeros_like(x)
    reverse[2, 64](x, out)
    expected = np.concatenate([x[:64][::-1], x[64:][::-1]])
    np.testing.assert_array_equal(out, expected)


def test_cuda_fp16_functions_match_numpy():
    @cuda.jit
    def apply(a, b, out, flags):
        i = cuda.grid(1)
        if i < a.size:
            x = a[i]
            y = b[i]
            out[i, 0] = fp16.hadd(x, y)
            out[i, 1] = fp16.hsub(x, y)
            out[i, 2] = fp16.hmul(x, y)
            out[i, 3] = fp16.hdiv(x, y)
            out[i, 4] = fp16.hneg(x)
            out[i, 5] = fp16.habs(y)
            out[i, 6] = fp16.hfma(x, y, x)
            out[i, 7] = fp16.hmax(x, y)
            out[i, 8] = fp16.hmin(x, y)
            out[i, 9] = fp16.hsqrt(x)
            out[i, 10] = fp16.hrint(y)
            out[i, 11] = fp16.hexp2(y)
            out[i, 12] = fp16.hfloor(y)
            out[i, 13] = fp16.hrcp(y)
            flags[i, 0] = fp16.heq(x, y)
            flags[i, 1] = fp16.hlt(x, y)
            flags[i, 2] = fp16.hne(x, y)
            flags[i, 3] = fp16.hge(x, y)

    a = np.array([0, 1, 2.5, np.nan, -3, 65504, 1e-7, np.inf], H)
    b = np.array([1, -1, 2.5, 2, np.nan, 2, -0.5, 1.5], H)
    out = np.zeros((8, 14), H)
    flags = np.zeros((8, 4), np.bool_)
    apply[1, 32](a, b, out, flags)
    wide = a.astype(np.float64)
    with np.errstate(all="ignore"):
        expected = [a + b, a - b, a * b, a / b, -a, np.abs(b), (wide * b + wide).astype(H),
                    np.fmax(a, b), np.fmin(a, b), np.sqrt(a), np.rint(b), np.exp2(b),
                    np.floor(b), (1 / b.astype(np.float32)).astype(H)]
    for column, values in enumerate(expected):
        np.testing.assert_array_equal(out[:, column], values, err_msg=f"column {column}")
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(flags, np.stack([a == b, a < b, (a < b) | (a > b),
                                                       a >= b], axis=1))


def test_atomic_add_on_float16_counts_every_thread():
    @cuda.jit
    def count(total, old):
        i = cuda.grid(1)
        old[i] = cuda.atomic.add(total, 0, 1.0)

    total = np.zeros(1, H)
    old = np.zeros(1024, H)
    count[8, 128](total, old)
    assert total[0] == 1024  # integers up to 2048 are exact in float16
    np.testing.assert_array_equal(np.sort(old), np.arange(1024, dtype=H))


def test_print_formats_float16_as_a_float(capfd):
    @cuda.jit
    def show(x):
        print("half", x[0])

    show[1, 1](np.array([1.5], H))
    cuda.synchronize()
    assert capfd.readouterr().out.splitlines() == ["half 1.500000"]


# --- device arrays and interchange ------------------------------------------------------------


def test_float16_device_arrays_round_trip_and_export_f2(device):
    host = halves(50, seed=7)
    d = cuda.to_device(host)
    assert d.dtype == np.float16
    if device == "cuda":  # cpu-device arrays are host memory: no CUDA Array Interface
        assert d.__cuda_array_interface__["typestr"] == "<f2"
    out = cuda.device_array_like(d)

    @cuda.jit
    def double(x, y):
        i = cuda.grid(1)
        if i < x.size:
            y[i] = x[i] * 2

    double[1, 128](d, out)
    assert_same_halves(out.copy_to_host(), host * H(2))


def test_float16_arrays_from_dlpack_and_cai_producers():
    host = halves(20, seed=8)
    d = cuda.to_device(host)
    via_cai = cuda.as_cuda_array(CaiProducer(d))
    assert via_cai.dtype == np.float16
    np.testing.assert_array_equal(via_cai.copy_to_host(), host)
    via_dlpack = cuda.from_dlpack(d)
    assert via_dlpack.dtype == np.float16
    np.testing.assert_array_equal(via_dlpack.copy_to_host(), host)


def bfloat16_bits(values):
    """float32 values to bfloat16 bits, rounded to nearest even (NaN stays NaN)."""
    bits = np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(np.asarray(values, np.float32))
    return np.where(nan, ((bits >> 16) | 0x40).astype(np.uint16), rounded)


def bfloat16_values(bits):
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32)


BFLOAT16_CAI = {"typestr": "<V2", "descr": [("bfloat16", "<V2")]}


def test_bfloat16_arrays_read_exactly_and_stores_round_to_nearest_even():
    @cuda.jit
    def scale(x, y, read):
        i = cuda.grid(1)
        if i < x.size:
            read[i] = x[i]
            x[i] = y[i] * 3

    y = np.array([1.0, 1.0 + 2.0**-9, -2.5, 1.134e38, np.nan, 1 / 3, 0.0], np.float32)
    start = bfloat16_bits(np.array([0.5, -1.0, 3.0, 2.0**-130, np.inf, 7.0, -0.0]))
    d = cuda.to_device(start)
    read = np.zeros(7, np.float32)
    scale[1, 32](CaiProducer(d, **BFLOAT16_CAI), y, read)
    np.testing.assert_array_equal(read, bfloat16_values(start))
    written = d.copy_to_host()
    assert_bits_equal_any_nan(written, bfloat16_bits(y * np.float32(3)), bfloat16_values)
    assert bfloat16_values(written)[3] == np.inf  # 3.402e38: a float32, past bfloat16's largest


def test_bfloat16_from_dlpack_is_kdlbfloat():
    start = bfloat16_bits([1.5, -0.25, 100.0])
    d = cuda.to_device(start)
    capsule = set_capsule_dtype(d.__dlpack__(max_version=(1, 0)), code=4, bits=16)
    producer = CapsuleProducer(capsule, device=d.__dlpack_device__())

    @cuda.jit
    def total(x, out):
        out[0] = x[0] + x[1] + x[2]

    out = np.zeros(1, np.float32)
    total[1, 1](producer, out)
    assert out[0] == 101.0  # 1.25 + 100.0 in bfloat16: 101.25 is a tie, to even


def test_bfloat16_without_its_descr_is_refused():
    d = cuda.to_device(np.zeros(3, np.uint16))

    @cuda.jit
    def touch(x):
        x[0] = 1

    with pytest.raises(TypeError, match=r"V2.*void or structured"):
        touch[1, 1](CaiProducer(d, typestr="<V2", descr=[("", "<V2")]))


def test_float16_atomics_other_than_add_are_refused_naming_the_types():
    @cuda.jit
    def biggest(x):
        cuda.atomic.max(x, 0, 1.0)

    with pytest.raises(CompileError, match=r"int32, uint32, int64, uint64, float32 or float64, "
                                           r"got array\(float16"):
        biggest[1, 1](np.zeros(1, H))


@pytest.mark.parametrize("cc", [(7, 5), (8, 0), (9, 0)])
def test_float16_kernels_assemble_for_every_target(check_ptx, cc):
    def kernel(a, b, out, counter):
        i = cuda.grid(1)
        if i < a.size:
            x = a[i] * b[i] + a[i]
            out[i] = max(fp16.hsqrt(abs(x)), -x) if x < 2 else math.sin(x)
            cuda.atomic.add(counter, 0, x)

    ptx, _ = cuda.compile_ptx(kernel, "void(float16[::1], float16[::1], float16[::1], "
                              "float16[::1])", cc=cc)
    check_ptx(ptx, cc)
    assert ".f16" in ptx
