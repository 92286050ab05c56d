"""Launch overhead: microseconds per launch of an empty kernel.

For each available device (cpu always, cuda when a GPU is present), launches an
empty kernel with 0, 1, 3 and 8 device-array arguments, 3 foreign arrays (objects
exporting only `__cuda_array_interface__`, cuda only) and 3 scalar arguments,
N times on one stream, and reports the host time per launch (the
queue is drained once at the end, so this is the cost of the launch call, not
of the kernel). On cuda, the same kernel launched by a bare cuLaunchKernel loop
in C++ is reported beside it, and numba-cuda's launch of the same kernel where
numba-cuda and a GPU are available.

Writes benchmarks/results/launch_overhead.json.

    PYTHONPATH=python python3 benchmarks/launch_overhead.py [--launches N]

Without a GPU, the cuda device's host path can be measured over the simulated
GPU in its no-execute mode (launches are checked and queued, kernels not run):

    CUDAJIT_DEVICE=sim CUDAJIT_SIM_EXECUTE=0 PYTHONPATH=python python3 benchmarks/launch_overhead.py
"""

from __future__ import annotations

import os

# NumPy's BLAS threads spin on a small machine and disturb sub-microsecond timings;
# nothing here uses BLAS.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
from pathlib import Path  # noqa: E402

import cudajit as cuda  # noqa: E402
from _timing import peer_us, us_per_launch  # noqa: E402
from cudajit import _core  # noqa: E402

TARGET_US = 1.5  # cudajit's cost over a bare launch with 3 device arrays (issue 3)


@cuda.jit
def empty0():
    pass


@cuda.jit
def empty1(a):
    pass


@cuda.jit
def empty3(a, b, c):
    pass


@cuda.jit
def empty8(a, b, c, d, e, f, g, h):
    pass


@cuda.jit
def empty_scalars(x, y, z):
    pass


class ForeignArray:
    """A producer that exports only the CUDA Array Interface (no stream: nothing to order)."""

    def __init__(self, array):
        self.owner = array  # the memory lives as long as this producer
        self.__cuda_array_interface__ = dict(array.__cuda_array_interface__, stream=None)


# (label, kernel, argument count, kind of argument: "device", "foreign" or "scalar")
CASES = [
    ("0 arrays", empty0, 0, "device"),
    ("1 array", empty1, 1, "device"),
    ("3 arrays", empty3, 3, "device"),
    ("8 arrays", empty8, 8, "device"),
    ("3 CAI", empty3, 3, "foreign"),
    ("3 scalars", empty_scalars, 3, "scalar"),
]


def arguments(count: int, kind: str) -> list:
    if kind == "scalar":
        return [1.0] * count
    arrays = [cuda.device_array(16) for _ in range(count)]
    return [ForeignArray(a) for a in arrays] if kind == "foreign" else arrays


def numba_launch_us(count: int, scalars: bool, launches: int, repeats: int) -> float | None:
    try:
        from numba import cuda as ncuda
        if not ncuda.is_available():
            return None
    except Exception:
        return None
    names = ["a", "b", "c", "d", "e", "f", "g", "h"][:count]
    src = f"def k({', '.join(names)}):\n    pass\n"
    scope: dict = {}
    exec(src, scope)  # noqa: S102 - a benchmark kernel of the same shape
    kernel = ncuda.jit(scope["k"])
    args = [1.0] * count if scalars else [ncuda.device_array(16) for _ in range(count)]
    s = ncuda.stream()
    return us_per_launch(kernel, (1, 1, s), args, s.synchronize, launches, repeats)


def devices() -> list:
    found = [_core.cpu_device()]
    if cuda.is_available():
        found += cuda.list_devices()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args()

    rows = []
    for device in devices():
        _core.set_current_device(device)
        stream = cuda.stream()
        for label, kernel, count, kind in CASES:
            if kind == "foreign" and device.kind != "cuda":
                continue  # the cpu device's arrays are host memory, not CAI producers
            args = arguments(count, kind)
            us = us_per_launch(kernel, (1, 1, stream), args, stream.synchronize,
                               options.launches, options.repeats)
            bare = None
            if device.kind == "cuda" and hasattr(_core, "bare_launch_us"):
                # The same kernel and values by bare cuLaunchKernel (foreign arrays: their memory).
                bare_args = arguments(count, "device") if kind == "foreign" else args
                bare = _core.bare_launch_us(kernel, bare_args, stream, options.launches)
            numba = (peer_us(numba_launch_us, count, kind == "scalar", options.launches,
                             options.repeats)
                     if device.kind == "cuda" else None)
            rows.append({"device": f"{device.kind}:{device.id} {device.name}", "case": label,
                         "cudajit_us": us, "bare_cuLaunchKernel_us": bare,
                         "numba_cuda_us": numba})

    def fmt(v):
        return "n/a" if v is None else f"{v:8.2f}"

    print(f"{'device':<28} {'arguments':<10} {'cudajit us':>10} {'bare us':>9} "
          f"{'added us':>9} {'numba us':>9}")
    for r in rows:
        added = (None if r["bare_cuLaunchKernel_us"] is None
                 else r["cudajit_us"] - r["bare_cuLaunchKernel_us"])
        r["added_us"] = added
        print(f"{r['device']:<28} {r['case']:<10} {fmt(r['cudajit_us']):>10} "
              f"{fmt(r['bare_cuLaunchKernel_us']):>9} {fmt(added):>9} "
              f"{fmt(r['numba_cuda_us']):>9}")
    print(f"target: cudajit adds under {TARGET_US} us to a bare cuLaunchKernel with 3 device "
          "arrays (cuda only; the cpu device has no bare launch to compare with)")

    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    (out / "launch_overhead.json").write_text(json.dumps({
        "machine": platform.node(), "python": platform.python_version(),
        "launches": options.launches, "repeats": options.repeats,
        "cuda_device": os.environ.get("CUDAJIT_DEVICE", ""), "rows": rows,
    }, indent=2))


if __name__ == "__main__":
    main()
