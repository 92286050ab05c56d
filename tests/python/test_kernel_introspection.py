"""What numba.cuda's kernels and device functions tell about themselves: an overload's
variable types (_type_annotation.typemap) and whether it is cooperative, the resource
getters of a specialized kernel (an int, not a dict), a device function's compile_device and
inspect_sass, and NVRTC's warnings about linked CUDA C++."""

import warnings

import numpy as np
import pytest

import cudajit as cuda
from cudajit import float64, int32, nvrtc, void

pytestmark = pytest.mark.filterwarnings("ignore::cudajit.PerformanceWarning")


def test_an_overloads_type_annotation_maps_its_variables_to_their_types(device):
    @cuda.jit(void(int32[::1]))
    def f(x):
        l = cuda.local.array(10, dtype=np.int32)  # noqa: E741
        l[0] = x[0]
        y = l[0] * 2.5
        x[0] = y

    typemap = next(iter(f.overloads.values()))._type_annotation.typemap
    assert typemap["l"].dtype == int32 and typemap["l"].ndim == 1
    assert typemap["x"] == int32[::1]
    assert typemap["y"] == float64


def test_only_a_kernel_that_syncs_its_grid_is_cooperative(device):
    @cuda.jit
    def plain(a):
        a[0] = 1.0

    @cuda.jit
    def syncing(a):
        cuda.cg.this_grid().sync()
        a[0] = 1.0

    a = np.zeros(1)
    plain[1, 1](a)
    syncing[1, 1](a)
    assert [o.cooperative for o in plain.overloads.values()] == [False]
    assert [o.cooperative for o in syncing.overloads.values()] == [True]


def test_a_specialized_kernel_reports_its_resources_as_numbers(device):
    @cuda.jit("void(float64[::1])")
    def eager(a):
        a[0] = 1.0

    @cuda.jit
    def lazy(a):
        a[0] = 1.0

    assert isinstance(eager.get_max_threads_per_block(), int)
    assert eager.get_shared_mem_per_block() == 0
    assert isinstance(eager.get_regs_per_thread(), int)
    assert isinstance(eager.get_const_mem_size(), int)
    specialized = lazy.specialize(np.zeros(2))
    assert isinstance(specialized.get_local_mem_per_thread(), int)
    lazy[1, 1](np.zeros(2))
    resources = lazy.get_max_threads_per_block()
    assert isinstance(resources, dict) and list(resources) == [("array(float64, 1d, C)",)]


def test_compile_device_names_the_func_that_inspect_asm_shows():
    @cuda.jit(device=True)
    def foo(x, y):
        return x + y

    result = foo.compile_device((int32, int32))
    assert "foo" in result.fndesc.mangled_name
    assert result.fndesc.mangled_name in foo.inspect_asm((int32, int32))


def test_a_device_function_has_no_sass_of_its_own():
    @cuda.jit(device=True)
    def foo(x, y):
        return x + y

    with pytest.raises(RuntimeError, match="Cannot inspect SASS of a device function"):
        foo.inspect_sass((int32, int32))


@pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC not found")
def test_nvrtc_warnings_about_linked_cuda_cpp_are_reported():
    source = ('extern "C" __device__ int unused_warns(int x) {\n'
              '  int never_used;\n  return x;\n}\n')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nvrtc.compile_to_ptx(source, "warns.cu", 80)
    messages = [str(w.message) for w in caught if "NVRTC log messages" in str(w.message)]
    assert len(messages) == 1 and "declared but never referenced" in messages[0]
