"""On the cpu device, warp functions with the full mask (0xffffffff) that every thread of a
block reaches alike split a block's thread loops as barriers do (COX's hierarchical
collapsing): each thread's operand goes into an array with an element per thread, and the
next loop computes each lane's result from its warp's 32 elements. Partial masks and warp
functions under conditions that threads take differently still run as fibers;
CUDAJIT_DUMP=cpu says which path a kernel took and why. Results are compared with NumPy on
both devices."""


import numpy as np
import pytest

import cudajit as cuda

from conftest import cpu_dump_paths

pytestmark = pytest.mark.usefixtures("device")

FULL = 0xFFFFFFFF


@cuda.jit
def warp_sums(a, out):
    i = cuda.grid(1)
    v = a[i]
    for delta in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, delta)
    if cuda.laneid == 0:
        out[i // 32] = v


@cuda.jit
def butterfly(a, out):
    i = cuda.grid(1)
    v = a[i]
    offset = 1
    while offset < 32:  # uniform: the loop runs once per block around its thread loops
        v += cuda.shfl_xor_sync(FULL, v, offset)
        offset *= 2
    out[i] = v


@cuda.jit
def every_shuffle(a, src, delta, out):
    i = cuda.grid(1)
    v = a[i]
    out[i, 0] = cuda.shfl_sync(FULL, v, src)
    out[i, 1] = cuda.shfl_up_sync(FULL, v, delta)
    out[i, 2] = cuda.shfl_down_sync(FULL, v, delta)
    out[i, 3] = cuda.shfl_xor_sync(FULL, v, delta)
    out[i, 4] = cuda.shfl_sync(FULL, v, cuda.laneid * 7)  # a source lane of each thread's own


@cuda.jit
def votes(a, out):
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    p = a[i] > 0
    out[i, 0] = cuda.ballot_sync(FULL, p)
    out[i, 1] = cuda.all_sync(FULL, p)
    out[i, 2] = cuda.any_sync(FULL, p)
    out[i, 3] = cuda.eq_sync(FULL, p)
    out[i, 4] = cuda.activemask()
    out[i, 5] = cuda.match_any_sync(FULL, a[i])
    lanes, same = cuda.match_all_sync(FULL, a[i] // 100)
    out[i, 6] = lanes
    out[i, 7] = same
    out[i, 8] = t


@cuda.jit
def shared_then_syncwarp(a, out):
    s = cuda.shared.array(256, np.float64)
    t = cuda.threadIdx.x
    s[t] = a[cuda.grid(1)]
    cuda.syncwarp()  # each lane then reads another lane's element of the same warp
    out[cuda.grid(1)] = s[t ^ 1] + cuda.shfl_up_sync(FULL, s[t], 1)


@cuda.jit
def partial_mask(a, out):
    i = cuda.grid(1)
    mask = 0xFFFF if cuda.laneid < 16 else 0xFFFF0000  # two groups of 16 lanes
    out[i] = cuda.shfl_down_sync(mask, a[i], 1)


@cuda.jit
def divergent(a, out):
    i = cuda.grid(1)
    v = a[i]
    if cuda.laneid < 16:
        v = cuda.shfl_down_sync(0xFFFF, v, 1)
    out[i] = v


def warp_groups(n_threads, block):
    """Per thread: the index of its warp's first thread and its warp's width."""
    i = np.arange(n_threads)
    t = i % block
    base = i - t % 32
    width = np.minimum(32, block - (t - t % 32))
    return i, t % 32, base, width


@pytest.mark.parametrize("blocks,block", [(1, 32), (3, 256), (2, 1024)])
def test_a_shuffle_down_reduction_sums_each_warp(blocks, block):
    a = np.random.default_rng(block).random(blocks * block)
    out = np.zeros(blocks * block // 32)
    warp_sums[blocks, block](a, out)
    np.testing.assert_allclose(out, a.reshape(-1, 32).sum(axis=1), rtol=1e-12)


def test_a_butterfly_gives_every_lane_its_warps_sum():
    a = np.arange(512, dtype=np.int64) * 3 - 700
    out = np.zeros_like(a)
    butterfly[2, 256](a, out)
    np.testing.assert_array_equal(out, np.repeat(a.reshape(-1, 32).sum(axis=1), 32))


@pytest.mark.parametrize("block", [64, 40, 100])  # 40, 100: a partial last warp
@pytest.mark.parametrize("dtype", [np.int32, np.float64])
def test_shuffles_in_thread_loops_match_the_gpus_rules(block, dtype):
    blocks = 2
    n = blocks * block
    a = (np.arange(n) * 5 - 77).astype(dtype)
    i, lane, base, width = warp_groups(n, block)
    for src, delta in [(5, 3), (37, 1), (0, 16), (3, 31)]:
        out = np.zeros((n, 5), dtype)
        every_shuffle[blocks, block](a, src, delta, out)

        def check(column, source):
            """A lane of the warp beyond the block gives an undefined value on a GPU (the
            cpu device: the caller's own): only the other threads are compared."""
            there = (source >= 0) & (source < width)
            defined = there | (source < 0) | (source >= 32)
            want = np.where(there, a[np.where(there, base + source, i)], a)
            np.testing.assert_array_equal(out[defined, column], want[defined])

        check(0, np.full(n, src % 32))
        check(1, lane - delta)
        check(2, lane + delta)
        check(3, lane ^ delta)
        check(4, lane * 7 % 32)


@pytest.mark.parametrize("block", [64, 50])
def test_votes_ballot_and_match_in_thread_loops(block):
    blocks = 2
    n = blocks * block
    rng = np.random.default_rng(block)
    a = rng.integers(-3, 4, n) * 100 + rng.integers(0, 2, n)
    a[:32] = np.abs(a[:32]) + 1  # a warp where every predicate holds
    a[32:64] = 100  # ... and one whose values all match
    out = np.zeros((n, 9), np.int64)
    votes[blocks, block](a, out)
    i, lane, base, width = warp_groups(n, block)
    for k in range(n):
        members = np.arange(base[k], base[k] + width[k])
        lanes = (1 << width[k]) - 1
        p = a[members] > 0
        ballot = sum(1 << int(j) for j in np.flatnonzero(p))
        assert out[k, 0] & 0xFFFFFFFF == ballot
        assert out[k, 1] == p.all() and out[k, 2] == p.any()
        assert out[k, 3] == (p.all() or not p.any())
        assert out[k, 4] & 0xFFFFFFFF == lanes
        same = sum(1 << int(j) for j in np.flatnonzero(a[members] == a[k]))
        assert out[k, 5] & 0xFFFFFFFF == same
        all_same = bool((a[members] // 100 == a[k] // 100).all())
        assert out[k, 6] & 0xFFFFFFFF == (lanes if all_same else 0)
        assert out[k, 7] == all_same


def test_syncwarp_orders_a_warps_shared_memory():
    a = np.arange(256, dtype=np.float64) ** 2
    out = np.zeros(256)
    shared_then_syncwarp[1, 256](a, out)
    i, lane, base, width = warp_groups(256, 256)
    up = np.where(lane >= 1, a[np.maximum(i - 1, 0)], a)
    np.testing.assert_array_equal(out, a[i ^ 1] + up)


def test_a_partial_mask_and_a_divergent_shuffle_stay_exact():
    a = np.arange(64, dtype=np.float64)
    out = np.zeros(64)
    partial_mask[1, 64](a, out)
    lane = np.arange(64) % 32
    # lanes 15 and 31 read a lane outside their mask: undefined, not compared
    defined = lane % 16 < 15
    np.testing.assert_array_equal(out[defined], a[defined] + 1)
    divergent[1, 64](a, out)
    defined = lane != 15
    np.testing.assert_array_equal(out[defined], np.where(lane < 15, a + 1, a)[defined])


PATHS = """
import numpy as np, cudajit as cuda
FULL = 0xFFFFFFFF
{kernels}
a = np.arange(64.0); out = np.zeros((64, 9))
for k in (warp_sums, butterfly, shared_then_syncwarp, partial_mask, divergent):
    k[1, 64](a, out[:, 0])
votes[1, 64](a.astype(np.int64), out.astype(np.int64))
every_shuffle[1, 64](a, 1, 1, out[:, :5])
vote_conditions[1, 64](a, out[:, :4])
"""


def test_the_dump_says_which_kernels_run_as_thread_loops(tmp_path):
    paths = cpu_dump_paths(tmp_path, __file__,
                           ("warp_sums", "butterfly", "every_shuffle", "votes",
                            "shared_then_syncwarp", "partial_mask", "divergent",
                            "vote_conditions"), PATHS)
    for name in ("warp_sums", "butterfly", "every_shuffle", "votes", "shared_then_syncwarp",
                 "vote_conditions"):
        assert paths[name].startswith("thread loops split at barriers"), (name, paths[name])
        assert "warp functions and syncwarp split them too" in paths[name]
    assert paths["partial_mask"].startswith("fibers")
    assert "mask is not the constant 0xffffffff" in paths["partial_mask"]
    assert paths["divergent"].startswith("fibers")
    assert "threads may reach differently" in paths["divergent"]


@cuda.jit
def vote_conditions(a, out):
    i = cuda.grid(1)
    lo, hi = cuda.shfl_up_sync(FULL, a[i], 1), cuda.shfl_down_sync(FULL, np.float32(a[i]), 2)
    out[i, 0] = lo
    out[i, 1] = hi
    if cuda.any_sync(FULL, a[i] > 40):  # a warp-uniform condition: a warp statement
        out[i, 2] = 1.0
    out[i, 3] = 2.0 if cuda.all_sync(FULL, a[i] >= 0) else 3.0


def test_a_vote_as_a_condition_and_two_shuffles_in_one_statement():
    a = np.arange(96, dtype=np.float64) - 16
    out = np.zeros((96, 4))
    vote_conditions[1, 96](a, out)
    i = np.arange(96)
    lane, base = i % 32, i - i % 32
    np.testing.assert_array_equal(out[:, 0], np.where(lane >= 1, a[np.maximum(i - 1, 0)], a))
    np.testing.assert_array_equal(out[:, 1], np.where(lane + 2 < 32, a[np.minimum(i + 2, 95)], a))
    warp_any = np.repeat((a.reshape(3, 32) > 40).any(axis=1), 32)
    warp_all = np.repeat((a.reshape(3, 32) >= 0).all(axis=1), 32)
    np.testing.assert_array_equal(out[:, 2], np.where(warp_any, 1.0, 0.0))
    np.testing.assert_array_equal(out[:, 3], np.where(warp_all, 2.0, 3.0))


@cuda.jit
def ballot_2d(a, out):
    t = cuda.threadIdx.y * cuda.blockDim.x + cuda.threadIdx.x
    i = cuda.blockIdx.x * cuda.blockDim.x * cuda.blockDim.y + t
    out[i] = cuda.ballot_sync(FULL, a[i] > 0)


@pytest.mark.parametrize("block", [(8, 6), (16, 4), (5, 7)])
def test_a_vote_counted_once_per_warp_holds_for_every_lane_of_2d_blocks(block):
    # The warp's lanes are counted by its lane 0 and kept for the others: warps of 2-D
    # blocks are runs of 32 in (threadIdx.y, threadIdx.x) order, the last one partial.
    threads = block[0] * block[1]
    n = 3 * threads
    a = np.random.default_rng(threads).integers(-1, 2, n)
    out = np.zeros(n, np.int64)
    ballot_2d[3, block](a, out)
    for k in range(n):
        t = k % threads
        base = k - t % 32
        width = min(32, threads - t + t % 32)
        bits = a[base:base + width] > 0
        assert out[k] & 0xFFFFFFFF == sum(1 << int(j) for j in np.flatnonzero(bits)), k
