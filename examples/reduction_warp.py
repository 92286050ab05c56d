#!/usr/bin/env python3
"""A sum over a large array: each warp reduces its values with shuffles
(shfl_down_sync), each block combines its warps' sums through shared memory,
and one atomic add per block makes the total.

Run it as a script: `python examples/reduction_warp.py`. It checks the sum
against NumPy and exits non-zero on a mismatch.
"""

import sys

import numpy as np

import cudajit as cuda

FULL_MASK = 0xFFFFFFFF
BLOCK = 256


@cuda.jit(device=True)
def warp_sum(value):
    offset = 16
    while offset > 0:
        value += cuda.shfl_down_sync(FULL_MASK, value, offset)
        offset //= 2
    return value  # complete in lane 0


@cuda.jit
def total(values, result):
    warp_sums = cuda.shared.array(BLOCK // 32, np.float64)
    lane = cuda.threadIdx.x % 32
    warp = cuda.threadIdx.x // 32
    # A grid-stride loop: any number of values with a fixed grid.
    acc = 0.0
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        acc += values[i]
    acc = warp_sum(acc)
    if lane == 0:
        warp_sums[warp] = acc
    cuda.syncthreads()
    if warp == 0:
        acc = warp_sums[lane] if lane < BLOCK // 32 else 0.0
        acc = warp_sum(acc)
        if lane == 0:
            cuda.atomic.add(result, 0, acc)


def main():
    n = 1_000_003
    values = np.random.default_rng(1).random(n)
    device = cuda.get_current_device()
    print(f"reduction_warp: the sum of {n} float64 values, warp shuffles + shared memory + atomics")
    print(f"  device: {device.kind} ({device.name})")
    result = cuda.to_device(np.zeros(1))
    total[64, BLOCK](cuda.to_device(values), result)
    got = result.copy_to_host()[0]
    expected = values.sum()
    ok = np.isclose(got, expected, rtol=1e-12)
    print(f"  sum {got:.6f} (numpy {expected:.6f}): {'OK' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
