#!/usr/bin/env python3
"""A 2-D five-point stencil with a shared-memory halo: each block loads its
tile plus a one-point border into shared memory once, synchronises, and every
thread reads its four neighbours from there instead of global memory.

Run it as a script: `python examples/stencil_shared_halo.py`. It checks the
result against NumPy and exits non-zero on a mismatch.
"""

import sys

import numpy as np

import cudajit as cuda

TILE = 16
ALPHA = 0.2


@cuda.jit
def jacobi_step(u, u_next):
    tile = cuda.shared.array((TILE + 2, TILE + 2), np.float64)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    j, i = cuda.grid(2)
    rows, cols = u.shape
    # Each thread loads its point, and the edge threads the halo beside it.
    if i < rows and j < cols:
        tile[ty + 1, tx + 1] = u[i, j]
        if tx == 0 and j > 0:
            tile[ty + 1, 0] = u[i, j - 1]
        if (tx == TILE - 1 or j == cols - 1) and j + 1 < cols:
            tile[ty + 1, tx + 2] = u[i, j + 1]
        if ty == 0 and i > 0:
            tile[0, tx + 1] = u[i - 1, j]
        if (ty == TILE - 1 or i == rows - 1) and i + 1 < rows:
            tile[ty + 2, tx + 1] = u[i + 1, j]
    cuda.syncthreads()
    if 0 < i < rows - 1 and 0 < j < cols - 1:
        c = tile[ty + 1, tx + 1]
        laplacian = (tile[ty, tx + 1] + tile[ty + 2, tx + 1] + tile[ty + 1, tx] +
                     tile[ty + 1, tx + 2] - 4.0 * c)
        u_next[i, j] = c + ALPHA * laplacian
    elif i < rows and j < cols:
        u_next[i, j] = u[i, j]


def jacobi_step_numpy(u):
    out = u.copy()
    out[1:-1, 1:-1] = u[1:-1, 1:-1] + ALPHA * (
        u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1])
    return out


def main():
    rows, cols, steps = 250, 330, 20
    u = np.zeros((rows, cols))
    u[rows // 3: rows // 2, cols // 4: cols // 2] = 100.0
    u[:, 0] = 25.0
    device = cuda.get_current_device()
    print(f"stencil_shared_halo: {steps} Jacobi steps on a {rows}x{cols} grid, "
          f"{TILE}x{TILE} tiles with a halo in shared memory")
    print(f"  device: {device.kind} ({device.name})")
    grid = ((cols + TILE - 1) // TILE, (rows + TILE - 1) // TILE)
    a, b = cuda.to_device(u), cuda.to_device(u)
    expected = u.copy()
    for _ in range(steps):
        jacobi_step[grid, (TILE, TILE)](a, b)
        a, b = b, a
        expected = jacobi_step_numpy(expected)
    got = a.copy_to_host()
    ok = np.allclose(got, expected, rtol=1e-12, atol=1e-12)
    print(f"  total heat {got.sum():.6f} (numpy {expected.sum():.6f}): "
          f"{'OK' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
