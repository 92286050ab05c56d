"""cuda.atomic.*: every operation on every dtype Numba allows, on global and
shared arrays of any ndim, under contention (thousands of threads on one
address), returning the old value; Numba's NaN rules for float max/min and
CUDA's wrap-around for inc/dec. On every device."""

import numpy as np
import pytest

import cudajit as cuda
from cudajit.errors import CompileError

from conftest import module_from_source

pytestmark = pytest.mark.usefixtures("device")

ARITHMETIC_DTYPES = [np.int32, np.uint32, np.int64, np.uint64, np.float32, np.float64]
INTEGER_DTYPES = [np.int32, np.uint32, np.int64, np.uint64]
N = 4096


def ids(dtype):
    return np.dtype(dtype).name


@pytest.mark.parametrize("dtype", ARITHMETIC_DTYPES, ids=ids)
def test_add_from_thousands_of_threads_hands_out_each_old_value_once(dtype):
    @cuda.jit
    def tickets(counter, old):
        i = cuda.grid(1)
        old[i] = cuda.atomic.add(counter, 0, 1)

    counter = np.zeros(1, dtype)
    old = np.zeros(N, dtype)
    tickets[N // 128, 128](counter, old)
    assert counter[0] == N
    np.testing.assert_array_equal(np.sort(old), np.arange(N, dtype=dtype))


@pytest.mark.parametrize("dtype", ARITHMETIC_DTYPES, ids=ids)
def test_sub_max_min_under_contention(dtype):
    @cuda.jit
    def combine(values, out):
        i = cuda.grid(1)
        cuda.atomic.sub(out, 0, 1)
        cuda.atomic.max(out, 1, values[i])
        cuda.atomic.min(out, 2, values[i])

    rng = np.random.default_rng(5)
    values = rng.integers(0, 1000, N).astype(dtype)
    out = np.array([N + 7, 0, 5000], dtype)
    combine[N // 256, 256](values, out)
    np.testing.assert_array_equal(out, np.array([7, values.max(), values.min()], dtype))


@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=ids)
def test_signed_max_min_compare_as_signed(dtype):
    @cuda.jit
    def extremes(values, out):
        i = cuda.grid(1)
        cuda.atomic.max(out, 0, values[i])
        cuda.atomic.min(out, 1, values[i])
        cuda.atomic.nanmax(out, 2, values[i])  # integers have no NaN: max and min, as Numba
        cuda.atomic.nanmin(out, 3, values[i])

    values = np.arange(-64, 64, dtype=dtype)
    out = np.array([-1000, 1000, -1000, 1000], dtype)
    extremes[2, 64](values, out)
    np.testing.assert_array_equal(out, [63, -64, 63, -64])


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=ids)
def test_float_max_min_ignore_nan_operands_and_keep_a_stored_nan(dtype):
    @cuda.jit
    def apply(out, old, value):
        old[0] = cuda.atomic.max(out, 0, value[0])
        old[1] = cuda.atomic.min(out, 1, value[0])
        old[2] = cuda.atomic.nanmax(out, 2, value[0])
        old[3] = cuda.atomic.nanmin(out, 3, value[0])

    def run(stored, value):
        out = np.full(4, stored, dtype)
        old = np.zeros(4, dtype)
        apply[1, 1](out, old, np.array([value], dtype))
        np.testing.assert_array_equal(old, np.full(4, stored, dtype))
        return out

    nan = np.nan
    # A NaN operand: nothing changes, with or without nan-.
    np.testing.assert_array_equal(run(1.5, nan), [1.5, 1.5, 1.5, 1.5])
    # A stored NaN: max/min keep it, nanmax/nanmin replace it.
    np.testing.assert_array_equal(run(nan, 2.0), [nan, nan, 2.0, 2.0])
    np.testing.assert_array_equal(run(1.0, 2.0), [2.0, 1.0, 2.0, 1.0])
    np.testing.assert_array_equal(run(-np.inf, 3.0), [3.0, -np.inf, 3.0, -np.inf])


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=ids)
def test_bitwise_and_exchange(dtype):
    bits = np.dtype(dtype).itemsize * 8

    @cuda.jit
    def bitwise(out, old):
        i = cuda.grid(1)
        cuda.atomic.or_(out, 0, 1 << (i % bits))
        cuda.atomic.and_(out, 1, ~(1 << (i % bits)))
        cuda.atomic.xor(out, 2, 1 << (i % 3))
        old[i] = cuda.atomic.exch(out, 3, i)

    n = 4 * bits
    out = np.zeros(4, dtype)
    out[1] = np.iinfo(dtype).max if np.dtype(dtype).kind == "u" else -1
    old = np.zeros(n, dtype)
    bitwise[4, bits](out, old)
    assert int(out[0]) & ((1 << bits) - 1) == (1 << bits) - 1
    assert out[1] == 0
    assert out[2] == np.bitwise_xor.reduce(np.array([1 << (i % 3) for i in range(n)], dtype))
    # exch: every value but one came back as an old value, the last one is stored.
    seen = sorted([int(v) for v in old] + [int(out[3])])
    assert seen == sorted([0] + list(range(n)))


def reference_inc(old, bound):
    return 0 if old >= bound else old + 1


def reference_dec(old, bound):
    return bound if old == 0 or old > bound else old - 1


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64], ids=ids)
def test_inc_and_dec_wrap_as_cuda_does(dtype):
    @cuda.jit
    def step(out, old, bounds):
        for k in range(bounds.size):
            old[k, 0] = cuda.atomic.inc(out, (k, 0), bounds[k])
            old[k, 1] = cuda.atomic.dec(out, (k, 1), bounds[k])

    starts = np.array([0, 3, 5, 9, 0, 2], dtype)
    bounds = np.array([5, 5, 5, 5, 0, 1], dtype)
    out = np.stack([starts, starts], axis=1).astype(dtype)
    old = np.zeros_like(out)
    step[1, 1](out, old, bounds)
    np.testing.assert_array_equal(old[:, 0], starts)
    np.testing.assert_array_equal(old[:, 1], starts)
    np.testing.assert_array_equal(
        out[:, 0], [reference_inc(int(s), int(b)) for s, b in zip(starts, bounds)])
    np.testing.assert_array_equal(
        out[:, 1], [reference_dec(int(s), int(b)) for s, b in zip(starts, bounds)])


def test_inc_is_a_ring_counter_under_contention():
    @cuda.jit
    def ring(counter):
        cuda.atomic.inc(counter, 0, 9)

    counter = np.zeros(1, np.uint32)
    ring[N // 128, 128](counter)
    assert counter[0] == N % 10


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=ids)
def test_cas_loops_build_a_correct_counter(dtype):
    @cuda.jit
    def increment_by_cas(counter, old_seen):
        i = cuda.grid(1)
        while True:
            current = counter[0]
            if cuda.atomic.cas(counter, 0, current, current + 1) == current:
                old_seen[i] = current
                break

    counter = np.zeros(1, dtype)
    old_seen = np.zeros(N, dtype)
    increment_by_cas[N // 128, 128](counter, old_seen)
    assert counter[0] == N
    np.testing.assert_array_equal(np.sort(old_seen), np.arange(N, dtype=dtype))


def test_compare_and_swap_works_on_element_0_and_returns_the_old_value():
    @cuda.jit
    def claim(flag, winner):
        i = cuda.grid(1)
        if cuda.atomic.compare_and_swap(flag, 0, i + 1) == 0:
            winner[0] = i

    flag = np.zeros(3, np.int32)
    winner = np.full(1, -1, np.int32)
    claim[8, 64](flag, winner)
    assert flag[0] == winner[0] + 1
    assert 0 <= winner[0] < 512
    np.testing.assert_array_equal(flag[1:], [0, 0])


def test_atomics_on_2d_and_3d_arrays_with_tuple_indices():
    @cuda.jit
    def histogram2d(xs, ys, bins, cube):
        i = cuda.grid(1)
        if i < xs.size:
            cuda.atomic.add(bins, (xs[i], ys[i]), 1)
            index = (xs[i] % 2, ys[i] % 2, 1)
            cuda.atomic.add(cube, index, 1.0)

    rng = np.random.default_rng(2)
    xs = rng.integers(0, 8, 3000)
    ys = rng.integers(0, 4, 3000)
    bins = np.zeros((8, 4), np.int32)
    cube = np.zeros((2, 2, 2), np.float64)
    histogram2d[24, 128](xs, ys, bins, cube)
    expected = np.zeros((8, 4), np.int32)
    np.add.at(expected, (xs, ys), 1)
    np.testing.assert_array_equal(bins, expected)
    expected_cube = np.zeros((2, 2, 2))
    np.add.at(expected_cube, (xs % 2, ys % 2, 1), 1)
    np.testing.assert_array_equal(cube, expected_cube)


def test_histogram_in_shared_memory_then_global():
    @cuda.jit
    def histogram(data, bins):
        local = cuda.shared.array(16, np.uint32)
        t = cuda.threadIdx.x
        if t < 16:
            local[t] = 0
        cuda.syncthreads()
        i = cuda.grid(1)
        if i < data.size:
            cuda.atomic.add(local, data[i], 1)
        cuda.syncthreads()
        if t < 16:
            cuda.atomic.add(bins, t, local[t])

    data = np.random.default_rng(4).integers(0, 16, 10000).astype(np.int32)
    bins = np.zeros(16, np.uint32)
    histogram[(data.size + 255) // 256, 256](data, bins)
    np.testing.assert_array_equal(bins, np.bincount(data, minlength=16))


def test_atomic_operand_is_converted_to_the_array_dtype():
    @cuda.jit
    def mixed(out):
        cuda.atomic.add(out, 0, 2.75)  # float into int: truncated, as Numba casts
        cuda.atomic.add(out, 1, True)
        cuda.atomic.max(out, 2, np.int8(-3))

    out = np.array([1, 1, -10], np.int64)
    mixed[1, 1](out)
    np.testing.assert_array_equal(out, [3, 2, -3])


def test_negative_indices_wrap_and_out_of_bounds_is_checked_on_cpu(device):
    @cuda.jit
    def at_end(out):
        cuda.atomic.add(out, -1, 5)

    out = np.zeros(4, np.int32)
    at_end[1, 1](out)
    np.testing.assert_array_equal(out, [0, 0, 0, 5])
    if device != "cpu":
        return  # PTX is not bounds-checked (as Numba's)

    @cuda.jit
    def past_end(out):
        cuda.atomic.add(out, 4, 5)

    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 0 with size 4"):
        past_end[1, 1](out)
        cuda.synchronize()
    np.testing.assert_array_equal(out, [0, 0, 0, 5])


@pytest.mark.parametrize("body, arrays, message", [
    ("cuda.atomic.and_(a, 0, 1)", [np.zeros(2, np.float32)],
     "cuda.atomic.and_() works on arrays of int32, uint32, int64 or uint64, got "
     "array(float32, 1d, C)"),
    ("cuda.atomic.inc(a, 0, 1)", [np.zeros(2, np.int32)],
     "cuda.atomic.inc() works on arrays of uint32 or uint64, got array(int32, 1d, C)"),
    ("cuda.atomic.add(a, 0, 1)", [np.zeros(2, np.int16)],
     "works on arrays of int32, uint32, int64, uint64, float16, float32 or float64, got "
     "array(int16, 1d, C)"),
    ("cuda.atomic.add(a, 0, 1)", [np.zeros((2, 2), np.int32)],
     "cuda.atomic.add() needs 2 indices for array(int32, 2d, C), got 1"),
    ("cuda.atomic.add(a, 0.5, 1)", [np.zeros(2, np.int32)],
     "needs an integer index or a tuple of them, got float64"),
    ("cuda.atomic.add(a, 0)", [np.zeros(2, np.int32)],
     "cuda.atomic.add() takes 3 arguments, got 2"),
    ("cuda.atomic.cas(a, 0, 1)", [np.zeros(2, np.int32)],
     "cuda.atomic.cas() takes 4 arguments, got 3"),
    ("cuda.atomic.compare_and_swap(a, 0, 1)", [np.zeros((2, 2), np.int32)],
     "needs a 1-D array (it works on element 0)"),
    ("cuda.atomic.add(1, 0, 1)", [np.zeros(2, np.int32)],
     "cuda.atomic.add() needs an array as its first argument, got int64"),
    ("cuda.atomic.add(a, 0, 1j)", [np.zeros(2, np.int32)],
     "needs a real number to combine, got complex128"),
])
def test_atomic_misuse_is_a_compile_error_naming_what_was_given(tmp_path, body, arrays, message):
    module = module_from_source(tmp_path, "atomic_misuse",
                                f"import cudajit as cuda\n\ndef kernel(a):\n    {body}\n")
    kernel = cuda.jit(module.kernel)
    with pytest.raises(CompileError, match=None) as error:
        kernel[1, 1](*arrays)
    assert message in str(error.value)


def test_atomics_on_a_read_only_array_are_refused():
    @cuda.jit
    def write(a):
        cuda.atomic.add(a, 0, 1)

    frozen = np.zeros(2, np.int32)
    frozen.flags.writeable = False
    with pytest.raises(CompileError, match=r"cuda.atomic.add\(\) cannot modify a read-only array"):
        write[1, 1](frozen)


def test_atomics_compile_to_ptx_that_ptxas_accepts(check_ptx):
    def kernel(i32, u32, i64, u64, f32, f64):
        cuda.atomic.add(f32, 0, 1.0)
        cuda.atomic.add(f64, 0, 1.0)
        cuda.atomic.sub(i32, 0, 1)
        cuda.atomic.max(f64, 0, 2.0)
        cuda.atomic.nanmin(f32, 0, 2.0)
        cuda.atomic.min(i64, 0, 3)
        cuda.atomic.max(u64, 0, 3)
        cuda.atomic.inc(u32, 0, 10)
        cuda.atomic.dec(u64, 0, 10)
        cuda.atomic.exch(i32, 0, 4)
        cuda.atomic.cas(i64, 0, 1, 2)
        cuda.atomic.compare_and_swap(u32, 1, 2)
        cuda.atomic.xor(u64, 0, 7)
        s = cuda.shared.array(4, np.int32)
        cuda.atomic.add(s, 0, 1)
        i32[1] = s[0]

    sig = "void(int32[::1], uint32[::1], int64[::1], uint64[::1], float32[::1], float64[::1])"
    for cc in [(7, 5), (8, 0), (9, 0)]:
        ptx, _ = cuda.compile_ptx(kernel, sig, cc=cc)
        check_ptx(ptx, cc=cc)
        for text in ["atom.global.add.f32", "atom.global.add.f64", "atom.global.max.u64",
                     "atom.global.cas.b64", "atom.shared.add.u32"]:
            assert text in ptx, text
