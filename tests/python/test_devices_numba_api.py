"""Numba's device API beyond kernels: Device attributes (MULTIPROCESSOR_COUNT ...),
Device.reset(), cuda.runtime.get_version(), the profiler calls and
cuda.cudadrv.driver.CudaAPIError, on every device."""

import pytest

import cudajit as cuda
from cudajit import _core

pytestmark = pytest.mark.usefixtures("device")

# The attributes Numba programs read most (numba-cuda's own launch code reads
# MULTIPROCESSOR_COUNT).
COMMON = ("MULTIPROCESSOR_COUNT", "MAX_THREADS_PER_BLOCK", "WARP_SIZE",
          "MAX_SHARED_MEMORY_PER_BLOCK", "MAX_BLOCK_DIM_X", "MAX_BLOCK_DIM_Y", "MAX_BLOCK_DIM_Z",
          "MAX_GRID_DIM_X", "MAX_GRID_DIM_Y", "MAX_GRID_DIM_Z", "COMPUTE_CAPABILITY_MAJOR",
          "COMPUTE_CAPABILITY_MINOR", "MAX_THREADS_PER_MULTIPROCESSOR", "TOTAL_CONSTANT_MEMORY")


def test_numbas_device_attributes_are_ints_that_agree_with_the_devices_limits():
    device = cuda.get_current_device()
    values = {name: getattr(device, name) for name in COMMON}
    assert all(isinstance(v, int) for v in values.values()), values
    assert values["WARP_SIZE"] == 32
    assert values["MAX_THREADS_PER_BLOCK"] == device.max_threads_per_block == 1024
    assert values["MULTIPROCESSOR_COUNT"] == device.multiprocessors >= 1
    assert (values["MAX_BLOCK_DIM_X"], values["MAX_BLOCK_DIM_Z"]) == (1024, 64)
    assert values["MAX_GRID_DIM_X"] == 2**31 - 1
    assert values["MAX_SHARED_MEMORY_PER_BLOCK"] >= 48 * 1024
    assert (values["COMPUTE_CAPABILITY_MAJOR"],
            values["COMPUTE_CAPABILITY_MINOR"]) == device.compute_capability


def test_the_cpu_device_answers_every_attribute_name(device):
    if device != "cpu":
        pytest.skip("a GPU's driver may not know every name of CUDA 13")
    d = cuda.get_current_device()
    names = _core.device_attribute_names()
    assert len(names) > 150 and "CAN_MAP_HOST_MEMORY" in dir(d)
    values = {name: getattr(d, name) for name in names}
    assert values["CAN_MAP_HOST_MEMORY"] == values["MANAGED_MEMORY"] == 1
    assert values["PCI_BUS_ID"] == values["CLOCK_RATE"] == 0  # GPU hardware it has not
    assert d.get_device_identity() == {"pci_domain_id": 0, "pci_bus_id": 0, "pci_device_id": 0}


def test_an_unknown_device_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="'Device' object has no attribute 'NO_SUCH_THING'"):
        cuda.get_current_device().NO_SUCH_THING
    assert not hasattr(cuda.get_current_device(), "warp_size")


def test_device_reset_waits_for_the_work_and_leaves_arrays_usable():
    import numpy as np

    d = cuda.to_device(np.arange(4.0))
    cuda.get_current_device().reset()
    assert d.copy_to_host().tolist() == [0.0, 1.0, 2.0, 3.0]
    assert cuda.get_current_device().supports_float16


def test_runtime_and_driver_versions_are_major_minor_tuples(device):
    version = cuda.runtime.get_version()
    assert isinstance(version, tuple) and len(version) == 2 and version >= (12, 0)
    assert cuda.runtime.is_supported_version()
    if device == "cuda":
        assert cuda.cudadrv.driver.get_version() == version


def test_the_profiler_calls_are_accepted_and_do_nothing():
    cuda.profile_start()
    cuda.profile_stop()
    with cuda.profiling():
        cuda.synchronize()


def test_numbas_cuda_api_error_catches_cudajits_driver_errors():
    assert cuda.cudadrv.driver.CudaAPIError is cuda.CudaDriverError
    assert issubclass(cuda.cudadrv.driver.CudaSupportError, RuntimeError)
    with pytest.raises(cuda.cudadrv.driver.CudaAPIError):
        raise cuda.CudaDriverError("cuMemAlloc failed")


def test_cuda_error_says_why_there_is_no_cuda_device_or_is_none():
    import os
    import subprocess
    import sys
    assert (cuda.cuda_error() is None) == cuda.is_available()
    if cuda.is_available():
        assert cuda.cuda_error() is None
    # A process whose driver library cannot be loaded says so, and still runs on the cpu.
    env = dict(os.environ, CUDAJIT_LIBCUDA="/nonexistent/libcuda.so.1",
               PYTHONPATH=os.path.dirname(os.path.dirname(cuda.__file__)))
    env.pop("CUDAJIT_DEVICE", None)
    done = subprocess.run([sys.executable, "-W", "ignore", "-c",
                           "import cudajit; print(cudajit.cuda_error())"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "/nonexistent/libcuda.so.1" in done.stdout


def test_a_contexts_handle_is_the_devices_primary_context(device):
    import ctypes
    handle = cuda.current_context().handle
    if device == "cpu":
        assert handle == 0
        return
    # The driver's own answer: the primary context of device 0, retained and released.
    driver = ctypes.CDLL(_core.cuda_driver_library())
    primary = ctypes.c_void_p()
    assert driver.cuDevicePrimaryCtxRetain(ctypes.byref(primary), 0) == 0
    try:
        assert handle == primary.value != 0
    finally:
        assert driver.cuDevicePrimaryCtxRelease_v2(0) == 0
