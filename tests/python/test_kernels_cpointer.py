"""CPointer kernel parameters (Numba's ``types.CPointer``, its documentation's
``ex_cpointer`` example): declared in a signature, given an integer address at the
launch, indexed in the kernel with no shape, bounds checks or wrap-around."""

import numpy as np
import pytest

import cudajit as cuda
from cudajit import types

pytestmark = pytest.mark.usefixtures("device")


def test_numbas_cpointer_example_adds_one_through_the_address():
    sig = types.void(types.CPointer(types.uint8), types.uint32)

    @cuda.jit(sig)
    def add_one(x, n):
        i = cuda.grid(1)
        if i < n:
            x[i] += 1

    x = cuda.to_device(np.arange(10, dtype=np.uint8))
    add_one[1, 32](x.device_pointer, len(x))
    np.testing.assert_array_equal(x.copy_to_host(), np.arange(1, 11))


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.int64, np.float32,
                                   np.float64, np.complex128, np.bool_])
def test_elements_of_each_dtype_are_read_and_written_in_place(dtype):
    name = "boolean" if dtype == np.bool_ else str(types.from_dtype(dtype))

    @cuda.jit(f"void(CPointer({name}), CPointer({name}), int64)")
    def copy_reversed(src, dst, n):
        i = cuda.grid(1)
        if i < n:
            dst[n - 1 - i] = src[i]

    values = (np.arange(7) % 2 == 0) if dtype == np.bool_ else np.arange(7).astype(dtype) * 3
    src, dst = cuda.to_device(values), cuda.to_device(np.zeros(7, dtype))
    copy_reversed[1, 8](src.device_pointer, dst.device_pointer, 7)
    np.testing.assert_array_equal(dst.copy_to_host(), values[::-1])


def test_a_negative_index_is_pointer_arithmetic_not_wrap_around():
    @cuda.jit("void(CPointer(float64))")
    def shift(p):
        p[-1] = p[0] * 10
        q = p  # a pointer held in a variable
        q[1] = -1.0

    a = cuda.to_device(np.array([1.0, 2.0, 3.0, 4.0]))
    shift[1, 1](a.device_pointer + 8)  # points at a[1]
    np.testing.assert_array_equal(a.copy_to_host(), [20.0, 2.0, -1.0, 4.0])


def test_a_pointer_parameter_takes_only_a_non_negative_integer():
    @cuda.jit("void(CPointer(int32))")
    def touch(p):
        p[0] = 1

    with pytest.raises(TypeError, match="CPointer"):
        touch[1, 1](1.5)
    with pytest.raises(ValueError, match=r"argument 1: a CPointer\(int32\) parameter takes an "
                                         r"address, a non-negative integer; got -8"):
        touch[1, 1](-8)


@pytest.mark.parametrize("body, message", [
    ("out[0] = p.shape[0]", r"CPointer\(float32\) has no attribute 'shape'"),
    ("out[0] = len(p)", r"len\(\) needs an array or a tuple, got CPointer\(float32\)"),
    ("out[0] = p[0, 1]", r"CPointer\(float32\) is indexed by one integer, got"),
    ("out[0] = p[1.5]", r"CPointer\(float32\) is indexed by one integer, got float64"),
    ("q = p[1:3]", r"CPointer\(float32\)"),
])
def test_what_a_pointer_does_not_have_is_a_compile_error(body, message, tmp_path):
    import importlib.util

    source = tmp_path / "pointer_kernels.py"
    source.write_text("def kernel(p, out):\n    " + body + "\n")
    spec = importlib.util.spec_from_file_location("pointer_kernels", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(cuda.CompileError, match=message):
        cuda.jit("void(CPointer(float32), float64[::1])")(module.kernel)


def test_cpointer_kernels_assemble(check_ptx):
    def add_one(x, n):
        i = cuda.grid(1)
        if i < n:
            x[i] += 1

    ptx, _ = cuda.compile_ptx(add_one, "void(CPointer(uint8), uint32)", cc=(8, 0))
    check_ptx(ptx, cc=(8, 0))
    assert ".param .u64" in ptx


def test_cpointer_types_spell_and_compare_as_numba_spells_them():
    assert str(types.CPointer(types.float32)) == "CPointer(float32)"
    assert types.CPointer(np.int64) == types.CPointer(types.int64)
    with pytest.raises(TypeError, match="unsupported CPointer dtype"):
        types.CPointer(np.dtype("U3"))
    numba_types = pytest.importorskip("numba.core.types")
    assert types.from_numba(numba_types.CPointer(numba_types.uint8)) == \
        types.CPointer(types.uint8)


def test_cffi_from_buffer_gives_the_arrays_data_as_a_cpointer():
    cffi = pytest.importorskip("cffi")  # scripts/install-deps.sh installs it
    ffi = cffi.FFI()

    @cuda.jit(device=True)
    def write_through(p, n):
        for i in range(n):
            p[i] = p[i] * 2 + 1

    @cuda.jit
    def kernel(a, b):
        write_through(ffi.from_buffer(a), a.size)
        q = ffi.from_buffer(b[1:])  # a view: its own first element
        q[0] = 7.5

    a = cuda.to_device(np.arange(6, dtype=np.int32).reshape(2, 3))
    b = cuda.to_device(np.zeros(4))
    kernel[1, 1](a, b)
    np.testing.assert_array_equal(a.copy_to_host(), np.arange(6).reshape(2, 3) * 2 + 1)
    np.testing.assert_array_equal(b.copy_to_host(), [0, 7.5, 0, 0])


def test_cffi_from_buffer_refuses_what_has_no_contiguous_buffer():
    cffi = pytest.importorskip("cffi")
    ffi = cffi.FFI()

    def of_a_number(x):
        ffi.from_buffer(x[0])

    def of_a_strided_view(x):
        p = ffi.from_buffer(x[::2])
        p[0] = 1

    def other_ffi_attributes(x):
        ffi.new("int[]", 3)

    with pytest.raises(cuda.CompileError, match=r"from_buffer\(\) expected an array of numbers, "
                                                r"got int32"):
        cuda.compile_ptx(of_a_number, "void(int32[::1])")
    with pytest.raises(cuda.CompileError, match=r"from_buffer\(\) needs a C-contiguous array"):
        cuda.compile_ptx(of_a_strided_view, "void(int32[::1])")
    with pytest.raises(cuda.CompileError, match=r"'ffi.new' is not supported in kernels; of a "
                                                r"cffi FFI object, kernels call from_buffer"):
        cuda.compile_ptx(other_ffi_attributes, "void(int32[::1])")
