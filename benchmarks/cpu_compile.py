"""Cold compile of small kernels for the cpu device, against an older cudajit and Numba.

Each sample is a fresh process: the first launch of a kernel minus a second launch (so the
time is the compile, front end to native code, not the run), median over `--runs` processes.
`--baseline TREE` adds the same measurement with an older cudajit source tree whose
extension is built in place (TREE/python importable), the way issue 25's target is stated
("the cold compile of a small kernel for the cpu device stays within 1.5x of today's");
Numba's `@njit(parallel=True)` of the same computation (first call minus second) is the
peer a CPU user would compare with. Writes benchmarks/results/cpu_compile.json.

    PYTHONPATH=python python3 benchmarks/cpu_compile.py [--runs 9] [--baseline /tmp/base]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ("saxpy", "stencil2d", "warp_reduce", "mandelbrot")

CUDAJIT_CHILD = r"""
import sys, time
import numpy as np
import cudajit as cuda
kind = sys.argv[1]
if kind == "saxpy":
    @cuda.jit
    def k(a, x, y, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = a * x[i] + y[i]
    x = cuda.to_device(np.ones(64, np.float32))
    args = (np.float32(2), x, cuda.to_device(np.ones(64, np.float32)),
            cuda.device_array(64, np.float32))
elif kind == "warp_reduce":  # warp by warp: lane loops unrolled, a block-wide copy beside
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        v = a[i]
        for delta in (16, 8, 4, 2, 1):
            v += cuda.shfl_down_sync(0xFFFFFFFF, v, delta)
        if cuda.laneid == 0:
            out[i // 32] = v
    args = (cuda.to_device(np.ones(64)), cuda.device_array(2))
elif kind == "mandelbrot":  # a loop that threads leave at different iterations: lockstep
    @cuda.jit
    def k(out, iters):
        col, row = cuda.grid(2)
        rows, cols = out.shape
        if row < rows and col < cols:
            cr = np.float32(-2.0 + 3.0 * col / cols)
            ci = np.float32(-1.0 + 2.0 * row / rows)
            zr = np.float32(0.0)
            zi = np.float32(0.0)
            n = iters
            for it in range(iters):
                zr2 = zr * zr
                zi2 = zi * zi
                if zr2 + zi2 > 4.0:
                    n = it
                    break
                zi = np.float32(2.0) * zr * zi + ci
                zr = zr2 - zi2 + cr
            out[row, col] = n
    args = (cuda.device_array((1, 64), np.int32), 50)
else:
    @cuda.jit
    def k(a, out):
        j, i = cuda.grid(2)
        n, m = a.shape
        if 0 < i < n - 1 and 0 < j < m - 1:
            out[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]) - a[i, j]
    args = (cuda.to_device(np.ones((64, 64))), cuda.to_device(np.zeros((64, 64))))
cuda.synchronize()
t = time.perf_counter(); k[2, 32](*args); cuda.synchronize(); first = time.perf_counter() - t
t = time.perf_counter(); k[2, 32](*args); cuda.synchronize(); warm = time.perf_counter() - t
print((first - warm) * 1e3)
"""

NUMBA_CHILD = r"""
import sys, time
import numpy as np
from numba import njit, prange
kind = sys.argv[1]
if kind == "saxpy":
    @njit(parallel=True)
    def k(a, x, y, out):
        for i in prange(x.size):
            out[i] = a * x[i] + y[i]
    args = (np.float32(2), np.ones(64, np.float32), np.ones(64, np.float32),
            np.zeros(64, np.float32))
elif kind == "warp_reduce":
    @njit(parallel=True)
    def k(a, out):
        for w in prange(out.size):
            acc = 0.0
            for t in range(32):
                acc += a[w * 32 + t]
            out[w] = acc
    args = (np.ones(64), np.zeros(2))
elif kind == "mandelbrot":
    @njit(parallel=True)
    def k(out, iters):
        rows, cols = out.shape
        for row in prange(rows):
            for col in range(cols):
                cr = np.float32(-2.0 + 3.0 * col / cols)
                ci = np.float32(-1.0 + 2.0 * row / rows)
                zr = np.float32(0.0)
                zi = np.float32(0.0)
                n = iters
                for it in range(iters):
                    zr2 = zr * zr
                    zi2 = zi * zi
                    if zr2 + zi2 > 4.0:
                        n = it
                        break
                    zi = np.float32(2.0) * zr * zi + ci
                    zr = zr2 - zi2 + cr
                out[row, col] = n
    args = (np.zeros((1, 64), np.int32), 50)
else:
    @njit(parallel=True)
    def k(a, out):
        n, m = a.shape
        for i in prange(1, n - 1):
            for j in range(1, m - 1):
                out[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]) - a[i, j]
    args = (np.ones((64, 64)), np.zeros((64, 64)))
t = time.perf_counter(); k(*args); first = time.perf_counter() - t
t = time.perf_counter(); k(*args); warm = time.perf_counter() - t
print((first - warm) * 1e3)
"""


def sample(python: str, source: str, kind: str, pythonpath: str | None) -> float:
    env = dict(os.environ, CUDAJIT_DEVICE="cpu")
    env.pop("CUDAJIT_LLVM_OPTIONS", None)
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    out = subprocess.run([python, "-W", "ignore", "-c", source, kind], env=env, check=True,
                         capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def median_of(runs: int, *args) -> float:
    return statistics.median(sample(*args) for _ in range(runs))


def numba_python() -> str | None:
    for python in (sys.executable, str(ROOT / "build" / "compat-venv" / "bin" / "python")):
        if Path(python).exists() and subprocess.run(
                [python, "-c", "import numba"], capture_output=True).returncode == 0:
            return python
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--kernels", default=",".join(KERNELS),
                        help="comma-separated: " + ", ".join(KERNELS))
    parser.add_argument("--baseline", help="an older cudajit source tree, built in place")
    parser.add_argument("--json", default=str(ROOT / "benchmarks" / "results" / "cpu_compile.json"))
    args = parser.parse_args()
    numba = numba_python()
    rows = {}
    trees = {"cudajit": str(ROOT / "python")}
    if args.baseline:
        trees["baseline"] = str(Path(args.baseline) / "python")
    for kind in args.kernels.split(","):
        # Interleaved, so that a machine whose speed drifts (a shared VM) moves both alike.
        samples = {name: [] for name in trees}
        for _ in range(args.runs):
            for name, path in trees.items():
                samples[name].append(sample(sys.executable, CUDAJIT_CHILD, kind, path))
        row = {name: statistics.median(values) for name, values in samples.items()}
        if numba:
            row["numba"] = median_of(args.runs, numba, NUMBA_CHILD, kind, None)
        rows[kind] = row
    print(f"cold compile for the cpu device, ms (median of {args.runs} processes)")
    print(f"{'kernel':12} {'cudajit':>9} {'baseline':>9} {'ratio':>7} {'numba':>9}")
    for kind, row in rows.items():
        base = row.get("baseline")
        ratio = f"{row['cudajit'] / base:6.2f}x" if base else "    n/a"
        miss = " !" if base and row["cudajit"] > 1.5 * base else ""
        print(f"{kind:12} {row['cudajit']:9.1f} {base or float('nan'):9.1f} {ratio}"
              f" {row.get('numba', float('nan')):9.1f}{miss}")
    print("ratio = cudajit / baseline; ! marks a miss of issue 25's target (1.5x)")
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps({"runs": args.runs, "baseline": args.baseline,
                                           "kernels": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
