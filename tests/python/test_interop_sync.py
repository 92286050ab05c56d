"""Synchronisation with a producer's stream, and the lifetime of imported
arrays, on the cpu device (its streams are real asynchronous queues).

A StreamProducer (interop_producers.py) queues a slow write on its own
stream and exports that stream in __cuda_array_interface__; the consumer
kernel runs on another stream. The results must be right in stream-ordered
mode (the default) and host mode; with synchronisation off the race must
show. Spinning kernels are calibrated to run for a fixed time (SPIN_SECONDS),
compiled before anything is timed, and every race assertion first checks
that the producer really was still busy (retrying with a longer spin on a
loaded machine), so a stale value is observed, not merely hoped for.
"""

import gc
import os
import subprocess
import sys
import time
import weakref

import numpy as np
import pytest

import cudajit as cuda
from interop_producers import (
    CaiProducer,
    StreamProducer,
    copy_1d,
    host_view_of,
    slow_copy,
    spin_iterations,
    warm_up_kernels,
)

# the producer puts host memory behind __cuda_array_interface__:
# they run on the cpu device, also where a GPU is present.
pytestmark = pytest.mark.usefixtures("on_cpu_device", "restore_interop_config")

SPIN_SECONDS = 0.4
N = 16
HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(cuda.__file__)))


@pytest.fixture(scope="module")
def spin():
    """Iterations of the spinning kernels that take about SPIN_SECONDS; every
    kernel the tests launch is compiled first."""
    warm_up_kernels()
    return spin_iterations(SPIN_SECONDS)


@pytest.fixture(scope="module")
def long_spin(spin):
    """Iterations that take about 1.5 s: for the tests that must still find the kernel
    running after gc.collect(), which takes a while in a process that has run the whole
    suite on a loaded machine."""
    return int(spin * 1.5 / SPIN_SECONDS)


def seen(device_array):
    """What a kernel wrote to `device_array`, read without any stream wait (the
    caller synchronised the stream that wrote it)."""
    return host_view_of(device_array).copy()


def race(launch_consumer, spin, attempts=3):
    """Runs: a producer slow-writes 1.0 over 0.0 on its stream, then
    `launch_consumer(producer, out, consumer_stream)` queues a kernel that
    copies it. Returns what the consumer read, from an attempt where the
    producer was provably still writing when the consumer had finished (the
    spin grows 4x per attempt until that holds)."""
    iterations = spin
    for _ in range(attempts):
        p = StreamProducer(np.zeros(N))
        out = cuda.to_device(np.full(N, -1.0))
        s2 = cuda.stream()
        p.slow_fill(1.0, iterations)
        launch_consumer(p, out, s2)
        s2.synchronize()
        producer_still_busy = not p.stream.query()
        values = seen(out)
        p.stream.synchronize()
        np.testing.assert_array_equal(p.values(), 1.0)  # the producer's write did land
        if producer_still_busy:
            return values
        iterations *= 4
    pytest.fail("the producer's slow write never outlasted the consumer kernel; "
                "the machine is too loaded to observe the race")


def ordered(launch_consumer, spin):
    """As race(), with synchronisation on: returns (what the consumer read,
    whether the producer was still busy when the launch returned)."""
    p = StreamProducer(np.zeros(N))
    out = cuda.to_device(np.full(N, -1.0))
    s2 = cuda.stream()
    p.slow_fill(1.0, spin)
    launch_consumer(p, out, s2)
    producer_busy_after_launch = not p.stream.query()
    s2.synchronize()
    values = seen(out)
    p.stream.synchronize()
    return values, producer_busy_after_launch


def kernel_on_producer(p, out, s2):
    copy_1d[1, N, s2](p, out)


# --- stream-ordered mode (the default) ------------------------------------------------------------


def test_the_default_mode_is_stream_ordered():
    assert cuda.config.CUDA_ARRAY_INTERFACE_SYNC is True
    assert cuda.config.CUDA_ARRAY_INTERFACE_SYNC_MODE == "stream"


def test_stream_ordered_mode_reads_the_producers_write(spin):
    values, busy = ordered(kernel_on_producer, spin)
    assert busy, "the launch waited on the host for the producer"
    np.testing.assert_array_equal(values, 1.0)


def test_stream_ordered_mode_does_not_block_the_host(spin):
    p = StreamProducer(np.zeros(N))
    out = cuda.device_array(N)
    s2 = cuda.stream()
    p.slow_fill(1.0, spin)
    t0 = time.perf_counter()
    copy_1d[1, N, s2](p, out)
    launched = time.perf_counter() - t0
    producer_busy = not p.stream.query()
    s2.synchronize()
    finished = time.perf_counter() - t0
    assert producer_busy
    assert launched < finished / 4, (launched, finished)
    np.testing.assert_array_equal(seen(out), 1.0)


def test_the_producers_later_work_waits_for_the_consumer(spin):
    # The CAI v3 condition: nothing queued on the producer's stream after the
    # launch may run before the consumer's kernel is done.
    p = StreamProducer(np.ones(N))
    out = cuda.to_device(np.full(N, -1.0))
    s2 = cuda.stream()
    slow_copy[1, 1, s2](p, out, spin)  # reads x late
    p.fill(2.0)  # the producer overwrites x on its own stream
    p.stream.synchronize()
    # Once the producer's stream is done, the consumer's kernel is done too
    # (its result is there without waiting for its stream), and it read x
    # before the overwrite.
    np.testing.assert_array_equal(seen(out), 1.0)
    np.testing.assert_array_equal(p.values(), 2.0)
    s2.synchronize()
    np.testing.assert_array_equal(seen(out), 1.0)


def test_without_synchronisation_the_producers_later_work_overtakes_the_consumer(spin):
    # The control for the test above: the ordering there is cudajit's doing.
    cuda.config.CUDA_ARRAY_INTERFACE_SYNC = False
    iterations = spin
    for _ in range(3):
        p = StreamProducer(np.ones(N))
        out = cuda.to_device(np.full(N, -1.0))
        s2 = cuda.stream()
        slow_copy[1, 1, s2](p, out, iterations)
        p.fill(2.0)
        p.stream.synchronize()
        consumer_still_busy = not s2.query()
        s2.synchronize()
        if consumer_still_busy:
            np.testing.assert_array_equal(seen(out), 2.0)
            return
        iterations *= 4
    pytest.fail("the consumer kernel never outlasted the producer's overwrite")


def test_a_launch_on_the_producers_own_stream_is_in_order(spin):
    p = StreamProducer(np.zeros(N))
    out = cuda.device_array(N)
    p.slow_fill(1.0, spin)
    copy_1d[1, N, p.stream](p, out)
    assert not p.stream.query()
    p.stream.synchronize()
    np.testing.assert_array_equal(seen(out), 1.0)


def test_a_launch_on_the_legacy_default_stream(spin):
    p = StreamProducer(np.zeros(N))
    out = cuda.device_array(N)
    p.slow_fill(1.0, spin)
    copy_1d[1, N](p, out)
    cuda.synchronize()
    np.testing.assert_array_equal(seen(out), 1.0)


def test_a_producer_on_the_legacy_default_stream_and_a_created_stream(spin):
    # CuPy's arrays on its default stream say stream 1. CUDA orders the legacy default
    # stream and a created (blocking) stream both ways, so no event is needed: the kernel
    # still reads the producer's write, and the producer's later work waits for the kernel.
    p = StreamProducer(np.zeros(N), stream=cuda.legacy_default_stream())
    p.entries["stream"] = 1
    out = cuda.device_array(N)
    s2 = cuda.stream()
    p.slow_fill(1.0, spin)
    copy_1d[1, N, s2](p, out)
    p.fill(2.0)
    s2.synchronize()
    np.testing.assert_array_equal(seen(out), 1.0)
    np.testing.assert_array_equal(p.values(), 2.0)


@cuda.jit
def add_1d(x, y, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = x[i] + y[i]


def test_two_producers_on_two_streams(spin):
    p, q = StreamProducer(np.zeros(N)), StreamProducer(np.zeros(N))
    out = cuda.device_array(N)
    s3 = cuda.stream()
    add_1d[1, N, s3](p, q, out)  # compile
    s3.synchronize()
    p.slow_fill(1.0, spin // 2)
    q.slow_fill(10.0, spin)
    add_1d[1, N, s3](p, q, out)
    assert not q.stream.query()
    s3.synchronize()
    np.testing.assert_array_equal(seen(out), 11.0)


def test_two_arrays_of_one_producer_stream(spin):
    # The producer's stream is ordered once for both arrays.
    s1, s3 = cuda.stream(), cuda.stream()
    p, q = StreamProducer(np.zeros(N), stream=s1), StreamProducer(np.zeros(N), stream=s1)
    out = cuda.device_array(N)
    add_1d[1, N, s3](p, q, out)  # compile
    s3.synchronize()
    p.slow_fill(1.0, spin // 2)
    q.slow_fill(10.0, spin // 2)
    add_1d[1, N, s3](p, q, out)
    q.fill(0.0)  # later work of the producer waits for the kernel
    s3.synchronize()
    np.testing.assert_array_equal(seen(out), 11.0)
    np.testing.assert_array_equal(q.values(), 0.0)


def test_a_view_from_as_cuda_array_is_ordered_after_the_producer(spin):
    def through_view(p, out, s2):
        view = cuda.as_cuda_array(p)
        assert view.stream == p.stream
        copy_1d[1, N, s2](view, out)

    values, busy = ordered(through_view, spin)
    assert busy, "as_cuda_array or the launch waited on the host"
    np.testing.assert_array_equal(values, 1.0)


def test_a_view_from_from_cuda_array_interface_is_ordered_after_the_producer(spin):
    def through_desc(p, out, s2):
        view = cuda.from_cuda_array_interface(p.__cuda_array_interface__, owner=p)
        copy_1d[1, N, s2](view, out)

    values, busy = ordered(through_desc, spin)
    assert busy
    np.testing.assert_array_equal(values, 1.0)


def test_a_view_copies_on_the_producers_stream(spin):
    p = StreamProducer(np.zeros(N))
    p.slow_fill(1.0, spin)
    view = cuda.as_cuda_array(p)
    np.testing.assert_array_equal(view.copy_to_host(), 1.0)


# --- host mode (Numba's behaviour) ----------------------------------------------------------------


def test_host_mode_reads_the_producers_write(spin):
    cuda.config.CUDA_ARRAY_INTERFACE_SYNC_MODE = "host"
    values, busy = ordered(kernel_on_producer, spin)
    assert not busy, "host mode returned from the launch before the producer's stream was done"
    np.testing.assert_array_equal(values, 1.0)


def test_host_mode_blocks_the_launch_until_the_producer_is_done(spin):
    cuda.config.CUDA_ARRAY_INTERFACE_SYNC_MODE = "host"
    p = StreamProducer(np.zeros(N))
    out = cuda.device_array(N)
    s2 = cuda.stream()
    p.slow_fill(1.0, spin)
    t0 = time.perf_counter()
    copy_1d[1, N, s2](p, out)
    launched = time.perf_counter() - t0
    assert p.stream.query()
    s2.synchronize()
    finished = time.perf_counter() - t0
    assert launched > finished / 2, (launched, finished)
    np.testing.assert_array_equal(seen(out), 1.0)


def test_host_mode_synchronises_when_as_cuda_array_makes_the_view(spin):
    cuda.config.CUDA_ARRAY_INTERFACE_SYNC_MODE = "host"
    p = StreamProducer(np.zeros(N))
    p.slow_fill(1.0, spin)
    view = cuda.as_cuda_array(p)
    assert p.stream.query()
    assert view.stream == p.stream
    np.testing.assert_array_equal(seen(view), 1.0)


# --- synchronisation off: the race shows ----------------------------------------------------------


def test_with_synchronisation_off_the_kernel_sees_the_old_values(spin):
    cuda.config.CUDA_ARRAY_INTERFACE_SYNC = False
    np.testing.assert_array_equal(race(kernel_on_producer, spin), 0.0)


def test_synchronisation_off_overrides_host_mode(spin):
    cuda.config.CUDA_ARRAY_INTERFACE_SYNC_MODE = "host"
    cuda.config.CUDA_ARRAY_INTERFACE_SYNC = False
    np.testing.assert_array_equal(race(kernel_on_producer, spin), 0.0)


def test_as_cuda_array_with_sync_false_shows_the_race(spin):
    def unsynchronised_view(p, out, s2):
        view = cuda.as_cuda_array(p, sync=False)
        assert view.stream == 0
        copy_1d[1, N, s2](view, out)

    np.testing.assert_array_equal(race(unsynchronised_view, spin), 0.0)


def test_from_cuda_array_interface_with_sync_false_shows_the_race(spin):
    def unsynchronised_view(p, out, s2):
        view = cuda.from_cuda_array_interface(p.__cuda_array_interface__, owner=p, sync=False)
        copy_1d[1, N, s2](view, out)

    np.testing.assert_array_equal(race(unsynchronised_view, spin), 0.0)


def test_synchronisation_can_be_turned_back_on(spin):
    cuda.config.CUDA_ARRAY_INTERFACE_SYNC = False
    cuda.config.CUDA_ARRAY_INTERFACE_SYNC = True
    values, busy = ordered(kernel_on_producer, spin)
    assert busy
    np.testing.assert_array_equal(values, 1.0)


# --- configuration --------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["bogus", "off", "Stream", "", None, 1])
def test_an_invalid_sync_mode_is_a_value_error(value):
    with pytest.raises(ValueError, match=r"CUDA_ARRAY_INTERFACE_SYNC_MODE must be 'stream' or "
                                         r"'host', got "):
        cuda.config.CUDA_ARRAY_INTERFACE_SYNC_MODE = value
    assert cuda.config.CUDA_ARRAY_INTERFACE_SYNC_MODE == "stream"


def test_an_unknown_setting_is_an_attribute_error():
    with pytest.raises(AttributeError, match="cudajit.config has no setting "
                                             "'CUDA_ARRAY_INTERFACE_SYNCH'"):
        cuda.config.CUDA_ARRAY_INTERFACE_SYNCH = False


def test_settings_read_back():
    cuda.config.CUDA_ARRAY_INTERFACE_SYNC = 0
    assert cuda.config.CUDA_ARRAY_INTERFACE_SYNC is False
    assert cuda.config.CUDA_ARRAY_INTERFACE_SYNC_MODE == "stream"
    cuda.config.CUDA_ARRAY_INTERFACE_SYNC_MODE = "host"
    assert cuda.config.CUDA_ARRAY_INTERFACE_SYNC is False  # the two are independent
    assert cuda.config.CUDA_ARRAY_INTERFACE_SYNC_MODE == "host"


def _run_python(code, **env_vars):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CUDAJIT_CUDA_ARRAY", "NUMBA_CUDA_ARRAY"))}
    env.update(env_vars)
    env["CUDAJIT_DEVICE"] = "cpu"
    env["PYTHONPATH"] = os.pathsep.join(
        [PACKAGE_ROOT, HERE] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=300)


_PRINT_CONFIG = ("import cudajit; "
                 "print(cudajit.config.CUDA_ARRAY_INTERFACE_SYNC, "
                 "cudajit.config.CUDA_ARRAY_INTERFACE_SYNC_MODE)")


@pytest.mark.parametrize(
    "env, expected",
    [
        ({}, "True stream"),
        ({"CUDAJIT_CUDA_ARRAY_INTERFACE_SYNC": "0"}, "False stream"),
        ({"CUDAJIT_CUDA_ARRAY_INTERFACE_SYNC": "1"}, "True stream"),
        ({"CUDAJIT_CUDA_ARRAY_INTERFACE_SYNC_MODE": "host"}, "True host"),
        ({"CUDAJIT_CUDA_ARRAY_INTERFACE_SYNC_MODE": "stream"}, "True stream"),
        ({"CUDAJIT_CUDA_ARRAY_INTERFACE_SYNC_MODE": "off"}, "False stream"),
        ({"CUDAJIT_CUDA_ARRAY_INTERFACE_SYNC": "0",
          "CUDAJIT_CUDA_ARRAY_INTERFACE_SYNC_MODE": "host"}, "False host"),
        ({"NUMBA_CUDA_ARRAY_INTERFACE_SYNC": "0"}, "False stream"),
        ({"NUMBA_CUDA_ARRAY_INTERFACE_SYNC": "0", "CUDAJIT_CUDA_ARRAY_INTERFACE_SYNC": "1"},
         "True stream"),
    ],
    ids=["unset", "sync-0", "sync-1", "mode-host", "mode-stream", "mode-off", "both",
         "numba-0", "ours-wins-over-numba"],
)
def test_environment_variables_set_the_initial_config(env, expected):
    result = _run_python(_PRINT_CONFIG, **env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == expected


def test_an_invalid_mode_in_the_environment_is_a_value_error():
    result = _run_python(_PRINT_CONFIG, CUDAJIT_CUDA_ARRAY_INTERFACE_SYNC_MODE="bogus")
    assert result.returncode != 0
    assert "ValueError" in result.stderr
    assert "sync mode 'bogus' is not known; expected 'stream', 'host' or 'off'" in result.stderr


def test_the_config_read_from_the_environment_can_be_restored():
    code = ("import cudajit; c = cudajit.config; "
            "sync, mode = c.CUDA_ARRAY_INTERFACE_SYNC, c.CUDA_ARRAY_INTERFACE_SYNC_MODE; "
            "c.CUDA_ARRAY_INTERFACE_SYNC_MODE = mode; c.CUDA_ARRAY_INTERFACE_SYNC = sync; "
            "print('restored')")
    result = _run_python(code, CUDAJIT_CUDA_ARRAY_INTERFACE_SYNC_MODE="off")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "restored"


_BEHAVIOUR = f"""
import numpy as np, cudajit as cuda
from interop_producers import (StreamProducer, copy_1d, host_view_of, spin_iterations,
                               warm_up_kernels)
warm_up_kernels()
iterations = spin_iterations({SPIN_SECONDS})
for attempt in range(3):
    p = StreamProducer(np.zeros(4))
    out = cuda.to_device(np.full(4, -1.0))
    s2 = cuda.stream()
    p.slow_fill(1.0, iterations)
    copy_1d[1, 4, s2](p, out)
    busy_after_launch = not p.stream.query()
    s2.synchronize()
    busy_after_consumer = not p.stream.query()
    values = host_view_of(out).copy()
    cuda.synchronize()
    if busy_after_consumer or not busy_after_launch:
        break
    iterations *= 4
print(busy_after_launch, busy_after_consumer, values[0])
"""


def test_environment_sync_0_turns_synchronisation_off():
    result = _run_python(_BEHAVIOUR, CUDAJIT_CUDA_ARRAY_INTERFACE_SYNC="0")
    assert result.returncode == 0, result.stderr
    # The consumer finished while the producer was still writing: the old value.
    assert result.stdout.split() == ["True", "True", "0.0"]


def test_environment_mode_host_synchronises_on_the_host():
    result = _run_python(_BEHAVIOUR, CUDAJIT_CUDA_ARRAY_INTERFACE_SYNC_MODE="host")
    assert result.returncode == 0, result.stderr
    # The launch returned only once the producer was done.
    assert result.stdout.split() == ["False", "False", "1.0"]


# --- lifetime -------------------------------------------------------------------------------------


def released(ref):
    """Whether the weakly referenced object is gone once cudajit has run the
    releases it defers to its next call (a synchronisation here)."""
    cuda.synchronize()
    gc.collect()
    return ref() is None


def test_as_cuda_array_keeps_the_object_alive_until_the_view_is_gone():
    p = CaiProducer(np.arange(4.0))
    ref = weakref.ref(p)
    view = cuda.as_cuda_array(p)
    del p
    gc.collect()
    assert ref() is not None
    np.testing.assert_array_equal(view.copy_to_host(), np.arange(4.0))
    sub = view[1:]  # a view of the view holds it too
    del view
    assert not released(ref)
    np.testing.assert_array_equal(sub.copy_to_host(), np.arange(1.0, 4.0))
    del sub
    assert released(ref)


def test_from_cuda_array_interface_keeps_the_owner_alive():
    owner = CaiProducer(np.arange(4.0))
    ref = weakref.ref(owner)
    view = cuda.from_cuda_array_interface(owner.__cuda_array_interface__, owner=owner)
    del owner
    assert not released(ref)
    np.testing.assert_array_equal(view.copy_to_host(), np.arange(4.0))
    del view
    assert released(ref)


def test_from_cuda_array_interface_without_an_owner_holds_nothing():
    p = CaiProducer(np.arange(4.0))
    ref = weakref.ref(p)
    keep_memory = p.array
    view = cuda.from_cuda_array_interface(p.__cuda_array_interface__)
    del p
    assert released(ref)
    np.testing.assert_array_equal(view.copy_to_host(), keep_memory)


def test_a_launch_keeps_an_argument_deleted_straight_after_it_alive(long_spin):
    s = cuda.stream()
    out = cuda.device_array(N)
    memory = np.full(N, 7.0)
    p = CaiProducer(memory)  # the producer holds the only reference to the memory
    del memory
    ref, memory_ref = weakref.ref(p), weakref.ref(p.array)
    slow_copy[1, 1, s](p, out, long_spin)
    del p
    gc.collect()
    assert ref() is not None and memory_ref() is not None
    assert not s.query(), "the kernel finished too early to test anything"
    s.synchronize()
    np.testing.assert_array_equal(seen(out), 7.0)  # it read live memory
    assert released(ref) and memory_ref() is None


@cuda.jit
def slow_sum3(a, b, c, out, iterations):
    # As slow_copy: spins, then reads its three arguments late.
    acc = 0.0
    for k in range(iterations):
        acc = acc * 0.5 + 1.0
    for i in range(a.shape[0]):
        out[i] = a[i] + b[i] + c[i] + acc * 0.0


def test_a_launch_keeps_every_argument_deleted_straight_after_it_alive(long_spin):
    # One launch's producers are held together: none may go before the kernel ends.
    s = cuda.stream()
    out = cuda.device_array(N)
    producers = [CaiProducer(np.full(N, v)) for v in (1.0, 2.0, 4.0)]
    refs = [weakref.ref(p) for p in producers]
    slow_sum3[1, 1, s](*[CaiProducer(np.zeros(N)) for _ in range(3)], out, 1)  # compiled
    s.synchronize()
    slow_sum3[1, 1, s](*producers, out, long_spin)
    del producers
    gc.collect()
    assert all(r() is not None for r in refs)
    assert not s.query(), "the kernel finished too early to test anything"
    s.synchronize()
    np.testing.assert_array_equal(seen(out), 7.0)
    assert all(released(r) for r in refs)


def test_a_launch_keeps_a_view_deleted_straight_after_it_alive(long_spin):
    s = cuda.stream()
    out = cuda.device_array(N)
    p = CaiProducer(np.full(N, 5.0))
    ref = weakref.ref(p)
    view = cuda.as_cuda_array(p)
    del p
    slow_copy[1, 1, s](view, out, long_spin)
    del view
    gc.collect()
    assert ref() is not None
    assert not s.query()
    s.synchronize()
    np.testing.assert_array_equal(seen(out), 5.0)
    assert released(ref)


def test_arguments_of_many_launches_are_all_released(spin):
    s = cuda.stream()
    out = cuda.device_array(N)
    refs = []
    for k in range(20):
        p = CaiProducer(np.full(N, float(k)))
        refs.append(weakref.ref(p))
        copy_1d[1, N, s](p, out)
        del p
    s.synchronize()
    np.testing.assert_array_equal(seen(out), 19.0)
    cuda.synchronize()
    gc.collect()
    assert all(r() is None for r in refs)
