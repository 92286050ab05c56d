"""The cpu device compiles a block as a loop over its threads that LLVM vectorises: bounds
checks are tested once per loop where the indices' range is known (the checked loop runs
otherwise), and a grid-stride loop whose body cannot tell which thread runs an index gives
each thread a contiguous share. Neither changes a result or an error."""

import numpy as np
import pytest

import cudajit as cuda


pytestmark = pytest.mark.usefixtures("on_cpu_device")


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def saxpy_stride(a, x, y, out):
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        out[i] = a * x[i] + y[i]


@cuda.jit
def stride_through_names(x, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.size, stride):
        v = x[i] * 2
        out[i] = v + 1


@cuda.jit
def stride_partial_sums(x, partial):
    acc = 0.0
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        acc += x[i]
    partial[cuda.grid(1)] = acc


@cuda.jit
def stride_records_thread(out):
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = cuda.threadIdx.x + 1000 * cuda.blockIdx.x


@cuda.jit
def stride_running_value(x, out):
    last = 0.0
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        out[i] = x[i] + last
        last = x[i]


@cuda.jit
def shifted_write(x, out):
    i = cuda.grid(1)
    out[i + 1] = x[i]


@cuda.jit
def stencil(a, out):
    j, i = cuda.grid(2)
    n, m = a.shape
    if 0 < i < n - 1 and 0 < j < m - 1:
        out[i, j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1] - 4 * a[i, j]


@cuda.jit
def guarded_read_past_the_end(a, out):
    i = cuda.grid(1)
    if 0 < i and i <= a.size - 1:  # the guard holds for i = a.size - 1, whose a[i + 1] is out
        out[i] = a[i + 1]


@cuda.jit
def rows_around(a, out):
    j, i = cuda.grid(2)
    m = a.shape[1]
    if 0 < j < m - 1:
        out[j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]


@cuda.jit
def guarded_by_a_uniform_value(a, out, row):
    i = cuda.grid(1)
    if row >= 0 and i < a.shape[1]:
        out[i] = a[row, i]


@pytest.mark.parametrize("n", [0, 1, 255, 256, 4096 * 3 + 7])
def test_a_vectorised_thread_loop_computes_what_numpy_does(n):
    rng = np.random.default_rng(n)
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    out = np.zeros_like(x)
    saxpy[max(1, (n + 255) // 256), 256](np.float32(2.5), x, y, out)
    np.testing.assert_allclose(out, np.float32(2.5) * x + y, rtol=1e-6)


@pytest.mark.parametrize("n, blocks", [(0, 4), (5, 4), (1024, 4), (100_003, 3), (1 << 20, 64)])
def test_a_grid_stride_loop_covers_every_index_once(n, blocks):
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, np.float32)
    out = np.full(n, -1, np.float32)
    saxpy_stride[blocks, 128](np.float32(2), x, y, out)
    np.testing.assert_array_equal(out, 2 * x + 1)
    out2 = np.full(n, -1, np.int64)
    stride_through_names[blocks, 128](np.arange(n), out2)
    np.testing.assert_array_equal(out2, 2 * np.arange(n) + 1)


def test_a_grid_stride_loop_that_carries_a_value_keeps_each_threads_indices():
    x = np.arange(10_000, dtype=np.float64)
    threads = 4 * 64
    partial = np.zeros(threads)
    stride_partial_sums[4, 64](x, partial)
    want = [x[t::threads].sum() for t in range(threads)]
    np.testing.assert_array_equal(partial, want)
    out = np.zeros_like(x)
    stride_running_value[4, 64](x, out)
    prev = np.concatenate([np.zeros(threads), x[:-threads]])
    np.testing.assert_array_equal(out, x + prev)


def test_a_grid_stride_loop_that_reads_its_thread_keeps_each_threads_indices():
    out = np.zeros(5000, np.int64)
    stride_records_thread[3, 32](out)
    t = np.arange(5000) % 96
    np.testing.assert_array_equal(out, t % 32 + 1000 * (t // 32))


def test_an_index_error_in_a_vectorised_loop_names_the_line_and_writes_nothing_outside():
    x = np.arange(256, dtype=np.float64)
    backing = np.full(258, -1.0)
    out = backing[:256]
    with pytest.raises(IndexError, match=r"kernel 'shifted_write' .*index 256 is out of bounds "
                                         r"for axis 0 with size 256"):
        shifted_write[2, 128](x, out)
    np.testing.assert_array_equal(out[1:], x[:-1])
    assert backing[256] == -1.0 and backing[257] == -1.0


def test_a_2d_stencil_whose_edge_threads_skip_matches_numpy():
    a = np.random.default_rng(1).random((96, 160))
    out = np.zeros_like(a)
    stencil[(160 // 32, 96 // 8), (32, 8)](a, out)
    want = np.zeros_like(a)
    want[1:-1, 1:-1] = a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] - 4 * a[1:-1, 1:-1]
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-12)


def test_a_check_under_a_guard_that_lets_an_index_out_still_fails():
    a = np.arange(256.0)
    out = np.zeros(256)
    with pytest.raises(IndexError, match=r"kernel 'guarded_read_past_the_end' .*index 256 is out "
                                         r"of bounds for axis 0 with size 256"):
        guarded_read_past_the_end[2, 128](a, out)
    np.testing.assert_array_equal(out[1:255], a[2:])


def test_a_row_index_past_the_end_fails_in_a_row_loop_shorter_than_the_block():
    # Blocks of 4 x 64 threads over 10 rows: a[i + 1] is out for i >= 9. The row index, the
    # same along a row, was once tested at the row loop's first iterations (rows 1-4 of
    # block row 0) instead of at its own value, and the read went through unchecked.
    a = np.arange(40.0).reshape(10, 4)
    out = np.zeros(4)
    with pytest.raises(IndexError, match=r"kernel 'rows_around' .*index 10 is out of bounds "
                                         r"for axis 0 with size 10"):
        rows_around[(1, 1), (4, 64)](a, out)


def test_a_check_under_a_uniform_guard_is_tested_only_where_the_guard_holds():
    a = np.arange(3 * 128.0).reshape(3, 128)
    out = np.zeros(128)
    guarded_by_a_uniform_value[1, 128](a, out, 2)
    np.testing.assert_array_equal(out, a[2])
    out[:] = -1
    guarded_by_a_uniform_value[1, 128](a, out, -1)  # no thread reads: no error
    assert (out == -1).all()
    with pytest.raises(IndexError, match=r"index 3 is out of bounds for axis 0 with size 3"):
        guarded_by_a_uniform_value[1, 128](a, out, 3)


def test_a_3d_stencil_matches_numpy_at_every_edge():
    @cuda.jit
    def stencil3d(a, out):
        k, j, i = cuda.grid(3)
        n = a.shape[0]
        if 0 < i < n - 1 and 0 < j < n - 1 and 0 < k < n - 1:
            out[i, j, k] = (a[i - 1, j, k] + a[i + 1, j, k] + a[i, j - 1, k] + a[i, j + 1, k]
                            + a[i, j, k - 1] + a[i, j, k + 1] - 6 * a[i, j, k])

    n = 40
    a = np.random.default_rng(2).random((n, n, n))
    out = np.zeros_like(a)
    stencil3d[(n // 16 + 1, n // 4, n), (16, 4, 1)](a, out)
    want = np.zeros_like(a)
    c = (slice(1, -1),) * 3
    want[c] = (a[:-2, 1:-1, 1:-1] + a[2:, 1:-1, 1:-1] + a[1:-1, :-2, 1:-1] + a[1:-1, 2:, 1:-1]
               + a[1:-1, 1:-1, :-2] + a[1:-1, 1:-1, 2:] - 6 * a[c])
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-12)


@cuda.jit
def shared_by_thread(a, out):
    s = cuda.shared.array(128, np.float64)
    t = cuda.threadIdx.x
    s[t] = a[cuda.grid(1)]  # the check `t < 128`, inverted by LLVM to `t > 127`
    out[cuda.grid(1)] = s[t] * 2


def test_a_shared_array_indexed_by_thread_is_checked_against_its_own_size():
    a = np.arange(512.0)
    out = np.zeros(512)
    shared_by_thread[4, 128](a, out)
    np.testing.assert_array_equal(out, 2 * a)
    with pytest.raises(IndexError, match=r"kernel 'shared_by_thread' .*index 128 is out of "
                                         r"bounds for axis 0 with size 128"):
        shared_by_thread[2, 256](a, out)


@cuda.jit
def read_behind(a, out, k):
    s = cuda.shared.array(128, np.float64)
    t = cuda.threadIdx.x
    s[t] = a[cuda.grid(1)]
    cuda.syncthreads()
    v = s[t - k] if t >= k else -1.0  # under a guard the loop's check holds from t = k on
    cuda.syncthreads()
    out[cuda.grid(1)] = v


@pytest.mark.parametrize("k", [0, 1, 5, 127, 128, 500])
def test_a_read_guarded_by_its_distance_matches_numpy(k):
    a = np.arange(256.0)
    out = np.zeros(256)
    read_behind[2, 128](a, out, k)
    want = np.full((2, 128), -1.0)
    if k < 128:
        want[:, k:] = a.reshape(2, 128)[:, :128 - k]
    np.testing.assert_array_equal(out, want.ravel())


def test_a_read_guarded_by_a_negative_distance_still_fails_past_the_end():
    a = np.arange(256.0)
    out = np.zeros(256)
    with pytest.raises(IndexError, match=r"index 128 is out of bounds for axis 0 with size 128"):
        read_behind[2, 128](a, out, -2)


@cuda.jit
def rotate(a, out, k):
    s = cuda.shared.array(128, np.float64)
    t = cuda.threadIdx.x
    s[t] = a[cuda.grid(1)]
    cuda.syncthreads()
    out[cuda.grid(1)] = s[t - k]  # negative indices wrap, as NumPy's


@pytest.mark.parametrize("k", [0, 3, 64, 128])
def test_a_negative_index_wraps_as_numpy_in_a_vectorised_loop(k):
    a = np.arange(256.0)
    out = np.zeros(256)
    rotate[2, 128](a, out, k)
    np.testing.assert_array_equal(out, np.roll(a.reshape(2, 128), k, axis=1).ravel())
    if k == 128:
        with pytest.raises(IndexError, match=r"index -129 is out of bounds"):
            rotate[2, 128](a, out, 129)


@cuda.jit
def record_identity(out, runs):
    x, y, z = cuda.grid(3)
    out[z, y, x, 0] = cuda.blockIdx.x * 1000000 + cuda.blockIdx.y * 10000 + cuda.blockIdx.z
    out[z, y, x, 1] = cuda.threadIdx.x * 10000 + cuda.threadIdx.y * 100 + cuda.threadIdx.z
    cuda.atomic.add(runs, (z, y, x), 1)


@pytest.mark.parametrize("workers", [1, 2, 3, 7])
@pytest.mark.parametrize("grid, block", [((5, 3, 2), (8, 4, 2)), ((7, 1, 3), (4, 3, 1)),
                                         ((1, 6, 1), (16, 2, 1)), ((13, 2, 1), (32, 1, 1))])
def test_threads_run_in_the_grids_order_each_once_with_its_own_indices(grid, block, workers):
    # Blocks of a kernel without barriers run a row of blocks at a time, (threadIdx.z,
    # threadIdx.y) outermost; workers' runs of blocks start and end inside rows.
    before = cuda.config.CPU_WORKERS
    cuda.config.CPU_WORKERS = workers
    try:
        shape = tuple(g * b for g, b in zip(grid, block))[::-1]
        out = np.zeros(shape + (2,), np.int64)
        runs = np.zeros(shape, np.int32)
        record_identity[grid, block](out, runs)
    finally:
        cuda.config.CPU_WORKERS = before
    np.testing.assert_array_equal(runs, 1)
    z, y, x = np.indices(shape)
    bx, tx = divmod(x, block[0])
    by, ty = divmod(y, block[1])
    bz, tz = divmod(z, block[2])
    np.testing.assert_array_equal(out[..., 0], bx * 1000000 + by * 10000 + bz)
    np.testing.assert_array_equal(out[..., 1], tx * 10000 + ty * 100 + tz)
