#!/usr/bin/env python3
"""Compile latency to PTX: cudajit.compile_ptx, and numba-cuda's
numba.cuda.compile_ptx side by side where numba-cuda is installed.

For each kernel (saxpy, a 2-D stencil, a chain of four device functions, a
kernel calling twelve math functions) it measures, for cc 8.0:

- cold: the first compile_ptx call in a fresh Python process (median over
  --cold-runs processes). Only the compile_ptx call is timed; the import of
  the package is timed separately and reported as "import".
- warm: compile_ptx in a process that has already compiled the same kernel
  once (median over --warm-runs calls). No cache can hide the work: every
  call gets a new function object with a new code object, and new
  device-function objects for the functions it calls, so a cache keyed by
  function or code identity misses. What stays warm is what a real program
  has warm when it compiles its next kernel: imported modules, LLVM and
  libdevice initialisation, and Python's linecache of the source file.
- cache=True (cudajit only): the first ``inspect_asm`` of a
  ``jit(cache=True)`` kernel in a fresh process whose PTX an earlier process
  left on disk (median over --cold-runs processes): the front end, typing and
  reading the file, which is what a program's start costs once its kernels
  are cached. Not a target; shown beside the cold compile it replaces.

Targets (cudajit): cold < 50 ms, warm < 5 ms. Prints a table, writes JSON to
benchmarks/results/compile_latency.json (see benchmarks/README.md).

Usage:  python benchmarks/compile_latency.py [--cold-runs 5] [--warm-runs 20]
            [--backends cudajit,numba-cuda] [--kernels saxpy,...] [--check]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_JSON = os.path.join(HERE, "results", "compile_latency.json")
CC = (8, 0)
TARGET_COLD_MS = 50.0
TARGET_WARM_MS = 5.0
BACKENDS = ("cudajit", "numba-cuda")

# --- the kernels: one source for both backends ---------------------------------
# `cuda` is bound to cudajit or to numba.cuda in the child process before any
# compile, and dev_1 ... dev_4 to that backend's device functions.

cuda = None
dev_1 = dev_2 = dev_3 = dev_4 = None
ALPHA = 0.2


def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def stencil_2d(u, u_next):
    j, i = cuda.grid(2)
    rows, cols = u.shape
    if 0 < i < rows - 1 and 0 < j < cols - 1:
        laplacian = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
        u_next[i, j] = u[i, j] + ALPHA * laplacian


def _dev_4(x):
    return x * x + 1.0


def _dev_3(x):
    return dev_4(x) - 0.5 * x


def _dev_2(x, y):
    return dev_3(x) + dev_3(y)


def _dev_1(x, y):
    if x > y:
        return dev_2(x, y)
    return dev_2(y, x) * 0.5


def device_chain(x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = dev_1(x[i], y[i])


def math_heavy(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        a = math.fabs(v)
        out[i] = (
            math.sin(v)
            + math.cos(v)
            + math.exp(-a)
            + math.log1p(a)
            + math.sqrt(a)
            + math.tanh(v)
            + math.atan2(v, 2.0)
            + math.erf(v)
            + math.pow(a, 1.5)
            + math.hypot(v, 3.0)
            + math.floor(v)
            + math.lgamma(a + 1.0)
        )


KERNELS = {
    "saxpy": (saxpy, "void(float32, float32[::1], float32[::1], float32[::1])"),
    "stencil_2d": (stencil_2d, "void(float64[:, ::1], float64[:, ::1])"),
    "device_chain": (device_chain, "void(float64[::1], float64[::1], float64[::1])"),
    "math_heavy": (math_heavy, "void(float32[::1], float32[::1])"),
}
DEVICE_FUNCTIONS = {"dev_1": _dev_1, "dev_2": _dev_2, "dev_3": _dev_3, "dev_4": _dev_4}

# --- the child process: one backend, one kernel --------------------------------


def fresh_copy(func):
    """An identical function with a new function object and a new code object."""
    code = func.__code__.replace()
    copy = types.FunctionType(
        code, func.__globals__, func.__name__, func.__defaults__, func.__closure__
    )
    copy.__qualname__ = func.__qualname__
    copy.__module__ = func.__module__
    return copy


class _NoGpuDevice:
    """Stands in for numba.cuda.get_current_device() where no GPU is present:
    numba-cuda asks the current device for its compute capability when it
    compiles a device function called from the kernel being compiled."""

    compute_capability = CC


def import_backend(name):
    if name == "cudajit":
        import cudajit as backend

        return backend
    if name == "numba-cuda":
        os.environ.setdefault("CUDA_HOME", "/usr/local/cuda")
        from numba import cuda as backend

        if not backend.is_available():
            from numba.cuda import dispatcher

            dispatcher.get_current_device = lambda: _NoGpuDevice()
        return backend
    raise ValueError(f"unknown backend {name!r}; expected one of {', '.join(BACKENDS)}")


def install(backend):
    """Binds `cuda` and new device-function objects into this module's globals."""
    module = sys.modules[__name__]
    module.cuda = backend
    for name, func in DEVICE_FUNCTIONS.items():
        setattr(module, name, backend.jit(device=True)(fresh_copy(func)))


def compile_once(backend, kernel):
    func, sig = KERNELS[kernel]
    func = fresh_copy(func)
    start = time.perf_counter()
    ptx, _ = backend.compile_ptx(func, sig, cc=CC)
    elapsed = time.perf_counter() - start
    if ".entry" not in ptx:
        raise RuntimeError(f"compile_ptx returned no .entry for {kernel}")
    return elapsed


def load_cached_once(backend, kernel):
    """inspect_asm of a jit(cache=True) kernel: its PTX from CUDAJIT_CACHE_DIR."""
    func, sig = KERNELS[kernel]
    dispatcher = backend.jit(cache=True)(fresh_copy(func))
    start = time.perf_counter()
    ptx = dispatcher.inspect_asm(sig, cc=CC)
    elapsed = time.perf_counter() - start
    if ".entry" not in ptx:
        raise RuntimeError(f"inspect_asm returned no .entry for {kernel}")
    return elapsed


def run_child(mode, backend_name, kernel, warm_runs):
    start = time.perf_counter()
    backend = import_backend(backend_name)
    import_s = time.perf_counter() - start
    install(backend)
    if mode == "cold":
        return {"import_s": import_s, "compile_s": [compile_once(backend, kernel)]}
    if mode == "cached":
        return {"import_s": import_s, "compile_s": [load_cached_once(backend, kernel)]}
    compile_once(backend, kernel)  # warm-up, not timed
    samples = []
    for _ in range(warm_runs):
        install(backend)  # new device-function objects each time
        samples.append(compile_once(backend, kernel))
    return {"import_s": import_s, "compile_s": samples}


# --- the parent: processes, statistics, table, JSON ----------------------------


# A build in the source tree (python/cudajit with its _core extension) is used
# when cudajit is not installed.
SOURCE_TREE_PYTHON = os.path.normpath(os.path.join(HERE, "..", "python"))


def built_in_source_tree():
    package = os.path.join(SOURCE_TREE_PYTHON, "cudajit")
    return os.path.isdir(package) and any(f.startswith("_core") for f in os.listdir(package))


def backend_unavailable(name):
    """None when the backend can be imported here, else why not and how to fix it."""
    module = {"cudajit": "cudajit", "numba-cuda": "numba_cuda"}[name]
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if found or (name == "cudajit" and built_in_source_tree()):
        return None
    if name == "numba-cuda":
        return (
            "numba-cuda is not installed (pip install numba-cuda; "
            "it needs the CUDA toolkit's NVVM, not a GPU)"
        )
    return "cudajit is not importable (build it first: pip install -e . or make)"


def child_env(backend, cache_dir=None):
    env = dict(os.environ)
    if cache_dir is not None:
        env["CUDAJIT_CACHE_DIR"] = cache_dir
    if backend == "numba-cuda":
        env.setdefault("CUDA_HOME", "/usr/local/cuda")
    if (
        backend == "cudajit"
        and importlib.util.find_spec("cudajit") is None
        and built_in_source_tree()
    ):
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (SOURCE_TREE_PYTHON, env.get("PYTHONPATH")) if p
        )
    return env


def spawn(mode, backend, kernel, warm_runs=0, timeout=600, cache_dir=None):
    command = [
        sys.executable,
        os.path.abspath(__file__),
        "--child",
        mode,
        "--backend",
        backend,
        "--kernel",
        kernel,
    ]
    if mode == "warm":
        command += ["--warm-runs", str(warm_runs)]
    proc = subprocess.run(
        command, capture_output=True, text=True, env=child_env(backend, cache_dir),
        timeout=timeout,
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"{backend} {mode} {kernel}: exit {proc.returncode}: {tail[0]}")
    result = json.loads(lines[-1])
    if "error" in result:
        raise RuntimeError(result["error"])
    return result


def summary_ms(samples_s):
    ms = [s * 1e3 for s in samples_s]
    return {
        "median": statistics.median(ms),
        "min": min(ms),
        "max": max(ms),
        "samples": [round(v, 3) for v in ms],
    }


def measure(backend, kernel, cold_runs, warm_runs):
    cold, imports = [], []
    for _ in range(cold_runs):
        result = spawn("cold", backend, kernel)
        cold.extend(result["compile_s"])
        imports.append(result["import_s"])
    warm = spawn("warm", backend, kernel, warm_runs)["compile_s"]
    result = {
        "cold_ms": summary_ms(cold),
        "warm_ms": summary_ms(warm),
        "import_ms": summary_ms(imports),
    }
    if backend == "cudajit":
        with tempfile.TemporaryDirectory(prefix="cudajit-bench-cache-") as cache_dir:
            spawn("cached", backend, kernel, cache_dir=cache_dir)  # compiles and stores
            cached = []
            for _ in range(cold_runs):
                cached.extend(spawn("cached", backend, kernel, cache_dir=cache_dir)["compile_s"])
        result["cached_ms"] = summary_ms(cached)
    return result


def fmt(entry, key):
    if entry is None:
        return "n/a"
    if "error" in entry:
        return "error"
    return f"{entry[key]['median']:.1f} ms"


def mark(entry, key, target):
    if entry is None or "error" in entry:
        return " "
    return " " if entry[key]["median"] < target else "!"


def print_table(results, unavailable, kernels, cold_runs, warm_runs):
    print()
    print(
        f"Compile latency to PTX (cc {CC[0]}.{CC[1]}): "
        f"median of {cold_runs} fresh processes (cold) "
        f"and of {warm_runs} calls (warm)"
    )
    header = (
        f"{'kernel':14s} {'cudajit cold':>14s} {'cudajit warm':>14s}"
        f" {'numba-cuda cold':>16s} {'numba-cuda warm':>16s} {'cache=True':>12s}"
    )
    print(header)
    print("-" * len(header))
    for kernel in kernels:
        ours = results.get("cudajit", {}).get(kernel)
        theirs = results.get("numba-cuda", {}).get(kernel)
        print(
            f"{kernel:14s} {fmt(ours, 'cold_ms'):>13s}{mark(ours, 'cold_ms', TARGET_COLD_MS)}"
            f" {fmt(ours, 'warm_ms'):>13s}{mark(ours, 'warm_ms', TARGET_WARM_MS)}"
            f" {fmt(theirs, 'cold_ms'):>16s} {fmt(theirs, 'warm_ms'):>16s}"
            f" {fmt(ours, 'cached_ms') if ours and 'cached_ms' in ours else 'n/a':>12s}"
        )
    print(f"{'target':14s} {'< %g ms' % TARGET_COLD_MS:>13s}  {'< %g ms' % TARGET_WARM_MS:>13s}")
    for backend in BACKENDS:
        entries = [e for e in results.get(backend, {}).values() if "error" not in e]
        if entries:
            median_import = statistics.median(e["import_ms"]["median"] for e in entries)
            print(
                f"import time, {backend}: {median_import:.0f} ms"
                " (not part of the compile times above)"
            )
    for backend, reason in unavailable.items():
        print(f"{backend}: n/a: {reason}")
    for backend, per_kernel in results.items():
        for kernel, entry in per_kernel.items():
            if "error" in entry:
                print(f"{backend} {kernel}: error: {entry['error']}")
    print("('!' marks a cudajit time that misses its target; cache=True: a fresh process "
          "loading a jit(cache=True) kernel's PTX from disk)")


def versions():
    found = {"python": platform.python_version()}
    for name, module in (("cudajit", "cudajit"), ("numba-cuda", "numba_cuda"), ("numba", "numba")):
        try:
            from importlib.metadata import version

            found[name] = version(module.replace("_", "-"))
        except Exception:
            found[name] = None
    return found


def misses_targets(results):
    for entry in results.get("cudajit", {}).values():
        if "error" in entry:
            return True
        if (
            entry["cold_ms"]["median"] >= TARGET_COLD_MS
            or entry["warm_ms"]["median"] >= TARGET_WARM_MS
        ):
            return True
    return not results.get("cudajit")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--cold-runs", type=int, default=5, help="fresh processes per kernel (default 5)"
    )
    parser.add_argument(
        "--warm-runs", type=int, default=20, help="timed calls per kernel (default 20)"
    )
    parser.add_argument(
        "--backends", default=",".join(BACKENDS), help="comma-separated: cudajit,numba-cuda"
    )
    parser.add_argument(
        "--kernels", default=",".join(KERNELS), help="comma-separated: " + ",".join(KERNELS)
    )
    parser.add_argument(
        "--json", default=DEFAULT_JSON, help="where to write the results (default %(default)s)"
    )
    parser.add_argument("--check", action="store_true", help="exit 1 when cudajit misses a target")
    parser.add_argument("--child", choices=["cold", "warm", "cached"], help=argparse.SUPPRESS)
    parser.add_argument("--backend", help=argparse.SUPPRESS)
    parser.add_argument("--kernel", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child:
        try:
            result = run_child(args.child, args.backend, args.kernel, args.warm_runs)
        except Exception as exc:  # reported by the parent, which goes on with the rest
            first_line = (str(exc).strip().splitlines() or [""])[0]
            result = {"error": f"{type(exc).__name__}: {first_line}"}
        print(json.dumps(result))
        return 0

    kernels = [k for k in args.kernels.split(",") if k]
    backends = [b for b in args.backends.split(",") if b]
    for name in kernels:
        if name not in KERNELS:
            parser.error(f"unknown kernel {name!r}; expected one of {', '.join(KERNELS)}")
    for name in backends:
        if name not in BACKENDS:
            parser.error(f"unknown backend {name!r}; expected one of {', '.join(BACKENDS)}")

    results, unavailable = {}, {}
    for backend in backends:
        reason = backend_unavailable(backend)
        if reason:
            unavailable[backend] = reason
            continue
        for kernel in kernels:
            print(f"measuring {backend} {kernel} ...", file=sys.stderr, flush=True)
            try:
                results.setdefault(backend, {})[kernel] = measure(
                    backend, kernel, args.cold_runs, args.warm_runs
                )
            except (RuntimeError, subprocess.TimeoutExpired) as exc:
                results.setdefault(backend, {})[kernel] = {"error": str(exc)}

    print_table(results, unavailable, kernels, args.cold_runs, args.warm_runs)

    report = {
        "benchmark": "compile_latency",
        "cc": f"{CC[0]}.{CC[1]}",
        "cold_runs": args.cold_runs,
        "warm_runs": args.warm_runs,
        "targets_ms": {"cold": TARGET_COLD_MS, "warm": TARGET_WARM_MS},
        "versions": versions(),
        "machine": {
            "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(),
        },
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "results": results,
        "unavailable": unavailable,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    print(f"wrote {os.path.relpath(args.json)}")
    if args.check and misses_targets(results):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
