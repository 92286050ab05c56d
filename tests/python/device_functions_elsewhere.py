"""Device functions in a file of their own: a compile error inside one names
this file (tests/python/test_compile_errors.py), and so do the PTX line tables
(tests/python/test_compile_ptx.py)."""

import cudajit as cuda


@cuda.jit(device=True)
def first_element(a):
    return a[0, 0]  # a 2-d index: an error when called with a 1-d array


@cuda.jit(device=True)
def sum_of_squares(a, n):
    total = 0.0
    for j in range(n):
        total += a[j] * a[j]
    return total
