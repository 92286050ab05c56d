"""A device function in a file of its own, for the test that a compile error
inside it names this file (tests/python/test_compile_errors.py)."""

import cudajit as cuda


@cuda.jit(device=True)
def first_element(a):
    return a[0, 0]  # a 2-d index: an error when called with a 1-d array
