"""Mapped and managed arrays (cuda.mapped_array, cuda.managed_array) are NumPy arrays that
export ``__cuda_array_interface__`` on a GPU, as Numba's MappedNDArray and ManagedNDArray:
the device's address of the memory and the stream they were made with."""

import numpy as np
import pytest

import cudajit as cuda

MAKERS = {"mapped": cuda.mapped_array, "managed": cuda.managed_array}


@pytest.mark.parametrize("kind", MAKERS)
def test_made_without_a_stream_the_interface_has_no_stream(on_gpu_device, kind):
    a = MAKERS[kind](10)
    assert isinstance(a, np.ndarray)
    desc = a.__cuda_array_interface__
    assert desc["stream"] is None and desc["shape"] == (10,) and desc["strides"] is None
    assert desc["data"] == (a.device_ctypes_pointer.value, False) and desc["typestr"] == "<f8"
    assert a.stream == 0


@pytest.mark.parametrize("kind", MAKERS)
def test_made_with_a_stream_the_interface_names_it(on_gpu_device, kind):
    s = cuda.stream()
    a = MAKERS[kind](10, stream=s)
    assert a.__cuda_array_interface__["stream"] == int(s.handle)
    assert a.stream is s


@pytest.mark.parametrize("kind", MAKERS)
def test_a_view_exports_its_own_address_and_a_computed_array_none(on_gpu_device, kind):
    a = MAKERS[kind]((4, 5), dtype=np.int32)
    view = a[1:, ::2]
    base = a.__cuda_array_interface__["data"][0]
    desc = view.__cuda_array_interface__
    assert desc["data"][0] == base + 5 * 4 and desc["strides"] == (20, 8)
    computed = a + 1  # new, ordinary memory: not the device's
    assert not cuda.is_cuda_array(computed)
    with pytest.raises(AttributeError, match="not in mapped or managed memory"):
        computed.__cuda_array_interface__


@pytest.mark.parametrize("kind", MAKERS)
def test_another_library_sees_the_same_memory_through_the_interface(on_gpu_device, kind):
    a = MAKERS[kind](6, dtype=np.int64)
    a[:] = np.arange(6)
    seen = cuda.as_cuda_array(a)
    np.testing.assert_array_equal(seen.copy_to_host(), np.arange(6))

    @cuda.jit
    def double(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] *= 2

    double[1, 32](seen)
    cuda.synchronize()
    np.testing.assert_array_equal(a, 2 * np.arange(6))


def test_a_stream_argument_that_is_no_stream_is_refused(on_gpu_device):
    with pytest.raises(TypeError, match="expected a stream"):
        cuda.mapped_array(3, stream="s")


def test_on_the_cpu_device_they_are_host_memory_without_the_interface(on_cpu_device):
    a = cuda.mapped_array(3)
    assert not cuda.is_cuda_array(a)
    a[:] = 1  # still an ordinary NumPy array
    assert a.sum() == 3


@pytest.mark.parametrize("kind", MAKERS)
def test_numbas_device_memory_markers_cover_the_arrays_in_the_memory(device, kind):
    # numba-cuda's driver helpers (device_memset, device_memory_size) take objects with
    # __cuda_memory__, their size from _cuda_memsize_.
    from cudajit.cudadrv import driver

    a = MAKERS[kind](10, dtype=np.uint32)
    a.fill(123)
    assert a.__cuda_memory__ and a._cuda_memsize_ == 40
    assert a[2:]._cuda_memsize_ == 32 and a[:0]._cuda_memsize_ == 0
    assert not (a + 1).__cuda_memory__  # NumPy's result: new, ordinary memory
    driver.device_memset(a[5:], 0, a[5:]._cuda_memsize_)
    assert a.tolist() == [123] * 5 + [0] * 5
