"""What cudajit remembers of a live CAI producer between launches, and that every change
is read again: the device check of its pointer (on the GPU device), and its last dict
(an equal dict, entry by entry and of the same exact types, is not judged again).
Run on the cpu device, like test_interop_cai.py, except where a GPU device is needed.
"""

import numpy as np
import pytest

import cudajit as cuda
from interop_producers import copy_1d, read_sum, write_ones

pytestmark = pytest.mark.usefixtures("on_cpu_device")

F8 = np.dtype(np.float64).str  # '<f8' on this (little-endian) machine


def launch_copy(producer, n: int) -> np.ndarray:
    out = np.zeros(n)
    copy_1d[1, 32](producer, out)
    return out


def cai_error(match, exc=ValueError):
    return pytest.raises(exc, match=match)


# --- the device check of a producer's pointer, remembered per live producer ------------------


class MovableExporter:
    """Exports `array`'s memory (or, for a NumPy array, its shape and dtype at `pointer`);
    `pointer` can be changed to export another address."""

    def __init__(self, array, pointer=None):
        self.array = array
        self.pointer = array.device_pointer if pointer is None else pointer

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.array.shape, "typestr": self.array.dtype.str,
                "data": (self.pointer, False), "version": 3, "strides": None}


@cuda.jit
def add_one_1d(x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        x[i] += 1.0


def test_a_producer_that_exports_another_pointer_is_checked_again(on_gpu_device):
    exporter = MovableExporter(cuda.to_device(np.zeros(8)))
    add_one_1d[1, 8](exporter)
    host = np.zeros(8)
    exporter.pointer = host.ctypes.data  # host memory the GPU cannot use
    with pytest.raises(ValueError, match="is not known to CUDA"):
        add_one_1d[1, 8](exporter)
    exporter.pointer = exporter.array.device_pointer
    add_one_1d[1, 8](exporter)
    cuda.synchronize()
    np.testing.assert_array_equal(exporter.array.copy_to_host(), 2.0)


def test_a_new_producer_of_a_freed_pointer_is_checked_even_at_a_dead_ones_address(
        on_gpu_device):
    # The device check is remembered for a live producer only: when it dies (and its
    # memory with it), another object at the same address exporting the same pointer is
    # asked again, and freed memory is not known to the driver.
    from cudajit import _core

    shape_source = np.zeros(8)
    reused = 0
    for _ in range(10):
        memory = cuda.to_device(np.zeros(8))
        exporter = MovableExporter(memory)
        add_one_1d[1, 8](exporter)
        cuda.synchronize()
        pointer, address = exporter.pointer, id(exporter)
        del exporter, memory
        _core.release_pending()  # the launch held the exporter until it completed
        cuda.current_context().deallocations.clear()  # the memory waited in the queue
        stale = MovableExporter(shape_source, pointer)  # CPython reuses the freed block
        reused += id(stale) == address
        with pytest.raises(ValueError, match="is not known to CUDA"):
            add_one_1d[1, 8](stale)
        del stale
    if not reused:
        pytest.skip("no new exporter took a dead one's address in 10 tries")


# --- a live producer's last dict, remembered --------------------------------------------------
# A producer exporting a dict equal to its last one (same entries, same exact types) gets
# the import it had without the dict being judged again. Whatever changes is read again.


class KeptDict:
    """Exports one dict object, kept as a plain attribute (as many producers do), which
    the tests change in place between launches."""

    def __init__(self, values):
        self.values = values
        self.__cuda_array_interface__ = {
            "shape": values.shape, "typestr": values.dtype.str, "descr": [("", values.dtype.str)],
            "data": (values.ctypes.data, False), "version": 3, "strides": None}


def launch_sum(producer) -> float:
    out = np.zeros(1)
    read_sum[1, 1](producer, out)
    return out[0]


def test_a_dict_changed_in_place_is_read_again():
    values, other = np.arange(8.0), np.full(8, 2.0)
    producer = KeptDict(values)
    d = producer.__cuda_array_interface__
    assert launch_sum(producer) == 28.0
    assert launch_sum(producer) == 28.0
    d["shape"] = (4,)
    assert launch_sum(producer) == 6.0
    d["data"] = (other.ctypes.data, False)
    assert launch_sum(producer) == 8.0
    d["strides"] = (16,)  # every other element of `other`
    assert launch_sum(producer) == 8.0 and launch_copy(producer, 4).tolist() == [2.0] * 4
    d["strides"], d["data"] = None, (values.ctypes.data, False)
    assert launch_copy(producer, 4).tolist() == [0.0, 1.0, 2.0, 3.0]


def test_an_entry_made_invalid_in_place_is_an_error_again():
    producer = KeptDict(np.arange(8.0))
    d = producer.__cuda_array_interface__
    assert launch_sum(producer) == 28.0
    d["typestr"] = "<x8"
    with cai_error(r"typestr: '<x8' is not a NumPy type string \(unknown kind 'x'\)"):
        launch_sum(producer)
    d["typestr"] = F8
    d["version"] = 4
    with cai_error("version 4 is not supported"):
        launch_sum(producer)
    d["version"] = 3
    assert launch_sum(producer) == 28.0


@pytest.mark.parametrize("key, value, expected", [
    ("shape", (np.int64(8),), "must be a tuple of ints"),
    ("shape", (8.0,), "must be a tuple of ints"),
    ("data", ("address", False), r"must be a 2-tuple \(int, bool\)"),
    ("version", 3.0, "must be an int"),
])
def test_an_equal_value_of_another_type_is_judged_again(key, value, expected):
    # 8.0 == 8 and np.int64(8) == 8: a comparison by equality alone would take them
    # for the values judged before.
    values = np.arange(8.0)
    producer = KeptDict(values)
    d = producer.__cuda_array_interface__
    assert launch_sum(producer) == 28.0
    if key == "data":
        value = (values.ctypes.data, 0)  # 0 == False, but the flag must be a bool
        expected = "whose read-only flag is a bool"
    d[key] = value
    with cai_error(expected, TypeError):
        launch_sum(producer)


def test_a_read_only_flag_set_in_place_is_read_again():
    producer = KeptDict(np.zeros(8))
    d = producer.__cuda_array_interface__
    write_ones[1, 8](producer)
    cuda.synchronize()
    assert producer.values.tolist() == [1.0] * 8
    d["data"] = (producer.values.ctypes.data, True)
    with pytest.raises(cuda.errors.CompileError, match="cannot write to read-only array 'x'"):
        write_ones[1, 8](producer)


def test_a_descr_list_changed_in_place_is_read_again():
    producer = KeptDict(np.arange(8.0))
    d = producer.__cuda_array_interface__
    assert launch_sum(producer) == 28.0
    d["descr"].append(("y", F8))  # the same list object, now a structure
    with cai_error("describes a structured dtype", TypeError):
        launch_sum(producer)
    d["descr"].pop()
    assert launch_sum(producer) == 28.0


def test_an_unknown_entry_is_ignored_even_when_it_changes():
    producer = KeptDict(np.arange(8.0))
    d = producer.__cuda_array_interface__
    d["extra"] = [1, 2]  # not the spec's, and mutable
    assert launch_sum(producer) == 28.0
    d["extra"].append(3)
    assert launch_sum(producer) == 28.0
    d["shape"] = (2,)
    assert launch_sum(producer) == 1.0


def test_two_producers_of_equal_dicts_are_each_their_own():
    a, b = np.arange(8.0), np.arange(8.0)
    first, second = KeptDict(a), KeptDict(b)
    assert launch_sum(first) == 28.0 and launch_sum(second) == 28.0
    b[:] = 1.0
    assert launch_sum(first) == 28.0 and launch_sum(second) == 8.0
