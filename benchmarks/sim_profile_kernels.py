"""The kernels of sim_profile.py, written once for cudajit and numba-cuda.

The functions are plain Python; sim_profile.py binds the module-level ``cuda`` to
``cudajit`` or ``numba.cuda`` and compiles each with ``cuda.jit``. ``CASES`` gives each
kernel's launch configuration and inputs (small: the simulated GPU is an interpreter).
"""

from __future__ import annotations

import math
from typing import Any, Callable, NamedTuple

import numpy as np

cuda: Any = None  # bound by sim_profile.py before any compile

TILE = 16
BLOCK = 256
BINS = 256


def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def saxpy_grid_stride(a, x, y, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, out.size, stride):
        out[i] = a * x[i] + y[i]


def stencil_2d(u, u_next):
    j, i = cuda.grid(2)
    rows, cols = u.shape
    if 0 < i < rows - 1 and 0 < j < cols - 1:
        laplacian = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
        u_next[i, j] = u[i, j] + 0.2 * laplacian


def tiled_matmul(A, B, C):
    sA = cuda.shared.array(shape=(TILE, TILE), dtype=np.float32)
    sB = cuda.shared.array(shape=(TILE, TILE), dtype=np.float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    acc = np.float32(0.0)
    for t in range(cuda.gridDim.x):
        sA[ty, tx] = A[y, t * TILE + tx]
        sB[ty, tx] = B[t * TILE + ty, x]
        cuda.syncthreads()
        for k in range(TILE):
            acc += sA[ty, k] * sB[k, tx]
        cuda.syncthreads()
    C[y, x] = acc


def block_reduce(a, out):
    s = cuda.shared.array(BLOCK, np.float32)
    t = cuda.threadIdx.x
    s[t] = a[cuda.grid(1)]
    cuda.syncthreads()
    stride = BLOCK // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        out[cuda.blockIdx.x] = s[0]


def histogram(values, bins):
    local = cuda.shared.array(BINS, np.int32)
    t = cuda.threadIdx.x
    local[t] = 0
    cuda.syncthreads()
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, values.size, stride):
        cuda.atomic.add(local, values[i], 1)
    cuda.syncthreads()
    cuda.atomic.add(bins, t, local[t])


def mandelbrot(image, max_iterations):
    x, y = cuda.grid(2)
    height, width = image.shape
    if x < width and y < height:
        c_re = -2.0 + 3.0 * x / width
        c_im = -1.25 + 2.5 * y / height
        z_re = 0.0
        z_im = 0.0
        n = 0
        while n < max_iterations and z_re * z_re + z_im * z_im <= 4.0:
            z_re, z_im = z_re * z_re - z_im * z_im + c_re, 2.0 * z_re * z_im + c_im
            n += 1
        image[y, x] = n


def math_heavy(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        a = math.fabs(v)
        out[i] = (math.sin(v) + math.cos(v) + math.exp(-a) + math.log1p(a) + math.sqrt(a)
                  + math.tanh(v) + math.atan2(v, 2.0) + math.erf(v) + math.pow(a, 1.5)
                  + math.hypot(v, 3.0) + math.floor(v) + math.lgamma(a + 1.0))


class Case(NamedTuple):
    """A kernel, its grid and block, and a function making its arguments (host arrays are
    copied to the device first)."""

    name: str
    kernel: Callable[..., None]
    grid: Any
    block: Any
    arguments: Callable[[np.random.Generator], tuple]


def _saxpy_arguments(rng: np.random.Generator) -> tuple:
    n = 1 << 15
    return (np.float32(2.0), rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32),
            np.zeros(n, np.float32))


CASES = [
    Case("saxpy", saxpy, 128, BLOCK, _saxpy_arguments),
    Case("saxpy_grid_stride", saxpy_grid_stride, 32, BLOCK, _saxpy_arguments),
    Case("stencil_2d", stencil_2d, (8, 8), (TILE, TILE),
         lambda rng: (rng.random((128, 128)), np.zeros((128, 128)))),
    Case("tiled_matmul", tiled_matmul, (4, 4), (TILE, TILE),
         lambda rng: (rng.random((64, 64), dtype=np.float32),
                      rng.random((64, 64), dtype=np.float32), np.zeros((64, 64), np.float32))),
    Case("block_reduce", block_reduce, 32, BLOCK,
         lambda rng: (rng.random(32 * BLOCK, dtype=np.float32), np.zeros(32, np.float32))),
    Case("histogram", histogram, 16, BINS,
         lambda rng: (rng.integers(0, BINS, 1 << 15).astype(np.int32), np.zeros(BINS, np.int32))),
    Case("mandelbrot", mandelbrot, (8, 4), (TILE, TILE),
         lambda rng: (np.zeros((64, 128), np.int32), 64)),
    Case("math_heavy", math_heavy, 16, BLOCK,
         lambda rng: (rng.standard_normal(16 * BLOCK), np.zeros(16 * BLOCK))),
]
