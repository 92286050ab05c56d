"""compile_ptx and inspect_*: PTX for compute capabilities 8.0 and 9.0 (and the
rest of 5.0 to 9.0), `.entry` for kernels and `.func` for device functions, the
lowest PTX ISA version for each target, fastmath, return types, and one PTX
test per feature group, each reusing the kernels of the kernel tests."""

import math
import re

import numpy as np
import pytest

import cudajit as cuda
import test_kernels_arithmetic as arith
import test_kernels_arrays as arrays
import test_kernels_builtins as builtins_
import test_kernels_complex as complex_
import test_kernels_control_flow as flow
import test_kernels_device_functions as devfn
import test_kernels_math as math_
import test_kernels_names as names
import test_kernels_thread_indexing as threads
from test_kernels_device_functions import dot_row, fill_row, level1, norm2
from cudajit import (
    boolean,
    complex64,
    complex128,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
    void,
)

CCS = [(8, 0), (9, 0)]


def pyfunc(kernel):
    """The Python function behind a @jit kernel or device function."""
    return getattr(kernel, "py_func", kernel)


def cc_id(cc):
    return "sm_%d%d" % cc


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


SAXPY_SIG = void(float32, float32[::1], float32[::1], float32[::1])


def add_device(a, b):
    return a + b


@cuda.jit
def calls_device_functions(m, v, x, out):
    i = cuda.grid(1)
    if i < m.shape[0]:
        out[i] = level1(i) + norm2(x[i], 1.0) + dot_row(m, i, v)
        fill_row(m, i, 0.0)


# --- targets and versions ---------------------------------------------------

# The lowest PTX ISA version that supports each target (as LLVM's NVPTX knows them).
LOWEST_PTX_VERSION = {
    (5, 0): "4.0",
    (5, 2): "4.1",
    (6, 0): "5.0",
    (6, 1): "5.0",
    (7, 0): "6.0",
    (7, 5): "6.3",
    (8, 0): "7.0",
    (8, 6): "7.1",
    (8, 9): "7.8",
    (9, 0): "7.8",
}


@pytest.mark.parametrize("cc", sorted(LOWEST_PTX_VERSION), ids=cc_id)
def test_ptx_targets_the_compute_capability_with_the_lowest_ptx_version(cc):
    ptx, _ = cuda.compile_ptx(pyfunc(saxpy), SAXPY_SIG, cc=cc)
    assert re.search(r"^\s*\.target\s+sm_%d%d\b" % cc, ptx, re.M), ptx[:500]
    assert re.search(r"^\s*\.version\s+%s\s*$" % re.escape(LOWEST_PTX_VERSION[cc]), ptx, re.M), ptx[
        :500
    ]
    assert re.search(r"^\s*\.address_size\s+64\s*$", ptx, re.M)


@pytest.mark.parametrize("cc", sorted(LOWEST_PTX_VERSION), ids=cc_id)
def test_ptx_for_every_target_assembles(cc, check_ptx):
    ptx, _ = cuda.compile_ptx(pyfunc(math_.k_gamma), (float32[::1], float32[::1]), cc=cc)
    check_ptx(ptx, cc)  # runs ptxas where this toolkit still supports the target


def test_unknown_compute_capability_is_rejected():
    with pytest.raises((ValueError, TypeError), match=r"(?i)compute capability|\bcc\b|sm_10"):
        cuda.compile_ptx(pyfunc(saxpy), SAXPY_SIG, cc=(1, 0))


def test_default_compute_capability_is_8_0():
    ptx, _ = cuda.compile_ptx(pyfunc(saxpy), SAXPY_SIG)
    assert re.search(r"\.target\s+sm_80\b", ptx)
    assert re.search(r"\.version\s+7\.0\b", ptx)


@pytest.mark.parametrize("cc", CCS, ids=cc_id)
def test_kernel_is_an_entry_named_after_the_function(cc, check_ptx):
    ptx, _ = cuda.compile_ptx(pyfunc(saxpy), SAXPY_SIG, cc=cc)
    entries = re.findall(r"\.entry\s+([\w$]+)", ptx)
    assert len(entries) == 1 and "saxpy" in entries[0], entries
    assert ".visible .entry" in ptx
    check_ptx(ptx, cc)


@pytest.mark.parametrize("cc", CCS, ids=cc_id)
def test_device_function_is_a_func_not_an_entry(cc, check_ptx):
    ptx, _ = cuda.compile_ptx(add_device, (float32, float32), device=True, cc=cc)
    assert ".entry" not in ptx
    funcs = re.findall(r"\.visible\s+\.func\s+(?:\([^)]*\)\s*)?([\w$]+)", ptx)
    assert any("add_device" in f for f in funcs), funcs
    check_ptx(ptx, cc, kernel=False)


def test_the_c_abi_names_a_device_function_as_c_calls_it(check_ptx):
    def f(x, y):
        return x + y

    def func_line(ptx):
        return re.search(r"\.visible\s+\.func\s+\(\.param\s+\.(\w+)\s+func_retval0\)\s+"
                         r"([\w$]+)\(", ptx).groups()

    ptx, _ = cuda.compile_ptx(f, "int32(int32, int32)", device=True, abi="c")
    assert func_line(ptx) == ("b32", "f")
    check_ptx(ptx, (8, 0), kernel=False)
    ptx, _ = cuda.compile_ptx(f, "int64(int64, int64)", device=True, abi="c",
                              abi_info={"abi_name": "_Z4funcll"})
    assert func_line(ptx) == ("b64", "_Z4funcll")
    ptx, _ = cuda.compile_ptx(lambda x: x, "int32(int32)", device=True, abi="c")
    assert func_line(ptx) == ("b32", "_lambda_")  # <lambda> made a PTX identifier
    with pytest.raises(NotImplementedError, match="The C ABI is not supported for kernels"):
        cuda.compile_ptx(f, "void(int32, int32)", abi="c")
    with pytest.raises(NotImplementedError, match="Unsupported ABI: fastcall"):
        cuda.compile_ptx(f, "int32(int32, int32)", device=True, abi="fastcall")


@pytest.mark.parametrize("bounds, present, absent", [
    (128, [r"\.maxntid\s+128(, 1, 1)?\n"], [".minnctapersm", ".maxclusterrank"]),
    ((128,), [r"\.maxntid\s+128(, 1, 1)?\n"], [".minnctapersm", ".maxclusterrank"]),
    ((128, 2), [r"\.maxntid\s+128", r"\.minnctapersm\s+2\n"], [".maxclusterrank"]),
    ((256, 2, 4), [r"\.maxntid\s+256", r"\.minnctapersm\s+2\n", r"\.maxclusterrank\s+4\n"], []),
])
def test_launch_bounds_become_the_entrys_performance_directives(bounds, present, absent,
                                                                  check_ptx):
    ptx, _ = cuda.compile_ptx(pyfunc(saxpy), SAXPY_SIG, cc=(9, 0), launch_bounds=bounds)
    for directive in present:
        assert re.search(directive, ptx), (directive, ptx[:600])
    for directive in absent:
        assert directive not in ptx
    check_ptx(ptx, (9, 0))


def test_max_cluster_rank_is_left_out_before_sm_90():
    ptx, _ = cuda.compile_ptx(pyfunc(saxpy), SAXPY_SIG, cc=(8, 0), launch_bounds=(128, 2, 4))
    assert ".maxntid" in ptx and ".minnctapersm" in ptx and ".maxclusterrank" not in ptx


@pytest.mark.parametrize("bounds, error, message", [
    ((128, 2, 4, 8), ValueError, r"Got 4 launch bounds: \(128, 2, 4, 8\)\. A maximum of three"),
    (0, ValueError, "launch_bounds must be positive ints"),
    ((128, 2.5), ValueError, "launch_bounds must be positive ints"),
    (2048, ValueError, "at most 1024 threads; got max_threads_per_block=2048"),
    ("128", TypeError, "launch_bounds must be an int or a tuple of ints"),
])
def test_bad_launch_bounds_are_refused_by_name(bounds, error, message):
    with pytest.raises(error, match=message):
        cuda.compile_ptx(pyfunc(saxpy), SAXPY_SIG, launch_bounds=bounds)
    with pytest.raises(error, match=message):
        cuda.jit("void()", launch_bounds=bounds)(lambda: None)


def test_launch_bounds_of_a_device_function_are_refused():
    with pytest.raises(ValueError, match="launch_bounds applies to kernels"):
        cuda.jit(device=True, launch_bounds=128)(lambda: None)
    with pytest.raises(ValueError, match="launch_bounds applies to kernels"):
        cuda.compile_ptx(lambda x: x, "int32(int32)", device=True, launch_bounds=128)


def test_a_saxpy_kernel_links_no_libdevice_function():
    ptx, _ = cuda.compile_ptx(pyfunc(saxpy), SAXPY_SIG)
    assert ".func" not in ptx
    assert "__nv_" not in ptx


def test_only_the_libdevice_functions_used_are_linked():
    ptx, _ = cuda.compile_ptx(pyfunc(math_.k_sin), (float64[::1], float64[::1]))
    assert "__nv_cos" not in ptx and "__nv_exp" not in ptx and "__nv_lgamma" not in ptx
    assert len(ptx) < 200_000


def sin_in_a_loop(x, out, n):
    i = cuda.grid(1)
    if i < x.size:
        acc = x[i]
        for _ in range(n):
            acc = math.sin(acc) + x[i]
        out[i] = acc


def math_heavy_kernel(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i] = (math.sin(v) + math.cos(v) + math.exp(-v) + math.log1p(math.fabs(v))
                  + math.atan2(v, 2.0) + math.erf(v) + math.lgamma(math.fabs(v) + 1.0))


def sin_and_cos(x, out_sin, out_cos):
    i = cuda.grid(1)
    if i < x.size:
        out_sin[i] = math.sin(x[i])
        out_cos[i] = math.cos(x[i])


def hypot_f32(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.hypot(x[i], y[i])


# sinf's argument reduction multiplies by 2/pi (0f3F22F983): once per copy of its body.
SINF_REDUCTION = "0f3F22F983"


def test_a_loop_around_a_math_function_keeps_one_copy_of_its_body(check_ptx):
    # libdevice bodies are inlined after the kernel is optimised; the loop,
    # which looks small to the unroller before that, must not be unrolled
    # into four copies of sinf.
    ptx, _ = cuda.compile_ptx(sin_in_a_loop, (float32[::1], float32[::1], int32))
    assert ptx.count(SINF_REDUCTION) == 1
    check_ptx(ptx, (8, 0))


def load_and_exp_in_a_loop(a, out, n):
    i = cuda.grid(1)
    if i < a.size:
        acc = float32(0.0)
        for _ in range(n):
            acc = a[i] * math.exp(-acc) + a[i]
        out[i] = acc


def same_sin_twice(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.sin(x[i]) * math.sin(x[i])


def test_the_kernel_is_optimised_knowing_that_math_functions_touch_no_memory():
    # The kernel is optimised against libdevice declarations carrying the
    # definitions' inferred attributes (memory(none), willreturn): a load can
    # leave a loop around expf (which reads no table of its own), and two sinf
    # of one value are one.
    ptx, _ = cuda.compile_ptx(load_and_exp_in_a_loop, (float32[::1], float32[::1], int32))
    assert len(re.findall(r"\bld\.global\.", ptx)) == 1, "a[i] is loaded once, before the loop"
    ptx, _ = cuda.compile_ptx(same_sin_twice, (float32[::1], float32[::1]))
    assert ptx.count(SINF_REDUCTION) == 1


def test_math_functions_outside_a_loop_are_inlined_each():
    ptx, _ = cuda.compile_ptx(sin_and_cos, (float32[::1], float32[::1], float32[::1]))
    assert ".func" not in ptx  # sinf and cosf are inlined: no calls
    assert ptx.count(SINF_REDUCTION) == 2


@pytest.mark.parametrize("fastmath", [False, True])
def test_hypot_float32_rounds_its_square_root_unless_fastmath(fastmath):
    ptx, _ = cuda.compile_ptx(hypot_f32, (float32[::1], float32[::1], float32[::1]),
                              fastmath=fastmath)
    if fastmath:
        assert "sqrt.approx" in ptx
    else:
        assert "sqrt.rn.f32" in ptx and "sqrt.approx" not in ptx


def test_compile_ptx_is_deterministic():
    first, _ = cuda.compile_ptx(pyfunc(saxpy), SAXPY_SIG)
    second, _ = cuda.compile_ptx(pyfunc(saxpy), SAXPY_SIG)
    assert first == second


def test_ptx_of_a_kernel_is_the_same_after_compiling_others_and_on_other_threads():
    # The code generator's pipeline is kept per thread and reused (nvptx.cpp):
    # nothing of one module may show in the next.
    import threading

    kernels = [(pyfunc(saxpy), SAXPY_SIG, {}),
               (pyfunc(saxpy), SAXPY_SIG, {"lineinfo": True}),
               (pyfunc(math_.k_sin), "void(float32[::1], float32[::1])", {}),
               (pyfunc(saxpy), SAXPY_SIG, {"fastmath": True})]
    expected = [cuda.compile_ptx(f, sig, **options)[0] for f, sig, options in kernels]
    assert cuda.compile_ptx(*kernels[0][:2])[0] == expected[0]
    results = {}

    def compile_all(thread):
        results[thread] = [cuda.compile_ptx(f, sig, **options)[0]
                           for _ in range(3) for f, sig, options in kernels]

    threads_ = [threading.Thread(target=compile_all, args=(t,)) for t in range(3)]
    for t in threads_:
        t.start()
    for t in threads_:
        t.join()
    assert all(results[t] == expected * 3 for t in range(3))


def test_kernel_ptx_indexes_with_64_bit_addresses():
    ptx, _ = cuda.compile_ptx(pyfunc(saxpy), SAXPY_SIG)
    assert re.search(r"\.param\s+\.u64", ptx), "array data pointers are 64-bit parameters"
    assert "ld.global" in ptx and "st.global" in ptx


# --- signatures and return types ---------------------------------------------------


@pytest.mark.parametrize(
    "sig",
    [
        SAXPY_SIG,
        "void(float32, float32[::1], float32[::1], float32[::1])",
        (float32, float32[::1], float32[::1], float32[::1]),
    ],
    ids=["Signature", "string", "tuple-of-types"],
)
def test_signature_spellings_give_the_same_ptx(sig):
    expected, _ = cuda.compile_ptx(pyfunc(saxpy), SAXPY_SIG)
    ptx, return_type = cuda.compile_ptx(pyfunc(saxpy), sig)
    assert ptx == expected
    assert return_type == void


def test_kernel_return_type_is_void():
    _, return_type = cuda.compile_ptx(pyfunc(saxpy), SAXPY_SIG)
    assert return_type == cuda.void


@pytest.mark.parametrize(
    "args, expected",
    [
        ((int32, int32), int64),
        ((float32, float32), float32),
        ((float32, float64), float64),
        ((int64, float32), float64),
        ((complex64, float32), complex64),
        ((boolean, boolean), int64),
        ((uint16, uint16), uint64),
    ],
    ids=lambda v: str(v),
)
def test_device_function_return_type_is_inferred(args, expected):
    _, return_type = cuda.compile_ptx(add_device, args, device=True)
    assert return_type == expected


def test_declared_return_type_converts_the_result_as_numba_does():
    ptx, return_type = cuda.compile_ptx(add_device, "float64(int32, int32)", device=True)
    assert return_type == float64
    assert "cvt.rn.f64.s64" in ptx or "cvt.rn.f64.s32" in ptx


def test_device_function_with_array_argument_and_scalar_return(check_ptx):
    ptx, return_type = cuda.compile_ptx(
        pyfunc(devfn.dot_row), (float64[:, ::1], int64, float64[::1]), device=True
    )
    assert return_type == float64
    check_ptx(ptx, (8, 0), kernel=False)


# --- fastmath ----------------------------------------------------------------------


DIV_SIG = void(float32[::1], float32[::1], float32[::1])


def fdiv32(x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] / y[i]


def test_float32_division_is_ieee_round_to_nearest_without_fastmath():
    ptx, _ = cuda.compile_ptx(fdiv32, DIV_SIG)
    assert "div.rn.f32" in ptx
    assert "div.approx" not in ptx and "div.full" not in ptx


@pytest.mark.parametrize("cc", CCS, ids=cc_id)
def test_fastmath_uses_approximate_float32_division(cc, check_ptx):
    precise, _ = cuda.compile_ptx(fdiv32, DIV_SIG, cc=cc)
    fast, _ = cuda.compile_ptx(fdiv32, DIV_SIG, fastmath=True, cc=cc)
    assert fast != precise
    assert "div.rn.f32" not in fast
    assert "div.approx" in fast or "div.full" in fast
    check_ptx(fast, cc)


def test_fastmath_flushes_float32_denormals_to_zero():
    fast, _ = cuda.compile_ptx(fdiv32, DIV_SIG, fastmath=True)
    assert ".ftz.f32" in fast


def test_fastmath_option_of_jit_reaches_the_kernel_ptx():
    kernel = cuda.jit(fastmath=True)(fdiv32)
    x = np.ones(4, np.float32)
    kernel[1, 4](x, x, np.zeros(4, np.float32))
    (ptx,) = kernel.inspect_asm().values()
    assert "div.rn.f32" not in ptx


def sqrt_kernel(x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = math.sqrt(x[i])


def test_float32_sqrt_is_correctly_rounded_without_fastmath():
    ptx, _ = cuda.compile_ptx(sqrt_kernel, void(float32[::1], float32[::1]))
    assert "sqrt.rn.f32" in ptx
    fast, _ = cuda.compile_ptx(sqrt_kernel, void(float32[::1], float32[::1]), fastmath=True)
    assert "sqrt.rn.f32" not in fast and "sqrt.approx" in fast


def test_float64_sqrt_uses_the_hardware_instruction():
    ptx, _ = cuda.compile_ptx(sqrt_kernel, void(float64[::1], float64[::1]))
    assert "sqrt.rn.f64" in ptx


# --- lineinfo ----------------------------------------------------------------------


def lines_of(func, text):
    """The line numbers in this file of `func`'s source lines containing `text`."""
    import inspect

    source, first = inspect.getsourcelines(func)
    return [first + i for i, line in enumerate(source) if text in line]


def loc_lines(ptx):
    """{file number: path} and the set of (file number, line) the .loc directives name."""
    files = dict(re.findall(r'^\s*\.file\s+(\d+)\s+"([^"]+)"', ptx, re.M))
    locs = set(re.findall(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+", ptx, re.M))
    return files, {(f, int(line)) for f, line in locs}


@pytest.mark.parametrize("option", ["lineinfo", "debug"])
def test_lineinfo_maps_ptx_to_the_python_source_lines(option, check_ptx):
    ptx, _ = cuda.compile_ptx(pyfunc(saxpy), SAXPY_SIG, **{option: True})
    files, locs = loc_lines(ptx)
    assert list(files.values()) == [__file__]
    (number,) = files
    for text in ("cuda.grid(1)", "if i < out.size", "a * x[i] + y[i]"):
        (line,) = lines_of(pyfunc(saxpy), text)
        assert (number, line) in locs, (text, line, sorted(locs))
    check_ptx(ptx)


def test_without_lineinfo_the_ptx_has_no_line_directives():
    ptx, _ = cuda.compile_ptx(pyfunc(saxpy), SAXPY_SIG)
    assert ".loc" not in ptx and ".file" not in ptx


def test_lineinfo_names_the_file_of_a_device_function_defined_elsewhere(check_ptx):
    from device_functions_elsewhere import sum_of_squares

    def k(x, out, n):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = sum_of_squares(x, n)

    ptx, _ = cuda.compile_ptx(k, (float32[::1], float32[::1], int64), lineinfo=True)
    files, locs = loc_lines(ptx)
    elsewhere = sum_of_squares.py_func.__code__.co_filename
    assert sorted(files.values()) == sorted([__file__, elsewhere])
    number = {path: n for n, path in files.items()}[elsewhere]
    (line,) = lines_of(sum_of_squares.py_func, "total += a[j] * a[j]")
    assert (number, line) in locs, sorted(locs)
    check_ptx(ptx)


def test_lineinfo_with_math_and_loops_passes_ptxas(check_ptx):
    ptx, _ = cuda.compile_ptx(sin_in_a_loop, (float32[::1], float32[::1], int32), lineinfo=True,
                              fastmath=True)
    (line,) = lines_of(sin_in_a_loop, "acc = math.sin(acc)")
    files, locs = loc_lines(ptx)
    assert (next(iter(files)), line) in locs
    check_ptx(ptx)


def test_a_jit_kernel_with_lineinfo_has_line_directives_in_inspect_asm():
    kernel = cuda.jit(lineinfo=True)(pyfunc(saxpy))
    kernel.compile(SAXPY_SIG)
    assert ".loc" in next(iter(kernel.inspect_asm().values()))


# --- max_registers -----------------------------------------------------------------


def ptxas_registers(ptxas, ptx, cc=(8, 0)):
    """The registers per thread ptxas -v reports for the PTX's kernel."""
    from conftest import run_ptxas

    result = run_ptxas(ptxas, ptx, cc, "-v")
    assert result.returncode == 0, result.stderr
    return int(re.search(r"Used (\d+) registers", result.stderr).group(1))


def test_max_registers_caps_the_registers_ptxas_allocates(ptxas):
    unlimited = cuda.jit(pyfunc(math_heavy_kernel))
    limited = cuda.jit(max_registers=24)(pyfunc(math_heavy_kernel))
    sig = (float32[::1], float32[::1])
    free_ptx = unlimited.inspect_asm(sig)
    capped_ptx = limited.inspect_asm(sig)
    assert ".maxnreg" not in free_ptx
    assert re.search(r"\.maxnreg\s+24\b", capped_ptx)
    assert ptxas_registers(ptxas, free_ptx) > 24  # else the test shows nothing
    assert ptxas_registers(ptxas, capped_ptx) <= 24


# --- inspect_llvm / inspect_asm ----------------------------------------------------


def test_inspect_asm_and_llvm_give_one_entry_per_launched_signature():
    kernel = cuda.jit(pyfunc(arrays.copy_1d))
    kernel[1, 4](np.zeros(4, np.float32), np.zeros(4, np.float32))
    kernel[1, 4](np.zeros(4, np.int16), np.zeros(4, np.int16))
    kernel[1, 4](np.zeros(4, np.int16), np.zeros(4, np.int16))  # same types: no new entry
    asm = kernel.inspect_asm()
    llvm = kernel.inspect_llvm()
    assert isinstance(asm, dict) and isinstance(llvm, dict)
    assert len(asm) == 2 and set(asm) == set(llvm)
    for signature, ptx in asm.items():
        assert ".entry" in ptx and ".target sm_" in ptx
        assert "define" in llvm[signature]
        assert kernel.inspect_asm(signature) == ptx
        assert kernel.inspect_llvm(signature) == llvm[signature]


def test_inspect_asm_distinguishes_the_dtypes_of_each_signature():
    kernel = cuda.jit(pyfunc(arrays.copy_1d))
    kernel[1, 4](np.zeros(4, np.float64), np.zeros(4, np.float64))
    kernel[1, 4](np.zeros(4, np.uint8), np.zeros(4, np.uint8))
    texts = list(kernel.inspect_asm().values())
    assert (
        sum("ld.global.f64" in t or "ld.global.u64" in t or "ld.global.b64" in t for t in texts)
        >= 1
    )
    assert sum("ld.global.u8" in t or "ld.global.b8" in t for t in texts) == 1


def test_inspect_before_any_launch_is_empty():
    kernel = cuda.jit(pyfunc(arrays.copy_1d))
    assert kernel.inspect_asm() == {}
    assert kernel.inspect_llvm() == {}


@pytest.mark.parametrize(
    "sig",
    ["void(float32, float32[::1], float32[::1], float32[::1])", SAXPY_SIG],
    ids=["string", "Signature"],
)
def test_eager_kernel_is_compiled_at_decoration(sig):
    kernel = cuda.jit(sig)(pyfunc(saxpy))
    asm = kernel.inspect_asm()
    assert len(asm) == 1
    (ptx,) = asm.values()
    assert ".entry" in ptx
    assert ptx == cuda.compile_ptx(pyfunc(saxpy), SAXPY_SIG)[0]


def test_eager_kernel_with_several_signatures():
    kernel = cuda.jit(["void(float32[::1], float32[::1])", "void(int64[::1], int64[::1])"])(
        pyfunc(arrays.copy_1d)
    )
    assert len(kernel.inspect_asm()) == 2


def assert_saxpy_runs(kernel):
    """`kernel` (saxpy compiled some way) computes 2 * x + x on the current device."""
    x = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    kernel[1, 8](np.float32(2), x, x, out)
    np.testing.assert_allclose(out, 3 * x, rtol=1e-6)


def test_eager_kernel_launches_with_matching_arrays():
    assert_saxpy_runs(
        cuda.jit("void(float32, float32[::1], float32[::1], float32[::1])")(pyfunc(saxpy)))


@pytest.mark.parametrize("option", [{"lineinfo": True}, {"debug": True}, {"fastmath": True},
                                    {"max_registers": 32}], ids=lambda o: next(iter(o)))
def test_jit_options_are_accepted_and_kernels_still_run(option):
    kernel = cuda.jit(**option)(pyfunc(saxpy))
    assert_saxpy_runs(kernel)
    assert ".entry" in next(iter(kernel.inspect_asm().values()))


# --- one PTX test per feature group ------------------------------------------------

ALL_SCALARS = [
    boolean,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
    float32,
    float64,
    complex64,
    complex128,
]

FEATURE_KERNELS = {
    # arrays: every dtype, ndim 1 to 4, C / F / any layout, read-only input
    **{f"copy-1d-{t}": (arrays.copy_1d, (t[:], t[::1])) for t in ALL_SCALARS},
    "copy-2d-F-to-C": (arrays.copy_2d, (float64[::1, :], float64[:, ::1])),
    "copy-3d-A": (arrays.copy_3d, (int8[:, :, :], int8[:, :, :])),
    "copy-4d-C": (arrays.copy_4d, (complex64[:, :, :, ::1], complex64[:, :, :, ::1])),
    "describe-4d": (arrays.describe, (int16[:, :, :, :], int64[::1], int64[::1], int64[::1])),
    "gather-uint8-index": (arrays.gather, (float64[::1], uint8[::1], float64[::1])),
    "store-scalar-complex": (arrays.store_scalar, (complex128, complex128[::1])),
    # arithmetic and typing
    "add-int32-to-int64": (arith.k_add, (int32[::1], int32[::1], int64[::1])),
    "truediv-int": (arith.k_truediv, (int64[::1], int64[::1], float64[::1])),
    "floordiv-int": (arith.k_floordiv, (int32[::1], int32[::1], int64[::1])),
    "mod-float32": (arith.k_mod, (float32[::1], float32[::1], float32[::1])),
    "pow-int": (arith.k_pow, (int64[::1], int64[::1], int64[::1])),
    "pow-float32": (arith.k_pow, (float32[::1], float32[::1], float32[::1])),
    "shifts": (arith.k_rshift, (uint64[::1], uint64[::1], uint64[::1])),
    "invert": (arith.k_invert, (int32[::1], int64[::1])),
    "compare": (arith.k_compare_all, (int8[::1], uint8[::1], boolean[:, ::1])),
    "chained-compare": (arith.k_chained, (int64[::1], int64, int64, boolean[:, ::1])),
    "augmented": (arith.k_augmented_locals, (int64[::1], int64[::1], int64[:, ::1])),
    "augmented-elements": (arith.k_augmented_elements, (float32[::1], int32[::1], int16[:, ::1])),
    # control flow
    "if-elif-else": (flow.classify, (int64[::1], int8[::1])),
    "for-range-negative-step": (flow.range_stats, (int64, int64, int64, int64[::1])),
    # builtins
    "min-max": (builtins_.min_max, (float64[::1], int64[::1], float32[::1], float64[:, ::1])),
    "abs-complex": (builtins_.k_abs, (complex128[::1], float64[::1])),
    "int": (builtins_.k_int, (float32[::1], int64[::1])),
    "bool": (builtins_.k_bool, (complex64[::1], boolean[::1])),
    "round": (builtins_.k_round, (float64[::1], int64[::1])),
    # complex
    "complex-ops-64": (complex_.k_complex_ops, (complex64[::1], complex64[::1], complex64[:, ::1])),
    "complex-ops-128": (
        complex_.k_complex_ops,
        (complex128[::1], float64[::1], complex128[:, ::1]),
    ),
    "complex-parts": (
        complex_.k_parts,
        (complex64[::1], float32[::1], float32[::1], complex64[::1]),
    ),
    "mandelbrot": (complex_.mandelbrot, (float64, float64, float64, float64, int64, int32[:, ::1])),
    # device functions
    "device-function-defined-later": (devfn.uses_later, (float64, float64[::1])),
    "device-functions": (
        calls_device_functions,
        (float64[:, ::1], float64[::1], float64[::1], float64[::1]),
    ),
    # names: globals, tuples, aliases
    "numeric-globals": (names.uses_numeric_globals, (float64[::1], float64[::1])),
    "alias-cudajit": (names.uses_plain_module_name, (int64[::1],)),
    "imported-grid": (names.uses_imported_names, (int64[::1],)),
    "math-aliases": (names.uses_math_aliases, (float32[::1], float32[::1])),
    # thread indexing
    "indices": (threads.record_indices, (int64[:, ::1],)),
    "grid-gridsize": (
        threads.record_grid,
        (int64[::1], int64[:, ::1], int64[:, ::1], int64[::1], int64[:, ::1], int64[:, ::1]),
    ),
    "laneid-warpsize": (threads.record_lanes, (int64[::1], int64[::1])),
}

for _name in sorted(math_.UNARY):
    for _t in (float32, float64):
        FEATURE_KERNELS[f"math-{_name}-{_t}"] = (math_.UNARY[_name][0], (_t[::1], _t[::1]))
for _name in sorted(math_.BINARY):
    for _t in (float32, float64):
        FEATURE_KERNELS[f"math-{_name}-{_t}"] = (
            math_.BINARY[_name][0],
            (_t[::1], _t[::1], _t[::1]),
        )
for _name in sorted(math_.ROUNDING):
    FEATURE_KERNELS[f"math-{_name}-float32"] = (
        math_.ROUNDING[_name][0],
        (float32[::1], int64[::1]),
    )
for _name in sorted(math_.PREDICATES):
    FEATURE_KERNELS[f"math-{_name}-float64"] = (
        math_.PREDICATES[_name][0],
        (float64[::1], boolean[::1]),
    )


@pytest.mark.parametrize("cc", CCS, ids=cc_id)
@pytest.mark.parametrize("case", sorted(FEATURE_KERNELS))
def test_feature_kernel_ptx_passes_ptxas(case, cc, check_ptx):
    kernel, args = FEATURE_KERNELS[case]
    ptx, return_type = cuda.compile_ptx(pyfunc(kernel), args, cc=cc)
    assert return_type == void
    assert ".target sm_%d%d" % cc in ptx
    check_ptx(ptx, cc)


FEATURE_DEVICE_FUNCTIONS = {
    "scalar-args": (devfn.add, (int32, int32), int64),
    "calls-device-functions": (devfn.norm2, (float64, float64), float64),
    "several-returns": (devfn.clamp, (float64, int64, float64), float64),
    "array-arg-scalar-return": (devfn.dot_row, (float32[:, :], int64, float32[::1]), float64),
    "array-arg-no-return": (devfn.fill_row, (int16[:, ::1], int64, int64), void),
    "return-in-loop": (devfn.first_negative, (float64[::1],), int64),
    "side-effect": (flow.mark, (int64[::1], int64, boolean), boolean),
    "chain": (devfn.level1, (int32,), int64),
}


@pytest.mark.parametrize("cc", CCS, ids=cc_id)
@pytest.mark.parametrize("case", sorted(FEATURE_DEVICE_FUNCTIONS))
def test_device_function_ptx_passes_ptxas(case, cc, check_ptx):
    func, args, expected = FEATURE_DEVICE_FUNCTIONS[case]
    ptx, return_type = cuda.compile_ptx(pyfunc(func), args, device=True, cc=cc)
    assert return_type == expected
    check_ptx(ptx, cc, kernel=False)


# --- CUDAJIT_LLVM_OPTIONS ------------------------------------------------------------

def _compile_saxpy_in_a_process(tmp_path, options):
    import os
    import subprocess
    import sys

    script = ("import cudajit as cuda\n"
              "from cudajit import float32, void\n"
              "def saxpy(a, x, y, out):\n"
              "    i = cuda.grid(1)\n"
              "    if i < out.size:\n"
              "        out[i] = a * x[i] + y[i]\n"
              "cuda.compile_ptx(saxpy, void(float32, float32[::1], float32[::1], float32[::1]))\n")
    env = dict(os.environ, CUDAJIT_LLVM_OPTIONS=options,
               PYTHONPATH=os.pathsep.join(sys.path))
    path = tmp_path / "compile_saxpy.py"
    path.write_text(script)
    return subprocess.run([sys.executable, str(path)], env=env, capture_output=True, text=True,
                          timeout=120)


def test_llvm_options_from_the_environment_reach_llvm(tmp_path):
    run = _compile_saxpy_in_a_process(tmp_path, "-time-passes")
    assert run.returncode == 0, run.stderr
    assert "Pass execution timing report" in run.stderr
    assert "InstCombinePass" in run.stderr  # the optimiser's passes, not only codegen's


def test_an_unknown_llvm_option_is_an_error_naming_it(tmp_path):
    run = _compile_saxpy_in_a_process(tmp_path, "-no-such-llvm-option")
    assert run.returncode != 0
    assert "CUDAJIT_LLVM_OPTIONS" in run.stderr
    assert "Unknown command line argument '-no-such-llvm-option'" in run.stderr


def test_a_lambda_compiles_under_a_valid_symbol():
    # Its name, <lambda>, is no PTX symbol: LLVM aborted the process on it.
    ptx, _ = cuda.compile_ptx(lambda out: None, "void(float32[:])")
    assert ".visible .entry _lambda_(" in ptx
    ptx, return_type = cuda.compile_ptx(lambda x: x * 3, "float64(float64)", device=True)
    assert ".visible .func" in ptx and "_lambda_" in ptx and str(return_type) == "float64"


def fast_functions(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i] = math.cos(v) + math.sin(v) + math.log2(v) + math.exp(v)


def test_fastmath_calls_the_fast_approximate_float32_functions_as_numba(device):
    # numba-cuda's mathimpl: cos, sin, tan, exp, log, log2, log10 and pow of float32 become
    # libdevice's __nv_fast_*f (sin.approx, lg2.approx, ex2.approx) under fastmath=True.
    sig = void(float32[::1], float32[::1])
    fast, _ = cuda.compile_ptx(fast_functions, sig, fastmath=True)
    precise, _ = cuda.compile_ptx(fast_functions, sig)
    for instruction in ("cos.approx.ftz.f32 ", "sin.approx.ftz.f32 ", "lg2.approx.ftz.f32 "):
        assert instruction in fast and instruction not in precise, instruction
    x = np.linspace(0.5, 4.0, 64, dtype=np.float32)
    out = np.zeros_like(x)
    cuda.jit(fastmath=True)(fast_functions)[1, 64](x, out)
    expected = np.cos(x) + np.sin(x) + np.log2(x) + np.exp(x)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_inspect_asm_of_a_device_function_is_its_func_with_its_fastmath():
    # Numba's DeviceFunction.inspect_asm(signature): the .func, with the function's fastmath.
    def cosine(x):
        return math.cos(x)

    fast = cuda.jit("float32(float32)", device=True, fastmath=True)(cosine)
    precise = cuda.jit(device=True)(cosine)
    ptx = fast.inspect_asm((float32,))
    assert ".visible .func" in ptx and ".entry" not in ptx
    assert "cos.approx" in ptx
    assert "cos.approx" not in precise.inspect_asm((float32,))
    assert list(fast.inspect_asm()) == [(float32,)]
    assert precise.inspect_asm() == {}
