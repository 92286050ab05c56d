"""The device's queue of pending deallocations (numba-cuda's deferred deallocation): memory
whose last reference went waits in it and is freed in batches, past config.CUDA_DEALLOCS_COUNT
allocations or config.CUDA_DEALLOCS_RATIO of the device's memory, at clear(), or when an
allocation fails for lack of memory; cuda.defer_cleanup() holds it back."""

import contextlib

import numpy as np
import pytest

import cudajit as cuda


@contextlib.contextmanager
def limits(count=None, ratio=None):
    """config.CUDA_DEALLOCS_COUNT / CUDA_DEALLOCS_RATIO set for the block."""
    old = cuda.config.CUDA_DEALLOCS_COUNT, cuda.config.CUDA_DEALLOCS_RATIO
    try:
        if count is not None:
            cuda.config.CUDA_DEALLOCS_COUNT = count
        if ratio is not None:
            cuda.config.CUDA_DEALLOCS_RATIO = ratio
        yield
    finally:
        cuda.config.CUDA_DEALLOCS_COUNT, cuda.config.CUDA_DEALLOCS_RATIO = old


@pytest.fixture
def deallocs(device):
    queue = cuda.current_context().deallocations
    queue.clear()
    assert len(queue) == 0 and queue._size == 0
    yield queue
    queue.clear()


def used_bytes():
    info = cuda.current_context().get_memory_info()
    return info.total - info.free


def test_a_dropped_device_array_waits_in_the_queue_and_clear_frees_it(deallocs, device):
    array = cuda.device_array(1 << 20, dtype=np.uint8)
    assert len(deallocs) == 0
    del array
    assert len(deallocs) == 1 and deallocs._size == 1 << 20
    if device == "cuda":  # the simulated GPU (or the GPU) counts its memory
        before = used_bytes()
        deallocs.clear()
        assert before - used_bytes() >= 1 << 20
    else:
        deallocs.clear()
    assert len(deallocs) == 0 and deallocs._size == 0


def test_the_queue_frees_itself_past_the_count(deallocs):
    for i in range(cuda.config.CUDA_DEALLOCS_COUNT):
        cuda.to_device(np.arange(1))
        assert len(deallocs) == i + 1
    cuda.to_device(np.arange(1))
    assert len(deallocs) == 0


def test_the_count_is_a_setting(deallocs):
    with limits(count=2):
        cuda.to_device(np.arange(1))
        cuda.to_device(np.arange(1))
        assert len(deallocs) == 2
        cuda.to_device(np.arange(1))
        assert len(deallocs) == 0


def test_the_queue_frees_itself_past_its_share_of_the_memory(deallocs):
    capacity = deallocs.memory_capacity
    assert capacity == cuda.current_context().get_memory_info().total
    with limits(ratio=10_000 / capacity):
        assert abs(deallocs._max_pending_bytes - 10_000) <= 1
        cuda.to_device(np.ones(5_000, dtype=np.int8))
        cuda.to_device(np.ones(deallocs._max_pending_bytes - deallocs._size, dtype=np.int8))
        assert len(deallocs) == 2 and deallocs._size == deallocs._max_pending_bytes
        cuda.to_device(np.ones(1, dtype=np.int8))
        assert len(deallocs) == 0


def test_defer_cleanup_holds_releases_back_until_its_block_ends(deallocs):
    with cuda.defer_cleanup():
        assert deallocs.is_disabled
        for _ in range(cuda.config.CUDA_DEALLOCS_COUNT + 5):  # past the count: no flush
            cuda.to_device(np.arange(3))
        deallocs.clear()
        assert len(deallocs) == cuda.config.CUDA_DEALLOCS_COUNT + 5
    assert not deallocs.is_disabled
    deallocs.clear()
    assert len(deallocs) == 0


def test_defer_cleanup_nests_and_ends_on_an_exception(deallocs):
    with pytest.raises(KeyError):
        with cuda.defer_cleanup():
            with cuda.defer_cleanup():
                cuda.to_device(np.arange(3))
            deallocs.clear()
            assert len(deallocs) == 1
            raise KeyError("out")
    deallocs.clear()
    assert len(deallocs) == 0


def test_an_allocation_that_finds_no_memory_frees_the_queue_first(deallocs, device):
    if device != "cuda" or "simulated" in cuda.get_current_device().name:
        pytest.skip("a real GPU's memory only: the cpu device's is the host's, which "
                    "overcommits, and the simulated GPU's 16 GiB would be the host's too")
    free = cuda.current_context().get_memory_info().free
    big = (free * 3 // 5) & ~0xFFFF
    with limits(ratio=1.0):
        array = cuda.device_array(big, dtype=np.uint8)
        del array
        assert len(deallocs) == 1
        again = cuda.device_array(big, dtype=np.uint8)  # fits once the first is freed
        assert len(deallocs) == 0
        del again


def test_the_settings_refuse_what_is_not_a_count_or_ratio():
    with pytest.raises(ValueError, match="CUDA_DEALLOCS_COUNT must be an int >= 0, got -1"):
        cuda.config.CUDA_DEALLOCS_COUNT = -1
    with pytest.raises(ValueError, match="CUDA_DEALLOCS_RATIO must be a number >= 0, got 'x'"):
        cuda.config.CUDA_DEALLOCS_RATIO = "x"
    assert cuda.config.CUDA_DEALLOCS_COUNT == 10 and cuda.config.CUDA_DEALLOCS_RATIO == 0.2
