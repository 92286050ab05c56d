#!/usr/bin/env python3
"""SAXPY: out = a * x + y, one thread per element.

Run it as a script: `python examples/saxpy.py`. It launches the kernel, checks
the result against NumPy and exits non-zero on a mismatch.
"""

import sys
import time

import numpy as np

import cudajit as cuda


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def device_name():
    """The device kernels run on: a GPU when one is present, else the cpu device."""
    device = cuda.get_current_device()
    return f"{device.kind} ({device.name})"


def main():
    n = 1_000_000
    rng = np.random.default_rng(0)
    a = np.float32(2.5)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)

    threads = 256
    blocks = (n + threads - 1) // threads
    print(f"saxpy: out = a * x + y for {n:,} float32 elements, a = {a}")
    print(f"  launch [{blocks}, {threads}] on device: {device_name()}")

    # Device arrays stay on the device between launches (NumPy arrays would be
    # copied in and out around each launch on a GPU).
    d_x, d_y, d_out = cuda.to_device(x), cuda.to_device(y), cuda.device_array_like(out)
    start = time.perf_counter()
    saxpy[blocks, threads](a, d_x, d_y, d_out)  # the first launch compiles the kernel
    cuda.synchronize()
    first = time.perf_counter() - start
    start = time.perf_counter()
    saxpy[blocks, threads](a, d_x, d_y, d_out)
    cuda.synchronize()
    second = time.perf_counter() - start
    d_out.copy_to_host(out)
    print(
        f"  first launch (compile + run) {first * 1e3:.1f} ms, second launch {second * 1e3:.1f} ms"
    )

    expected = a * x + y
    error = float(np.max(np.abs(out - expected)))
    ok = np.allclose(out, expected, rtol=1e-6, atol=1e-6)
    print(f"  max |out - numpy| = {error:.3g}: {'OK' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
