#!/usr/bin/env python3
"""The cpu device against numba @njit(parallel=True) and PoCL on the same computations.

    PYTHONPATH=python python3 benchmarks/cpu_device.py [--repeats N] [--rounds R] [--cases a,b]
                                [--stat min|median] [--json PATH] [--numba-python PATH]

Each computation is written three times: a cudajit kernel run on the cpu device, a Numba CPU
function (`@njit(parallel=True)` with `prange`, as a user without a GPU writes it), and an
OpenCL C kernel run by PoCL through pyopencl. The three take turns on each computation, R
rounds of N/R timed runs each after an untimed one, so that a slow spell of a shared machine
falls on all three; the table shows the fastest run (timeit's reasoning: the slower ones
measure the neighbours) or with --stat median the median, and the JSON has both. Every
result is checked against NumPy. Numba runs in this process when it imports here, else in a
child process of --numba-python (default build/compat-venv/bin/python, made by `make compat`);
PoCL needs `scripts/install-deps.sh --bench`. A peer that cannot run is a column of n/a with
the reason below the table. Targets (issue 25): cudajit within 1.5x of numba and at or ahead
of PoCL on every row.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
os.environ.setdefault("CUDAJIT_DEVICE", "cpu")

TPB = 256        # threads per block of the 1-D kernels
TILE = 16        # the matmul's tile
N_SAXPY = 1 << 24
N_REDUCE = 1 << 22
N_HIST = 1 << 22
BINS = 256
MANDEL = (768, 1024, 200)  # rows, columns, iterations
N_STENCIL = 2048
N_STENCIL3 = 256
N_MATMUL = 512


# --- inputs and NumPy references -----------------------------------------------------------

def inputs(case: str) -> dict:
    rng = np.random.default_rng(0)
    if case.startswith("saxpy"):
        return {"x": rng.random(N_SAXPY, dtype=np.float32),
                "y": rng.random(N_SAXPY, dtype=np.float32), "a": np.float32(2.5)}
    if case.startswith("mandelbrot"):
        rows, cols, _ = MANDEL
        return {"out": np.zeros((rows, cols), np.int32)}
    if case == "stencil2d":
        return {"a": rng.random((N_STENCIL, N_STENCIL))}
    if case == "stencil3d":
        return {"a": rng.random((N_STENCIL3,) * 3, dtype=np.float32)}
    if case in ("block_reduce", "warp_reduce"):
        return {"a": rng.random(N_REDUCE)}
    if case == "scan":
        return {"a": rng.random(N_REDUCE, dtype=np.float32)}
    if case == "matmul":
        return {"A": rng.random((N_MATMUL, N_MATMUL), dtype=np.float32),
                "B": rng.random((N_MATMUL, N_MATMUL), dtype=np.float32)}
    if case == "histogram":
        return {"x": rng.integers(0, BINS, N_HIST, dtype=np.int32)}
    raise KeyError(case)


def mandel_reference() -> np.ndarray:
    rows, cols, iters = MANDEL
    cr = (-2.0 + 3.0 * np.arange(cols) / cols).astype(np.float32)[None, :]
    ci = (-1.0 + 2.0 * np.arange(rows) / rows).astype(np.float32)[:, None]
    c = cr + 1j * ci
    z = np.zeros_like(c).astype(np.complex64)
    out = np.full(c.shape, iters, np.int32)
    for k in range(iters):  # the kernels test |z| before each step
        escaped = (out == iters) & (z.real * z.real + z.imag * z.imag > 4.0)
        out[escaped] = k
        alive = out == iters
        z[alive] = z[alive] * z[alive] + c[alive]
    return out


def reference(case: str, d: dict) -> np.ndarray:
    if case.startswith("saxpy"):
        return d["a"] * d["x"] + d["y"]
    if case == "stencil2d":
        a = d["a"]
        out = np.zeros_like(a)
        out[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:]) \
            - a[1:-1, 1:-1]
        return out
    if case == "stencil3d":
        a = d["a"]
        out = np.zeros_like(a)
        c = (slice(1, -1),) * 3
        s = a[:-2, 1:-1, 1:-1] + a[2:, 1:-1, 1:-1] + a[1:-1, :-2, 1:-1] + a[1:-1, 2:, 1:-1] \
            + a[1:-1, 1:-1, :-2] + a[1:-1, 1:-1, 2:]
        out[c] = np.float32(1 / 6) * s - a[c]
        return out
    if case == "block_reduce":
        return d["a"].reshape(-1, TPB).sum(axis=1)
    if case == "warp_reduce":
        return d["a"].reshape(-1, 32).sum(axis=1)
    if case == "scan":
        return np.cumsum(d["a"].reshape(-1, TPB), axis=1, dtype=np.float64).ravel()
    if case == "matmul":
        return d["A"] @ d["B"]
    if case == "histogram":
        return np.bincount(d["x"], minlength=BINS).astype(np.int32)
    if case.startswith("mandelbrot"):
        return mandel_reference()
    raise KeyError(case)


def matches(case: str, got: np.ndarray, want: np.ndarray) -> bool:
    if case.startswith("mandelbrot"):  # float32 rounding moves a few pixels on the set's edge
        return np.mean(got != want) < 1e-2
    if case == "histogram":
        return np.array_equal(got, want)
    return np.allclose(got, want, rtol=1e-4, atol=1e-3 if case == "scan" else 1e-5)


# --- the computations as cudajit kernels ---------------------------------------------------

def cudajit_cases():
    import cudajit as cuda

    @cuda.jit
    def saxpy(a, x, y, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = a * x[i] + y[i]

    @cuda.jit
    def saxpy_stride(a, x, y, out):
        for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
            out[i] = a * x[i] + y[i]

    @cuda.jit
    def mandelbrot(out, iters):
        col, row = cuda.grid(2)
        rows, cols = out.shape
        if row < rows and col < cols:
            cr = np.float32(-2.0 + 3.0 * col / cols)
            ci = np.float32(-1.0 + 2.0 * row / rows)
            zr = np.float32(0.0)
            zi = np.float32(0.0)
            n = iters
            for k in range(iters):
                zr2 = zr * zr
                zi2 = zi * zi
                if zr2 + zi2 > 4.0:
                    n = k
                    break
                zi = np.float32(2.0) * zr * zi + ci
                zr = zr2 - zi2 + cr
            out[row, col] = n

    @cuda.jit(device=True)
    def escape_time(cr, ci, iters):
        zr = np.float32(0.0)
        zi = np.float32(0.0)
        for k in range(iters):
            zr2 = zr * zr
            zi2 = zi * zi
            if zr2 + zi2 > 4.0:
                return k
            zi = np.float32(2.0) * zr * zi + ci
            zr = zr2 - zi2 + cr
        return iters

    @cuda.jit
    def mandelbrot_fn(out, iters):
        col, row = cuda.grid(2)
        rows, cols = out.shape
        if row < rows and col < cols:
            cr = np.float32(-2.0 + 3.0 * col / cols)
            ci = np.float32(-1.0 + 2.0 * row / rows)
            out[row, col] = escape_time(cr, ci, iters)

    @cuda.jit
    def stencil2d(a, out):
        j, i = cuda.grid(2)
        n, m = a.shape
        if 0 < i < n - 1 and 0 < j < m - 1:
            out[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]) - a[i, j]

    @cuda.jit
    def stencil3d(a, out):
        k, j, i = cuda.grid(3)
        n = a.shape[0]
        if 0 < i < n - 1 and 0 < j < n - 1 and 0 < k < n - 1:
            s = (a[i - 1, j, k] + a[i + 1, j, k] + a[i, j - 1, k] + a[i, j + 1, k]
                 + a[i, j, k - 1] + a[i, j, k + 1])
            out[i, j, k] = np.float32(1 / 6) * s - a[i, j, k]

    @cuda.jit
    def block_reduce(a, out):
        s = cuda.shared.array(TPB, np.float64)
        t = cuda.threadIdx.x
        s[t] = a[cuda.grid(1)]
        cuda.syncthreads()
        stride = TPB // 2
        while stride > 0:
            if t < stride:
                s[t] += s[t + stride]
            cuda.syncthreads()
            stride //= 2
        if t == 0:
            out[cuda.blockIdx.x] = s[0]

    @cuda.jit
    def warp_reduce(a, out):
        i = cuda.grid(1)
        v = a[i]
        for delta in (16, 8, 4, 2, 1):
            v += cuda.shfl_down_sync(0xFFFFFFFF, v, delta)
        if cuda.laneid == 0:
            out[i // 32] = v

    @cuda.jit
    def scan(a, out):
        s = cuda.shared.array(TPB, np.float32)
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        s[t] = a[i]
        cuda.syncthreads()
        offset = 1
        while offset < TPB:
            v = s[t - offset] if t >= offset else np.float32(0)
            cuda.syncthreads()
            s[t] += v
            cuda.syncthreads()
            offset *= 2
        out[i] = s[t]

    @cuda.jit
    def matmul(A, B, C):
        sA = cuda.shared.array((TILE, TILE), np.float32)
        sB = cuda.shared.array((TILE, TILE), np.float32)
        x, y = cuda.grid(2)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        acc = np.float32(0)
        for t in range(cuda.gridDim.x):
            sA[ty, tx] = A[y, t * TILE + tx]
            sB[ty, tx] = B[t * TILE + ty, x]
            cuda.syncthreads()
            for k in range(TILE):
                acc += sA[ty, k] * sB[k, tx]
            cuda.syncthreads()
        C[y, x] = acc

    @cuda.jit
    def histogram(x, hist):
        i = cuda.grid(1)
        if i < x.size:
            cuda.atomic.add(hist, x[i], 1)

    def blocks(n, tpb=TPB):
        return (n + tpb - 1) // tpb

    def prepare(case, d):
        """(kernel, grid, block, device args, result array, fill before each run or None)."""
        dev = {k: cuda.to_device(v) if isinstance(v, np.ndarray) else v for k, v in d.items()}
        if case.startswith("saxpy"):
            out = cuda.device_array_like(d["x"])
            grid = {"saxpy": blocks(N_SAXPY), "saxpy_stride64": 64, "saxpy_stride1024": 1024}[case]
            kernel = saxpy if case == "saxpy" else saxpy_stride
            return kernel, grid, TPB, (d["a"], dev["x"], dev["y"], out), out, None
        if case.startswith("mandelbrot"):
            rows, cols, iters = MANDEL
            kernel = mandelbrot if case == "mandelbrot" else mandelbrot_fn
            return kernel, (cols // 32, rows // 8), (32, 8), (dev["out"], iters), dev["out"], None
        if case == "stencil2d":
            out = cuda.to_device(np.zeros_like(d["a"]))
            return stencil2d, (N_STENCIL // 32, N_STENCIL // 8), (32, 8), (dev["a"], out), out, None
        if case == "stencil3d":
            out = cuda.to_device(np.zeros_like(d["a"]))
            n = N_STENCIL3
            return stencil3d, (n // 64, n // 4, n), (64, 4, 1), (dev["a"], out), out, None
        if case in ("block_reduce", "warp_reduce"):
            out = cuda.device_array(N_REDUCE // (TPB if case == "block_reduce" else 32))
            kernel = block_reduce if case == "block_reduce" else warp_reduce
            return kernel, N_REDUCE // TPB, TPB, (dev["a"], out), out, None
        if case == "scan":
            out = cuda.device_array(N_REDUCE, np.float32)
            return scan, N_REDUCE // TPB, TPB, (dev["a"], out), out, None
        if case == "matmul":
            C = cuda.device_array((N_MATMUL, N_MATMUL), np.float32)
            g = N_MATMUL // TILE
            return matmul, (g, g), (TILE, TILE), (dev["A"], dev["B"], C), C, None
        if case == "histogram":
            hist = cuda.device_array(BINS, np.int32)
            return histogram, blocks(N_HIST), TPB, (dev["x"], hist), hist, hist
        raise KeyError(case)

    return cuda, prepare


def cudajit_runners(cases: list[str]) -> dict:
    cuda, prepare = cudajit_cases()
    runners = {}
    for case in cases:
        d = inputs(case)
        kernel, grid, block, args, out, zero = prepare(case, d)

        def once(kernel=kernel, grid=grid, block=block, args=args, zero=zero):
            if zero is not None:
                zero.copy_to_device(np.zeros(zero.shape, zero.dtype))
            kernel[grid, block](*args)
            cuda.synchronize()
        once()
        runners[case] = (once, bool(matches(case, out.copy_to_host(), reference(case, d))))
    return runners


# --- the computations for Numba's CPU JIT ---------------------------------------------------

def numba_functions():
    from numba import njit, prange

    @njit(parallel=True)
    def saxpy(a, x, y, out):
        for i in prange(x.size):
            out[i] = a * x[i] + y[i]

    @njit(parallel=True)
    def mandelbrot(out, iters):
        rows, cols = out.shape
        for row in prange(rows):
            ci = np.float32(-1.0 + 2.0 * row / rows)
            for col in range(cols):
                cr = np.float32(-2.0 + 3.0 * col / cols)
                zr = np.float32(0.0)
                zi = np.float32(0.0)
                n = iters
                for k in range(iters):
                    zr2 = zr * zr
                    zi2 = zi * zi
                    if zr2 + zi2 > 4.0:
                        n = k
                        break
                    zi = np.float32(2.0) * zr * zi + ci
                    zr = zr2 - zi2 + cr
                out[row, col] = n

    @njit
    def escape_time(cr, ci, iters):
        zr = np.float32(0.0)
        zi = np.float32(0.0)
        for k in range(iters):
            zr2 = zr * zr
            zi2 = zi * zi
            if zr2 + zi2 > 4.0:
                return k
            zi = np.float32(2.0) * zr * zi + ci
            zr = zr2 - zi2 + cr
        return iters

    @njit(parallel=True)
    def mandelbrot_fn(out, iters):
        rows, cols = out.shape
        for row in prange(rows):
            ci = np.float32(-1.0 + 2.0 * row / rows)
            for col in range(cols):
                out[row, col] = escape_time(np.float32(-2.0 + 3.0 * col / cols), ci, iters)

    @njit(parallel=True)
    def stencil2d(a, out):
        n, m = a.shape
        for i in prange(1, n - 1):
            for j in range(1, m - 1):
                out[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]) \
                    - a[i, j]

    @njit(parallel=True)
    def stencil3d(a, out):
        n = a.shape[0]
        for i in prange(1, n - 1):
            for j in range(1, n - 1):
                for k in range(1, n - 1):
                    s = (a[i - 1, j, k] + a[i + 1, j, k] + a[i, j - 1, k] + a[i, j + 1, k]
                         + a[i, j, k - 1] + a[i, j, k + 1])
                    out[i, j, k] = np.float32(1 / 6) * s - a[i, j, k]

    @njit(parallel=True)
    def chunk_sums(a, out, width):
        for b in prange(out.size):
            acc = 0.0
            for t in range(width):
                acc += a[b * width + t]
            out[b] = acc

    @njit(parallel=True)
    def scan(a, out, width):
        for b in prange(a.size // width):
            acc = np.float32(0)
            for t in range(b * width, (b + 1) * width):
                acc += a[t]
                out[t] = acc

    @njit(parallel=True)
    def matmul(A, B, C):
        n = A.shape[0]
        for i in prange(n):
            for j in range(n):
                acc = np.float32(0)
                for k in range(n):
                    acc += A[i, k] * B[k, j]
                C[i, j] = acc

    @njit  # a shared histogram's updates race under prange: one thread, as users write it
    def histogram(x, hist):
        for i in range(x.size):
            hist[x[i]] += 1

    def prepare(case, d):
        if case.startswith("saxpy"):
            out = np.empty_like(d["x"])
            return saxpy, (d["a"], d["x"], d["y"], out), out, None
        if case.startswith("mandelbrot"):
            kernel = mandelbrot if case == "mandelbrot" else mandelbrot_fn
            return kernel, (d["out"], MANDEL[2]), d["out"], None
        if case in ("stencil2d", "stencil3d"):
            out = np.zeros_like(d["a"])
            return (stencil2d if case == "stencil2d" else stencil3d), (d["a"], out), out, None
        if case in ("block_reduce", "warp_reduce"):
            width = TPB if case == "block_reduce" else 32
            out = np.empty(N_REDUCE // width)
            return chunk_sums, (d["a"], out, width), out, None
        if case == "scan":
            out = np.empty_like(d["a"])
            return scan, (d["a"], out, TPB), out, None
        if case == "matmul":
            C = np.empty_like(d["A"])
            return matmul, (d["A"], d["B"], C), C, None
        if case == "histogram":
            hist = np.zeros(BINS, np.int32)
            return histogram, (d["x"], hist), hist, hist
        raise KeyError(case)

    return prepare


def numba_runners(cases: list[str]) -> dict:
    prepare = numba_functions()
    runners = {}
    for case in cases:
        d = inputs(case)
        fn, args, out, zero = prepare(case, d)

        def once(fn=fn, args=args, zero=zero):
            if zero is not None:
                zero[:] = 0
            fn(*args)
        once()
        runners[case] = (once, bool(matches(case, out, reference(case, d))))
    return runners


# --- the computations as OpenCL C kernels, for PoCL -----------------------------------------

OPENCL = r"""
__kernel void saxpy(float a, __global const float* x, __global const float* y,
                    __global float* out, int n) {
    int i = get_global_id(0);
    if (i < n) out[i] = a * x[i] + y[i];
}
__kernel void saxpy_stride(float a, __global const float* x, __global const float* y,
                           __global float* out, int n) {
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) out[i] = a * x[i] + y[i];
}
__kernel void mandelbrot(__global int* out, int rows, int cols, int iters) {
    int col = get_global_id(0), row = get_global_id(1);
    if (row >= rows || col >= cols) return;
    float cr = (float)(-2.0 + 3.0 * col / cols), ci = (float)(-1.0 + 2.0 * row / rows);
    float zr = 0.0f, zi = 0.0f;
    int n = iters;
    for (int k = 0; k < iters; ++k) {
        float zr2 = zr * zr, zi2 = zi * zi;
        if (zr2 + zi2 > 4.0f) { n = k; break; }
        zi = 2.0f * zr * zi + ci;
        zr = zr2 - zi2 + cr;
    }
    out[row * cols + col] = n;
}
static int escape_time(float cr, float ci, int iters) {
    float zr = 0.0f, zi = 0.0f;
    for (int k = 0; k < iters; ++k) {
        float zr2 = zr * zr, zi2 = zi * zi;
        if (zr2 + zi2 > 4.0f) return k;
        zi = 2.0f * zr * zi + ci;
        zr = zr2 - zi2 + cr;
    }
    return iters;
}
__kernel void mandelbrot_fn(__global int* out, int rows, int cols, int iters) {
    int col = get_global_id(0), row = get_global_id(1);
    if (row < rows && col < cols)
        out[row * cols + col] = escape_time((float)(-2.0 + 3.0 * col / cols),
                                            (float)(-1.0 + 2.0 * row / rows), iters);
}
__kernel void stencil2d(__global const double* a, __global double* out, int n) {
    int j = get_global_id(0), i = get_global_id(1);
    if (i > 0 && i < n - 1 && j > 0 && j < n - 1)
        out[i * n + j] = 0.25 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1]
                                 + a[i * n + j + 1]) - a[i * n + j];
}
__kernel void stencil3d(__global const float* a, __global float* out, int n) {
    int k = get_global_id(0), j = get_global_id(1), i = get_global_id(2);
    if (i > 0 && i < n - 1 && j > 0 && j < n - 1 && k > 0 && k < n - 1) {
        long c = ((long)i * n + j) * n + k, p = (long)n * n;
        float s = a[c - p] + a[c + p] + a[c - n] + a[c + n] + a[c - 1] + a[c + 1];
        out[c] = (1.0f / 6.0f) * s - a[c];
    }
}
__kernel void block_reduce(__global const double* a, __global double* out) {
    __local double s[256];
    int t = get_local_id(0);
    s[t] = a[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int stride = 128; stride > 0; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0) out[get_group_id(0)] = s[0];
}
__kernel void warp_reduce(__global const double* a, __global double* out) {
    /* OpenCL 1.2 has no shuffle; the same 32-lane tree through local memory */
    __local double s[256];
    int t = get_local_id(0), lane = t % 32;
    s[t] = a[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int delta = 16; delta > 0; delta /= 2) {
        double v = lane + delta < 32 ? s[t + delta] : 0.0;
        barrier(CLK_LOCAL_MEM_FENCE);
        s[t] += v;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lane == 0) out[get_global_id(0) / 32] = s[t];
}
__kernel void scan(__global const float* a, __global float* out) {
    __local float s[256];
    int t = get_local_id(0), i = get_global_id(0);
    s[t] = a[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int offset = 1; offset < 256; offset *= 2) {
        float v = t >= offset ? s[t - offset] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        s[t] += v;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[i] = s[t];
}
__kernel void matmul(__global const float* A, __global const float* B, __global float* C,
                     int n) {
    __local float sA[16][16], sB[16][16];
    int x = get_global_id(0), y = get_global_id(1), tx = get_local_id(0), ty = get_local_id(1);
    float acc = 0.0f;
    for (int t = 0; t < get_num_groups(0); ++t) {
        sA[ty][tx] = A[y * n + t * 16 + tx];
        sB[ty][tx] = B[(t * 16 + ty) * n + x];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < 16; ++k) acc += sA[ty][k] * sB[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[y * n + x] = acc;
}
__kernel void histogram(__global const int* x, __global int* hist, int n) {
    int i = get_global_id(0);
    if (i < n) atomic_inc(&hist[x[i]]);
}
"""


def pocl_context():
    """(context, queue, program) on PoCL's cpu device; raises with the reason otherwise."""
    import pyopencl as cl
    for p in cl.get_platforms():
        if "portable" in p.name.lower() or "pocl" in p.name.lower():
            ctx = cl.Context(p.get_devices())
            queue = cl.CommandQueue(ctx)
            return cl, ctx, queue, cl.Program(ctx, OPENCL).build()
    raise RuntimeError("no PoCL platform (scripts/install-deps.sh --bench installs it)")


def pocl_runners(cases: list[str]) -> dict:
    cl, ctx, queue, prog = pocl_context()
    mf = cl.mem_flags
    i32, f32 = np.int32, np.float32
    runners = {}
    for case in cases:
        d = inputs(case)
        buf = {k: cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=v)
               for k, v in d.items() if isinstance(v, np.ndarray)}

        def out_like(shape, dtype):
            host = np.zeros(shape, dtype)
            return host, cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=host)
        zero = None
        if case.startswith("saxpy"):
            host, out = out_like(N_SAXPY, np.float32)
            if case == "saxpy":
                glob, local, kernel = (N_SAXPY,), (TPB,), cl.Kernel(prog, "saxpy")
            else:
                blocks = 64 if case == "saxpy_stride64" else 1024
                glob, local, kernel = (blocks * TPB,), (TPB,), cl.Kernel(prog, "saxpy_stride")
            args = (f32(d["a"]), buf["x"], buf["y"], out, i32(N_SAXPY))
        elif case.startswith("mandelbrot"):
            rows, cols, iters = MANDEL
            host, out = out_like((rows, cols), np.int32)
            glob, local, kernel = (cols, rows), (32, 8), cl.Kernel(prog, case)
            args = (out, i32(rows), i32(cols), i32(iters))
        elif case in ("stencil2d", "stencil3d"):
            host, out = out_like(d["a"].shape, d["a"].dtype)
            n = d["a"].shape[0]
            if case == "stencil2d":
                glob, local, kernel = (n, n), (32, 8), cl.Kernel(prog, "stencil2d")
            else:
                glob, local, kernel = (n, n, n), (64, 4, 1), cl.Kernel(prog, "stencil3d")
            args = (buf["a"], out, i32(n))
        elif case in ("block_reduce", "warp_reduce"):
            host, out = out_like(N_REDUCE // (TPB if case == "block_reduce" else 32), np.float64)
            glob, local, kernel = (N_REDUCE,), (TPB,), cl.Kernel(prog, case)
            args = (buf["a"], out)
        elif case == "scan":
            host, out = out_like(N_REDUCE, np.float32)
            glob, local, kernel = (N_REDUCE,), (TPB,), cl.Kernel(prog, "scan")
            args = (buf["a"], out)
        elif case == "matmul":
            host, out = out_like((N_MATMUL, N_MATMUL), np.float32)
            glob, local, kernel = (N_MATMUL, N_MATMUL), (TILE, TILE), cl.Kernel(prog, "matmul")
            args = (buf["A"], buf["B"], out, i32(N_MATMUL))
        elif case == "histogram":
            host, out = out_like(BINS, np.int32)
            glob, local, kernel = (N_HIST,), (TPB,), cl.Kernel(prog, "histogram")
            args = (buf["x"], out, i32(N_HIST))
            zero = out
        else:
            raise KeyError(case)

        def once(zero=zero, kernel=kernel, glob=glob, local=local, args=args):
            if zero is not None:
                cl.enqueue_fill_buffer(queue, zero, np.int32(0), 0, BINS * 4)
            kernel(queue, glob, local, *args)
            queue.finish()
        once()
        cl.enqueue_copy(queue, host, out)
        runners[case] = (once, bool(matches(case, host, reference(case, d))))
    return runners


# --- running and reporting -----------------------------------------------------------------

CASES = {
    "saxpy": "saxpy 16M float32, one element per thread",
    "saxpy_stride64": "saxpy as a grid-stride loop, 64x256 threads",
    "saxpy_stride1024": "saxpy as a grid-stride loop, 1024x256 threads",
    "mandelbrot": "mandelbrot 1024x768, 200 iterations, float32",
    "mandelbrot_fn": "the same, the escape time a device function returning from its loop",
    "stencil2d": "5-point stencil 2048^2 float64",
    "stencil3d": "7-point stencil 256^3 float32",
    "block_reduce": "block reduction 4M float64, shared memory, 9 barriers",
    "warp_reduce": "warp-shuffle reduction 4M float64, 5 shuffles",
    "scan": "block scan 4M float32 (256 per block), 17 barriers",
    "matmul": "tiled matmul 512^2 float32, shared memory",
    "histogram": "histogram 4M int32, 256 bins, global atomics",
}
PEER_NOTES = {"matmul": "numba: naive i,j,k loops", "histogram": "numba: one thread (@njit)",
              "warp_reduce": "PoCL: local-memory tree (OpenCL 1.2 has no shuffle)"}


def sample_ms(once, count: int) -> list[float]:
    """`count` timed runs after an untimed one (the caches and threads the last peer left)."""
    once()
    samples = []
    for _ in range(count):
        t0 = time.perf_counter()
        once()
        samples.append((time.perf_counter() - t0) * 1e3)
    return samples


class NumbaChild:
    """numba_runners in a child process of another Python, driven a case at a time."""

    def __init__(self, cases: list[str], python: str):
        self.process = subprocess.Popen([python, __file__, "--peer-numba", "--cases",
                                         ",".join(cases)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True)
        line = self.process.stdout.readline()
        if not line:
            error = self.process.stderr.read().strip().splitlines() or ["failed"]
            raise RuntimeError(error[-1])
        self.ok = json.loads(line)

    def runners(self) -> dict:
        return {case: (lambda count, case=case: self.ask(case, count), ok)
                for case, ok in self.ok.items()}

    def ask(self, case: str, count: int) -> list[float]:
        self.process.stdin.write(f"{case} {count}\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=60)


def serve_numba(cases: list[str]) -> None:
    """The child's side of NumbaChild: results first, then samples for each request."""
    runners = numba_runners(cases)
    print(json.dumps({case: ok for case, (_, ok) in runners.items()}), flush=True)
    for line in sys.stdin:
        case, count = line.split()
        print(json.dumps(sample_ms(runners[case][0], int(count))), flush=True)


def local(runners: dict) -> dict:
    """Runners of this process as the same (sample(count), ok) pairs as NumbaChild's."""
    return {case: (lambda count, once=once: sample_ms(once, count), ok)
            for case, (once, ok) in runners.items()}


def numba_peer(cases: list[str], python: str):
    """(runners, child or None) for numba here, else in --numba-python."""
    try:
        import numba  # noqa: F401
    except ImportError:
        pass
    else:
        return local(numba_runners(cases)), None
    if not pathlib.Path(python).exists():
        raise RuntimeError(f"no numba here and no {python} (make compat builds it, or pass "
                           "--numba-python)")
    child = NumbaChild(cases, python)
    return child.runners(), child


def peer(fn, *args):
    try:
        return fn(*args)
    except Exception as exc:  # a peer that cannot run is a column of n/a
        return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"


def measure(tools: dict, cases: list[str], repeats: int, rounds: int, stat: str) -> dict:
    """{tool: {case: {"ms", "min_ms", "median_ms", "ok"}}}: the tools take turns on each case,
    `rounds` times, so that a slow spell of this shared machine falls on all of them alike;
    "ms" is the `stat` of all samples."""
    samples = {name: {case: [] for case in cases} for name in tools}
    per_round = max(1, math.ceil(repeats / rounds))
    for _ in range(rounds):
        for case in cases:
            for name, runners in tools.items():
                if isinstance(runners, dict) and case in runners:
                    samples[name][case] += runners[case][0](per_round)
    return {name: runners if not isinstance(runners, dict) else
            {case: {"ms": statistics.median(samples[name][case]) if stat == "median" else
                     min(samples[name][case]), "median_ms": statistics.median(samples[name][case]),
                     "min_ms": min(samples[name][case]), "ok": runners[case][1]}
             for case in cases if case in runners}
            for name, runners in tools.items()}


def cell(result: dict | str, case: str) -> float | None:
    return result[case]["ms"] if isinstance(result, dict) and case in result else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--stat", choices=("min", "median"), default="min")
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--numba-python", default=str(ROOT / "build/compat-venv/bin/python"))
    parser.add_argument("--no-pocl", action="store_true")
    parser.add_argument("--json", default=str(ROOT / "benchmarks/results/cpu_device.json"))
    parser.add_argument("--peer-numba", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    cases = [c for c in args.cases.split(",") if c]
    if args.peer_numba:  # the child process of NumbaChild
        serve_numba(cases)
        return 0

    ours = local(cudajit_runners(cases))
    numba_and_child = peer(numba_peer, cases, args.numba_python)
    numba, child = numba_and_child if isinstance(numba_and_child, tuple) else \
        (numba_and_child, None)
    pocl = "skipped (--no-pocl)" if args.no_pocl else peer(lambda: local(pocl_runners(cases)))
    results = measure({"cudajit": ours, "numba": numba, "PoCL": pocl}, cases, args.repeats,
                      args.rounds, args.stat)
    if child:
        child.close()
    ours, numba, pocl = results["cudajit"], results["numba"], results["PoCL"]

    print(f"cpu device vs numba @njit(parallel=True) and PoCL, ms per run ({args.stat} of "
          f"{args.repeats}, the three taking turns in {args.rounds} rounds), "
          f"{os.cpu_count()} cores")
    print(f"{'computation':<20}{'cudajit':>10}{'numba':>10}{'PoCL':>10}"
          f"{'vs numba':>10}{'vs PoCL':>9}")
    rows = []
    fmt = lambda v: f"{v:.2f}" if v is not None else "n/a"  # noqa: E731
    for case in cases:
        mine, n_ms, p_ms = cell(ours, case), cell(numba, case), cell(pocl, case)
        r_numba = mine / n_ms if mine and n_ms else None
        r_pocl = mine / p_ms if mine and p_ms else None
        bad = [name for name, res in (("cudajit", ours), ("numba", numba), ("PoCL", pocl))
               if isinstance(res, dict) and case in res and not res[case]["ok"]]
        flag = (" !" if (r_numba and r_numba > 1.5) or (r_pocl and r_pocl > 1.0) else "") + \
            (f" WRONG RESULT: {', '.join(bad)}" if bad else "")
        print(f"{case:<20}{fmt(mine):>10}{fmt(n_ms):>10}{fmt(p_ms):>10}"
              f"{(f'{r_numba:.2f}x' if r_numba else 'n/a'):>10}"
              f"{(f'{r_pocl:.2f}x' if r_pocl else 'n/a'):>9}{flag}")
        rows.append({"case": case, "what": CASES[case], "cudajit_ms": mine, "numba_ms": n_ms,
                     "pocl_ms": p_ms, "ratio_numba": r_numba, "ratio_pocl": r_pocl,
                     "wrong": bad, "samples": {name: {k: res[case][k] for k in ("min_ms",
                                                                               "median_ms")}
                                               for name, res in results.items()
                                               if isinstance(res, dict) and case in res}})
    for case in cases:
        if case in PEER_NOTES:
            print(f"  {case}: {PEER_NOTES[case]}")
    for name, res in (("numba", numba), ("PoCL", pocl)):
        if not isinstance(res, dict):
            print(f"  {name} not measured: {res}")
    print("  ratio = cudajit / peer (lower is better); ! marks a miss of the targets "
          "(1.5x numba, 1.0x PoCL)")
    pathlib.Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    with open(args.json, "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d"), "machine": platform.processor() or
                   platform.machine(), "cores": os.cpu_count(), "repeats": args.repeats,
                   "rounds": args.rounds, "stat": args.stat,
                   "rows": rows}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
