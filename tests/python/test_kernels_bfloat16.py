"""bfloat16 as a kernel type on every device, as numba-cuda's ``bf16`` has it: values made by
``bfloat16(x)`` and read from bfloat16 arrays (ml_dtypes' dtype, or CAI/DLPack's), arithmetic
rounded once to bfloat16, comparisons, promotion with other numbers, conversions both ways
(to nearest even, and cudajit.bf16's directed ones), math in float32 rounded once, and the
bits through reinterpretation. Expected values are float32 results rounded to bfloat16 in
NumPy (no ml_dtypes needed)."""

import math

import numpy as np
import pytest

import cudajit as cuda
from cudajit import bf16
from cudajit.bf16 import bfloat16
from cudajit.errors import CompileError

from conftest import assert_bits_equal_any_nan, kernel_from_body
from interop_producers import CaiProducer

pytestmark = pytest.mark.usefixtures("device")

BFLOAT16_CAI = {"typestr": "<V2", "descr": [("bfloat16", "<V2")]}


def bf16_bits(values):
    """float64 values to bfloat16 bits, rounded once to nearest even (NaN: a quiet NaN)."""
    out = []
    for v in np.asarray(values, np.float64).ravel():
        sign = 0x8000 if math.copysign(1.0, v) < 0 else 0
        m = abs(float(v))
        if math.isnan(m):
            out.append(0x7FC0)
            continue
        if m < 2.0**-126:  # a subnormal: a multiple of 2**-133
            magnitude = round(m * 2.0**133) * 2.0**-133
        elif math.isinf(m):
            magnitude = m
        else:
            fraction, exponent = math.frexp(m)  # Python's round(): ties to even
            magnitude = math.ldexp(round(fraction * 256), exponent - 8)
        if magnitude >= 2.0**128:
            magnitude = math.inf
        bits = int(np.array([magnitude], np.float32).view(np.uint32)[0]) >> 16  # exact
        out.append(sign | bits)
    return np.array(out, np.uint16)


def bf16_values(bits):
    """bfloat16 bits as float32 values (exact)."""
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32)


def rounded(values):
    """values rounded once to bfloat16, as float32."""
    return bf16_values(bf16_bits(values))


def bf16_device_array(values):
    """A device array of bfloat16 elements (through the CUDA Array Interface's descr)."""
    return CaiProducer(cuda.to_device(bf16_bits(values)), **BFLOAT16_CAI)


def test_is_bfloat16_supported_on_the_cpu_device_and_sm_80_gpus(device):
    d = cuda.get_current_device()
    expected = device == "cpu" or d.compute_capability >= (8, 0)
    assert cuda.is_bfloat16_supported() is expected


VALUES = [1.25, -2.5, 3.140625, 0.1, 1e30, -7.0, 2.0**-130, 255.0, 257.0, 1 / 3]


@pytest.mark.parametrize("op", ["+", "-", "*", "/"])
def test_arithmetic_on_two_bfloat16_values_is_rounded_once_to_bfloat16(op):
    kernel = cuda.jit(kernel_from_body(
        "a, b, out", f"for i in range(a.size):\n    out[i] = cuda.float32(a[i] {op} b[i])",
        cuda=cuda))
    a = rounded(VALUES)
    b = rounded(VALUES[::-1])
    out = np.zeros(len(VALUES), np.float32)
    kernel[1, 1](bf16_device_array(a), bf16_device_array(b), out)
    expected = rounded(eval(f"a.astype(np.float64) {op} b.astype(np.float64)"))  # noqa: S307
    np.testing.assert_array_equal(out, expected)


def test_bfloat16_constructor_rounds_to_nearest_even_from_each_type():
    @cuda.jit
    def kernel(out):
        out[0] = cuda.float32(bfloat16(3.14))
        out[1] = cuda.float32(bfloat16(cuda.float32(257.0)))  # a tie: to even, 256
        out[2] = cuda.float32(bfloat16(cuda.int32(259)))  # 259 -> 260 (nearest)
        out[3] = cuda.float32(bfloat16(cuda.int64(-789)))
        out[4] = cuda.float32(bfloat16(cuda.uint16(65535)))
        out[5] = cuda.float32(bfloat16(cuda.float16(0.1)))
        out[6] = cuda.float32(bfloat16(1e39))  # past the largest bfloat16: inf
        out[7] = cuda.float32(bfloat16(True))

    out = np.zeros(8, np.float32)
    kernel[1, 1](out)
    expected = rounded([3.14, 257.0, 259, -789, 65535, float(np.float16(0.1)), np.inf, 1.0])
    np.testing.assert_array_equal(out, expected)


def test_bfloat16_converts_to_ints_saturating_and_to_floats_exactly():
    @cuda.jit
    def kernel(x, i16, u16, i64, f16, f64):
        a = x[0]
        i16[0] = cuda.int16(a)
        u16[0] = cuda.uint16(a)
        i64[0] = cuda.int64(a)
        f16[0] = cuda.float16(a)
        f64[0] = cuda.float64(a)
        i16[1] = cuda.int16(x[1])  # 1e30: clamped
        u16[1] = cuda.uint16(x[2])  # -5: clamped to 0

    x = rounded([-3.75, 1e30, -5.0])
    i16, u16, i64 = np.zeros(2, np.int16), np.zeros(2, np.uint16), np.zeros(1, np.int64)
    f16, f64 = np.zeros(1, np.float16), np.zeros(1, np.float64)
    kernel[1, 1](bf16_device_array(x), i16, u16, i64, f16, f64)
    assert list(i16) == [-3, 32767]
    assert list(u16) == [0, 0]
    assert i64[0] == -3 and f16[0] == np.float16(-3.75) and f64[0] == -3.75


def test_bfloat16_meets_other_numbers_as_jax_promotes():
    @cuda.jit
    def kernel(x, out16, out32, out64):
        a = x[0]
        out16[0] = a * cuda.int8(3)  # bfloat16: rounded to bfloat16 in the kernel
        out32[0] = a + cuda.float16(1.0)  # float32
        out64[0] = a + 1  # int64 meets it in float64

    x = rounded([1.0 + 2.0**-7])
    out16 = cuda.to_device(bf16_bits([0.0]))
    out32, out64 = np.zeros(1, np.float32), np.zeros(1, np.float64)
    kernel[1, 1](bf16_device_array(x), CaiProducer(out16, **BFLOAT16_CAI), out32, out64)
    assert bf16_values(out16.copy_to_host())[0] == rounded([3 * (1.0 + 2.0**-7)])[0]
    assert out32[0] == np.float32(2.0 + 2.0**-7)
    assert out64[0] == 2.0 + 2.0**-7


def test_comparisons_of_bfloat16_values_with_nan_unordered():
    @cuda.jit
    def kernel(x, out):
        a, b = x[0], x[1]
        out[0] = a < b
        out[1] = a == b
        out[2] = a != b
        out[3] = bf16.hne(a, x[2])  # ordered: false with NaN
        out[4] = bf16.hneu(a, x[2])  # unordered: true with NaN
        out[5] = bf16.hisnan(x[2])
        out[6] = bf16.hequ(a, x[2])

    out = np.zeros(7, np.bool_)
    kernel[1, 1](bf16_device_array([1.0, 2.0, np.nan]), out)
    assert list(out) == [True, False, True, False, True, True, True]


def test_math_functions_compute_in_float32_and_round_once():
    @cuda.jit
    def kernel(x, out):
        a = x[0]
        out[0] = cuda.float32(math.sqrt(a))
        out[1] = cuda.float32(math.exp(a))
        out[2] = cuda.float32(bf16.hsin(a))
        out[3] = cuda.float32(bf16.hlog2(a))
        out[4] = cuda.float32(bf16.hrsqrt(a))
        out[5] = cuda.float32(bf16.hexp10(a))
        out[6] = cuda.float32(bf16.htrunc(a))
        out[7] = cuda.float32(bf16.hrint(a))

    x = rounded([3.14])
    a = np.float32(x[0])
    out = np.zeros(8, np.float32)
    kernel[1, 1](bf16_device_array(x), out)
    exact = [np.sqrt(a), np.exp(a), np.sin(a), np.log2(a), 1 / np.sqrt(a), 10.0**a, 3.0, 3.0]
    # float32 math is within an ulp or two of float32: the rounded value, or a neighbour.
    expected = rounded(exact)
    ulp = np.abs(bf16_bits(exact).astype(np.int32) - bf16_bits(out.astype(np.float64))
                 .astype(np.int32))
    assert (ulp <= 1).all(), (out, expected)
    np.testing.assert_array_equal(out[[0, 6, 7]], expected[[0, 6, 7]])


def test_arithmetic_functions_saturate_fuse_and_propagate_nan_as_cuda_does():
    @cuda.jit
    def kernel(out):
        a, b, nan = bfloat16(1.5), bfloat16(0.75), bfloat16(math.nan)
        out[0] = cuda.float32(bf16.hadd_sat(a, b))
        out[1] = cuda.float32(bf16.hsub_sat(b, a))
        out[2] = cuda.float32(bf16.hfma(a, b, bfloat16(-1.0)))
        out[3] = cuda.float32(bf16.hfma_relu(-a, b, bfloat16(0.0)))
        out[4] = cuda.float32(bf16.hmax(nan, b))
        out[5] = cuda.float32(bf16.hmax_nan(nan, b))
        out[6] = cuda.float32(bf16.habs(-a))
        out[7] = cuda.float32(bf16.hneg(a))
        out[8] = bf16.hisinf(bfloat16(-math.inf))

    out = np.zeros(9, np.float32)
    kernel[1, 1](out)
    np.testing.assert_array_equal(out[[0, 1, 2, 3, 4, 6, 7, 8]],
                                  [1.0, 0.0, 0.125, 0.0, 0.75, 1.5, -1.5, -1.0])
    assert math.isnan(out[5])


ROUNDING_CASES = [1.0 + 2.0**-8, -(1.0 + 2.0**-8), 1.0 + 3 * 2.0**-9, 3.0e38, -3.0e38, 0.0,
                  2.0**-140]


def directed(values, mode):
    """Reference: values (float64) rounded to bfloat16 in mode rz, rd or ru, as float32."""
    out = []
    for v in values:
        near = float(rounded([v])[0])
        if near == v:
            out.append(near)
            continue
        bits = int(bf16_bits([v])[0])
        step = {True: 1, False: -1}
        up_bits = bits + (step[near >= 0] if near < v else 0) if near != 0 else bits
        down_bits = bits + (step[near < 0] if near > v else 0) if near != 0 else bits
        if near == 0:
            up_bits = 0x0001 if v > 0 else bits
            down_bits = 0x8001 if v < 0 else bits
        chosen = {"ru": up_bits, "rd": down_bits,
                  "rz": down_bits if v > 0 else up_bits}[mode]
        out.append(float(bf16_values([chosen & 0xFFFF])[0]))
    return np.array(out, np.float32)


@pytest.mark.parametrize("mode", ["rn", "rz", "rd", "ru"])
def test_float32_to_bfloat16_rounds_in_each_direction(mode):
    convert = getattr(bf16, f"float32_to_bfloat16_{mode}")

    @cuda.jit
    def kernel(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = cuda.float32(convert(x[i]))

    x = np.array(ROUNDING_CASES, np.float32)
    out = np.zeros(x.size, np.float32)
    kernel[1, 32](x, out)
    expected = rounded(x.astype(np.float64)) if mode == "rn" else directed(x.astype(np.float64),
                                                                         mode)
    np.testing.assert_array_equal(out, expected)


def directed_integer(v, mode):
    """Reference, in integers: the integer v rounded to bfloat16 in mode rz, rd or ru."""
    m = abs(v)
    e = max(m.bit_length() - 8, 0)  # bfloat16 keeps 8 significant bits
    lower = (m >> e) << e
    upper = lower if lower == m else lower + (1 << e)
    if upper > 0xFF << 120:  # past the largest bfloat16 (255 * 2**120): infinity
        upper = math.inf
    toward_plus = upper if v >= 0 else -lower
    toward_minus = lower if v >= 0 else -upper
    return {"ru": toward_plus, "rd": toward_minus,
            "rz": toward_minus if v >= 0 else toward_plus}[mode]


@pytest.mark.parametrize("mode", ["rz", "rd", "ru"])
def test_integers_to_bfloat16_round_in_each_direction_exactly(mode):
    from_int32 = getattr(bf16, f"int32_to_bfloat16_{mode}")
    from_int64 = getattr(bf16, f"int64_to_bfloat16_{mode}")
    from_uint64 = getattr(bf16, f"uint64_to_bfloat16_{mode}")

    @cuda.jit
    def kernel(i32, i64, u64, out):
        for k in range(i32.size):
            out[0, k] = cuda.float64(from_int32(i32[k]))
            out[1, k] = cuda.float64(from_int64(i64[k]))
            out[2, k] = cuda.float64(from_uint64(u64[k]))

    i32 = np.array([789, -789, 257, 2**31 - 1], np.int32)
    # 2**60 + 1 is 2**60 in float64: only a comparison of integers sees it is above.
    i64 = np.array([789, -(2**60) - 1, 2**60 + 1, -(2**63)], np.int64)
    u64 = np.array([789, 2**64 - 1, 2**60 + 1, 0], np.uint64)
    out = np.zeros((3, 4), np.float64)
    kernel[1, 1](i32, i64, u64, out)
    for row, values in zip(out, (i32, i64, u64)):
        assert list(row) == [directed_integer(int(v), mode) for v in values]


def test_bits_round_trip_through_int16_and_convert_with_saturation():
    @cuda.jit
    def kernel(bits, i16, u8, i32):
        a = bf16.int16_as_bfloat16(bits[0])
        i16[0] = bf16.bfloat16_as_int16(a)
        u8[0] = bf16.bfloat16_to_uint8_rz(bfloat16(300.0))
        i32[0] = bf16.bfloat16_to_int32_rn(a)  # 1.5 -> 2 (ties to even)
        i32[1] = bf16.bfloat16_to_int32_rd(-a)
        i32[2] = bf16.bfloat16_to_int32_rz(bfloat16(math.nan))

    bits = np.array([0x3FC0], np.int16)  # 1.5
    i16, u8, i32 = np.zeros(1, np.int16), np.zeros(1, np.uint8), np.zeros(3, np.int32)
    kernel[1, 1](bits, i16, u8, i32)
    assert i16[0] == 0x3FC0 and u8[0] == 255 and list(i32) == [2, -2, 0]


def test_bfloat16_scalar_arguments_and_values_in_device_functions():
    ml_dtypes = pytest.importorskip("ml_dtypes")

    @cuda.jit(device=True)
    def add(a, b):
        return a + b

    @cuda.jit
    def kernel(x, out):
        out[0] = cuda.float32(add(x, bfloat16(5)))  # 8.140625: 8 bits keep 8.125
        out[1] = isinstance(x, bfloat16) and not isinstance(x, cuda.float16)

    out = np.zeros(2, np.float32)
    kernel[1, 1](ml_dtypes.bfloat16(3.140625), out)
    assert list(out) == [8.125, 1.0]


def test_bfloat16_arrays_of_ml_dtypes_compute_in_bfloat16():
    ml_dtypes = pytest.importorskip("ml_dtypes")

    @cuda.jit
    def kernel(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = 2 * a[i] + 4 * b[i] + ml_dtypes.bfloat16(3.0)

    a = np.asarray([1, 2, 3, 4, 5], dtype=ml_dtypes.bfloat16)
    b = np.arange(5)
    out = np.empty(5, ml_dtypes.bfloat16)
    kernel[1, 32](a, b, out)
    assert (out == 2 * a + 4 * b + 3.0).all()


def test_bfloat16_values_cannot_be_atomically_added_to_and_say_so():
    @cuda.jit
    def kernel(x):
        cuda.atomic.add(x, 0, 1.0)

    with pytest.raises(CompileError, match="bfloat16"):
        kernel[1, 1](bf16_device_array([0.0]))


def test_bfloat16_does_not_convert_from_complex_and_says_so():
    @cuda.jit
    def kernel(out):
        out[0] = cuda.float32(bfloat16(1j))

    with pytest.raises(CompileError, match=r"cannot convert complex128 to bfloat16"):
        kernel[1, 1](np.zeros(1, np.float32))


def test_bfloat16_stores_round_once_from_float64():
    @cuda.jit
    def kernel(x, out):
        out[0] = x[0]

    x = np.array([1.0 + 2.0**-8 + 2.0**-40], np.float64)  # above the tie: rounds up
    out = cuda.to_device(bf16_bits([0.0]))
    kernel[1, 1](x, CaiProducer(out, **BFLOAT16_CAI))
    assert_bits_equal_any_nan(out.copy_to_host(), bf16_bits(x), bf16_values)


def test_float_of_a_string_is_a_constant_as_numba_folds_it():
    @cuda.jit
    def kernel(out):
        out[0] = bf16.hisnan(bfloat16(float("nan")))
        out[1] = bf16.hisinf(bfloat16(float("-inf"))) == -1

    out = np.zeros(2, np.bool_)
    kernel[1, 1](out)
    assert list(out) == [True, True]

    @cuda.jit
    def bad(out):
        out[0] = float("half")

    with pytest.raises(CompileError, match="could not convert string to float: 'half'"):
        bad[1, 1](np.zeros(1))


# sm_80 adds in float32 and rounds with cvt.rn.bf16.f32 (exact: float32 holds every sum of
# two bfloat16 values to better than half a bfloat16 ulp); sm_90 has add.bf16.
@pytest.mark.parametrize("cc, instruction", [((8, 0), "cvt.rn.bf16.f32"), ((9, 0), "add.bf16")])
def test_bfloat16_addition_is_ptx_bf16_arithmetic_from_sm_80(check_ptx, cc, instruction):
    def add(a, b, out):
        out[0] = a[0] + b[0]

    bf16_array = cuda.types.Array(bfloat16, 1, "C")
    ptx, _ = cuda.compile_ptx(add, (bf16_array, bf16_array, bf16_array), cc=cc)
    assert instruction in ptx
    check_ptx(ptx, cc)
