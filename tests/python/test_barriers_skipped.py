"""A block barrier that only some threads of a warp reach (issue 28 §5): the threads that
skipped it and run on must meet the others where the branch (or loop) ends, as a GPU's
lanes reconverge, so the block can never complete the barrier. The simulated GPU reports
it as a barrier deadlock; the cpu device reports it too, with the line of the branch.
Threads that return (or end) after skipping it do not hold the barrier up, on any device."""

import inspect
import os
import subprocess
import sys

import numpy as np
import pytest

import cudajit as cuda
from conftest import cuda_device_setting

PYTHON_DIR = os.path.dirname(os.path.dirname(cuda.__file__))
HERE = os.path.dirname(os.path.abspath(__file__))


@cuda.jit
def skips_the_barrier(out):
    t = cuda.threadIdx.x
    if t < 16:
        cuda.syncthreads()
    out[t] = t


@cuda.jit
def loops_round_the_barrier_unequally(out):
    t = cuda.threadIdx.x
    for k in range(t % 2 + 1):
        cuda.syncthreads()
    out[t] = t


def run_expecting_the_deadlock(device, kernel, line):
    if device != "cpu":
        # A GPU's launch failure is sticky (the context is lost): in a process of its own.
        code = (f"import numpy as np, cudajit as cuda\n"
                f"from test_barriers_skipped import {kernel.py_func.__name__} as k\n"
                f"k[1, 32](cuda.to_device(np.zeros(32, np.int32)))\n"
                f"cuda.synchronize()\n")
        env = dict(os.environ, CUDAJIT_DEVICE=cuda_device_setting(),
                   PYTHONPATH=os.pathsep.join([PYTHON_DIR, HERE]))
        result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                text=True, timeout=120)
        assert result.returncode != 0 and "barrier deadlock" in result.stderr, result.stderr
        return
    out = cuda.to_device(np.zeros(32, np.int32))
    with pytest.raises(RuntimeError) as raised:
        kernel[1, 32](out)
        cuda.synchronize()
    message = str(raised.value)
    assert f"kernel '{kernel.py_func.__name__}'" in message
    assert "16 threads wait at cuda.syncthreads() (the first: threadIdx (" in message
    assert f"16 threads wait where the branch or loop at line {line} ends" in message
    # The device goes on working.
    fine = cuda.to_device(np.zeros(32, np.int32))
    ends_after_the_barrier[1, 32](fine)
    assert (fine.copy_to_host() == EXPECTED_ENDS_AFTER).all()


def line_of(kernel, text):
    lines, first = inspect.getsourcelines(kernel.py_func)
    return first + next(i for i, line in enumerate(lines) if text in line)


def test_threads_that_skip_a_barrier_and_run_on_are_reported_with_the_line(device):
    run_expecting_the_deadlock(device, skips_the_barrier,
                               line_of(skips_the_barrier, "if t < 16"))


def test_threads_that_loop_round_a_barrier_fewer_times_are_reported(device):
    run_expecting_the_deadlock(device, loops_round_the_barrier_unequally,
                               line_of(loops_round_the_barrier_unequally, "for k in"))


@cuda.jit
def ends_after_the_barrier(out):
    t = cuda.threadIdx.x
    out[t] = t
    if t < 16:
        cuda.syncthreads()  # the others end: they hold nothing up
        out[t] = t + 1


EXPECTED_ENDS_AFTER = np.arange(32) + (np.arange(32) < 16)


def test_threads_that_skip_a_barrier_and_end_hold_nothing_up(device):
    out = cuda.to_device(np.zeros(32, np.int32))
    ends_after_the_barrier[1, 32](out)
    cuda.synchronize()
    assert (out.copy_to_host() == EXPECTED_ENDS_AFTER).all()


@cuda.jit
def whole_warps_skip(out):
    t = cuda.threadIdx.x
    if t < 32:
        cuda.syncthreads()
    out[t] = t


def test_a_warp_that_skips_a_barrier_whole_runs_on(device):
    # Warp 1 never meets warp 0 at the branch's end: it ends, and the barrier completes.
    out = cuda.to_device(np.zeros(64, np.int32))
    whole_warps_skip[1, 64](out)
    cuda.synchronize()
    assert (out.copy_to_host() == np.arange(64)).all()
