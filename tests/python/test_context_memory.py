"""numba.cuda's context objects on every device: cuda.current_context()'s memalloc,
memhostalloc, memallocmanaged, mempin, create_stream and create_event; its deallocations
queue (cuda.defer_cleanup holds it back); its memory manager and the EMM plugin interface
(the version check, then a clear refusal); the driver's raw memory helpers."""

import ctypes
import gc

import numpy as np
import pytest

import cudajit as cuda
from cudajit.cudadrv import driver, memory


def test_memalloc_gives_device_memory_that_the_raw_helpers_fill_and_read(device):
    ctx = cuda.current_context()
    mem = ctx.memalloc(64)
    assert isinstance(mem, cuda.MemoryPointer) and mem.size == 64
    assert mem.device_pointer_value == mem.device_ctypes_pointer.value != 0
    mem.memset(7)
    out = np.zeros(64, np.uint8)
    driver.device_to_host(out, mem, 64)
    assert (out == 7).all()
    driver.host_to_device(mem, np.arange(64, dtype=np.uint8), 64)
    driver.device_to_host(out, mem.view(8, 16), 8)
    assert out[:8].tolist() == list(range(8, 16))
    assert driver.device_memory_size(mem) == 64


def test_memhostalloc_mapped_is_a_numpy_buffer_the_device_writes(device):
    ctx = cuda.current_context()
    mem = ctx.memhostalloc(32, mapped=True)
    assert isinstance(mem, cuda.MappedMemory)
    ary = np.ndarray(32, dtype=np.uint8, buffer=mem)
    driver.device_memset(mem, 0xAB, 32)
    assert (ary == 0xAB).all()
    ary.fill(5)
    recv = np.empty_like(ary)
    driver.device_to_host(recv, mem, 32)
    assert (recv == 5).all()


def test_memhostalloc_without_mapping_is_pinned_memory(device):
    mem = cuda.current_context().memhostalloc(16)
    assert isinstance(mem, cuda.PinnedMemory) and not isinstance(mem, cuda.MappedMemory)
    ary = np.ndarray(4, dtype=np.int32, buffer=mem)
    ary[:] = [1, 2, 3, 4]
    assert bytes(mem)[:4] == np.int32(1).tobytes()


def test_memallocmanaged_is_used_in_place_by_host_and_device(device):
    mem = cuda.current_context().memallocmanaged(16, attach_global=False)
    assert isinstance(mem, cuda.ManagedMemory)
    ary = np.ndarray(16, dtype=np.uint8, buffer=mem)
    driver.device_memset(mem, 3, 16)
    assert (ary == 3).all()


def test_device_memset_takes_device_arrays_and_mapped_arrays(device):
    d = cuda.to_device(np.arange(4, dtype=np.int32))
    driver.device_memset(d, 0, driver.device_memory_size(d))
    assert d.copy_to_host().tolist() == [0, 0, 0, 0]
    mapped = cuda.mapped_array(10, dtype=np.uint32)
    mapped.fill(123)
    driver.device_memset(mapped, 0, driver.device_memory_size(mapped))
    assert (mapped == 0).all()


def test_the_raw_helpers_refuse_what_is_not_device_memory(device):
    with pytest.raises(TypeError, match="Not a CUDA memory object"):
        driver.device_memset(np.zeros(4), 0, 4)
    with pytest.raises(ValueError, match="16 bytes asked of device memory of 8"):
        driver.device_memset(cuda.current_context().memalloc(8), 0, 16)


@pytest.fixture
def without_gc():
    """No garbage collection while a test counts the queue: a collection then would queue
    the memory of an earlier test's unreachable arrays too."""
    gc.collect()
    gc.disable()
    yield
    gc.enable()


def test_released_memory_waits_in_the_deallocations_queue(device, without_gc):
    ctx = cuda.current_context()
    deallocs = ctx.deallocations
    deallocs.clear()
    mem = ctx.memalloc(32)
    del mem
    assert len(deallocs) == 1
    deallocs.clear()
    assert len(deallocs) == 0


def test_defer_cleanup_holds_the_queue_back_until_the_block_ends(device, without_gc):
    ctx = cuda.current_context()
    deallocs = ctx.deallocations
    deallocs.clear()
    with cuda.defer_cleanup():
        with cuda.defer_cleanup():
            host = ctx.memhostalloc(8)
            del host
            deallocs.clear()
            assert len(deallocs) == 1
        deallocs.clear()
        assert len(deallocs) == 1
    deallocs.clear()
    assert len(deallocs) == 0


def test_the_queue_flushes_itself_past_its_count(device, without_gc):
    ctx = cuda.current_context()
    deallocs = ctx.deallocations
    deallocs.clear()
    for i in range(cuda.config.CUDA_DEALLOCS_COUNT):
        ctx.memalloc(1)
        assert len(deallocs) == i + 1
    ctx.memalloc(1)
    assert len(deallocs) == 0


def test_mempin_pins_a_host_range_until_released(device):
    ctx = cuda.current_context()
    arr = np.zeros(8)
    pinned = ctx.mempin(arr, arr.ctypes.data, arr.nbytes)
    assert isinstance(pinned, cuda.PinnedMemory) and pinned.size == arr.nbytes
    del pinned
    ctx.deallocations.clear()
    with cuda.pinned(arr):  # the range can be pinned again
        pass
    with pytest.raises(NotImplementedError, match="without mapping"):
        ctx.mempin(arr, ctypes.c_void_p(arr.ctypes.data), arr.nbytes, mapped=True)


def test_context_streams_and_events_are_the_devices(device):
    ctx = cuda.current_context()
    assert isinstance(ctx.create_stream(), cuda.Stream)
    event = ctx.create_event(timing=False)
    assert isinstance(event, cuda.Event)
    assert ctx == cuda.current_context()


def test_the_memory_manager_is_one_per_device_and_reports_memory(device):
    ctx = cuda.current_context()
    manager = ctx.memory_manager
    assert manager is cuda.current_context().memory_manager
    assert manager.interface_version == 1
    info = ctx.get_memory_info()
    assert 0 < info.free <= info.total
    ctx.memory_manager = manager  # setting its own manager back is allowed
    with pytest.raises(NotImplementedError, match="IPC"):
        ctx.get_ipc_handle(ctx.memalloc(8))


class _Plugin(cuda.HostOnlyCUDAMemoryManager):
    def initialize(self):
        pass

    @property
    def interface_version(self):
        return 1


class _OtherVersion(_Plugin):
    @property
    def interface_version(self):
        return 2


def test_a_plugin_of_another_interface_version_is_refused_as_numba_does():
    with pytest.raises(RuntimeError, match="version 1 required"):
        cuda.set_memory_manager(_OtherVersion)


def test_a_memory_manager_plugin_cannot_serve_the_cpu_device():
    from cudajit import _core

    ctx = cuda.api.Context(_core.cpu_device())
    with pytest.raises(NotImplementedError, match="_Plugin cannot serve the cpu device: EMM "
                                                  "plugins allocate GPU memory"):
        ctx.memory_manager = _Plugin(context=ctx)
    assert type(ctx.memory_manager) is memory.NumbaCUDAMemoryManager


@cuda.jit
def _add_one(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


def test_mapped_gives_device_arrays_that_kernels_write_in_place(device):
    host = np.arange(10.0)
    with cuda.mapped(host) as d:
        assert isinstance(d, cuda.DeviceNDArray) and d.shape == (10,)
        _add_one[1, 32](d)
        cuda.synchronize()
    np.testing.assert_array_equal(host, np.arange(10.0) + 1)


def test_mapped_of_several_arrays_yields_a_list_and_unmaps_on_an_exception(device):
    a, b = np.zeros(4, np.int32), np.zeros(3)
    with pytest.raises(KeyError):
        with cuda.mapped(a, b) as views:
            assert [v.shape for v in views] == [(4,), (3,)]
            raise KeyError("out")
    with cuda.mapped(a) as d:  # unmapped at the exception: mapped again
        _add_one[1, 32](d)
        cuda.synchronize()
    assert a.tolist() == [1, 1, 1, 1]
    with pytest.raises(TypeError, match="cuda.mapped\\(\\) maps NumPy arrays, got list"):
        with cuda.mapped([1, 2]):
            pass
