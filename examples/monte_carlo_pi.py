#!/usr/bin/env python3
"""A Monte-Carlo estimate of pi with cudajit.random (Numba's xoroshiro128+
generator, the same numbers for the same seed): each thread draws points in the
unit square with its own generator and counts those inside the quarter circle.

Run it as a script: `python examples/monte_carlo_pi.py`. It checks that the
points lie in [0, 1), that the first points alone give the fraction NumPy counts
from them, and that the estimate is within 0.01 of pi (the seed is fixed, so
the numbers are the same on every device); it exits non-zero on a mismatch.
"""

import math
import sys

import numpy as np

import cudajit as cuda
from cudajit.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

THREADS = 64 * 128
SAMPLES = 200  # points per thread


@cuda.jit
def count_inside(states, samples, counts, first_points):
    i = cuda.grid(1)
    inside = 0
    for k in range(samples):
        x = xoroshiro128p_uniform_float32(states, i)
        y = xoroshiro128p_uniform_float32(states, i)
        if k == 0:
            first_points[i, 0] = x
            first_points[i, 1] = y
        if x * x + y * y <= 1.0:
            inside += 1
    counts[i] = inside


def main():
    device = cuda.get_current_device()
    print(f"monte_carlo_pi: {THREADS} generators x {SAMPLES} points, seed 2026")
    print(f"  device: {device.kind} ({device.name})")
    states = create_xoroshiro128p_states(THREADS, seed=2026)
    counts = cuda.device_array(THREADS, np.int64)
    first = cuda.device_array((THREADS, 2), np.float32)
    count_inside[64, 128](states, SAMPLES, counts, first)
    counts, first = counts.copy_to_host(), first.copy_to_host()
    estimate = 4.0 * counts.sum() / (THREADS * SAMPLES)
    # Each thread's first point, counted by NumPy, is inside as often as pi / 4 says.
    first_fraction = (first[:, 0] ** 2 + first[:, 1] ** 2 <= 1.0).mean()
    ok = (abs(estimate - math.pi) < 0.01 and abs(4 * first_fraction - math.pi) < 0.1
          and 0 <= first.min() and first.max() < 1)
    print(f"  pi ~ {estimate:.5f} (error {abs(estimate - math.pi):.2e}): "
          f"{'OK' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
