"""On the cpu device a block whose barriers every thread reaches alike (at the kernel's top
level, or in loops and `if`s whose conditions are the same in every thread) runs as loops
over its threads split at the barriers, each variable kept per thread; other kernels run
their threads as fibers. Either way the results are the GPU's."""

import numpy as np
import pytest

import cudajit as cuda

from conftest import cpu_dump_paths


pytestmark = pytest.mark.usefixtures("on_cpu_device")

TPB = 128


@cuda.jit
def block_sum(a, out):
    s = cuda.shared.array(TPB, np.float64)
    t = cuda.threadIdx.x
    s[t] = a[cuda.grid(1)]
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        out[cuda.blockIdx.x] = s[0]


@cuda.jit
def block_scan(a, out):
    s = cuda.shared.array(TPB, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = a[i]
    cuda.syncthreads()
    offset = 1
    while offset < TPB:
        v = s[t - offset] if t >= offset else 0.0  # kept across the barrier, per thread
        cuda.syncthreads()
        s[t] += v
        cuda.syncthreads()
        offset *= 2
    out[i] = s[t]


@cuda.jit
def reverse_in_block(a, out):
    s = cuda.shared.array((4, 32), np.int64)
    x, y = cuda.threadIdx.x, cuda.threadIdx.y
    mine = a[cuda.blockIdx.x, y, x] * 10  # read before the barrier, used after it
    s[y, x] = a[cuda.blockIdx.x, y, x]
    cuda.syncthreads()
    out[cuda.blockIdx.x, y, x] = s[3 - y, 31 - x] + mine


@cuda.jit
def tiled_matmul(A, B, C):
    sA = cuda.shared.array((8, 8), np.float64)
    sB = cuda.shared.array((8, 8), np.float64)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    acc = 0.0
    for t in range(cuda.gridDim.x):
        sA[ty, tx] = A[y, t * 8 + tx]
        sB[ty, tx] = B[t * 8 + ty, x]
        cuda.syncthreads()
        for k in range(8):
            acc += sA[ty, k] * sB[k, tx]
        cuda.syncthreads()
    C[y, x] = acc


@cuda.jit
def uniform_branch(a, out, flag):
    s = cuda.shared.array(TPB, np.int64)
    t = cuda.threadIdx.x
    s[t] = a[cuda.grid(1)]
    if flag > 0:
        cuda.syncthreads()
        out[cuda.grid(1)] = s[TPB - 1 - t]
    else:
        cuda.syncthreads()
        out[cuda.grid(1)] = -s[t]


@cuda.jit
def tile_transpose(a, out):
    tile = cuda.shared.array((16, 17), np.float64)
    x, y = cuda.grid(2)
    n, m = a.shape
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    if y < n and x < m:
        tile[ty, tx] = a[y, x]
    cuda.syncthreads()
    ox = cuda.blockIdx.y * 16 + tx
    oy = cuda.blockIdx.x * 16 + ty
    if oy < m and ox < n:
        out[oy, ox] = tile[tx, ty]


@cuda.jit
def pairs_reassigned_after_a_barrier(a, out):
    s = cuda.shared.array(64, np.int64)
    x, y = cuda.threadIdx.x, cuda.blockIdx.x
    s[x] = a[y, x]
    cuda.syncthreads()
    x, y = 63 - x, y + 1  # assigned twice: kept per thread, not computed again
    out[y - 1, x] = s[63 - x] * y


@cuda.jit
def flags_across_a_barrier(a, out):
    s = cuda.shared.array(64, np.int64)
    t = cuda.threadIdx.x
    big = a[t] > 10  # a bool kept per thread across the barrier
    s[t] = a[t]
    cuda.syncthreads()
    if big:
        out[t] = s[63 - t]
    else:
        out[t] = -s[63 - t]


@cuda.jit
def complex_across_a_barrier(a, out):
    s = cuda.shared.array(64, np.complex128)
    t = cuda.threadIdx.x
    z = complex(a[t], -2.0 * a[t])  # kept per thread as two arrays, its parts
    s[t] = z * z
    cuda.syncthreads()
    out[t] = s[63 - t] + z


@cuda.jit
def complex_in_a_warp_group(a, out):
    i = cuda.grid(1)
    z = complex(a[i], 1.0)
    v = z.real * z.imag
    for delta in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, delta)
    w = z * z
    if cuda.laneid == 0:
        out[i // 32] = v + w.imag


@cuda.jit
def nested_tuples_across_a_barrier(a, out):
    s = cuda.shared.array(32, np.int64)
    t = cuda.threadIdx.x
    shapes = (a.shape, a.shape)  # index arithmetic: one slot, computed in every loop
    pairs = ((t, 2 * t), (3 * t, a[t]))  # a tuple of two tuples kept per thread
    s[t] = a[t] + shapes[1][0]
    cuda.syncthreads()
    out[t] = s[31 - t] + shapes[0][0] + pairs[0][1] + pairs[1][1]


@pytest.mark.parametrize("blocks", [1, 3, 64])
def test_a_shared_memory_reduction_split_at_its_barriers_sums_each_block(blocks):
    a = np.random.default_rng(blocks).random(blocks * TPB)
    out = np.zeros(blocks)
    block_sum[blocks, TPB](a, out)
    np.testing.assert_allclose(out, a.reshape(blocks, TPB).sum(axis=1), rtol=1e-12)


def test_a_value_kept_across_a_barrier_is_each_threads_own():
    a = np.random.default_rng(1).random(5 * TPB)
    out = np.zeros_like(a)
    block_scan[5, TPB](a, out)
    np.testing.assert_allclose(out, np.cumsum(a.reshape(5, TPB), axis=1).ravel(), rtol=1e-12)
    a = np.arange(3 * 4 * 32).reshape(3, 4, 32)
    out = np.zeros_like(a)
    reverse_in_block[3, (32, 4)](a, out)
    np.testing.assert_array_equal(out, a[:, ::-1, ::-1] + 10 * a)


def test_values_kept_across_a_barrier_live_in_cache_line_aligned_arrays(tmp_path):
    # The thread loops store and load them a vector at a time: an array that starts inside a
    # cache line splits every 64-byte access in two (the scan's rounds ran 2.6 -> 2.0 ms).
    import re

    script = """import numpy as np
import cudajit as cuda
TPB = 128
{kernels}
a = np.ones(TPB)
out = np.zeros_like(a)
block_scan[1, TPB](a, out)
assert out[-1] == TPB
"""
    host = cpu_dump_paths(tmp_path, __file__, ["block_scan"], script, dump="host")
    (module,) = host.values()
    arrays = re.findall(r"= alloca \[(\d+) x double\], align (\d+)", module)
    assert arrays, module  # v, one element per thread (and spare ones for shuffles)
    assert all(int(count) >= TPB and int(align) >= 64 for count, align in arrays), arrays


@pytest.mark.parametrize("shape", [(16, 16), (40, 23), (5, 70)])
def test_names_unpacked_from_grid_and_shape_are_each_threads_own(shape):
    a = np.random.default_rng(3).random(shape)
    out = np.zeros(shape[::-1])
    tile_transpose[((shape[1] + 15) // 16, (shape[0] + 15) // 16), (16, 16)](a, out)
    np.testing.assert_array_equal(out, a.T)
    a = np.arange(3 * 64).reshape(3, 64)
    out = np.zeros_like(a)
    pairs_reassigned_after_a_barrier[3, 64](a, out)
    np.testing.assert_array_equal(out, (a * np.arange(1, 4)[:, None])[:, ::-1])


def test_names_unpacked_from_grid_and_shape_are_computed_again_not_kept(tmp_path):
    # `x, y = cuda.grid(2)`, `n, m = a.shape` and `tx, ty = cuda.threadIdx.x, ...` are index
    # arithmetic, as `i = cuda.grid(1)` is: each thread loop computes them (and `ox`, `oy`
    # from them) again, so no integer array with an element per thread holds them.
    import re

    script = """import numpy as np
import cudajit as cuda
{kernels}
a = np.arange(32.0 * 32).reshape(32, 32)
out = np.zeros_like(a)
tile_transpose[(2, 2), (16, 16)](a, out)
assert (out == a.T).all()
"""
    host = cpu_dump_paths(tmp_path, __file__, ["tile_transpose"], script, dump="host")
    (module,) = host.values()
    assert not re.findall(r"alloca \[\d+ x i(?:32|64)\]", module), module


def test_a_bool_kept_across_a_barrier_is_a_byte_per_thread(tmp_path):
    # A vectorised thread loop stores a vector of i1 lane by lane, of bytes with one store.
    import re

    a = np.random.default_rng(4).integers(0, 20, 64)
    out = np.zeros(64, np.int64)
    flags_across_a_barrier[1, 64](a, out)
    np.testing.assert_array_equal(out, np.where(a > 10, a[::-1], -a[::-1]))
    script = """import numpy as np
import cudajit as cuda
{kernels}
a = np.arange(64)
out = np.zeros(64, np.int64)
flags_across_a_barrier[1, 64](a, out)
assert (out == np.where(a > 10, a[::-1], -a[::-1])).all()
"""
    host = cpu_dump_paths(tmp_path, __file__, ["flags_across_a_barrier"], script, dump="host")
    (module,) = host.values()
    assert re.findall(r"alloca \[\d+ x i8\], align 64", module), module
    assert not re.findall(r"alloca \[\d+ x i1\]", module), module


def test_complex_values_kept_per_thread_across_barriers_and_shuffles(tmp_path):
    import re

    a = np.random.default_rng(6).random(64)
    out = np.zeros(64, np.complex128)
    complex_across_a_barrier[1, 64](a, out)
    z = a - 2j * a
    np.testing.assert_allclose(out, (z * z)[::-1] + z, rtol=1e-14)
    a = np.random.default_rng(7).random(128)
    sums = np.zeros(4)
    complex_in_a_warp_group[2, 64](a, sums)
    np.testing.assert_allclose(sums, a.reshape(4, 32).sum(axis=1) + 2 * a[::32], rtol=1e-12)
    script = """import numpy as np
import cudajit as cuda
{kernels}
a = np.arange(64.0)
out = np.zeros(64, np.complex128)
complex_across_a_barrier[1, 64](a, out)
"""
    host = cpu_dump_paths(tmp_path, __file__, ["complex_across_a_barrier"], script, dump="host")
    (module,) = host.values()
    assert re.findall(r"alloca \[2 x \[\d+ x double\]\], align 64", module), module


def test_tuples_of_two_tuples_across_a_barrier_are_not_complex_parts():
    a = np.arange(32) * 5
    out = np.zeros(32, np.int64)
    nested_tuples_across_a_barrier[1, 32](a, out)
    t = np.arange(32)
    np.testing.assert_array_equal(out, a[::-1] + 32 + 32 + 2 * t + a)


def test_a_loop_whose_barriers_every_thread_reaches_runs_once_per_block():
    rng = np.random.default_rng(2)
    A, B = rng.random((32, 32)), rng.random((32, 32))
    C = np.zeros((32, 32))
    tiled_matmul[(4, 4), (8, 8)](A, B, C)
    np.testing.assert_allclose(C, A @ B, rtol=1e-12)


@pytest.mark.parametrize("flag", [1, 0])
def test_a_branch_every_thread_takes_alike_may_hold_a_barrier(flag):
    a = np.arange(2 * TPB)
    out = np.zeros_like(a)
    uniform_branch[2, TPB](a, out, flag)
    want = a.reshape(2, TPB)[:, ::-1].ravel() if flag else -a
    np.testing.assert_array_equal(out, want)


@cuda.jit
def uniform_read_then_updated(out, later):
    s = cuda.shared.array(TPB, np.int64)
    t = cuda.threadIdx.x
    k = 3
    s[t] = t
    cuda.syncthreads()
    out[cuda.grid(1)] = k + s[TPB - 1 - t]  # every thread reads k before any updates it
    k = k + 1
    cuda.syncthreads()
    later[cuda.grid(1)] = k


@cuda.jit
def uniform_updated_then_read(out):
    s = cuda.shared.array(TPB, np.int64)
    t = cuda.threadIdx.x
    step = 1
    s[t] = t
    cuda.syncthreads()
    while step < 8:
        step *= 2  # once per block, then every thread reads the new value
        out[cuda.grid(1)] += s[(t + step) % TPB]
        cuda.syncthreads()


def test_a_uniform_value_changed_between_barriers_is_read_as_each_thread_would():
    out = np.zeros(2 * TPB, np.int64)
    later = np.zeros_like(out)
    uniform_read_then_updated[2, TPB](out, later)
    t = np.arange(2 * TPB) % TPB
    np.testing.assert_array_equal(out, 3 + (TPB - 1 - t))
    np.testing.assert_array_equal(later, 4)
    out = np.zeros(TPB, np.int64)
    uniform_updated_then_read[1, TPB](out)
    t = np.arange(TPB)
    np.testing.assert_array_equal(out, (t + 2) % TPB + (t + 4) % TPB + (t + 8) % TPB)


@cuda.jit
def thread_ranges(out, k):
    s = cuda.shared.array((2, 64), np.int64)
    x = cuda.threadIdx.x
    y = cuda.threadIdx.y
    s[y, x] = 0
    cuda.syncthreads()
    if x < k:  # a loop over threadIdx.x < k only (each y)
        s[y, x] += 1
    cuda.syncthreads()
    if x >= k:
        s[y, x] += 10
    cuda.syncthreads()
    if cuda.threadIdx.x == k:
        s[y, x] += 100
    cuda.syncthreads()
    if x <= k:
        s[y, x] += 1000
    cuda.syncthreads()
    if x > k:
        s[y, x] += 10000
    cuda.syncthreads()
    out[cuda.blockIdx.x, y, x] = s[y, x]


@pytest.mark.parametrize("k", [-3, 0, 5, 39, 40, 100])
def test_threads_chosen_by_comparing_threadidx_x_with_a_uniform_value(k):
    out = np.zeros((2, 2, 40), np.int64)
    thread_ranges[2, (40, 2)](out, k)
    x = np.arange(40)
    want = ((x < k) * 1 + (x >= k) * 10 + (x == k) * 100 + (x <= k) * 1000 + (x > k) * 10000)
    np.testing.assert_array_equal(out, np.broadcast_to(want, (2, 2, 40)))



@cuda.jit
def warp_sums_past_the_end(a, out):
    i = cuda.grid(1)
    v = a[i]
    for delta in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, delta)
    if cuda.laneid == 0:
        out[cuda.blockIdx.x, cuda.threadIdx.x // 32] = v


@pytest.mark.parametrize("blocks,block", [(2, 64), (3, 48)])  # 48: warps by linear index
def test_an_index_error_in_an_unrolled_warp_names_the_line_and_keeps_the_whole_warps(
    blocks, block
):
    # The lane loops are unrolled after their bounds checks are versioned: warps wholly in
    # bounds take the unchecked copy, the warp at the array's end the checked one, whose
    # failure is reported as any other (a GPU checks nothing).
    a = np.arange(100, dtype=np.float64)
    out = np.full((blocks, 2), -1.0)
    with pytest.raises(IndexError, match=r"kernel 'warp_sums_past_the_end' .*index 1\d\d is "
                                         r"out of bounds for axis 0 with size 100"):
        warp_sums_past_the_end[blocks, block](a, out)
    checked = 0
    for b in range(blocks):
        for w in range(2):
            first = b * block + 32 * w
            if 32 * w + 32 <= block and first + 32 <= 100:  # a whole warp, in bounds
                assert out[b, w] == a[first:first + 32].sum()
                checked += 1
    assert checked == {64: 3, 48: 2}[block]
