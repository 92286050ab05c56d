"""Kernels and device functions pickle, so they travel to other processes (Dask
workers, multiprocessing): by module and qualified name where importable, else
by their Python function, declared signatures and options."""

import importlib.util
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import cudajit as cuda
from cudajit.dispatcher import DebugDispatcher

import pickled_kernels

pytestmark = pytest.mark.usefixtures("device")

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
# Where the cudajit under test is (this tree's python/, or an installed wheel's site-packages),
# found without importing it.
PYTHON_DIR = os.path.dirname(os.path.dirname(importlib.util.find_spec("cudajit").origin))


def test_importable_kernels_and_device_functions_pickle_by_reference():
    assert pickle.loads(pickle.dumps(pickled_kernels.triple_all)) is pickled_kernels.triple_all
    assert pickle.loads(pickle.dumps(pickled_kernels.triple)) is pickled_kernels.triple


def test_a_pickled_kernel_runs_in_another_process():
    payload = pickle.dumps(pickled_kernels.triple_all)
    code = textwrap.dedent("""\
        import pickle, sys
        import numpy as np
        kernel = pickle.loads(sys.stdin.buffer.read())
        values = np.arange(5.0)
        kernel[1, 32](values)
        print(values.tolist(), kernel.signatures)
        """)
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([PYTHON_DIR, TESTS_DIR]),
                       CUDAJIT_DEVICE="cpu")
    result = subprocess.run([sys.executable, "-c", code], input=payload, capture_output=True,
                            env=environment, timeout=120)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode().split("\n")[0] == \
        "[0.0, 3.0, 6.0, 9.0, 12.0] [('array(float64, 1d, C)',)]"


def test_a_kernel_made_in_a_function_rebuilds_from_its_function_signatures_and_options():
    @cuda.jit("void(int64[::1], int64)", fastmath=True, debug=True)
    def add(values, amount):
        i = cuda.grid(1)
        if i < values.size:
            values[i] += amount

    copy = pickle.loads(pickle.dumps(add))  # plain pickle: the function by value, as Numba
    assert type(copy) is DebugDispatcher and copy is not add
    assert copy.fastmath and copy.debug and copy.signatures == add.signatures
    values = np.arange(4)
    copy[1, 32](values, 10)
    np.testing.assert_array_equal(values, np.arange(4) + 10)


def test_a_device_function_made_in_a_function_rebuilds_too():
    @cuda.jit("float64(float64)", device=True)
    def halve(x):
        return x / 2

    copy = pickle.loads(pickle.dumps(halve))
    assert copy is not halve and str(copy.signature) == str(halve.signature)

    @cuda.jit
    def use(values):
        values[0] = copy(values[0])

    values = np.array([5.0])
    use[1, 1](values)
    assert values[0] == 2.5


def test_a_kernel_pickled_by_value_carries_its_source_text():
    # cloudpickle (Dask's) rebuilds a closure's code under "<dynamic-code>", a file no
    # process has: the text travels with the pickle.
    cloudpickle = pytest.importorskip("cloudpickle")
    offset = 3.0

    @cuda.jit(device=True)
    def shifted(v):
        return v + offset

    @cuda.jit
    def shift(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] = shifted(x[i])

    again = pickle.loads(cloudpickle.dumps(shift))
    # Some cloudpickle versions name the rebuilt code's file "<dynamic-code>", others keep the
    # file's name; either way the process that loads it need not have the file. Say so here,
    # for the kernel and the device function it closes over.
    shifted_again = again.py_func.__closure__[0].cell_contents
    assert shifted_again is not shifted and shifted_again.__name__ == "shifted"
    for func in (again.py_func, shifted_again.py_func):
        func.__code__ = func.__code__.replace(co_filename="<dynamic-code>")
    x = np.arange(4.0)
    again[1, 4](x)
    np.testing.assert_array_equal(x, np.arange(4.0) + 3.0)


def test_a_device_function_calling_itself_pickles_without_recursing():
    @cuda.jit("int64(int64)", device=True)
    def factorial(n):
        return 1 if n <= 1 else n * factorial(n - 1)

    copy = pickle.loads(pickle.dumps(factorial))
    assert copy is not factorial and copy.py_func.__closure__[0].cell_contents is copy


_MAIN_PROGRAM = """\
import concurrent.futures
import multiprocessing
import pickle

import numpy as np
import cudajit as cuda

SCALE = 3.0


@cuda.jit(device=True)
def scaled(v):
    return v * SCALE


@cuda.jit
def scale_all(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = scaled(x[i])


def run(kernel):
    x = np.arange(4.0)
    kernel[1, 32](x)
    return x.tolist()


if __name__ == "__main__":
    again = pickle.loads(pickle.dumps(scale_all))  # plain pickle, as Numba's kernels
    print(run(again))
    spawn = multiprocessing.get_context("spawn")
    with spawn.Pool(1) as pool:
        print(pool.map(run, [scale_all]))
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=spawn) as executor:
        print(executor.submit(run, scale_all).result())
"""


def test_a_kernel_defined_in_main_pickles_for_spawn_pools_and_process_executors(tmp_path):
    script = tmp_path / "main_kernels.py"
    script.write_text(_MAIN_PROGRAM)
    environment = dict(os.environ, PYTHONPATH=PYTHON_DIR, CUDAJIT_DEVICE="cpu")
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            env=environment, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["[0.0, 3.0, 6.0, 9.0]", "[[0.0, 3.0, 6.0, 9.0]]",
                                          "[0.0, 3.0, 6.0, 9.0]"], result.stdout + result.stderr


def test_a_launch_configuration_pickles_with_its_kernel_and_dimensions():
    @cuda.jit
    def add_one(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1

    config = pickle.loads(pickle.dumps(add_one[6, 8, 0, 16]))
    assert (config.griddim, config.blockdim, config.sharedmem) == ((6, 1, 1), (8, 1, 1), 16)
    a = cuda.to_device(np.zeros(48))
    config(a)
    np.testing.assert_array_equal(a.copy_to_host(), np.ones(48))


def test_pre_launch_callbacks_run_before_each_launch_and_stop_pickling():
    @cuda.jit
    def add_one(a):
        a[0] += 1

    seen = []
    config = add_one[1, 1]
    assert config.pre_launch_callbacks == []
    # The callback sees the array before the launch changes it.
    config.pre_launch_callbacks.append(
        lambda kernel, launch: seen.append((kernel.__name__, launch.griddim, a.copy_to_host()[0])))
    a = cuda.to_device(np.zeros(1))
    config(a)
    config(a)
    assert seen == [("add_one", (1, 1, 1), 0.0), ("add_one", (1, 1, 1), 1.0)]
    with pytest.raises(pickle.PicklingError, match="Cannot pickle configured launches with "
                                                   "pre-launch callbacks"):
        pickle.dumps(config)
    assert add_one[1, 1].pre_launch_callbacks == []  # each configuration its own list


def test_a_vectorized_ufunc_made_in_a_function_pickles_by_value():
    def make():
        @cuda.vectorize(["int64(int64)", "float64(float64)"], fastmath=True)
        def doubled(x):
            return x * 2
        return doubled

    copy = pickle.loads(pickle.dumps(pickle.loads(pickle.dumps(make()))))
    assert copy.types == ["l->l", "d->d"] and copy._options == {"fastmath": True}
    np.testing.assert_array_equal(copy(np.arange(5)), np.arange(5) * 2)
    np.testing.assert_array_equal(copy(np.arange(5.0)), np.arange(5.0) * 2)
