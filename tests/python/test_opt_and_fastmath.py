"""opt=False and fastmath=True as numba-cuda has them: unoptimised PTX keeps variables in
local memory and contracts no a*b+c into an fma; fastmath's tanhf is tanh.approx.f32 from
sm_75, and fastmath's float32 division is unchecked in debug mode (no ZeroDivisionError).
Results checked against NumPy on the cpu device and the cuda device."""

import math

import numpy as np
import pytest

import cudajit as cuda
from cudajit import float32, float64, int32, void

pytestmark = pytest.mark.filterwarnings("ignore::cudajit.PerformanceWarning",
                                        "ignore::cudajit.errors.InvalidConfigWarning")


def store_one(x):
    x[0] = 1


def multiply_add(x, y, z):
    return x * y + z


def test_opt_false_keeps_variables_in_local_memory():
    sig = (float64[::1],)
    unoptimised = cuda.jit(sig, opt=False)(store_one).inspect_asm(sig)
    optimised = cuda.jit(sig)(store_one).inspect_asm(sig)
    assert "__local_depot0" in unoptimised
    assert "__local_depot" not in optimised


def test_opt_false_contracts_no_multiply_add():
    sig = (float64, float64, float64)
    unoptimised = cuda.jit(sig, device=True, opt=False)(multiply_add).inspect_asm(sig)
    optimised = cuda.jit(sig, device=True)(multiply_add).inspect_asm(sig)
    assert "fma.rn.f64" in optimised
    assert "fma.rn.f64" not in unoptimised
    assert "mul.rn.f64" in unoptimised and "add.rn.f64" in unoptimised


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("opt", [False, True])
def test_unoptimised_kernels_compute_what_optimised_ones_do(opt):
    @cuda.jit(opt=opt)
    def polynomial(x, out):
        i = cuda.grid(1)
        if i < out.size:
            acc = 0.0
            power = 1.0
            for k in range(4):
                acc = acc + (k + 1) * power
                power = power * x[i]
            out[i] = acc

    x = np.linspace(-2, 2, 50)
    out = np.zeros_like(x)
    polynomial[2, 32](x, out)
    np.testing.assert_allclose(out, 1 + 2 * x + 3 * x**2 + 4 * x**3, rtol=1e-14)


@pytest.mark.usefixtures("device")
def test_unoptimised_variables_across_barriers():
    @cuda.jit(opt=False)
    def reverse_doubled(x, out):
        s = cuda.shared.array(64, np.float64)
        t = cuda.threadIdx.x
        v = x[t] * 2.0
        s[t] = v
        cuda.syncthreads()
        w = s[63 - t]
        for k in range(2):
            w = w + k
        cuda.syncthreads()
        out[t] = w

    x = np.arange(64.0)
    out = np.zeros(64)
    reverse_doubled[1, 64](x, out)
    np.testing.assert_array_equal(out, (2 * x)[::-1] + 1)


def tanh_kernel(r, x):
    r[0] = math.tanh(x)


TANH_SIG = (float32[::1], float32)


def test_fastmath_tanhf_is_the_approximate_instruction_from_sm_75():
    fast, _ = cuda.compile_ptx(tanh_kernel, TANH_SIG, fastmath=True, cc=(7, 5))
    precise, _ = cuda.compile_ptx(tanh_kernel, TANH_SIG, cc=(7, 5))
    assert "tanh.approx.f32 " in fast
    assert "tanh.approx.f32" not in precise
    before_sm75, _ = cuda.compile_ptx(tanh_kernel, TANH_SIG, fastmath=True, cc=(7, 0))
    assert "tanh.approx.f32" not in before_sm75  # no such instruction: libdevice's tanhf
    float64_tanh, _ = cuda.compile_ptx(tanh_kernel, (float64[::1], float64), fastmath=True,
                                       cc=(8, 0))
    assert "tanh.approx" not in float64_tanh


@pytest.mark.usefixtures("device")
def test_fastmath_tanhf_is_close_to_numpys():
    @cuda.jit(fastmath=True)
    def tanhs(x, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = math.tanh(x[i])

    x = np.linspace(-6, 6, 97).astype(np.float32)
    out = np.zeros_like(x)
    tanhs[4, 32](x, out)
    # tanh.approx.f32's largest relative error is about 2**-10.99
    np.testing.assert_allclose(out, np.tanh(x), rtol=2**-10, atol=1e-6)


def divide(r, x, y):
    r[0] = x / y


@pytest.mark.usefixtures("device")
def test_fastmath_float32_division_does_not_check_the_divisor_in_debug_mode():
    r = np.zeros(1, np.float32)
    fast = cuda.jit((float32[::1], float32, float32), fastmath=True, debug=True,
                    opt=False)(divide)
    fast[1, 1](r, 10.0, 0.0)
    assert r[0] == np.inf
    precise = cuda.jit((float32[::1], float32, float32), debug=True, opt=False)(divide)
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        precise[1, 1](r, 10.0, 0.0)


def floor_divide(r, x, y):
    r[0] = x // y


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("pyfunc, sig, dtype",
                         [(divide, (float64[::1], float64, float64), np.float64),
                          (floor_divide, (int32[::1], int32, int32), np.int32)],
                         ids=["float64", "int32"])
def test_fastmath_other_divisions_still_raise_in_debug_mode(pyfunc, sig, dtype):
    kernel = cuda.jit(sig, fastmath=True, debug=True, opt=False)(pyfunc)
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        kernel[1, 1](np.zeros(1, dtype), 1, 0)
