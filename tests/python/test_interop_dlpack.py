"""DLPack on the cpu device: NumPy as producer and consumer of cudajit arrays.

Export: DeviceNDArray.__dlpack__ (both capsule kinds, "dltensor" and
"dltensor_versioned") and __dlpack_device__, consumed by numpy.from_dlpack
without a copy. Import: cuda.from_dlpack and kernel arguments that have only
__dlpack__/__dlpack_device__; the max_version call and its fallback, the
capsule renaming, the read-only flag of versioned capsules, and the deleter
running exactly once, when our array (or the launch) is done with it.
"""

import gc
import sys
import weakref

import numpy as np
import pytest

import cudajit as cuda
from conftest import ALL_DTYPES, dtype_id, random_array
from interop_producers import (
    CaiProducer,
    CapsuleProducer,
    DlpackOnly,
    LegacyDlpackProducer,
    TypeErrorOnMaxVersion,
    capsule_name,
    copy_1d,
    copy_2d,
    host_view_of,
    set_capsule_device,
    set_capsule_dtype,
    slow_copy,
    spin_iterations,
    warm_up_kernels,
    write_ones,
)

# DLPack round trips with NumPy need the cpu device (kDLCPU memory):
# they run on the cpu device, also where a GPU is present.
pytestmark = pytest.mark.usefixtures("on_cpu_device")


@cuda.jit
def scale_1d(x, factor):
    i = cuda.grid(1)
    if i < x.shape[0]:
        x[i] = x[i] * factor


def released(ref):
    """Whether the weakly referenced object is gone once cudajit has run the
    releases it defers to its next call."""
    cuda.synchronize()
    gc.collect()
    return ref() is None


# --- export: __dlpack_device__ and __dlpack__ -----------------------------------------------------


def test_dlpack_device_of_our_arrays_is_the_cpu():
    assert cuda.to_device(np.zeros(3)).__dlpack_device__() == (1, 0)  # kDLCPU, device 0


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({}, "dltensor"),
        ({"max_version": None}, "dltensor"),
        ({"max_version": (0, 8)}, "dltensor"),
        ({"max_version": (1, 0)}, "dltensor_versioned"),
        ({"max_version": (1, 3)}, "dltensor_versioned"),
        ({"max_version": (2, 0)}, "dltensor_versioned"),
    ],
    ids=["no-args", "None", "0.8", "1.0", "1.3", "2.0"],
)
def test_the_capsule_kind_follows_max_version(kwargs, name):
    capsule = cuda.to_device(np.arange(3.0)).__dlpack__(**kwargs)
    assert capsule_name(capsule) == name


@pytest.mark.parametrize("max_version", [None, (1, 0)], ids=["dltensor", "dltensor_versioned"])
def test_numpy_from_dlpack_shares_memory_for_both_capsule_kinds(max_version):
    d = cuda.to_device(np.arange(6.0))
    capsule = d.__dlpack__(max_version=max_version)
    n = np.from_dlpack(CapsuleProducer(capsule))
    assert capsule_name(capsule) == ("used_dltensor" if max_version is None
                                     else "used_dltensor_versioned")
    assert n.__array_interface__["data"][0] == d.device_pointer
    assert n.shape == (6,) and n.dtype == np.float64
    if max_version is None:
        # NumPy makes arrays from unversioned capsules read-only: they cannot
        # say whether the producer allows writes.
        assert not n.flags.writeable
        host_view_of(d)[0] = 42.0
    elif np.lib.NumpyVersion(np.__version__) < "2.4.0" and not n.flags.writeable:
        # NumPy 2.2 (Debian 13's, make test-pythons) makes these read-only too; 2.4 honours
        # the versioned capsule's flags, which allow writes.
        host_view_of(d)[0] = 42.0
    else:
        assert n.flags.writeable
        n[0] = 42.0  # through NumPy, read through cudajit
    assert d.copy_to_host()[0] == 42.0
    scale_1d[1, 8](d, 2.0)  # through a kernel, read through NumPy
    cuda.synchronize()
    np.testing.assert_array_equal(n, [84.0, 2, 4, 6, 8, 10])


def test_numpy_from_dlpack_on_the_array_itself():
    d = cuda.to_device(np.arange(4.0))
    n = np.from_dlpack(d)
    assert n.__array_interface__["data"][0] == d.device_pointer
    np.testing.assert_array_equal(n, np.arange(4.0))
    assert np.from_dlpack(d, copy=False).__array_interface__["data"][0] == d.device_pointer


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_every_dtype_round_trips_through_numpy(dtype):
    values = random_array(dtype, (3, 4), seed=7)
    n = np.from_dlpack(cuda.to_device(values))
    assert n.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(n, values)


@pytest.mark.parametrize(
    "make",
    [lambda d: d.T, lambda d: d[:, ::2], lambda d: d[::-1], lambda d: d[1:, 1:3]],
    ids=["transposed", "step2", "reversed", "interior"],
)
def test_views_export_their_strides(make):
    values = np.arange(20.0).reshape(4, 5)
    d = make(cuda.to_device(values))
    n = np.from_dlpack(d)
    assert n.shape == d.shape and n.strides == d.strides
    assert n.__array_interface__["data"][0] == d.device_pointer
    np.testing.assert_array_equal(n, make(values))


def test_a_zero_size_array_round_trips():
    n = np.from_dlpack(cuda.device_array((0, 3)))
    assert n.shape == (0, 3)


def test_a_read_only_array_refuses_a_legacy_capsule():
    view = cuda.as_cuda_array(CaiProducer(np.arange(3.0), readonly=True))
    with pytest.raises(BufferError, match="read-only array needs a versioned capsule"):
        view.__dlpack__()


def test_a_read_only_array_exports_a_read_only_versioned_capsule():
    ro = np.arange(3.0)
    ro.flags.writeable = False
    view = cuda.from_dlpack(ro)
    assert view.readonly
    n = np.from_dlpack(view)
    assert not n.flags.writeable
    np.testing.assert_array_equal(n, [0.0, 1.0, 2.0])


def test_the_export_keeps_our_memory_alive():
    d = cuda.to_device(np.arange(1000.0))
    n = np.from_dlpack(d)
    del d
    gc.collect()
    others = [cuda.to_device(np.full(1000, -1.0)) for _ in range(4)]  # reuse freed memory, if any
    np.testing.assert_array_equal(n, np.arange(1000.0))
    del others


def test_an_unconsumed_capsule_frees_its_tensor():
    d = cuda.to_device(np.arange(4.0))
    for kwargs in ({}, {"max_version": (1, 0)}):
        capsule = d.__dlpack__(**kwargs)
        del capsule  # the capsule's destructor calls the tensor's deleter
    gc.collect()
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(4.0))


@pytest.mark.parametrize("stream", [1, 2, -1, 0, 4096])
def test_a_stream_for_a_cpu_array_is_a_buffer_error(stream):
    d = cuda.to_device(np.zeros(3))
    with pytest.raises(BufferError, match=rf"__dlpack__: stream must be None for arrays on the "
                                          rf"cpu device, got {stream}"):
        d.__dlpack__(stream=stream)
    assert capsule_name(d.__dlpack__(stream=None)) == "dltensor"


def test_copy_true_is_a_buffer_error():
    d = cuda.to_device(np.zeros(3))
    with pytest.raises(BufferError, match=r"__dlpack__\(copy=True\) is not supported: cudajit "
                                          r"exports views"):
        d.__dlpack__(copy=True)
    with pytest.raises(BufferError):
        np.from_dlpack(d, copy=True)
    d.__dlpack__(copy=False)
    d.__dlpack__(copy=None)


def test_dl_device_must_be_the_arrays_device():
    d = cuda.to_device(np.zeros(3))
    assert capsule_name(d.__dlpack__(dl_device=(1, 0))) == "dltensor"
    with pytest.raises(BufferError, match=r"__dlpack__: the array is on \(1, 0\), not \(2, 0\)"):
        d.__dlpack__(dl_device=(2, 0))


def test_a_stride_that_is_not_a_whole_number_of_elements_is_a_buffer_error():
    raw = np.zeros(32, dtype=np.uint8)
    desc = {"shape": (2,), "strides": (6,), "typestr": "<i4",
            "data": (raw.ctypes.data, False), "version": 3}
    odd = cuda.from_cuda_array_interface(desc, owner=raw)
    with pytest.raises(BufferError, match=r"DLPack strides count elements: a stride of 6 bytes "
                                          r"is not a multiple of 4"):
        odd.__dlpack__()


# --- import: cuda.from_dlpack ---------------------------------------------------------------------


def test_from_dlpack_of_a_numpy_array_shares_memory():
    a = np.arange(5.0)
    view = cuda.from_dlpack(a)
    assert isinstance(view, cuda.DeviceNDArray)
    assert view.device_pointer == a.ctypes.data
    assert view.shape == (5,) and view.strides == (8,) and view.dtype == np.float64
    assert not view.readonly and view.stream == 0
    a[1] = 99.0
    assert view.copy_to_host()[1] == 99.0
    scale_1d[1, 8](view, 2.0)
    cuda.synchronize()
    np.testing.assert_array_equal(a, [0.0, 198.0, 4.0, 6.0, 8.0])


@pytest.mark.parametrize(
    "make", [np.asfortranarray, lambda a: a[::-1, ::2], lambda a: a.T[1:]],
    ids=["F", "reversed-step2", "transposed-interior"],
)
def test_from_dlpack_keeps_numpy_strides(make):
    a = make(np.arange(24.0).reshape(4, 6))
    view = cuda.from_dlpack(a)
    assert view.shape == a.shape and view.strides == a.strides
    assert view.device_pointer == a.__array_interface__["data"][0]
    np.testing.assert_array_equal(view.copy_to_host(), a)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_every_dtype_imports_from_numpy(dtype):
    values = random_array(dtype, (7,), seed=8)
    out = np.zeros(7, dtype=dtype)
    copy_1d[1, 8](DlpackOnly(values), out)
    np.testing.assert_array_equal(out, values)
    view = cuda.from_dlpack(values)
    assert view.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(view.copy_to_host(), values)


def test_from_dlpack_of_zero_size_and_0_d_arrays():
    assert cuda.from_dlpack(np.zeros((0, 3))).shape == (0, 3)
    assert cuda.from_dlpack(np.array(2.5)).shape == ()


def test_from_dlpack_uses_dlpack_even_when_there_is_a_cai():
    class Both(DlpackOnly):
        @property
        def __cuda_array_interface__(self):
            raise AssertionError("from_dlpack must not read __cuda_array_interface__")

    a = np.arange(3.0)
    assert cuda.from_dlpack(Both(a)).device_pointer == a.ctypes.data


def test_from_dlpack_of_an_object_without_dlpack_is_a_type_error():
    with pytest.raises(TypeError, match="from_dlpack\\(\\) expects an object with __dlpack__ "
                                        "and __dlpack_device__, got list"):
        cuda.from_dlpack([1.0, 2.0])


def test_as_cuda_array_falls_back_to_dlpack():
    a = np.arange(4.0)
    view = cuda.as_cuda_array(DlpackOnly(a))
    assert view.device_pointer == a.ctypes.data and view.stream == 0


def test_from_dlpack_of_an_unsupported_dtype_is_a_type_error():
    capsule = set_capsule_dtype(np.zeros(3, np.uint8).__dlpack__(max_version=(1, 0)), code=2,
                                bits=8)
    with pytest.raises(TypeError, match=r"DLPack: dtype \(code 2, bits 8, lanes 1\) "
                                        r"is not supported"):
        cuda.from_dlpack(CapsuleProducer(capsule))


# --- import: kernel arguments that only speak DLPack ---------------------------------------------


def test_a_kernel_uses_a_dlpack_only_argument_in_place():
    a = np.arange(6.0)
    p = DlpackOnly(a)
    assert not isinstance(p, np.ndarray) and not cuda.is_cuda_array(p)
    scale_1d[1, 8](p, 3.0)
    cuda.synchronize()
    np.testing.assert_array_equal(a, np.arange(6.0) * 3)
    # One call, with max_version=(1, 0) and, on the cpu device, stream None.
    assert p.calls == [{"stream": None, "max_version": (1, 0)}]


def test_a_kernel_on_a_two_dimensional_dlpack_argument():
    a = np.arange(12.0).reshape(3, 4)[:, ::-1]
    out = np.zeros((3, 4))
    copy_2d[(1, 1), (4, 4)](DlpackOnly(a), out)
    np.testing.assert_array_equal(out, a)
    assert ("array(float64, 2d, A)", "array(float64, 2d, C)") in copy_2d.signatures


def test_a_legacy_producer_is_called_again_without_max_version():
    a = np.arange(4.0)
    p = LegacyDlpackProducer(a)
    scale_1d[1, 4](p, 2.0)
    cuda.synchronize()
    np.testing.assert_array_equal(a, [0.0, 2.0, 4.0, 6.0])
    assert p.calls == [{"stream": None}]  # the first call failed on max_version
    assert cuda.from_dlpack(LegacyDlpackProducer(a)).device_pointer == a.ctypes.data


def test_a_producer_raising_type_error_on_max_version_gets_the_fallback_call():
    a = np.arange(4.0)
    p = TypeErrorOnMaxVersion(a)
    scale_1d[1, 4](p, 2.0)
    cuda.synchronize()
    np.testing.assert_array_equal(a, [0.0, 2.0, 4.0, 6.0])
    assert p.calls == [{"stream": None, "max_version": (1, 0)}, {"stream": None}]


def test_other_errors_from_dlpack_propagate_without_a_retry():
    class Failing(DlpackOnly):
        def __dlpack__(self, **kwargs):
            self.calls.append(kwargs)
            raise BufferError("cannot export this")

    p = Failing(np.zeros(2))
    with pytest.raises(BufferError, match="cannot export this"):
        write_ones[1, 2](p)
    assert len(p.calls) == 1


@pytest.mark.parametrize("max_version", [None, (1, 0)], ids=["dltensor", "dltensor_versioned"])
def test_the_consumed_capsule_is_renamed(max_version):
    a = np.arange(3.0)
    capsule = a.__dlpack__(max_version=max_version)
    name = capsule_name(capsule)
    assert name == ("dltensor" if max_version is None else "dltensor_versioned")
    write_ones[1, 3](CapsuleProducer(capsule))
    cuda.synchronize()
    assert capsule_name(capsule) == "used_" + name
    np.testing.assert_array_equal(a, 1.0)


def test_a_capsule_cannot_be_consumed_twice():
    capsule = np.arange(3.0).__dlpack__(max_version=(1, 0))
    p = CapsuleProducer(capsule)
    write_ones[1, 3](p)
    with pytest.raises(TypeError, match=r"__dlpack__\(\) returned a capsule named "
                                        r"'used_dltensor_versioned', expected 'dltensor' or "
                                        r"'dltensor_versioned' \(already consumed\?\)"):
        write_ones[1, 3](p)


def test_a_read_only_versioned_capsule_makes_a_read_only_argument(assert_compile_error):
    ro = np.zeros(3)
    ro.flags.writeable = False
    with pytest.raises(cuda.CompileError) as info:
        write_ones[1, 3](DlpackOnly(ro))
    assert_compile_error(info.value, write_ones.py_func, "x[i] = 1",
                         r"cannot write to read-only array 'x'")
    # Reading it is fine.
    out = np.zeros(3)
    ro_values = np.arange(3.0)
    ro_values.flags.writeable = False
    copy_1d[1, 3](DlpackOnly(ro_values), out)
    np.testing.assert_array_equal(out, [0.0, 1.0, 2.0])
    assert ("readonly array(float64, 1d, C)", "array(float64, 1d, C)") in copy_1d.signatures


@pytest.mark.parametrize("device, accepted", [((1, 0), True), ((3, 0), True), ((2, 0), False),
                                              ((13, 0), False)],
                         ids=["kDLCPU", "kDLCUDAHost", "kDLCUDA", "kDLCUDAManaged"])
def test_the_cpu_device_takes_host_memory_only(device, accepted):
    a = np.arange(3.0)
    # The tensor says the same device as __dlpack_device__ (a disagreement is refused).
    p = CapsuleProducer(set_capsule_device(a.__dlpack__(max_version=(1, 0)), *device),
                        device=device)
    if accepted:
        write_ones[1, 3](p)
        cuda.synchronize()
        np.testing.assert_array_equal(a, 1.0)
    else:
        with pytest.raises(TypeError, match=r"DLPack: the tensor is on kDLCUDA.*; a launch on the "
                                            r"cpu device takes kDLCPU or kDLCUDAHost memory"):
            write_ones[1, 3](p)


@pytest.mark.parametrize("returned", [None, 5])
def test_a_dlpack_that_returns_no_capsule_is_a_type_error(returned):
    with pytest.raises(TypeError, match=r"__dlpack__\(\)") as info:
        write_ones[1, 3](CapsuleProducer(returned))
    assert type(returned).__name__ in str(info.value) or repr(returned) in str(info.value)


def test_a_malformed_dlpack_device_is_a_type_error():
    p = CapsuleProducer(np.arange(3.0).__dlpack__(), device=[1, 0])
    with pytest.raises(TypeError, match=r"__dlpack_device__\(\) must return \(device_type, "
                                        r"device_id\), got \[1, 0\]"):
        write_ones[1, 3](p)


# --- the deleter: exactly once, when our array is done --------------------------------------------


@pytest.mark.parametrize("producer", [DlpackOnly, LegacyDlpackProducer],
                         ids=["dltensor_versioned", "dltensor"])
def test_the_deleter_runs_once_when_our_view_is_freed(producer):
    a = np.arange(4.0)
    before = sys.getrefcount(a)
    view = cuda.from_dlpack(producer(a))
    # NumPy's capsule holds a reference to `a` until its deleter runs.
    assert sys.getrefcount(a) == before + 1
    sub = view[1:]  # views share the capsule's owner
    del view
    cuda.synchronize()
    assert sys.getrefcount(a) == before + 1
    del sub
    cuda.synchronize()
    gc.collect()
    assert sys.getrefcount(a) == before  # once: twice would drop it below `before`


def test_the_deleter_releases_an_array_nothing_else_holds():
    a = np.arange(4.0)
    ref = weakref.ref(a)
    view = cuda.from_dlpack(DlpackOnly(a))
    del a
    gc.collect()
    assert ref() is not None
    np.testing.assert_array_equal(view.copy_to_host(), np.arange(4.0))
    del view
    assert released(ref)


@pytest.mark.parametrize("producer", [DlpackOnly, LegacyDlpackProducer],
                         ids=["dltensor_versioned", "dltensor"])
def test_a_launch_runs_the_deleter_once_after_the_kernel(producer):
    a = np.arange(4.0)
    before = sys.getrefcount(a)
    for _ in range(5):
        write_ones[1, 4](producer(a))
    cuda.synchronize()
    cuda.synchronize()
    gc.collect()
    assert sys.getrefcount(a) == before
    np.testing.assert_array_equal(a, 1.0)


def test_a_launch_keeps_a_dlpack_argument_alive_until_the_kernel_ends():
    warm_up_kernels()
    # Long enough that the kernel still runs after gc.collect(), which takes a while in a
    # process that has run the whole suite on a loaded machine.
    spin = spin_iterations(1.5)
    a = np.full(16, 3.0)
    ref = weakref.ref(a)
    s = cuda.stream()
    out = cuda.device_array(16)
    slow_copy[1, 1, s](DlpackOnly(a), out, 1)  # compile for this argument type
    s.synchronize()
    slow_copy[1, 1, s](DlpackOnly(a), out, spin)
    del a  # the capsule's reference is the last one
    gc.collect()
    assert ref() is not None
    assert not s.query(), "the kernel finished too early to test anything"
    s.synchronize()
    np.testing.assert_array_equal(host_view_of(out), 3.0)
    assert released(ref)
