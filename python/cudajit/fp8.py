"""CUDA's 8-bit floating-point types in kernels, as numba-cuda's
``numba.cuda._internal.cuda_fp8`` has them (CUDA's ``cuda_fp8.h``).

``fp8_e4m3``, ``fp8_e5m2`` and ``fp8_e8m0`` are kernel types made and read by conversion:
``fp8_e4m3(x)`` from any real number (float16, bfloat16, float32, float64, integers) and
``float32(v)``, ``float16(v)``, ``float64(v)``, ``bfloat16(v)``, ``int32(v)``... back. The
formats, as the OCP 8-bit formats and CUDA define them:

* E4M3: sign, 4 exponent bits (bias 7), 3 mantissa bits; largest 448, smallest subnormal
  2**-9; no infinity; NaN is 0x7F / 0xFF.
* E5M2: sign, 5 exponent bits (bias 15), 2 mantissa bits (float16's top byte); largest
  57344, smallest subnormal 2**-16; infinities 0x7C / 0xFC; NaN 0x7D-0x7F / 0xFD-0xFF.
* E8M0: 8 exponent bits, no sign nor mantissa: 2**(b - 127) for b of 0 to 254; 0xFF NaN.

Conversions to E4M3 and E5M2 round to nearest even and saturate (``__NV_SATFINITE``: a value
beyond the largest finite one, infinities included, gives the largest finite one of its
sign); NaN stays NaN. Conversions to E8M0 round up to a power of two (``cudaRoundPosInf``)
and saturate: the sign is dropped, zero and values up to 2**-127 give 2**-127, values above
2**127 (infinity too) 2**127. From an fp8 value, conversions are exact to float32, float64,
float16 and bfloat16 (E8M0's 2**-127 and 2**127 are 0 and infinity in float16); to an
integer they truncate towards zero and saturate, NaN giving 0 (cudajit's rule for every
float; CUDA's operators give the integer type's smallest value for NaN).

The ``cvt_*`` functions work on storage, as ``__nv_cvt_*`` do: ``cvt_float_to_fp8(x,
saturate, interpretation)`` returns the byte (uint8) of x in E4M3 or E5M2
(``fp8_interpretation_t``), with ``saturation_t.NOSAT`` an overflow gives NaN (E4M3, 0x7F)
or infinity (E5M2, 0x7C) instead; ``cvt_float_to_e8m0(x, saturate, rounding)`` rounds
towards zero (``cudaRoundMode.cudaRoundZero``, 1) or up (``cudaRoundPosInf``, 2; any other
mode rounds up too), with NOSAT an overflow giving NaN (0xFF). A ``bfloat16_raw`` /
``half_raw`` is a ``uint16x1`` vector whose ``.x`` holds the bits, as CUDA's
``__nv_bfloat16_raw`` and ``__half_raw``.

Every conversion gives cuda_fp8.hpp's software result, bit for bit, on both devices. From
compute capability 9.0, a conversion to E4M3/E5M2 from a value float32 holds exactly is one
``cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32`` (NaN given the software byte); elsewhere, and from
float64 or wider integers (which float32 would round first), the conversion is software.
"""

from __future__ import annotations

import math
from enum import IntEnum

from .compiler import jit
from .intrinsics import reinterpret as _reinterpret
from .types import (bfloat16, float16, float32, float64, fp8_e4m3, fp8_e5m2,  # noqa: F401
                    fp8_e8m0, int32, uint8, uint16)
from .vector_types import vector_types

__all__ = ["fp8_e4m3", "fp8_e5m2", "fp8_e8m0", "saturation_t", "fp8_interpretation_t",
           "cudaRoundMode", "bfloat16_raw", "half_raw", "cvt_double_to_fp8",
           "cvt_float_to_fp8", "cvt_halfraw_to_fp8", "cvt_bfloat16raw_to_fp8",
           "cvt_fp8_to_halfraw", "cvt_double_to_e8m0", "cvt_float_to_e8m0",
           "cvt_bfloat16raw_to_e8m0", "cvt_e8m0_to_bf16raw"]

# The bits of a bfloat16 / float16 in `.x`, as CUDA's __nv_bfloat16_raw and __half_raw.
bfloat16_raw = vector_types["uint16x1"]
half_raw = vector_types["uint16x1"]


class saturation_t(IntEnum):  # noqa: N801  (CUDA's and numba-cuda's name)
    """__nv_saturation_t: what an overflow gives."""
    NOSAT = 0
    SATFINITE = 1


class fp8_interpretation_t(IntEnum):  # noqa: N801
    """__nv_fp8_interpretation_t: the 8-bit format of a storage byte."""
    E4M3 = 0
    E5M2 = 1


class cudaRoundMode(IntEnum):  # noqa: N801  (as cuda.bindings.runtime's, same values)
    """The rounding modes of the E8M0 conversions (cudaRoundZero and cudaRoundPosInf)."""
    cudaRoundNearest = 0
    cudaRoundZero = 1
    cudaRoundPosInf = 2
    cudaRoundMinInf = 3


_NOSAT = 0
_E4M3 = 0
_ROUND_ZERO = 1
_INF = math.inf


@jit(device=True)
def cvt_double_to_fp8(x, saturate, fp8_interpretation):
    """__nv_cvt_double_to_fp8: x rounded to nearest even in E4M3 or E5M2, as its byte."""
    d = float64(x)
    if fp8_interpretation == _E4M3:
        bits = _reinterpret.uint8(fp8_e4m3(d))
        if saturate == _NOSAT and abs(d) > 464.0:  # beyond 448 and half its step: NaN
            bits = uint8((bits & 0x80) | 0x7F)
    else:
        bits = _reinterpret.uint8(fp8_e5m2(d))
        if saturate == _NOSAT and abs(d) >= 61440.0:  # 57344 and half its step: infinity
            bits = uint8((bits & 0x80) | 0x7C)
    return bits


@jit(device=True)
def cvt_float_to_fp8(x, saturate, fp8_interpretation):
    """__nv_cvt_float_to_fp8 (x a float32; exact in float64, so rounded once)."""
    return cvt_double_to_fp8(float64(float32(x)), saturate, fp8_interpretation)


@jit(device=True)
def cvt_halfraw_to_fp8(x, saturate, fp8_interpretation):
    """__nv_cvt_halfraw_to_fp8: the float16 whose bits are x.x."""
    return cvt_double_to_fp8(float64(_reinterpret.float16(uint16(x.x))), saturate,
                             fp8_interpretation)


@jit(device=True)
def cvt_bfloat16raw_to_fp8(x, saturate, fp8_interpretation):
    """__nv_cvt_bfloat16raw_to_fp8: the bfloat16 whose bits are x.x."""
    return cvt_double_to_fp8(float64(_reinterpret.bfloat16(uint16(x.x))), saturate,
                             fp8_interpretation)


@jit(device=True)
def cvt_fp8_to_halfraw(x, fp8_interpretation):
    """__nv_cvt_fp8_to_halfraw: the byte x (E4M3 or E5M2) as a float16's bits (exact)."""
    if fp8_interpretation == _E4M3:
        h = float16(_reinterpret.fp8_e4m3(uint8(x)))
    else:
        h = float16(_reinterpret.fp8_e5m2(uint8(x)))
    return half_raw(_reinterpret.uint16(h))


@jit(device=True)
def cvt_double_to_e8m0(x, saturate, rounding):
    """__nv_cvt_double_to_e8m0: |x| as a power of two, rounded towards zero or up."""
    d = float64(x)
    bits = _reinterpret.uint8(fp8_e8m0(d))  # rounded up, saturated; NaN 0xFF
    if d == d:
        a = abs(d)
        if rounding == _ROUND_ZERO:
            if bits > 0 and float64(_reinterpret.fp8_e8m0(bits)) > a:
                bits = uint8(bits - 1)
            if saturate == _NOSAT and a == _INF:
                bits = uint8(0xFF)
        elif saturate == _NOSAT and a > 1.7014118346046923e38:  # 2**127
            bits = uint8(0xFF)
    return bits


@jit(device=True)
def cvt_float_to_e8m0(x, saturate, rounding):
    """__nv_cvt_float_to_e8m0 (x a float32)."""
    return cvt_double_to_e8m0(float64(float32(x)), saturate, rounding)


@jit(device=True)
def cvt_bfloat16raw_to_e8m0(x, saturate, rounding):
    """__nv_cvt_bfloat16raw_to_e8m0: the bfloat16 whose bits are x.x."""
    return cvt_double_to_e8m0(float64(_reinterpret.bfloat16(uint16(x.x))), saturate, rounding)


@jit(device=True)
def cvt_e8m0_to_bf16raw(x):
    """__nv_cvt_e8m0_to_bf16raw: the E8M0 byte x as a bfloat16's bits (exact: 0 is the
    subnormal 2**-127, 0x0040; NaN the canonical 0x7FFF)."""
    b = int32(uint8(x))
    r = b << 7
    if b == 0xFF:
        r = 0x7FFF
    elif b == 0:
        r = 0x0040
    return bfloat16_raw(uint16(r))
