"""A cudajit kernel over a Dask array: each chunk goes through the kernel, on Dask's
threaded scheduler and on a dask.distributed cluster of worker processes.

    python examples/dask_map_blocks.py            # the threaded scheduler
    python examples/dask_map_blocks.py --workers 2  # a LocalCluster of 2 processes
    python examples/dask_map_blocks.py --cupy     # CuPy chunks, which stay on the GPU
    python examples/dask_map_blocks.py --cuda-cluster  # CuPy chunks on every GPU: a worker
                                                       # each (dask-cuda's LocalCUDACluster)

The same program runs on one device or many: Dask hands each task a chunk, and the
kernel runs on that worker's current device (the cpu device here; on GPU workers, with
CuPy chunks, the GPU). Kernels pickle, so they travel to worker processes.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

import cudajit as cuda


@cuda.jit
def gaussian(x, out, mu, sigma):
    i = cuda.grid(1)
    if i < x.size:
        z = (x[i] - mu) / sigma
        out[i] = math.exp(-0.5 * z * z) / (sigma * math.sqrt(2 * math.pi))


def gaussian_block(block: np.ndarray, mu: float = 0.0, sigma: float = 1.0) -> np.ndarray:
    """One chunk through the kernel (a task of map_blocks): copied to the device and
    back, as a NumPy chunk must be on a GPU."""
    threads = 128
    x = cuda.to_device(block)
    out = cuda.device_array_like(x)
    gaussian[(block.size + threads - 1) // threads, threads](x, out, mu, sigma)
    return out.copy_to_host()


def gaussian_block_on_gpu(block, mu: float = 0.0, sigma: float = 1.0):
    """A CuPy chunk: the kernel reads it and writes a new CuPy array where they lie, on
    the GPU, with no copies (cudajit takes CuPy arrays through __cuda_array_interface__
    and waits for the stream CuPy wrote them on)."""
    import cupy

    threads = 128
    out = cupy.empty_like(block)
    gaussian[(block.size + threads - 1) // threads, threads](block, out, mu, sigma)
    return out


def main() -> None:
    import dask.array as da

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=0,
                        help="worker processes of a LocalCluster (0: the threaded scheduler)")
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--cupy", action="store_true",
                        help="CuPy chunks on the GPU instead of NumPy chunks (needs a GPU)")
    parser.add_argument("--cuda-cluster", action="store_true",
                        help="CuPy chunks on a dask-cuda LocalCUDACluster: a worker process per "
                             "GPU, each seeing its own GPU as device 0")
    options = parser.parse_args()
    options.cupy |= options.cuda_cluster

    x = da.linspace(-5, 5, options.size, chunks=options.size // 8)
    if options.cupy:
        import cupy

        on_gpu = x.map_blocks(cupy.asarray, meta=cupy.empty(0, x.dtype))
        y = on_gpu.map_blocks(gaussian_block_on_gpu, mu=0.5, sigma=1.5,
                              meta=cupy.empty(0, x.dtype))
        y = y.map_blocks(cupy.asnumpy, meta=np.empty(0, x.dtype))  # the result to the host
    else:
        y = x.map_blocks(gaussian_block, mu=0.5, sigma=1.5, dtype=x.dtype)
    if options.cuda_cluster:
        from dask.distributed import Client
        from dask_cuda import LocalCUDACluster

        with LocalCUDACluster() as cluster, Client(cluster) as client:
            result = y.compute()
            options.workers = len(client.scheduler_info()["workers"])
    elif options.workers:
        from dask.distributed import Client, LocalCluster

        with LocalCluster(n_workers=options.workers, threads_per_worker=1,
                          processes=True) as cluster, Client(cluster):
            result = y.compute()
    else:
        result = y.compute(scheduler="threads")
    host = np.linspace(-5, 5, options.size)
    expected = np.exp(-0.5 * ((host - 0.5) / 1.5) ** 2) / (1.5 * math.sqrt(2 * math.pi))
    assert np.allclose(result, expected), "the kernel's chunks differ from NumPy"
    device = cuda.get_current_device()
    print(f"{options.size} values in {x.numblocks[0]} chunks on "
          f"{options.workers or 'threaded'} workers, device: {device.kind} ({device.name}): "
          f"max {result.max():.6f}, matches NumPy")


if __name__ == "__main__":
    main()
