#!/usr/bin/env python3
"""A 2-D five-point stencil (one Jacobi step of the heat equation), one thread
per grid point, on a 2-D launch.

Run it as a script: `python examples/stencil_2d.py`. It checks the result
against NumPy and exits non-zero on a mismatch.
"""

import sys

import numpy as np

import cudajit as cuda

ALPHA = 0.2  # a module-level constant, frozen into the kernel when it compiles


@cuda.jit
def jacobi_step(u, u_next):
    j, i = cuda.grid(2)  # x runs along columns, y along rows
    rows, cols = u.shape
    if 0 < i < rows - 1 and 0 < j < cols - 1:
        laplacian = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
        u_next[i, j] = u[i, j] + ALPHA * laplacian
    elif i < rows and j < cols:
        u_next[i, j] = u[i, j]  # the boundary stays fixed


def jacobi_step_numpy(u):
    out = u.copy()
    out[1:-1, 1:-1] = u[1:-1, 1:-1] + ALPHA * (
        u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]
    )
    return out


def device_name():
    """The device kernels run on: a GPU when one is present, else the cpu device."""
    device = cuda.get_current_device()
    return f"{device.kind} ({device.name})"


def main():
    rows, cols, steps = 300, 400, 20
    u = np.zeros((rows, cols))
    u[rows // 4 : rows // 2, cols // 3 : cols // 2] = 100.0  # a hot square
    u[0, :] = 50.0  # a warm top edge
    block = (16, 16)
    grid = ((cols + block[0] - 1) // block[0], (rows + block[1] - 1) // block[1])
    print(f"stencil_2d: {steps} Jacobi steps of the heat equation on a {rows}x{cols} float64 grid")
    print(f"  launch [{grid}, {block}] on device: {device_name()}")

    a, b = cuda.to_device(u), cuda.to_device(u)  # the boundary stays as it was
    expected = u.copy()
    for _ in range(steps):
        jacobi_step[grid, block](a, b)
        a, b = b, a
        expected = jacobi_step_numpy(expected)
    a = a.copy_to_host()

    error = float(np.max(np.abs(a - expected)))
    ok = np.allclose(a, expected, rtol=1e-12, atol=1e-12)
    print(
        f"  total heat {a.sum():.6f} (numpy {expected.sum():.6f}), max |difference| = {error:.3g}: "
        f"{'OK' if ok else 'MISMATCH'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
