"""DeviceNDArray and the memory API (to_device, device_array, pinned/mapped/managed
arrays), on the current device, compared with NumPy."""

import numpy as np
import pytest

import cudajit as cuda

DTYPES = [np.bool_, np.int8, np.uint16, np.int32, np.int64, np.float32, np.float64,
          np.complex64, np.complex128]


def sample(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    data = rng.integers(-50, 50, size=shape)
    if np.dtype(dtype).kind == "c":
        return (data + 1j * rng.integers(-50, 50, size=shape)).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return data > 0
    if np.dtype(dtype).kind == "u":
        return np.abs(data).astype(dtype)
    return data.astype(dtype)


@cuda.jit
def add_one(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_to_device_and_back_keeps_every_value(dtype):
    host = sample((7, 5), dtype)
    d = cuda.to_device(host)
    assert d.shape == host.shape and d.dtype == host.dtype and d.strides == host.strides
    np.testing.assert_array_equal(d.copy_to_host(), host)


def test_to_device_keeps_fortran_order():
    host = np.asfortranarray(sample((4, 6), np.float64))
    d = cuda.to_device(host)
    assert d.is_f_contiguous() and not d.is_c_contiguous()
    np.testing.assert_array_equal(d.copy_to_host(), host)


def test_to_device_of_a_strided_host_array_copies_its_values():
    host = sample((10, 8), np.int32)[::2, ::3]
    np.testing.assert_array_equal(cuda.to_device(host).copy_to_host(), host)


def test_device_array_describes_its_shape_and_size():
    d = cuda.device_array((3, 4), dtype=np.float32)
    assert (d.shape, d.strides, d.ndim, d.size, d.nbytes) == ((3, 4), (16, 4), 2, 12, 48)
    f = cuda.device_array((3, 4), dtype=np.float32, order="F")
    assert f.strides == (4, 12)


def test_device_array_like_copies_shape_dtype_and_order():
    host = np.asfortranarray(np.zeros((2, 5), np.int16))
    d = cuda.device_array_like(host)
    assert d.shape == (2, 5) and d.dtype == np.int16 and d.is_f_contiguous()


def test_unsupported_dtype_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match="float128"):
        cuda.device_array(4, dtype=np.longdouble)


def test_negative_shape_is_a_value_error():
    with pytest.raises(ValueError, match="negative"):
        cuda.device_array((2, -1))


def test_copy_to_host_into_a_given_array():
    host = sample(9, np.float64)
    out = np.zeros(9)
    result = cuda.to_device(host).copy_to_host(out)
    assert result is out
    np.testing.assert_array_equal(out, host)


def test_copy_to_host_into_a_wrong_shape_is_a_value_error():
    with pytest.raises(ValueError, match="shape"):
        cuda.to_device(np.zeros(4)).copy_to_host(np.zeros(5))


def test_copy_to_device_from_host_and_from_device():
    d = cuda.device_array(6, dtype=np.int64)
    d.copy_to_device(np.arange(6))
    e = cuda.device_array(6, dtype=np.int64)
    e.copy_to_device(d)
    np.testing.assert_array_equal(e.copy_to_host(), np.arange(6))


@pytest.mark.parametrize("key", [
    np.s_[1:5], np.s_[::2], np.s_[::-1], np.s_[2], np.s_[:, 1], np.s_[1, ::-2],
    np.s_[..., 0], np.s_[None, 1:3],
], ids=str)
def test_indexing_gives_the_numpy_view(key):
    host = sample((6, 5), np.float64)
    d = cuda.to_device(host)
    view = d[key]
    np.testing.assert_array_equal(view.copy_to_host(), host[key])


def test_indexing_every_dimension_gives_the_element():
    host = sample((3, 4), np.int32)
    assert cuda.to_device(host)[2, -1] == host[2, -1]


def test_fancy_indexing_is_a_type_error():
    with pytest.raises(TypeError, match="integers, slices"):
        cuda.to_device(np.zeros(4))[[0, 1]]


def test_setitem_writes_elements_and_slices():
    d = cuda.to_device(np.zeros((3, 4)))
    d[1, 2] = 5.0
    d[0] = np.arange(4)
    d[2, ::2] = -1
    expected = np.zeros((3, 4))
    expected[1, 2] = 5.0
    expected[0] = np.arange(4)
    expected[2, ::2] = -1
    np.testing.assert_array_equal(d.copy_to_host(), expected)


def test_writing_a_strided_view_leaves_the_elements_between_alone():
    d = cuda.to_device(np.arange(10.0))
    d[::3].copy_to_device(np.full(4, -1.0))
    expected = np.arange(10.0)
    expected[::3] = -1
    np.testing.assert_array_equal(d.copy_to_host(), expected)


def test_reshape_ravel_and_transpose_are_views():
    host = np.arange(12.0).reshape(3, 4)
    d = cuda.to_device(host)
    np.testing.assert_array_equal(d.reshape(4, 3).copy_to_host(), host.reshape(4, 3))
    np.testing.assert_array_equal(d.reshape(-1, 6).copy_to_host(), host.reshape(-1, 6))
    np.testing.assert_array_equal(d.ravel().copy_to_host(), host.ravel())
    np.testing.assert_array_equal(d.T.copy_to_host(), host.T)
    d.reshape(12)[0] = 100.0
    assert d[0, 0] == 100.0


def test_reshape_of_a_non_contiguous_array_is_not_implemented():
    with pytest.raises(NotImplementedError, match="contiguous"):
        cuda.to_device(np.zeros((4, 4)))[:, ::2].reshape(8)


def test_reshape_to_a_different_size_is_a_value_error():
    with pytest.raises(ValueError, match="cannot reshape"):
        cuda.to_device(np.zeros(6)).reshape(4)


def test_kernels_write_device_arrays_and_views():
    d = cuda.to_device(np.zeros(8))
    add_one[1, 8](d)
    add_one[1, 8](d[::2])
    np.testing.assert_array_equal(d.copy_to_host(), [2, 1, 2, 1, 2, 1, 2, 1])


def test_cuda_array_interface_v3_describes_the_array(on_gpu_device):
    d = cuda.to_device(np.zeros((2, 3), np.float32))
    cai = d.__cuda_array_interface__
    assert cai["version"] == 3 and cai["shape"] == (2, 3) and cai["typestr"] == "<f4"
    assert cai["strides"] is None and cai["data"] == (d.device_pointer, False)
    assert cai["stream"] is None
    assert d.T.__cuda_array_interface__["strides"] == (4, 12)


def test_cuda_array_interface_names_a_bound_stream_never_zero(on_gpu_device):
    s = cuda.stream()
    d = cuda.to_device(np.zeros(3)).bind(s)
    assert d.__cuda_array_interface__["stream"] == s.handle != 0


@pytest.mark.parametrize("make", [cuda.pinned_array, cuda.mapped_array, cuda.managed_array],
                         ids=["pinned", "mapped", "managed"])
def test_host_arrays_of_every_kind_work_in_kernels(make):
    a = make(16, dtype=np.float64)
    a[:] = np.arange(16)
    add_one[2, 8](a)
    # Pinned memory is copied around the launch; mapped and managed memory are the
    # kernel's own, read by the host only after the launch is complete (as in CUDA).
    cuda.synchronize()
    np.testing.assert_array_equal(a, np.arange(16) + 1)


def test_pinned_context_accepts_host_arrays():
    a = np.zeros(32)
    with cuda.pinned(a):
        d = cuda.to_device(a)
        add_one[1, 32](d)
        d.copy_to_host(a)
    np.testing.assert_array_equal(a, np.ones(32))


def test_is_device_array():
    assert cuda.is_device_array(cuda.device_array(2))
    assert not cuda.is_device_array(np.zeros(2))


# --- shapes that do not fit, or are not integers ---------------------------------------------


@pytest.mark.parametrize("make", [cuda.device_array, cuda.pinned_array, cuda.mapped_array,
                                  cuda.managed_array],
                         ids=["device", "pinned", "mapped", "managed"])
def test_a_shape_whose_byte_size_overflows_int64_is_a_value_error(make):
    with pytest.raises(ValueError, match=r"larger than 2\*\*63 - 1 bytes"):
        make((1 << 40, 1 << 40))
    with pytest.raises(ValueError, match=r"larger than 2\*\*63 - 1 bytes"):
        make((1 << 33, 1 << 31))  # 2**64 elements: a wrapping product would give 0


@pytest.mark.parametrize("shape", ["10", (2.0, 3), 3.0, [1, None]], ids=repr)
def test_a_shape_that_is_not_integers_is_a_type_error(shape):
    with pytest.raises(TypeError, match="shape must be an int or a tuple of ints, got"):
        cuda.device_array(shape)


def test_numpy_integers_are_shapes():
    assert cuda.device_array(np.int64(3)).shape == (3,)
    assert cuda.device_array((2, np.int32(3))).shape == (2, 3)


def test_numpy_asarray_of_a_device_array_is_a_host_copy(device):
    values = np.arange(200_000, dtype=np.float32)
    d = cuda.to_device(values)
    host = np.asarray(d)  # through __array__: one copy (the sequence protocol took seconds)
    np.testing.assert_array_equal(host, values)
    assert host.dtype == np.float32 and isinstance(host, np.ndarray)
    np.testing.assert_array_equal(np.asarray(d, dtype=np.float64), values.astype(np.float64))
    host[0] = -1.0  # a copy: the device array is unchanged
    assert d.copy_to_host()[0] == 0.0


def test_numpy_array_without_a_copy_of_a_device_array_is_refused(device):
    d = cuda.to_device(np.arange(3.0))
    with pytest.raises(ValueError, match=r"`copy=False` is not supported. A copy is always "
                                         r"created."):
        np.array(d, copy=False)
    np.testing.assert_array_equal(np.array(d, copy=True), [0.0, 1.0, 2.0])


def test_empty_arrays_keep_their_strides_and_copy_whatever_their_strides(device):
    host = np.ndarray(shape=(0,), strides=(0,), dtype=np.int8)
    from_host = cuda.to_device(host)
    assert from_host.shape == (0,) and from_host.strides == (0,)
    other = cuda.device_array(0, dtype=np.int8)
    assert other.strides == (1,)
    other.copy_to_device(from_host)  # strides differ, nothing to copy: no error
    from_host.copy_to_device(other)
    other.copy_to_host(host)
    other.copy_to_device(host)
    assert cuda.typeof(from_host).layout == "C"


def read_only_view(d):
    desc = {"shape": d.shape, "strides": d.strides, "typestr": d.dtype.str, "version": 3,
            "data": (d.device_pointer, True)}
    return cuda.from_cuda_array_interface(desc, owner=d)


def test_arrays_of_the_cpu_device_are_host_memory_and_export_no_cuda_array_interface(device):
    d = cuda.to_device(np.arange(3.0))
    if device == "cpu":
        assert not hasattr(d, "__cuda_array_interface__") and not cuda.is_cuda_array(d)
        with pytest.raises(AttributeError, match="host memory and exports no "
                                                 "__cuda_array_interface__"):
            d.__cuda_array_interface__
        assert d.__dlpack_device__() == (1, 0)  # kDLCPU
    else:
        assert cuda.is_cuda_array(d) and d.__dlpack_device__()[0] == 2  # kDLCUDA
    np.testing.assert_array_equal(np.asarray(d), [0.0, 1.0, 2.0])  # a copy on both


def test_is_cuda_array_agrees_with_the_interface_and_the_error_names_device_pointer(device):
    d = cuda.to_device(np.arange(3.0))
    assert cuda.is_cuda_array(d) == hasattr(d, "__cuda_array_interface__") == (device == "cuda")
    assert isinstance(d.device_pointer, int) and d.device_pointer != 0
    if device == "cuda":
        assert d.__cuda_array_interface__["data"][0] == d.device_pointer
    else:
        with pytest.raises(AttributeError, match=r"its address is d\.device_pointer"):
            d.__cuda_array_interface__["data"][0]  # numba-cuda's CPointer example reads this


def test_as_cuda_array_of_a_numpy_array_is_a_type_error_as_in_numba(device):
    with pytest.raises(TypeError, match=r"doesn't implement the cuda array interface.*"
                                        r"cuda\.to_device\(\)"):
        cuda.as_cuda_array(np.zeros(3))
    d = cuda.to_device(np.arange(3.0))
    assert cuda.as_cuda_array(d).copy_to_host().tolist() == [0.0, 1.0, 2.0]  # a device array is one


@pytest.mark.parametrize("write", ["copy_to_device from host", "copy_to_device from device",
                                   "setitem", "setitem slice"])
def test_a_read_only_view_refuses_every_host_side_write(device, write):
    d = cuda.to_device(np.arange(4.0))
    ro = read_only_view(d)
    assert ro.readonly
    action = {
        "copy_to_device from host": lambda: ro.copy_to_device(np.ones(4)),
        "copy_to_device from device": lambda: ro.copy_to_device(cuda.to_device(np.ones(4))),
        "setitem": lambda: ro.__setitem__(0, 5.0),
        "setitem slice": lambda: ro.__setitem__(slice(1, 3), 7.0),
    }[write]
    with pytest.raises(ValueError, match="the device array is read-only"):
        action()
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(4.0))  # nothing was written


def test_copy_to_device_of_another_dtype_is_refused_as_in_numba(device):
    d = cuda.device_array(4, np.float64)
    with pytest.raises(TypeError, match="incompatible dtype: the source is float32, "
                                        "the device array float64"):
        d.copy_to_device(np.ones(4, np.float32))
    with pytest.raises(TypeError, match="incompatible dtype"):
        d.copy_to_device(cuda.to_device(np.ones(4, np.int64)))
    d.copy_to_device(np.ones(4))  # the same dtype copies
    d[1:3] = 5  # __setitem__ converts its value, as NumPy's does
    np.testing.assert_array_equal(d.copy_to_host(), [1.0, 5.0, 5.0, 1.0])


def test_out_of_memory_is_a_memory_error_naming_the_size_and_device(device):
    with pytest.raises(MemoryError, match=r"140737488355328 bytes") as info:
        cuda.device_array(1 << 47, np.uint8)
    expected = "cpu device" if device == "cpu" else "on cuda:0"
    assert expected in str(info.value)
    if device == "cuda":
        assert isinstance(info.value, cuda.CudaDriverError)


def test_view_reinterprets_the_dtype_as_numba_does(on_cpu_device):
    host = np.arange(12.0).reshape(3, 4)
    d = cuda.to_device(host)
    for dtype in (np.int64, "f4", np.dtype(np.uint8), np.complex128):
        seen = d.view(dtype)
        expected = host.view(dtype)
        assert seen.shape == expected.shape and seen.dtype == expected.dtype
        np.testing.assert_array_equal(seen.copy_to_host(), expected)
    d.view(np.int64)[0, 0] = 7  # the same memory
    assert d.copy_to_host().view(np.int64)[0, 0] == 7
    with pytest.raises(ValueError, match="the last axis must be contiguous"):
        d.T.view(np.float32)
    with pytest.raises(TypeError, match="unsupported dtype <U2"):
        d.view("U2")


def test_ravel_order_a_follows_the_layout(on_cpu_device):
    host = np.arange(12.0).reshape(3, 4)
    d = cuda.to_device(host)
    np.testing.assert_array_equal(d.ravel(order="A").copy_to_host(), host.ravel(order="A"))
    np.testing.assert_array_equal(d.T.ravel(order="A").copy_to_host(), host.T.ravel(order="A"))


def test_flags_say_which_contiguity_as_numba_device_arrays_do():
    c = cuda.device_array((3, 4), np.float32)
    f = cuda.device_array((3, 4), np.float32, order="F")
    assert c.flags == {"C_CONTIGUOUS": True, "F_CONTIGUOUS": False}
    assert f.flags == {"C_CONTIGUOUS": False, "F_CONTIGUOUS": True}
    assert cuda.device_array(5).flags == {"C_CONTIGUOUS": True, "F_CONTIGUOUS": True}


@pytest.mark.parametrize("like", ["pinned_array_like", "mapped_array_like",
                                  "managed_array_like"])
def test_host_arrays_like_another_keep_its_shape_dtype_and_order(like):
    f_order = np.asfortranarray(np.zeros((3, 5), np.int16))
    made = getattr(cuda, like)(f_order)
    assert made.shape == (3, 5) and made.dtype == np.int16 and made.flags.f_contiguous
    made[:] = 7  # writable host memory
    from_device = getattr(cuda, like)(cuda.device_array(4, np.float32))
    assert from_device.shape == (4,) and from_device.dtype == np.float32
    with pytest.raises(TypeError, match=rf"{like.replace('_like', '')}_like\(\) takes an array"):
        getattr(cuda, like)([1, 2])


def test_current_context_reports_memory_and_gpus_are_context_managers():
    ctx = cuda.current_context()
    mem = ctx.get_memory_info()
    assert mem.free == mem[0] and mem.total == mem[1] and 0 < mem.free <= mem.total
    assert ctx.device == cuda.get_current_device()
    ctx.reset()  # waits; nothing to free
    before = cuda.get_current_device()
    for gpu in cuda.gpus:
        with gpu as entered:
            assert cuda.gpus.current == entered == gpu
            assert cuda.current_context().device == gpu
        assert cuda.get_current_device() == before


# --- Numba's messages and helpers that programs and numba-cuda's tests rely on ---------------


def test_copy_between_device_arrays_of_other_layouts_names_both_strides(device):
    a_c = np.arange(125.0).reshape(5, 5, 5)
    a_f = np.asfortranarray(a_c)
    d = cuda.to_device(a_c)
    with pytest.raises(ValueError) as info:
        d.copy_to_device(cuda.to_device(a_f))
    assert str(info.value) == f"incompatible strides: {a_c.strides} vs. {a_f.strides}"
    with pytest.raises(ValueError, match=r"incompatible shape: \(5, 5, 5\) vs. \(125,\)"):
        d.copy_to_device(cuda.to_device(a_c.ravel()))
    d.copy_to_device(cuda.to_device(a_c * 2))
    np.testing.assert_array_equal(d.copy_to_host(), a_c * 2)


def test_copy_from_a_strided_device_array_is_refused_in_numbas_words(device):
    d = cuda.to_device(np.arange(20.0))
    with pytest.raises(ValueError) as info:
        d.copy_to_device(cuda.to_device(np.arange(40.0))[::2])
    assert str(info.value) == cuda.devicearray.errmsg_contiguous_buffer
    assert "non-contiguous" in str(info.value)


def test_assigning_an_array_that_does_not_broadcast_says_both_shapes(device):
    d = cuda.device_array(35)
    with pytest.raises(ValueError) as info:  # Numba's words on a GPU
        d[:] = np.zeros((2, 3))
    assert str(info.value) == "Can't assign 2-D array to 1-D self"
    with pytest.raises(ValueError, match=r"from shape \(2,\) into shape \(5,\)"):
        d[:5] = np.zeros(2)
    d[:5] = np.arange(5.0)
    np.testing.assert_array_equal(d.copy_to_host()[:5], np.arange(5.0))


def test_view_to_a_larger_dtype_follows_numpys_rule_in_its_words(device):
    array = cuda.to_device(np.arange(12, dtype="i2").reshape(4, 3))
    with pytest.raises(ValueError) as info:
        array.view("i4")
    with pytest.raises(ValueError) as numpy_info:
        np.arange(12, dtype="i2").reshape(4, 3).view("i4")
    assert str(info.value) == str(numpy_info.value)


@pytest.mark.parametrize("axes, message", [
    ((0, 0), "repeated axis in transpose"),
    ((0, 2), "axis 2 is out of bounds for array of dimension 2"),
    ((0,), "axes don't match array: 1 axes for an array of dimension 2"),
])
def test_transpose_with_bad_axes_says_what_is_wrong(axes, message):
    with pytest.raises(ValueError) as info:
        cuda.to_device(np.zeros((3, 4))).transpose(axes)
    assert str(info.value) == message


def test_transpose_takes_negative_axes_as_numpy_does():
    host = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(cuda.to_device(host).transpose((-1, 0)).copy_to_host(),
                                  host.transpose((-1, 0)))


def test_device_arrays_carry_numbas_markers_and_itemsize():
    d = cuda.device_array((3, 4), np.float32)
    assert d.itemsize == 4 and d.__cuda_ndarray__ and d.__cuda_memory__


def test_auto_device_copies_host_data_and_passes_device_arrays_through(device):
    d, copied = cuda.devicearray.auto_device(2)
    assert copied and d.shape == () and d.copy_to_host() == 2
    host = np.arange(6.0).reshape(2, 3)
    d, copied = cuda.devicearray.auto_device(host)
    assert copied
    np.testing.assert_array_equal(d.copy_to_host(), host)
    again, copied = cuda.devicearray.auto_device(d)
    assert again is d and not copied
    empty, copied = cuda.devicearray.auto_device(host, copy=False)
    assert copied and empty.shape == host.shape
    with pytest.raises(ValueError, match="non-contiguous"):
        cuda.devicearray.auto_device(np.arange(10.0)[::2])


@pytest.mark.parametrize("make", [
    lambda: (np.zeros((10, 12), order="F")[::2, ::2],
             cuda.device_array((10, 12), order="F")[::2, ::2]),
    lambda: (np.zeros((10, 12))[::2, ::2].T, cuda.device_array((10, 12))[::2, ::2].T),
    lambda: (np.zeros((10, 12))[::2, ::2], cuda.device_array((10, 12))[::2, ::2]),
], ids=["F view", "transposed C view", "C view"])
def test_device_array_like_of_a_view_keeps_its_axis_order_as_numpys_zeros_like(make):
    view, d_view = make()
    like, expected = cuda.device_array_like(d_view), np.zeros_like(view)
    assert like.shape == expected.shape and like.strides == expected.strides
    assert like.flags["F_CONTIGUOUS"] == expected.flags["F_CONTIGUOUS"]


def test_numba_cudas_launch_reads_address_shape_and_layout_of_our_arrays():
    # Our arrays carry Numba's __cuda_memory__ marker, so numba-cuda's launches read this of
    # them (its _StridedMemoryViewShim's fields) instead of the CUDA Array Interface.
    d = cuda.to_device(np.zeros((4, 6), np.float32))[:, 1:5:2]
    shim = d._strided_memory_view_shim
    assert (shim.ptr, shim.shape, shim.dtype, shim.size) == (d.device_pointer, (4, 2),
                                                             np.dtype(np.float32), 8)
    assert shim._layout.strides_in_bytes == (24, 8)
    assert not (shim._layout.is_contiguous_c or shim._layout.is_contiguous_any)
    whole = cuda.to_device(np.zeros((3, 2), order="F"))._strided_memory_view_shim._layout
    assert whole.is_contiguous_f and whole.is_contiguous_any and not whole.is_contiguous_c


def test_numba_cuda_kernels_take_our_arrays_in_place():
    # A program mixing the two: numba-cuda's own kernel (and its transpose) on cudajit's
    # arrays, on the simulated GPU. Needs numba-cuda: the venv `make compat` builds.
    import os
    import subprocess
    import sys
    from pathlib import Path
    venv_python = Path(__file__).resolve().parents[2] / "build" / "compat-venv" / "bin" / "python"
    if not venv_python.exists():
        pytest.skip("numba-cuda is not installed here (make compat builds build/compat-venv)")
    program = (
        "import numpy as np\n"
        "from numba import cuda as ncuda\n"
        "from numba.cuda.kernels.transpose import transpose\n"
        "import cudajit\n"
        "@ncuda.jit\n"
        "def add_one(a):\n"
        "    i = ncuda.grid(1)\n"
        "    if i < a.size:\n"
        "        a[i] += 1\n"
        "d = cudajit.to_device(np.arange(5, dtype=np.float32))\n"
        "add_one[1, 32](d)\n"
        "x = np.arange(6.0).reshape(2, 3)\n"
        "dy = cudajit.device_array((3, 2))\n"
        "transpose(cudajit.to_device(x), dy)\n"
        "print(d.copy_to_host().tolist(), (dy.copy_to_host() == x.T).all())\n")
    env = dict(os.environ, PYTHONPATH=str(Path(cuda.__file__).parents[1]),
               PYTHONWARNINGS="ignore")
    done = subprocess.run([sys.executable, "-m", "cudajit.sim", str(venv_python), "-c", program],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["[1.0,", "2.0,", "3.0,", "4.0,", "5.0]", "True"]


def test_numbas_attributes_of_device_arrays_type_pointer_and_extent():
    # numba.cuda code reads these of a device array: its type (_numba_type_), its address as
    # a ctypes integer (device_ctypes_pointer), the bytes its elements span (alloc_size).
    import ctypes
    d = cuda.to_device(np.zeros((5, 5)))
    assert d._numba_type_ == cuda.typeof(d)
    assert (d._numba_type_.layout, d._numba_type_.ndim) == ("C", 2)
    assert d[:, 2]._numba_type_.layout == "A"
    assert cuda.to_device(np.zeros((2, 10), order="F"))._numba_type_.layout == "F"
    assert isinstance(d.device_ctypes_pointer, ctypes.c_size_t)
    assert d.device_ctypes_pointer.value == d.device_pointer != 0
    assert d[1:].device_ctypes_pointer.value == d.device_pointer + 40
    assert cuda.device_array(0).device_ctypes_pointer.value == 0
    assert d.alloc_size == 200
    assert d[::2].alloc_size == 200  # rows 0, 2 and 4: the span, not 3 rows' bytes
    assert d[:, 2].alloc_size == 4 * 40 + 8
    assert cuda.device_array((3, 0)).alloc_size == 0
