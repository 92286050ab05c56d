"""CUDA's 8-bit floats (cudajit.fp8, numba-cuda's cuda_fp8) in kernels on every device: every
value class of E4M3, E5M2 and E8M0 (normals, subnormals, zeros, infinities, NaN, values that
round to even, overflow with and without saturation), against a reference written here from
the formats' definitions (every byte's value, and rounding as the nearest such value)."""

import math
from fractions import Fraction

import numpy as np
import pytest

import cudajit as cuda
from cudajit import fp8
from cudajit.fp8 import (cudaRoundMode, fp8_e4m3, fp8_e5m2, fp8_e8m0, fp8_interpretation_t,
                         saturation_t)
from cudajit.intrinsics import reinterpret

from conftest import run_ptxas

pytestmark = pytest.mark.usefixtures("device")

FORMATS = {"e4m3": (4, 3), "e5m2": (5, 2)}


def byte_value(fmt, b):
    """The value of the byte b in a format, from its definition."""
    if fmt == "e8m0":
        return math.nan if b == 0xFF else math.ldexp(1.0, b - 127)
    exp_bits, man_bits = FORMATS[fmt]
    bias = (1 << (exp_bits - 1)) - 1
    sign = -1.0 if b & 0x80 else 1.0
    e = (b >> man_bits) & ((1 << exp_bits) - 1)
    m = b & ((1 << man_bits) - 1)
    if fmt == "e4m3" and e == 15 and m == 7:
        return math.nan
    if fmt == "e5m2" and e == 31:
        return sign * math.inf if m == 0 else math.nan
    if e == 0:
        return sign * math.ldexp(m, 1 - bias - man_bits)
    return sign * math.ldexp((1 << man_bits) + m, e - bias - man_bits)


def encode(fmt, x, saturate=True):
    """x rounded to nearest even in E4M3 / E5M2 (the byte): the nearest finite value, the
    one with an even byte at a tie; beyond the largest value and half its step an overflow:
    the largest value (saturate), else NaN (E4M3) or infinity (E5M2). The sign is kept."""
    if math.isnan(x):
        return 0x7F if fmt == "e4m3" else 0x7E  # positive NaN in: cuda_fp8.hpp's
    sign = 0x80 if math.copysign(1.0, x) < 0 else 0
    a = abs(x)
    finite = [(byte_value(fmt, b), b) for b in range(0x80)
              if math.isfinite(byte_value(fmt, b))]
    top, top_byte = finite[-1]
    step = top - finite[-2][0]
    finite.append((top + step, top_byte + 1))  # the first value beyond: an overflow
    if math.isinf(a):
        best_byte = top_byte + 1
    else:  # exact distances: float64 ones tie for huge values
        _, best_byte = min(finite, key=lambda vb: (abs(Fraction(vb[0]) - Fraction(a)),
                                                   vb[1] & 1))
    if best_byte > top_byte:
        best_byte = top_byte if saturate else (0x7F if fmt == "e4m3" else 0x7C)
    return sign | best_byte


def encode_e8m0(x, round_up=True, saturate=True):
    """|x| as 2**(b - 127): rounded up (or towards zero) to a power of two, b of 0 to 254;
    an overflow 254 (saturate) or 0xFF; NaN 0xFF."""
    if math.isnan(x):
        return 0xFF
    a = abs(x)
    if math.isinf(a):
        return 0xFE if saturate else 0xFF
    if a == 0:
        return 0
    m, e = math.frexp(a)  # a = m * 2**e, 0.5 <= m < 1
    k = e - 1 if (m == 0.5 or not round_up) else e  # floor or ceil of log2(a)
    b = max(k + 127, 0)
    if b > 254:
        return 0xFE if (saturate or not round_up) else 0xFF
    return b


def interesting(fmt):
    """Inputs of every class: each finite value, the midpoints (ties), values just beside
    them, subnormals' and underflow's, zeros, infinities, NaN, overflows."""
    values = [byte_value(fmt, b) for b in range(0x80) if math.isfinite(byte_value(fmt, b))]
    out = list(values)
    for lo, hi in zip(values, values[1:]):
        mid = (lo + hi) / 2
        out += [mid, math.nextafter(mid, 0), math.nextafter(mid, math.inf)]
    top = values[-1]
    step = top - values[-2]
    out += [top + step / 2, math.nextafter(top + step / 2, math.inf),
            math.nextafter(top + step / 2, 0), top * 4, 1e20, 1e300, math.inf,
            values[1] / 2, math.nextafter(values[1] / 2, math.inf), values[1] / 3, 1e-300,
            0.0, 3.14159, 0.1, 300.0, 1000.0]
    out += [-v for v in out]
    return np.array(out + [math.nan], np.float64)


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
@pytest.mark.parametrize("saturate", [True, False])
def test_double_to_fp8_every_class(fmt, saturate):
    interp = fp8_interpretation_t.E4M3 if fmt == "e4m3" else fp8_interpretation_t.E5M2
    sat = saturation_t.SATFINITE if saturate else saturation_t.NOSAT

    @cuda.jit
    def kernel(out, x):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = fp8.cvt_double_to_fp8(x[i], sat, interp)

    x = interesting(fmt)
    out = np.zeros(x.size, np.uint8)
    kernel[(x.size + 63) // 64, 64](out, x)
    expected = np.array([encode(fmt, v, saturate) for v in x], np.uint8)
    bad = np.nonzero(out != expected)[0]
    assert bad.size == 0, [(x[i], hex(out[i]), hex(expected[i])) for i in bad[:8]]


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2", "e8m0"])
def test_constructor_from_float32_and_float64(fmt):
    typ = {"e4m3": fp8_e4m3, "e5m2": fp8_e5m2, "e8m0": fp8_e8m0}[fmt]

    @cuda.jit
    def kernel(out64, out32, x, x32):
        i = cuda.grid(1)
        if i < x.size:
            out64[i] = reinterpret.uint8(typ(x[i]))
            out32[i] = reinterpret.uint8(typ(x32[i]))

    x = interesting("e4m3" if fmt == "e8m0" else fmt)
    if fmt == "e8m0":
        x = np.concatenate([x, [2.0**-127, 2.0**-126, 1.5 * 2.0**-127, 2.0**-130, 2.0**127,
                                np.nextafter(2.0**127, np.inf), 2.0**127 * 1.5, 3e38,
                                0.75, 5.0, -6.0]])
    x32 = x.astype(np.float32)
    out64 = np.zeros(x.size, np.uint8)
    out32 = np.zeros(x.size, np.uint8)
    kernel[(x.size + 63) // 64, 64](out64, out32, x, x32)
    ref = (lambda v: encode_e8m0(v)) if fmt == "e8m0" else (lambda v: encode(fmt, v))
    np.testing.assert_array_equal(out64, [ref(v) for v in x])
    np.testing.assert_array_equal(out32, [ref(float(v)) for v in x32])


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2", "e8m0"])
def test_every_byte_to_float_types(fmt):
    from_bits = getattr(reinterpret, f"fp8_{fmt}")

    @cuda.jit
    def kernel(f32, f64, f16, i32, b):
        i = cuda.grid(1)
        if i < b.size:
            v = from_bits(b[i])
            f32[i] = cuda.float32(v)
            f64[i] = cuda.float64(v)
            f16[i] = cuda.float16(v)
            i32[i] = cuda.int32(v)

    b = np.arange(256, dtype=np.uint8)
    f32, f64 = np.zeros(256, np.float32), np.zeros(256, np.float64)
    f16, i32 = np.zeros(256, np.float16), np.zeros(256, np.int32)
    kernel[4, 64](f32, f64, f16, i32, b)
    expected = np.array([byte_value(fmt, int(v)) for v in b])
    np.testing.assert_array_equal(f64, expected)  # NaN where expected NaN
    np.testing.assert_array_equal(f32, expected.astype(np.float32))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(f16, expected.astype(np.float16))
    finite = np.isfinite(expected)
    ints = np.clip(np.trunc(expected[finite]), -2.0**31, 2.0**31 - 1).astype(np.int64)
    np.testing.assert_array_equal(i32[finite], ints)
    assert (i32[np.isnan(expected)] == 0).all()  # cudajit's rule: NaN to an integer is 0


def test_constructors_from_every_number_type():
    @cuda.jit
    def kernel(out):
        out[0] = cuda.float32(fp8_e4m3(cuda.float16(-1.75)))
        out[1] = cuda.float32(fp8_e5m2(cuda.int8(-3)))
        out[2] = cuda.float32(fp8_e4m3(cuda.uint64(1000)))  # saturates to 448
        out[3] = cuda.float32(fp8_e8m0(cuda.int64(3)))  # rounded up: 4
        out[4] = cuda.float32(fp8_e5m2(cuda.bfloat16(0.3)))
        out[5] = cuda.float32(fp8_e4m3(fp8_e5m2(3.5)))  # 3.5 exact in both
        out[6] = cuda.float32(fp8_e4m3(True))

    out = np.zeros(7, np.float32)
    kernel[1, 1](out)
    # bfloat16(0.3) = 0.30078125; in E5M2 (step 1/16 in [0.25, 0.5)): 0.3125
    np.testing.assert_array_equal(out, [-1.75, -3.0, 448.0, 4.0, 0.3125, 3.5, 1.0])


def test_cvt_e8m0_functions():
    @cuda.jit
    def kernel(out, raw_bits, x):
        for i in range(x.size):
            out[0, i] = fp8.cvt_double_to_e8m0(x[i], saturation_t.SATFINITE,
                                               cudaRoundMode.cudaRoundPosInf)
            out[1, i] = fp8.cvt_double_to_e8m0(x[i], saturation_t.NOSAT,
                                               cudaRoundMode.cudaRoundPosInf)
            out[2, i] = fp8.cvt_float_to_e8m0(x[i], saturation_t.SATFINITE,
                                              cudaRoundMode.cudaRoundZero)
            out[3, i] = fp8.cvt_double_to_e8m0(x[i], saturation_t.NOSAT,
                                               cudaRoundMode.cudaRoundZero)
        for b in range(256):
            raw_bits[b] = fp8.cvt_e8m0_to_bf16raw(cuda.uint8(b)).x

    x = np.array([1.0, 3.0, -3.0, 0.7, 0.0, 2.0**-127, 1.5 * 2.0**-127, 2.0**-140, 2.0**127,
                  np.nextafter(2.0**127, np.inf), 1e300, np.inf, -np.inf, np.nan])
    out = np.zeros((4, x.size), np.uint8)
    raw_bits = np.zeros(256, np.uint16)
    kernel[1, 1](out, raw_bits, x)
    np.testing.assert_array_equal(out[0], [encode_e8m0(v) for v in x])
    np.testing.assert_array_equal(out[1], [encode_e8m0(v, saturate=False) for v in x])
    x32 = [float(np.float32(v)) for v in x]  # float32: 1e300 is infinity there
    np.testing.assert_array_equal(out[2], [encode_e8m0(v, round_up=False) for v in x32])
    np.testing.assert_array_equal(out[3], [encode_e8m0(v, round_up=False, saturate=False)
                                           for v in x[:-4]] + [0xFE, 0xFF, 0xFF, 0xFF])
    # bfloat16 bits of 2**(b - 127) (0x7FFF for NaN), from the bfloat16 format
    expected = [0x7FFF if b == 255 else (0x0040 if b == 0 else b << 7) for b in range(256)]
    np.testing.assert_array_equal(raw_bits, expected)


def test_cvt_bfloat16raw_and_halfraw_to_fp8():
    @cuda.jit
    def kernel(out, e):
        raw = fp8.cvt_e8m0_to_bf16raw(e[0])  # 2**-3 as bfloat16 bits
        out[0] = fp8.cvt_bfloat16raw_to_fp8(raw, saturation_t.SATFINITE,
                                            fp8_interpretation_t.E4M3)
        out[1] = fp8.cvt_bfloat16raw_to_e8m0(raw, saturation_t.NOSAT,
                                             cudaRoundMode.cudaRoundZero)
        half = fp8.cvt_fp8_to_halfraw(cuda.uint8(0x7C), fp8_interpretation_t.E5M2)
        out[2] = fp8.cvt_halfraw_to_fp8(half, saturation_t.NOSAT, fp8_interpretation_t.E5M2)
        out[3] = fp8.cvt_halfraw_to_fp8(half, saturation_t.NOSAT, fp8_interpretation_t.E4M3)

    out = np.zeros(4, np.uint8)
    kernel[1, 1](out, np.array([124], np.uint8))
    assert list(out) == [encode("e4m3", 0.125), 124, 0x7C, 0x7F]


def test_fp8_in_arithmetic_is_float32():
    @cuda.jit
    def kernel(out):
        a = fp8_e4m3(1.5)
        b = fp8_e5m2(2.0)
        out[0] = a + b
        out[1] = a * 3
        out[2] = 1.0 if a < b else 0.0
        out[3] = 1.0 if a < fp8_e4m3(-2.0) else 0.0  # the same fp8 type: values compared
        out[4] = a + fp8_e4m3(0.25)

    out = np.zeros(5, np.float64)
    kernel[1, 1](out)
    np.testing.assert_array_equal(out, [3.5, 4.5, 1.0, 0.0, 1.75])


def test_fp8_stored_in_a_number_array_is_its_value():
    @cuda.jit
    def kernel(out, f):
        out[0] = fp8_e4m3(3.0)  # the value converted, as float32(v) then uint8
        f[0] = fp8_e5m2(-0.75)

    out = np.zeros(1, np.uint8)
    f = np.zeros(1, np.float32)
    kernel[1, 1](out, f)
    assert out[0] == 3 and f[0] == -0.75


def test_fp8_kernel_parameter_is_refused():
    @cuda.jit("void(fp8_e4m3, float32[::1])")
    def kernel(v, out):
        out[0] = cuda.float32(v)

    # No number converts to fp8 implicitly: the dispatcher finds no matching definition.
    with pytest.raises(TypeError, match=r"no matching definition .*declared: \(fp8_e4m3"):
        kernel[1, 1](1.0, np.zeros(1, np.float32))


def test_fp8_device_function_parameter():
    @cuda.jit("float32(fp8_e5m2)", device=True)
    def widen(v):
        return cuda.float32(v) * 2

    @cuda.jit
    def kernel(out):
        out[0] = widen(fp8_e5m2(-1.25))

    out = np.zeros(1, np.float32)
    kernel[1, 1](out)
    assert out[0] == -2.5


@pytest.mark.parametrize("cc, instruction", [((8, 0), False), ((8, 9), False), ((9, 0), True)])
def test_ptx_conversion_instruction_from_sm_90(cc, instruction, ptxas):
    def to_e4m3(x):
        return reinterpret.uint8(fp8_e4m3(x))

    def to_e5m2(x):
        return reinterpret.uint8(fp8_e5m2(x))

    ptx, _ = cuda.compile_ptx(to_e4m3, (cuda.float32,), device=True, cc=cc)
    assert ("cvt.rn.satfinite.e4m3x2.f32" in ptx) == instruction
    # ptxas assembles it (on sm_89 it would need PTX ISA 8.1, and cudajit writes 7.8 there)
    assembled = run_ptxas(ptxas, ptx, cc)
    assert assembled.returncode == 0, assembled.stderr
    ptx, _ = cuda.compile_ptx(to_e5m2, (cuda.float16,), device=True, cc=cc)
    assert ("cvt.rn.satfinite.e5m2x2.f32" in ptx) == instruction
    # float64 (and int32 ...) round once in software: float32 would round them first
    ptx, _ = cuda.compile_ptx(to_e4m3, (cuda.float64,), device=True, cc=cc)
    assert "e4m3x2" not in ptx
