"""Malformed inputs get a clear Python exception naming what was expected and
what was given (never a pybind11 cast error or a signature dump): CAI entries
out of range or of the wrong type, a producer whose interface raises, DLPack
capsules and devices, array shapes and strides."""

import ctypes

import numpy as np
import pytest

import cudajit as cuda
from interop_producers import CaiProducer


class Producer:
    """Exports a given __cuda_array_interface__ dict as it is."""

    def __init__(self, interface):
        self.interface = interface

    @property
    def __cuda_array_interface__(self):
        return self.interface


@pytest.fixture
def cai(on_cpu_device):
    base = cuda.device_array(4)
    # The cpu device's arrays export no interface (host memory): describe it as a producer would.
    interface = dict(CaiProducer(base).__cuda_array_interface__)
    interface["_keep"] = base  # the memory stays alive while the dict is used
    return interface


@pytest.mark.parametrize("key, value, error, message", [
    ("shape", (2**70,), ValueError,
     r"__cuda_array_interface__\['shape'\]\[0\] = 1180591620717411303424 does not fit in 64 bits"),
    ("strides", (2**64,), ValueError, r"\['strides'\]\[0\] = 18446744073709551616 does not fit"),
    ("version", 2**70, ValueError, r"\['version'\] = 1180591620717411303424 does not fit"),
    ("stream", -2**64, ValueError, r"\['stream'\] = -18446744073709551616 does not fit"),
    ("typestr", "<f\x008", TypeError,
     r"\['typestr'\] must be a type string such as '<f8'; got '<f\\x008'"),
])
def test_out_of_range_and_malformed_cai_entries_name_the_entry(cai, key, value, error, message):
    cai[key] = value
    with pytest.raises(error, match=message):
        cuda.as_cuda_array(Producer(cai))


@pytest.mark.parametrize("data, message", [
    ("pointer", r"\['data'\]\[0\] = 1180591620717411303424 is not an address"),
    ("negative", r"\['data'\]\[0\] = -1 is not an address"),
    ("flag", r"\['data'\] must be a 2-tuple \(int, bool\) whose read-only flag is a bool; got "
             r"\(\d+, 'False'\)"),
])
def test_the_data_pair_is_an_address_and_a_bool(cai, data, message):
    address = cai["data"][0]
    cai["data"] = {"pointer": (2**70, False), "negative": (-1, False),
                   "flag": (address, "False")}[data]
    error = TypeError if data == "flag" else ValueError
    with pytest.raises(error, match=message):
        cuda.as_cuda_array(Producer(cai))


def test_a_producer_whose_interface_raises_has_its_exception_chained(on_cpu_device):
    class Broken:
        @property
        def __cuda_array_interface__(self):
            raise KeyError("the producer broke")

    with pytest.raises(ValueError, match="reading __cuda_array_interface__ of a Broken object "
                       "raised KeyError") as info:
        cuda.as_cuda_array(Broken())
    assert isinstance(info.value.__cause__, KeyError)
    assert "the producer broke" in str(info.value.__cause__)


def capsule(name):
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return new(ctypes.c_void_p(1), name, None)


def test_dlpack_capsules_without_a_name_and_devices_out_of_range_are_refused(on_cpu_device):
    class NoName:
        def __dlpack__(self, **kwargs):
            return capsule(None)

        def __dlpack_device__(self):
            return (1, 0)

    class HugeDevice(NoName):
        def __dlpack_device__(self):
            return (2**70, 0)

    class HugeId(NoName):
        def __dlpack_device__(self):
            return (1, -2**40)

    with pytest.raises(TypeError, match="__dlpack__\\(\\) returned a capsule without a name, "
                       "expected one named 'dltensor' or 'dltensor_versioned'"):
        cuda.from_dlpack(NoName())
    with pytest.raises(ValueError, match="__dlpack_device__\\(\\) device_type must be a 32-bit "
                       "int, got 1180591620717411303424"):
        cuda.from_dlpack(HugeDevice())
    with pytest.raises(ValueError, match="device_id must be a 32-bit int, got -1099511627776"):
        cuda.from_dlpack(HugeId())


@pytest.mark.parametrize("shape, strides, error, message", [
    ((2**70,), None, ValueError, r"array dimensions must be less than 2\*\*63, got "
                                 r"\(1180591620717411303424,\)"),
    ((4,), (2**70,), ValueError, r"strides must fit in 64 bits, got \(1180591620717411303424,\)"),
    ((4,), (8, 8), ValueError, r"2 strides \(8, 8\) for a shape of 1 dimensions"),
    ((4,), ("a",), TypeError, r"strides must be a tuple of ints, got \('a',\)"),
])
def test_device_array_shapes_and_strides_out_of_range(on_cpu_device, shape, strides, error,
                                                      message):
    with pytest.raises(error, match=message):
        cuda.device_array(shape, np.float64, strides=strides)


def test_stream_and_event_helpers_check_their_arguments(on_cpu_device):
    with pytest.raises(ValueError, match=r"external_stream\(\) takes a CUstream handle from 0 "
                       r"to 2\*\*64 - 1, got 1180591620717411303424"):
        cuda.external_stream(2**70)
    with pytest.raises(TypeError, match=r"external_stream\(\) takes a CUstream handle \(an int\), "
                       r"got str 'x'"):
        cuda.external_stream("x")
    with pytest.raises(TypeError, match=r"event\(timing\) takes a bool, got str 'x'"):
        cuda.event("x")
    with pytest.raises(TypeError, match=r"event_elapsed_time\(\) takes two events; evtstart is "
                       r"a int"):
        cuda.event_elapsed_time(1, cuda.event())


@pytest.mark.parametrize("key", [True, np.True_, (True, Ellipsis), (0, False)], ids=repr)
def test_boolean_indices_of_device_arrays_are_refused(on_cpu_device, key):
    # Found by the fuzz suite: NumPy reads a bool as a mask and makes a copy, whose address
    # became a wild offset into device memory (a crash in the next copy).
    a = cuda.to_device(np.arange(4.0))
    with pytest.raises(TypeError, match="device arrays support indexing by integers, slices"):
        a[key] = 1
    with pytest.raises(TypeError, match="device arrays support indexing by integers, slices"):
        a[key]
    np.testing.assert_array_equal(a.copy_to_host(), np.arange(4.0))


def test_a_dlpack_tensor_on_another_device_than_reported_is_refused(on_cpu_device):
    host = np.arange(4.0)

    class Liar:
        def __dlpack__(self, **kwargs):
            return host.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return (1, 3)  # kDLCPU, but device 3: the capsule says device 0

    with pytest.raises(ValueError, match=r"the tensor is on kDLCPU \(1\), device 0, but "
                       r"__dlpack_device__\(\) said kDLCPU \(1\), device 3"):
        cuda.from_dlpack(Liar())


@pytest.mark.parametrize("where, value, message", [
    ("stream", 2**70, "stream handle must be from 0 to 2\\*\\*64 - 1, got {}"),
    ("stream", -1, "stream handle must be from 0 to 2\\*\\*64 - 1, got {}"),
    ("stream", 2**64, "stream handle must be from 0 to 2\\*\\*64 - 1, got {}"),
    ("sharedmem", 2**70, "sharedmem must be an int from 0 to 2\\*\\*32 - 1 \\(bytes\\), got {}"),
    ("sharedmem", -1, "sharedmem must be an int from 0 to 2\\*\\*32 - 1 \\(bytes\\), got {}"),
    ("sharedmem", 2**64, "sharedmem must be an int from 0 to 2\\*\\*32 - 1 \\(bytes\\), got {}"),
], ids=str)
def test_launch_stream_and_sharedmem_out_of_range_are_value_errors(on_cpu_device, where, value,
                                                                   message):
    @cuda.jit
    def touch(a):
        a[0] = 1

    a = np.zeros(1)
    config = (1, 1, value, 0) if where == "stream" else (1, 1, 0, value)
    with pytest.raises(ValueError, match=message.format(value)):
        touch[config](a)
    assert a[0] == 0


def test_array_helpers_name_what_they_take(on_cpu_device):
    d = cuda.to_device(np.arange(4.0))
    with pytest.raises(TypeError, match=r"copy_to_host\(\) copies into a NumPy array, got list"):
        d.copy_to_host([0, 0, 0, 0])
    with pytest.raises(TypeError, match=r"device_array_like\(\) takes an array \(with .shape and "
                       r".dtype\), got int"):
        cuda.device_array_like(3)
