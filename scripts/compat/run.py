"""``make compat``: numba-cuda's own test suite against cudajit.

1. A virtual environment of its own, build/compat-venv, with numba-cuda and what its tests
   import (requirements.txt, pinned), made with the Python that runs this script (cudajit's
   extension is built for it); cudajit comes from the tree (PYTHONPATH=python).
2. Every test file of numba-cuda (numba/cuda/tests/**/test_*.py, shipped in its wheel) runs
   under Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1): the baseline (target ``numba``).
3. The same files, with the same settings, with ``numba.cuda`` bound to cudajit
   (binding.py) on cudajit's cpu device (``cpu``), and optionally on the simulated GPU
   (``sim``).
4. The whole suite, GPU-only tests included, without Numba's simulator: numba-cuda itself
   with cudajit's simulated GPU as its CUDA driver (``numba-gpu``, through cudajit-sim:
   the baseline of the next, and a fidelity check of the simulated GPU with PTX that
   NVIDIA's NVVM wrote), and ``numba.cuda`` bound to cudajit on the simulated GPU
   (``sim-gpu``).
5. report.py compares each cudajit run with its baseline: build/compat/report.md and
   report.json.

Each file runs in a pytest process of its own (plugin.py), several at once; each test has
a timeout, and a test that hangs past it or crashes its process is recorded as such and
the file runs again without it (a process that dies before any test is run again too).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
import venv
from pathlib import Path
from typing import Any

import report

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
VENV = REPO / "build" / "compat-venv"
OUT = REPO / "build" / "compat"
REQUIREMENTS = HERE / "requirements.txt"

# name -> (COMPAT_TARGET, extra environment, on a GPU: the simulated GPU as the CUDA driver
# instead of Numba's CUDA simulator)
TARGETS: dict[str, tuple[str, dict[str, str], bool]] = {
    "numba": ("numba", {}, False),
    "cpu": ("cudajit", {"CUDAJIT_DEVICE": "cpu"}, False),
    "sim": ("cudajit", {"CUDAJIT_DEVICE": "sim"}, False),
    "numba-gpu": ("numba", {}, True),
    "sim-gpu": ("cudajit", {"CUDAJIT_DEVICE": "sim"}, True),
}
RETRIES = 3  # runs of one file after hangs or crashes
DOC_EXAMPLES = "doc_examples/"
DOC_ENV = {"COMPAT_DOC_EXAMPLES": "1"}  # plugin.py: skip_on_cudasim skips nothing


def ensure_venv_support() -> None:
    """Debian's Python makes virtual environments only with its pythonX.Y-venv package."""
    if subprocess.run([sys.executable, "-c", "import ensurepip"],
                      capture_output=True).returncode == 0:
        return
    package = f"python{sys.version_info.major}.{sys.version_info.minor}-venv"
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    print(f"==> apt-get install {package} (venv support for {sys.executable})", flush=True)
    subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True)
    subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "--no-install-recommends", package],
                   check=True, env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})


def simulated_driver_env() -> dict[str, str]:
    """What cudajit-sim sets (python/cudajit/sim.py, loaded alone: it needs no cudajit)."""
    spec = importlib.util.spec_from_file_location("cudajit_sim", REPO / "python" / "cudajit" /
                                                  "sim.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.environment()


def venv_python() -> Path:
    """The environment's interpreter, made and filled on first use or when the pins change."""
    python = VENV / "bin" / "python"
    stamp = VENV / "requirements.txt"
    wanted = REQUIREMENTS.read_text()
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python
    print(f"==> creating {VENV.relative_to(REPO)} ({sys.executable})", flush=True)
    ensure_venv_support()
    venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    "-r", str(REQUIREMENTS)], check=True)
    stamp.write_text(wanted)
    return python


def tests_root(python: Path) -> Path:
    """numba_cuda/numba/cuda/tests inside the environment."""
    code = ("import importlib.util as u; "
            "print(u.find_spec('numba_cuda').submodule_search_locations[0])")
    out = subprocess.run([str(python), "-c", code], check=True, capture_output=True, text=True)
    return Path(out.stdout.strip()) / "numba" / "cuda" / "tests"


def check_cudajit_built() -> None:
    """cudajit's extension must be in python/cudajit (make build copies it there)."""
    if not list((REPO / "python" / "cudajit").glob("_core*.so")):
        sys.exit("python/cudajit/_core*.so is missing: run `make build` first")


def read_records(path: Path) -> list[dict[str, Any]]:
    """The plugin's JSON lines (a line cut short by a killed process is dropped)."""
    if not path.exists():
        return []
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    return records


def run_file(python: Path, root: Path, target: str, rel: str, args: argparse.Namespace,
             more_env: dict[str, str]) -> dict[str, Any]:
    """Run one test file for one target: {'tests': {id: record}, 'collect_error': str|None}."""
    kind, extra_env, on_gpu = TARGETS[target]
    extra_env = {**extra_env, **more_env}
    work = OUT / "runs" / (target + ("-doc" if more_env else ""))
    work.mkdir(parents=True, exist_ok=True)
    stem = rel.replace("/", "__")
    results, log = work / f"{stem}.jsonl", work / f"{stem}.log"
    base = simulated_driver_env() if on_gpu else {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    env = {**base, **extra_env, "COMPAT_TARGET": kind,
           "COMPAT_RESULTS": str(results), "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONPATH": os.pathsep.join([str(HERE), str(REPO / "python")])}
    if on_gpu:
        env["COMPAT_ON_GPU"] = "1"  # sitecustomize: the real `cuda` package first
    tests: dict[str, dict[str, Any]] = {}
    collect_error = None
    deselect: list[str] = []
    for _ in range(RETRIES):
        results.unlink(missing_ok=True)
        command = [str(python), "-m", "pytest", "-q", "-p", "plugin", "-p", "no:cacheprovider",
                   f"--rootdir={root}", f"--timeout={args.timeout}", "--benchmark-disable",
                   str(root / rel)]
        command += [f"--deselect={t}" for t in deselect]
        status = _run(command, env, log, args.file_timeout)
        records = read_records(results)
        why = "timeout" if status is None else f"process ended ({_describe(status)})"
        if not records and status not in (0, 5):  # 5: no tests collected
            collect_error = f"{why} before any test started (see the file's log)"
            continue
        collect_error = None
        started = None
        for record in records:
            if record["kind"] == "start":
                started = record["test"]
            elif record["kind"] == "test":
                tests[record["test"]] = record
                started = None
            elif record["kind"] == "collect_error":
                collect_error = record["message"]
        if started is None:
            break
        tests[started] = {"kind": "test", "test": started, "outcome": "failed",
                          "exc_type": "Crash" if status is not None else "Timeout",
                          "message": f"{why} during this test"}
        deselect.append(started)
    return {"tests": tests, "collect_error": collect_error}


def _run(command: list[str], env: dict[str, str], log: Path, limit: float) -> int | None:
    """Run in a process group of its own; its return code, or None if it ran past limit."""
    with open(log, "w", encoding="utf-8") as out:
        proc = subprocess.Popen(command, env=env, cwd=OUT, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            return proc.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return None


def _describe(status: int) -> str:
    """A return code in words."""
    return f"signal {signal.Signals(-status).name}" if status < 0 else f"exit {status}"


def run_target(python: Path, root: Path, target: str, files: list[str],
               args: argparse.Namespace, env: dict[str, str] | None = None) -> dict[str, Any]:
    """All files for one target, ``args.jobs`` at a time (``env`` added to its settings)."""
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {rel: pool.submit(run_file, python, root, target, rel, args, env or {})
                   for rel in files}
        by_file = {rel: future.result() for rel, future in futures.items()}
    seconds = time.monotonic() - start
    print(f"==> {target}{' (doc examples)' if env else ''}: {len(files)} files in "
          f"{seconds:.0f} s", flush=True)
    return {"seconds": round(seconds), "files": by_file}


def reused_runs(targets: list[str], files: list[str], source: Path) -> dict[str, Any]:
    """The runs of `targets` from `source` (a results.json), for these files (each must be
    there: an incomplete baseline would count as failures)."""
    if not targets:
        return {}
    last = json.loads(source.read_text())["runs"]
    runs = {}
    for target in targets:
        if target not in last:
            sys.exit(f"--reuse {target}: {source} has no run of it")
        missing = [rel for rel in files if rel not in last[target]["files"]]
        if missing:
            sys.exit(f"--reuse {target}: {source} lacks {len(missing)} of these files, "
                     f"such as {missing[0]}")
        runs[target] = {**last[target],
                        "files": {rel: last[target]["files"][rel] for rel in files}}
        print(f"==> {target}: reused from {source}", flush=True)
    return runs


def run_numba_program(python: Path) -> dict[str, Any]:
    """numba_program.py (numba-cuda's jit, device arrays, streams, events, link=) with the
    simulated GPU as its driver: {'returncode', 'summary', 'output'}."""
    env = {**simulated_driver_env(), "PYTHONPATH": str(REPO / "python")}
    done = subprocess.run([str(python), str(HERE / "numba_program.py")], env=env,
                          capture_output=True, text=True, timeout=600)
    lines = done.stdout.strip().splitlines()
    return {"returncode": done.returncode, "summary": lines[-1] if lines else "no output",
            "output": done.stdout + done.stderr}


def main() -> None:
    """Parse the options, run the targets, write the report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("JOBS", "2")))
    parser.add_argument("--timeout", type=int, default=60, help="seconds per test")
    parser.add_argument("--file-timeout", type=int, default=900, help="seconds per file")
    parser.add_argument("--targets", default="numba,cpu,numba-gpu,sim-gpu",
                        help="comma-separated: numba (the baseline of cpu and sim, always "
                        "run), cpu, sim, numba-gpu (the baseline of sim-gpu), sim-gpu")
    parser.add_argument("--files", default="", help="only test files whose path contains this")
    parser.add_argument("--reuse", default="",
                        help="comma-separated targets whose results are taken from the last "
                        "run's build/compat/results.json instead of run again (a baseline "
                        "unchanged since: numba, numba-gpu)")
    parser.add_argument("--reuse-from", type=Path, default=OUT / "results.json",
                        help="the results.json --reuse reads (a whole run's, kept aside, "
                        "while runs of a few files overwrite build/compat/results.json)")
    args = parser.parse_args()
    wanted = [t for t in args.targets.split(",") if t]
    unknown = set(wanted) - set(TARGETS)
    if unknown:
        parser.error(f"unknown targets {sorted(unknown)}; known: {sorted(TARGETS)}")
    # Each cudajit run with its baseline, the baselines first.
    targets = [report.BASELINE_OF.get(t, t) for t in wanted] + wanted
    targets = list(dict.fromkeys(["numba"] + targets))

    check_cudajit_built()
    python = venv_python()
    root = tests_root(python)
    files = sorted(str(p.relative_to(root)) for p in root.rglob("test_*.py")
                   if args.files in str(p.relative_to(root)))
    OUT.mkdir(parents=True, exist_ok=True)
    reused = reused_runs([t for t in args.reuse.split(",") if t], files, args.reuse_from)
    runs = {target: reused[target] if target in reused else
            run_target(python, root, target, files, args) for target in targets}
    # The documentation examples: skipped on numba-cuda's simulator (no baseline here;
    # numba-cuda runs them on a GPU), run whole with cudajit on each of its targets.
    examples = [rel for rel in files if rel.startswith(DOC_EXAMPLES)]
    doc_runs = {target: run_target(python, root, target, examples, args, DOC_ENV)
                for target in targets
                if TARGETS[target][0] == "cudajit" and not TARGETS[target][2] and examples}
    program = run_numba_program(python) if "numba-gpu" in targets else None
    (OUT / "results.json").write_text(json.dumps(
        {"runs": runs, "doc_examples": doc_runs, "numba_program": program}, indent=1))
    print(report.write(runs, OUT, doc_runs))
    if program is not None:
        print(f"\nnumba_program.py (numba-cuda under cudajit-sim): {program['summary']}")


if __name__ == "__main__":
    main()
