"""Simulated GPU throughput: thread-instructions per second of the PTX simulator.

Runs kernels compiled by cudajit on the cuda device over the simulated GPU
(libcudajit_sim.so, chosen here with CUDAJIT_DEVICE=sim) and reads the
simulator's own count of thread-instructions executed (cudajitSimStatistics).
The per-core figure runs each grid on one host thread (CUDAJIT_SIM_THREADS=1);
the target is at least 50 million thread-instructions per second per core.

Writes benchmarks/results/simulator_throughput.json.

    PYTHONPATH=python python3 benchmarks/simulator_throughput.py [--threads N]
"""

from __future__ import annotations

import argparse
import ctypes
import json
import math
import os
import platform
import sys
import time
from pathlib import Path

TARGET = 50e6  # thread-instructions per second per core

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--threads", type=int, default=1,
                    help="host threads per launch (CUDAJIT_SIM_THREADS); 1 gives per-core figures")
parser.add_argument("--repeats", type=int, default=3)
options = parser.parse_args()
os.environ["CUDAJIT_DEVICE"] = "sim"
os.environ["CUDAJIT_SIM_THREADS"] = str(options.threads)

import numpy as np  # noqa: E402

import cudajit as cuda  # noqa: E402
from cudajit import _core  # noqa: E402


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def polynomial_loop(x, out, steps):
    i = cuda.grid(1)
    if i < out.size:
        acc = x[i]
        for _ in range(steps):
            acc = acc * 0.999 + 0.5
        out[i] = acc


@cuda.jit
def integer_hash(out, rounds):
    i = cuda.grid(1)
    if i < out.size:
        h = i
        for _ in range(rounds):
            h = (h ^ (h >> 7)) * 2654435761 % 4294967296
        out[i] = h


@cuda.jit
def math_functions(x, out):
    i = cuda.grid(1)
    if i < out.size:
        v = x[i]
        out[i] = math.sin(v) + math.exp(-v) + math.sqrt(v + 1.0) + math.log(v + 2.0)


def statistics(lib):
    count, launches, seconds = ctypes.c_ulonglong(), ctypes.c_ulonglong(), ctypes.c_double()
    lib.cudajitSimStatistics(ctypes.byref(count), ctypes.byref(launches), ctypes.byref(seconds))
    return count.value, seconds.value


def main() -> None:
    if not _core.cuda_simulated():
        sys.exit("the simulated GPU is not available: " + _core.cuda_driver_library())
    lib = ctypes.CDLL(_core.cuda_driver_library())
    lib.cudajitSimStatistics.restype = None
    n = 1 << 16
    x = cuda.to_device(np.random.rand(n).astype(np.float32))
    y = cuda.to_device(np.random.rand(n).astype(np.float32))
    xd = cuda.to_device(np.random.rand(n))
    out32 = cuda.device_array(n, np.float32)
    out64 = cuda.device_array(n, np.float64)
    outi = cuda.device_array(n, np.int64)
    cases = [
        ("saxpy f32", lambda: saxpy[n // 256, 256](np.float32(2.0), x, y, out32)),
        ("fma loop f64 (200 steps)", lambda: polynomial_loop[n // 256, 256](xd, out64, 200)),
        ("integer hash (100 rounds)", lambda: integer_hash[n // 256, 256](outi, 100)),
        ("sin exp sqrt log f64", lambda: math_functions[n // 256, 256](xd, out64)),
    ]
    rows = []
    for label, run in cases:
        run()
        cuda.synchronize()  # compile and load outside the measurement
        best = None
        for _ in range(options.repeats):
            before, sec_before = statistics(lib)
            t0 = time.perf_counter()
            run()
            cuda.synchronize()
            wall = time.perf_counter() - t0
            after, sec_after = statistics(lib)
            sample = (after - before, sec_after - sec_before, wall)
            if best is None or sample[1] < best[1]:
                best = sample
        instructions, seconds, wall = best
        rate = instructions / seconds
        rows.append({"kernel": label, "threads": n, "thread_instructions": instructions,
                     "seconds": seconds, "wall_seconds": wall,
                     "thread_instructions_per_second": rate,
                     "per_core": rate / options.threads})
    print(f"simulated GPU, {options.threads} host thread(s) per launch")
    print(f"{'kernel':<28} {'thread-instr':>13} {'ms':>8} {'M instr/s':>10} {'per core':>9}")
    for r in rows:
        mark = "" if r["per_core"] >= TARGET else " !"
        print(f"{r['kernel']:<28} {r['thread_instructions']:>13,} {r['seconds'] * 1e3:>8.1f} "
              f"{r['thread_instructions_per_second'] / 1e6:>10.1f} {r['per_core'] / 1e6:>9.1f}{mark}")
    print(f"target: at least {TARGET / 1e6:.0f} M thread-instructions per second per core "
          "(! marks a miss)")
    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    (out / "simulator_throughput.json").write_text(json.dumps({
        "machine": platform.node(), "python": platform.python_version(),
        "host_threads": options.threads, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
