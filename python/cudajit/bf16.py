"""bfloat16 functions for kernels, as ``numba.cuda.bf16`` has them.

``bfloat16`` is a kernel type as float16 is: ``bfloat16(x)`` converts (to nearest, ties to
even), the operators and ``math.*`` work on it (``a + b`` of two bfloat16 values is
``hadd(a, b)``), and an element of a bfloat16 array (ml_dtypes' dtype) reads as one. Each
function here converts its arguments to the types CUDA's ``cuda_bf16.h`` declares, then
computes as CUDA does: arithmetic rounded once to bfloat16, the math functions in float32
and rounded once. The conversions with a rounding suffix round towards zero (``_rz``), down
(``_rd``), up (``_ru``) or to nearest even (``_rn``); to an integer they saturate, NaN
giving 0. The NumPy-style names (``float32_to_bfloat16``, ``bfloat16_to_int16_rz``...) are
aliases of CUDA's (``float2bfloat16``, ``bfloat162short_rz``...), as in numba-cuda.
"""

from __future__ import annotations

import math  # noqa: F401  (math.sqrt ...: the table's)

from .compiler import jit
from .intrinsics import fma  # noqa: F401
from .intrinsics import reinterpret as _reinterpret  # noqa: F401
from .libdevice import ceilf, floorf, rintf, truncf  # noqa: F401
from .libdevice._base import _larger_not_nan, _smaller_not_nan  # noqa: F401
from .libdevice._table import define, rows
from .types import (bfloat16, bool_, float32, float64, int8, int16, int32,  # noqa: F401
                    int64, uint8, uint16, uint32, uint64)

# Rounding directions of the _rz, _rd and _ru conversions.
_TOWARDS_ZERO, _DOWN, _UP = 0, 1, 2


@jit(device=True)
def _next_bfloat16(r, up):
    """The bfloat16 next to ``r`` (not NaN) towards +inf (``up``) or -inf."""
    if r == 0:  # either zero: the smallest subnormal of the direction's sign (0x0001, 0x8001)
        return _reinterpret.bfloat16(int16(1) if up else int16(-32767))
    bits = _reinterpret.int16(r)
    if (r > 0) == up:
        return _reinterpret.bfloat16(int16(bits + 1))
    return _reinterpret.bfloat16(int16(bits - 1))


@jit(device=True)
def _directed(r, order, direction):
    """A value rounded in ``direction``, from ``r``, the value rounded to nearest, and
    ``order``, the sign of ``r`` minus the value (0: ``r`` is exact)."""
    if order == 0 or r != r:
        return r
    if direction == _DOWN:
        return _next_bfloat16(r, False) if order > 0 else r
    if direction == _UP:
        return _next_bfloat16(r, True) if order < 0 else r
    if r > 0 and order > 0:
        return _next_bfloat16(r, False)
    if r < 0 and order < 0:
        return _next_bfloat16(r, True)
    return r


@jit(device=True)
def _order_of(r, d):
    """The sign of the bfloat16 ``r`` minus the float64 ``d``."""
    back = float64(r)
    return int32(1) if back > d else (int32(-1) if back < d else int32(0))


@jit(device=True)
def _from_float64(d, direction):
    """The float64 ``d`` (exact: a float32, or an integer of 32 bits or fewer) rounded to a
    bfloat16 in ``direction``."""
    r = bfloat16(d)
    return _directed(r, _order_of(r, d), direction)


@jit(device=True)
def _from_int64(i, direction):
    """The int64 ``i`` rounded to a bfloat16 in ``direction``: compared as integers where
    float64 would round it."""
    r = bfloat16(i)
    back = float64(r)
    if abs(back) < 9007199254740992.0:  # 2**53: then |i| < 2**53, exact in float64
        return _directed(r, _order_of(r, float64(i)), direction)
    if back >= 9223372036854775808.0:  # 2**63: above every int64
        return _directed(r, int32(1), direction)
    whole = int64(back)
    order = int32(1) if whole > i else (int32(-1) if whole < i else int32(0))
    return _directed(r, order, direction)


@jit(device=True)
def _from_uint64(i, direction):
    """The uint64 ``i`` rounded to a bfloat16 in ``direction``, as :func:`_from_int64`."""
    r = bfloat16(i)
    back = float64(r)
    if back < 9007199254740992.0:
        return _directed(r, _order_of(r, float64(i)), direction)
    if back >= 18446744073709551616.0:  # 2**64
        return _directed(r, int32(1), direction)
    whole = uint64(back)
    order = int32(1) if whole > i else (int32(-1) if whole < i else int32(0))
    return _directed(r, order, direction)


@jit(device=True)
def _saturated(x):
    """``x`` clamped to [0, 1], NaN giving 0 (CUDA's _sat)."""
    if x >= 1:
        return bfloat16(1.0)
    if x > 0:
        return x
    return bfloat16(0.0)


@jit(device=True)
def _relu(x):
    """``x``, or 0 where negative; NaN stays NaN (CUDA's _relu)."""
    return x if (x > 0 or x != x) else bfloat16(0.0)


@jit(device=True)
def _nan_or(x, y, value):
    """NaN where ``x`` or ``y`` is, else ``value`` (CUDA's _nan variants)."""
    if x != x or y != y:
        return bfloat16(math.nan)
    return value


@jit(device=True)
def _infinity_sign(a):
    """1 for +inf, -1 for -inf, else 0 (CUDA's __hisinf)."""
    if a == math.inf:
        return int32(1)
    if a == -math.inf:
        return int32(-1)
    return int32(0)


def _directed_rows(params: str, prefix: str, value: str, what: str) -> list:
    """CUDA's ``<prefix>_rn``, ``_rz``, ``_rd`` and ``_ru`` conversions of ``value`` (an
    expression of the parameter) to bfloat16."""
    return rows(params,
                (f"{prefix}_rn", f"bfloat16({value})",
                 f"The {what} ``a`` rounded to the nearest bfloat16, ties to even."),
                (f"{prefix}_rz", f"_directed_value({value}, _TOWARDS_ZERO)",
                 f"The {what} ``a`` rounded towards zero to a bfloat16."),
                (f"{prefix}_rd", f"_directed_value({value}, _DOWN)",
                 f"The {what} ``a`` rounded down to a bfloat16."),
                (f"{prefix}_ru", f"_directed_value({value}, _UP)",
                 f"The {what} ``a`` rounded up to a bfloat16."))


def _to_integer_rows(suffix: str, target: str, what: str) -> list:
    """CUDA's ``__bfloat162<suffix>_rn``, ``_rz``, ``_rd`` and ``_ru``: a bfloat16 rounded
    to the integer type ``target``, saturating."""
    return rows("a: float32",
                (f"bfloat162{suffix}_rn", f"{target}(rintf(a))",
                 f"``a`` rounded to the nearest {what}, ties to even."),
                (f"bfloat162{suffix}_rz", f"{target}(truncf(a))",
                 f"``a`` rounded towards zero to an {what}."),
                (f"bfloat162{suffix}_rd", f"{target}(floorf(a))",
                 f"``a`` rounded down to an {what}."),
                (f"bfloat162{suffix}_ru", f"{target}(ceilf(a))",
                 f"``a`` rounded up to an {what}."))


# The functions of one expression, generated (see libdevice/_table.py): the type each argument
# is converted to, then (name, expression of the converted arguments, docstring).
_TABLE = [
    *rows("a: bfloat16, b: bfloat16",
          ("hadd", "a + b", "``a + b``."),
          ("hsub", "a - b", "``a - b``."),
          ("hmul", "a * b", "``a * b``."),
          ("hadd_rn", "a + b", "``a + b`` (never contracted into an fma)."),
          ("hsub_rn", "a - b", "``a - b`` (never contracted into an fma)."),
          ("hmul_rn", "a * b", "``a * b`` (never contracted into an fma)."),
          ("hdiv", "a / b", "``a / b``."),
          ("hadd_sat", "_saturated(a + b)", "``a + b`` clamped to [0, 1]; NaN gives 0."),
          ("hsub_sat", "_saturated(a - b)", "``a - b`` clamped to [0, 1]; NaN gives 0."),
          ("hmul_sat", "_saturated(a * b)", "``a * b`` clamped to [0, 1]; NaN gives 0."),
          ("hmax", "_larger_not_nan(a, b)",
           "The larger of ``a`` and ``b``; a NaN gives way to the other value."),
          ("hmin", "_smaller_not_nan(a, b)",
           "The smaller of ``a`` and ``b``; a NaN gives way to the other value."),
          ("hmax_nan", "_nan_or(a, b, _larger_not_nan(a, b))",
           "The larger of ``a`` and ``b``; NaN when either is."),
          ("hmin_nan", "_nan_or(a, b, _smaller_not_nan(a, b))",
           "The smaller of ``a`` and ``b``; NaN when either is."),
          ("heq", "bool_(a == b)", "``a == b``."),
          ("hne", "bool_(a < b or a > b)", "``a != b``, false when either is NaN."),
          ("hge", "bool_(a >= b)", "``a >= b``."),
          ("hgt", "bool_(a > b)", "``a > b``."),
          ("hle", "bool_(a <= b)", "``a <= b``."),
          ("hlt", "bool_(a < b)", "``a < b``."),
          ("hequ", "bool_(not (a < b or a > b))", "``a == b``, or either is NaN."),
          ("hneu", "bool_(not (a == b))", "``a != b``, true when either is NaN."),
          ("hgeu", "bool_(not (a < b))", "``a >= b``, or either is NaN."),
          ("hgtu", "bool_(not (a <= b))", "``a > b``, or either is NaN."),
          ("hleu", "bool_(not (a > b))", "``a <= b``, or either is NaN."),
          ("hltu", "bool_(not (a >= b))", "``a < b``, or either is NaN.")),
    *rows("a: bfloat16, b: bfloat16, c: bfloat16",
          ("hfma", "fma(a, b, c)", "``a * b + c`` rounded once."),
          ("hfma_sat", "_saturated(fma(a, b, c))",
           "``a * b + c`` rounded once, clamped to [0, 1]; NaN gives 0."),
          ("hfma_relu", "_relu(fma(a, b, c))",
           "``a * b + c`` rounded once, 0 where negative; NaN stays NaN.")),
    *rows("a: bfloat16",
          ("habs", "abs(a)", "``|a|``."),
          ("hneg", "-a", "``-a``."),
          ("hisnan", "bool_(a != a)", "Whether ``a`` is NaN."),
          ("hisinf", "_infinity_sign(a)", "1 for +inf, -1 for -inf, else 0 (an int32)."),
          ("bfloat16_as_short", "_reinterpret.int16(a)", "The bits of ``a`` as an int16."),
          ("bfloat16_as_ushort", "_reinterpret.uint16(a)", "The bits of ``a`` as a uint16.")),
    *rows("a: float32",
          ("htrunc", "bfloat16(truncf(a))", "``a`` rounded towards zero, as bfloat16."),
          ("hceil", "bfloat16(ceilf(a))",
           "The smallest integer value not less than ``a``, as bfloat16."),
          ("hfloor", "bfloat16(floorf(a))",
           "The largest integer value not greater than ``a``, as bfloat16."),
          ("hrint", "bfloat16(rintf(a))",
           "``a`` rounded to the nearest integer, ties to even, as bfloat16."),
          ("hsqrt", "bfloat16(math.sqrt(a))", "The square root."),
          ("hrsqrt", "bfloat16(float32(1.0) / math.sqrt(a))", "``1 / sqrt(a)``."),
          ("hrcp", "bfloat16(float32(1.0) / a)", "``1 / a``."),
          ("hlog", "bfloat16(math.log(a))", "The natural logarithm."),
          ("hlog2", "bfloat16(math.log2(a))", "The base-2 logarithm."),
          ("hlog10", "bfloat16(math.log10(a))", "The base-10 logarithm."),
          ("hcos", "bfloat16(math.cos(a))", "The cosine."),
          ("hsin", "bfloat16(math.sin(a))", "The sine."),
          ("htanh", "bfloat16(math.tanh(a))", "The hyperbolic tangent."),
          ("htanh_approx", "bfloat16(math.tanh(a))",
           "The hyperbolic tangent (as htanh: rounded once from float32)."),
          ("hexp", "bfloat16(math.exp(a))", "``e ** a``."),
          ("hexp2", "bfloat16(float32(2.0) ** a)", "``2 ** a``."),
          ("hexp10", "bfloat16(float32(10.0) ** a)", "``10 ** a``."),
          ("bfloat162float", "a", "``a`` as a float32 (exact)."),
          ("float2bfloat16", "bfloat16(a)", "The float32 ``a`` rounded to the nearest bfloat16."),
          ("bfloat162char_rz", "int8(truncf(a))", "``a`` rounded towards zero to an int8."),
          ("bfloat162uchar_rz", "uint8(truncf(a))", "``a`` rounded towards zero to a uint8.")),
    *rows("a: float64",
          ("double2bfloat16", "bfloat16(a)",
           "The float64 ``a`` rounded (once) to the nearest bfloat16.")),
    *_directed_rows("a: float32", "float2bfloat16", "float64(a)", "float32"),
    *_directed_rows("a: int16", "short2bfloat16", "float64(a)", "int16"),
    *_directed_rows("a: uint16", "ushort2bfloat16", "float64(a)", "uint16"),
    *_directed_rows("a: int32", "int2bfloat16", "float64(a)", "int32"),
    *_directed_rows("a: uint32", "uint2bfloat16", "float64(a)", "uint32"),
    *_to_integer_rows("short", "int16", "int16"),
    *_to_integer_rows("ushort", "uint16", "uint16"),
    *_to_integer_rows("int", "int32", "int32"),
    *_to_integer_rows("uint", "uint32", "uint32"),
    *_to_integer_rows("ll", "int64", "int64"),
    *_to_integer_rows("ull", "uint64", "uint64"),
    *rows("a: int16",
          ("short_as_bfloat16", "_reinterpret.bfloat16(a)", "The int16 bits ``a`` as bfloat16.")),
    *rows("a: uint16",
          ("ushort_as_bfloat16", "_reinterpret.bfloat16(a)",
           "The uint16 bits ``a`` as bfloat16.")),
]
# 64-bit integers: where float64 would round them, compared as integers.
_TABLE += [row._replace(expression=row.expression.replace("_directed_value(float64(a)",
                                                          "_from_int64(a"))
           for row in _directed_rows("a: int64", "ll2bfloat16", "float64(a)", "int64")]
_TABLE += [row._replace(expression=row.expression.replace("_directed_value(float64(a)",
                                                          "_from_uint64(a"))
           for row in _directed_rows("a: uint64", "ull2bfloat16", "float64(a)", "uint64")]
_TABLE = [row._replace(expression=row.expression.replace("_directed_value", "_from_float64"))
          for row in _TABLE]

_CUDA_NAMES = define(globals(), _TABLE)

# numba-cuda's names: CUDA's (bfloat162float ...), which it exports with their leading "__"
# dropped, and NumPy-style aliases.
_ALIASES = {"float32_to_bfloat16": "float2bfloat16", "float64_to_bfloat16": "double2bfloat16",
            "bfloat16_to_float32": "bfloat162float",
            "bfloat16_to_int8_rz": "bfloat162char_rz", "bfloat16_to_uint8_rz": "bfloat162uchar_rz",
            "bfloat16_as_int16": "bfloat16_as_short", "bfloat16_as_uint16": "bfloat16_as_ushort",
            "int16_as_bfloat16": "short_as_bfloat16", "uint16_as_bfloat16": "ushort_as_bfloat16"}
for _mode in ("rn", "rz", "rd", "ru"):
    _ALIASES[f"float32_to_bfloat16_{_mode}"] = f"float2bfloat16_{_mode}"
    for _numpy, _cuda in (("int16", "short"), ("uint16", "ushort"), ("int32", "int"),
                          ("uint32", "uint"), ("int64", "ll"), ("uint64", "ull")):
        _ALIASES[f"{_numpy}_to_bfloat16_{_mode}"] = f"{_cuda}2bfloat16_{_mode}"
        _ALIASES[f"bfloat16_to_{_numpy}_{_mode}"] = f"bfloat162{_cuda}_{_mode}"
globals().update({alias: globals()[name] for alias, name in _ALIASES.items()})

__all__ = ["bfloat16", *_CUDA_NAMES, *_ALIASES]
