"""The launch hot path: a launch whose argument types were seen before runs no
Python code of cudajit's (indexing the kernel and calling the configuration are
C++), and what it rejects it rejects with a clear message."""

import sys
import warnings

import numpy as np
import pytest

import cudajit as cuda


@cuda.jit
def scale(out, x, factor):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] * factor


def python_calls_during(fn):
    """The Python functions entered while fn() runs (C calls are not counted)."""
    entered = []

    def profiler(frame, event, arg):
        if event == "call":
            entered.append(f"{frame.f_code.co_filename}:{frame.f_code.co_name}")

    sys.setprofile(profiler)
    try:
        fn()
    finally:
        sys.setprofile(None)
    # The test's own lambda is the one frame that is not cudajit's.
    return [e for e in entered if "test_launch_path.py" not in e]


def test_a_launch_of_a_seen_signature_runs_no_python_code(device):
    out = cuda.device_array(32)
    x = cuda.to_device(np.arange(32.0))
    s = cuda.stream()
    scale[1, 32, s](out, x, 2.0)  # compiles
    s.synchronize()
    calls = python_calls_during(lambda: scale[1, 32, s](out, x, 3.0))
    s.synchronize()
    assert calls == []
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(32.0) * 3.0)


def test_a_new_signature_compiles_a_new_specialization(device):
    out32 = cuda.device_array(4, dtype=np.float32)
    out64 = cuda.device_array(4, dtype=np.float64)
    scale[1, 4](out32, cuda.to_device(np.ones(4, np.float32)), np.float32(2))
    scale[1, 4](out64, cuda.to_device(np.ones(4)), 2.0)
    cuda.synchronize()
    assert ("array(float32, 1d, C)", "array(float32, 1d, C)", "float32") in scale.signatures
    assert ("array(float64, 1d, C)", "array(float64, 1d, C)", "float64") in scale.signatures


def test_a_launch_with_the_wrong_number_of_arguments_is_a_type_error():
    with pytest.raises(TypeError, match=r"kernel 'scale' takes 3 arguments, got 2"):
        scale[1, 1](cuda.device_array(1), cuda.device_array(1))


def test_an_eager_kernel_rejects_arguments_that_match_no_signature():
    @cuda.jit("void(float32[::1], float32)")
    def fill(out, value):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = value

    out = cuda.device_array(4, dtype=np.float32)
    fill[1, 4](out, 1)  # an int converts to float32
    cuda.synchronize()
    np.testing.assert_array_equal(out.copy_to_host(), np.ones(4, np.float32))
    with pytest.raises(TypeError, match=r"no matching definition of kernel 'fill' for argument "
                                        r"types \(array\(float64, 1d, C\), int64\)"):
        fill[1, 4](cuda.device_array(4), 1)


def test_numpy_arrays_on_the_cpu_device_run_in_place_without_warning():
    out = np.zeros(8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with_cpu_device(lambda: scale[1, 8](out, np.arange(8.0), 2.0))
    np.testing.assert_array_equal(out, np.arange(8.0) * 2.0)


def with_cpu_device(fn):
    from cudajit import _core

    previous = _core.current_device()
    _core.set_current_device(_core.cpu_device())
    try:
        fn()
    finally:
        _core.set_current_device(previous)


def test_a_device_array_of_another_device_is_refused():
    if not cuda.is_available():
        pytest.skip("needs a GPU beside the cpu device")
    from cudajit import _core

    previous = _core.current_device()
    _core.set_current_device(_core.cuda_device(0))
    try:
        on_gpu = cuda.to_device(np.zeros(4))
        with pytest.raises(ValueError,
                           match=r"argument 0 is on device .* but the kernel launches on"):
            with_cpu_device(lambda: scale[1, 4](on_gpu, on_gpu, 1.0))
        assert _core.current_device().kind == "cuda"
    finally:
        _core.set_current_device(previous)


def make_incrementer():
    """A new Dispatcher each call, as a kernel defined inside a function is."""

    @cuda.jit
    def increment(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1.0

    return increment


def test_a_kernel_dropped_right_after_an_asynchronous_launch_still_runs(device):
    # The launch keeps the loaded kernel (its module, on a GPU) until the work
    # is done: the Dispatcher going away must not unload it under the kernel.
    import gc

    n = 1 << 16
    stream = cuda.stream()
    a = cuda.to_device(np.zeros(n), stream=stream)
    for _ in range(8):
        kernel = make_incrementer()
        kernel[(n + 255) // 256, 256, stream](a)
        del kernel
        gc.collect()
    result = a.copy_to_host(stream=stream)  # asynchronous on a stream, as in Numba
    stream.synchronize()
    np.testing.assert_array_equal(result, np.full(n, 8.0))


def test_explicit_signatures_are_chosen_as_numba_rates_conversions():
    # Numba's ranking: fewest unsafe conversions, then safe ones, then promotions.
    @cuda.jit(["(float64[::1], float32, float32)", "(float64[::1], float64, float64)"])
    def add(out, a, b):
        out[0] = a + b

    out = np.zeros(1)
    add[1, 1](out, 0.1, 0.2)  # Python floats are float64: exact for the second
    assert out[0] == 0.1 + 0.2
    add[1, 1](out, 1, 2**40 + 1)  # int64 -> float64 is safe, -> float32 unsafe
    assert out[0] == 2**40 + 2
    add[1, 1](out, np.float32(0.1), np.float32(0.2))  # exact for the first
    assert out[0] == np.float64(np.float32(0.1) + np.float32(0.2))

    @cuda.jit(["(int64[::1], int64)", "(int64[::1], int16)", "(int64[::1], float64)"])
    def widen(out, a):
        out[0] = a

    out = np.zeros(1, np.int64)
    widen[1, 1](out, np.int8(-5))  # promotes to int64 and to int16 alike: the first wins
    assert out[0] == -5
    widen[1, 1](out, np.uint32(7))  # uint32 -> int64 is safe; -> int16 unsafe
    assert out[0] == 7
    assert len(widen.signatures) == 3


def test_keyword_arguments_at_launch_match_the_kernels_parameter_names(device):
    @cuda.jit
    def axpy(a, x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = a * x[i]

    x = np.arange(4.0)
    out = np.zeros(4)
    axpy[1, 32](2.0, out=out, x=x)
    np.testing.assert_array_equal(out, 2.0 * x)
    axpy.configure(1, 32)(x=x, a=3.0, out=out)
    np.testing.assert_array_equal(out, 3.0 * x)
    with pytest.raises(TypeError, match=r"kernel 'axpy\(a, x, out\)': got an unexpected "
                                        r"keyword argument 'z'"):
        axpy[1, 32](2.0, x, out, z=1)
    with pytest.raises(TypeError, match=r"missing a required argument: 'out'"):
        axpy[1, 32](2.0, x=x)

    @cuda.jit(debug=True, opt=False)
    def checked(x, out):
        out[0] = x[0]

    checked[1, 1](out=out, x=np.array([7.0]))
    assert out[0] == 7.0


def test_a_launch_leaving_out_the_last_parameters_gives_them_their_defaults():
    @cuda.jit
    def pick(res, x=1000, y=2.5):
        if x == 1000:
            res[0] = 10 + y
        else:
            res[0] = 40 + y

    res = np.zeros(1)
    for args, expected in (((), 12.5), ((5,), 42.5), ((5, 1.0), 41.0), ((1000, 0.5), 10.5)):
        pick[1, 1](res, *args)
        assert res[0] == expected
    with pytest.raises(TypeError, match="kernel 'pick' takes 3 arguments, got 0"):
        pick[1, 1]()


def test_jit_of_a_kernel_compiles_its_python_function_anew():
    again = cuda.jit(scale)
    assert again is not scale and again.py_func is scale.py_func
    out = np.zeros(4)
    again[1, 4](out, np.arange(4.0), 2.0)
    np.testing.assert_array_equal(out, [0, 2, 4, 6])
