#!/usr/bin/env python3
"""Kernels that synchronise their blocks, on the cpu device, against Numba's
CUDA simulator (NUMBA_ENABLE_CUDASIM=1) running the same kernels.

    python benchmarks/barrier_kernels.py [--numba-python PATH] [--repeats N] [--json PATH]

The cpu device runs the threads of such a block as fibers (a switch at each
barrier); Numba's simulator runs each thread of a block as a Python thread.
Target: the cpu device at least 100 times faster. The peer runs in its own
process, with the interpreter given by --numba-python (a virtual environment
with numba-cuda; default: this interpreter, if it can import numba.cuda).

Also measured: what one barrier costs the cpu device per thread (a kernel of
1024 threads passing `syncthreads()` in a loop, minus the same loop without it).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import textwrap
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]

# The kernels, written once for both backends: `cuda` is bound by the runner.
KERNELS = textwrap.dedent('''
    import numpy as np

    TPB = 16

    @cuda.jit
    def tiled_matmul(A, B, C):
        sA = cuda.shared.array(shape=(TPB, TPB), dtype=np.float32)
        sB = cuda.shared.array(shape=(TPB, TPB), dtype=np.float32)
        x, y = cuda.grid(2)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        acc = 0.0
        for t in range(cuda.gridDim.x):
            sA[ty, tx] = A[y, t * TPB + tx]
            sB[ty, tx] = B[t * TPB + ty, x]
            cuda.syncthreads()
            for k in range(TPB):
                acc += sA[ty, k] * sB[k, tx]
            cuda.syncthreads()
        C[y, x] = acc

    @cuda.jit
    def block_reduce(a, out):
        s = cuda.shared.array(256, np.float64)
        t = cuda.threadIdx.x
        s[t] = a[cuda.grid(1)]
        cuda.syncthreads()
        stride = 128
        while stride > 0:
            if t < stride:
                s[t] += s[t + stride]
            cuda.syncthreads()
            stride //= 2
        if t == 0:
            out[cuda.blockIdx.x] = s[0]

    def inputs(name, n):
        rng = np.random.default_rng(0)
        if name == "tiled_matmul":
            A = rng.random((n, n), dtype=np.float32)
            B = rng.random((n, n), dtype=np.float32)
            return (n // TPB, n // TPB), (TPB, TPB), (A, B, np.zeros((n, n), np.float32))
        a = rng.random(n * 256)
        return n, 256, (a, np.zeros(n))
''')

RUNNER = textwrap.dedent('''
    import importlib, json, pathlib, statistics, sys, tempfile, time
    BACKEND, CASES, REPEATS = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
    header = "from numba import cuda\\n" if BACKEND == "numba" else "import cudajit as cuda\\n"
    folder = tempfile.mkdtemp()  # kernels come from a file: both read their source
    pathlib.Path(folder, "barrier_bench_kernels.py").write_text(header + KERNELS)
    sys.path.insert(0, folder)
    kernels = importlib.import_module("barrier_bench_kernels")
    cuda = kernels.cuda
    results = {}
    for name, n in CASES:
        grid, block, args = kernels.inputs(name, n)
        kernel = getattr(kernels, name)
        kernel[grid, block](*args)  # compile (cudajit) and warm up
        cuda.synchronize()
        samples = []
        for _ in range(REPEATS):
            t0 = time.perf_counter()
            kernel[grid, block](*args)
            cuda.synchronize()
            samples.append(time.perf_counter() - t0)
        results[f"{name}:{n}"] = statistics.median(samples) * 1e3
    print(json.dumps(results))
''')

# Each kernel at one size per backend run (Numba's simulator needs seconds for these).
CASES = [("tiled_matmul", 64), ("block_reduce", 16)]


def run_backend(python: str, backend: str, repeats: int, cases=CASES) -> dict | str:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    if backend == "numba":
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    else:
        env["CUDAJIT_DEVICE"] = "cpu"
    code = f"KERNELS = {KERNELS!r}\n" + RUNNER
    result = subprocess.run([python, "-c", code, backend, json.dumps(cases), str(repeats)],
                            capture_output=True, text=True, env=env, timeout=1800)
    if result.returncode != 0:
        return (result.stderr.strip().splitlines() or ["failed"])[-1]
    return json.loads(result.stdout.strip().splitlines()[-1])


def barrier_cost_ns(repeats: int) -> tuple[float, float]:
    """ns per thread per syncthreads() on the cpu device, and per loop iteration without."""
    os.environ["CUDAJIT_DEVICE"] = "cpu"
    sys.path.insert(0, str(ROOT / "python"))
    import numpy as np

    import cudajit as cuda

    @cuda.jit
    def with_barriers(out, n):
        acc = 0
        for k in range(n):
            acc += k * out[0]
            cuda.syncthreads()
        out[cuda.grid(1)] = acc

    @cuda.jit
    def without(out, n):  # the plain loop of a kernel that never synchronises
        acc = 0
        for k in range(n):
            acc += k * out[0]
        out[cuda.grid(1)] = acc

    out = cuda.device_array(1024, np.int64)
    iterations, threads = 200, 1024

    def per_thread_iteration(kernel):
        kernel[1, threads](out, iterations)
        cuda.synchronize()
        samples = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            kernel[1, threads](out, iterations)
            cuda.synchronize()
            samples.append(time.perf_counter() - t0)
        return statistics.median(samples) / (threads * iterations) * 1e9

    return per_thread_iteration(with_barriers), per_thread_iteration(without)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--numba-python", default=sys.executable,
                        help="interpreter with numba-cuda for the peer (default: this one)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", default=str(ROOT / "benchmarks/results/barrier_kernels.json"))
    args = parser.parse_args()

    ours = run_backend(sys.executable, "cudajit", args.repeats)
    peer = run_backend(args.numba_python, "numba", max(1, args.repeats // 5))
    barrier, loop = barrier_cost_ns(args.repeats)

    print("barrier kernels: cpu device vs Numba's CUDA simulator (ms per launch, median)")
    print(f"{'kernel':<22}{'cudajit cpu':>14}{'numba cudasim':>16}{'speed-up':>12}")
    rows = []
    for name, n in CASES:
        key = f"{name}:{n}"
        mine = ours[key] if isinstance(ours, dict) else None
        theirs = peer[key] if isinstance(peer, dict) else None
        ratio = theirs / mine if mine and theirs else None
        flag = "" if ratio is None or ratio >= 100 else " !"
        print(f"{key:<22}{mine if mine is not None else float('nan'):>14.3f}"
              f"{theirs if theirs is not None else float('nan'):>16.1f}"
              f"{(f'{ratio:.0f}x' if ratio else 'n/a'):>12}{flag}")
        rows.append({"kernel": key, "cudajit_cpu_ms": mine, "numba_cudasim_ms": theirs,
                     "speedup": ratio})
    if not isinstance(peer, dict):
        print(f"  (Numba's simulator did not run: {peer}; pass --numba-python)")
    print(f"syncthreads() on the cpu device, 1024 threads: {barrier:.1f} ns per thread "
          f"(the loop without it: {loop:.1f} ns)")
    pathlib.Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    with open(args.json, "w") as f:
        json.dump({"kernels": rows, "barrier_ns_per_thread": barrier,
                   "loop_ns_per_thread": loop}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
