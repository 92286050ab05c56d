"""numba.cuda's compile functions for the current device, close, defer_cleanup, and the
stream's add_callback and async_done."""

import asyncio
import threading

import re

import numpy as np
import pytest

import cudajit as cuda

pytestmark = pytest.mark.usefixtures("device")


def store_one(x):
    x[0] = 1


def add(a, b):
    return a + b


def test_compile_gives_ptx_and_the_return_type(device):
    ptx, resty = cuda.compile(store_one, "void(float64[::1])", device=False, abi="numba")
    assert ".visible .entry" in ptx and str(resty) == "none"
    # numba-cuda's defaults: a device function with the C ABI, named as in Python
    ptx, resty = cuda.compile(add, "float32(float32, float32)")
    assert re.search(r"\.visible\s+\.func\s+\(\.param\s+\.b32\s+func_retval0\)\s+add\(", ptx)
    assert resty == cuda.float32
    with pytest.raises(NotImplementedError, match="cudajit makes PTX only"):
        cuda.compile(add, "float32(float32, float32)", device=True, output="ltoir")
    # an output kind numba-cuda does not know either: numba-cuda's message
    with pytest.raises(NotImplementedError, match="Unsupported output type: illegal"):
        cuda.compile(add, "float32(float32, float32)", device=True, output="illegal")


def test_the_current_devices_compute_capability_is_the_target(device):
    ptx, _ = cuda.compile_ptx_for_current_device(store_one, "void(float64[::1])")
    ptx2, _ = cuda.compile_for_current_device(store_one, "void(float64[::1])")
    if device == "cuda":
        major, minor = cuda.get_current_device().compute_capability
        expected = f".target sm_{major}{minor}"
    else:  # the cpu device has none: compile_ptx's default, 8.0
        expected = ".target sm_80"
    assert expected in ptx and expected in ptx2


def test_close_and_defer_cleanup_leave_the_device_usable():
    d = cuda.to_device(np.zeros(4))
    with cuda.defer_cleanup():
        cuda.jit(store_one)[1, 1](d)
    cuda.close()
    np.testing.assert_array_equal(d.copy_to_host(), [1, 0, 0, 0])


@cuda.jit
def spin_then_mark(x, iterations):
    acc = 0.0
    for _ in range(iterations):
        acc = acc * 0.5 + 1.0
    x[0] = acc


def test_a_stream_callback_runs_after_the_work_queued_before_it():
    s = cuda.stream()
    x = cuda.device_array(1)
    seen = []
    ran = threading.Event()

    def callback(stream, status, arg):
        seen.append((stream == s, status, arg, x.copy_to_host()[0]))
        ran.set()

    spin_then_mark[1, 1, s](x, 200_000)
    s.add_callback(callback, "tag")
    assert ran.wait(60)
    assert seen == [(True, 0, "tag", 2.0)]  # the kernel had finished


def test_async_done_completes_with_the_stream():
    async def main():
        s = cuda.stream()
        x = cuda.device_array(1)
        spin_then_mark[1, 1, s](x, 100_000)
        done = await asyncio.wait_for(s.async_done(), 60)
        return done == s, s.query()

    assert asyncio.run(main()) == (True, True)


def test_inspect_types_prints_each_signatures_variable_types():
    import io

    @cuda.jit
    def scale(x, n):
        i = cuda.grid(1)
        if i < x.size:
            acc = x[i] * n
            x[i] = acc

    scale[1, 4](np.zeros(4), 3)
    scale[1, 4](np.zeros(4, np.float32), 2.5)
    out = io.StringIO()
    scale.inspect_types(file=out)
    text = out.getvalue()
    assert "scale (array(float64, 1d, C), int64)" in text
    assert "scale (array(float32, 1d, C), float64)" in text
    assert "acc: float64" in text and "i: int64" in text
    one = io.StringIO()
    scale.inspect_types(file=one, signature=("array(float64, 1d, C)", "int64"))
    assert one.getvalue().count("acc: float64") == 1 and "float32" not in one.getvalue()


@cuda.jit
def reverse64(x):
    s = cuda.shared.array(64, np.float64)
    i = cuda.threadIdx.x
    s[i] = x[i]
    cuda.syncthreads()
    x[i] = s[63 - i]


def test_resource_queries_answer_per_signature(device):
    reverse64[1, 64](np.arange(64.0))
    sig = ("array(float64, 1d, C)",)
    assert reverse64.get_shared_mem_per_block() == {sig: 512}
    assert reverse64.get_shared_mem_per_block(sig) == 512
    registers = reverse64.get_regs_per_thread(sig)
    assert registers == 0 if device == "cpu" else 0 < registers <= 255
    assert reverse64.get_local_mem_per_thread(sig) >= 0
    assert reverse64.get_const_mem_size(sig) >= 0
    assert 0 < reverse64.get_max_threads_per_block(sig) <= 1024


def test_max_cooperative_grid_blocks_is_the_largest_grid_that_launches(device):
    @cuda.jit
    def grid_synced(x):
        cuda.cg.this_grid().sync()
        x[0] = 1

    x = np.zeros(1)
    grid_synced[1, 32](x)
    most = grid_synced.max_cooperative_grid_blocks(32)
    if device == "cpu":
        assert most == 256  # 8192 threads, at most 256 blocks
    assert most >= 1 and grid_synced.max_cooperative_grid_blocks((32, 2)) <= most
    grid_synced[most, 32](x)  # the largest grid runs
    with pytest.raises(ValueError, match="at most"):
        grid_synced[most + 1, 32](x)
    grid_synced[1, 32](np.zeros(1, np.float32))
    with pytest.raises(TypeError, match="2 compiled signatures; say which with signature="):
        grid_synced.max_cooperative_grid_blocks(32)


def test_inspect_sass_gives_the_machine_code_without_a_gpu():
    from cudajit.sass import _tool

    if _tool("ptxas") is None or _tool("nvdisasm") is None:
        pytest.skip("needs ptxas (the CUDA toolkit) and nvdisasm (scripts/install-deps.sh)")

    @cuda.jit
    def double(x):
        x[cuda.grid(1)] *= 2

    double[1, 4](np.zeros(4))
    sig = ("array(float64, 1d, C)",)
    sass = double.inspect_sass(sig)
    instructions = [line.split("*/")[1].split(";")[0].split()[0] for line in sass.splitlines()
                    if "/*0" in line and ";" in line]
    assert {"LDG.E.64", "DADD", "STG.E.64", "EXIT"} <= set(instructions), instructions
    assert ".target\tsm_90" in double.inspect_sass(sig, cc=(9, 0))
    assert set(double.inspect_sass()) == {sig}  # a dict over the compiled signatures


def test_specialize_and_overloads_as_in_numba():
    @cuda.jit
    def fill(x, value):
        x[0] = value

    only = fill.specialize(np.zeros(2), 3)
    x = np.zeros(2)
    only[1, 1](x, 5)
    assert x[0] == 5
    with pytest.raises(TypeError, match="no matching definition of kernel 'fill'"):
        only[1, 1](np.zeros(2, np.float32), 5)
    sig = ("array(float64, 1d, C)", "int64")
    assert list(only.overloads) == [sig]
    overload = only.overloads[sig]
    # keyed by types too, as Numba programs look kernels up
    assert only.overloads[(cuda.float64[::1], cuda.int64)] is not None
    assert (cuda.float64[::1], cuda.int64) in only.overloads
    assert only.overloads.get((cuda.float32[::1], cuda.int64)) is None
    assert ".entry" in overload.inspect_asm()
    assert overload.shared_mem_per_block == 0 and overload.regs_per_thread >= 0
    assert repr(overload) == "<cudajit kernel fill(array(float64, 1d, C), int64)>"


def test_specialize_gives_one_kernel_per_argument_types_and_refuses_twice():
    @cuda.jit
    def keep(x):
        x[0] = x[0]

    assert not keep.specialized and keep.specializations == {}
    by_type = keep.specialize(cuda.float32[::1])  # a type stands for a value of that type
    assert keep.specialize(np.zeros(3, np.float32)) is by_type
    assert keep.specialize(cuda.int32[::1]) is not by_type
    assert len(keep.specializations) == 2 and by_type.specialized
    with pytest.raises(RuntimeError, match="Dispatcher already specialized"):
        by_type.specialize(cuda.float32[::1])
    declared = cuda.jit("void(float64[::1])")(keep.py_func)
    with pytest.raises(RuntimeError, match="Dispatcher already specialized"):
        declared.specialize(cuda.float64[::1])


def test_a_debug_kernel_is_inspected_by_the_types_its_users_pass():
    # The hidden exception record of debug=True is no argument of the user's signatures.
    @cuda.jit("void(int32, int32)", debug=True, opt=False)
    def compare(x, y):
        z = x == y  # noqa: F841

    assert compare.signatures == [("int32", "int32")]
    assert "define" in compare.inspect_llvm((cuda.int32, cuda.int32))
    assert list(compare.inspect_asm()) == [("int32", "int32")]


def test_compile_all_gives_the_code_of_the_function_and_of_what_it_links():
    ptx = (".version 7.0\n.target sm_80\n.address_size 64\n"
           ".visible .func (.param .b32 r) twice(.param .b32 x)\n"
           "{\n.reg .b32 %r<3>;\nld.param.b32 %r1, [x];\nadd.s32 %r2, %r1, %r1;\n"
           "st.param.b32 [r], %r2;\nret;\n}\n")
    twice = cuda.declare_device("twice", "int32(int32)", link=cuda.PTXSource(ptx), abi="c")

    def use(x):
        return twice(x) + 1

    codes, resty = cuda.compile_all(use, (cuda.int32,), device=True, output="ptx")
    assert resty == cuda.int64  # int32 + 1 (an int64 literal), as Numba types it
    assert len(codes) == 2 and ".visible .func" in codes[0] and codes[1] == ptx
    with pytest.raises(NotImplementedError, match="cudajit makes PTX only"):
        cuda.compile_all(use, (cuda.int32,), device=True)  # numba-cuda's default is LTO-IR
    with pytest.raises(NotImplementedError, match="Unsupported output type: cubin"):
        cuda.compile_all(use, (cuda.int32,), device=True, output="cubin")


def test_bfloat16_support_and_require_context_as_in_numba():
    # The cpu device computes in bfloat16 (a GPU from compute capability 8.0).
    if cuda.get_current_device().kind == "cpu":
        assert cuda.is_bfloat16_supported() is True

    @cuda.require_context
    def current():
        return cuda.current_context().device

    assert current() == cuda.get_current_device()
    assert current.__name__ == "current"


def test_inspect_sass_without_nvdisasm_says_so(monkeypatch):
    from cudajit import sass

    real_tool = sass._tool
    monkeypatch.setattr(sass, "_tool", lambda name: None if name == "nvdisasm" else real_tool(name))
    if real_tool("ptxas") is None:
        pytest.skip("needs ptxas (the CUDA toolkit)")

    @cuda.jit("void(float32[::1])")
    def f(x):
        x[0] = 0

    with pytest.raises(RuntimeError, match="^nvdisasm was not found: inspect_sass.. needs it; "
                                           "install it with 'pip install nvidia-cuda-nvdisasm'"):
        f.inspect_sass()


def test_compiling_a_kernel_that_returns_a_value_is_numbas_type_error():
    def f(x, y):
        return x[0] + y[0]

    args = (cuda.uint32[::1], cuda.uint32[::1])
    message = (r"CUDA kernel must have void return type: kernel 'f' returns a value \(line \d+\); "
               r"write results into an array argument")
    with pytest.raises(TypeError, match=message):
        cuda.compile_ptx(f, args)
    with pytest.raises(TypeError, match=message):
        cuda.compile_all(f, args, device=False, abi="numba", output="ptx")

    def g(x):
        def inner():
            return 1  # a nested function's return is its own
        x[0] = inner()
        return None

    assert str(cuda.compile_ptx(g, (cuda.int64[::1],))[1]) == "none"
    assert cuda.compile_ptx(f, args, device=True)[1] == cuda.uint64  # a device function may
