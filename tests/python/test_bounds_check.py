"""On the cpu device every array access is checked: an index out of bounds
raises IndexError naming the kernel, the source line, the index, the axis and
the extent, and the access is skipped, so nothing outside the array is read or
written (CUDAJIT_BOUNDSCHECK=0 turns the checks off). The GPU does not check,
as with Numba."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import cudajit as cuda


pytestmark = pytest.mark.usefixtures("on_cpu_device")


@cuda.jit
def write_index(a, n):
    i = cuda.grid(1)
    if i < n:
        a[i] = i


@cuda.jit
def read_shifted(a, out):
    i, j = cuda.grid(2)
    out[i, j] = a[i, j + 1]


@cuda.jit
def row_then_column(a, out):
    i = cuda.grid(1)
    row = a[i]
    out[i] = row[i + 2]


@cuda.jit(device=True)
def fetch(a, k):
    return a[k]


@cuda.jit
def through_device_function(a, out, k):
    out[0] = fetch(a, k)


def test_a_write_past_the_end_is_an_index_error_and_writes_nothing_outside():
    backing = np.full(12, -1.0)
    a = backing[1:11]  # one guard element on each side
    with pytest.raises(IndexError, match=r"kernel 'write_index' \(.*test_bounds_check.py:\d+:\d+\): "
                                         r"index 10 is out of bounds for axis 0 with size 10"):
        write_index[1, 16](a, 16)
    np.testing.assert_array_equal(a, np.arange(10.0))
    assert backing[0] == -1.0 and backing[11] == -1.0


def test_the_error_names_the_axis_that_is_out_of_bounds():
    a = np.zeros((3, 4))
    out = np.zeros((3, 4))
    with pytest.raises(IndexError, match=r"index 4 is out of bounds for axis 1 with size 4"):
        read_shifted[1, (3, 4)](a, out)


def test_a_negative_index_beyond_the_size_is_out_of_bounds():
    a = np.arange(5.0)
    out = np.zeros(1)
    through_device_function[1, 1](a, out, -2)  # wraps, as in Python
    assert out[0] == 3.0
    # named as written, as NumPy names it (not after the wrap)
    with pytest.raises(IndexError, match=r"kernel 'through_device_function'.*index -6 is out of "
                                         r"bounds for axis 0 with size 5"):
        through_device_function[1, 1](a, out, -6)


def test_indexing_a_row_view_is_checked_too():
    a = np.arange(12.0).reshape(3, 4)
    out = np.zeros(3)
    with pytest.raises(IndexError, match=r"index 4 is out of bounds for axis 0 with size 4"):
        row_then_column[1, 3](a, out)
    np.testing.assert_array_equal(out[:2], [2.0, 7.0])  # the rows in bounds ran


def test_an_asynchronous_launch_reports_at_the_next_synchronisation():
    s = cuda.stream()
    d = cuda.device_array(4)
    write_index[1, 8, s](d, 8)  # returns at once
    with pytest.raises(IndexError, match=r"index 4 is out of bounds"):
        s.synchronize()
    write_index[1, 4, s](d, 4)  # the stream goes on working
    s.synchronize()
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(4.0))


def test_the_checks_can_be_turned_off_by_environment(tmp_path):
    script = tmp_path / "kernel.py"  # kernels need a source file
    script.write_text("import numpy as np, cudajit as cuda\n"
            "@cuda.jit\n"
            "def k(a, b):\n"
            "    a[0] = b[3]\n"  # b has 8 elements: in bounds, so no error either way
            "a = np.zeros(1); k[1, 1](a, np.arange(8.0)); print(a[0])\n")
    env = dict(os.environ, CUDAJIT_BOUNDSCHECK="0", CUDAJIT_DEVICE="cpu",
               CUDAJIT_DUMP="llvm", PYTHONPATH=str(Path(cuda.__file__).parents[1]))
    result = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                            text=True, check=True)
    assert result.stdout.strip() == "3.0"
    assert "index.out_of_bounds" not in result.stderr
    env["CUDAJIT_BOUNDSCHECK"] = "1"
    result = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                            text=True, check=True)
    assert "index.out_of_bounds" in result.stderr
