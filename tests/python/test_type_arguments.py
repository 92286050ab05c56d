"""Kernels taking types as arguments, as Numba allows: ``kernel[g, b](a, np.float64)``
or ``kernel[g, b](a, cudajit.int32)``. The type is known when compiling: one kernel per
distinct type (the type in the specialisation key), nothing passed at the launch, and the
kernel body uses it as the dtype (local and shared arrays, casts, device functions)."""

import numpy as np
import pytest

import cudajit
import cudajit as cuda
from cudajit import int32, void
from cudajit.types import NumberClass, typeof

N = 64


def local_copy(src, dst, dty):
    tmp = cuda.local.array(N, dty)
    for i in range(N):
        tmp[i] = src[i]
    for i in range(N):
        dst[i] = tmp[i]


def shared_ramp(out, dty):
    sm = cuda.shared.array(N, dty)
    i = cuda.threadIdx.x
    sm[i] = i * 1.75
    cuda.syncthreads()
    out[i] = sm[N - 1 - i]


def cast_divide(out, x, dty):
    out[0] = dty(x) / 3


@cuda.jit(device=True)
def scaled(x, dty):
    return dty(x) * 2


def calls_device(out, x, dty):
    out[0] = scaled(x, dty)


def type_as_value(out, dty):
    tmp = cuda.local.array(1, dty)
    tmp[0] = 1
    out[0] = dty


def never_a_type(out, value):
    out[0] = value


@pytest.mark.parametrize("dtype, expected", [
    (np.float64, np.arange(N) * 1.75),
    (np.float32, (np.arange(N) * np.float32(1.75)).astype(np.float32)),
    (np.int32, (np.arange(N) * 1.75).astype(np.int32)),
    (np.uint8, (np.arange(N) * 1.75).astype(np.uint8)),
])
def test_shared_array_of_the_type_given(device, dtype, expected):
    kernel = cuda.jit(shared_ramp)
    out = np.zeros(N)
    kernel[1, N](out, dtype)
    np.testing.assert_array_equal(out, expected[::-1].astype(np.float64))
    key = ("array(float64, 1d, C)", f"class({np.dtype(dtype).name})")
    assert key in kernel.signatures
    assert kernel.get_shared_mem_per_block(key) == N * np.dtype(dtype).itemsize


def test_one_kernel_per_type(device):
    kernel = cuda.jit(local_copy)
    src = np.linspace(-3.3, 3.3, N)
    dst = np.zeros(N)
    kernel[1, 1](src, dst, np.float32)
    np.testing.assert_array_equal(dst, src.astype(np.float32))
    kernel[1, 1](src, dst, cudajit.int16)  # a cudajit type
    np.testing.assert_array_equal(dst, src.astype(np.int16))
    kernel[1, 1](src, dst, np.dtype(np.float64))  # a NumPy dtype
    np.testing.assert_array_equal(dst, src)
    kernel[1, 1](src, dst, np.float32)  # the first kernel again
    assert sorted(kernel.signatures) == sorted([
        ("array(float64, 1d, C)", "array(float64, 1d, C)", "class(float32)"),
        ("array(float64, 1d, C)", "array(float64, 1d, C)", "class(int16)"),
        ("array(float64, 1d, C)", "array(float64, 1d, C)", "class(float64)"),
    ])


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64, np.int8])
def test_cast_with_the_type_given(device, dtype):
    kernel = cuda.jit(cast_divide)
    out = np.zeros(1)
    kernel[1, 1](out, 7.7, dtype)
    assert out[0] == np.float64(dtype(7.7) / 3)


def test_type_passed_on_to_a_device_function(device):
    kernel = cuda.jit(calls_device)
    out = np.zeros(1)
    kernel[1, 1](out, 2.6, np.int64)
    assert out[0] == 4
    kernel[1, 1](out, 2.6, np.float32)
    assert out[0] == np.float64(np.float32(2.6) * 2)


def test_keyword_type_argument(device):
    kernel = cuda.jit(cast_divide)
    out = np.zeros(1)
    kernel[1, 1](out, dty=np.int32, x=9.5)
    assert out[0] == 3


def test_declared_signature_with_a_number_class(device):
    kernel = cuda.jit(void(int32[::1], NumberClass(int32)))(shared_ramp)
    assert kernel.signatures == [("array(int32, 1d, C)", "class(int32)")]
    assert kernel.get_shared_mem_per_block() == N * 4  # one signature: a number
    out = np.zeros(N, np.int32)
    kernel[1, N](out, np.int32)
    np.testing.assert_array_equal(out, (np.arange(N) * 1.75).astype(np.int32)[::-1])


def test_signature_string_names_the_class(device):
    kernel = cuda.jit("void(float64[::1], NumberClass(float32))")(shared_ramp)
    assert kernel.get_shared_mem_per_block() == N * 4


def test_specialize_with_a_type(device):
    kernel = cuda.jit(local_copy)
    src = np.arange(N, dtype=np.float64)
    special = kernel.specialize(src, src, np.float64)
    assert special.specialized
    assert special.get_local_mem_per_thread() >= 0
    dst = np.zeros(N)
    special[1, 1](src, dst)  # the type is bound: no longer an argument
    np.testing.assert_array_equal(dst, src)
    assert kernel.specialize(src, src, np.float64) is special
    with pytest.raises(TypeError):
        special[1, 1](src.astype(np.float32), dst)


def test_typeof_a_type_is_its_number_class():
    assert typeof(np.float32) == NumberClass(cudajit.float32)
    assert str(typeof(np.dtype("int16"))) == "class(int16)"
    assert str(typeof(cudajit.uint8)) == "class(uint8)"
    assert str(void(int32[::1], NumberClass(np.float64))) == \
        "(array(int32, 1d, C), class(float64)) -> none"


def test_type_argument_used_as_a_value_is_a_compile_error(device):
    kernel = cuda.jit(type_as_value)
    with pytest.raises(cudajit.CompileError, match="'dty' can only be called, not used as a "
                                                   "value"):
        kernel[1, 1](np.zeros(1), np.float64)


def test_type_given_to_a_kernel_that_uses_no_type(device):
    kernel = cuda.jit(never_a_type)
    assert isinstance(kernel, cudajit.dispatcher.Dispatcher)
    for dtype in (np.float64, cudajit.int32, np.dtype(np.int8)):
        with pytest.raises(TypeError, match=r"argument 1: got the type .*; a kernel takes a "
                                            r"type as an argument only where its body uses"):
            kernel[1, 1](np.zeros(1), dtype)


def test_value_where_a_type_is_needed_is_a_compile_error(device):
    kernel = cuda.jit(local_copy)
    with pytest.raises(cudajit.CompileError, match="needs a dtype known when compiling"):
        kernel[1, 1](np.zeros(N), np.zeros(N), 3)


def test_kernels_without_type_parameters_are_plain_dispatchers():
    assert isinstance(cuda.jit(lambda a: None), cudajit.dispatcher.Dispatcher)
    assert not isinstance(cuda.jit(local_copy), cudajit.dispatcher.Dispatcher)


def test_forall_with_a_type(device):
    kernel = cuda.jit(cast_divide)
    out = np.zeros(1)
    kernel.forall(1)(out, 9.9, np.int16)
    assert out[0] == 3


def test_pickled_by_value_and_rebuilt(device):
    import pickle

    def local_cast(out, x, dty):  # a function of no module: pickled by value
        out[0] = dty(x) * 2

    kernel = cuda.jit(local_cast)
    out = np.zeros(1)
    kernel[1, 1](out, 2.7, np.int32)
    rebuilt = pickle.loads(pickle.dumps(kernel))
    assert type(rebuilt) is type(kernel) and rebuilt is not kernel
    rebuilt[1, 1](out, 2.7, np.float32)
    assert out[0] == np.float64(np.float32(2.7) * 2)


def test_debug_kernel_with_a_type(device):
    kernel = cuda.jit(debug=True, opt=False)(cast_divide)
    out = np.zeros(1)
    kernel[1, 1](out, 7.7, np.int32)
    assert out[0] == 7 / 3
