"""Importing and exporting arrays through the CUDA Array Interface (v0 to v3),
on the cpu device (device memory is host memory there).

One test per validation rule of ../shared/spec/cuda-array-interface-v3.txt,
checking the exception type and its message; kernels launched directly on
producer objects, compared with NumPy; the views as_cuda_array(obj) and
from_cuda_array_interface(desc, owner=...); is_cuda_array; the producer's
stream as a view's default stream; and DeviceNDArray's own
__cuda_array_interface__. Synchronisation and lifetime: test_interop_sync.py.
"""

import re

import numpy as np
import pytest

import cudajit as cuda
from conftest import ALL_DTYPES, dtype_id, in_layout, random_array
from interop_producers import (
    REMOVE,
    CaiProducer,
    DlpackOnly,
    copy_1d,
    copy_2d,
    host_view_of,
    read_sum,
    write_ones,
)

# these tests put host memory behind __cuda_array_interface__:
# they run on the cpu device, also where a GPU is present.
pytestmark = pytest.mark.usefixtures("on_cpu_device")


@cuda.jit
def add_2d(x, y, out):
    i, j = cuda.grid(2)
    if i < x.shape[0] and j < x.shape[1]:
        out[i, j] = x[i, j] + y[i, j]


def launch_copy(producer, shape, dtype=np.float64):
    """Runs copy_1d / copy_2d on `producer`; returns what the kernel read."""
    out = np.zeros(shape, dtype=dtype)
    if len(shape) == 1:
        copy_1d[max(1, -(-shape[0] // 32)), 32](producer, out)
    else:
        copy_2d[(max(1, -(-shape[0] // 8)), max(1, -(-shape[1] // 8))), (8, 8)](producer, out)
    return out


def cai_error(match, exc=ValueError):
    return pytest.raises(exc, match=match)


F8 = np.dtype(np.float64).str  # '<f8' on this (little-endian) machine
NON_NATIVE = ">" if F8[0] == "<" else "<"


# --- required keys and their Python types ------------------------------------------------------


@pytest.mark.parametrize("key", ["shape", "typestr", "data", "version"])
def test_a_missing_required_key_is_a_value_error_naming_it(key):
    p = CaiProducer(np.arange(4.0), **{key: REMOVE})
    with cai_error(rf"__cuda_array_interface__: the required key '{key}' is missing "
                   r"\(required: shape, typestr, data, version\)"):
        launch_copy(p, (4,))
    with cai_error(f"required key '{key}' is missing"):
        cuda.as_cuda_array(p)


def test_the_interface_must_be_a_dict():
    class NotADict:
        __cuda_array_interface__ = [("shape", (4,))]

    with cai_error(r"__cuda_array_interface__ must be a dict, got \[", TypeError):
        launch_copy(NotADict(), (4,))


@pytest.mark.parametrize(
    "key, value, expected",
    [
        ("version", "3", "an int"),
        ("version", 3.0, "an int"),
        ("shape", [4], "a tuple of ints"),
        ("shape", (4.0,), "a tuple of ints"),
        ("shape", 4, "a tuple of ints"),
        ("typestr", 8, "a str"),
        ("typestr", np.dtype("<f8"), "a str"),
        ("data", [0, False], r"a 2-tuple \(int, bool\)"),
        ("data", (0,), r"a 2-tuple \(int, bool\)"),
        ("data", (1.5, False), r"a 2-tuple \(int, bool\)"),
        ("data", ("0x10", False), r"a 2-tuple \(int, bool\)"),
        ("strides", [8], "a tuple of ints"),
        ("strides", (8.0,), "a tuple of ints"),
        ("descr", "<f8", "a list of tuples"),
        ("descr", ["<f8"], r"a list of \(name, typestr\) tuples"),
        ("stream", "1", "an int or None"),
        ("stream", 1.0, "an int or None"),
    ],
    ids=lambda v: repr(v),
)
def test_an_entry_of_the_wrong_type_is_a_type_error(key, value, expected):
    p = CaiProducer(np.arange(4.0), **{key: value})
    with cai_error(rf"__cuda_array_interface__\['{key}'\] must be {expected}; got ", TypeError):
        launch_copy(p, (4,))
    with cai_error(rf"\['{key}'\] must be {expected}", TypeError):
        cuda.as_cuda_array(p)


# --- versions ------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", [0, 1, 2, 3])
@pytest.mark.parametrize("strides", ["None", "absent"])
def test_every_version_reads_missing_strides_as_c_contiguous(version, strides):
    values = np.arange(12.0).reshape(3, 4)
    p = CaiProducer(values, version=version,
                    strides=None if strides == "None" else REMOVE)
    if version < 3:
        p.entries.update(stream=REMOVE)
    if version == 0:
        p.entries.update(mask=REMOVE)  # v0 had no mask
    np.testing.assert_array_equal(launch_copy(p, (3, 4)), values)
    view = cuda.as_cuda_array(p)
    assert view.strides == (32, 8) and view.layout == "C"
    np.testing.assert_array_equal(view.copy_to_host(), values)


@pytest.mark.parametrize("version", [0, 1, 2])
def test_older_versions_take_explicit_strides_as_given(version):
    values = np.arange(12.0).reshape(3, 4)
    p = CaiProducer(values.T, version=version)  # F order: strides (8, 32)
    np.testing.assert_array_equal(launch_copy(p, (4, 3)), values.T)


@pytest.mark.parametrize("version", [4, -1, 100])
def test_an_unknown_version_is_a_value_error(version):
    with cai_error(rf"version {version} is not supported; expected 0, 1, 2 or 3"):
        launch_copy(CaiProducer(np.arange(4.0), version=version), (4,))


# --- typestr and descr ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "typestr, dtype",
    [
        (F8, np.float64),
        ("=f8", np.float64),
        ("|f8", np.float64),  # '|' (not applicable) read as native, as NumPy does
        ("<i2" if F8[0] == "<" else ">i2", np.int16),
        ("|u1", np.uint8),
        ("|i1", np.int8),
        (NON_NATIVE + "i1", np.int8),  # one byte: byte order does not matter
        ("|b1", np.bool_),
        (np.dtype(np.complex64).str, np.complex64),
        (np.dtype(np.complex128).str, np.complex128),
    ],
)
def test_typestr_with_native_or_irrelevant_byte_order_is_read(typestr, dtype):
    values = np.zeros(3, dtype=dtype)
    view = cuda.as_cuda_array(CaiProducer(values, typestr=typestr, descr=REMOVE))
    assert view.dtype == np.dtype(dtype)


@pytest.mark.parametrize("typestr", [NON_NATIVE + "f8", NON_NATIVE + "i4", NON_NATIVE + "c16"])
def test_a_non_native_byte_order_is_a_type_error(typestr):
    values = np.zeros(3, dtype=np.dtype(typestr).newbyteorder("="))
    p = CaiProducer(values, typestr=typestr, descr=REMOVE)
    with cai_error(rf"typestr: '{typestr}' has non-native byte order.*byte-swap the array first",
                   TypeError):
        launch_copy(p, (3,), values.dtype)


@pytest.mark.parametrize(
    "typestr, name",
    [
        ("|O", "Python object"),
        ("|O8", "Python object"),
        ("<M8", "datetime64"),
        ("<M8[ns]", "datetime64"),
        ("<m8[s]", "timedelta64"),
        ("<U4", "unicode string"),
        ("|S4", "byte string"),
        ("|V8", "void or structured"),
        ("<f16", "long double"),
        ("<c32", "complex long double"),
        ("<i3", None),
        ("|b2", None),
    ],
)
def test_an_unsupported_kind_or_size_is_a_type_error(typestr, name):
    p = CaiProducer(np.zeros(1), typestr=typestr, descr=REMOVE)
    what = rf" \({name}\)" if name else ""
    with cai_error(rf"typestr: '{re.escape(typestr)}'{what} is not supported; "
                   r"supported: b1 \(bool\), "
                   r"i1 i2 i4 i8, u1 u2 u4 u8, f2 f4 f8, c8 c16, and V2 with descr "
                   r"\[\('bfloat16', '<V2'\)\]", TypeError):
        cuda.as_cuda_array(p)


@pytest.mark.parametrize(
    "typestr, why",
    [("f8", "no byte order"), ("<x8", "unknown kind 'x'"), ("<f", "no size"), ("", "too short"),
     ("<fx", "no size")],
)
def test_a_malformed_typestr_is_a_value_error(typestr, why):
    p = CaiProducer(np.zeros(1), typestr=typestr, descr=REMOVE)
    with cai_error(rf"typestr: '{re.escape(typestr)}' is not a NumPy type string \({why}\)"):
        cuda.as_cuda_array(p)


@pytest.mark.parametrize("descr", [[("", F8)], [("", "=f8")], None, REMOVE],
                         ids=["same", "same-native-spelling", "None", "absent"])
def test_a_consistent_or_absent_descr_is_accepted(descr):
    values = np.arange(4.0)
    np.testing.assert_array_equal(launch_copy(CaiProducer(values, descr=descr), (4,)), values)


def test_a_descr_that_contradicts_typestr_is_a_value_error():
    p = CaiProducer(np.arange(4.0), descr=[("", "<f4")])
    with cai_error(rf"descr \[\('', '<f4'\)\] does not match typestr '{F8}'; "
                   rf"expected \[\('', '{F8}'\)\]"):
        launch_copy(p, (4,))


@pytest.mark.parametrize(
    "descr",
    [
        [("a", "<f8"), ("b", "<i4")],
        [("a", [("x", "<f8")])],
        [("", "<f8", (2,))],
    ],
    ids=["two-fields", "nested", "sub-array"],
)
def test_a_structured_descr_is_a_type_error(descr):
    p = CaiProducer(np.arange(4.0), descr=descr)
    with cai_error(r"descr \[.*\] describes a structured dtype; structured dtypes are not "
                   r"supported", TypeError):
        launch_copy(p, (4,))


def test_an_empty_descr_is_a_value_error():
    with cai_error(rf"descr is an empty list; expected \[\('', '{F8}'\)\]"):
        launch_copy(CaiProducer(np.arange(4.0), descr=[]), (4,))


def test_a_descr_typestr_is_checked_like_typestr():
    p = CaiProducer(np.arange(4.0), descr=[("", NON_NATIVE + "f8")])
    with cai_error("descr: .* has non-native byte order", TypeError):
        launch_copy(p, (4,))


# --- shape, strides and layout ------------------------------------------------------------------


def test_a_negative_extent_is_a_value_error():
    with cai_error(r"shape\[1\] is -2; extents must be non-negative"):
        cuda.as_cuda_array(CaiProducer(np.zeros((2, 2)), shape=(2, -2), strides=(16, 8)))


def test_strides_of_the_wrong_length_are_a_value_error():
    with cai_error(r"strides has 1 entries for 2 dimensions; expected one byte stride per "
                   r"dimension, or None"):
        cuda.as_cuda_array(CaiProducer(np.zeros((2, 2)), strides=(8,)))


def test_an_overflowing_shape_is_a_value_error():
    with cai_error(r"larger than 2\*\*63 - 1 bytes"):
        cuda.as_cuda_array(CaiProducer(np.zeros(1), shape=(2**40, 2**40), strides=None))


@pytest.mark.parametrize("ndim", [33, 65, 200])
def test_too_many_dimensions_is_a_value_error(ndim):
    with cai_error(f"{ndim} dimensions; at most 32 are supported"):
        cuda.as_cuda_array(CaiProducer(np.zeros(1), shape=(1,) * ndim, strides=None))


class KeysMadeAtRunTime:
    """A producer whose dict keys are strs built at run time, not interned literals."""

    def __init__(self, array):
        self.array = array

    @property
    def __cuda_array_interface__(self):
        base = CaiProducer(self.array).__cuda_array_interface__
        return {"".join(list(key)): value for key, value in base.items()}


def test_keys_that_are_not_interned_strs_are_read():
    x = np.arange(8.0)
    np.testing.assert_array_equal(launch_copy(KeysMadeAtRunTime(x), x.shape), x)
    desc = KeysMadeAtRunTime(x).__cuda_array_interface__
    assert all(key is not __import__("sys").intern(key) for key in desc)  # the point of the test


def test_negative_strides_are_used_as_given():
    values = np.arange(10.0)
    reversed_view = values[::-1]  # data points at the last element in memory
    p = CaiProducer(reversed_view)
    assert p.__cuda_array_interface__["strides"] == (-8,)
    np.testing.assert_array_equal(launch_copy(p, (10,)), values[::-1])
    view = cuda.as_cuda_array(p)
    assert view.strides == (-8,) and view.layout == "A"
    np.testing.assert_array_equal(view.copy_to_host(), values[::-1])


def test_negative_strides_in_two_dimensions():
    values = np.arange(12.0).reshape(3, 4)
    p = CaiProducer(values[::-1, ::-2])
    np.testing.assert_array_equal(launch_copy(p, (3, 2)), values[::-1, ::-2])


def test_zero_strides_are_used_as_given():
    row = np.arange(4.0)
    broadcast = np.broadcast_to(row, (3, 4))  # strides (0, 8)
    p = CaiProducer(broadcast)
    assert p.__cuda_array_interface__["strides"] == (0, 8)
    np.testing.assert_array_equal(launch_copy(p, (3, 4)), broadcast)
    view = cuda.as_cuda_array(p)
    assert view.strides == (0, 8) and view.layout == "A"


def _layouts():
    a = np.arange(24.0).reshape(4, 6)
    return [
        ("C-strides-None", a, None, "C"),
        ("C-explicit", a, (48, 8), "C"),
        ("F", np.asfortranarray(a), (8, 32), "F"),
        ("transposed", a.T, (8, 48), "F"),
        ("step2", a[:, ::2], (48, 16), "A"),
        ("interior", a[1:3, 1:5], (48, 8), "A"),
        ("reversed", a[::-1], (-48, 8), "A"),
        ("extent-1-any-stride", a[:1], (999 * 8, 8), "C"),
        # (4, 1) with stride 48 along axis 0: neither C (8) nor F (8) there.
        ("column-any-stride", a[:, :1], (48, 12345 * 8), "A"),
    ]


@pytest.mark.parametrize("name, values, strides, layout", _layouts(),
                         ids=[case[0] for case in _layouts()])
def test_layout_is_detected_from_byte_strides(name, values, strides, layout):
    # Dimensions of extent 1 constrain nothing (NumPy's rule).
    p = CaiProducer(values, strides=strides)
    view = cuda.as_cuda_array(p)
    assert view.layout == layout, (name, view.strides)
    # The launch types the argument with the same layout.
    out = launch_copy(p, values.shape)
    np.testing.assert_array_equal(out, values)
    assert ("array(float64, 2d, %s)" % layout) in [sig[0] for sig in copy_2d.signatures]


def test_a_single_column_with_element_stride_is_both_c_and_f():
    a = np.arange(4.0).reshape(4, 1)
    view = cuda.as_cuda_array(CaiProducer(a, strides=(8, 8)))
    assert view.layout == "C" and view.is_c_contiguous() and view.is_f_contiguous()


# --- data pointer and zero-size arrays ------------------------------------------------------------


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0)])
def test_a_zero_size_array_may_have_data_pointer_0(shape):
    p = CaiProducer(np.zeros(shape), data=(0, False), strides=None)
    view = cuda.as_cuda_array(p)
    assert view.shape == shape and view.size == 0 and view.device_pointer == 0
    assert view.copy_to_host().shape == shape
    launch_copy(p, shape)  # launches, touches nothing


def test_data_pointer_0_with_elements_is_a_value_error():
    with cai_error(r"data pointer is 0 for an array of 6 elements; only zero-size arrays may "
                   r"have data pointer 0"):
        launch_copy(CaiProducer(np.zeros((2, 3)), data=(0, False)), (2, 3))


# --- mask, stream ---------------------------------------------------------------------------------


@pytest.mark.parametrize("version", [0, 1, 2, 3])
def test_a_mask_is_not_implemented(version):
    values = np.arange(4.0)
    mask = CaiProducer(np.ones(4, dtype=np.bool_))
    p = CaiProducer(values, version=version, mask=mask)
    with cai_error(r"__cuda_array_interface__: Masked arrays are not supported \(mask is not "
                   r"None\)", NotImplementedError):
        launch_copy(p, (4,))
    with pytest.raises(NotImplementedError):
        cuda.as_cuda_array(p)


def test_mask_none_is_accepted():
    values = np.arange(4.0)
    np.testing.assert_array_equal(launch_copy(CaiProducer(values, mask=None), (4,)), values)


def test_stream_0_is_a_value_error():
    p = CaiProducer(np.arange(4.0), stream=0)
    with cai_error(r"stream 0 is disallowed \(it is ambiguous between None, the legacy and the "
                   r"per-thread default stream\); expected None, 1 \(legacy default stream\), 2 "
                   r"\(per-thread default stream\) or a stream handle"):
        launch_copy(p, (4,))
    with cai_error("stream 0 is disallowed"):
        cuda.as_cuda_array(p)


def test_stream_0_is_an_error_even_with_synchronisation_off():
    try:
        cuda.config.CUDA_ARRAY_INTERFACE_SYNC = False
        with cai_error("stream 0 is disallowed"):
            launch_copy(CaiProducer(np.arange(4.0), stream=0), (4,))
    finally:
        cuda.config.CUDA_ARRAY_INTERFACE_SYNC = True


def test_a_negative_stream_is_a_value_error():
    with cai_error(r"stream -3 is not a stream; expected None, 1, 2 or a stream handle"):
        launch_copy(CaiProducer(np.arange(4.0), stream=-3), (4,))


def test_a_stream_the_cpu_device_does_not_know_is_a_value_error():
    with cai_error(r"no stream of the cpu device has handle 0x7ffff0"):
        launch_copy(CaiProducer(np.arange(4.0), stream=0x7FFFF0), (4,))


@pytest.mark.parametrize("stream", [None, 1, 2])
def test_streams_none_1_and_2_are_accepted(stream):
    values = np.arange(4.0)
    np.testing.assert_array_equal(launch_copy(CaiProducer(values, stream=stream), (4,)), values)


# --- read-only ------------------------------------------------------------------------------------


def test_a_kernel_writing_a_read_only_argument_does_not_compile(assert_compile_error):
    values = np.zeros(4)
    p = CaiProducer(values, readonly=True)
    with pytest.raises(cuda.CompileError) as info:
        write_ones[1, 4](p)
    assert_compile_error(info.value, write_ones.py_func, "x[i] = 1",
                         r"cannot write to read-only array 'x'",
                         r"readonly array\(float64, 1d, C\)")
    np.testing.assert_array_equal(values, 0.0)


def test_a_kernel_only_reading_a_read_only_argument_works():
    p = CaiProducer(np.arange(5.0), readonly=True)
    out = np.zeros(1)
    read_sum[1, 1](p, out)
    assert out[0] == 10.0
    assert ("readonly array(float64, 1d, C)", "array(float64, 1d, C)") in read_sum.signatures


def test_the_same_memory_writable_still_compiles_the_writing_kernel():
    values = np.zeros(4)
    write_ones[1, 4](CaiProducer(values, readonly=False))
    cuda.synchronize()
    np.testing.assert_array_equal(values, 1.0)


def test_a_read_only_view_keeps_the_flag():
    view = cuda.as_cuda_array(CaiProducer(np.arange(3.0), readonly=True))
    assert view.readonly
    with pytest.raises(cuda.CompileError, match="cannot write to read-only array 'x'"):
        write_ones[1, 3](view)


# --- kernels on producers, compared with NumPy ----------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_kernels_on_producers_over_numpy_memory(dtype):
    x = random_array(dtype, (5, 7), seed=1)
    y = random_array(dtype, (5, 7), seed=2)
    out = np.zeros((5, 7), dtype=dtype)
    add_2d[(1, 1), (8, 8)](CaiProducer(x), CaiProducer(y), CaiProducer(out))
    cuda.synchronize()  # no NumPy argument: the launch did not wait
    with np.errstate(over="ignore"):
        expected = x + y if dtype is not np.bool_ else (x | y)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.complex128], ids=dtype_id)
def test_kernels_on_producers_over_device_memory(dtype):
    x = random_array(dtype, (6, 5), seed=3)
    y = random_array(dtype, (6, 5), seed=4)
    dx, dy = cuda.to_device(x), cuda.to_device(y)
    dout = cuda.device_array((6, 5), dtype=dtype)
    add_2d[(1, 1), (8, 8)](CaiProducer(dx), CaiProducer(dy), CaiProducer(dout))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(dout.copy_to_host(), x + y)


@pytest.mark.parametrize("layout", ["C", "F", "step2", "subarray", "moveaxis", "reversed"])
def test_kernels_on_producers_in_every_layout(layout):
    x = in_layout(random_array(np.float64, (6, 5), seed=5), layout)
    y = in_layout(random_array(np.float64, (6, 5), seed=6), layout)
    out = in_layout(np.zeros((6, 5)), layout)
    add_2d[(1, 1), (8, 8)](CaiProducer(x), CaiProducer(y), CaiProducer(out))
    cuda.synchronize()
    np.testing.assert_array_equal(out, x + y)


def test_a_producer_mixed_with_own_and_numpy_arrays():
    x = np.arange(12.0).reshape(3, 4)
    y = cuda.to_device(np.full((3, 4), 10.0))
    out = np.zeros((3, 4))
    add_2d[(1, 1), (4, 4)](CaiProducer(x), y, out)
    np.testing.assert_array_equal(out, x + 10.0)


def test_the_interface_is_read_at_every_launch():
    values = np.arange(4.0)
    p = CaiProducer(values)
    launch_copy(p, (4,))
    launch_copy(p, (4,))
    assert p.accesses == 2
    other = np.arange(4.0) * 3  # the producer now points elsewhere: the launch follows
    p.array = other
    np.testing.assert_array_equal(launch_copy(p, (4,)), other)


def test_an_exception_from_the_property_is_chained():
    class Broken:
        @property
        def __cuda_array_interface__(self):
            raise RuntimeError("the producer failed")

    with pytest.raises(ValueError, match="of a Broken object raised RuntimeError") as info:
        launch_copy(Broken(), (4,))
    assert isinstance(info.value.__cause__, RuntimeError)
    assert str(info.value.__cause__) == "the producer failed"


# --- classification order -------------------------------------------------------------------------


class _RaisingCai:
    @property
    def __cuda_array_interface__(self):
        raise AssertionError("__cuda_array_interface__ must not be read")


def test_own_device_arrays_are_not_read_through_their_interface():
    class Sub(cuda.DeviceNDArray):
        __cuda_array_interface__ = _RaisingCai.__cuda_array_interface__

    d = cuda.to_device(np.arange(4.0))
    np.testing.assert_array_equal(launch_copy(Sub(d), (4,)), np.arange(4.0))


def test_numpy_arrays_are_not_read_through_an_interface():
    class Sub(np.ndarray):
        __cuda_array_interface__ = _RaisingCai.__cuda_array_interface__

    a = np.arange(4.0).view(Sub)
    np.testing.assert_array_equal(launch_copy(a, (4,)), np.arange(4.0))


def test_the_interface_wins_over_dlpack():
    class Both(CaiProducer):
        def __dlpack__(self, *args, **kwargs):
            raise AssertionError("__dlpack__ must not be called when the CAI is there")

        def __dlpack_device__(self):
            raise AssertionError("__dlpack_device__ must not be called")

    values = np.arange(4.0)
    np.testing.assert_array_equal(launch_copy(Both(values), (4,)), values)
    assert cuda.as_cuda_array(Both(values)).device_pointer == values.ctypes.data


def test_an_object_exporting_nothing_is_a_type_error():
    with pytest.raises(TypeError, match=r"argument 0: expected a device array, an array "
                                        r"exporting __cuda_array_interface__ or DLPack"):
        launch_copy(object(), (4,))
    with pytest.raises(TypeError, match="expected an object exporting __cuda_array_interface__ "
                                        "or DLPack"):
        cuda.as_cuda_array([1.0, 2.0])


def test_a_producer_with_more_dimensions_than_kernels_take():
    p = CaiProducer(np.zeros((1,) * 9))
    with pytest.raises(TypeError, match=r"kernels take arrays of 0 to 8 dimensions, got a "
                                        r"foreign array of 9"):
        write_ones[1, 1](p)


# --- as_cuda_array, from_cuda_array_interface, is_cuda_array --------------------------------------


def test_as_cuda_array_is_a_view_with_the_producers_geometry():
    base = np.arange(24, dtype=np.int32)
    values = base.reshape(4, 6)[:, 1::2]
    view = cuda.as_cuda_array(CaiProducer(values))
    assert isinstance(view, cuda.DeviceNDArray) and cuda.is_device_array(view)
    assert view.shape == values.shape and view.strides == values.strides
    assert view.dtype == np.int32 and view.ndim == 2 and view.size == values.size
    assert view.layout == "A" and not view.readonly
    assert view.device_pointer == values.__array_interface__["data"][0]
    np.testing.assert_array_equal(view.copy_to_host(), values)
    # No copy: a kernel writing through the view writes the producer's memory,
    # at the strided positions only.
    add_2d[(1, 1), (4, 4)](view, view, view)
    cuda.synchronize()
    expected = np.arange(24, dtype=np.int32).reshape(4, 6)
    expected[:, 1::2] *= 2
    np.testing.assert_array_equal(base.reshape(4, 6), expected)


def test_as_cuda_array_of_a_device_array_producer_shares_memory():
    d = cuda.to_device(np.arange(5.0))
    view = cuda.as_cuda_array(CaiProducer(d))
    assert view.device_pointer == d.device_pointer
    write_ones[1, 5](view)
    np.testing.assert_array_equal(d.copy_to_host(), 1.0)


def test_from_cuda_array_interface_builds_the_described_view():
    base = np.arange(12.0)
    desc = {"shape": (3, 2), "strides": (32, 8), "typestr": F8,
            "data": (base.ctypes.data + 8, False), "version": 3}
    view = cuda.from_cuda_array_interface(desc, owner=base)
    assert view.shape == (3, 2) and view.strides == (32, 8) and view.dtype == np.float64
    np.testing.assert_array_equal(view.copy_to_host(), [[1, 2], [5, 6], [9, 10]])
    assert not view.readonly and view.stream == 0


def test_from_cuda_array_interface_validates_like_a_launch():
    with cai_error("required key 'typestr' is missing"):
        cuda.from_cuda_array_interface({"shape": (1,), "data": (8, False), "version": 3})
    with pytest.raises(NotImplementedError):
        cuda.from_cuda_array_interface(
            {"shape": (1,), "typestr": F8, "data": (8, False), "version": 3, "mask": object()})


def test_from_cuda_array_interface_of_our_own_export(on_gpu_device):
    d = cuda.to_device(np.arange(6.0).reshape(2, 3)).T
    view = cuda.from_cuda_array_interface(d.__cuda_array_interface__, owner=d)
    assert view.shape == d.shape and view.strides == d.strides
    assert view.device_pointer == d.device_pointer and view.layout == "F"
    np.testing.assert_array_equal(view.copy_to_host(), np.arange(6.0).reshape(2, 3).T)


def test_is_cuda_array():
    assert cuda.is_cuda_array(CaiProducer(np.zeros(2)))
    # Arrays of the cpu device are host memory: they are no CUDA arrays (on a GPU they are).
    assert not cuda.is_cuda_array(cuda.to_device(np.zeros(2)))
    assert not cuda.is_cuda_array(cuda.as_cuda_array(CaiProducer(np.zeros(2))))
    assert not cuda.is_cuda_array(np.zeros(2))
    assert not cuda.is_cuda_array(DlpackOnly(np.zeros(2)))
    assert not cuda.is_cuda_array([1, 2])


# --- the producer's stream as the view's default stream -------------------------------------------


def test_a_view_takes_the_producers_stream_and_exports_it():
    s = cuda.stream()
    view = cuda.as_cuda_array(CaiProducer(np.arange(4.0), stream=s))
    assert view.stream == s
    # ... and passes it on to the next consumer (exporting it: test_export_of_a_view_...).
    again = cuda.as_cuda_array(CaiProducer(view, stream=view.stream.handle))
    assert again.stream == s


def test_from_cuda_array_interface_takes_the_stream_too():
    s = cuda.stream()
    desc = CaiProducer(np.arange(4.0), stream=s).__cuda_array_interface__
    assert cuda.from_cuda_array_interface(desc).stream == s
    assert cuda.from_cuda_array_interface(desc, sync=False).stream == 0


def test_a_view_made_with_sync_false_has_no_default_stream():
    s = cuda.stream()
    view = cuda.as_cuda_array(CaiProducer(np.arange(4.0), stream=s), sync=False)
    assert view.stream == 0


def test_a_view_made_with_synchronisation_off_has_no_default_stream():
    s = cuda.stream()
    try:
        cuda.config.CUDA_ARRAY_INTERFACE_SYNC = False
        view = cuda.as_cuda_array(CaiProducer(np.arange(4.0), stream=s))
    finally:
        cuda.config.CUDA_ARRAY_INTERFACE_SYNC = True
    assert view.stream == 0


def test_a_view_of_a_producer_on_the_per_thread_default_stream():
    view = cuda.as_cuda_array(CaiProducer(np.arange(4.0), stream=2))
    assert view.stream == cuda.per_thread_default_stream()


def test_a_view_of_a_producer_on_the_legacy_default_stream():
    view = cuda.as_cuda_array(CaiProducer(np.arange(4.0), stream=1))
    assert view.stream in (0, cuda.legacy_default_stream())


def test_export_of_a_view_passes_the_producers_stream_on(on_gpu_device):
    s = cuda.stream()
    d = cuda.to_device(np.arange(4.0))
    view = cuda.as_cuda_array(CaiProducer(d, stream=s))
    assert view.__cuda_array_interface__["stream"] == s.handle
    assert cuda.as_cuda_array(view).stream == s
    legacy = cuda.as_cuda_array(CaiProducer(d, stream=1))
    assert legacy.__cuda_array_interface__["stream"] == 1  # never 0
    cuda.as_cuda_array(legacy)  # and the export can be imported again
    unsynced = cuda.as_cuda_array(CaiProducer(d, stream=s), sync=False)
    assert unsynced.__cuda_array_interface__["stream"] is None


# --- export: DeviceNDArray.__cuda_array_interface__ -----------------------------------------------


def test_export_of_a_c_contiguous_array(on_gpu_device):
    d = cuda.to_device(np.arange(6, dtype=np.int16).reshape(2, 3))
    cai = d.__cuda_array_interface__
    assert cai == {
        "shape": (2, 3),
        "strides": None,
        "data": (d.device_pointer, False),
        "typestr": np.dtype(np.int16).str,
        "descr": [("", np.dtype(np.int16).str)],
        "version": 3,
        "stream": None,
    }
    assert d.copy_to_host().tolist() == [[0, 1, 2], [3, 4, 5]]


@pytest.mark.parametrize("make", [lambda d: d.T, lambda d: d[:, ::2], lambda d: d[::-1]],
                         ids=["F", "strided", "reversed"])
def test_export_of_a_non_c_contiguous_view_gives_strides(make, on_gpu_device):
    d = make(cuda.to_device(np.arange(12.0).reshape(3, 4)))
    cai = d.__cuda_array_interface__
    assert cai["strides"] == d.strides and cai["shape"] == d.shape
    assert cai["data"][0] == d.device_pointer
    np.testing.assert_array_equal(launch_copy(d, d.shape), d.copy_to_host())
    np.testing.assert_array_equal(cuda.as_cuda_array(CaiProducer(d)).copy_to_host(),
                                  d.copy_to_host())


def test_export_of_a_bound_stream(on_gpu_device):
    s = cuda.stream()
    d = cuda.to_device(np.zeros(3)).bind(s)
    assert d.__cuda_array_interface__["stream"] == s.handle
    assert d.bind(2).__cuda_array_interface__["stream"] == 2


@pytest.mark.parametrize("stream", [0, 1, "default"])
def test_export_of_the_legacy_default_stream_is_never_0(stream, on_gpu_device):
    if stream == "default":
        stream = cuda.default_stream()
    d = cuda.to_device(np.zeros(3)).bind(stream)
    assert d.__cuda_array_interface__["stream"] in (None, 1)
    cuda.as_cuda_array(CaiProducer(d, stream=d.__cuda_array_interface__["stream"]))


def test_device_array_created_on_a_stream_exports_it(on_gpu_device):
    # The CAI spec's own example: x = cuda.device_array(N, stream=array_stream)
    s = cuda.stream()
    d = cuda.device_array(8, stream=s)
    assert d.__cuda_array_interface__["stream"] == s.handle
    e = cuda.to_device(np.zeros(8), stream=s)
    assert e.__cuda_array_interface__["stream"] == s.handle


def test_export_of_a_zero_size_array_allocated_empty_has_data_0(on_gpu_device):
    d = cuda.device_array((0, 3))
    cai = d.__cuda_array_interface__
    assert cai["data"] == (0, False) and cai["shape"] == (0, 3)


def test_export_of_a_zero_size_view_has_data_0(on_gpu_device):
    d = cuda.to_device(np.arange(6.0))
    assert d[2:2].__cuda_array_interface__["data"][0] == 0


def test_export_of_a_read_only_view(on_gpu_device):
    view = cuda.as_cuda_array(CaiProducer(cuda.to_device(np.arange(3.0)), readonly=True))
    assert view.__cuda_array_interface__["data"] == (view.device_pointer, True)
