"""CUDA ufuncs and gufuncs given another library's device arrays (the CUDA Array
Interface): used in place as inputs, and an ``out=`` of them is written and returned as a
cudajit view of its memory, as in Numba."""

import numpy as np

import cudajit as cuda


class Foreign:
    """An array of another library: only the CUDA Array Interface."""

    def __init__(self, array):
        self._arr = array

    @property
    def __cuda_array_interface__(self):
        return self._arr.__cuda_array_interface__


@cuda.vectorize(["f8(f8, f8)"], target="cuda")
def vadd(a, b):
    return a + b


@cuda.guvectorize(["(f8, f8, f8[:])"], "(),()->()", target="cuda")
def gadd(x, v, out):
    out[0] = x + v


def test_a_ufunc_takes_a_foreign_array_as_input(on_gpu_device):
    host = np.random.random(10)
    out = vadd(Foreign(cuda.to_device(host)), 6)
    np.testing.assert_array_equal(out.copy_to_host(), host + 6)


def test_a_ufunc_writes_a_foreign_out_and_returns_a_view_of_it(on_gpu_device):
    host = np.random.random(10)
    target = Foreign(cuda.device_array(host.shape))
    returned = vadd(host, 6, out=target)
    assert returned.device_pointer == target._arr.device_pointer
    np.testing.assert_array_equal(target._arr.copy_to_host(), host + 6)


def test_a_gufunc_takes_foreign_arrays_in_and_out(on_gpu_device):
    host = np.random.random(10)
    out = gadd(Foreign(cuda.to_device(host)), np.float64(7))
    np.testing.assert_array_equal(out.copy_to_host(), host + 7)
    target = Foreign(cuda.device_array(host.shape))
    returned = gadd(host, np.float64(7), out=target)
    assert returned.device_pointer == target._arr.device_pointer
    np.testing.assert_array_equal(target._arr.copy_to_host(), host + 7)
