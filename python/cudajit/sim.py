"""``cudajit-sim COMMAND [ARGS...]``: run any program on cudajit's simulated GPU.

The simulated GPU is a stand-in for the CUDA driver (``libcudajit_sim.so``, beside this
module) that executes PTX. This command runs COMMAND with it as the process's
``libcuda.so.1``, so that programs which use CUDA through the driver API, such as
numba-cuda (through cuda.bindings and cuda.core, with NVIDIA's NVVM writing the PTX),
CuPy's driver calls or ctypes programs, find one GPU and run their kernels on it::

    cudajit-sim python -m pytest            # a numba-cuda test suite, without a GPU
    cudajit-sim --print-env                 # what it sets, for a CI configuration
    python -m cudajit.sim python prog.py    # the same, without the console script

What it sets:

- ``LD_LIBRARY_PATH`` starts with a folder whose ``libcuda.so.1`` and
  ``libnvJitLink.so.13`` are the simulated GPU.
- ``LD_PRELOAD`` loads it as ``libnvJitLink.so.13`` first, so that cuda.core and numba-cuda
  find it before an installed nvJitLink. It links PTX (its "cubin" is PTX) and, like an
  nvJitLink older than 12.3, has no version query: numba-cuda then compiles without
  link-time optimisation and cuda.core links with the driver's ``cuLink*``, which the
  simulated GPU implements for PTX.
- ``CUDAJIT_DEVICE=sim`` where it is unset: cudajit in the same program runs on the same
  simulated GPU (cudajit otherwise prefers its cpu device to a simulated GPU it was not
  asked for).
- ``PYTHONWARNINGS`` ignores cuda.core's warning that nvJitLink is too old (that is the
  arrangement above, not a problem of the user's installation).
"""

from __future__ import annotations

import hashlib
import os
import shlex
import sys
import tempfile
from pathlib import Path

_DRIVER_NAMES = ("libcuda.so.1", "libcuda.so", "libnvJitLink.so.13", "libnvJitLink.so")
_PRELOAD = "libnvJitLink.so.13"
_WARNING_FILTER = "ignore:libnvJitLink.so* is too old:RuntimeWarning"


def simulator_library() -> Path:
    """The simulated GPU's driver library, beside this package's other binaries."""
    library = Path(__file__).resolve().parent / "libcudajit_sim.so"
    if not library.exists():
        raise FileNotFoundError(
            f"the simulated GPU's library is missing: expected {library} (build cudajit, or "
            "install its wheel, which carries it)")
    return library


def driver_folder(library: Path | None = None) -> Path:
    """A folder whose driver libraries (``libcuda.so.1``, ``libnvJitLink.so.13``) are links
    to the simulated GPU; made once per library and user, in the temporary directory."""
    library = library or simulator_library()
    key = hashlib.sha256(str(library).encode()).hexdigest()[:16]
    folder = Path(tempfile.gettempdir()) / f"cudajit-sim-{os.getuid()}-{key}"
    folder.mkdir(mode=0o700, exist_ok=True)
    for name in _DRIVER_NAMES:
        link = folder / name
        if link.is_symlink() and os.readlink(link) == str(library):
            continue
        # Replaced atomically: another process may be starting from the same folder.
        staging = folder / f".{name}.{os.getpid()}"
        staging.unlink(missing_ok=True)
        staging.symlink_to(library)
        staging.replace(link)
    return folder


def _prepend(value: str | None, item: str, separator: str) -> str:
    parts = [p for p in (value or "").split(separator) if p and p != item]
    return separator.join([item, *parts])


def environment(base: dict[str, str] | None = None) -> dict[str, str]:
    """The variables that make a process use the simulated GPU as its CUDA driver:
    ``base`` (default: this process's environment) with them set."""
    env = dict(os.environ if base is None else base)
    folder = str(driver_folder())
    env["LD_LIBRARY_PATH"] = _prepend(env.get("LD_LIBRARY_PATH"), folder, ":")
    env["LD_PRELOAD"] = _prepend(env.get("LD_PRELOAD"), _PRELOAD, " ")
    env.setdefault("CUDAJIT_DEVICE", "sim")
    env["PYTHONWARNINGS"] = _prepend(env.get("PYTHONWARNINGS"), _WARNING_FILTER, ",")
    return env


def _changed(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if os.environ.get(k) != v}


_USAGE = """usage: cudajit-sim [--check race,init] [--print-env] COMMAND [ARGS...]

Runs COMMAND with cudajit's simulated GPU as its CUDA driver (libcuda.so.1).

  --check LIST  report shared-memory races (race) and reads of device memory nothing
                wrote (init), as compute-sanitizer's racecheck and initcheck do
                (sets CUDAJIT_SIM_CHECK)
  --print-env   print the variables it sets, as shell assignments, and exit
  -h, --help    this text

Simulator settings (environment): CUDAJIT_SIM_CC=7.5|8.0|9.0 (the device modelled),
CUDAJIT_SIM_THREADS (host threads per launch)."""


# CUDAJIT_SIM_CHECK's names (simulator/exec/checks.cpp).
_CHECKS = ("race", "racecheck", "init", "initcheck", "all", "none")


def main(argv: list[str] | None = None) -> int:
    """The ``cudajit-sim`` command."""
    args = list(sys.argv[1:] if argv is None else argv)
    checks = None
    while args and (args[0] == "--check" or args[0].startswith("--check=")):
        if args[0] == "--check" and len(args) < 2:
            print(f"cudajit-sim: --check needs a list of checks\n\n{_USAGE}", file=sys.stderr)
            return 2
        checks, args = (args[1], args[2:]) if args[0] == "--check" else (args[0][8:], args[1:])
        unknown = [c for c in checks.split(",") if c and c not in _CHECKS]
        if unknown:
            print(f"cudajit-sim: unknown check {unknown[0]!r} (known: race, init, all)",
                  file=sys.stderr)
            return 2
    if not args or args[0] in ("-h", "--help"):
        print(_USAGE)
        return 0 if args else 2
    if args[0].startswith("-") and args[0] != "--print-env":
        print(f"cudajit-sim: unknown option {args[0]!r}\n\n{_USAGE}", file=sys.stderr)
        return 2
    env = environment()
    if checks is not None:
        env["CUDAJIT_SIM_CHECK"] = checks
    if args[0] == "--print-env":
        for key, value in _changed(env).items():
            print(f"export {key}={shlex.quote(value)}")
        return 0
    try:
        os.execvpe(args[0], args, env)
    except OSError as e:
        print(f"cudajit-sim: cannot run {args[0]!r}: {e.strerror}", file=sys.stderr)
        return 127
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
