"""CUDA's vector types in kernels (cuda.float32x4 and CUDA's C names such as float4), as
numba.cuda has them: made from numbers and smaller vectors of the same type, components
read as .x .y .z .w; checked on the cpu device and the cuda device."""

import numpy as np
import pytest

import cudajit as cuda
from conftest import kernel_from_body

pytestmark = pytest.mark.usefixtures("device")


def test_vectors_are_made_and_read_by_component():
    @cuda.jit
    def kernel(out, a):
        v = cuda.float64x4(1.0, a, 5, 7.5)
        s = cuda.short2(10, 11)
        f = cuda.float4(cuda.float2(1, 2), 3, cuda.float32x1(4.5))
        u = cuda.uchar3(250, 260, 3)  # converted to the base type, wrapping as in C
        out[0] = v.x + v.y + v.z + v.w
        out[1] = s.x * 100 + s.y
        out[2] = f.x + f.y * 10 + f.z * 100 + f.w * 1000
        out[3] = u.y

    out = np.zeros(4)
    kernel[1, 1](out, 3.0)
    np.testing.assert_array_equal(out, [16.5, 1011, 1 + 20 + 300 + 4500, 4])


def test_every_vector_type_has_numbas_names():
    assert cuda.float4 is cuda.float32x4 and cuda.double2 is cuda.float64x2
    assert cuda.uchar3.name == "uint8x3" and cuda.uchar3.num_elements == 3
    names = {v.name for v in cuda.vector_types.vector_types.values()}
    assert len(names) == 40 and "int8x1" in names and "uint64x4" in names
    with pytest.raises(TypeError, match=r"cuda.float32x4\(\) makes a vector inside kernels"):
        cuda.float32x4(1, 2, 3, 4)


@pytest.mark.parametrize("make, message", [
    ("cuda.float32x4(1, 2, 3)", r"cuda.float32x4\(\) needs 4 components; got 3"),
    ("cuda.float32x2(cuda.int32x2(1, 2))", r"takes numbers and vectors of float32; got int32x2"),
    ("cuda.float32x2(1j, 2)", r"takes numbers and vectors of float32; got complex128"),
])
def test_a_vector_of_the_wrong_parts_is_a_compile_error(make, message):
    kernel = kernel_from_body("out", f"v = {make}\nout[0] = v.x")
    with pytest.raises(cuda.CompileError, match=message):
        cuda.jit(kernel)[1, 1](np.zeros(1))
