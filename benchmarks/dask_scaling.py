"""One Dask computation whose chunks run through a cudajit kernel, timed on a
dask.distributed LocalCluster of 1, 2 and 4 worker processes (one thread each, each
process's cpu device sized to one worker thread, CUDAJIT_CPU_WORKERS=1, so that the
workers do not oversubscribe the machine), and on the threaded scheduler for reference.

    PYTHONPATH=python python3 benchmarks/dask_scaling.py [--size N] [--chunks K] [--repeats R]

Prints a table and writes benchmarks/results/dask_scaling.json. Each time is the median
of R computations after one warm-up computation (which compiles the kernel in every
worker). On a machine with fewer cores than workers the extra workers only queue.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
os.environ["CUDAJIT_CPU_WORKERS"] = "1"  # before cudajit starts its pool; workers inherit it

import cudajit as cuda  # noqa: E402


@cuda.jit
def iterate(x, out, rounds):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        for _ in range(rounds):
            v = math.sin(v) * 0.5 + math.cos(v) * 0.25
        out[i] = v


def through_kernel(block: np.ndarray, rounds: int) -> np.ndarray:
    out = np.empty_like(block)
    iterate[(block.size + 255) // 256, 256](block, out, rounds)
    return out


def timed(compute, repeats: int) -> float:
    compute()  # warm-up: compiles the kernel wherever it runs
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        compute()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def main() -> None:
    import dask.array as da
    from dask.distributed import Client, LocalCluster

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=2_000_000)
    parser.add_argument("--chunks", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", default="1,2,4")
    options = parser.parse_args()

    x = da.linspace(-3, 3, options.size, chunks=-(-options.size // options.chunks))
    y = x.map_blocks(through_kernel, options.rounds, dtype=x.dtype)
    reference = y.compute(scheduler="threads")

    rows = []
    threaded = timed(lambda: y.compute(scheduler="threads"), options.repeats)
    rows.append({"scheduler": "threaded (1 process)", "workers": os.cpu_count(),
                 "seconds": threaded})
    for workers in (int(w) for w in options.workers.split(",")):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster):
            result = y.compute()
            assert np.array_equal(result, reference), "a worker's chunks differ"
            seconds = timed(y.compute, options.repeats)
        rows.append({"scheduler": "distributed", "workers": workers, "seconds": seconds})

    base = next(r["seconds"] for r in rows if r["scheduler"] == "distributed")
    print(f"{options.size} float64 in {options.chunks} chunks, {options.rounds} rounds of "
          f"sin/cos each; {os.cpu_count()} cores")
    print(f"{'scheduler':<22} {'workers':>7} {'seconds':>9} {'vs 1 worker':>12}")
    for r in rows:
        print(f"{r['scheduler']:<22} {r['workers']:>7} {r['seconds']:>9.3f} "
              f"{base / r['seconds']:>11.2f}x")
    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    (out / "dask_scaling.json").write_text(json.dumps({
        "machine": platform.node(), "cores": os.cpu_count(), "size": options.size,
        "chunks": options.chunks, "rounds": options.rounds, "repeats": options.repeats,
        "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
