"""A thread that returns before its block's barriers (`if i >= n: return`, the last partial
block) no longer sends the block to fibers on the cpu device: the split thread loops skip
the threads that returned, which count as arrived at later barriers, as on a GPU. Results are
compared with NumPy on every device; CUDAJIT_DUMP=cpu says which path each kernel took."""


import numpy as np
import pytest

import cudajit as cuda

from conftest import cpu_dump_paths

TPB = 128
FULL = 0xFFFFFFFF


@cuda.jit
def guarded_block_sum(a, out):
    s = cuda.shared.array(TPB, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = 0.0
    if i >= a.size:
        return
    s[t] = a[i]
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride and i + stride < a.size:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        out[cuda.blockIdx.x] = s[0]


@cuda.jit
def leave_one_by_one(out, rounds):
    t = cuda.threadIdx.x
    done = 0
    for k in range(rounds):
        if t == k:
            return  # thread k leaves in round k, after k rounds of work
        done += 1
        cuda.syncthreads()
    out[cuda.grid(1)] = done


@cuda.jit
def return_then_shuffle(a, out):
    i = cuda.grid(1)
    if i >= a.size:
        return
    out[i] = cuda.shfl_down_sync(FULL, a[i], 1)


@pytest.mark.parametrize("n", [1000, 1024, 1, 129])
def test_a_partial_last_block_that_returns_early_sums_as_numpy(device, n):
    a = np.random.default_rng(n).random(n)
    out = np.zeros((n + TPB - 1) // TPB)
    guarded_block_sum[out.size, TPB](a, out)
    want = [a[k * TPB:(k + 1) * TPB].sum() for k in range(out.size)]
    np.testing.assert_allclose(out, want, rtol=1e-12)


def test_threads_that_return_inside_a_loop_of_barriers_do_no_more_rounds(device):
    out = np.full(2 * TPB, -1, np.int64)
    leave_one_by_one[2, TPB](out, 5)
    want = np.full((2, TPB), 5)
    want[:, :5] = -1  # threads 0..4 returned before writing
    np.testing.assert_array_equal(out, want.ravel())


PATHS = """
import numpy as np
import cudajit as cuda
TPB = {tpb}
FULL = 0xFFFFFFFF

{kernels}

guarded_block_sum[2, TPB](np.ones(200), np.zeros(2))
leave_one_by_one[1, TPB](np.zeros(TPB, np.int64), 3)
return_then_shuffle[1, 64](np.ones(64), np.zeros(64))
"""


def test_the_dump_says_early_returns_split_unless_warp_functions_follow(tmp_path, device):
    if device != "cpu":
        pytest.skip("the dump describes the cpu device")
    paths = cpu_dump_paths(tmp_path, __file__,
                           ("guarded_block_sum", "leave_one_by_one", "return_then_shuffle"),
                           PATHS.replace("{tpb}", str(TPB)))
    assert paths["guarded_block_sum"].startswith("thread loops split at barriers")
    assert paths["leave_one_by_one"].startswith("thread loops split at barriers")
    assert paths["return_then_shuffle"].startswith("fibers")
    assert "a thread may leave a kernel that calls warp functions early" in \
        paths["return_then_shuffle"]


def test_a_shuffle_after_an_early_return_is_each_lanes_neighbour_when_none_returns(device):
    # (Had some returned, a full-mask shuffle would be undefined on a GPU; the fibers say so.)
    a = np.arange(64, dtype=np.float64)
    out = np.zeros(64)
    return_then_shuffle[1, 64](a, out)
    want = np.where(np.arange(64) % 32 == 31, a, np.roll(a, -1))
    np.testing.assert_array_equal(out, want)
