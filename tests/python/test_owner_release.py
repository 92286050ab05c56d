"""The object behind an imported array goes when its last view does (issue 28 §6): the
owner of cuda.as_cuda_array(obj) and of cuda.from_cuda_array_interface(desc, owner=obj)
is released as the view dies, on any thread, without waiting for the next call into
cudajit. A view a queued kernel still uses is released by the stream's worker when the
kernel is done: the main thread drops the owner at its next bytecode."""

import gc
import threading
import time
import weakref

import numpy as np
import pytest

import cudajit as cuda
from interop_producers import CaiProducer, slow_fill, spin_iterations


class DeviceOwner:
    """Exports the CUDA Array Interface of a device array it owns (the cuda device)."""

    def __init__(self, n: int):
        self.inner = cuda.device_array(n)

    @property
    def __cuda_array_interface__(self) -> dict:
        return self.inner.__cuda_array_interface__


def make_owner(device: str):
    return CaiProducer(np.zeros(16)) if device == "cpu" else DeviceOwner(16)


def test_as_cuda_array_releases_its_owner_with_the_view(device):
    owner = make_owner(device)
    ref = weakref.ref(owner)
    view = cuda.as_cuda_array(owner)
    del owner
    assert ref() is not None  # the view holds it
    del view
    assert ref() is None


def test_from_cuda_array_interface_releases_its_owner_with_the_view(device):
    owner = make_owner(device)
    ref = weakref.ref(owner)
    view = cuda.from_cuda_array_interface(owner.__cuda_array_interface__, owner=owner)
    del owner
    del view
    assert ref() is None


def test_a_view_dying_on_another_thread_releases_its_owner(device):
    owner = make_owner(device)
    ref = weakref.ref(owner)
    views = [cuda.as_cuda_array(owner)]
    del owner
    worker = threading.Thread(target=views.clear)
    worker.start()
    worker.join()
    assert ref() is None


def test_a_view_a_queued_kernel_used_releases_its_owner_when_the_kernel_is_done():
    from cudajit import _core

    previous = _core.current_device()
    _core.set_current_device(_core.cpu_device())
    try:
        stream = cuda.stream()
        owner = CaiProducer(np.zeros(16))
        ref = weakref.ref(owner)
        slow_fill[1, 1, stream](cuda.as_cuda_array(owner), 1.0, 1)  # compiled
        stream.synchronize()
        slow_fill[1, 1, stream](cuda.as_cuda_array(owner), 2.0, spin_iterations(0.05))
        del owner
        gc.collect()
        # No call into cudajit from here: the worker's release reaches the main thread.
        deadline = time.monotonic() + 10
        while ref() is not None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert ref() is None
    finally:
        _core.set_current_device(previous)
