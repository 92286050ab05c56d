"""Host-visible views of a cpu-device array see the work queued before them (issue 28 §2).

DLPack on kDLCPU hands over no stream, so ``__dlpack__`` waits for the array's pending
work (its stream's, else the legacy default stream's) before it returns; so do the other
host views (``np.asarray``, a scalar read, ``copy_to_host()``)."""

import numpy as np
import pytest

import cudajit as cuda
from interop_producers import slow_fill, spin_iterations, warm_up_kernels

pytestmark = pytest.mark.usefixtures("on_cpu_device")


@pytest.fixture(scope="module")
def iterations():
    warm_up_kernels()
    return spin_iterations(0.02)  # the write lands some 20 ms after the launch


@pytest.mark.parametrize("on_stream", [False, True], ids=["legacy", "stream"])
def test_dlpack_export_waits_for_the_arrays_queued_work(iterations, on_stream):
    stream = cuda.stream() if on_stream else 0
    for attempt in range(10):
        d = cuda.device_array(256, stream=stream)
        d.copy_to_device(np.zeros(256))
        slow_fill[1, 1, stream](d, float(attempt + 1), iterations)
        host = np.from_dlpack(d)
        assert (host == attempt + 1).all(), f"try {attempt}: stale data {host[:4]}"


def test_legacy_capsule_export_waits_too(iterations):
    d = cuda.device_array(256)
    d.copy_to_device(np.zeros(256))
    slow_fill[1, 1](d, 3.0, iterations)
    capsule = d.__dlpack__()  # no max_version: a legacy capsule
    assert (np.from_dlpack(_Capsule(capsule)) == 3.0).all()


def test_the_other_host_views_wait_too(iterations):
    stream = cuda.stream()
    d = cuda.device_array(256, stream=stream)
    d.copy_to_device(np.zeros(256))
    slow_fill[1, 1, stream](d, 5.0, iterations)
    assert (np.asarray(d) == 5.0).all()
    slow_fill[1, 1, stream](d, 6.0, iterations)
    assert d[255] == 6.0
    slow_fill[1, 1, stream](d, 7.0, iterations)
    assert (d.copy_to_host() == 7.0).all()


class _Capsule:
    """Hands NumPy a capsule made beforehand, as a producer's __dlpack__ would."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)
