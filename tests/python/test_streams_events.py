"""Streams, events, devices and launch configuration, on the current device."""

import os
import subprocess
import sys
import time

import numpy as np
import pytest

import cudajit as cuda
from cudajit import _core


@cuda.jit
def spin_then_write(out, value, iterations):
    # Enough work to still be running when the host looks.
    acc = 0.0
    for k in range(iterations):
        acc += k * 1e-9
    if cuda.grid(1) == 0:
        out[0] = value + acc * 0.0


@cuda.jit
def copy_first(src, dst):
    if cuda.grid(1) == 0:
        dst[0] = src[0]


def test_streams_are_distinct_and_never_zero():
    a, b = cuda.stream(), cuda.stream()
    assert a.handle != b.handle and a.handle not in (0, 1, 2) and b.handle not in (0, 1, 2)
    assert a.__cuda_stream__() == (0, a.handle)


def test_default_streams():
    assert cuda.default_stream() == cuda.legacy_default_stream()
    assert cuda.per_thread_default_stream().handle == 2


def test_a_launch_on_a_stream_returns_before_the_kernel_ends():
    s = cuda.stream()
    out = cuda.device_array(1)
    spin_then_write[1, 1, s](out, 0.0, 1)  # compile outside the timing
    s.synchronize()
    t0 = time.perf_counter()
    spin_then_write[1, 1, s](out, 7.0, 50_000_000)
    queued = time.perf_counter() - t0
    s.synchronize()
    finished = time.perf_counter() - t0
    assert s.query()
    assert out.copy_to_host()[0] == 7.0
    assert queued < finished / 2, (queued, finished)


def test_work_on_one_stream_runs_in_order():
    s = cuda.stream()
    a = cuda.device_array(1)
    b = cuda.device_array(1)
    spin_then_write[1, 1, s](a, 3.0, 5_000_000)
    copy_first[1, 1, s](a, b)
    s.synchronize()
    assert b.copy_to_host()[0] == 3.0


def test_auto_synchronize_waits_at_the_end_of_the_block():
    s = cuda.stream()
    out = cuda.device_array(1)
    with s.auto_synchronize():
        spin_then_write[1, 1, s](out, 5.0, 2_000_000)
    assert s.query()


def test_event_orders_work_across_streams():
    producer, consumer = cuda.stream(), cuda.stream()
    a = cuda.device_array(1)
    b = cuda.device_array(1)
    spin_then_write[1, 1, producer](a, 11.0, 10_000_000)
    done = cuda.event()
    done.record(producer)
    done.wait(consumer)
    copy_first[1, 1, consumer](a, b)
    consumer.synchronize()
    assert b.copy_to_host()[0] == 11.0


def test_event_times_the_work_between_two_records():
    s = cuda.stream()
    start, end = cuda.event(), cuda.event()
    start.record(s)
    spin_then_write[1, 1, s](cuda.device_array(1), 1.0, 5_000_000)
    end.record(s)
    end.synchronize()
    assert end.query()
    assert start.elapsed_time(end) > 0
    assert cuda.event_elapsed_time(start, end) == start.elapsed_time(end)


def test_elapsed_time_of_events_without_timing_is_an_error():
    a, b = cuda.event(timing=False), cuda.event(timing=False)
    a.record()
    b.record()
    b.synchronize()
    with pytest.raises(Exception, match="(?i)timing"):
        a.elapsed_time(b)


class CudaStreamProtocol:
    def __init__(self, handle):
        self.handle = handle

    def __cuda_stream__(self):
        return (0, self.handle)


class CupyLike:
    def __init__(self, ptr):
        self.ptr = ptr


class TorchLike:
    def __init__(self, handle):
        self.cuda_stream = handle


@pytest.mark.parametrize("wrap", [lambda s: s, lambda s: s.handle, CudaStreamProtocol,
                                  lambda s: CupyLike(s.handle), lambda s: TorchLike(s.handle)],
                         ids=["Stream", "int", "__cuda_stream__", "cupy", "torch"])
def test_anything_naming_a_stream_can_launch_on_it(wrap):
    s = cuda.stream()
    out = cuda.device_array(1)
    spin_then_write[1, 1, wrap(s)](out, 4.0, 10)
    s.synchronize()
    assert out.copy_to_host()[0] == 4.0


def test_an_object_that_is_not_a_stream_is_a_type_error():
    with pytest.raises(TypeError, match="expected a stream"):
        spin_then_write[1, 1, "fast"]


def test_negative_shared_memory_is_a_value_error():
    with pytest.raises(ValueError, match="sharedmem"):
        spin_then_write[1, 1, 0, -1]


def test_forall_covers_every_task():
    out = np.zeros(1000)

    @cuda.jit
    def fill(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = i

    fill.forall(out.size)(out)
    np.testing.assert_array_equal(out, np.arange(1000))


def test_forall_of_zero_tasks_launches_nothing_and_a_negative_count_is_refused():
    out = np.full(4, -1.0)

    @cuda.jit
    def fill(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = i

    fill.forall(0)(out)  # as in Numba: nothing runs
    np.testing.assert_array_equal(out, np.full(4, -1.0))
    fill.forall(np.int64(4))(out)
    np.testing.assert_array_equal(out, np.arange(4.0))
    with pytest.raises(ValueError, match="Can.t create ForAll with negative task count: .*"
                       "non-negative number of tasks, got -1"):
        fill.forall(-1)
    with pytest.raises(TypeError, match="integer number of tasks, got 2.5"):
        fill.forall(2.5)


def test_current_device_and_selection():
    device = cuda.get_current_device()
    assert device.kind in ("cpu", "cuda")
    assert cuda.select_device(0) == cuda.get_current_device()
    with pytest.raises(ValueError, match="device_id"):
        cuda.select_device(64)


# A real GPU, not the simulated one conftest loads where there is none.
REAL_GPU = cuda.is_available() and not _core.cuda_simulated()


def run_without_a_gpu(code: str, **env: str) -> subprocess.CompletedProcess:
    """Runs `code` in a process that loads the real driver (libcuda.so.1), not the
    simulated GPU."""
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("CUDAJIT_LIBCUDA", "CUDAJIT_DEVICE")}
    environment.update(env)
    return subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.skipif(REAL_GPU, reason="checks the machine without a GPU")
def test_without_a_gpu_the_cpu_device_is_current_and_detect_says_why():
    result = run_without_a_gpu(
        "import cudajit as cuda\n"
        "found = cuda.detect()\n"
        "print(cuda.get_current_device().kind, len(cuda.gpus), found)")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Found 0 CUDA devices\nNo CUDA GPU: ")  # Numba's first line
    assert result.stdout.strip().splitlines()[-1] == "cpu 0 False"


def test_detect_lists_each_gpu_in_numbas_format(capsys):
    if not cuda.is_available():
        pytest.skip("no GPU and no simulated GPU")
    assert cuda.detect() is True
    out = capsys.readouterr().out
    n = len(cuda.gpus)
    assert out.startswith(f"Found {n} CUDA devices\nid 0 ")
    major, minor = cuda.gpus[0].compute_capability
    assert f"Compute Capability: {major}.{minor}" in out
    assert out.endswith(f"Summary:\n\t{n}/{n} devices are supported\n")


@pytest.mark.skipif(REAL_GPU, reason="checks the machine without a GPU")
def test_asking_for_the_cuda_device_without_one_is_a_clear_error():
    result = run_without_a_gpu("import cudajit as cuda, numpy as np; cuda.to_device(np.zeros(1))",
                               CUDAJIT_DEVICE="cuda")
    assert result.returncode != 0
    assert "CudaSupportError" in result.stderr and "libcuda" in result.stderr


def test_synchronize_waits_for_every_stream():
    streams = [cuda.stream() for _ in range(3)]
    outs = [cuda.device_array(1) for _ in streams]
    for k, (s, o) in enumerate(zip(streams, outs)):
        spin_then_write[1, 1, s](o, float(k), 2_000_000)
    cuda.synchronize()
    assert all(s.query() for s in streams)
    assert [o.copy_to_host()[0] for o in outs] == [0.0, 1.0, 2.0]


# --- copies with pageable host memory complete, as CUDA's staging makes them ------------------


def test_copy_to_host_into_pageable_memory_is_complete_when_it_returns(device):
    s = cuda.stream()
    for i in range(30):
        d = cuda.to_device(np.full(100_000, i, dtype=np.int64), stream=s)
        host = np.empty(100_000, dtype=np.int64)
        d.copy_to_host(host, stream=s)
        assert host[0] == i and host[-1] == i  # read without synchronising


def test_a_pageable_source_may_change_as_soon_as_to_device_returns(device):
    s = cuda.stream()
    source = np.arange(100_000, dtype=np.int64)
    d = cuda.to_device(source, stream=s)
    source[:] = -1
    s.synchronize()
    assert d.copy_to_host()[5] == 5


def test_numbas_support_queries_answer_for_cudajit():
    # No CUDA runtime or toolkit library is loaded at run time: no version to refuse;
    # float16 kernels run on every device (test_kernels_float16.py).
    assert cuda.is_supported_version() is True
    assert cuda.is_float16_supported() is True


def test_the_current_device_is_per_thread_as_in_numba():
    import threading

    from cudajit import _core

    if not cuda.is_available():
        pytest.skip("needs a second device: a GPU or the simulated GPU beside the cpu device")
    cpu, gpu = _core.cpu_device(), _core.cuda_device(0)
    previous = _core.current_device()
    seen = {}

    def worker():
        seen["at start"] = _core.current_device()  # the process default, not main's choice
        with cuda.gpus[0]:
            seen["inside with"] = _core.current_device()
        seen["after with"] = _core.current_device()

    try:
        _core.set_current_device(cpu)
        probe = threading.Thread(target=lambda: seen.setdefault("default", _core.current_device()))
        probe.start()
        probe.join()
        default = seen.pop("default")
        _core.set_current_device(gpu if default == cpu else cpu)
        mine = _core.current_device()
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        assert seen == {"at start": default, "inside with": gpu, "after with": default}
        assert _core.current_device() == mine  # the thread's choices stayed its own
    finally:
        _core.set_current_device(previous)
