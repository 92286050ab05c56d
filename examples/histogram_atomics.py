#!/usr/bin/env python3
"""A histogram with atomics: each block counts into a private histogram in
shared memory (atomics on shared memory are cheap), then adds it to the global
one with one atomic per bin.

Run it as a script: `python examples/histogram_atomics.py`. It checks the
counts against np.histogram and exits non-zero on a mismatch.
"""

import sys

import numpy as np

import cudajit as cuda

BINS = 64


@cuda.jit
def histogram(samples, low, high, counts):
    local = cuda.shared.array(BINS, np.uint32)
    t = cuda.threadIdx.x
    for b in range(t, BINS, cuda.blockDim.x):
        local[b] = 0
    cuda.syncthreads()
    width = (high - low) / BINS
    for i in range(cuda.grid(1), samples.size, cuda.gridsize(1)):
        x = samples[i]
        if low <= x < high:
            cuda.atomic.add(local, int((x - low) / width), 1)
    cuda.syncthreads()
    for b in range(t, BINS, cuda.blockDim.x):
        cuda.atomic.add(counts, b, local[b])


def main():
    samples = np.random.default_rng(2).normal(0.0, 1.0, 2_000_000).astype(np.float32)
    low, high = -4.0, 4.0
    device = cuda.get_current_device()
    print(f"histogram_atomics: {samples.size} normal samples into {BINS} bins")
    print(f"  device: {device.kind} ({device.name})")
    counts = cuda.to_device(np.zeros(BINS, np.uint32))
    histogram[32, 256](cuda.to_device(samples), low, high, counts)
    got = counts.copy_to_host()
    # The kernel's bin of x is int((x - low) / width) in float64, as NumPy computes it here.
    x = samples[(samples >= low) & (samples < high)].astype(np.float64)
    expected = np.bincount(((x - low) / ((high - low) / BINS)).astype(np.int64), minlength=BINS)
    ok = np.array_equal(got, expected)
    print(f"  {got.sum()} samples counted, peak bin {got.max()}: {'OK' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
