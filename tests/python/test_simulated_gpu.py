"""The simulated GPU (libcudajit_sim.so) as the cuda device's stand-in: it runs the
PTX cudajit generates, refuses what the driver refuses, reports memory errors with
the kernel's source line, and fails when the PTX or the packed parameters are broken."""

import importlib.util
import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import cudajit as cuda
from cudajit import _core

pytestmark = pytest.mark.skipif(
    not (_core.cuda_available() and _core.cuda_simulated()),
    reason="the cuda device is not the simulated GPU (a real GPU is present, or "
           "libcudajit_sim.so was not built)")

HERE = os.path.dirname(os.path.abspath(__file__))
# Where the cudajit under test is (this tree's python/, or an installed wheel's site-packages),
# found without importing it.
PYTHON_DIR = os.path.dirname(os.path.dirname(importlib.util.find_spec("cudajit").origin))


@pytest.fixture(scope="module")
def driver():
    from sim_driver import SimDriver

    return SimDriver(_core.cuda_driver_library())


def sine(x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = math.sin(x[i])


SINE_SIGNATURE = "(float64[::1], float64[::1])"


def run_sine(driver, ptx, x):
    """Runs the compiled `sine` kernel's PTX on the simulator; returns out."""
    module = driver.load(ptx)
    kernel = driver.function(module, "sine")
    import ctypes

    n = x.size
    dx, dout = driver.to_device(x), driver.to_device(np.zeros_like(x))
    # Each 1-d array is (data, extent, stride) in the kernel's parameters.
    values = [ctypes.c_uint64(dx), ctypes.c_int64(n), ctypes.c_int64(8),
              ctypes.c_uint64(dout), ctypes.c_int64(n), ctypes.c_int64(8)]
    code = driver.launch(kernel, ((n + 63) // 64, 1, 1), (64, 1, 1), values)
    assert code == 0, f"cuLaunchKernel returned {code}: {driver.last_fault()}"
    out = np.empty_like(x)
    driver.copy(out.ctypes.data, dout, out.nbytes)
    driver.free(dx)
    driver.free(dout)
    return out


def test_the_cuda_device_names_itself_as_simulated():
    device = _core.cuda_device(0)
    assert "simulated GPU" in device.name


def test_sine_ptx_with_an_inlined_libdevice_body_matches_numpy(driver):
    ptx, _ = cuda.compile_ptx(sine, SINE_SIGNATURE, cc=(9, 0))
    assert "%cj0_" in ptx  # sin's body was copied in by the PTX inliner
    x = np.linspace(-20.0, 20.0, 300)
    np.testing.assert_allclose(run_sine(driver, ptx, x), np.sin(x), rtol=1e-15, atol=1e-15)


def test_merging_two_registers_of_the_inlined_body_changes_the_results(driver):
    ptx, _ = cuda.compile_ptx(sine, SINE_SIGNATURE, cc=(9, 0))
    broken = ptx.replace("%cj0_fd34", "%cj0_fd33")  # a renaming that merges two registers
    assert broken != ptx
    x = np.linspace(-20.0, 20.0, 300)
    assert not np.allclose(run_sine(driver, broken, x), np.sin(x))


def test_a_register_the_inliner_failed_to_rename_is_refused_at_load(driver):
    ptx, _ = cuda.compile_ptx(sine, SINE_SIGNATURE, cc=(9, 0))
    broken = ptx.replace("%cj0_fd13", "%fd13")
    with pytest.raises(Exception) as info:
        driver.load(broken)
    assert info.value.code == 218  # CUDA_ERROR_INVALID_PTX
    assert "undeclared register '%fd13'" in info.value.log


def test_parameters_in_the_wrong_order_give_wrong_results(driver):
    import ctypes

    ptx, _ = cuda.compile_ptx(sine, SINE_SIGNATURE, cc=(9, 0))
    module = driver.load(ptx)
    kernel = driver.function(module, "sine")
    x = np.linspace(0.0, 1.0, 64)
    dx, dout = driver.to_device(x), driver.to_device(np.zeros_like(x))
    swapped = [ctypes.c_uint64(dout), ctypes.c_int64(64), ctypes.c_int64(8),
               ctypes.c_uint64(dx), ctypes.c_int64(64), ctypes.c_int64(8)]
    assert driver.launch(kernel, (1, 1, 1), (64, 1, 1), swapped) == 0
    out = np.empty_like(x)
    driver.copy(out.ctypes.data, dout, out.nbytes)
    assert not np.allclose(out, np.sin(x))
    driver.free(dx)
    driver.free(dout)


def test_a_launch_with_a_null_where_a_parameter_should_be_is_refused(driver):
    import ctypes

    ptx, _ = cuda.compile_ptx(sine, SINE_SIGNATURE, cc=(9, 0))
    kernel = driver.function(driver.load(ptx), "sine")
    values = [ctypes.c_uint64(0), ctypes.c_int64(0), ctypes.c_int64(8)] * 2
    assert driver.launch(kernel, (1, 1, 1), (1, 1, 1), values[:5]) == 1  # INVALID_VALUE
    assert "parameter 5 is a NULL pointer" in driver.last_fault()


def test_kernel_params_are_read_up_to_the_entrys_parameter_count_and_no_further(driver):
    # cuLaunchKernel: "the number of kernel parameters and their offsets and sizes do not need
    # to be specified as that information is retrieved directly from the kernel's image";
    # ctypes programs and CuPy write no NULL after them.
    import ctypes

    ptx, _ = cuda.compile_ptx(sine, SINE_SIGNATURE, cc=(9, 0))
    kernel = driver.function(driver.load(ptx), "sine")
    x = np.linspace(0.0, 1.0, 64)
    dx, dout = driver.to_device(x), driver.to_device(np.zeros_like(x))
    values = [ctypes.c_uint64(dx), ctypes.c_int64(64), ctypes.c_int64(8),
              ctypes.c_uint64(dout), ctypes.c_int64(64), ctypes.c_int64(8)]
    assert driver.launch(kernel, (1, 1, 1), (64, 1, 1), values, terminate=False) == 0
    # What lies after the sixth pointer is not the launch's business, a pointer included.
    assert driver.launch(kernel, (1, 1, 1), (64, 1, 1), values + [ctypes.c_int64(1)],
                         terminate=False) == 0
    out = np.empty_like(x)
    driver.copy(out.ctypes.data, dout, out.nbytes)
    np.testing.assert_allclose(out, np.sin(x), rtol=1e-15)
    driver.free(dx)
    driver.free(dout)


def test_ptx_for_a_newer_target_than_the_device_is_refused_with_a_log(driver):
    ptx, _ = cuda.compile_ptx(sine, SINE_SIGNATURE, cc=(9, 0))
    newer = ptx.replace(".target sm_90", ".target sm_100")
    with pytest.raises(Exception) as info:
        driver.load(newer)
    assert info.value.code == 218
    assert "higher than the device's" in info.value.log


def run_python(code: str, **env) -> subprocess.CompletedProcess:
    environment = dict(os.environ, PYTHONPATH=PYTHON_DIR, **env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=environment, timeout=120)


def test_an_out_of_bounds_write_names_the_kernel_thread_and_source_line(tmp_path):
    # A fault poisons the context for good, as on hardware: it runs in a process of its own.
    source = tmp_path / "oob_kernel.py"
    source.write_text(textwrap.dedent("""\
        import numpy as np
        import cudajit as cuda


        @cuda.jit(lineinfo=True)
        def shift(out):
            i = cuda.grid(1)
            out[i + 1] = i


        out = cuda.device_array(64, np.int32)
        try:
            shift[1, 64](out)
            cuda.synchronize()
        except Exception as error:
            print(type(error).__name__, error)
        """))
    result = run_python(f"import runpy; runpy.run_path({str(source)!r})", CUDAJIT_DEVICE="sim",
                        CUDAJIT_BOUNDSCHECK="0")
    assert "CudaDriverError" in result.stdout, result.stdout + result.stderr
    assert "CUDA_ERROR_ILLEGAL_ADDRESS" in result.stdout
    assert "kernel 'shift'" in result.stdout
    assert "thread (63, 0, 0)" in result.stdout
    assert "oob_kernel.py:8" in result.stdout
    assert "past the end of a device allocation of 256 bytes" in result.stdout


def test_cudajit_device_sim_makes_the_simulated_gpu_current():
    result = run_python("""
        from cudajit import _core
        d = _core.current_device()
        print(d.kind, d.name)
        """, CUDAJIT_DEVICE="sim")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("cuda cudajit simulated GPU (H100, sm_90)")


def test_cudajit_sim_cc_chooses_the_simulated_compute_capability():
    result = run_python("""
        from cudajit import _core
        d = _core.current_device()
        print(d.compute_capability)
        """, CUDAJIT_DEVICE="sim", CUDAJIT_SIM_CC="7.5")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() in ("75", "(7, 5)")


# --- the driver's strictness: each misuse gets the real driver's error code --------------------

CUDA_ERROR_INVALID_VALUE = 1
CUDA_ERROR_INVALID_CONTEXT = 201
CUDA_ERROR_INVALID_HANDLE = 400
CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712

EMPTY_KERNEL = """
.version 7.8
.target sm_80
.address_size 64
.visible .entry empty(.param .u32 empty_n)
{
	ret;
}
"""


@pytest.fixture(scope="module")
def empty_kernel(driver):
    return driver.function(driver.load(EMPTY_KERNEL), "empty")


def test_launch_limits_are_checked_before_anything_runs(driver, empty_kernel):
    import ctypes

    n = [ctypes.c_uint32(1)]
    assert driver.launch(empty_kernel, (1, 1, 1), (1024, 1, 1), n) == 0
    assert driver.launch(empty_kernel, (1, 1, 1), (1025, 1, 1), n) == CUDA_ERROR_INVALID_VALUE
    assert driver.launch(empty_kernel, (1, 1, 1), (32, 32, 2), n) == CUDA_ERROR_INVALID_VALUE
    assert driver.launch(empty_kernel, (0, 1, 1), (1, 1, 1), n) == CUDA_ERROR_INVALID_VALUE
    assert driver.launch(empty_kernel, (1, 65536, 1), (1, 1, 1), n) == CUDA_ERROR_INVALID_VALUE
    driver.synchronize()


def test_dynamic_shared_memory_above_48_kib_needs_the_opt_in(driver):
    import ctypes

    kernel = driver.function(driver.load(EMPTY_KERNEL), "empty")
    params = (ctypes.c_void_p * 2)(ctypes.cast(ctypes.pointer(ctypes.c_uint32(1)), ctypes.c_void_p),
                                   None)
    launch = driver.lib.cuLaunchKernel
    assert launch(kernel, 1, 1, 1, 1, 1, 1, 64 * 1024, None, params, None) == CUDA_ERROR_INVALID_VALUE
    max_dynamic = 8  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    assert driver.lib.cuFuncSetAttribute(kernel, max_dynamic, 64 * 1024) == 0
    assert launch(kernel, 1, 1, 1, 1, 1, 1, 64 * 1024, None, params, None) == 0
    assert driver.lib.cuFuncSetAttribute(kernel, max_dynamic, 1 << 20) == CUDA_ERROR_INVALID_VALUE
    driver.synchronize()


def test_a_handle_that_is_gone_is_invalid_handle(driver):
    import ctypes

    module = driver.load(EMPTY_KERNEL)
    assert driver.lib.cuModuleUnload(module) == 0
    f = ctypes.c_void_p()
    assert (driver.lib.cuModuleGetFunction(ctypes.byref(f), module, b"empty")
            == CUDA_ERROR_INVALID_HANDLE)
    assert driver.lib.cuModuleUnload(module) == CUDA_ERROR_INVALID_HANDLE
    assert driver.lib.cuStreamSynchronize(ctypes.c_void_p(0xdead0)) == CUDA_ERROR_INVALID_HANDLE


def test_memory_misuse_gets_the_drivers_errors(driver):
    import ctypes

    x = np.zeros(16)
    device = driver.to_device(x)
    assert driver.lib.cuMemFree_v2(ctypes.c_uint64(device + 8)) == CUDA_ERROR_INVALID_VALUE
    past_end = driver.lib.cuMemcpyAsync(ctypes.c_uint64(device), ctypes.c_uint64(x.ctypes.data),
                                        ctypes.c_size_t(256), None)
    assert past_end == CUDA_ERROR_INVALID_VALUE
    host = np.zeros(64)
    register = driver.lib.cuMemHostRegister_v2
    assert register(ctypes.c_void_p(host.ctypes.data), ctypes.c_size_t(host.nbytes), 0) == 0
    assert (register(ctypes.c_void_p(host.ctypes.data + 8), ctypes.c_size_t(8), 0)
            == CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
    assert driver.lib.cuMemHostUnregister(ctypes.c_void_p(host.ctypes.data)) == 0
    driver.free(device)


def test_elapsed_time_of_events_without_timing_is_invalid_handle(driver):
    import ctypes

    start, end = ctypes.c_void_p(), ctypes.c_void_p()
    disable_timing = 2
    assert driver.lib.cuEventCreate(ctypes.byref(start), disable_timing) == 0
    assert driver.lib.cuEventCreate(ctypes.byref(end), 0) == 0
    assert driver.lib.cuEventRecord(start, None) == 0
    assert driver.lib.cuEventRecord(end, None) == 0
    assert driver.lib.cuEventSynchronize(end) == 0
    ms = ctypes.c_float()
    assert (driver.lib.cuEventElapsedTime_v2(ctypes.byref(ms), start, end)
            == CUDA_ERROR_INVALID_HANDLE)
    assert driver.lib.cuEventDestroy_v2(start) == 0
    assert driver.lib.cuEventDestroy_v2(start) == CUDA_ERROR_INVALID_HANDLE
    assert driver.lib.cuEventDestroy_v2(end) == 0


def test_a_thread_without_a_current_context_gets_invalid_context(driver):
    import ctypes
    import threading

    codes = []

    def allocate():
        pointer = ctypes.c_uint64()
        codes.append(driver.lib.cuMemAlloc_v2(ctypes.byref(pointer), ctypes.c_size_t(16)))

    thread = threading.Thread(target=allocate)
    thread.start()
    thread.join()
    assert codes == [CUDA_ERROR_INVALID_CONTEXT]


VPRINTF_PTX = """
.version 7.0
.target sm_80
.address_size 64
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 p0, .param .b64 p1);
.global .align 1 .b8 fmt[40] = {91, 37, 100, 93, 32, 37, 48, 56, 120, 32, 37, 53, 46, 50, 102,
    32, 37, 115, 32, 37, 108, 108, 100, 32, 37, 37, 32, 37, 99, 10, 0};
.global .align 1 .b8 word[4] = {104, 105, 33, 0};
.visible .entry k()
{
    .local .align 8 .b8 buffer[40];
    .reg .b32 %r<4>;
    .reg .b64 %rd<8>;
    .reg .f64 %fd<2>;
    mov.u32 %r1, %tid.x;
    mov.u64 %rd1, buffer;
    cvta.local.u64 %rd2, %rd1;
    st.local.u32 [buffer], %r1;
    st.local.u32 [buffer+4], 48879;
    mov.f64 %fd1, 0d400921FB54442D18;
    st.local.f64 [buffer+8], %fd1;
    mov.u64 %rd3, word;
    cvta.global.u64 %rd4, %rd3;
    st.local.u64 [buffer+16], %rd4;
    st.local.u64 [buffer+24], -5;
    st.local.u32 [buffer+32], 90;
    mov.u64 %rd5, fmt;
    cvta.global.u64 %rd6, %rd5;
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd6;
    .param .b64 param1;
    st.param.b64 [param1], %rd2;
    .param .b32 retval0;
    call.uni (retval0), vprintf, (param0, param1);
    ld.param.b32 %r2, [retval0];
    }
    ret;
}
"""


def test_vprintf_formats_each_conversion_as_the_driver_does(driver, capfd):
    # "[%d] %08x %5.2f %s %lld %% %c\n" with 32- and 64-bit, float, string and char arguments,
    # each aligned to its size in the buffer, as nvcc lays them out.
    module = driver.load(VPRINTF_PTX)
    code = driver.launch(driver.function(module, "k"), (1, 1, 1), (2, 1, 1), [])
    assert code == 0, driver.last_fault()
    driver.synchronize()
    assert capfd.readouterr().out.splitlines() == [
        "[0] 0000beef  3.14 hi! -5 % Z", "[1] 0000beef  3.14 hi! -5 % Z"]


def test_falling_back_to_the_cpu_device_is_said_once_and_choosing_it_is_quiet():
    from conftest import _real_gpu_present

    if _real_gpu_present():
        pytest.skip("this machine has a GPU: nothing falls back")
    code = """
        import warnings
        warnings.simplefilter("always")
        import cudajit as cuda
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cuda.device_array(3)
            cuda.device_array(3)
        print(len(caught), caught[0].message if caught else "")
        """
    env = {k: v for k, v in os.environ.items() if k not in ("CUDAJIT_LIBCUDA", "CUDAJIT_DEVICE")}
    fallback = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                              text=True, env=dict(env, PYTHONPATH=PYTHON_DIR), timeout=120)
    assert fallback.stdout.startswith("1 cudajit: no usable GPU ("), fallback.stdout + \
        fallback.stderr
    assert "kernels run on the cpu device. Set CUDAJIT_DEVICE=cpu" in fallback.stdout
    chosen = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                            text=True, env=dict(env, PYTHONPATH=PYTHON_DIR, CUDAJIT_DEVICE="cpu"),
                            timeout=120)
    assert chosen.stdout.startswith("0 "), chosen.stdout + chosen.stderr


def test_recursion_deeper_than_the_stack_faults_as_on_hardware(tmp_path):
    # Recursive frames share CUDA's default stack of 1 KiB per thread beyond the rest: a
    # recursion whose local arrays need more is a hardware stack error, sticky (a process
    # of its own).
    source = tmp_path / "deep_recursion.py"
    source.write_text(textwrap.dedent("""\
        import numpy as np
        import cudajit as cuda


        @cuda.jit(device=True)
        def deep(n):
            scratch = cuda.local.array(16, np.float64)
            scratch[n % 16] = n
            if n == 0:
                return scratch[0]
            return deep(n - 1) + scratch[n % 16]


        @cuda.jit
        def kernel(out, n):
            out[0] = deep(n)


        out = cuda.device_array(1)
        kernel[1, 1](out, 4)
        print("shallow", out.copy_to_host()[0])
        try:
            kernel[1, 1](out, 100)
            cuda.synchronize()
        except Exception as error:
            print(type(error).__name__, error)
        """))
    result = run_python(f"import runpy; runpy.run_path({str(source)!r})", CUDAJIT_DEVICE="sim")
    assert "shallow 10.0" in result.stdout, result.stdout + result.stderr
    assert "CudaDriverError" in result.stdout and "CUDA_ERROR_HARDWARE_STACK_ERROR" in \
        result.stdout, result.stdout
    assert "stack overflow" in result.stdout


# numba-cuda reads its exception flag (a module variable) with cuMemcpyDtoH right after the
# launch: a copy from a module variable is a copy from device memory, in stream order, and
# must not be read at the call as pageable host memory is (it read 0 while the kernel ran).
SLOW_FLAG_WRITER = """.version 7.8
.target sm_80
.address_size 64
.visible .global .align 4 .u32 flag;
.visible .entry k()
{
  .reg .pred %p;
  .reg .b32 %r<2>;
  mov.u32 %r1, 0;
$L_spin:
  add.u32 %r1, %r1, 1;
  setp.lt.u32 %p, %r1, 300000;
  @%p bra $L_spin;
  st.global.u32 [flag], 7;
  ret;
}
"""


def test_a_copy_from_a_module_variable_waits_for_the_kernel_before_it(driver):
    import ctypes

    module = driver.load(SLOW_FLAG_WRITER)
    address, size = ctypes.c_uint64(), ctypes.c_size_t()
    driver._check("cuModuleGetGlobal", driver.lib.cuModuleGetGlobal_v2(
        ctypes.byref(address), ctypes.byref(size), module, b"flag"))
    assert driver.launch(driver.function(module, "k"), (1, 1, 1), (1, 1, 1), []) == 0
    flag = ctypes.c_uint32(0)
    driver._check("cuMemcpyDtoH", driver.lib.cuMemcpyDtoH_v2(
        ctypes.byref(flag), address, ctypes.c_size_t(4)))
    assert flag.value == 7


# --- float literals: taken and refused per type as ptxas does (checked with ptxas, sm_80) ------

LITERAL_KERNEL = """
.version 7.8
.target sm_80
.address_size 64
.visible .entry literal(.param .u64 literal_out)
{
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [literal_out];
	cvta.to.global.u64 %rd1, %rd1;
	MOVE
	st.global.b64 [%rd1], %rd2;
	ret;
}
"""


@pytest.mark.parametrize("move, expected", [
    ("mov.b64 %rd2, 0d3FF8000000000000;", np.float64(1.5).view(np.uint64)),  # LLVM 22 writes this
    ("mov.b64 %rd2, 0d7FF0000000000001;", np.uint64(0x7FF0000000000001)),  # bits, NaN kept
    ("mov.f64 %rd2, 0f3FC00000;", np.float64(1.5).view(np.uint64)),  # 1.5f widened
    ("mov.f64 %rd2, 0d3FF8000000000000;", np.float64(1.5).view(np.uint64)),
    ("mov.b64 %rd2, 0; mov.f32 %rd2, 0d3FF8000000000000;", np.uint64(0x3FC00000)),  # rounded
])
def test_a_float_literal_is_taken_by_float_and_same_size_bit_types(driver, move, expected):
    import ctypes

    kernel = driver.function(driver.load(LITERAL_KERNEL.replace("MOVE", move)), "literal")
    out = driver.to_device(np.zeros(1, np.uint64))
    assert driver.launch(kernel, (1, 1, 1), (1, 1, 1), [ctypes.c_uint64(out)]) == 0
    result = np.zeros(1, np.uint64)
    driver.copy(result.ctypes.data, out, 8)
    driver.free(out)
    assert result[0] == expected


@pytest.mark.parametrize("move, message", [
    ("mov.u64 %rd2, 0d3FF8000000000000;", "a 64-bit float literal where .u64 is expected"),
    ("mov.b64 %rd2, 0f3FC00000;", "a 32-bit float literal where .b64 is expected"),
])
def test_a_float_literal_for_an_integer_or_other_size_type_is_refused(driver, move, message):
    from sim_driver import DriverError

    with pytest.raises(DriverError) as info:
        driver.load(LITERAL_KERNEL.replace("MOVE", move))
    assert message in info.value.log
