#!/usr/bin/env python3
"""The math module in kernels: each function of cudajit's list applied to
float32 and float64 arrays (float32 operands use the float32 variants).

Run it as a script: `python examples/math_functions.py`. It prints a table of
the largest relative error against Python's math module and exits non-zero
when one exceeds its tolerance.
"""

import math
import sys

import numpy as np

import cudajit as cuda


@cuda.jit
def unary_functions(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[0, i] = math.sqrt(v)
        out[1, i] = math.exp(v)
        out[2, i] = math.expm1(v)
        out[3, i] = math.log(v)
        out[4, i] = math.log2(v)
        out[5, i] = math.log10(v)
        out[6, i] = math.log1p(v)
        out[7, i] = math.sin(v)
        out[8, i] = math.cos(v)
        out[9, i] = math.tan(v)
        out[10, i] = math.asin(v / 4)
        out[11, i] = math.acos(v / 4)
        out[12, i] = math.atan(v)
        out[13, i] = math.sinh(v)
        out[14, i] = math.cosh(v)
        out[15, i] = math.tanh(v)
        out[16, i] = math.asinh(v)
        out[17, i] = math.acosh(v + 1)
        out[18, i] = math.atanh(v / 4)
        out[19, i] = math.fabs(-v)
        out[20, i] = math.erf(v)
        out[21, i] = math.erfc(v)
        out[22, i] = math.gamma(v)
        out[23, i] = math.lgamma(v)
        out[24, i] = math.floor(v)
        out[25, i] = math.ceil(v)
        out[26, i] = math.trunc(-v)


@cuda.jit
def binary_functions(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[0, i] = math.pow(x[i], y[i])
        out[1, i] = math.atan2(y[i], x[i])
        out[2, i] = math.copysign(x[i], -y[i])
        out[3, i] = math.fmod(x[i], y[i])
        out[4, i] = math.hypot(x[i], y[i])


UNARY = [
    ("sqrt", math.sqrt),
    ("exp", math.exp),
    ("expm1", math.expm1),
    ("log", math.log),
    ("log2", math.log2),
    ("log10", math.log10),
    ("log1p", math.log1p),
    ("sin", math.sin),
    ("cos", math.cos),
    ("tan", math.tan),
    ("asin", lambda v: math.asin(v / 4)),
    ("acos", lambda v: math.acos(v / 4)),
    ("atan", math.atan),
    ("sinh", math.sinh),
    ("cosh", math.cosh),
    ("tanh", math.tanh),
    ("asinh", math.asinh),
    ("acosh", lambda v: math.acosh(v + 1)),
    ("atanh", lambda v: math.atanh(v / 4)),
    ("fabs", lambda v: math.fabs(-v)),
    ("erf", math.erf),
    ("erfc", math.erfc),
    ("gamma", math.gamma),
    ("lgamma", math.lgamma),
    ("floor", math.floor),
    ("ceil", math.ceil),
    ("trunc", lambda v: math.trunc(-v)),
]
BINARY = [
    ("pow", math.pow),
    ("atan2", lambda x, y: math.atan2(y, x)),
    ("copysign", lambda x, y: math.copysign(x, -y)),
    ("fmod", math.fmod),
    ("hypot", math.hypot),
]
TOLERANCE = {np.float32: 2e-5, np.float64: 1e-13}


def device_name():
    """The device kernels run on: a GPU when one is present, else the cpu device."""
    device = cuda.get_current_device()
    return f"{device.kind} ({device.name})"


def worst_relative_error(out, reference, floor=1e-30):
    """max |out - reference| / max(|reference|, floor)."""
    scale = np.maximum(np.abs(reference), floor)
    return float(np.max(np.abs(out.astype(np.float64) - reference) / scale))


def main():
    n = 1000
    x64 = np.linspace(0.05, 3.9, n)
    y64 = np.linspace(-2.0, 2.5, n) + 0.013
    print(
        f"math_functions: {len(UNARY) + len(BINARY)} math functions on {n} float32 and float64 "
        "values "
        f"on device: {device_name()}"
    )
    print(f"  {'function':10s} {'float32 rel. error':>20s} {'float64 rel. error':>20s}")

    failures = []
    results = {}
    for dtype in (np.float32, np.float64):
        x, y = x64.astype(dtype), y64.astype(dtype)
        out1 = np.zeros((len(UNARY), n), dtype)
        out2 = np.zeros((len(BINARY), n), dtype)
        blocks = (n + 127) // 128
        unary_functions[blocks, 128](x, out1)
        binary_functions[blocks, 128](x, y, out2)
        xs, ys = x.astype(np.float64).tolist(), y.astype(np.float64).tolist()
        for row, (name, func) in enumerate(UNARY):
            reference = np.array([func(v) for v in xs]).astype(dtype).astype(np.float64)
            # lgamma crosses zero at 1 and 2: measure its error against max(|value|, 1) there
            floor = 1.0 if name == "lgamma" else 1e-30
            results.setdefault(name, {})[dtype] = worst_relative_error(out1[row], reference, floor)
        for row, (name, func) in enumerate(BINARY):
            reference = (
                np.array([func(a, b) for a, b in zip(xs, ys)]).astype(dtype).astype(np.float64)
            )
            results.setdefault(name, {})[dtype] = worst_relative_error(out2[row], reference)

    for name, errors in results.items():
        flags = ""
        for dtype, error in errors.items():
            if not error <= TOLERANCE[dtype]:
                failures.append(
                    f"{name} ({np.dtype(dtype).name}): {error:.3g} > {TOLERANCE[dtype]:.0e}"
                )
                flags = "  <-- MISMATCH"
        print(f"  {name:10s} {errors[np.float32]:20.3g} {errors[np.float64]:20.3g}{flags}")

    for constant, value in (("pi", math.pi), ("e", math.e)):
        print(f"  math.{constant} = {value!r}")
    if failures:
        print("MISMATCH: " + "; ".join(failures))
        return 1
    print("  all within tolerance (float32 2e-5, float64 1e-13; lgamma absolute below 1): OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
