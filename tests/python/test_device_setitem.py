"""``d[key] = value`` and Numba's ``d.setitem(key, value, stream=0)``: queued on the stream
given, else on the array's own stream, and nothing waits; with neither, the write has
finished on return (the legacy default stream synchronised once)."""

from unittest.mock import patch

import numpy as np
import pytest

import cudajit as cuda


def test_setitem_without_a_stream_synchronises_once_and_writes(device):
    d = cuda.to_device(np.arange(5))
    waits = []
    real = cuda.cudadrv.driver.Stream.synchronize

    def counted(stream):
        waits.append(stream)
        real(stream)

    with patch.object(cuda.cudadrv.driver.Stream, "synchronize", counted):
        d[0] = 10
    assert len(waits) == 1  # the write; the element is not read first
    np.testing.assert_array_equal(d.copy_to_host(), [10, 1, 2, 3, 4])


@pytest.mark.parametrize("which", ["created", "default", "legacy", "per_thread"])
def test_setitem_with_a_stream_queues_the_write_without_waiting(device, which):
    stream = {"created": cuda.stream, "default": cuda.default_stream,
              "legacy": cuda.legacy_default_stream,
              "per_thread": cuda.per_thread_default_stream}[which]()
    d = cuda.to_device(np.arange(5))
    with patch.object(cuda.cudadrv.driver.Stream, "synchronize") as sync:
        d.setitem(1, 11, stream=stream)
        d.setitem(slice(3, 5), [7, 8], stream=stream)
    sync.assert_not_called()
    stream.synchronize()
    np.testing.assert_array_equal(d.copy_to_host(), [0, 11, 2, 7, 8])


@pytest.mark.parametrize("which", ["created", "default", "per_thread"])
def test_setitem_on_an_array_with_its_own_stream_queues_there(device, which):
    stream = {"created": cuda.stream, "default": cuda.default_stream,
              "per_thread": cuda.per_thread_default_stream}[which]()
    d = cuda.to_device(np.arange(5), stream=stream)
    with patch.object(cuda.cudadrv.driver.Stream, "synchronize") as sync:
        d[0] = 10
    sync.assert_not_called()
    stream.synchronize()
    np.testing.assert_array_equal(d.copy_to_host(), [10, 1, 2, 3, 4])


def test_setitem_keeps_numpys_rules(device):
    d = cuda.to_device(np.zeros((2, 3)))
    d.setitem((1, Ellipsis), [1, 2, 3])
    d[0, 1] = 5
    np.testing.assert_array_equal(d.copy_to_host(), [[0, 5, 0], [1, 2, 3]])
    with pytest.raises(ValueError, match="Can't assign 2-D array to 1-D self"):
        d.setitem(0, np.ones((2, 3)))
