"""Arrays a kernel only updates with integer atomics whose old value it drops (a histogram)
are updated on the cpu device in a private copy per worker, merged into the array when the
worker's run of blocks ends (CUDAJIT_DUMP=cpu says which arrays). Results are compared with
NumPy on every device: the copies change no result, for every operation that merges
(add, sub, max, min, and, or, xor), for strided and multi-dimensional arrays, for small
grids (no copy) and for kernels that read the array or use the old value (no copy)."""

import textwrap

import numpy as np
import pytest

import cudajit as cuda

from conftest import cpu_dump_paths

pytestmark = pytest.mark.usefixtures("device")

BINS = 256
N = 1 << 16


def values(dtype, n=N, low=0, high=BINS, seed=0):
    return np.random.default_rng(seed).integers(low, high, n).astype(dtype)


@cuda.jit
def histogram(x, hist):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(hist, x[i], 1)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64])
def test_a_histogram_counts_what_bincount_counts(dtype):
    x = values(np.int64)
    hist = np.zeros(BINS, dtype)
    histogram[N // 256, 256](x, hist)
    np.testing.assert_array_equal(hist, np.bincount(x, minlength=BINS).astype(dtype))


def test_counts_add_to_what_the_array_held():
    x = values(np.int64)
    start = np.arange(BINS, dtype=np.int32) * 1000 - 7
    hist = start.copy()
    histogram[N // 256, 256](x, hist)
    np.testing.assert_array_equal(hist, start + np.bincount(x, minlength=BINS))


def test_a_histogram_of_a_grid_too_small_for_a_copy_still_counts():
    x = values(np.int64, n=300)
    hist = np.zeros(BINS, np.int32)
    histogram[3, 128](x, hist)  # 384 threads for 256 bins: updated in place, atomically
    np.testing.assert_array_equal(hist, np.bincount(x, minlength=BINS))


def test_sums_wrap_around_as_the_gpu_wraps():
    @cuda.jit
    def add_big(x, out):
        i = cuda.grid(1)
        cuda.atomic.add(out, x[i] % 4, np.int32(2**30))

    x = values(np.int64)
    out = np.zeros(4, np.int32)
    add_big[N // 256, 256](x, out)
    want = (np.bincount(x % 4, minlength=4).astype(np.int64) * 2**30) % 2**32
    np.testing.assert_array_equal(out.view(np.uint32), want.astype(np.uint32))


def test_adds_and_subs_of_one_array_merge_together():
    @cuda.jit
    def up_down(x, hist):
        i = cuda.grid(1)
        if x[i] % 2 == 0:
            cuda.atomic.add(hist, x[i] % 16, 3)
        else:
            cuda.atomic.sub(hist, x[i] % 16, 5)

    x = values(np.int64)
    hist = np.full(16, 100, np.int64)
    up_down[N // 256, 256](x, hist)
    want = np.full(16, 100, np.int64)
    np.add.at(want, x % 16, np.where(x % 2 == 0, 3, -5))
    np.testing.assert_array_equal(hist, want)


@pytest.mark.parametrize("op", ["max", "min", "and_", "or_", "xor"])
@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64])
def test_every_merging_operation_gives_what_numpy_gives(op, dtype):
    signed = np.dtype(dtype).kind == "i"
    low, high = (-(2**20), 2**20) if signed else (0, 2**21)
    v = values(dtype, low=low, high=high, seed=1)
    bins = values(np.int64, seed=2) % 64

    body = textwrap.dedent(f"""
        @cuda.jit
        def update(bins, v, out):
            i = cuda.grid(1)
            cuda.atomic.{op}(out, bins[i], v[i])
    """)
    namespace = {"cuda": cuda}
    exec(body, namespace)
    update = namespace["update"]
    ufunc = {"max": np.maximum, "min": np.minimum, "and_": np.bitwise_and,
             "or_": np.bitwise_or, "xor": np.bitwise_xor}[op]
    start = values(dtype, n=64, low=low, high=high, seed=3)
    out = start.copy()
    update[N // 256, 256](bins, v, out)
    want = start.copy()
    ufunc.at(want, bins, v)
    np.testing.assert_array_equal(out, want)


def test_a_strided_view_changes_only_its_own_elements():
    x = values(np.int64)
    base = np.full(2 * BINS, -1, np.int32)
    histogram[N // 256, 256](x, base[::2])
    np.testing.assert_array_equal(base[::2], np.bincount(x, minlength=BINS) - 1)
    np.testing.assert_array_equal(base[1::2], -1)  # the gaps of the copy are never merged


def test_a_reversed_view_counts_into_its_own_order():
    x = values(np.int64)
    hist = np.zeros(BINS, np.int32)
    histogram[N // 256, 256](x, hist[::-1])
    np.testing.assert_array_equal(hist[::-1], np.bincount(x, minlength=BINS))


def test_a_2d_histogram_matches_numpy():
    @cuda.jit
    def histogram2d(x, y, hist):
        i = cuda.grid(1)
        if i < x.size:
            cuda.atomic.add(hist, (x[i], y[i]), 1)

    x, y = values(np.int64, seed=4) % 16, values(np.int64, seed=5) % 8
    hist = np.zeros((16, 8), np.int32)
    histogram2d[N // 256, 256](x, y, hist)
    want, _, _ = np.histogram2d(x, y, bins=(16, 8), range=((0, 16), (0, 8)))
    np.testing.assert_array_equal(hist, want.astype(np.int32))


def test_an_index_out_of_range_is_still_an_index_error(device):
    if device != "cpu":
        pytest.skip("bounds are checked by default on the cpu device only")
    x = values(np.int64)
    x[777] = BINS + 5
    hist = np.zeros(BINS, np.int32)
    with pytest.raises(IndexError, match="index 261 is out of bounds"):
        histogram[N // 256, 256](x, hist)


@cuda.jit
def tickets(x, hist, old):
    i = cuda.grid(1)
    old[i] = cuda.atomic.add(hist, x[i], 1)


@cuda.jit
def counts_then_reads(x, hist, seen):
    i = cuda.grid(1)
    cuda.atomic.add(hist, x[i], 1)
    if i == 0:
        seen[0] = hist.size


@cuda.jit
def add_and_exchange(x, hist):
    i = cuda.grid(1)
    cuda.atomic.add(hist, x[i], 1)
    if i == 0:
        cuda.atomic.exch(hist, 0, 0)


def test_an_old_value_that_is_used_still_hands_out_each_count_once():
    x = values(np.int64) % 4
    hist = np.zeros(4, np.int32)
    old = np.zeros(N, np.int32)
    tickets[N // 256, 256](x, hist, old)
    np.testing.assert_array_equal(hist, np.bincount(x, minlength=4))
    for b in range(4):
        np.testing.assert_array_equal(np.sort(old[x == b]), np.arange((x == b).sum()))


def test_reading_the_size_of_the_array_keeps_the_copy_correct():
    x = values(np.int64)
    hist = np.zeros(BINS, np.int32)
    seen = np.zeros(1, np.int64)
    counts_then_reads[N // 256, 256](x, hist, seen)
    np.testing.assert_array_equal(hist, np.bincount(x, minlength=BINS))
    assert seen[0] == BINS


PATHS = """
import numpy as np
import cudajit as cuda

{kernels}

x = np.arange(1024) % 256
histogram[4, 256](x, np.zeros(256, np.int32))
tickets[4, 256](x, np.zeros(256, np.int32), np.zeros(1024, np.int32))
counts_then_reads[4, 256](x, np.zeros(256, np.int32), np.zeros(1, np.int64))
add_and_exchange[4, 256](x, np.zeros(256, np.int32))
"""


def test_the_dump_names_the_arrays_updated_in_private_copies(tmp_path, device):
    if device != "cpu":
        pytest.skip("the dump describes the cpu device")
    paths = cpu_dump_paths(tmp_path, __file__,
                           ("histogram", "tickets", "counts_then_reads", "add_and_exchange"), PATHS)
    assert "private copies: hist (only updated by atomics" in paths["histogram"]
    assert "private copies: hist" in paths["counts_then_reads"]  # hist.size reads no element
    assert "private copies" not in paths["tickets"]  # the old value is used
    assert "private copies" not in paths["add_and_exchange"]  # exch does not merge


@cuda.jit
def add_then_read_alias(x, hist, counts, seen):
    i = cuda.grid(1)
    cuda.atomic.add(hist, x[i], 1)
    seen[i] = counts[x[i]]  # the thread's own update is there, as on a GPU


def test_an_array_passed_again_as_another_argument_sees_the_threads_own_updates():
    x = values(np.int64)
    hist = np.zeros(BINS, np.int32)
    seen = np.zeros(N, np.int32)
    add_then_read_alias[N // 256, 256](x, hist, hist, seen)  # no copy: the same memory
    np.testing.assert_array_equal(hist, np.bincount(x, minlength=BINS))
    assert (seen >= 1).all()
    other = np.zeros(BINS, np.int32)
    add_then_read_alias[N // 256, 256](x, hist, other, seen)  # apart: a copy, merged
    np.testing.assert_array_equal(hist, 2 * np.bincount(x, minlength=BINS))
    assert (seen == 0).all()
