"""Device functions (@jit(device=True)) called from kernels and from each
other, with scalar and array arguments and a scalar return."""

import math

import numpy as np
import pytest

import cudajit as cuda
from conftest import kernel_from_body, launch_1d

pytestmark = pytest.mark.usefixtures("device")


@cuda.jit(device=True)
def add(a, b):
    return a + b


@cuda.jit(device=True)
def square(x):
    return x * x


@cuda.jit(device=True)
def norm2(x, y):
    return math.sqrt(add(square(x), square(y)))


@cuda.jit(device=True)
def clamp(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


@cuda.jit(device=True)
def dot_row(m, i, v):
    acc = 0.0
    for j in range(v.size):
        acc += m[i, j] * v[j]
    return acc


@cuda.jit(device=True)
def fill_row(m, i, value):
    for j in range(m.shape[1]):
        m[i, j] = value


@cuda.jit(device=True)
def first_negative(a):
    for i in range(a.size):
        if a[i] < 0:
            return i
    return -1


def test_device_function_with_scalar_arguments_and_return():
    @cuda.jit
    def k(a, b, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = add(a[i], b[i])

    a = np.arange(10, dtype=np.float64)
    b = np.linspace(0, 1, 10)
    out = np.zeros(10)
    k[1, 16](a, b, out)
    np.testing.assert_array_equal(out, a + b)


def test_device_function_specializes_for_each_argument_type():
    @cuda.jit
    def k(ai, bi, af, bf, oi, of):
        i = cuda.grid(1)
        if i < oi.size:
            oi[i] = add(ai[i], bi[i])
            of[i] = add(af[i], bf[i])

    ai = np.array([2**31 - 1, -5], np.int32)
    af = np.array([0.5, 0.25], np.float32)
    oi = np.zeros(2, np.int64)
    of = np.zeros(2, np.float32)
    k[1, 2](ai, ai, af, af, oi, of)
    # int32 + int32 is int64 in the device function too
    np.testing.assert_array_equal(oi, [2**32 - 2, -10])
    np.testing.assert_array_equal(of, [1.0, 0.5])


def test_device_functions_call_each_other():
    @cuda.jit
    def k(x, y, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = norm2(x[i], y[i])

    x = np.array([3.0, 5.0, 0.0, -8.0])
    y = np.array([4.0, 12.0, 0.0, 15.0])
    out = np.zeros(4)
    k[1, 4](x, y, out)
    np.testing.assert_array_equal(out, [5.0, 13.0, 0.0, 17.0])


def test_device_function_with_several_returns():
    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = clamp(x[i], -1.0, 1.0)

    x = np.linspace(-3, 3, 13)
    out = np.zeros(13)
    k[1, 16](x, out)
    np.testing.assert_array_equal(out, np.clip(x, -1.0, 1.0))


def test_device_function_returns_merge_to_a_common_type():
    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = clamp(x[i], 0, 2.5)  # returns int64 or float64: float64

    x = np.array([-1, 1, 7], np.int64)
    out = np.zeros(3)
    k[1, 4](x, out)
    np.testing.assert_array_equal(out, [0.0, 1.0, 2.5])


def test_device_function_reads_an_array_argument():
    @cuda.jit
    def matvec(m, v, out):
        i = cuda.grid(1)
        if i < m.shape[0]:
            out[i] = dot_row(m, i, v)

    m = np.arange(12, dtype=np.float64).reshape(4, 3)
    v = np.array([1.0, -1.0, 0.5])
    out = np.zeros(4)
    matvec[1, 4](m, v, out)
    np.testing.assert_allclose(out, m @ v, rtol=1e-15)


def test_device_function_reads_a_strided_array_argument():
    @cuda.jit
    def matvec(m, v, out):
        i = cuda.grid(1)
        if i < m.shape[0]:
            out[i] = dot_row(m, i, v)

    m = np.arange(24, dtype=np.float64).reshape(4, 6)[:, ::2]
    v = np.arange(10, dtype=np.float64)[::-4]
    out = np.zeros(4)
    matvec[1, 4](m, v, out)
    np.testing.assert_allclose(out, m @ v, rtol=1e-15)


def test_device_function_writes_an_array_argument_and_returns_nothing():
    @cuda.jit
    def k(m):
        i = cuda.grid(1)
        if i < m.shape[0]:
            fill_row(m, i, i * 10)

    m = np.zeros((3, 4), np.int16)
    k[1, 4](m)
    np.testing.assert_array_equal(m, np.repeat(np.array([[0], [10], [20]], np.int16), 4, axis=1))


def test_return_from_inside_a_loop_of_a_device_function():
    @cuda.jit
    def k(a, out):
        out[0] = first_negative(a)

    out = np.zeros(1, np.int64)
    k[1, 1](np.array([3.0, 1.0, -2.0, -5.0]), out)
    assert out[0] == 2
    k[1, 1](np.array([3.0, 1.0]), out)
    assert out[0] == -1


def test_one_device_function_used_by_two_kernels():
    @cuda.jit
    def k1(x, out):
        out[0] = square(x)

    @cuda.jit
    def k2(x, out):
        out[0] = square(x) + 1

    out = np.zeros(1, np.int64)
    k1[1, 1](7, out)
    assert out[0] == 49
    k2[1, 1](7, out)
    assert out[0] == 50


def test_device_function_result_used_in_a_condition_and_an_index():
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size and square(a[i]) > 10:
            out[add(i, 0)] = square(a[i])

    a = np.array([1, 4, -5, 3], np.int64)
    out = np.zeros(4, np.int64)
    k[1, 4](a, out)
    np.testing.assert_array_equal(out, [0, 16, 25, 0])


@cuda.jit(device=True)
def level3(x):
    return x + 3


@cuda.jit(device=True)
def level2(x):
    return level3(x) * 2


@cuda.jit(device=True)
def level1(x):
    return level2(x) - 1


def test_chain_of_three_device_calls():
    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = level1(x[i])

    x = np.arange(5, dtype=np.int64)
    out = np.zeros(5, np.int64)
    k[1, 8](x, out)
    np.testing.assert_array_equal(out, (x + 3) * 2 - 1)


def test_device_function_defined_after_the_kernel_is_resolved_at_compile_time():
    out = np.zeros(1)
    uses_later[1, 1](2.0, out)
    assert out[0] == 4.5


@cuda.jit
def uses_later(x, out):
    out[0] = defined_later(x)


@cuda.jit(device=True)
def defined_later(x):
    return x * 2 + 0.5


def test_device_function_with_no_arguments():
    @cuda.jit(device=True)
    def answer():
        return 42

    @cuda.jit
    def k(out):
        out[0] = answer()

    out = np.zeros(1, np.int64)
    k[1, 1](out)
    assert out[0] == 42


def test_device_function_result_can_be_ignored():
    @cuda.jit
    def k(out):
        square(3)
        out[0] = 1

    out = np.zeros(1, np.int64)
    k[1, 1](out)
    assert out[0] == 1


def test_eager_device_function_casts_to_its_declared_types():
    @cuda.jit("float32(float32, float32)", device=True)
    def mul32(a, b):
        return a * b

    @cuda.jit
    def k(out):
        out[0] = mul32(0.1, 3.0)

    out = np.zeros(1)
    k[1, 1](out)
    assert out[0] == float(np.float32(np.float32(0.1) * np.float32(3.0)))


def test_device_function_return_type_from_compile_ptx():
    def f(a, b):
        return add(a, b) / 2

    _, result = cuda.compile_ptx(f, (cuda.int32, cuda.int32), device=True)
    assert result == cuda.float64


def test_device_function_calling_a_device_function_from_compile_ptx():
    _, result = cuda.compile_ptx(norm2.py_func, (cuda.float32, cuda.float32), device=True)
    assert result == cuda.float32


def test_device_function_with_many_arguments():
    @cuda.jit(device=True)
    def poly(x, c0, c1, c2, c3, c4, c5, c6, c7):
        return c0 + x * (c1 + x * (c2 + x * (c3 + x * (c4 + x * (c5 + x * (c6 + x * c7))))))

    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = poly(x[i], 1, 2, 3, 4, 5, 6, 7, 8)

    x = np.linspace(-1, 1, 9)
    out = np.zeros(9)
    launch_1d(k, 9, x, out)
    np.testing.assert_allclose(out, np.polyval(np.arange(8, 0, -1), x), rtol=1e-14)


# --- compile-time arguments: dtypes, functions and constants passed down ------------------


@cuda.jit(device=True)
def shared_histogram(values, out, dtype, bins, combine, cast):
    # dtype, bins, combine and cast are known when compiling (numba-cuda's atomics tests
    # pass them so): a shared array of `bins` items of `dtype`, updated with `combine`.
    t = cuda.threadIdx.x
    counts = cuda.shared.array(bins, dtype)
    if t < bins:
        counts[t] = 0
    cuda.syncthreads()
    combine(counts, cast(values[t] % bins), 1)
    cuda.syncthreads()
    if t < bins:
        out[t] = counts[t]


@cuda.jit(device=True)
def as_int(x):
    return int(x)


def test_dtypes_functions_and_shapes_pass_to_device_functions_as_numba_allows():
    @cuda.jit
    def histogram32(values, out):
        shared_histogram(values, out, np.uint32, 16, cuda.atomic.add, as_int)

    @cuda.jit
    def histogram64(values, out):
        shared_histogram(values, out, cuda.int64, 8, cuda.atomic.add, as_int)

    values = np.arange(64, dtype=np.int64) * 7
    out32 = np.zeros(16, np.uint32)
    histogram32[1, 64](values, out32)
    np.testing.assert_array_equal(out32, np.bincount(values % 16, minlength=16))
    out64 = np.zeros(8, np.int64)
    histogram64[1, 64](values, out64)
    np.testing.assert_array_equal(out64, np.bincount(values % 8, minlength=8))


def test_a_constant_argument_the_callee_assigns_stays_a_variable():
    @cuda.jit(device=True)
    def count_down(n):
        total = 0
        while n > 0:
            total += n
            n -= 1
        return total

    @cuda.jit
    def kernel(out):
        out[0] = count_down(10)

    out = np.zeros(1, np.int64)
    kernel[1, 1](out)
    assert out[0] == 55


TRACE = False


@cuda.jit(device=True)
def add_at(ary, wrap):
    i = (cuda.threadIdx.x, cuda.uint64(cuda.threadIdx.y))
    if wrap:  # a float index: a kernel compiles only where wrap is False prunes this
        i = (i[0] % ary.shape[0], i[1] / ary.shape[1])
    if TRACE:  # a global known False: strings, unsupported in kernels, are never compiled
        label = "pruned"  # noqa: F841
    cuda.atomic.add(ary, i, 1)


def test_a_branch_on_a_constant_is_pruned_as_in_numba():
    @cuda.jit
    def kernel(ary):
        add_at(ary, False)

    @cuda.jit
    def wrapping(ary):
        add_at(ary, True)

    ary = np.zeros((4, 8), np.uint32)
    kernel[1, (4, 8)](ary)
    np.testing.assert_array_equal(ary, np.ones((4, 8)))
    with pytest.raises(cuda.CompileError, match="integer index"):
        wrapping[1, (4, 8)](ary)  # compiled, the branch types as Numba types it


@cuda.jit(["float32(float32, float32)", "float64(float64, float64)"], device=True)
def add_declared(a, b):
    return a + b


@cuda.jit(["(float32, float64)", "(float64, float32)", "(int64, int64)"], device=True)
def add_ambiguous(a, b):
    return a + b


def test_several_signatures_pick_the_best_conversions_as_numba_does():
    @cuda.jit
    def kernel(out):
        out[0] = add_declared(np.float32(1.0), np.float32(2.0**-25))  # exact: float32
        out[1] = add_declared(1, 2.0**-25)  # int64 and float64: the float64 version
        out[2] = add_declared(np.int16(1), np.float32(2.0**-25))  # int16 -> float32 is safe
        out[3] = add_ambiguous(1.5, 2.5)  # two equal ranks: the first declared
        out[4] = add_ambiguous(3, 4)  # exact: int64

    out = np.zeros(5)
    kernel[1, 1](out)
    np.testing.assert_array_equal(out, [1.0, 1.0 + 2.0**-25, 1.0, 4.0, 7.0])


@cuda.jit(["int32(int32)", "float64(float64)"], device=True)
def keep_declared(x):
    return x


def test_kernel_signatures_and_device_overloads_rank_conversions_alike():
    # One table (Numba's typeconv rules) for both choices: int64 -> float64 is safe and
    # int64 -> int32 unsafe, so both pick float64 though int32 is declared first.
    @cuda.jit(["void(float64[::1], int32)", "void(float64[::1], float64)"])
    def kernel_declared(out, x):
        out[0] = x

    @cuda.jit
    def through_device(out, x):
        out[0] = keep_declared(x)

    big = 2**40 + 1  # an int64 that int32 cannot hold
    by_kernel, by_device = np.zeros(1), np.zeros(1)
    kernel_declared[1, 1](by_kernel, big)
    through_device[1, 1](by_device, big)
    assert by_kernel[0] == by_device[0] == big


def test_no_declared_signature_taking_the_arguments_is_a_compile_error():
    @cuda.jit
    def kernel(out):
        out[0] = add_declared(1j, 2j).real

    with pytest.raises(cuda.CompileError, match=r"no declared signature of this device "
                                                r"function takes \(complex128, complex128\)"):
        kernel[1, 1](np.zeros(1))


def test_a_kernel_called_from_a_kernel_is_a_device_function_as_in_numba():
    @cuda.jit
    def twice(x):
        return 2 * x

    @cuda.jit
    def caller(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = twice(i)

    out = np.zeros(40, np.int64)
    caller[2, 32](out)
    np.testing.assert_array_equal(out, 2 * np.arange(40))


lambda_add = cuda.jit(device=True)(lambda a, b: a + b)
lambda_twins = [cuda.jit(device=True)(lambda x: x + 1), cuda.jit(device=True)(lambda x: x + 2)]


def test_a_lambda_is_a_device_function_where_its_line_tells_which():
    @cuda.jit
    def kernel(x, out):
        out[0] = lambda_add(x[0], x[1])

    out = np.zeros(1)
    kernel[1, 1](np.array([1.5, 2.0]), out)
    assert out[0] == 3.5

    twin = lambda_twins[0]

    @cuda.jit
    def ambiguous(out):
        out[0] = twin(1.0)

    with pytest.raises(cuda.CompileError, match="2 lambdas with these parameters are on that "
                                                "line; define the function with def"):
        ambiguous[1, 1](np.zeros(1))


# --- recursion: a device function calling itself with the same argument types ----------------


@cuda.jit("int64(int64)", device=True)
def _fib_declared(n):
    if n < 2:
        return n
    return _fib_declared(n - 1) + _fib_declared(n - 2)


@cuda.jit(device=True)
def _fib_inferred(n):
    if n < 2:
        return n
    return _fib_inferred(n - 1) + _fib_inferred(n - 2)


def _fib(n):
    return n if n < 2 else _fib(n - 1) + _fib(n - 2)


def test_recursive_device_functions_with_and_without_a_signature():
    @cuda.jit
    def fibs(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = _fib_declared(i) * 1000 + _fib_inferred(i)

    out = np.zeros(16, np.int64)
    fibs[1, 16](out)
    np.testing.assert_array_equal(out, [_fib(i) * 1000 + _fib(i) for i in range(16)])


def test_recursion_over_constant_arguments_stops_specialising():
    # poly(3, 1) -> poly(2, 1.5) -> poly(0.5, 1.5): each call's arguments are constants,
    # which would specialise a new function at every level without a limit.
    @cuda.jit(device=True)
    def poly(x, y):
        if x > 1:
            return x + poly(x - y, 1.5)
        return y

    @cuda.jit
    def kernel(out):
        out[0] = poly(3, 1)

    out = np.zeros(1)
    kernel[1, 1](out)
    assert out[0] == 6.5


def test_runaway_recursion_is_a_compile_error_naming_the_function():
    @cuda.jit(device=True)
    def runaway(x):
        return runaway(x)

    def kernel(out):
        out[0] = runaway(1.0)

    with pytest.raises(cuda.CompileError, match="cannot type infer runaway recursion: "
                                                "cannot infer what device function 'runaway' "
                                                r"returns: every return of it calls itself"):
        cuda.jit(kernel)[1, 1](np.zeros(1))


def test_a_recursive_return_type_that_grows_is_a_compile_error_in_numbas_words():
    @cuda.jit(device=True)
    def make_list(n):
        if n <= 0:
            return None
        return (n, make_list(n - 1))  # (n, None), then (n, (n - 1, None)) ...

    def kernel():
        make_list(100)

    with pytest.raises(cuda.CompileError,
                       match=r"Return type of recursive function does not converge: function "
                             r"'make_list' returns none and Tuple\(int64, none\), which do not "
                             "unify"):
        cuda.jit("void()")(kernel)


def test_a_recursive_function_that_returns_nothing():
    @cuda.jit(device=True)
    def fill_from(a, i):
        if i < a.size:
            a[i] = i * 2
            fill_from(a, i + 1)

    @cuda.jit
    def kernel(a):
        fill_from(a, 0)

    a = np.zeros(20, np.int64)
    kernel[1, 1](a)
    np.testing.assert_array_equal(a, np.arange(20) * 2)



@cuda.jit(device=True)
def _apply(f, x):
    return f(x)


@cuda.jit(device=True)
def _call_with(f, *args):
    return f(*args) + len(args)


def test_functions_defined_in_a_kernel():
    # Python's closures: the enclosing variables' values at each call; passed on as a
    # function argument when they read none of them (a constant assigned once is a constant).
    @cuda.jit
    def kernel(a, out, scale):
        i = cuda.grid(1)
        offset = 10.0
        bias = 0.5

        def shifted(x):
            return x * scale + offset

        def double(x):
            return 2 * x + bias

        def twice(x):
            return double(double(x))

        if i < a.size:
            out[i, 0] = shifted(a[i])
            offset = 100.0
            out[i, 1] = shifted(a[i])
            out[i, 2] = _apply(double, a[i])
            out[i, 3] = twice(a[i])

    a = np.arange(4.0)
    out = np.zeros((4, 4))
    kernel[1, 4](a, out, 2.0)
    np.testing.assert_array_equal(out[:, 0], a * 2 + 10)
    np.testing.assert_array_equal(out[:, 1], a * 2 + 100)
    np.testing.assert_array_equal(out[:, 2], 2 * a + 0.5)
    np.testing.assert_array_equal(out[:, 3], 2 * (2 * a + 0.5) + 0.5)


def test_device_functions_take_star_args():
    @cuda.jit(device=True)
    def add3(x, y, z):
        return x + y + z

    @cuda.jit
    def kernel(out, v):
        out[0] = _call_with(add3, 1, v, 3)
        out[1] = _call_with(add3, *(v, v, v))

    out = np.zeros(2)
    kernel[1, 1](out, 2.5)
    np.testing.assert_array_equal(out, [1 + 2.5 + 3 + 3, 3 * 2.5 + 3])


def test_a_function_reading_kernel_variables_cannot_leave_it():
    def kernel(out, v):
        def plus_v(x):
            return x + v

        out[0] = _apply(plus_v, 1.0)

    with pytest.raises(cuda.CompileError, match=r"function 'plus_v' reads variables of the "
                                                r"function that defines it \(v\)"):
        cuda.jit(kernel)[1, 1](np.zeros(1), 1.0)


@cuda.jit(device=True)
def _lerp(a, b, t=0.5):
    return a + (b - a) * t


def test_keyword_arguments_and_defaults_of_device_functions():
    @cuda.jit
    def kernel(out, x):
        def inner(a, b=10, c=20):
            return a + b + c + x

        out[0] = _lerp(0.0, 10.0)
        out[1] = _lerp(0.0, 10.0, t=0.25)
        out[2] = _lerp(b=4.0, a=2.0)
        out[3] = inner(1) + inner(1, c=2)

    out = np.zeros(4)
    kernel[1, 1](out, 2.0)
    np.testing.assert_array_equal(out, [5.0, 2.5, 3.0, (1 + 10 + 20 + 2) + (1 + 10 + 2 + 2)])


@pytest.mark.parametrize("call, message", [
    ("_lerp(1.0, 2.0, s=1)", "device function '_lerp' got an unexpected keyword argument 's'"),
    ("_lerp(1.0, 2.0, a=1)", "got multiple values for argument 'a'"),
    ("_lerp(1.0, t=1)", "device function '_lerp' is missing argument 'b'"),
])
def test_bad_keyword_arguments_are_compile_errors(call, message):
    with pytest.raises(cuda.CompileError, match=message):
        cuda.jit(kernel_from_body("out", f"out[0] = {call}", _lerp=_lerp))[1, 1](np.zeros(1))


def test_lambdas_assigned_in_kernels_are_inner_functions():
    @cuda.jit
    def kernel(x, out):
        i = cuda.grid(1)
        scale = x[0]
        square = lambda v: v * v  # noqa: E731 - what the test is about
        line = lambda v, b=1.0: scale * v + b  # noqa: E731 - reads `scale`, as closures do
        if i < out.size:
            out[i] = square(x[i]) + line(x[i]) + line(2.0, b=0.0)

    x = np.arange(1.0, 9.0)
    out = np.zeros(8)
    kernel[1, 8](x, out)
    np.testing.assert_array_equal(out, x * x + x[0] * x + 1.0 + 2.0 * x[0])


def test_a_lambda_reading_the_kernels_variables_cannot_be_passed_on():
    @cuda.jit(device=True)
    def apply(f, v):
        return f(v)

    @cuda.jit
    def kernel(out):
        k = out[1]
        shift = lambda v: v + k  # noqa: E731
        out[0] = apply(shift, 1.0)

    with pytest.raises(cuda.CompileError, match=r"function 'shift' reads variables of the "
                                                r"function that defines it \(k\)"):
        kernel[1, 1](np.zeros(2))


class CPUDispatcher:
    """Stands in for numba.jit's dispatcher (numba is not a test dependency): what cudajit
    reads of one, its Python function and whether it compiles for other argument types."""

    __module__ = "numba.core.registry"

    def __init__(self, py_func, signature=None):
        self.py_func = py_func
        self._can_compile = signature is None

    def __call__(self, *args):
        return self.py_func(*args)


def _add(a, b):
    return a + b


def test_a_numba_jit_function_is_a_device_function_in_kernels():
    add = CPUDispatcher(_add)

    @cuda.jit
    def kernel(out):
        out[0] = add(out[1], 2.5)

    out = np.array([0.0, 1.0])
    kernel[1, 1](out)
    assert out[0] == 3.5


def test_a_numba_jit_function_with_a_signature_is_refused_as_numba_refuses_it():
    add = CPUDispatcher(_add, signature="(i4, i4)")

    @cuda.jit
    def kernel(out):
        out[0] = add(1, 2)

    with pytest.raises(cuda.CompileError, match=r"Untyped global name 'add': using cpu function "
                                                r"on device: 'add' is a numba.jit function with "
                                                r"an explicit signature, which kernels cannot "
                                                r"call"):
        kernel[1, 1](np.zeros(1))


def test_a_device_function_is_neither_called_nor_launched_from_the_host():
    @cuda.jit(device=True)
    def f():
        pass

    with pytest.raises(RuntimeError, match="Cannot compile a device function as a kernel: 'f' "
                                           r"was made with @cuda.jit\(device=True\)"):
        f[1, 1]()
    with pytest.raises(TypeError, match="device function 'f' can only be called from a kernel"):
        f()


@pytest.mark.parametrize("options, calls_left, always_inline", [
    ({"inline": "always"}, False, False),
    ({"inline": True}, False, False),
    ({"inline": "never"}, True, False),
    ({"forceinline": True}, True, True),
    ({}, True, False),
])
def test_numbas_inline_options_shape_the_kernels_llvm_ir(options, calls_left, always_inline):
    @cuda.jit(device=True, **options)
    def set_zero(a):
        a[0] = 0

    @cuda.jit("void(int32[::1])")
    def call_set_zero(a):
        set_zero(a)

    a = np.ones(2, np.int32)
    call_set_zero[1, 2](a)
    np.testing.assert_array_equal(a, [0, 1])
    llvm_ir = call_set_zero.inspect_llvm(call_set_zero.signatures[0])
    # inline="always": the call is replaced by the body before the optimiser runs;
    # forceinline=True: the function is marked alwaysinline and the call stays until then.
    assert ("call void @" in llvm_ir) == calls_left
    assert ("alwaysinline" in llvm_ir) == always_inline


def test_inline_always_reaches_through_a_chain_and_keeps_recursion_as_calls():
    @cuda.jit(device=True, inline="always")
    def twice(x):
        return 2 * x

    @cuda.jit(device=True, inline="always")
    def four_times(x):
        return twice(twice(x))

    @cuda.jit(device=True, inline="always")
    def factorial(n):
        return 1 if n <= 1 else n * factorial(n - 1)

    @cuda.jit("void(int64[::1])")
    def kernel(out):
        out[0] = four_times(out[0])
        out[1] = factorial(out[1])

    out = np.array([3, 5])
    kernel[1, 1](out)
    np.testing.assert_array_equal(out, [12, 120])
    llvm_ir = kernel.inspect_llvm(kernel.signatures[0])
    assert "twice" not in llvm_ir and "four_times" not in llvm_ir
    assert "call i64 @" in llvm_ir  # factorial calls itself: not inlined


def test_a_kernel_called_from_a_kernel_takes_its_inline_option_too():
    @cuda.jit(inline="always")
    def set_one(a):
        a[0] = 1

    @cuda.jit("void(int32[::1])")
    def caller(a):
        set_one(a)

    a = np.zeros(1, np.int32)
    caller[1, 1](a)
    assert a[0] == 1
    assert "call void @" not in caller.inspect_llvm(caller.signatures[0])
