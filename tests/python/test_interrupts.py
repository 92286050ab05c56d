"""Ctrl-C during a host wait (issue 14 §4): cuda.synchronize(), a stream's and an event's
synchronize() raise KeyboardInterrupt within moments instead of waiting for a long kernel;
the program goes on. On the cpu device the interrupted grids stop at their next blocks; on
the cuda device (a GPU, or the simulated one) the kernel runs to its end, as hardware
cannot stop it. Each case runs in a process of its own; the interrupt comes from
_thread.interrupt_main(), which is what a SIGINT does to the main thread."""

import os
import re
import subprocess
import sys
import textwrap

import pytest

import cudajit as cuda
from conftest import cuda_device_setting

PYTHON_DIR = os.path.dirname(os.path.dirname(cuda.__file__))

SCRIPT = """
import threading, time, _thread
import numpy as np
import cudajit as cuda

@cuda.jit
def spin(out, n):
    acc = 0.0
    for k in range(n):
        acc = acc * 0.5 + 1.0
    out[cuda.grid(1)] = acc

BLOCKS, N = {blocks}, {iterations}
out = cuda.device_array(BLOCKS * 32)
spin[1, 32](out, 10)
cuda.synchronize()

def interrupted(wait):
    threading.Timer(0.3, _thread.interrupt_main).start()
    start = time.perf_counter()
    try:
        wait()
    except KeyboardInterrupt:
        return time.perf_counter() - start
    time.sleep(1)  # the interrupt must not land later, outside the wait
    return None

spin[BLOCKS, 32](out, N)
print("device", interrupted(cuda.synchronize))
start = time.perf_counter()
cuda.synchronize()
print("rest", time.perf_counter() - start)

stream, event = cuda.stream(), cuda.event()
spin[BLOCKS, 32, stream](out, N)
print("stream", interrupted(stream.synchronize))
spin[BLOCKS, 32, stream](out, N)
event.record(stream)
print("event", interrupted(event.synchronize))
stream.synchronize()

spin[BLOCKS, 32](out, 100)  # the device works on
cuda.synchronize()
print("after", out.copy_to_host()[:BLOCKS * 32].min())
"""


def run(device: str, blocks: int, iterations: int) -> dict[str, float]:
    code = SCRIPT.format(blocks=blocks, iterations=iterations)
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR, CUDAJIT_DEVICE=device)
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                            text=True, env=env, timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    values = dict(re.findall(r"^(\w+) (\S+)$", result.stdout, re.M))
    assert set(values) == {"device", "rest", "stream", "event", "after"}, result.stdout
    return {k: float(v) if v != "None" else None for k, v in values.items()}


def test_ctrl_c_ends_the_wait_and_stops_the_cpu_devices_grid():
    # 8,000 blocks of about 10 ms each: tens of seconds in all on a few cores.
    seen = run("cpu", 8000, 400_000)
    for wait in ("device", "stream", "event"):
        assert seen[wait] is not None, f"{wait}.synchronize() was not interrupted"
        assert seen[wait] < 3.0, f"{wait}.synchronize() took {seen[wait]:.2f} s to stop"
    assert seen["rest"] < 3.0  # the interrupted grid stopped at its next blocks
    assert seen["after"] == 2.0  # and the next kernel ran whole


def test_ctrl_c_ends_the_wait_and_the_gpus_kernel_runs_to_its_end():
    if cuda_device_setting() == "sim":
        from cudajit import _core

        if not _core.cuda_available():
            pytest.skip("the cuda device is unavailable: " + _core.cuda_unavailable_reason())
    # About two seconds of one warp's loop on the simulated GPU (less on a GPU: still
    # more than the 0.3 s before the interrupt).
    iterations = 20_000_000 if cuda_device_setting() == "sim" else 400_000_000
    seen = run(cuda_device_setting(), 2, iterations)
    for wait in ("device", "stream", "event"):
        assert seen[wait] is not None, f"{wait}.synchronize() was not interrupted"
        assert seen[wait] < 3.0, f"{wait}.synchronize() took {seen[wait]:.2f} s to stop"
    assert seen["rest"] > 0.1  # the kernel went on after the interrupt
    assert seen["after"] == 2.0
