#!/usr/bin/env python3
"""Tiled matrix multiply in shared memory (the example of Numba's documentation):
each block stages TPB x TPB tiles of A and B in shared memory, synchronises, and
accumulates their product.

Run it as a script: `python examples/matmul_shared.py`. It checks C against
NumPy's A @ B and exits non-zero on a mismatch.
"""

import sys

import numpy as np

import cudajit as cuda
from cudajit import float32

TPB = 16  # threads per block along each axis, and the tile's size


@cuda.jit
def fast_matmul(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tiles = (A.shape[1] + TPB - 1) // TPB
    acc = float32(0.0)
    for t in range(tiles):
        # Stage one tile of each operand (zeros past the edges).
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and t * TPB + tx < A.shape[1]:
            sA[ty, tx] = A[y, t * TPB + tx]
        if x < B.shape[1] and t * TPB + ty < B.shape[0]:
            sB[ty, tx] = B[t * TPB + ty, x]
        cuda.syncthreads()  # the tile is complete
        for k in range(TPB):
            acc += sA[ty, k] * sB[k, tx]
        cuda.syncthreads()  # everyone is done with it before it is overwritten
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = acc


def main():
    n, m, p = 200, 150, 120
    rng = np.random.default_rng(0)
    A = rng.random((n, m), dtype=np.float32)
    B = rng.random((m, p), dtype=np.float32)
    device = cuda.get_current_device()
    print(f"matmul_shared: ({n}x{m}) @ ({m}x{p}) float32 in {TPB}x{TPB} shared-memory tiles")
    print(f"  device: {device.kind} ({device.name})")
    dA, dB = cuda.to_device(A), cuda.to_device(B)
    dC = cuda.device_array((n, p), np.float32)
    grid = ((p + TPB - 1) // TPB, (n + TPB - 1) // TPB)
    fast_matmul[grid, (TPB, TPB)](dA, dB, dC)
    C = dC.copy_to_host()
    expected = A @ B
    error = float(np.max(np.abs(C - expected)))
    ok = np.allclose(C, expected, rtol=1e-5)
    print(f"  max |C - A @ B| = {error:.3g}: {'OK' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
