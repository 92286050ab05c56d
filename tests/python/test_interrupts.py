"""Ctrl-C during a host wait (issue 14 §4, issue 28 §4): cuda.synchronize(), a stream's and an
event's synchronize() and a launch given NumPy arrays raise KeyboardInterrupt within moments
instead of waiting for a long kernel; the program goes on. On the cpu device and the simulated
GPU the interrupted grids are abandoned (threads return at their next loop back-edge; the
simulator's warps stop within a few thousand instructions), so the device is usable at once;
on a real GPU the kernel runs to its end, as hardware cannot stop it. Each case runs in a
process of its own; the interrupt comes from _thread.interrupt_main(), which is what a SIGINT
does to the main thread, or from a real SIGINT sent to the process."""

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


def _ctrl_c_as_by_default() -> None:
    """In the child before it runs: SIGINT's default action. A test run started as a shell's
    background job ignores SIGINT, its children inherit that, and Python then installs no
    KeyboardInterrupt handler (and _thread.interrupt_main() does nothing)."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run(device: str, blocks: int, iterations: int) -> dict[str, float]:
    code = SCRIPT.format(blocks=blocks, iterations=iterations)
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR, CUDAJIT_DEVICE=device)
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                            text=True, env=env, timeout=240, preexec_fn=_ctrl_c_as_by_default)
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
    if cuda_device_setting() == "sim":
        assert seen["rest"] < 1.0  # the simulated GPU abandoned the grid
    else:
        assert seen["rest"] > 0.1  # the kernel went on after the interrupt
    assert seen["after"] == 2.0


# Kernels that never end, each interrupted where it waits; then the device must answer at
# once (to_device) and run the next kernel whole. Finishing at all proves the interrupt
# stopped the kernel: without it the process would time out.
RUNAWAY = """
import threading, time, _thread
import numpy as np
import cudajit as cuda

@cuda.jit(device=True)
def spin_in_a_function(n):
    acc = 0.0
    k = 0
    while k < n:
        acc = acc * 0.5 + 1.0
        k += 1
    return acc

@cuda.jit
def while_forever(out, n):
    acc = 0.0
    k = 0
    while k < n:  # 2**62 iterations: for ever
        acc = acc * 0.5 + 1.0
        k += 1
    out[cuda.grid(1)] = acc

@cuda.jit
def range_forever(out, n):
    acc = 0.0
    for k in range(n):
        for j in range(n):
            acc = acc * 0.5 + 1.0
    out[cuda.grid(1)] = acc

@cuda.jit
def call_forever(out, n):
    out[cuda.grid(1)] = spin_in_a_function(n)

@cuda.jit
def barrier_forever(out, n):
    shared = cuda.shared.array(64, np.float64)
    acc = 0.0
    for k in range(n):
        shared[cuda.threadIdx.x] = acc
        cuda.syncthreads()
        acc = acc * 0.5 + shared[(cuda.threadIdx.x + 1) % 64] * 0.0 + 1.0
        cuda.syncthreads()
    out[cuda.grid(1)] = acc

@cuda.jit
def fill(out, n):
    i = cuda.grid(1)
    if i < out.size:
        acc = 0.0
        for k in range(n):
            acc = acc * 0.5 + 1.0
        out[i] = acc

BIG = 1 << 62
out = cuda.device_array(4 * 64)
host = np.zeros(4 * 64)
for kernel in (while_forever, range_forever, call_forever, barrier_forever):
    kernel[1, 64](out, 2)  # compiled before the clock starts
cuda.synchronize()

def interrupted(wait):
    threading.Timer(0.3, _thread.interrupt_main).start()
    start = time.perf_counter()
    try:
        wait()
    except KeyboardInterrupt:
        return time.perf_counter() - start - 0.3
    time.sleep(1)  # the interrupt must not land later, outside the wait
    return None

def next_operation():
    start = time.perf_counter()
    cuda.to_device(np.ones(16))
    return time.perf_counter() - start

for kernel in (while_forever, range_forever, call_forever, barrier_forever):
    kernel[4, 64](out, BIG)
    print(kernel.__name__, interrupted(cuda.synchronize), next_operation())
print("numpy", interrupted(lambda: range_forever[4, 64](host, BIG)), next_operation())
fill[4, 64](out, 100)
cuda.synchronize()
print("after", out.copy_to_host().min(), 0)
"""


def run_runaways(device: str) -> dict[str, tuple]:
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR, CUDAJIT_DEVICE=device)
    env["NUMBA_CUDA_WARN_ON_IMPLICIT_COPY"] = "0"
    result = subprocess.run([sys.executable, "-c", RUNAWAY], capture_output=True, text=True,
                            env=env, timeout=120, preexec_fn=_ctrl_c_as_by_default)
    assert result.returncode == 0, result.stdout + result.stderr
    values = {name: (a, b) for name, a, b in re.findall(r"^(\w+) (\S+) (\S+)$", result.stdout,
                                                         re.M)}
    assert set(values) == {"while_forever", "range_forever", "call_forever", "barrier_forever",
                           "numpy", "after"}, result.stdout
    return values


def check_runaways(values: dict[str, tuple]) -> None:
    # Targets: KeyboardInterrupt within 1 s of the interrupt, the next operation within 1 s;
    # asserted with room for a loaded machine (the kernels never end by themselves).
    for name, (stop, next_op) in values.items():
        if name == "after":
            continue
        assert stop != "None", f"{name}: the wait was not interrupted"
        assert float(stop) < 2.0, f"{name}: KeyboardInterrupt came {float(stop):.2f} s late"
        assert float(next_op) < 2.0, f"{name}: to_device took {float(next_op):.2f} s after it"
    assert float(values["after"][0]) == 2.0  # the device works on: the next kernel ran whole


def test_ctrl_c_abandons_a_runaway_kernel_on_the_cpu_device():
    check_runaways(run_runaways("cpu"))


def test_ctrl_c_abandons_a_runaway_kernel_on_the_simulated_gpu():
    from cudajit import _core

    if not _core.cuda_available() or cuda_device_setting() != "sim":
        pytest.skip("needs the simulated GPU (a real GPU cannot abandon a kernel)")
    check_runaways(run_runaways("sim"))


SIGINT_CHILD = """
import sys, time
import numpy as np
import cudajit as cuda

@cuda.jit
def forever(out):
    acc = 0.0
    while acc >= 0.0:
        acc = acc * 0.5 + 1.0
    out[cuda.grid(1)] = acc

out = cuda.device_array(64)
forever[1, 64](out)
print("running", flush=True)
try:
    cuda.synchronize()
except KeyboardInterrupt:
    stopped = time.monotonic()
    cuda.to_device(np.ones(16))
    print("interrupted", stopped, time.monotonic() - stopped, flush=True)
"""


@pytest.mark.parametrize("device", ["cpu", "sim"])
def test_sigint_stops_a_kernel_that_never_ends(device):
    import signal
    import time

    from cudajit import _core

    if device == "sim" and (not _core.cuda_available() or cuda_device_setting() != "sim"):
        pytest.skip("needs the simulated GPU")
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR, CUDAJIT_DEVICE=device)
    child = subprocess.Popen([sys.executable, "-c", SIGINT_CHILD], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env,
                             preexec_fn=_ctrl_c_as_by_default)
    try:
        assert child.stdout.readline().strip() == "running"
        time.sleep(0.3)  # inside synchronize() by now
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0, out + err
    _, stopped, next_op = out.split()
    assert float(stopped) - sent < 2.0  # KeyboardInterrupt within moments of SIGINT
    assert float(next_op) < 2.0  # and the device answered at once
