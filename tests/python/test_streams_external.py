"""Streams made elsewhere (Numba's ``Stream.external``), arrays' default streams (0 for none,
as in Numba), and ``cuda.cudadrv.driver.Stream``: the class of cudajit's streams."""

import numpy as np
import pytest

import cudajit as cuda
from cudajit import _core


class Foreign:
    """An array of another library: only the CUDA Array Interface."""

    def __init__(self, array, stream=None):
        self._array = array
        self._stream = stream

    @property
    def __cuda_array_interface__(self):
        desc = dict(self._array.__cuda_array_interface__)
        if self._stream is not None:
            desc["stream"] = self._stream
        return desc


def test_streams_cudajit_makes_are_not_external(device):
    assert not cuda.stream().external
    assert not cuda.default_stream().external
    assert not cuda.per_thread_default_stream().external


def test_driver_stream_is_the_class_of_cudajits_streams(device):
    assert cuda.cudadrv.driver.Stream is type(cuda.stream())
    assert isinstance(cuda.default_stream(), cuda.cudadrv.driver.Stream)


def test_external_stream_is_external_and_keeps_its_handle(on_gpu_device):
    made = cuda.stream()
    borrowed = cuda.external_stream(made.handle)
    assert borrowed.external and borrowed.handle == made.handle
    borrowed.synchronize()  # a real stream of the primary context: usable


def test_external_stream_of_a_bad_handle_fails_at_first_use_not_at_creation(on_gpu_device):
    # As in Numba, wrapping touches nothing; the check comes when the stream is used.
    s = cuda.external_stream(0x12345678)
    assert s.external and int(s.handle) == 0x12345678
    with pytest.raises(cuda.CudaDriverError, match=r"cuStreamGetCtx\(0x12345678\)"):
        s.synchronize()
    d = cuda.device_array(4)
    with pytest.raises(cuda.CudaDriverError, match="CUDA_ERROR_INVALID_HANDLE"):
        d.copy_to_host(stream=s)


def test_an_array_without_a_stream_of_its_own_has_stream_0(device):
    assert cuda.device_array(3).stream == 0
    assert cuda.to_device(np.arange(3)).stream == 0
    s = cuda.stream()
    assert cuda.device_array(3, stream=s).stream == s


def test_a_foreign_array_without_a_stream_imports_with_stream_0(on_gpu_device):
    assert cuda.as_cuda_array(Foreign(cuda.device_array(10))).stream == 0


def test_a_foreign_arrays_stream_is_an_external_stream_of_that_handle(on_gpu_device):
    s = cuda.stream()
    imported = cuda.as_cuda_array(Foreign(cuda.device_array(10, stream=s)))
    assert imported.stream.external
    assert int(imported.stream.handle) == int(s.handle)
    assert imported.stream == s  # the same queue
