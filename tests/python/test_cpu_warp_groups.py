"""On the cpu device, the thread loops between two block barriers that warp functions and
syncwarp divide run warp by warp: for each warp, each loop over its lanes in turn, values
that only those loops use kept in arrays of 32. Where blockDim.x is a multiple of 32 a warp
is 32 threads of one row and its lane loops are unrolled; elsewhere the warps are the
block's threads 32 at a time by linear index (a warp may span rows, the last may be short).
Both must give every lane what a GPU gives it: each kernel here runs with block shapes that
take either form, on both devices, against NumPy."""

import numpy as np
import pytest

import cudajit as cuda

from conftest import cpu_dump_paths

pytestmark = pytest.mark.usefixtures("device")

FULL = 0xFFFFFFFF

# (blockDim): whole rows of warps where x is a multiple of 32, else warps by linear index
SHAPES = [(64,), (32, 4), (64, 2, 2), (96,), (48,), (16, 4), (40, 3)]


def warp_sums_of(values: np.ndarray, threads: int) -> np.ndarray:
    """Each thread's warp's sum (warps of 32 by linear thread index, the last maybe partial)."""
    out = np.empty_like(values)
    for block in range(values.size // threads):
        for w in range(0, threads, 32):
            lo, hi = block * threads + w, block * threads + min(w + 32, threads)
            out[lo:hi] = values[lo:hi].sum()
    return out


@cuda.jit
def linear_butterfly(a, out):
    # the thread's linear index in the grid: x fastest, then y, then z
    t = (cuda.threadIdx.z * cuda.blockDim.y + cuda.threadIdx.y) * cuda.blockDim.x + cuda.threadIdx.x
    i = (cuda.blockIdx.x * cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z) + t
    v = a[i]
    for mask in (16, 8, 4, 2, 1):
        v += cuda.shfl_xor_sync(FULL, v, mask)
    out[i] = v


# xor partners beyond a partial warp are undefined on a GPU: whole warps only
@pytest.mark.parametrize("shape", [s for s in SHAPES if np.prod(s) % 32 == 0])
def test_a_butterfly_sums_each_warp_for_any_block_shape(shape):
    threads = int(np.prod(shape))
    a = (np.arange(3 * threads) * 7 - 500).astype(np.int64)
    out = np.zeros_like(a)
    linear_butterfly[3, shape](a, out)
    np.testing.assert_array_equal(out, warp_sums_of(a, threads))


@cuda.jit
def lane_and_neighbours(a, out):
    t = (cuda.threadIdx.z * cuda.blockDim.y + cuda.threadIdx.y) * cuda.blockDim.x + cuda.threadIdx.x
    i = (cuda.blockIdx.x * cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z) + t
    v = a[i] * 2
    down = cuda.shfl_down_sync(FULL, v, 3)
    up = cuda.shfl_up_sync(FULL, down, 5)
    out[i, 0] = cuda.laneid
    out[i, 1] = down
    out[i, 2] = up
    out[i, 3] = cuda.ballot_sync(FULL, v > 0)


@pytest.mark.parametrize("shape", SHAPES)
def test_lanes_and_shuffles_follow_the_linear_thread_index(shape):
    threads = int(np.prod(shape))
    blocks = 2
    n = blocks * threads
    a = (np.arange(n) * 3 - 100).astype(np.int64)
    out = np.zeros((n, 4), np.int64)
    lane_and_neighbours[blocks, shape](a, out)
    i = np.arange(n)
    t = i % threads
    lane = t % 32
    width = np.minimum(threads - (t - lane), 32)  # the warp's lanes in the block
    v = a * 2
    down = np.where(lane + 3 < width, v[np.minimum(i + 3, n - 1)], v)
    up = np.where(lane >= 5, down[np.maximum(i - 5, 0)], down)
    ballot = np.zeros(n, np.int64)
    for k in range(n):
        first = k - lane[k]
        bits = sum(1 << j for j in range(width[k]) if v[first + j] > 0)
        ballot[k] = np.uint32(bits).view(np.int32)  # Numba's ballot_sync is an int32
    # a lane beyond the block in a partial warp gives an undefined value on a GPU
    defined = (lane + 3 < width) | (lane + 3 >= 32)
    up_defined = np.where(lane >= 5, defined[np.maximum(i - 5, 0)], defined)
    np.testing.assert_array_equal(out[:, 0], lane)
    np.testing.assert_array_equal(out[defined, 1], down[defined])
    np.testing.assert_array_equal(out[up_defined, 2], up[up_defined])
    np.testing.assert_array_equal(out[:, 3], ballot)


@cuda.jit
def scalar_reassigned(a, out, rounds):
    i = cuda.grid(1)
    k = 3
    v = 0
    for r in range(rounds):  # a loop of the block around its thread loops
        v += a[i] * k  # read before the warp function...
        v += cuda.shfl_down_sync(FULL, v, 1)
        k = k + 2  # ...reassigned after it: every warp must read it before the change
    out[i] = v + k


def test_a_block_scalar_reassigned_after_a_warp_function_keeps_its_order():
    n = 256
    a = np.arange(n, dtype=np.int64)
    out = np.zeros_like(a)
    scalar_reassigned[2, 128](a, out, 3)
    i = np.arange(n)
    lane = i % 32
    v = np.zeros(n, np.int64)
    k = 3
    for _ in range(3):
        v = v + a * k
        v = v + np.where(lane < 31, v[np.minimum(i + 1, n - 1)], v)
        k += 2
    np.testing.assert_array_equal(out, v + k)


@cuda.jit
def carried_by_the_loop(a, out, rounds):
    i = cuda.grid(1)
    for r in range(rounds):
        if r == 0:
            c = a[i]  # only the loop mentions c: each round takes the last round's
        c = c + cuda.shfl_down_sync(FULL, c, 1)
        out[i] = c


def test_a_value_the_loop_carries_between_its_rounds():
    n = 256
    a = np.arange(n, dtype=np.int64) % 7
    out = np.zeros_like(a)
    carried_by_the_loop[2, 128](a, out, 4)
    i = np.arange(n)
    c = a.copy()
    for _ in range(4):
        c = c + np.where(i % 32 < 31, c[np.minimum(i + 1, n - 1)], c)
    np.testing.assert_array_equal(out, c)


@cuda.jit
def syncwarp_tree(a, out):
    s = cuda.shared.array(256, np.float64)
    t = cuda.threadIdx.x
    lane = t % 32
    s[t] = a[cuda.grid(1)]
    cuda.syncwarp()
    for half in (16, 8, 4, 2):  # unrolled: five loops over each warp's lanes
        if lane < half:
            s[t] += s[t + half]
        cuda.syncwarp()
    if lane == 0:
        out[cuda.grid(1) // 32] = s[t] + s[t + 1]


@pytest.mark.parametrize("block", [64, 256, 96])
def test_a_shared_memory_tree_split_by_syncwarp(block):
    a = np.random.default_rng(1).random(4 * block)
    out = np.zeros(a.size // 32)
    syncwarp_tree[4, block](a, out)
    np.testing.assert_allclose(out, a.reshape(-1, 32).sum(axis=1), rtol=1e-12)


@cuda.jit
def loops_and_barriers(a, out, rounds):
    s = cuda.shared.array(128, np.int64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = 0
    for r in range(rounds):  # a loop in a lane loop: not unrolled
        v += a[i] + r
    w = cuda.shfl_up_sync(FULL, v, 1)  # v lives on past the barrier: kept per thread
    s[t] = w
    cuda.syncthreads()
    if rounds > 1:  # a uniform `if` holding warp functions
        w = cuda.shfl_up_sync(FULL, w, 2)
    out[i] = s[(t + 32) % cuda.blockDim.x] + v + w


@pytest.mark.parametrize("block", [64, 128, 48])
@pytest.mark.parametrize("rounds", [1, 3])
def test_warp_groups_around_barriers_loops_and_uniform_ifs(block, rounds):
    n = 2 * block
    a = np.arange(n, dtype=np.int64) * 5
    out = np.zeros_like(a)
    loops_and_barriers[2, block](a, out, rounds)
    i = np.arange(n)
    t = i % block
    lane = t % 32
    v = a * rounds + sum(range(rounds))
    w = np.where(lane >= 1, v[np.maximum(i - 1, 0)], v)
    s = w.copy()
    if rounds > 1:
        w = np.where(lane >= 2, w[np.maximum(i - 2, 0)], w)
    shared = s[i - t + (t + 32) % block]
    np.testing.assert_array_equal(out, shared + v + w)


@cuda.jit
def while_reduction(a, out):
    i = cuda.grid(1)
    v = a[i]
    offset = 16
    while offset > 0:  # unrolled by the front end: 16, 8, 4, 2, 1
        v += cuda.shfl_down_sync(FULL, v, offset)
        offset //= 2
    if cuda.laneid == 0:
        out[i // 32] = v


@cuda.jit
def range_reduction(a, out):
    i = cuda.grid(1)
    v = a[i]
    for k in range(5):  # unrolled by the front end
        v += cuda.shfl_xor_sync(FULL, v, 1 << k)
    out[i] = v


@pytest.mark.parametrize("block", [64, 256, 96])
def test_warp_reductions_written_as_loops(block):
    a = np.random.default_rng(7).random(8 * block)
    out = np.zeros(a.size // 32)
    while_reduction[8, block](a, out)
    np.testing.assert_allclose(out, a.reshape(-1, 32).sum(axis=1), rtol=1e-12)
    every = np.zeros_like(a)
    range_reduction[8, block](a, every)
    np.testing.assert_allclose(every, np.repeat(a.reshape(-1, 32).sum(axis=1), 32), rtol=1e-12)


PATHS = """
import numpy as np, cudajit as cuda
FULL = 0xFFFFFFFF
{kernels}
a = np.arange(256.0); out = np.zeros(256)
syncwarp_tree[1, 64](a, out)
"""


def test_the_dump_says_warp_groups_run_warp_by_warp(tmp_path):
    paths = cpu_dump_paths(tmp_path, __file__, ("syncwarp_tree",), PATHS)
    assert paths["syncwarp_tree"].startswith("thread loops split at barriers")
    assert "run warp by warp" in paths["syncwarp_tree"]


@cuda.jit
def block_sums_by_warps(a, out, spare):
    # CUB's block reduction: each warp's sum by shuffles, the sums through shared memory,
    # then warp 0 alone (a condition the same in all lanes of a warp) shuffles them again;
    # the other warps count their lanes with a ballot in the else branch.
    s = cuda.shared.array(32, np.float64)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * cuda.blockDim.x + t
    v = a[i]
    for delta in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(FULL, v, delta)
    lane = t % 32
    wid = t // 32
    if lane == 0:
        s[wid] = v
    cuda.syncthreads()
    if wid == 0:
        w = s[lane] if t < cuda.blockDim.x // 32 else 0.0
        for delta in (16, 8, 4, 2, 1):
            w += cuda.shfl_down_sync(FULL, w, delta)
        if t == 0:
            out[cuda.blockIdx.x] = w
    else:
        n = cuda.ballot_sync(FULL, True)
        if lane == 0:
            spare[cuda.blockIdx.x, wid] = n


@pytest.mark.parametrize("block", [64, 256, 1024])
def test_a_cub_style_block_reduction_with_a_warp_uniform_if(block):
    blocks = 3
    a = np.random.default_rng(block).random(blocks * block)
    out = np.zeros(blocks)
    spare = np.zeros((blocks, 32), np.int64)
    block_sums_by_warps[blocks, block](a, out, spare)
    np.testing.assert_allclose(out, a.reshape(blocks, block).sum(axis=1))
    expected = np.zeros((blocks, 32), np.int64)
    expected[:, 1:block // 32] = 0xFFFFFFFF
    np.testing.assert_array_equal(spare & 0xFFFFFFFF, expected)


def test_the_dump_says_a_warp_uniform_if_splits(tmp_path):
    source = PATHS.replace("syncwarp_tree[1, 64](a, out)",
                           "block_sums_by_warps[1, 64](a, out, np.zeros((1, 32), np.int64))")
    paths = cpu_dump_paths(tmp_path, __file__, ("block_sums_by_warps",), source)
    assert paths["block_sums_by_warps"].startswith("thread loops split at barriers")
