"""cuda.libdevice's arithmetic and conversions with a directed rounding mode
(fadd_rz, dmul_ru, fsqrt_rd, fma_rz, double2float_ru, ull2float_rd...) on every
device: each function over thousands of inputs (random ones of the whole exponent
range, ties, exact cases, cancellations, signed zeros, infinities, NaN,
subnormal operands and results, values near overflow), compared bit for bit with
the exact rational result (fractions.Fraction) rounded in the function's
direction by the reference below."""

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest

import cudajit as cuda
from cudajit import libdevice

from test_kernels_libdevice import call

pytestmark = [pytest.mark.usefixtures("device"),
              pytest.mark.filterwarnings("ignore::cudajit.PerformanceWarning")]

F32 = np.float32
F64 = np.float64
MODES = ("rd", "ru", "rz")
# precision, smallest normal exponent, largest exponent
FORMAT = {F32: (24, -126, 127), F64: (53, -1022, 1023)}


# --- the reference: exact values rounded in a direction ----------------------------------


def pow2(k):
    return Fraction(2) ** k


def round_exact(q, mode, dtype):
    """The nonzero rational q rounded to dtype towards ``mode`` ("rd", "ru", "rz"),
    subnormals and overflow included, as a Python float."""
    p, emin, emax = FORMAT[dtype]
    neg = q < 0
    a = -q if neg else q
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if a < pow2(e):
        e -= 1
    elif a >= pow2(e + 1):
        e += 1
    qe = max(e, emin) - (p - 1)                 # the exponent of the grain
    scaled = a / pow2(qe)
    n = scaled.numerator // scaled.denominator
    away = (mode == "ru" and not neg) or (mode == "rd" and neg)
    if n * scaled.denominator != scaled.numerator and away:
        n += 1
    value = n * pow2(qe)
    largest = (2 ** p - 1) * pow2(emax - p + 1)
    if value > largest:
        result = math.inf if away else float(largest)
    else:
        result = float(value)
    return -result if neg else result


def zero_sum(x, y, mode):
    """The sign of an exact zero sum x + y (x, y the operands, maybe zeros)."""
    if x == 0 and y == 0 and math.copysign(1, x) == math.copysign(1, y):
        return x
    return -0.0 if mode == "rd" else 0.0


def ref_add(a, b, mode, dtype):
    if not (math.isfinite(a) and math.isfinite(b)):
        return a + b
    q = Fraction(a) + Fraction(b)
    return zero_sum(a, b, mode) if q == 0 else round_exact(q, mode, dtype)


def ref_sub(a, b, mode, dtype):
    return ref_add(a, -b, mode, dtype)


def ref_mul(a, b, mode, dtype):
    if not (math.isfinite(a) and math.isfinite(b)) or a == 0 or b == 0:
        return a * b
    return round_exact(Fraction(a) * Fraction(b), mode, dtype)


def ref_div(a, b, mode, dtype):
    if not (math.isfinite(a) and math.isfinite(b)) or a == 0 or b == 0:
        with np.errstate(all="ignore"):
            return float(F64(a) / F64(b))
    return round_exact(Fraction(a) / Fraction(b), mode, dtype)


def ref_rcp(x, mode, dtype):
    return ref_div(1.0, x, mode, dtype)


def ref_sqrt(x, mode, dtype):
    if math.isnan(x) or x < 0:
        return math.nan
    if x == 0 or math.isinf(x):
        return x
    exact = Fraction(x)
    f = dtype(math.sqrt(x))
    while Fraction(float(f)) ** 2 > exact:                  # the largest f with f*f <= x
        f = np.nextafter(f, dtype(0))
    while Fraction(float(np.nextafter(f, dtype(np.inf)))) ** 2 <= exact:
        f = np.nextafter(f, dtype(np.inf))
    if Fraction(float(f)) ** 2 == exact or mode != "ru":
        return float(f)
    return float(np.nextafter(f, dtype(np.inf)))


def ref_fma(a, b, c, mode, dtype):
    if math.isfinite(a) and math.isfinite(b) and not math.isfinite(c):
        return c                                # a finite product (never rounded) plus inf or NaN
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return a * b + c
    if a == 0 or b == 0:
        return c if c != 0 else zero_sum(a * b, c, mode)
    q = Fraction(a) * Fraction(b) + Fraction(c)
    return zero_sum(1.0, -1.0, mode) if q == 0 else round_exact(q, mode, dtype)


def ref_convert(v, mode, dtype):
    """v: a float or an int, converted to dtype towards ``mode``."""
    if isinstance(v, float) and (v == 0 or not math.isfinite(v)):
        return v
    if v == 0:
        return 0.0
    return round_exact(Fraction(v), mode, dtype)


# --- inputs --------------------------------------------------------------------------------


def make(dtype, sign, mantissa, exp):
    """sign * mantissa * 2**exp as dtype (rounded if it does not fit)."""
    try:
        value = math.ldexp(float(mantissa), int(exp))
    except OverflowError:
        value = math.inf
    with np.errstate(all="ignore"):
        return dtype(sign * value)


def ulp_exp(x, dtype):
    """The exponent of the grain of the finite float x."""
    p, emin, _ = FORMAT[dtype]
    return max(math.frexp(float(x))[1] - 1, emin) - (p - 1)


def random_float(rng, dtype, lo_exp, hi_exp):
    """A random float, its value in [2**lo_exp, 2**hi_exp), a full or a short mantissa."""
    p = FORMAT[dtype][0]
    bits = p if rng.random() < 0.5 else int(rng.integers(1, p + 1))
    mantissa = int(rng.integers(2 ** (bits - 1), 2 ** bits))
    e = int(rng.integers(lo_exp, hi_exp))
    return make(dtype, rng.choice([-1, 1]), mantissa, e - bits + 1)


def full_range(dtype):
    p, emin, emax = FORMAT[dtype]
    return emin - p + 1, emax + 1


def specials(dtype):
    p, emin, emax = FORMAT[dtype]
    fi = np.finfo(dtype)
    tiny = make(dtype, 1, 1, emin - p + 1)
    values = [0.0, -0.0, 1.0, -1.0, 0.5, 3.0, -7.0, 0.1, math.inf, -math.inf, math.nan,
              fi.max, -fi.max, fi.tiny, -fi.tiny, tiny, -tiny, 3 * tiny, fi.tiny - tiny,
              -(fi.tiny - tiny), make(dtype, 1, 1, emax), make(dtype, -1, 3, emax - 1),
              make(dtype, 1, 2 ** p - 1, emin - p)]
    return [dtype(v) for v in values]


def random_values(rng, dtype, n):
    lo, hi = full_range(dtype)
    return [random_float(rng, dtype, lo, hi) for _ in range(n)]


def binary_inputs(dtype, kind, n, seed):
    """Pairs for add (kind "add"), mul and div: random, near one another, at ties,
    with results near underflow and overflow, and the specials crossed."""
    rng = np.random.default_rng(seed)
    p, emin, emax = FORMAT[dtype]
    lo, hi = full_range(dtype)
    xs, ys = [], []

    def add(x, y):
        xs.append(dtype(x))
        ys.append(dtype(y))

    sp = specials(dtype)
    for x in sp:
        for y in sp:
            add(x, y)
    for _ in range(n // 5):                                # anywhere
        add(random_float(rng, dtype, lo, hi), random_float(rng, dtype, lo, hi))
    for _ in range(n // 5):                                # exponents within 3p
        x = random_float(rng, dtype, lo, hi)
        e = math.frexp(float(x))[1] + int(rng.integers(-3 * p, 3 * p))
        add(x, random_float(rng, dtype, max(e, lo), max(e, lo) + 1))
    if kind == "add":
        for _ in range(n // 5):                            # ties, quarters, cancellations
            x = random_float(rng, dtype, lo + p + 2, hi - 1)
            g = ulp_exp(x, dtype)
            k = rng.integers(0, 5)
            if k == 0:
                y = make(dtype, rng.choice([-1, 1]), 1, g - 1)                 # half a grain
            elif k == 1:
                y = make(dtype, rng.choice([-1, 1]), int(rng.integers(1, 8)), g - 2)
            elif k == 2:
                y = -(float(x) + make(F64, rng.choice([-1, 1]), int(rng.integers(0, 4)), g))
            elif k == 3:
                y = make(dtype, rng.choice([-1, 1]), 2 ** p - int(rng.integers(1, 4)),
                         g - p - int(rng.integers(0, 3)))
            else:
                y = make(dtype, 1, 1, g - 1) + make(dtype, 1, 1, g - 1 - int(rng.integers(1, p)))
            add(x, y)
        for _ in range(n // 10):                           # near overflow, subnormal
            add(random_float(rng, dtype, emax - 1, emax + 1),
                random_float(rng, dtype, emax - p, emax + 1))
            add(random_float(rng, dtype, lo, emin + 1), random_float(rng, dtype, lo, emin + 2))
    else:
        for _ in range(3 * n // 5):                        # results near underflow and overflow
            r = rng.integers(0, 3)
            if r == 0:
                target = int(rng.integers(emin - p - 3, emin + 2))
            elif r == 1:
                target = int(rng.integers(emax - 1, emax + 3))
            else:
                target = int(rng.integers(-40, 40))
            x = random_float(rng, dtype, lo, hi) if rng.random() < 0.5 else \
                random_float(rng, dtype, -p, p)
            ex = math.frexp(float(x))[1]
            ey = target - ex if kind == "mul" else ex - target
            ey = min(max(ey, lo), hi - 1)
            if kind == "div" and rng.random() < 0.3:       # exact quotients, subnormal ties
                c = random_float(rng, dtype, target - 1, target)
                y = make(dtype, rng.choice([-1, 1]), int(rng.integers(1, 16)),
                         int(rng.integers(-4, 4)))
                if not math.isfinite(float(c)) or abs(float(c)) > 1e30:
                    continue
                prod = Fraction(float(c)) * Fraction(float(y))
                x = dtype(float(prod))
                if not math.isfinite(float(x)) or Fraction(float(x)) != prod:
                    continue
                add(x, y)
                continue
            add(x, random_float(rng, dtype, ey, ey + 1))
    return [np.array(xs, dtype), np.array(ys, dtype)]


def unary_inputs(dtype, kind, n, seed):
    """Single operands for rcp and sqrt: random, exact cases, near-exact ones."""
    rng = np.random.default_rng(seed)
    p, emin, emax = FORMAT[dtype]
    lo, hi = full_range(dtype)
    xs = list(specials(dtype)) + random_values(rng, dtype, n // 2)
    for _ in range(n // 2):
        if kind == "sqrt":                                 # squares, their neighbours, tiny values
            e = int(rng.integers((lo - 1) // 2, hi // 2))
            s = make(dtype, 1, int(rng.integers(1, 2 ** (p // 2))), e - p // 2)
            x = dtype(float(Fraction(float(s)) ** 2))
            d = int(rng.choice([0, 0, 0, -1, 1, -2, 2]))
            for _ in range(abs(d)):
                x = np.nextafter(x, dtype(np.inf) if d > 0 else dtype(0))
            if rng.random() < 0.2:
                x = abs(random_float(rng, dtype, lo, emin + 80))
        else:
            x = random_float(rng, dtype, lo, hi) if rng.random() < 0.5 else \
                make(dtype, rng.choice([-1, 1]), int(rng.integers(1, 64)),
                     int(rng.integers(lo, hi)))
        xs.append(x)
    return [np.array(xs, dtype)]


def fma_inputs(dtype, n, seed):
    rng = np.random.default_rng(seed)
    p, emin, emax = FORMAT[dtype]
    lo, hi = full_range(dtype)
    a, b, c = [], [], []

    def add(x, y, z):
        a.append(dtype(x))
        b.append(dtype(y))
        c.append(dtype(z))

    sp = specials(dtype)[:13]
    for x in sp:
        for y in sp:
            for z in (0.0, -0.0, 1.0, math.inf, math.nan, -2.5):
                add(x, y, z)
    for _ in range(n):
        r = rng.integers(0, 4)
        if r == 0:
            target = int(rng.integers(emin - p - 3, emin + 3))
        elif r == 1:
            target = int(rng.integers(emax - 1, emax + 3))
        elif r == 2:
            target = int(rng.integers(-30, 30))
        else:
            target = int(rng.integers(lo - p, hi + p))
        x = random_float(rng, dtype, lo, hi) if rng.random() < 0.5 else \
            random_float(rng, dtype, -p, p)
        ey = min(max(target - math.frexp(float(x))[1], lo), hi - 1)
        y = random_float(rng, dtype, ey, ey + 1)
        if not (math.isfinite(float(x)) and math.isfinite(float(y))):
            continue
        prod = min(Fraction(float(x)) * Fraction(float(y)), Fraction(float(np.finfo(dtype).max)))
        prod = max(prod, -Fraction(float(np.finfo(dtype).max)))
        k = rng.integers(0, 7)
        if k == 0:                                         # anywhere
            z = random_float(rng, dtype, lo, hi)
        elif k == 1:                                       # near the product
            e = target + int(rng.integers(-2 * p - 4, 2 * p + 4))
            e = min(max(e, lo), hi - 1)
            z = random_float(rng, dtype, e, e + 1)
        elif k in (2, 3) and prod != 0:                    # cancelling the product, nearly
            with np.errstate(all="ignore"):
                z = -dtype(float(prod))
            if math.isfinite(float(z)) and rng.random() < 0.5:
                for _ in range(int(rng.integers(1, 3))):
                    with np.errstate(all="ignore"):
                        z = np.nextafter(z, dtype(rng.choice([-np.inf, np.inf])))
        elif k == 4:                                       # half and quarter grains of the product
            g = ulp_exp(float(abs(prod)), dtype)
            z = make(dtype, rng.choice([-1, 1]), int(rng.integers(1, 4)),
                     g - int(rng.integers(1, 3)))
        elif k == 5:                                       # subnormal
            z = random_float(rng, dtype, lo, emin)
        else:                                              # far larger
            e = min(target + int(rng.integers(p, 3 * p)), hi - 1)
            z = random_float(rng, dtype, e, e + 1)
        add(x, y, z)
    return [np.array(a, dtype), np.array(b, dtype), np.array(c, dtype)]


def double_inputs(n, seed):
    """float64 values to convert to float32: around float32's range and its ties."""
    rng = np.random.default_rng(seed)
    p, emin, emax = FORMAT[F32]
    xs = [F64(v) for v in specials(F64) + specials(F32)]
    for _ in range(n):
        e = int(rng.integers(emin - p - 3, emax + 3)) if rng.random() < 0.8 else \
            int(rng.integers(-1074, 1024))
        x = random_float(rng, F64, e, e + 1)
        k = rng.integers(0, 3)
        if k == 0 and abs(float(x)) < 3e38:                # a float32 plus half a float32 grain
            f = F32(x)
            g = ulp_exp(f, F32)
            x = F64(float(f) + math.ldexp(rng.choice([-1, 1]), g - 1))
        elif k == 1:                                       # a float32 exactly
            with np.errstate(all="ignore"):
                x = F64(F32(x))
        xs.append(x)
    return [np.array(xs, F64)]


def int_inputs(bits, n, seed):
    """int32 or int64 values: random, with few bits set, near powers of two, ties."""
    rng = np.random.default_rng(seed)
    dtype = np.int32 if bits == 32 else np.int64
    mod = 2 ** bits
    vals = [0, 1, -1, 2, -2 ** (bits - 1), 2 ** (bits - 1) - 1, 2 ** 24 + 1, 2 ** 25 + 2,
            -(2 ** 25 + 6), 2 ** 53 + 1, 2 ** 54 + 2, 2 ** 54 + 6, 2 ** 63 - 2 ** 39,
            2 ** 64 - 2 ** 39 - 1, 2 ** 64 - 1024, 2 ** 64 - 1025]
    for _ in range(n):
        k = rng.integers(0, 4)
        if k == 0:
            v = int(rng.integers(0, 2 ** 62)) * 4 + int(rng.integers(0, 4))
        elif k == 1:                                       # a few bits set
            v = sum(2 ** int(b) for b in rng.integers(0, bits, int(rng.integers(1, 4))))
        elif k == 2:                                       # near a power of two
            v = 2 ** int(rng.integers(1, bits)) + int(rng.integers(-9, 10))
        else:                                    # a tie: grain-aligned plus half a grain
            e = int(rng.integers(25, bits))
            g = e - int(rng.choice([24, 53])) if e > 53 else e - 24
            v = (int(rng.integers(2 ** 23, 2 ** 24)) << (e - 23)) + (1 << g if g > 0 else 0)
        if rng.random() < 0.5:
            v = -v
        vals.append(v)
    return [np.array([((v % mod) + mod // 2) % mod - mod // 2 for v in vals], dtype)]


# --- the functions and their references ----------------------------------------------------


def signed(bits):
    return int


def unsigned(bits):
    return lambda v: int(v) % 2 ** bits


# name (without the mode): (reference, output dtype, inputs(seed), argument decoding)
FUNCTIONS = {
    "fadd": (ref_add, F32, lambda s: binary_inputs(F32, "add", 2000, s), float),
    "fsub": (ref_sub, F32, lambda s: binary_inputs(F32, "add", 2000, s), float),
    "fmul": (ref_mul, F32, lambda s: binary_inputs(F32, "mul", 2000, s), float),
    "fdiv": (ref_div, F32, lambda s: binary_inputs(F32, "div", 2000, s), float),
    "frcp": (ref_rcp, F32, lambda s: unary_inputs(F32, "rcp", 1500, s), float),
    "fsqrt": (ref_sqrt, F32, lambda s: unary_inputs(F32, "sqrt", 1500, s), float),
    "fmaf": (ref_fma, F32, lambda s: fma_inputs(F32, 2500, s), float),
    "dadd": (ref_add, F64, lambda s: binary_inputs(F64, "add", 2000, s), float),
    "dmul": (ref_mul, F64, lambda s: binary_inputs(F64, "mul", 2000, s), float),
    "ddiv": (ref_div, F64, lambda s: binary_inputs(F64, "div", 2000, s), float),
    "drcp": (ref_rcp, F64, lambda s: unary_inputs(F64, "rcp", 1500, s), float),
    "dsqrt": (ref_sqrt, F64, lambda s: unary_inputs(F64, "sqrt", 1500, s), float),
    "fma": (ref_fma, F64, lambda s: fma_inputs(F64, 2500, s), float),
    "double2float": (ref_convert, F32, lambda s: double_inputs(2000, s), float),
    "int2float": (ref_convert, F32, lambda s: int_inputs(32, 1500, s), signed(32)),
    "uint2float": (ref_convert, F32, lambda s: int_inputs(32, 1500, s), unsigned(32)),
    "ll2float": (ref_convert, F32, lambda s: int_inputs(64, 1500, s), signed(64)),
    "ull2float": (ref_convert, F32, lambda s: int_inputs(64, 1500, s), unsigned(64)),
    "ll2double": (ref_convert, F64, lambda s: int_inputs(64, 1500, s), signed(64)),
    "ull2double": (ref_convert, F64, lambda s: int_inputs(64, 1500, s), unsigned(64)),
}
NAMES = [f"{base}_{mode}" for base in FUNCTIONS for mode in MODES]


@lru_cache(maxsize=None)
def case(name):
    """(inputs, expected) for the function ``name``, computed once for every device."""
    base, mode = name.rsplit("_", 1)
    ref, out_dtype, inputs, decode = FUNCTIONS[base]
    args = inputs(sum(map(ord, base)))
    expected = np.array([ref(*(decode(a[i]) for a in args), mode, out_dtype)
                         for i in range(args[0].size)], out_dtype)
    return args, expected


def run(fn, args, out_dtype):
    """fn(args[0][i], ...) for every i, in a kernel (fn a closure variable)."""
    return call(fn, *args, out_dtypes=[out_dtype])[0]


def assert_bits_equal(name, args, got, expected):
    """Equal bit for bit (the sign of a zero included), NaN where NaN; the first
    mismatches named with their inputs."""
    itype = np.int32 if expected.dtype == F32 else np.int64
    same = (got.view(itype) == expected.view(itype)) | (np.isnan(got) & np.isnan(expected))
    if not same.all():
        bad = np.flatnonzero(~same)[:8]
        lines = [f"{name}({', '.join(repr(a[i].item()) for a in args)}) = {got[i]!r}, "
                 f"expected {expected[i]!r}" for i in bad]
        pytest.fail(f"{(~same).sum()} of {same.size} wrong:\n" + "\n".join(lines))


@pytest.mark.parametrize("name", NAMES)
def test_directed(name):
    args, expected = case(name)
    got = run(getattr(libdevice, name), args, expected.dtype)
    assert_bits_equal(name, args, got, expected)


def test_every_directed_function_is_exported():
    for name in NAMES:
        assert name in libdevice.__all__, name


def test_reference_rounding():
    """The reference itself, on values whose roundings are known."""
    tiny = 5e-324
    assert round_exact(Fraction(tiny) / 2, "ru", F64) == tiny
    assert round_exact(Fraction(tiny) / 2, "rd", F64) == 0.0
    assert math.copysign(1, round_exact(-Fraction(tiny) / 2, "rz", F64)) == -1
    assert round_exact(-Fraction(tiny) / 2, "rd", F64) == -tiny
    big = np.finfo(F64).max
    assert round_exact(Fraction(big) * 2, "rz", F64) == big
    assert round_exact(Fraction(big) + 1, "ru", F64) == math.inf
    assert round_exact(-Fraction(big) - 1, "ru", F64) == -big
    assert round_exact(Fraction(1, 3), "rd", F32) == float(F32(0.3333333))
    assert round_exact(Fraction(1, 3), "ru", F32) == float(np.nextafter(F32(0.3333333), F32(1)))
    assert round_exact(Fraction(2 ** 24 + 1), "rz", F32) == 2 ** 24
    assert round_exact(Fraction(2 ** 24 + 1), "ru", F32) == 2 ** 24 + 2
    assert ref_sqrt(2.0, "ru", F64) == math.sqrt(2.0)          # sqrt(2) rounds up to nearest
    assert ref_sqrt(2.0, "rd", F64) == math.nextafter(math.sqrt(2.0), 0)
    assert ref_sqrt(9.0, "rd", F64) == ref_sqrt(9.0, "ru", F64) == 3.0


def test_directed_examples():
    """A few by hand: the directions of 1/3, a sum's sticky bit, the overflow
    results, the sign of an exact zero."""
    x = np.array([1.0, 1.0, 1e308, -1e308, 2.0], F64)
    y = np.array([3.0, -3.0, 1e308, 1e308, -2.0], F64)
    third = 1.0 / 3.0
    assert list(run(libdevice.ddiv_rd, [x[:2], y[:2]], F64)) == [third, -math.nextafter(third, 1)]
    assert list(run(libdevice.ddiv_ru, [x[:2], y[:2]], F64)) == [math.nextafter(third, 1), -third]
    big = np.finfo(F64).max
    assert list(run(libdevice.dadd_rz, [x[2:4], y[2:4]], F64)) == [big, 0.0]
    assert list(run(libdevice.dmul_ru, [x[2:4], y[2:4]], F64)) == [math.inf, -big]
    zeros = run(libdevice.dadd_rd, [x[4:], y[4:]], F64)
    assert zeros[0] == 0 and math.copysign(1, zeros[0]) == -1
    s = run(libdevice.fadd_ru, [np.array([1.0], F32), np.array([1e-30], F32)], F32)
    assert s[0] == np.nextafter(F32(1), F32(2))


def test_compile_ptx_of_a_kernel_using_directed_functions(check_ptx):
    def uses_directed(x, n, out, out32):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = (libdevice.dadd_rd(x[i], 1.0) + libdevice.dmul_ru(x[i], x[i])
                      + libdevice.ddiv_rz(1.0, x[i]) + libdevice.dsqrt_ru(x[i])
                      + libdevice.fma_rd(x[i], x[i], -1.0) + libdevice.ll2double_rz(n[i]))
            out32[i] = (libdevice.fadd_ru(x[i], 1.0) + libdevice.fmaf_rz(x[i], x[i], 1.0)
                        + libdevice.fsqrt_rd(x[i]) + libdevice.double2float_ru(x[i])
                        + libdevice.ull2float_rd(n[i]))

    ptx, _ = cuda.compile_ptx(uses_directed,
                              "void(float64[::1], int64[::1], float64[::1], float32[::1])")
    check_ptx(ptx)
