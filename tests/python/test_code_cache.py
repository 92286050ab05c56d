"""Kernels with the same kernel IR share their compiled code across
dispatchers (python/src/code_cache.hpp): a kernel defined inside a function
is compiled once, not at every call, and anything that changes the code
(a frozen global, a closure value, an option, the argument types) compiles
anew."""

import numpy as np
import pytest

import cudajit as cuda
from cudajit import _core

OFFSET = 1.0


@pytest.fixture
def fresh_cache():
    _core.code_cache_clear()
    yield
    _core.code_cache_set_capacity(256)
    _core.code_cache_clear()


def counts():
    info = _core.code_cache_info()
    return info["hits"], info["misses"]


def add_offset(x, out):
    """Defines its kernel at every call, as code inside a function does."""

    @cuda.jit
    def kernel(a, b):
        i = cuda.grid(1)
        if i < a.size:
            b[i] = a[i] + OFFSET

    kernel[1, 32](x, out)


def scaler(factor, fastmath=False):
    @cuda.jit(fastmath=fastmath)
    def kernel(a, b):
        i = cuda.grid(1)
        if i < a.size:
            b[i] = a[i] * factor

    return kernel


def test_a_kernel_defined_in_a_function_compiles_once(device, fresh_cache):
    x = np.arange(10, dtype=np.float32)
    for _ in range(4):
        out = np.zeros_like(x)
        add_offset(x, out)
        np.testing.assert_array_equal(out, x + 1)
    assert counts() == (3, 1)


def test_a_changed_global_compiles_anew(device, fresh_cache):
    global OFFSET
    x = np.arange(10, dtype=np.float32)
    out = np.zeros_like(x)
    add_offset(x, out)
    try:
        OFFSET = 5.0  # frozen at compile time: a new kernel sees the new value
        add_offset(x, out)
    finally:
        OFFSET = 1.0
    np.testing.assert_array_equal(out, x + 5)
    assert counts() == (0, 2)


def test_closure_values_options_and_types_are_part_of_the_key(device, fresh_cache):
    x = np.arange(10, dtype=np.float32)
    results = {}
    for factor, fastmath, dtype in [(2.0, False, np.float32), (3.0, False, np.float32),
                                    (2.0, True, np.float32), (2.0, False, np.float64),
                                    (2.0, False, np.float32)]:
        a = x.astype(dtype)
        out = np.zeros_like(a)
        scaler(factor, fastmath)[1, 32](a, out)
        results[(factor, fastmath, dtype)] = out
        np.testing.assert_allclose(out, a * factor, rtol=1e-6)
    assert counts() == (1, 4)  # only the last repeats the first


def test_the_oldest_kernels_go_past_the_capacity(device, fresh_cache):
    _core.code_cache_set_capacity(2)
    x = np.arange(4, dtype=np.float32)
    for factor in (1.0, 2.0, 3.0, 1.0):
        scaler(factor)[1, 32](x, np.zeros_like(x))
    assert counts() == (0, 4)  # 1.0 was dropped when 3.0 came
    assert _core.code_cache_info()["size"] == 2
    scaler(1.0)[1, 32](x, np.zeros_like(x))
    assert counts() == (1, 4)


def test_capacity_zero_turns_the_sharing_off(device, fresh_cache):
    _core.code_cache_set_capacity(0)
    x = np.arange(4, dtype=np.float32)
    out = np.zeros_like(x)
    add_offset(x, out)
    add_offset(x, out)
    np.testing.assert_array_equal(out, x + 1)
    assert counts() == (0, 2)
    assert _core.code_cache_info()["size"] == 0
