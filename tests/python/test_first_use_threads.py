"""Eight threads making their first cudajit call at once (issue 28 §1): each creates a
stream, launches and reads back, and none waits on another forever. The fallback to the cpu
device warns while the others arrive, and `warnings` releases the GIL (it reads the source
line), so no C++ lock may be held across that call into Python. Each case runs in a fresh
process, so the first use is real, on each device: the default (the GPU, or the cpu device
with its fallback warning where there is none), the cpu device chosen, and the cuda device."""

import os
import subprocess
import sys

import pytest

import cudajit as cuda
from conftest import cuda_device_setting

PYTHON_DIR = os.path.dirname(os.path.dirname(cuda.__file__))

SCRIPT = """
import threading
import numpy as np
import cudajit as cuda


@cuda.jit
def index(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = i


THREADS = 8
start = threading.Barrier(THREADS)
sums = []


def first_use():
    start.wait()
    stream = cuda.stream()
    out = cuda.device_array(64, dtype=np.int64, stream=stream)
    index[2, 32, stream](out)
    stream.synchronize()
    sums.append(int(out.copy_to_host(stream=stream).sum()))


threads = [threading.Thread(target=first_use) for _ in range(THREADS)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("sums", sorted(sums))
"""


@pytest.mark.parametrize("setting", ["default", "cpu", "cuda"])
def test_eight_threads_at_first_use_all_finish(setting, tmp_path):
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    env.pop("CUDAJIT_DEVICE", None)
    if setting == "cpu":
        env["CUDAJIT_DEVICE"] = "cpu"
    elif setting == "cuda":
        from cudajit import _core

        if not _core.cuda_available():
            pytest.skip("the cuda device is unavailable: " + _core.cuda_unavailable_reason())
        env["CUDAJIT_DEVICE"] = cuda_device_setting()
    # A file, not `python -c`: the fallback warning reads its source line from it.
    script = tmp_path / "first_use.py"
    script.write_text(SCRIPT)
    for attempt in range(3):  # the threads race differently each time
        try:
            result = subprocess.run([sys.executable, "-W", "always", str(script)], env=env,
                                    capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the threads hung at first use (attempt {attempt + 1})")
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"sums {[2016] * 8}" in result.stdout, result.stdout + result.stderr
