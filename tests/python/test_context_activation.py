"""cuda.current_context() on a GPU, as Numba's: a thread with no CUDA context current gets
the device's primary context made current (a third party's driver calls then find it); a
primary context already current stays; a context that is not primary is a RuntimeError
(cudajit works in primary contexts). On the cpu device there is no driver context."""

import ctypes
import threading

import pytest

import cudajit as cuda
from cudajit import _core


def driver():
    return ctypes.CDLL(_core.cuda_driver_library())


def current_driver_context(lib):
    ctx = ctypes.c_void_p()
    assert lib.cuCtxGetCurrent(ctypes.byref(ctx)) == 0
    return ctx.value or 0


def in_thread(fn):
    """fn() in a new thread (no context current there yet); its result or exception."""
    out = {}

    def body():
        try:
            out["value"] = fn()
        except BaseException as e:  # handed back to the test's thread
            out["error"] = e
    t = threading.Thread(target=body)
    t.start()
    t.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


def test_current_context_makes_the_primary_context_current_on_a_bare_thread(on_gpu_device):
    lib = driver()
    device = _core.current_device()

    def body():
        before = current_driver_context(lib)
        _core.set_current_device(device)
        handle = cuda.current_context().handle
        return before, handle, current_driver_context(lib)

    before, handle, after = in_thread(body)
    assert before == 0 and after == handle != 0


def test_current_context_refuses_a_non_primary_context(on_gpu_device):
    lib = driver()
    device = _core.current_device()

    def body():
        _core.set_current_device(device)
        ctx = ctypes.c_void_p()
        assert lib.cuCtxCreate_v2(ctypes.byref(ctx), 0, 0) == 0
        try:
            with pytest.raises(RuntimeError, match="non-primary CUDA context"):
                cuda.current_context()
            # Nothing replaced the third party's context.
            return current_driver_context(lib) == ctx.value
        finally:
            assert lib.cuCtxDestroy_v2(ctx) == 0

    assert in_thread(body)


def test_the_cpu_device_has_no_driver_context(on_cpu_device):
    assert cuda.current_context().handle == 0
