#!/usr/bin/env python3
"""Kernel quality without a GPU: what the simulated GPU counts per launch, cudajit beside
numba-cuda (NVIDIA's NVVM writing the PTX), with the SASS sizes ptxas gives for both.

For each kernel of sim_profile_kernels.py (saxpy, grid-stride saxpy, a 2-D stencil, a tiled
matmul, a block reduction, a shared-memory histogram, mandelbrot, a math-heavy kernel) both
backends compile the same source and run it on the simulated GPU with its profile on
(cudajitSimSetProfiling); the launch's counters (cudajitSimLaunchProfile) are:

- warp instructions issued and thread instructions executed;
- branches and divergent branches (the warp's active lanes went both ways);
- global loads, stores and atomics (warp-level requests) and the distinct 32-byte sectors
  their lanes touched (coalescing: 4 for 32 consecutive floats, 32 for a stride of 32);
- shared-memory requests and bank conflicts (wavefronts beyond one per request phase);
- local-memory (stack) requests.

These are deterministic, so they compare code where timings on this machine are noise. Each
backend runs in a child process: cudajit with CUDAJIT_DEVICE=sim, numba-cuda under
``python -m cudajit.sim`` (the simulated GPU as its libcuda.so.1) with the interpreter of
--numba-python. ptxas (-arch=sm_90 -v) gives each PTX's registers and SASS size (the .text
sections of the cubin, 16 bytes an instruction); without ptxas those columns read n/a.

Writes benchmarks/results/sim_profile.json.

    PYTHONPATH=python python3 benchmarks/sim_profile.py [--numba-python PATH]
        [--kernels saxpy,...] [--json PATH]
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import json
import os
import platform
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_JSON = HERE / "results" / "sim_profile.json"
BACKENDS = ("cudajit", "numba-cuda")
NUMBA_PYTHONS = (ROOT / "build" / "compat-venv" / "bin" / "python",
                 Path("/tmp/nc/venv/bin/python"))
PTXAS = ("/usr/local/cuda/bin/ptxas",)
PTXAS_ARCH = "sm_90"
# What the table shows, in its order: (column, counter or derived figure).
COLUMNS = (
    ("warp instr", "warp_instructions"),
    ("thread instr", "thread_instructions"),
    ("div br", "divergent_branches"),
    ("gld sect", "global_load_sectors"),
    ("gst sect", "global_store_sectors"),
    ("gatom sect", "global_atomic_sectors"),
    ("shared req", "shared_requests"),
    ("bank confl", "shared_bank_conflicts"),
    ("local req", "local_accesses"),
)
RESULT_MARK = "SIM_PROFILE_RESULT "


# --- the child: one backend's launches -------------------------------------------------


def _simulator(backend: str) -> ctypes.CDLL:
    """The simulated GPU this process launches on, loaded again (dlopen of a loaded library
    returns its handle, so the counters are the ones the launches wrote)."""
    if backend == "cudajit":
        from cudajit import _core
        if not _core.cuda_simulated():
            raise SystemExit("cudajit is not on the simulated GPU: " +
                             _core.cuda_driver_library())
        lib = ctypes.CDLL(_core.cuda_driver_library())
    else:
        lib = ctypes.CDLL("libcuda.so.1")  # cudajit-sim made it the simulated GPU
    if not hasattr(lib, "cudajitSimLaunchProfile"):
        raise SystemExit(f"{lib._name} is not a simulated GPU with launch profiles "
                         "(rebuild libcudajit_sim.so)")
    lib.cudajitSimSetProfiling.argtypes = [ctypes.c_int]
    lib.cudajitSimProfileCounterNames.restype = ctypes.c_char_p
    lib.cudajitSimLaunchProfile.restype = ctypes.c_ulonglong
    lib.cudajitSimLaunchProfile.argtypes = [ctypes.POINTER(ctypes.c_ulonglong), ctypes.c_size_t,
                                            ctypes.c_char_p, ctypes.c_size_t]
    return lib


def _last_launch(lib: ctypes.CDLL) -> tuple[int, str, dict[str, int]]:
    names = lib.cudajitSimProfileCounterNames().decode().split(",")
    values = (ctypes.c_ulonglong * len(names))()
    kernel = ctypes.create_string_buffer(512)
    launches = lib.cudajitSimLaunchProfile(values, len(names), kernel, len(kernel))
    return int(launches), kernel.value.decode(), dict(zip(names, (int(v) for v in values)))


def _ptx_of(backend: str, cuda: Any, dispatcher: Any) -> str:
    """The PTX that ran: for the simulated device's compute capability (cudajit's
    inspect_asm otherwise answers for its default, 8.0; numba-cuda's asks the device)."""
    if backend == "cudajit":
        asm = dispatcher.inspect_asm(cc=cuda.get_current_device().compute_capability)
    else:
        asm = dispatcher.inspect_asm()
    if isinstance(asm, dict):
        (asm,) = asm.values()
    return asm


def run_child(backend: str, kernel_names: list[str]) -> None:
    """Runs the kernels on this process's simulated GPU; prints one JSON line of results."""
    import numpy as np

    if backend == "cudajit":
        import cudajit as cuda
    else:
        from numba import cuda
    sys.path.insert(0, str(HERE))
    import sim_profile_kernels as kernels
    kernels.cuda = cuda
    lib = _simulator(backend)
    lib.cudajitSimSetProfiling(1)
    results = {}
    for case in kernels.CASES:
        if case.name not in kernel_names:
            continue
        rng = np.random.default_rng(0)
        arguments = [cuda.to_device(a) if isinstance(a, np.ndarray) else a
                     for a in case.arguments(rng)]
        dispatcher = cuda.jit(case.kernel)
        cuda.synchronize()
        before, _, _ = _last_launch(lib)
        dispatcher[case.grid, case.block](*arguments)
        cuda.synchronize()
        launches, name, counters = _last_launch(lib)
        if launches != before + 1:
            raise SystemExit(f"{case.name}: expected one launch, the simulator counted "
                             f"{launches - before}")
        output = arguments[-1] if not np.isscalar(arguments[-1]) else arguments[0]
        results[case.name] = {"ptx_kernel": name, "counters": counters,
                              "checksum": float(np.sum(output.copy_to_host(), dtype=np.float64)),
                              "ptx": _ptx_of(backend, cuda, dispatcher)}
    print(RESULT_MARK + json.dumps(results))


# --- the parent: children, ptxas, the table ---------------------------------------------


def numba_python(requested: str | None) -> str | None:
    """An interpreter that imports numba.cuda: --numba-python, a known virtual environment, or
    this one."""
    candidates = [Path(requested)] if requested else [*NUMBA_PYTHONS, Path(sys.executable)]
    for python in candidates:
        if python.exists() and subprocess.run(
                [str(python), "-c", "import numba.cuda"], capture_output=True).returncode == 0:
            return str(python)
    return None


def measure(backend: str, kernel_names: list[str], python: str) -> dict[str, Any]:
    """One backend's results from a child process (raises RuntimeError with its output)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT / "python"), *filter(None, [env.get("PYTHONPATH")])])
    child = [str(Path(__file__).resolve()), "--child", backend, "--kernels",
             ",".join(kernel_names)]
    if backend == "cudajit":
        env["CUDAJIT_DEVICE"] = "sim"
        command = [python, *child]
    else:
        env.setdefault("CUDA_HOME", "/usr/local/cuda")
        command = [python, "-m", "cudajit.sim", python, *child]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    for line in done.stdout.splitlines():
        if line.startswith(RESULT_MARK):
            return json.loads(line[len(RESULT_MARK):])
    raise RuntimeError(f"{backend} child failed (exit {done.returncode}):\n"
                       f"{done.stdout[-3000:]}{done.stderr[-3000:]}")


def elf_text_bytes(cubin: bytes) -> int:
    """Bytes of a cubin's code: the sum of its .text.* sections."""
    shoff, = struct.unpack_from("<Q", cubin, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)

    def section(i: int) -> tuple[int, int, int]:
        base = shoff + i * shentsize
        name, = struct.unpack_from("<I", cubin, base)
        offset, size = struct.unpack_from("<QQ", cubin, base + 0x18)
        return name, offset, size

    _, strings, _ = section(shstrndx)
    total = 0
    for i in range(shnum):
        name, _, size = section(i)
        end = cubin.index(b"\0", strings + name)
        if cubin[strings + name:end].startswith(b".text."):
            total += size
    return total


def sass_size(ptx: str, ptxas: str | None) -> dict[str, Any]:
    """Registers and SASS instructions ptxas gives the PTX, or the reason there are none."""
    if ptxas is None:
        return {"error": "ptxas not found"}
    with tempfile.TemporaryDirectory() as folder:
        source, cubin = Path(folder) / "k.ptx", Path(folder) / "k.cubin"
        source.write_text(ptx)
        done = subprocess.run([ptxas, f"-arch={PTXAS_ARCH}", "-v", str(source), "-o", str(cubin)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            return {"error": done.stderr.strip()[-500:]}
        log = done.stdout + done.stderr
        entry = log.find("Compiling entry function")
        registers = re.search(r"Used (\d+) registers", log[entry:])
        stack = re.search(r"(\d+) bytes stack frame", log[entry:])
        code = elf_text_bytes(cubin.read_bytes())
    return {"registers": int(registers.group(1)) if registers else None,
            "stack_bytes": int(stack.group(1)) if stack else None,
            "sass_instructions": code // 16}


def figure(counters: dict[str, int], key: str) -> int:
    if key == "shared_requests":
        return counters["shared_loads"] + counters["shared_stores"] + counters["shared_atomics"]
    return counters[key]


def print_table(results: dict[str, dict[str, Any]], kernel_names: list[str]) -> None:
    backends = [b for b in BACKENDS if b in results]
    short = {"cudajit": "cj", "numba-cuda": "nv"}
    header = f"{'kernel':<18} {'':>2}" + "".join(f" {c:>12}" for c, _ in COLUMNS)
    header += f" {'regs':>5} {'SASS':>6}"
    print(header)
    for name in kernel_names:
        for backend in backends:
            row = results[backend].get(name)
            if row is None:
                continue
            cells = "".join(f" {figure(row['counters'], key):>12,}" for _, key in COLUMNS)
            sass = row["sass"]
            regs = sass.get("registers", "n/a") if "error" not in sass else "n/a"
            size = sass.get("sass_instructions", "n/a") if "error" not in sass else "n/a"
            label = name if backend == backends[0] else ""
            print(f"{label:<18} {short[backend]:>2}{cells} {regs!s:>5} {size!s:>6}")
        if len(backends) == 2 and name in results[backends[0]] and name in results[backends[1]]:
            a, b = (results[x][name] for x in backends)
            ratio = a["counters"]["warp_instructions"] / max(1, b["counters"]["warp_instructions"])
            same = abs(a["checksum"] - b["checksum"]) <= 1e-4 * max(1.0, abs(b["checksum"]))
            note = "" if same else f"   ! outputs differ ({a['checksum']} vs {b['checksum']})"
            print(f"{'':<18} {'':>2} cudajit/nvvm warp instructions {ratio:.2f}{note}")
    print("cj: cudajit, nv: numba-cuda (NVVM); sect: 32-byte sectors of global loads, stores "
          "and atomics; regs and SASS (instructions) from ptxas -arch=" + PTXAS_ARCH)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--numba-python", help="an interpreter that imports numba.cuda")
    parser.add_argument("--kernels", help="comma-separated subset of the kernels")
    parser.add_argument("--json", default=str(DEFAULT_JSON))
    parser.add_argument("--child", choices=BACKENDS, help=argparse.SUPPRESS)
    options = parser.parse_args()
    sys.path.insert(0, str(HERE))
    import sim_profile_kernels as kernels
    all_names = [case.name for case in kernels.CASES]
    kernel_names = options.kernels.split(",") if options.kernels else all_names
    unknown = set(kernel_names) - set(all_names)
    if unknown:
        parser.error(f"unknown kernels {sorted(unknown)}; known: {', '.join(all_names)}")
    if options.child:
        run_child(options.child, kernel_names)
        return

    ptxas = next((p for p in (*PTXAS, shutil.which("ptxas")) if p and Path(p).exists()), None)
    results: dict[str, dict[str, Any]] = {}
    unavailable: dict[str, str] = {}
    pythons = {"cudajit": sys.executable, "numba-cuda": numba_python(options.numba_python)}
    for backend in BACKENDS:
        if pythons[backend] is None:
            unavailable[backend] = "no interpreter imports numba.cuda (--numba-python)"
            continue
        try:
            results[backend] = measure(backend, kernel_names, pythons[backend])
        except RuntimeError as error:
            unavailable[backend] = str(error)
            continue
        for row in results[backend].values():
            row["sass"] = sass_size(row["ptx"], ptxas)
    print_table(results, kernel_names)
    for backend, reason in unavailable.items():
        print(f"{backend}: n/a: {reason}")
    versions = {"python": platform.python_version()}
    for backend, python in pythons.items():
        if python and backend in results:
            module = "cudajit" if backend == "cudajit" else "numba_cuda"
            done = subprocess.run([python, "-c", f"import {module}; print({module}.__version__)"],
                                  capture_output=True, text=True,
                                  env={**os.environ, "PYTHONPATH": str(ROOT / "python")})
            versions[backend] = done.stdout.strip() or "unknown"
    Path(options.json).parent.mkdir(parents=True, exist_ok=True)
    Path(options.json).write_text(json.dumps({
        "date": datetime.date.today().isoformat(), "machine": platform.node(),
        "platform": platform.platform(), "versions": versions, "ptxas": ptxas,
        "ptxas_arch": PTXAS_ARCH, "results": results, "unavailable": unavailable}, indent=2))
    print(f"wrote {options.json}")


if __name__ == "__main__":
    main()
