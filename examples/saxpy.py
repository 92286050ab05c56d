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
    """The device kernels run on: cudajit.get_current_device() where it exists, else cpu."""
    get_current_device = getattr(cuda, "get_current_device", None)
    if get_current_device is None:
        return "cpu"
    try:
        device = get_current_device()
    except Exception:
        return "cpu"
    name = getattr(device, "name", device)
    return name.decode() if isinstance(name, bytes) else str(name)


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

    start = time.perf_counter()
    saxpy[blocks, threads](a, x, y, out)  # the first launch compiles the kernel
    first = time.perf_counter() - start
    start = time.perf_counter()
    saxpy[blocks, threads](a, x, y, out)
    second = time.perf_counter() - start
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
