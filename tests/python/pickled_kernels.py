"""Kernels at module level, importable by name: what pickling by reference finds
(test_pickling.py, and the process it starts)."""

import cudajit as cuda


@cuda.jit(device=True)
def triple(x):
    return 3 * x


@cuda.jit("void(float64[::1])")
def triple_all(values):
    i = cuda.grid(1)
    if i < values.size:
        values[i] = triple(values[i])
