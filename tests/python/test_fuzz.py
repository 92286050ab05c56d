"""Fuzzing with Hypothesis: CAI dictionaries, DLPack producers, launch
configurations, array shapes and signatures drawn at random. Whatever is
drawn, cudajit either works (and the data is right) or raises one of the
exceptions its API documents, with a message; never a pybind11 cast error, a
SystemError, a crash or a hang.

`make test` runs a short, time-bounded pass (CUDAJIT_FUZZ_EXAMPLES examples per
target, 60 by default); `make fuzz` runs many more. Anything found here
becomes a regular test (test_hardening_inputs.py)."""

import os

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import cudajit as cuda  # noqa: E402
from interop_producers import CaiProducer  # noqa: E402
from cudajit.errors import CompileError  # noqa: E402
from test_hardening_inputs import Producer  # noqa: E402

EXAMPLES = int(os.environ.get("CUDAJIT_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 60,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

# The exceptions cudajit's API raises for bad input (CompileError is a class of
# its own; CudaOutOfMemoryError is a MemoryError; masked CAI arrays are
# NotImplementedError, as in Numba).
DOCUMENTED = (TypeError, ValueError, OverflowError, MemoryError, IndexError, CompileError,
              BufferError, NotImplementedError)

# Integers that cross into C++: small, boundary and far out of range.
WILD_INTS = st.one_of(st.integers(-4, 70), st.sampled_from(
    [-1, 2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -2**63, -2**63 - 1,
     2**70, -2**70]))
WILD_VALUES = st.one_of(WILD_INTS, st.none(), st.booleans(), st.floats(allow_nan=True),
                        st.text(max_size=6), st.tuples(WILD_INTS), st.lists(WILD_INTS,
                                                                            max_size=3))


def check_message(error):
    text = str(error)
    assert text, f"{type(error).__name__} without a message"
    for leak in ("Unable to cast Python instance", "incompatible function arguments",
                 "pybind11::", "Internal error"):
        assert leak not in text, text


@pytest.fixture(scope="module")
def base_interface(on_cpu_device):
    base = cuda.device_array(64, np.float64)
    base[:] = np.arange(64.0)
    return base, dict(CaiProducer(base).__cuda_array_interface__)  # host memory: no own CAI


CAI_KEYS = ["shape", "typestr", "data", "version", "strides", "descr", "mask", "stream"]


@FUZZ
@given(changes=st.dictionaries(st.sampled_from(CAI_KEYS), WILD_VALUES, max_size=4),
       dropped=st.lists(st.sampled_from(CAI_KEYS), max_size=2))
def test_cai_dictionaries(base_interface, changes, dropped):
    base, interface = base_interface
    d = dict(interface)
    d.update(changes)
    for key in dropped:
        d.pop(key, None)
    try:
        view = cuda.as_cuda_array(Producer(d))
    except DOCUMENTED as error:
        check_message(error)
        return
    # Accepted: it describes memory inside the base array, so reading it is safe.
    if view.dtype == np.float64 and view.shape == (64,) and view.strides == (8,) and \
            view.device_pointer == interface["data"][0]:
        np.testing.assert_array_equal(view.copy_to_host(), np.arange(64.0))


@FUZZ
@given(shape=st.one_of(WILD_INTS, st.lists(WILD_INTS, max_size=5).map(tuple), WILD_VALUES),
       dtype=st.sampled_from(["f8", "f4", "i1", "u8", "c16", "b1", "f2", "O", "V8", "U3", None,
                              3, "nope"]))
def test_device_array_shapes_and_dtypes(on_cpu_device, shape, dtype):
    try:
        a = cuda.device_array(shape, dtype)
    except DOCUMENTED as error:
        check_message(error)
        return
    assert a.size == int(np.prod(a.shape, dtype=object))
    if 0 < a.size <= 4096:
        host = np.arange(a.size).reshape(a.shape).astype(a.dtype)
        a.copy_to_device(host)
        np.testing.assert_array_equal(a.copy_to_host(), host)


@pytest.fixture(scope="module")
def fill_kernel():
    @cuda.jit
    def fill(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = i

    return fill


@FUZZ
@given(grid=st.one_of(WILD_INTS, st.lists(WILD_INTS, min_size=0, max_size=4).map(tuple),
                      WILD_VALUES),
       block=st.one_of(WILD_INTS, st.lists(WILD_INTS, min_size=0, max_size=4).map(tuple),
                       WILD_VALUES),
       stream=st.one_of(st.just(0), WILD_VALUES),
       sharedmem=st.one_of(st.just(0), WILD_INTS, WILD_VALUES))
def test_launch_configurations(on_cpu_device, fill_kernel, grid, block, stream, sharedmem):
    out = np.full(64, -1, np.int64)
    try:
        config = fill_kernel[grid, block, stream, sharedmem]
        threads = np.prod(np.atleast_1d(grid)) * np.prod(np.atleast_1d(block))
        if threads > 2**20:
            return  # a valid but huge grid: not worth running here
        config(out)
        cuda.synchronize()
    except DOCUMENTED as error:
        check_message(error)
        assert np.all(out == -1) or np.array_equal(out[out >= 0], np.flatnonzero(out >= 0))
        return
    covered = out >= 0
    np.testing.assert_array_equal(out[covered], np.flatnonzero(covered))


SIGNATURE_PARTS = ["void", "int32", "float64", "float32[::1]", "int64[:, :]", "float64[:]",
                   "complex128", "bool", "(", ")", ",", "[", "]", "::1", "uint8", "x", "",
                   "float16", "int64[:,:,:,:,:]"]


@FUZZ
@given(parts=st.lists(st.sampled_from(SIGNATURE_PARTS), max_size=8))
def test_signatures(on_cpu_device, parts):
    text = " ".join(parts)

    def kernel(a):
        pass

    try:
        cuda.jit(text)(kernel)
    except DOCUMENTED as error:
        check_message(error)


@FUZZ
@given(shape=st.lists(st.integers(0, 5), min_size=1, max_size=3),
       dtype=st.sampled_from([np.float64, np.int32, np.uint8, np.complex64, np.bool_]),
       step=st.integers(-2, 3).filter(lambda s: s != 0))
def test_dlpack_producers(on_cpu_device, shape, dtype, step):
    host = (np.arange(int(np.prod(shape))) % 7).astype(dtype).reshape(shape)[..., ::step]
    try:
        view = cuda.from_dlpack(host)
    except DOCUMENTED as error:
        check_message(error)
        return
    np.testing.assert_array_equal(view.copy_to_host(), host)


PUBLIC_CALLS = {
    "external_stream": lambda v: cuda.external_stream(v),
    "to_device(stream=)": lambda v: cuda.to_device(np.zeros(2), stream=v),
    "device_array(stream=)": lambda v: cuda.device_array(2, stream=v),
    "pinned_array": lambda v: cuda.pinned_array(v),
    "mapped_array": lambda v: cuda.mapped_array(v),
    "managed_array": lambda v: cuda.managed_array(v),
    "copy_to_host(stream=)": lambda v: cuda.device_array(2).copy_to_host(stream=v),
    "event": lambda v: cuda.event(v),
    "event_elapsed_time": lambda v: cuda.event_elapsed_time(v, v),
    "reshape": lambda v: cuda.device_array(4).reshape(v),
    "view": lambda v: cuda.device_array(4).view(v),
    "copy_to_host(ary)": lambda v: cuda.device_array(4).copy_to_host(v),
    "device_array_like": lambda v: cuda.device_array_like(v),
    "ravel": lambda v: cuda.device_array((2, 2)).ravel(order=v),
    "getitem": lambda v: cuda.device_array(4)[v],
    "setitem": lambda v: cuda.device_array(4).__setitem__(v, 1),
    "forall": lambda v: cuda.jit(lambda a: None).forall(v),
    "jit(max_registers=)": lambda v: cuda.jit(max_registers=v),
    "compile_ptx(cc=)": lambda v: cuda.compile_ptx(lambda a: None, "void(float64[:])", cc=v),
}


@FUZZ
@given(name=st.sampled_from(sorted(PUBLIC_CALLS)), value=WILD_VALUES)
def test_public_functions_with_wild_arguments(on_cpu_device, name, value):
    try:
        PUBLIC_CALLS[name](value)
    except DOCUMENTED as error:
        check_message(error)
