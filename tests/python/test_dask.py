"""cudajit under Dask: a Dask array's chunks go through a cudajit kernel with map_blocks,
on the threaded scheduler (one process, kernels launched from several threads at once)
and on a dask.distributed LocalCluster of worker processes (the kernel pickles and is
compiled again in each worker). Results are checked against NumPy."""

import math

import numpy as np
import pytest

import cudajit as cuda

da = pytest.importorskip("dask.array", reason="dask is installed by scripts/install-deps.sh")

pytestmark = pytest.mark.usefixtures("on_cpu_device")


@cuda.jit
def polynomial(x, out, a, b):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] * x[i] + b * math.sin(x[i])


def through_kernel(block, a=2.0, b=-1.0):
    out = np.empty_like(block)
    polynomial[(block.size + 127) // 128, 128](block, out, a, b)
    return out


def expected(values, a=2.0, b=-1.0):
    return a * values * values + b * np.sin(values)


def assert_matches_numpy(result, values, a=2.0, b=-1.0):
    # A few ulps of the terms, not of the (sometimes cancelling) sum: GPU code contracts
    # a * x * x + ... into an fma and takes sin from libdevice.
    scale = np.abs(a * values * values) + np.abs(b * np.sin(values))
    np.testing.assert_array_less(np.abs(result - expected(values, a, b)), 8e-16 * scale + 1e-300)


def test_map_blocks_on_the_threaded_scheduler():
    values = np.linspace(-3, 3, 100_000)
    x = da.from_array(values, chunks=9_000)  # 12 chunks, the last one shorter
    y = x.map_blocks(through_kernel, a=0.5, b=3.0, dtype=x.dtype)
    result = y.compute(scheduler="threads", num_workers=4)
    assert_matches_numpy(result, values, 0.5, 3.0)


def test_map_blocks_on_a_distributed_cluster_of_processes():
    distributed = pytest.importorskip("dask.distributed")
    values = np.linspace(-3, 3, 50_000)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        y = da.from_array(values, chunks=5_000).map_blocks(through_kernel, dtype=values.dtype)
        result = y.compute()
        # Both workers ran tasks: the kernel travelled to each process.
        assert len(client.scheduler_info()["workers"]) == 2
    assert_matches_numpy(result, values)


# CuPy chunks on the GPU: the kernel takes them through __cuda_array_interface__, with no
# copies. CuPy needs a real GPU (it cannot run on the simulated one).


@pytest.fixture
def cupy_on_gpu():
    from cudajit import _core

    if not _core.cuda_available() or _core.cuda_simulated():
        pytest.skip("CuPy chunks need a real GPU: " + (
            "only the simulated GPU is here" if _core.cuda_available()
            else _core.cuda_unavailable_reason()))
    return pytest.importorskip("cupy", reason="CuPy is not installed")


def through_kernel_on_gpu(block, a=2.0, b=-1.0):
    import cupy

    with cuda.gpus[0]:  # each Dask worker thread chooses the GPU (the module chose the cpu)
        out = cupy.empty_like(block)
        polynomial[(block.size + 127) // 128, 128](block, out, a, b)
    return out


def cupy_pipeline(cp, values, chunks):
    """NumPy chunks to CuPy, through the kernel, and back to NumPy for the result."""
    on_gpu = da.from_array(values, chunks=chunks).map_blocks(cp.asarray,
                                                            meta=cp.empty(0, values.dtype))
    y = on_gpu.map_blocks(through_kernel_on_gpu, a=0.5, b=3.0, meta=cp.empty(0, values.dtype))
    return y.map_blocks(cp.asnumpy, meta=np.empty(0, values.dtype))


def test_cupy_chunks_on_the_threaded_scheduler(cupy_on_gpu):
    values = np.linspace(-3, 3, 100_000)
    result = cupy_pipeline(cupy_on_gpu, values, 9_000).compute(scheduler="threads",
                                                              num_workers=4)
    assert_matches_numpy(result, values, 0.5, 3.0)


def test_cupy_chunks_on_a_distributed_cluster_of_processes(cupy_on_gpu):
    distributed = pytest.importorskip("dask.distributed")
    values = np.linspace(-3, 3, 50_000)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        result = cupy_pipeline(cupy_on_gpu, values, 5_000).compute()
        assert len(client.scheduler_info()["workers"]) == 2
    assert_matches_numpy(result, values, 0.5, 3.0)


def test_cupy_chunks_on_a_local_cuda_cluster(cupy_on_gpu):
    # dask-cuda's LocalCUDACluster: a worker process per GPU, each made to see its own GPU
    # as device 0 (CUDA_VISIBLE_DEVICES), where through_kernel_on_gpu launches.
    dask_cuda = pytest.importorskip("dask_cuda", reason="dask-cuda is not installed")
    distributed = pytest.importorskip("dask.distributed")
    values = np.linspace(-3, 3, 50_000)
    with dask_cuda.LocalCUDACluster(dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        result = cupy_pipeline(cupy_on_gpu, values, 5_000).compute()
        workers = len(client.scheduler_info()["workers"])
    assert workers == len(cuda.gpus)
    assert_matches_numpy(result, values, 0.5, 3.0)


def test_the_example_with_cupy_chunks(cupy_on_gpu):
    import os
    import pathlib
    import subprocess
    import sys

    root = pathlib.Path(__file__).resolve().parents[2]
    env = dict(os.environ, CUDAJIT_DEVICE="cuda", PYTHONPATH=os.pathsep.join(
        [str(root / "python")] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                  if p]))
    result = subprocess.run([sys.executable, str(root / "examples" / "dask_map_blocks.py"),
                             "--cupy", "--size", "200000"],
                            capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "matches NumPy" in result.stdout and "device: cuda (" in result.stdout
