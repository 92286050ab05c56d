"""The cpu device's worker threads: CUDAJIT_CPU_WORKERS and cudajit.config.CPU_WORKERS size
them, so that a process that is one of many workers (a Dask worker per core) does not
oversubscribe the machine; their stacks bound recursion in kernels."""

import os
import subprocess
import sys

import numpy as np
import pytest

import cudajit as cuda

pytestmark = pytest.mark.usefixtures("on_cpu_device")

# Where the cudajit under test is (this tree's python/, or an installed wheel's site-packages).
PYTHON_DIR = os.path.dirname(os.path.dirname(cuda.__file__))


@cuda.jit
def count_overlap(active, peak, out):
    # Each block: in, note how many blocks are in at once, spin, out.
    now = cuda.atomic.add(active, 0, 1) + 1
    cuda.atomic.max(peak, 0, now)
    acc = 0.0
    for k in range(20000):
        acc = acc * 0.5 + 1.0
    out[cuda.blockIdx.x] = acc
    cuda.atomic.sub(active, 0, 1)


@pytest.fixture
def restore_workers():
    before = cuda.config.CPU_WORKERS
    yield
    cuda.config.CPU_WORKERS = before


def test_one_worker_runs_one_block_at_a_time(restore_workers):
    cuda.config.CPU_WORKERS = 1
    assert cuda.config.CPU_WORKERS == 1
    active, peak, out = np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(32)
    count_overlap[32, 1](active, peak, out)
    assert peak[0] == 1 and active[0] == 0
    np.testing.assert_allclose(out, 2.0)
    cuda.config.CPU_WORKERS = 3  # grows again: every block still runs once
    out[:] = 0
    count_overlap[32, 1](active, peak, out)
    assert cuda.config.CPU_WORKERS == 3 and active[0] == 0
    np.testing.assert_allclose(out, 2.0)


@pytest.mark.parametrize("value, error, message", [
    (0, ValueError, "CPU_WORKERS must be from 1 to 4096, got 0"),
    (2.0, TypeError, "CPU_WORKERS must be an int, got float 2.0"),
    (True, TypeError, "CPU_WORKERS must be an int, got bool True"),
])
def test_bad_worker_counts_are_refused(restore_workers, value, error, message):
    with pytest.raises(error, match=message):
        cuda.config.CPU_WORKERS = value


def _run(env_value, program):
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR, CUDAJIT_DEVICE="cpu",
               CUDAJIT_CPU_WORKERS=env_value)
    return subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=120, env=env)


def test_the_environment_variable_sizes_the_pool_and_a_bad_value_is_a_value_error():
    result = _run("3", "import cudajit\nprint(cudajit.config.CPU_WORKERS)")
    assert result.stdout.strip() == "3", result.stderr
    result = _run("many", "import cudajit\ntry:\n    cudajit.config.CPU_WORKERS\n"
                          "except ValueError as e:\n    print(e)")
    assert "CUDAJIT_CPU_WORKERS must be a whole number from 1 to 4096" in result.stdout, \
        result.stdout + result.stderr
    assert "got 'many'" in result.stdout


@cuda.jit(device=True)
def _depth(n):
    if n <= 0:
        return 0
    return 1 + _depth(n - 1)


@pytest.mark.parametrize("synchronising", [False, True], ids=["thread-loop", "fibers"])
def test_recursion_deeper_than_the_cpu_stack_is_a_recursion_error(synchronising):
    # Before the guard, the worker thread's guard page ended the process. The thread stops at
    # its stack's limit; the launch fails, as a GPU's does (CUDA_ERROR_HARDWARE_STACK_ERROR);
    # the device goes on.
    @cuda.jit
    def kernel(n, out):
        if synchronising:
            cuda.syncthreads()
        out[cuda.grid(1)] = _depth(n)

    out = np.zeros(4, np.int64)
    with pytest.raises(RecursionError, match="kernel 'kernel': a thread's recursion outgrew its "
                                             "stack on the cpu device"):
        kernel[2, 2](10**8, out)
        cuda.synchronize()
    kernel[2, 2](500, out)
    cuda.synchronize()
    np.testing.assert_array_equal(out, 500)
