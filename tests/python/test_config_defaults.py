"""cudajit.config's Numba settings: the performance warnings (CUDA_LOW_OCCUPANCY_WARNINGS,
CUDA_WARN_ON_IMPLICIT_COPY, DISABLE_PERFORMANCE_WARNINGS), and the debug and opt defaults of
jit() (CUDA_DEBUGINFO_DEFAULT, OPT)."""

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import cudajit as cuda
from cudajit.errors import InvalidConfigWarning, PerformanceWarning


@pytest.fixture
def setting():
    """Sets cudajit.config attributes for one test and restores them after it."""
    saved = {}

    def set_(name, value):
        saved.setdefault(name, getattr(cuda.config, name))
        setattr(cuda.config, name, value)

    yield set_
    for name, value in saved.items():
        setattr(cuda.config, name, value)


def _launch_warnings(kernel, griddim, blockdim, *args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kernel[griddim, blockdim](*args)
    return [str(w.message) for w in caught if issubclass(w.category, PerformanceWarning)]


def test_low_occupancy_warns_on_gpu_grids_under_128_blocks(device, setting):
    @cuda.jit
    def fill(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = i

    out = cuda.device_array(4096, np.int64)
    setting("CUDA_LOW_OCCUPANCY_WARNINGS", True)
    small = _launch_warnings(fill, (2, 3), 32, out)   # 6 blocks
    large = _launch_warnings(fill, 128, 32, out)      # 128 blocks: enough
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(4096))
    if device == "cpu":
        assert small == []  # a few cores: any grid fills them
    else:
        assert small == ["Grid size 6 will likely result in GPU under-utilization due to low "
                         "occupancy."]
    assert large == []
    setting("CUDA_LOW_OCCUPANCY_WARNINGS", False)
    assert _launch_warnings(fill, 1, 32, out) == []


def test_low_occupancy_warning_filters_as_numba_s(device, setting):
    """An error filter turns the warning into an exception at kernel[...], before a launch
    (on a GPU; the cpu device launches)."""
    @cuda.jit
    def one(a):
        a[0] = 1

    out = cuda.to_device(np.zeros(1, np.int32))
    setting("CUDA_LOW_OCCUPANCY_WARNINGS", True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PerformanceWarning)
        if device == "cpu":
            one[1, 1](out)
        else:
            with pytest.raises(PerformanceWarning, match="Grid size 1 .*low occupancy"):
                one[1, 1]
    assert out.copy_to_host()[0] == (1 if device == "cpu" else 0)


def test_debug_default_follows_config(setting):
    setting("CUDA_DEBUGINFO_DEFAULT", True)
    with pytest.warns(InvalidConfigWarning, match="debug=True with opt=True"):
        kernel = cuda.jit(lambda a: None)
    assert kernel.__class__.__name__ == "DebugDispatcher"
    with warnings.catch_warnings():
        warnings.simplefilter("error", InvalidConfigWarning)
        cuda.jit(opt=False)(lambda a: None)  # debug unoptimised code: no warning
        plain = cuda.jit(debug=False)(lambda a: None)
    assert plain.__class__.__name__ == "Dispatcher"


def test_opt_default_follows_config(setting):
    setting("OPT", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", InvalidConfigWarning)
        cuda.jit(debug=True)(lambda a: None)  # opt=False by default now: no warning
    for level in (1, 2, 3, "max"):
        setting("OPT", level)
        with pytest.warns(InvalidConfigWarning, match="not supported by CUDA"):
            cuda.jit(debug=True)(lambda a: None)


def test_disabling_performance_warnings_silences_both_at_run_time(device, setting):
    @cuda.jit
    def double(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] *= 2

    a = np.ones(8)
    setting("CUDA_LOW_OCCUPANCY_WARNINGS", True)
    setting("CUDA_WARN_ON_IMPLICIT_COPY", True)
    setting("DISABLE_PERFORMANCE_WARNINGS", False)
    both = _launch_warnings(double, 1, 8, a)  # a NumPy array, a grid of 1 block
    if device == "cpu":
        assert both == []  # host memory is device memory; any grid fills a few cores
    else:
        assert len(both) == 2 and both[0].startswith("Grid size 1 ")
        assert both[1].startswith("Host array used in CUDA kernel will incur copy overhead")
    setting("DISABLE_PERFORMANCE_WARNINGS", True)
    assert _launch_warnings(double, 1, 8, a) == []
    assert cuda.config.CUDA_LOW_OCCUPANCY_WARNINGS and cuda.config.CUDA_WARN_ON_IMPLICIT_COPY
    setting("DISABLE_PERFORMANCE_WARNINGS", False)
    setting("CUDA_WARN_ON_IMPLICIT_COPY", False)
    only = _launch_warnings(double, 1, 8, a)
    assert only == ([] if device == "cpu" else [both[0]])
    np.testing.assert_array_equal(a, 8 * np.ones(8))


@pytest.mark.parametrize("value", [4, -1, "fast", None])
def test_opt_refuses_what_numba_refuses(setting, value):
    with pytest.raises(ValueError, match=r"OPT must be 0, 1, 2, 3 or 'max', got"):
        setting("OPT", value)


def test_settings_read_numba_environment_variables():
    """NUMBA_* variables set these defaults where no CUDAJIT_* variable is set."""
    code = ("import cudajit as c; print(c.config.CUDA_LOW_OCCUPANCY_WARNINGS, "
            "c.config.CUDA_DEBUGINFO_DEFAULT, c.config.OPT, c.config.CUDA_WARN_ON_IMPLICIT_COPY, "
            "c.config.DISABLE_PERFORMANCE_WARNINGS, c._core.low_occupancy_warnings(), "
            "c._core.host_copy_warnings())")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CUDAJIT_CUDA_LOW", "CUDAJIT_CUDA_DEBUG", "CUDAJIT_OPT",
                                "NUMBA_"))}
    env["CUDAJIT_DEVICE"] = "cpu"

    def run(**more):
        done = subprocess.run([sys.executable, "-c", code], env={**env, **more},
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert run() == ["True", "False", "3", "True", "False", "True", "True"]
    assert run(NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS="0", NUMBA_CUDA_DEBUGINFO="1",
               NUMBA_OPT="0", NUMBA_CUDA_WARN_ON_IMPLICIT_COPY="0")[:4] == [
                   "False", "True", "0", "False"]
    # Numba's meaning: each warning keeps its setting; the switch silences both.
    assert run(NUMBA_DISABLE_PERFORMANCE_WARNINGS="1")[3:] == ["True", "True", "False", "False"]
    assert run(CUDAJIT_DISABLE_PERFORMANCE_WARNINGS="0",
               NUMBA_DISABLE_PERFORMANCE_WARNINGS="1")[4] == "False"
    assert run(NUMBA_OPT="0", CUDAJIT_OPT="max")[2] == "max"
