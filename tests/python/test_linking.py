"""Foreign device code linked with kernels (numba-cuda's cuda.declare_device, jit(link=...),
cuda.CUSource): on the cuda device (here the GPU or the simulated GPU) the driver's linker
links it with the kernel's PTX; the cpu device refuses kernels that call it."""

import enum
import os
from pathlib import Path

import numpy as np
import pytest

import cudajit as cuda
from cudajit import _core, linking, nvrtc

pytestmark = pytest.mark.filterwarnings("ignore::cudajit.PerformanceWarning")

HERE = Path(__file__).parent / "linked_code"
MUL_PTX = str(HERE / "mul.ptx")
FUNCTIONS_CU = str(HERE / "functions.cu")

needs_nvrtc = pytest.mark.skipif(not nvrtc.is_available(),
                                 reason="NVRTC not found (CUDA toolkit or nvidia-cuda-nvrtc)")

# add_i32 with the C convention: int add_i32(int a, int b).
ADD_I32_PTX = """
.version 7.0
.target sm_70
.address_size 64

.visible .func (.param .b32 func_retval0) add_i32(.param .b32 a, .param .b32 b)
{
	.reg .b32 %r<4>;
	ld.param.u32 %r1, [a];
	ld.param.u32 %r2, [b];
	add.s32 %r3, %r1, %r2;
	st.param.b32 [func_retval0+0], %r3;
	ret;
}
"""

TIMES2_CU = cuda.CUSource("""
extern "C" __device__ int times2(int* out, int a) {
  *out = a * 2;
  return 0;
}
""")

TIMES4_CU = cuda.CUSource("""
extern "C" __device__ int times2(int* out, int a);

extern "C" __device__ int times4(int* out, int a) {
  int tmp;
  times2(&tmp, a);
  *out = tmp * 2;
  return 0;
}
""")


@pytest.fixture
def on_cuda(on_gpu_device):
    return _core.current_device()


def test_a_ptx_file_linked_by_declare_device_defines_the_function(on_cuda):
    mul = cuda.declare_device("mul_f32_f32", "float32(float32, float32)", link=MUL_PTX)

    @cuda.jit
    def multiply(r, x, y):
        i = cuda.grid(1)
        if i < len(r):
            r[i] = mul(x[i], y[i])

    rng = np.random.default_rng(1)
    x, y = rng.random(100, dtype=np.float32), rng.random(100, dtype=np.float32)
    r = np.zeros_like(x)
    multiply[4, 32](r, x, y)
    np.testing.assert_array_equal(r, x * y)


def test_a_kernel_calling_a_cooperative_declaration_is_cooperative(on_cuda):
    # declare_device(use_cooperative=True): its callers are launched cooperatively.
    mul = cuda.declare_device("mul_f32_f32", "float32(float32, float32)", link=MUL_PTX,
                              use_cooperative=True)
    plain = cuda.declare_device("mul_f32_f32", "float32(float32, float32)", link=MUL_PTX)

    @cuda.jit("void(float32[::1], float32[::1])")
    def cooperative(r, x):
        i = cuda.grid(1)
        if i < len(r):
            r[i] = mul(x[i], x[i])

    @cuda.jit("void(float32[::1], float32[::1])")
    def not_cooperative(r, x):
        i = cuda.grid(1)
        if i < len(r):
            r[i] = plain(x[i], x[i])

    x = np.arange(64, dtype=np.float32)
    r = np.zeros_like(x)
    overload = cooperative.overloads[cooperative.signatures[0]]
    assert overload.max_cooperative_grid_blocks(32) >= 2
    cooperative[2, 32](r, x)
    np.testing.assert_array_equal(r, x * x)
    assert overload.cooperative
    assert not not_cooperative.overloads[not_cooperative.signatures[0]].cooperative
    assert overload._codelibrary._linking_files == [MUL_PTX]


def test_jit_link_gives_the_code_of_a_c_abi_declaration(on_cuda):
    add = cuda.declare_device("add_i32", "int32(int32, int32)", abi="c")

    @cuda.jit(link=[cuda.PTXSource(ADD_I32_PTX, name="add_i32.ptx")])
    def kernel(r, x):
        i = cuda.grid(1)
        if i < len(r):
            r[i] = add(x[i], 7)  # 7 is converted to the declared int32

    x = np.arange(50, dtype=np.int32)
    r = np.empty_like(x)
    kernel[2, 32](r, x)
    np.testing.assert_array_equal(r, x + 7)


def test_the_declared_argument_types_convert_the_arguments(on_cuda):
    mul = cuda.declare_device("mul_f32_f32", "float32(float32, float32)", link=MUL_PTX)

    @cuda.jit
    def kernel(r, x):
        i = cuda.grid(1)
        if i < len(r):
            r[i] = mul(x[i], 2)  # float64 and int64 arguments, cast to float32

    x = np.linspace(0, 1, 40)
    r = np.empty_like(x)
    kernel[2, 32](r, x)
    np.testing.assert_allclose(r, (x.astype(np.float32) * 2).astype(np.float64))


@needs_nvrtc
def test_a_cusource_is_compiled_with_nvrtc_and_linked(on_cuda):
    times2 = cuda.declare_device("times2", "int32(int32)", link=TIMES2_CU)

    @cuda.jit
    def kernel(r, x):
        i = cuda.grid(1)
        if i < len(r):
            r[i] = times2(x[i])

    x = np.arange(10, dtype=np.int32)
    r = np.empty_like(x)
    kernel[1, 32](r, x)
    np.testing.assert_array_equal(r, x * 2)


@needs_nvrtc
def test_cuda_cplusplus_including_cccl_headers_compiles(on_cuda):
    # <cuda/std/...> (libcu++, which cooperative_groups.h and <cuda/barrier> include) lies
    # in the toolkit's include/cccl from CUDA 13: NVRTC is given that folder too.
    if not any((Path(d) / "cuda" / "std" / "type_traits").is_file()
               for d in nvrtc.include_dirs()):
        pytest.skip("no CCCL headers (cuda/std/type_traits) in the toolkit found")
    source = cuda.CUSource("""
#include <cuda/std/type_traits>
#include <cuda/std/limits>
extern "C" __device__ int clamp_to_short(int* out, int a) {
  static_assert(cuda::std::is_same_v<short, cuda::std::int16_t>);
  const int hi = cuda::std::numeric_limits<short>::max();
  *out = a > hi ? hi : a;
  return 0;
}
""", name="clamp.cu")
    clamp = cuda.declare_device("clamp_to_short", "int32(int32)", link=source)

    @cuda.jit
    def kernel(r, x):
        i = cuda.grid(1)
        if i < len(r):
            r[i] = clamp(x[i])

    x = np.array([0, 5, 32767, 32768, 100000], dtype=np.int32)
    r = np.empty_like(x)
    kernel[1, 32](r, x)
    np.testing.assert_array_equal(r, np.minimum(x, 32767))


@needs_nvrtc
@pytest.mark.parametrize("collection", [list, tuple, set])
def test_several_sources_link_together(on_cuda, collection):
    times4 = cuda.declare_device("times4", "int32(int32)",
                                 link=collection([TIMES2_CU, TIMES4_CU]))

    @cuda.jit
    def kernel(r, x):
        i = cuda.grid(1)
        if i < len(r):
            r[i] = times4(x[i])

    x = np.arange(10, dtype=np.int32)
    r = np.empty_like(x)
    kernel[1, 32](r, x)
    np.testing.assert_array_equal(r, x * 4)


@needs_nvrtc
def test_a_cu_file_includes_from_its_folder_and_takes_a_cpointer(on_cuda):
    saxpy = cuda.declare_device("saxpy", "float32(float32, float32, float32)",
                                link=FUNCTIONS_CU)
    sum_reduce = cuda.declare_device("sum_reduce", "float32(CPointer(float32), int32)",
                                     link=FUNCTIONS_CU)

    @cuda.jit("void(float32[::1], float32, float32[::1], float32[::1])")
    def vector_saxpy(res, a, x, y):
        i = cuda.grid(1)
        if i < len(res):
            res[i] = saxpy(a, x[i], y[i])

    @cuda.jit("void(float32[::1], CPointer(float32), int32)")
    def reduce(result, array, n):
        result[0] = sum_reduce(array, n)

    x = np.arange(100, dtype=np.float32)
    y = np.ones(100, dtype=np.float32)
    res = np.zeros_like(x)
    vector_saxpy[4, 32](res, np.float32(3), x, y)
    np.testing.assert_array_equal(res, 3 * x + y)

    d_x, d_result = cuda.to_device(x), cuda.device_array(1, np.float32)
    reduce[1, 1](d_result, d_x.device_pointer, len(x))
    np.testing.assert_allclose(d_result.copy_to_host()[0], np.sum(x))


def test_nvrtc_errors_carry_its_log(on_cuda):
    if not nvrtc.is_available():
        pytest.skip("NVRTC not found")
    broken = cuda.declare_device("broken", "int32(int32)",
                                 link=cuda.CUSource("extern \"C\" __device__ int broken(",
                                                    name="broken.cu"))

    @cuda.jit
    def kernel(r):
        r[0] = broken(1)

    with pytest.raises(cuda.errors.NvrtcError) as info:
        kernel[1, 1](np.zeros(1, np.int32))
    assert isinstance(info.value, cuda.CompileError)
    message = str(info.value)
    assert "NVRTC could not compile 'broken.cu'" in message
    assert 'NVRTC_ERROR_COMPILATION in the compilation of "broken.cu"' in message
    assert "error" in message.split("\n", 1)[1]  # NVRTC's log follows


def test_a_cu_file_that_fails_names_the_file(on_cuda, tmp_path):
    if not nvrtc.is_available():
        pytest.skip("NVRTC not found")
    path = tmp_path / "error.cu"
    path.write_text('extern "C" __device__ int bar(int x) {\n    SYNTAX ERROR\n}\n')
    bar = cuda.declare_device("bar", "int32(int32)")
    with pytest.raises(cuda.errors.NvrtcError) as info:
        @cuda.jit("void(int32)", link=[str(path)])
        def kernel(x):
            bar(x)
    message = str(info.value)
    assert 'in the compilation of "error.cu"' in message
    assert 'identifier "SYNTAX" is undefined' in message


@pytest.mark.parametrize("name, what", [("header.cuh", "extension .cuh"),
                                        ("data", "no extension")])
def test_a_file_of_unknown_kind_is_refused(name, what):
    with pytest.raises(cuda.errors.LinkerError, match=f"Don't know how to link file with {what}: "
                                                      f"cannot link '{name}'.*one of .a, .cu"):
        @cuda.jit("void()", link=[name])
        def kernel():
            pass


def test_a_missing_file_is_a_linker_error(on_cuda, tmp_path):
    path = str(tmp_path / "nonexistent.a")
    with pytest.raises(cuda.errors.LinkerError) as info:
        @cuda.jit("void(int32[::1])", link=[path])
        def f(x):
            x[0] = 0
    assert info.value.args == (f"{path} not found",)
    assert cuda.cudadrv.driver.LinkerError is cuda.errors.LinkerError
    assert isinstance(info.value, RuntimeError)


def test_a_missing_nvrtc_names_what_to_install(monkeypatch):
    monkeypatch.setattr(nvrtc, "_library", None)
    monkeypatch.setattr(nvrtc, "candidates", lambda: ["/nonexistent/libnvrtc.so.13"])
    with pytest.raises(nvrtc.NvrtcNotFound, match="nvidia-cuda-nvrtc"):
        nvrtc.library()


def test_a_cubin_is_refused_by_the_simulated_gpu(on_cuda):
    if not _core.cuda_simulated():
        pytest.skip("the cuda device is a real GPU, which links cubins")
    f = cuda.declare_device("f", "int32(int32)",
                            link=cuda.Cubin(b"\x7fELF" + bytes(60), name="f.cubin"))

    @cuda.jit
    def kernel(r):
        r[0] = f(1)

    with pytest.raises(cuda.CudaDriverError, match="'f.cubin' is a cubin .*runs PTX"):
        kernel[1, 1](np.zeros(1, np.int32))


def test_an_unresolved_function_is_the_linkers_error(on_cuda):
    missing = cuda.declare_device("not_defined_anywhere", "int32(int32)", link=MUL_PTX)

    @cuda.jit
    def kernel(r):
        r[0] = missing(1)

    with pytest.raises(cuda.CudaDriverError, match="not_defined_anywhere"):
        kernel[1, 1](np.zeros(1, np.int32))


def test_linked_files_are_read_at_each_load_not_cached(on_cuda, tmp_path, monkeypatch):
    # Two kernels with the same code (one IR: one compiled PTX, shared in the process and on
    # disk with cache=True) linking files of different contents each get their own.
    monkeypatch.setenv("CUDAJIT_CACHE_DIR", str(tmp_path / "cache"))

    def make(factor):
        path = tmp_path / f"scale{factor}.ptx"
        path.write_text(ADD_I32_PTX.replace("add_i32", "scale").replace(
            "add.s32 %r3, %r1, %r2", f"mul.lo.s32 %r3, %r1, {factor}"))
        scale = cuda.declare_device("scale", "int32(int32, int32)", abi="c", link=str(path))

        @cuda.jit(cache=True)
        def kernel(r, x):
            i = cuda.grid(1)
            if i < len(r):
                r[i] = scale(x[i], 0)

        return kernel, path

    x = np.arange(8, dtype=np.int32)
    for factor in (3, 5):
        kernel, _ = make(factor)
        r = np.empty_like(x)
        kernel[1, 32](r, x)
        np.testing.assert_array_equal(r, x * factor)


def test_the_cpu_device_refuses_a_kernel_calling_a_foreign_function(on_cpu_device):
    mul = cuda.declare_device("mul_f32_f32", "float32(float32, float32)", link=MUL_PTX)

    @cuda.jit
    def kernel(r, x):
        r[0] = mul(x[0], x[0])

    with pytest.raises(cuda.CompileError, match=r"foreign device function .*cuda device only"):
        kernel[1, 1](np.zeros(1, np.float32), np.ones(1, np.float32))


def test_compile_ptx_declares_the_foreign_function():
    mul = cuda.declare_device("mul_f32_f32", "float32(float32, float32)")

    def kernel(r, x):
        r[0] = mul(x[0], x[0])

    ptx, _ = cuda.compile_ptx(kernel, "void(float32[::1], float32[::1])")
    assert ".extern .func  (.param .b32 func_retval0) mul_f32_f32" in ptx
    assert "call.uni" in ptx


def test_declare_device_keeps_numbas_attributes():
    decl = cuda.declare_device("f1", "int32(float32[:])")
    assert decl.name == "f1"
    assert [str(a) for a in decl.sig.args] == ["array(float32, 1d, A)"]
    assert str(decl.sig.return_type) == "int32"


@pytest.mark.parametrize("sig", ["(float32[:],)", (cuda.float32,)])
def test_declare_device_needs_a_return_type(sig):
    with pytest.raises(TypeError, match="Return type"):
        cuda.declare_device("f1", sig)


def test_link_items_are_checked_when_declared():
    with pytest.raises(cuda.errors.LinkerError, match="with extension .txt"):
        cuda.declare_device("f", "int32()", link="code.txt")
    with pytest.raises(TypeError, match="LinkableCode"):
        cuda.declare_device("f", "int32()", link=[42])
    with pytest.raises(NotImplementedError, match="ABI"):
        cuda.declare_device("f", "int32()", abi="fortran")


def test_an_array_argument_is_refused_with_the_reason(on_cuda):
    f = cuda.declare_device("f1", "int32(float32[:])")

    @cuda.jit
    def kernel(x):
        x[0] = f(x)

    with pytest.raises(cuda.CompileError, match="real numbers, bools and CPointers"):
        kernel[1, 1](np.zeros(2, np.float32))


class _JitInputType(enum.IntEnum):
    """The driver's CUjitInputType, which numba-cuda's LinkableCode classes take as kind."""
    CU_JIT_INPUT_CUBIN = 0
    CU_JIT_INPUT_PTX = 1


class _ForeignPTXSource:
    """numba-cuda's PTXSource, as far as its protocol goes: kind (a CUjitInputType), data,
    name, and the callbacks and NRT flag that cudajit does not support."""

    kind = _JitInputType.CU_JIT_INPUT_PTX

    def __init__(self, data, name=None, setup_callback=None, teardown_callback=None,
                 nrt=False):
        self.data, self.name = data, name or "<unnamed-ptx>"
        self.setup_callback, self.teardown_callback, self.nrt = (setup_callback,
                                                                 teardown_callback, nrt)


def test_link_takes_any_object_with_the_linkable_code_protocol(on_cuda):
    # numba-cuda's PTXSource (kind a CUjitInputType member) links as cuda.PTXSource does.
    add = cuda.declare_device("add_i32", "int32(int32, int32)", abi="c")

    @cuda.jit(link=[_ForeignPTXSource(ADD_I32_PTX, name="add_i32.ptx")])
    def kernel(r, x):
        i = cuda.grid(1)
        if i < len(r):
            r[i] = add(x[i], 5)

    x = np.arange(40, dtype=np.int32)
    r = np.empty_like(x)
    kernel[2, 32](r, x)
    np.testing.assert_array_equal(r, x + 5)


def test_linkable_code_kinds_of_numba_cuda_and_what_is_refused():
    assert linking.code_kind(_ForeignPTXSource("")) == "ptx"
    assert linking.code_kind(cuda.CUSource("")) == "cu"

    class Kind1:  # a kind given by the enum's value only
        kind, data, name = 1, "", "x"
    assert linking.code_kind(Kind1()) == "ptx"
    with pytest.raises(TypeError, match="objects with kind, data and name"):
        linking.link_items([object()])
    with pytest.raises(NotImplementedError, match="setup_callback"):
        linking.link_items([_ForeignPTXSource("", setup_callback=print)])
    with pytest.raises(NotImplementedError, match="NRT"):
        linking.link_items(_ForeignPTXSource("", nrt=True))
