"""A process forked after cudajit started its devices (issue 28 §3): its cudajit calls
raise CudaDriverError("CUDA initialized before forking ...") naming the 'spawn' and
'forkserver' start methods, on the cpu device as on the cuda device, instead of waiting
forever for threads that stayed in the parent; a multiprocessing.Pool of forked workers
gets the same error, and a 'spawn' pool works. Each case runs in a process of its own."""

import os
import subprocess
import sys

import pytest

import cudajit as cuda
from conftest import cuda_device_setting

PYTHON_DIR = os.path.dirname(os.path.dirname(cuda.__file__))

SCRIPT = """
import multiprocessing as mp
import os
import sys

import numpy as np
import cudajit as cuda
from cudajit.errors import CudaDriverError


@cuda.jit
def add_one(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] += 1


def use_cudajit(_):
    try:
        d = cuda.to_device(np.zeros(8))
        add_one[1, 8](d)
        cuda.synchronize()
        return "worked %s" % d.copy_to_host().sum()
    except CudaDriverError as e:
        return "error " + str(e)


if __name__ == "__main__":
    print("parent", use_cudajit(0), flush=True)
    pid = os.fork()
    if pid == 0:
        os.write(1, ("child " + use_cudajit(0) + "\\n").encode())
        os._exit(0)
    os.waitpid(pid, 0)
    with mp.get_context("fork").Pool(2) as pool:
        for result in pool.map(use_cudajit, range(2)):
            print("fork-pool", result, flush=True)
    with mp.get_context("spawn").Pool(1) as pool:
        print("spawn-pool", pool.map(use_cudajit, [0])[0], flush=True)
"""


@pytest.mark.parametrize("setting", ["cpu", "cuda"])
def test_a_child_forked_after_first_use_gets_a_clear_error(setting, tmp_path):
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    if setting == "cuda":
        from cudajit import _core

        if not _core.cuda_available():
            pytest.skip("the cuda device is unavailable: " + _core.cuda_unavailable_reason())
        env["CUDAJIT_DEVICE"] = cuda_device_setting()
    else:
        env["CUDAJIT_DEVICE"] = "cpu"
    script = tmp_path / "forks.py"  # a file: the spawned worker imports it
    script.write_text(SCRIPT)
    try:
        result = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                                text=True, timeout=180, cwd=tmp_path)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"a forked child hung; output so far: {e.stdout!r} {e.stderr!r}")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert "parent worked 8.0" in lines, result.stdout
    forked = [line for line in lines if line.startswith(("child ", "fork-pool "))]
    assert len(forked) == 3, result.stdout + result.stderr
    for line in forked:
        assert "error CUDA initialized before forking" in line, line
        assert "'spawn' or 'forkserver'" in line, line
    assert "spawn-pool worked 8.0" in lines, result.stdout + result.stderr
