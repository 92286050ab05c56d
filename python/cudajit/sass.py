"""kernel.inspect_sass(): the machine code a GPU runs, without a GPU: the kernel's PTX
through the toolkit's ptxas (to a cubin) and NVIDIA's nvdisasm (to SASS text)."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile

__all__ = ["sass_of_ptx"]


def _tool(name: str) -> str | None:
    """`name` from $CUDA_HOME/bin, the toolkit's usual place, PATH, or NVIDIA's PyPI wheels
    (nvidia/cu*/bin, as nvidia-cuda-nvdisasm installs it)."""
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home and os.access(os.path.join(home, "bin", name), os.X_OK):
            return os.path.join(home, "bin", name)
    found = shutil.which(name)
    if found:
        return found
    try:
        import nvidia  # namespace package of NVIDIA's wheels
    except ImportError:
        return None
    for folder in getattr(nvidia, "__path__", []):
        for candidate in sorted(glob.glob(os.path.join(folder, "cu*", "bin", name)), reverse=True):
            if os.access(candidate, os.X_OK):
                return candidate
    return None


def sass_of_ptx(ptx: str, cc: tuple[int, int]) -> str:
    """The SASS of a PTX module for compute capability `cc`."""
    ptxas, nvdisasm = _tool("ptxas"), _tool("nvdisasm")
    if ptxas is None:
        raise RuntimeError("inspect_sass() needs ptxas from the CUDA toolkit (set CUDA_HOME); "
                           "none was found")
    if nvdisasm is None:
        raise RuntimeError("nvdisasm was not found: inspect_sass() needs it; install it with "
                           "'pip install nvidia-cuda-nvdisasm', or put the CUDA toolkit's on PATH")
    arch = f"sm_{cc[0]}{cc[1]}"
    with tempfile.TemporaryDirectory(prefix="cudajit-sass-") as folder:
        source, cubin = os.path.join(folder, "kernel.ptx"), os.path.join(folder, "kernel.cubin")
        with open(source, "w") as f:
            f.write(ptx)
        for command in ([ptxas, f"-arch={arch}", "-o", cubin, source], [nvdisasm, cubin]):
            run = subprocess.run(command, capture_output=True, text=True, timeout=300)
            if run.returncode != 0:
                raise RuntimeError(f"{os.path.basename(command[0])} failed for {arch}:\n"
                                   f"{run.stderr.strip()}")
        return run.stdout
