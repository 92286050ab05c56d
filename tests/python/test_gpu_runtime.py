"""The runtime on the cuda device (issue 3): what only a GPU shows.

NumPy arrays given to a kernel are copied in and out around a launch that
waits (read-only ones only in), with a PerformanceWarning; mapped and managed
host arrays are used in place; page-locked memory round-trips on a stream;
kernels on two streams overlap; events time a kernel; launch configurations
beyond the device's limits and arrays of another device are refused with
clear errors; a failing driver call raises CudaDriverError naming the
CUresult. The cpu-device versions are in test_streams_events.py,
test_device_arrays.py and test_launch_path.py. Skips without a GPU.

Driver errors are provoked only in ways that leave the context usable: an
allocation larger than any GPU (CUDA_ERROR_OUT_OF_MEMORY) and the elapsed
time of an event that has not completed (CUDA_ERROR_NOT_READY). cudajit has
no private API to load arbitrary PTX, so a bad module is not tried here.
"""

import contextlib
import re
import warnings

import numpy as np
import pytest

import cudajit as cuda
from cudajit import _core

if not cuda.is_available():
    pytest.skip("needs a CUDA GPU: " + _core.cuda_unavailable_reason(), allow_module_level=True)

from cudajit.errors import PerformanceWarning  # noqa: E402
from conftest import cover, cuda_device_setting, in_layout, random_array  # noqa: E402

N = 4096
THREADS = 256
BLOCKS = N // THREADS
SHAPE = (33, 17)
BLOCK_2D = (8, 8)
SPIN_MS = 200.0
# Numba's sentence first (filters written for it match), then what happened.
COPIES = (r"^Host array used in CUDA kernel will incur copy overhead to/from device: kernel "
          r"'\w+' was given {} NumPy array\(s\): each is copied to the GPU before the launch "
          r"and back after it")


@cuda.jit
def add_2d(x, y, out):
    i, j = cuda.grid(2)
    if i < x.shape[0] and j < x.shape[1]:
        out[i, j] = x[i, j] + y[i, j]


@cuda.jit
def add_one(out, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = x[i] + 1.0


@cuda.jit
def double_1d(x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        x[i] = x[i] * 2.0


@cuda.jit
def spin(out, iterations):
    # One thread's dependent chain: acc reaches 2.0 after ~60 iterations and
    # stays there, so out[0] == 2.0 shows the kernel ran to the end.
    acc = 0.0
    for k in range(iterations):
        acc = acc * 0.5 + 1.0
    if cuda.grid(1) == 0:
        out[0] = acc


@pytest.fixture(scope="module", autouse=True)
def on_the_gpu():
    """cudajit's current device is the GPU for every test here (module scope,
    so that the calibration below runs on it too)."""
    previous = _core.current_device()
    device = cuda.select_device(0)
    assert device.kind == "cuda"
    yield device
    _core.set_current_device(previous)


def timed_ms(stream, launch):
    """Milliseconds, by events on `stream`, that `launch()` queues there."""
    start, end = cuda.event(), cuda.event()
    start.record(stream)
    launch()
    end.record(stream)
    end.synchronize()
    return start.elapsed_time(end)


@pytest.fixture(scope="module")
def spin_iterations():
    """Iterations of `spin` that run about SPIN_MS on this GPU (compiled first,
    timed with events, the faster of two probes)."""
    s = cuda.stream()
    out = cuda.device_array(1)
    spin[1, 1, s](out, 1)
    s.synchronize()
    probe = 2_000_000
    ms = min(timed_ms(s, lambda: spin[1, 1, s](out, probe)) for _ in range(2))
    assert ms > 0
    return max(1000, int(probe * SPIN_MS / ms))


def test_select_device_makes_the_gpu_current(on_the_gpu):
    current = cuda.get_current_device()
    assert current == on_the_gpu
    assert current.kind == "cuda" and current.id == 0
    assert len(cuda.gpus) >= 1 and cuda.gpus[0] == current


# --- NumPy, mapped, managed and pinned host memory ----------------------------------------------


@pytest.mark.parametrize("layout", ["C", "F", "step2", "reversed"])
def test_numpy_arrays_are_copied_in_and_out_with_a_performance_warning(layout):
    x = in_layout(random_array(np.float64, SHAPE, seed=1), layout)
    y = in_layout(random_array(np.float64, SHAPE, seed=2), layout)
    out = in_layout(np.zeros(SHAPE), layout)
    with pytest.warns(PerformanceWarning, match=COPIES.format(3)):
        add_2d[cover(SHAPE, BLOCK_2D), BLOCK_2D](x, y, out)
    # The launch waited for the kernel and the copy back: no synchronisation.
    np.testing.assert_array_equal(out, x + y)


@pytest.mark.parametrize("env, warned", [
    ({}, True),
    ({"NUMBA_CUDA_WARN_ON_IMPLICIT_COPY": "0"}, False),
    ({"NUMBA_DISABLE_PERFORMANCE_WARNINGS": "1"}, False),
    ({"NUMBA_CUDA_WARN_ON_IMPLICIT_COPY": "1", "NUMBA_DISABLE_PERFORMANCE_WARNINGS": "0"}, True),
])
def test_numbas_variables_silence_the_copy_warning(env, warned, tmp_path):
    # Read once per process: each case runs in a fresh interpreter on the cuda device.
    import os
    import subprocess
    import sys
    code = """
import warnings, numpy as np, cudajit as cuda
@cuda.jit
def double(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= 2
a = np.ones(8)
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    double[1, 8](a)
assert (a == 2).all()
print(sum(issubclass(w.category, cuda.PerformanceWarning) for w in seen))
"""
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(cuda.__file__)))
    full_env = {k: v for k, v in os.environ.items()
                if k not in ("NUMBA_CUDA_WARN_ON_IMPLICIT_COPY", "NUMBA_DISABLE_PERFORMANCE_WARNINGS")}
    full_env.update(env, CUDAJIT_DEVICE=cuda_device_setting(), PYTHONPATH=package_root,
                    CUDAJIT_CACHE_DIR=str(tmp_path))
    result = subprocess.run([sys.executable, "-c", code], env=full_env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) == (1 if warned else 0)


def test_a_read_only_numpy_array_is_copied_in_but_not_back():
    base = np.arange(N, dtype=np.float64)
    read_only = base.view()
    read_only.flags.writeable = False
    # `out` and `x` are the same host memory. `out` is copied back first; a
    # copy back of the read-only `x` after it would restore the old values.
    with pytest.warns(PerformanceWarning, match=COPIES.format(2)):
        add_one[BLOCKS, THREADS](base, read_only)
    np.testing.assert_array_equal(base, np.arange(N) + 1.0)
    assert ("array(float64, 1d, C)", "readonly array(float64, 1d, C)") in add_one.signatures


@pytest.mark.parametrize("make", [cuda.mapped_array, cuda.managed_array], ids=["mapped", "managed"])
def test_mapped_and_managed_arrays_are_used_in_place_without_a_warning(make):
    a = make(N, dtype=np.float64)
    a[:] = np.arange(N)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PerformanceWarning)
        double_1d[BLOCKS, THREADS](a)
    cuda.synchronize()
    np.testing.assert_array_equal(a, np.arange(N) * 2.0)


@pytest.mark.parametrize("how", ["pinned_array", "pinned()"])
def test_page_locked_host_memory_round_trips_on_a_stream(how):
    if how == "pinned_array":
        host = cuda.pinned_array(N, dtype=np.float64)
        locked = contextlib.nullcontext()
    else:
        host = np.empty(N, dtype=np.float64)
        locked = cuda.pinned(host)
    host[:] = np.arange(N)
    s = cuda.stream()
    with locked:
        d = cuda.to_device(host, stream=s)
        double_1d[BLOCKS, THREADS, s](d)
        d.copy_to_host(host, stream=s)
        s.synchronize()
    np.testing.assert_array_equal(host, np.arange(N) * 2.0)


# --- streams and events -------------------------------------------------------------------------


@cuda.jit
def handshake(mine, partner, seen, limit):
    # Raise my flag, then wait (a bounded time) for the partner's: both flags are
    # seen only if the two kernels run at the same time. Atomics read the flags
    # afresh on every iteration.
    cuda.atomic.exch(mine, 0, 1)
    k = 0
    while k < limit and cuda.atomic.add(partner, 0, 0) == 0:
        k += 1
    seen[0] = cuda.atomic.add(partner, 0, 0)


def test_kernels_on_two_streams_overlap():
    # Without timing: each kernel waits for the other's flag, which only a kernel
    # running at the same time can raise.
    a, b = cuda.stream(), cuda.stream()
    flag_a, flag_b = cuda.to_device(np.zeros(1, np.int32)), cuda.to_device(np.zeros(1, np.int32))
    seen_a, seen_b = cuda.device_array(1, np.int32), cuda.device_array(1, np.int32)
    handshake[1, 1, a](flag_a, flag_b, seen_a, 200_000_000)
    handshake[1, 1, b](flag_b, flag_a, seen_b, 200_000_000)
    a.synchronize()
    b.synchronize()
    assert seen_a.copy_to_host()[0] == 1 and seen_b.copy_to_host()[0] == 1


@cuda.jit
def add_pair(x, y, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = x[i] + y[i]


@pytest.mark.parametrize("two_arrays", [False, True], ids=["one array", "two arrays"])
def test_a_launch_is_ordered_after_a_cai_producers_stream_and_before_its_later_work(
        spin_iterations, two_arrays):
    from interop_producers import CaiProducer, slow_fill

    producer_stream, launch_stream = cuda.stream(), cuda.stream()
    x, y = cuda.to_device(np.zeros(N)), cuda.to_device(np.zeros(N))
    out = cuda.device_array(N)
    slow_fill[1, 1, launch_stream](x, 0.0, 100)  # compiled before anything waits
    launch_stream.synchronize()
    slow_fill[1, 1, producer_stream](x, 1.0, spin_iterations)
    second = CaiProducer(y, stream=producer_stream) if two_arrays else y
    add_pair[BLOCKS, THREADS, launch_stream](CaiProducer(x, stream=producer_stream), second,
                                             out)
    # The producer's later work waits for the kernel: it would otherwise overwrite x first.
    slow_fill[1, 1, producer_stream](x, 5.0, 100)
    assert not producer_stream.query()
    launch_stream.synchronize()
    np.testing.assert_array_equal(out.copy_to_host(), 1.0)
    producer_stream.synchronize()
    np.testing.assert_array_equal(x.copy_to_host(), 5.0)


def test_events_time_a_kernel(spin_iterations):
    s = cuda.stream()
    out = cuda.device_array(1)
    ms = timed_ms(s, lambda: spin[1, 1, s](out, spin_iterations // 4))
    assert ms > 0
    assert out.copy_to_host()[0] == 2.0


# --- launch configurations and arguments the GPU refuses ------------------------------------------


@pytest.mark.parametrize("blockdim", [(1025,), (32, 33), (1, 1, 65)], ids=str)
def test_a_block_beyond_the_thread_limit_is_a_value_error_naming_1024(blockdim):
    d = cuda.device_array(4)
    with pytest.raises(ValueError, match=r"exceeds CUDA's limits: at most 1024 threads per block"):
        double_1d[1, blockdim](d)


def test_more_shared_memory_than_a_block_has_is_a_value_error_naming_the_limit():
    d = cuda.device_array(4)
    with pytest.raises(ValueError, match=r"dynamic shared memory of 1000000000 bytes exceeds "
                                         r"the limit of \d+ bytes per block on device ") as info:
        double_1d[1, 4, 0, 10**9](d)
    limit = int(re.search(r"the limit of (\d+) bytes", str(info.value)).group(1))
    assert 48 * 1024 <= limit < 10**9


def test_a_device_array_of_the_cpu_device_in_a_gpu_launch_names_both_devices(on_the_gpu):
    _core.set_current_device(_core.cpu_device())
    try:
        on_cpu = cuda.to_device(np.zeros(4))
    finally:
        _core.set_current_device(on_the_gpu)
    assert on_cpu.device.kind == "cpu"
    with pytest.raises(ValueError) as info:
        double_1d[1, 4](on_cpu)
    message = str(info.value)
    assert "argument 0 is on device cpu 0" in message, message
    assert f"but the kernel launches on {on_the_gpu.name} {on_the_gpu.id}" in message, message


# --- driver errors -----------------------------------------------------------------------------


def test_an_allocation_larger_than_the_gpu_raises_cuda_driver_error_naming_the_result():
    nbytes = 1 << 44  # 16 TiB
    with pytest.raises(cuda.CudaDriverError, match=rf"cuMemAlloc\({nbytes} bytes\) on cuda:0 "
                                                   r"failed: CUDA_ERROR_OUT_OF_MEMORY"):
        cuda.device_array(nbytes // 8, dtype=np.float64)
    d = cuda.to_device(np.arange(8.0))  # the context is still usable
    double_1d[1, 8](d)
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(8.0) * 2.0)


@cuda.jit
def wait_for(flag, limit):
    k = 0
    while k < limit and cuda.atomic.add(flag, 0, 0) == 0:
        k += 1


def test_elapsed_time_before_the_end_event_completes_raises_not_ready():
    # The kernel between the events waits for the host's word, so the end event
    # cannot have completed when elapsed_time is asked (no timing involved).
    s, other = cuda.stream(), cuda.stream()
    flag = cuda.to_device(np.zeros(1, np.int32))
    start, end = cuda.event(), cuda.event()
    start.record(s)
    wait_for[1, 1, s](flag, 500_000_000)
    end.record(s)
    try:
        with pytest.raises(cuda.CudaDriverError,
                           match=r"cuEventElapsedTime failed: CUDA_ERROR_NOT_READY"):
            start.elapsed_time(end)
    finally:
        flag.copy_to_device(np.ones(1, np.int32), stream=other)  # let the kernel go
        other.synchronize()
    end.synchronize()
    assert start.elapsed_time(end) > 0
