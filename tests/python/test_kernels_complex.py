"""Complex numbers: complex64 and complex128 arithmetic, mixing with real
numbers, .real, .imag, .conjugate(), abs, complex(), and a Mandelbrot kernel."""

import numpy as np
import pytest

import cudajit as cuda
from conftest import launch_1d

pytestmark = pytest.mark.usefixtures("device")

N = 50


def complex_values(dtype, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-4, 4, N) + 1j * rng.uniform(-4, 4, N)).astype(dtype)


@cuda.jit
def k_complex_ops(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] + b[i]
        out[i, 1] = a[i] - b[i]
        out[i, 2] = a[i] * b[i]
        out[i, 3] = a[i] / b[i]
        out[i, 4] = -a[i]
        out[i, 5] = a[i] * a[i] * a[i]


@pytest.mark.parametrize(
    "dtype, rtol", [(np.complex128, 1e-14), (np.complex64, 1e-5)], ids=["complex128", "complex64"]
)
def test_complex_arithmetic_matches_numpy(dtype, rtol):
    a = complex_values(dtype, 1)
    b = complex_values(dtype, 2)
    out = np.zeros((N, 6), dtype)
    launch_1d(k_complex_ops, N, a, b, out)
    expected = np.stack([a + b, a - b, a * b, a / b, -a, a * a * a], axis=1)
    np.testing.assert_allclose(out, expected, rtol=rtol)


@pytest.mark.parametrize(
    "b, out_dtype",
    [
        (np.linspace(-2, 2, N), np.complex128),
        (np.linspace(-2, 2, N).astype(np.float32), np.complex64),
        (np.arange(N, dtype=np.int32) - 25, np.complex128),
    ],
    ids=["complex64-with-float64", "complex64-with-float32", "complex64-with-int32"],
)
def test_complex_mixed_with_real_numbers(b, out_dtype):
    a = complex_values(np.complex64, 3)
    out = np.zeros((N, 6), out_dtype)
    launch_1d(k_complex_ops, N, a, b + (b == 0), out)
    bb = (b + (b == 0)).astype(out_dtype)
    aa = a.astype(out_dtype)
    expected = np.stack([aa + bb, aa - bb, aa * bb, aa / bb, -aa, aa * aa * aa], axis=1)
    np.testing.assert_allclose(out, expected, rtol=1e-5)


def test_division_by_a_complex_with_huge_parts_does_not_overflow():
    a = np.full(N, 1e300 + 1e300j)
    b = np.full(N, 2e300 + 2e300j)
    out = np.zeros((N, 6), np.complex128)
    launch_1d(k_complex_ops, N, a, b, out)
    np.testing.assert_allclose(out[0, 3], 0.5 + 0j, rtol=1e-15)


@cuda.jit
def k_parts(z, re, im, conj):
    i = cuda.grid(1)
    if i < z.size:
        re[i] = z[i].real
        im[i] = z[i].imag
        conj[i] = z[i].conjugate()


@pytest.mark.parametrize(
    "dtype, part_dtype",
    [(np.complex64, np.float32), (np.complex128, np.float64)],
    ids=["complex64", "complex128"],
)
def test_real_imag_and_conjugate_of_complex(dtype, part_dtype):
    z = complex_values(dtype, 4)
    re = np.zeros(N, part_dtype)
    im = np.zeros(N, part_dtype)
    conj = np.zeros(N, dtype)
    launch_1d(k_parts, N, z, re, im, conj)
    np.testing.assert_array_equal(re, z.real)
    np.testing.assert_array_equal(im, z.imag)
    np.testing.assert_array_equal(conj, z.conjugate())


@pytest.mark.parametrize(
    "values",
    [np.array([1.5, -2.0, 0.0]), np.array([3, -4, 0], np.int32), np.array([0.25], np.float32)],
    ids=["float64", "int32", "float32"],
)
def test_real_imag_and_conjugate_of_real_numbers(values):
    re = np.zeros(values.size)
    im = np.full(values.size, 99.0)
    conj = np.zeros(values.size)
    launch_1d(k_parts, values.size, values, re, im, conj)
    np.testing.assert_array_equal(re, values)
    np.testing.assert_array_equal(im, 0.0)
    np.testing.assert_array_equal(conj, values)


def test_abs_of_complex_is_its_modulus():
    @cuda.jit
    def modulus(z, out):
        i = cuda.grid(1)
        if i < z.size:
            out[i] = abs(z[i])

    z = np.array([3 + 4j, -5 - 12j, 0j, 1j, -1.5 + 0j])
    out = np.zeros(z.size)
    modulus[1, 8](z, out)
    np.testing.assert_allclose(out, np.abs(z), rtol=1e-15)


def test_complex_scalar_arguments():
    @cuda.jit
    def axpy(a, x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = a * x[i] + 1j

    x = complex_values(np.complex128, 5)
    out = np.zeros(N, np.complex128)
    launch_1d(axpy, N, 2 - 0.5j, x, out)
    np.testing.assert_allclose(out, (2 - 0.5j) * x + 1j, rtol=1e-14)
    out64 = np.zeros(N, np.complex64)
    launch_1d(axpy, N, np.complex64(2 - 0.5j), x.astype(np.complex64), out64)
    np.testing.assert_allclose(out64, (2 - 0.5j) * x + 1j, rtol=1e-5)


def test_complex_equality():
    @cuda.jit
    def equal(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i, 0] = a[i] == b[i]
            out[i, 1] = a[i] != b[i]

    a = np.array([1 + 2j, 1 + 2j, 0j, 3 + 0j])
    b = np.array([1 + 2j, 1 - 2j, -0.0 + 0j, 3.0 + 0j])
    out = np.zeros((4, 2), np.bool_)
    equal[1, 4](a, b, out)
    np.testing.assert_array_equal(out, np.stack([a == b, a != b], axis=1))


def test_complex_power_with_an_integer_exponent():
    @cuda.jit
    def powers(z, out):
        i = cuda.grid(1)
        if i < z.size:
            out[i, 0] = z[i] ** 2
            out[i, 1] = z[i] ** 3
            out[i, 2] = z[i] ** 0

    z = np.array([1 + 1j, -2 + 0.5j, 1j])
    out = np.zeros((3, 3), np.complex128)
    powers[1, 4](z, out)
    np.testing.assert_allclose(out, np.stack([z**2, z**3, z**0], axis=1), rtol=1e-14)


def test_augmented_assignment_on_complex_values():
    @cuda.jit
    def rotate(z, steps):
        i = cuda.grid(1)
        if i < z.size:
            for _ in range(steps):
                z[i] *= 1j
            z[i] += 1
            z[i] -= 1j
            z[i] /= 2

    z = np.array([1 + 0j, 2 + 3j])
    rotate[1, 2](z, 3)
    np.testing.assert_allclose(z, ((np.array([1 + 0j, 2 + 3j]) * (1j**3)) + 1 - 1j) / 2, rtol=1e-15)


# --- Mandelbrot ---------------------------------------------------------------


@cuda.jit
def mandelbrot(xmin, xmax, ymin, ymax, max_iter, counts):
    col, row = cuda.grid(2)
    height, width = counts.shape
    if row < height and col < width:
        c = complex(xmin + (xmax - xmin) * col / width, ymin + (ymax - ymin) * row / height)
        z = 0j
        n = 0
        while n < max_iter and abs(z) <= 2.0:
            z = z * z + c
            n += 1
        counts[row, col] = n


def mandelbrot_numpy(xmin, xmax, ymin, ymax, max_iter, height, width):
    cols = np.arange(width)
    rows = np.arange(height)
    c = (xmin + (xmax - xmin) * cols / width)[None, :] + 1j * (
        ymin + (ymax - ymin) * rows / height
    )[:, None]
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, np.int32)
    active = np.ones(c.shape, bool)
    for _ in range(max_iter):
        active &= np.abs(z) <= 2.0
        z[active] = z[active] * z[active] + c[active]
        counts[active] += 1
    return counts


def test_mandelbrot_iteration_counts_match_numpy():
    height, width, max_iter = 24, 40, 50
    counts = np.zeros((height, width), np.int32)
    block = (8, 8)
    mandelbrot[(-(-width // 8), -(-height // 8)), block](-2.0, 1.0, -1.25, 1.25, max_iter, counts)
    expected = mandelbrot_numpy(-2.0, 1.0, -1.25, 1.25, max_iter, height, width)
    mismatches = np.count_nonzero(counts != expected)
    # points on the boundary may differ by an iteration if a contraction (fma) rounds differently
    assert mismatches <= 2, f"{mismatches} of {counts.size} points differ"
    assert counts.max() == max_iter and counts.min() >= 1


# --- result types ---------------------------------------------------------------


def f_mul(a, b):
    return a * b


def f_abs(a):
    return abs(a)


def f_real(a):
    return a.real


def f_conjugate(a):
    return a.conjugate()


def f_complex(a, b):
    return complex(a, b)


COMPLEX_TYPES = [
    (f_mul, (cuda.complex64, cuda.complex64), cuda.complex64),
    (f_mul, (cuda.complex64, cuda.float32), cuda.complex64),
    (f_mul, (cuda.complex64, cuda.float64), cuda.complex128),
    (f_mul, (cuda.complex64, cuda.complex128), cuda.complex128),
    (f_mul, (cuda.complex128, cuda.int64), cuda.complex128),
    (f_abs, (cuda.complex64,), cuda.float32),
    (f_abs, (cuda.complex128,), cuda.float64),
    (f_real, (cuda.complex64,), cuda.float32),
    (f_real, (cuda.float64,), cuda.float64),
    (f_conjugate, (cuda.complex64,), cuda.complex64),
    (f_complex, (cuda.float32, cuda.float32), cuda.complex64),
    (f_complex, (cuda.float64, cuda.float64), cuda.complex128),
    (f_complex, (cuda.int32, cuda.int32), cuda.complex128),
]


@pytest.mark.parametrize(
    "func, args, expected",
    COMPLEX_TYPES,
    ids=[f"{f.__name__[2:]}({','.join(map(str, a))})" for f, a, _ in COMPLEX_TYPES],
)
def test_complex_result_type(func, args, expected):
    assert cuda.compile_ptx(func, args, device=True)[1] == expected


def test_a_complex_arrays_real_and_imag_are_writable_views():
    @cuda.jit
    def parts(values, out):
        i = cuda.grid(1)
        cuda.atomic.add(values.real, i, 1)
        cuda.atomic.add(values.imag, i, 2)
        values.imag[i] += 0.5
        out[i] = values.real[i] * 10 + values.real.shape[0]

    values = (np.arange(8) + np.arange(8) * 1j).astype(np.complex64)
    expected = values + 1 + 2.5j
    out = np.zeros(8)
    parts[1, 8](values, out)
    np.testing.assert_array_equal(values, expected)
    np.testing.assert_array_equal(out, expected.real * 10 + 8)


def test_the_parts_of_a_2d_complex_array_keep_its_strides():
    @cuda.jit
    def difference(v, out):
        i, j = cuda.grid(2)
        if i < v.shape[0] and j < v.shape[1]:
            out[i, j] = v.imag[i, j] - 2 * v.real[i, j]

    v = np.asfortranarray(np.arange(6).reshape(2, 3) * (1 + 3j))
    out = np.zeros((2, 3))
    difference[1, (2, 3)](v, out)
    np.testing.assert_array_equal(out, v.imag - 2 * v.real)


def test_the_imaginary_part_of_a_real_array_is_a_compile_error():
    def kernel(x):
        x.imag[0] = 1.0

    with pytest.raises(cuda.CompileError, match=r"'.imag' of array\(float64, 1d, C\) is not "
                                                r"supported in a kernel"):
        cuda.jit(kernel)[1, 1](np.zeros(2))
