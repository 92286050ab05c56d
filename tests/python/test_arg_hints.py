"""Argument hints, as numba.cuda has them: cuda.In (copied to the device only), cuda.Out
(copied back only), cuda.InOut (both, what a plain NumPy array gets), and any object with
Numba's to_device(retr, stream) protocol."""

import numpy as np
import pytest

import cudajit as cuda

pytestmark = [pytest.mark.usefixtures("device"),
              pytest.mark.filterwarnings("ignore::cudajit.PerformanceWarning")]


@cuda.jit
def scale_and_clobber(a, b, c):
    i = cuda.grid(1)
    if i < a.size:
        b[i] = a[i] * 2
        a[i] = -1  # In: the host never sees this
        c[i] += 1


@pytest.mark.parametrize("on_stream", [False, True])
def test_in_out_and_inout_copy_the_way_they_say(on_stream):
    a, b, c = np.arange(8.0), np.full(8, 9.0), np.ones(8)
    config = (1, 8, cuda.stream()) if on_stream else (1, 8)
    scale_and_clobber[config](cuda.In(a), cuda.Out(b), cuda.InOut(c))
    np.testing.assert_array_equal(a, np.arange(8.0))  # not copied back
    np.testing.assert_array_equal(b, np.arange(8.0) * 2)  # copied back, complete on return
    np.testing.assert_array_equal(c, np.full(8, 2.0))


def test_a_device_array_in_a_hint_passes_as_it_is():
    d = cuda.to_device(np.arange(4.0))
    b = np.zeros(4)
    scale_and_clobber[1, 4](cuda.In(d), cuda.Out(b), cuda.to_device(np.zeros(4)))
    np.testing.assert_array_equal(d.copy_to_host(), np.full(4, -1.0))  # the kernel's own array
    np.testing.assert_array_equal(b, np.arange(4.0) * 2)


def test_numbas_hint_protocol_is_what_the_launch_asks_for():
    class Halved:
        """A hint of our own making: the kernel sees half the values; copied back doubled."""

        def __init__(self, value):
            self.value = value

        def to_device(self, retr, stream=0):
            device = cuda.to_device(self.value / 2, stream=stream)
            retr.append(lambda: np.copyto(self.value, device.copy_to_host(stream=stream) * 2))
            return device

    a, b, c = np.arange(4.0), np.zeros(4), Halved(np.full(4, 10.0))
    scale_and_clobber[1, 4](a, b, c)
    np.testing.assert_array_equal(c.value, np.full(4, 12.0))  # (10 / 2 + 1) * 2


def test_a_hint_of_something_that_is_no_array_is_a_type_error():
    with pytest.raises(TypeError, match=r"cuda.In\(\) takes a NumPy array or a device array, "
                                        r"got list"):
        scale_and_clobber[1, 4](cuda.In([1.0, 2.0]), np.zeros(2), np.zeros(2))
    assert repr(cuda.Out(np.zeros(1))) == "cuda.Out(array([0.]))"


class DefaultIn:
    """numba-cuda's example extension: host arrays become cuda.In (not copied back)."""

    def prepare_args(self, ty, val, **kwargs):
        return ty, (cuda.In(val) if isinstance(val, np.ndarray) else val)


class Recorder:
    def __init__(self):
        self.seen = []

    def prepare_args(self, ty, val, stream=None, retr=None):
        self.seen.append((str(ty), type(val).__name__, isinstance(retr, list)))
        return ty, val


def test_dispatcher_extensions_prepare_every_argument_before_a_launch():
    @cuda.jit
    def set_three(arr, k):
        arr[0] = 3 + k

    recorder = Recorder()
    set_three.extensions.append(recorder)
    set_three.extensions.append(DefaultIn())
    host = np.zeros(1, np.int64)
    set_three[1, 1](host, 0)
    assert host[0] == 0  # DefaultIn: copied in, not back
    assert recorder.seen == [("array(int64, 1d, C)", "ndarray", True), ("int64", "int", True)]
    set_three.extensions.clear()
    set_three[1, 1](host, 1)
    assert host[0] == 4  # without extensions: a plain array, copied back


def test_an_extension_that_does_not_return_a_pair_is_a_type_error():
    @cuda.jit
    def touch(arr):
        arr[0] = 1

    class Broken:
        def prepare_args(self, ty, val, **kwargs):
            return val

    touch.extensions.append(Broken())
    with pytest.raises(TypeError):
        touch[1, 1](np.zeros(1))
