"""External Memory Management plugins (numba's EMM interface) on a GPU: once installed
(``Context.memory_manager = plugin`` or ``cuda.set_memory_manager(cls)``), the plugin's
memalloc gives the memory of device arrays and of a launch's copies; the runtime holds the
plugin's memory object while it uses the memory and drops it when released."""

import weakref

import numpy as np
import pytest

import cudajit as cuda
from cudajit.cudadrv import memory


class CountingPlugin(cuda.HostOnlyCUDAMemoryManager):
    """A plugin whose memory is cudajit's own underneath (so kernels can use it), counting
    what it gave and what was freed."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.live = {}
        self.count = 0
        self.initialized = self.reset_called = False

    def memalloc(self, size):
        backing = memory.NumbaCUDAMemoryManager(context=self.context).memalloc(size)
        self.count += 1
        number, live = self.count, self.live
        live[number] = size

        def finalizer():
            del live[number]
        pointer = cuda.cudadrv.driver.AutoFreePointer(weakref.proxy(self.context),
                                                      backing.device_pointer, size,
                                                      finalizer=finalizer)
        pointer.backing = backing
        return pointer

    def initialize(self):
        self.initialized = True

    def reset(self):
        self.reset_called = True

    def get_memory_info(self):
        return cuda.MemoryInfo(free=32, total=64)

    def get_ipc_handle(self, memory):
        return f"handle of {memory.device_pointer_value:#x}"

    @property
    def interface_version(self):
        return 1


@pytest.fixture
def plugin(on_gpu_device):
    ctx = cuda.current_context()
    own = ctx.memory_manager
    installed = CountingPlugin(context=ctx)
    ctx.memory_manager = installed
    yield installed
    ctx.memory_manager = own
    assert cuda.current_context().memory_manager is own


@cuda.jit
def add_one(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


def test_device_arrays_come_from_the_plugin_and_free_when_dropped(plugin):
    assert plugin.initialized and cuda.current_context().memory_manager is plugin
    a = cuda.device_array(10, dtype=np.int64)
    b = cuda.to_device(np.arange(5.0))
    assert plugin.live == {1: 80, 2: 40}
    add_one[1, 32](b)
    np.testing.assert_array_equal(b.copy_to_host(), np.arange(5.0) + 1)
    del a
    assert plugin.live == {2: 40}  # freed at once: not held in the deallocation queue
    del b
    assert plugin.live == {}


def test_a_launchs_copies_of_numpy_arrays_come_from_the_plugin(plugin):
    host = np.arange(6.0)
    add_one[1, 32](host)
    np.testing.assert_array_equal(host, np.arange(6.0) + 1)
    assert plugin.count == 1 and plugin.live == {}  # the copy, released after the launch


def test_the_context_asks_the_plugin(plugin):
    ctx = cuda.current_context()
    assert ctx.get_memory_info() == (32, 64)
    ctx.reset()
    assert plugin.reset_called
    d = cuda.device_array(4)
    handle = d.get_ipc_handle()
    assert handle._ipc_handle == f"handle of {d.device_ctypes_pointer.value:#x}"
    assert handle._array_desc["shape"] == (4,)


def test_the_own_manager_back_allocates_as_before(on_gpu_device):
    ctx = cuda.current_context()
    own = ctx.memory_manager
    plugin = CountingPlugin(context=ctx)
    ctx.memory_manager = plugin
    ctx.memory_manager = own
    d = cuda.to_device(np.arange(3))
    assert plugin.count == 0 and d.copy_to_host().tolist() == [0, 1, 2]
    with pytest.raises(NotImplementedError, match="does not offer CUDA IPC"):
        d.get_ipc_handle()


def test_set_memory_manager_installs_the_plugin_on_the_gpus(on_gpu_device):
    try:
        cuda.set_memory_manager(CountingPlugin)
        manager = cuda.current_context().memory_manager
        assert isinstance(manager, CountingPlugin) and manager.initialized
        cuda.device_array(3)
        assert manager.count == 1
    finally:
        cuda.set_memory_manager(memory.NumbaCUDAMemoryManager)
    assert type(cuda.current_context().memory_manager) is memory.NumbaCUDAMemoryManager


def test_a_plugin_whose_memalloc_returns_no_memory_pointer_is_named(plugin):
    plugin.memalloc = lambda size: "not memory"
    with pytest.raises(TypeError, match=r"memalloc\(8\) returned str, expected a "
                                        r"MemoryPointer"):
        cuda.device_array(1)
