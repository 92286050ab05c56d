"""Warp-level functions on every device: shuffles of 32- and 64-bit ints and
floats, votes, ballot, match, activemask and lanemask_lt, with Numba's types
and edge rules. On the cpu device the lanes of a warp meet at each operation
(fibers), as they do on a GPU."""

import os
import subprocess
import sys

import numpy as np
import pytest

import cudajit as cuda
from cudajit import _core

from conftest import module_from_source

PYTHON_DIR = os.path.dirname(os.path.dirname(cuda.__file__))

pytestmark = pytest.mark.usefixtures("device")

FULL = 0xFFFFFFFF
SHUFFLE_DTYPES = [np.int32, np.int64, np.uint32, np.uint64, np.float32, np.float64]


def ids(dtype):
    return np.dtype(dtype).name


def lane_values(dtype, n=64):
    """Distinct values per thread that use the dtype's full width."""
    i = np.arange(n)
    if np.dtype(dtype).kind == "f":
        return (i * 1.25 - 20.5).astype(dtype)
    big = np.iinfo(dtype).max // 2 if np.dtype(dtype).itemsize == 8 else 1000
    return (i + big - 40).astype(dtype)


@pytest.mark.parametrize("dtype", SHUFFLE_DTYPES, ids=ids)
def test_shuffles_move_values_between_lanes(dtype):
    @cuda.jit
    def shuffles(a, src, delta, out):
        i = cuda.grid(1)
        v = a[i]
        out[i, 0] = cuda.shfl_sync(FULL, v, src)
        out[i, 1] = cuda.shfl_up_sync(FULL, v, delta)
        out[i, 2] = cuda.shfl_down_sync(FULL, v, delta)
        out[i, 3] = cuda.shfl_xor_sync(FULL, v, delta)

    a = lane_values(dtype)
    for src, delta in [(5, 3), (37, 1), (0, 16)]:
        out = np.zeros((64, 4), dtype)
        shuffles[2, 32](a, src, delta, out)
        i = np.arange(64)
        lane, base = i % 32, i - i % 32
        np.testing.assert_array_equal(out[:, 0], a[base + src % 32])
        up = np.where(lane >= delta, a[np.maximum(i - delta, 0)], a)
        down = np.where(lane + delta < 32, a[np.minimum(i + delta, 63)], a)
        np.testing.assert_array_equal(out[:, 1], up)
        np.testing.assert_array_equal(out[:, 2], down)
        np.testing.assert_array_equal(out[:, 3], a[base + (lane ^ delta)])


def _shuffled_by_the_low_five_bits(a, b):
    """What PTX's shfl.sync gives each of 64 threads for operand b (of which only b[4:0],
    bval, counts: 'an out of range value of b may still result in a valid ... lane'):
    columns idx, up, down, bfly, in a full warp (the clamp 31, up's 0)."""
    i = np.arange(64)
    lane, base, bval = i % 32, i - i % 32, b & 31
    up = np.where(lane >= bval, a[np.maximum(i - bval, 0)], a)
    down = np.where(lane + bval < 32, a[np.minimum(i + bval, 63)], a)
    return np.stack([a[base + bval], up, down, a[base + (lane ^ bval)]], axis=1)


@pytest.mark.parametrize("b", [0, 31, 32, 33, 40, 63, 100])
def test_shuffle_offsets_are_their_low_five_bits(b):
    """A delta or lane of 32 or more wraps to its low five bits, as PTX defines and a GPU does,
    both where the cpu device splits the block into thread loops and where it runs fibers
    (a warp function under a condition that depends on the thread)."""
    @cuda.jit
    def straight(a, b, out):
        i = cuda.grid(1)
        v = a[i]
        out[i, 0] = cuda.shfl_sync(FULL, v, b)
        out[i, 1] = cuda.shfl_up_sync(FULL, v, b)
        out[i, 2] = cuda.shfl_down_sync(FULL, v, b)
        out[i, 3] = cuda.shfl_xor_sync(FULL, v, b)

    @cuda.jit
    def conditional(a, b, out):
        i = cuda.grid(1)
        v = a[i]
        if cuda.threadIdx.x < 64:  # every thread: the cpu device cannot tell, so fibers
            out[i, 0] = cuda.shfl_sync(FULL, v, b)
            out[i, 1] = cuda.shfl_up_sync(FULL, v, b)
            out[i, 2] = cuda.shfl_down_sync(FULL, v, b)
            out[i, 3] = cuda.shfl_xor_sync(FULL, v, b)

    a = lane_values(np.int64)
    for kernel in (straight, conditional):
        out = np.zeros((64, 4), np.int64)
        kernel[2, 32](a, b, out)
        np.testing.assert_array_equal(out, _shuffled_by_the_low_five_bits(a, b))


def test_block_reduction_with_warp_shuffles():
    @cuda.jit
    def block_sum(a, out):
        partial = cuda.shared.array(32, np.float64)
        i = cuda.grid(1)
        v = a[i]
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(FULL, v, offset)
            offset //= 2
        lane = cuda.threadIdx.x % 32
        warp = cuda.threadIdx.x // 32
        if lane == 0:
            partial[warp] = v
        cuda.syncthreads()
        if warp == 0:
            v = partial[lane] if lane < cuda.blockDim.x // 32 else 0.0
            offset = 16
            while offset > 0:
                v += cuda.shfl_xor_sync(FULL, v, offset)
                offset //= 2
            if lane == 0:
                out[cuda.blockIdx.x] = v

    a = np.random.default_rng(6).random(8 * 256)
    out = np.zeros(8)
    block_sum[8, 256](a, out)
    np.testing.assert_allclose(out, a.reshape(8, 256).sum(axis=1), rtol=1e-12)


def test_votes_and_ballot():
    @cuda.jit
    def votes(flags, out, wide):
        i = cuda.grid(1)
        p = flags[i]
        out[i, 0] = cuda.all_sync(FULL, p)
        out[i, 1] = cuda.any_sync(FULL, p)
        out[i, 2] = cuda.eq_sync(FULL, p)
        out[i, 3] = cuda.ballot_sync(FULL, p)
        if cuda.laneid < 16:
            out[i, 4] = cuda.ballot_sync(0x0000FFFF, p)  # called by the mask's lanes only
        wide[i] = cuda.ballot_sync(FULL, p)  # int32: lane 31 makes it negative

    flags = np.zeros(96, np.int32)
    flags[0:32] = 1                # warp 0: all
    flags[[33, 40, 63]] = 7        # warp 1: some, lane 31 among them
    out = np.zeros((96, 5), np.int64)
    wide = np.zeros(96, np.int64)
    votes[3, 32](flags, out, wide)
    ballot1 = (1 << 1) | (1 << 8) | (1 << 31)
    expected = {0: (1, 1, 1, -1, 0xFFFF), 1: (0, 1, 0, ballot1 - (1 << 32), 1 << 1 | 1 << 8),
                2: (0, 0, 1, 0, 0)}
    for warp, row in expected.items():
        rows = out[warp * 32:(warp + 1) * 32]
        np.testing.assert_array_equal(rows[:, :4], np.tile(row[:4], (32, 1)))
        np.testing.assert_array_equal(rows[:16, 4], np.full(16, row[4]))
        np.testing.assert_array_equal(rows[16:, 4], np.zeros(16))
    np.testing.assert_array_equal(wide[32:64], np.full(32, ballot1 - (1 << 32)))


def test_match_compares_bit_patterns():
    @cuda.jit
    def match(ints, floats, out):
        i = cuda.grid(1)
        out[i, 0] = cuda.match_any_sync(FULL, ints[i])
        out[i, 1] = cuda.match_any_sync(FULL, floats[i])
        lanes, same = cuda.match_all_sync(FULL, ints[i] // 100)
        out[i, 2] = lanes
        out[i, 3] = same
        lanes2, same2 = cuda.match_all_sync(FULL, floats[i])
        out[i, 4] = lanes2
        out[i, 5] = same2

    ints = (np.arange(32) % 3).astype(np.int64)
    floats = np.where(np.arange(32) % 2 == 0, 0.0, -0.0).astype(np.float32)
    out = np.zeros((32, 6), np.int64)
    match[1, 32](ints, floats, out)
    lane = np.arange(32)
    by_residue = {r: sum(1 << k for k in range(32) if k % 3 == r) for r in range(3)}
    as_int32 = lambda m: m - (1 << 32) if m >= 1 << 31 else m  # noqa: E731
    np.testing.assert_array_equal(out[:, 0], [as_int32(by_residue[k % 3]) for k in lane])
    evens = sum(1 << k for k in range(0, 32, 2))
    odds = sum(1 << k for k in range(1, 32, 2))
    np.testing.assert_array_equal(out[:, 1], [as_int32(evens if k % 2 == 0 else odds)
                                              for k in lane])
    np.testing.assert_array_equal(out[:, 2], np.full(32, -1))  # every value // 100 is 0
    np.testing.assert_array_equal(out[:, 3], np.ones(32))
    np.testing.assert_array_equal(out[:, 4], np.zeros(32))  # 0.0 and -0.0 differ
    np.testing.assert_array_equal(out[:, 5], np.zeros(32))


def test_activemask_is_the_lanes_of_the_branch_and_lanemask_lt_the_lanes_below():
    @cuda.jit
    def masks(out):
        i = cuda.grid(1)
        lane = cuda.laneid
        if lane < 5:
            out[i, 0] = cuda.activemask()
        else:
            out[i, 0] = cuda.activemask()
        out[i, 1] = cuda.activemask()
        out[i, 2] = cuda.lanemask_lt()

    out = np.zeros((64, 3), np.uint32)
    masks[2, 32](out)
    lane = np.arange(64) % 32
    np.testing.assert_array_equal(out[:, 0], np.where(lane < 5, 0x1F, 0xFFFFFFE0))
    np.testing.assert_array_equal(out[:, 1], np.full(64, 0xFFFFFFFF))
    np.testing.assert_array_equal(out[:, 2], ((1 << lane) - 1).astype(np.uint32))


def test_partial_warp_shuffles_within_its_lanes():
    @cuda.jit
    def rotate(a, out):
        i = cuda.grid(1)
        lane = cuda.laneid
        width = min(32, cuda.blockDim.x - (cuda.threadIdx.x - lane))
        mask = (1 << width) - 1
        out[i] = cuda.shfl_sync(mask, a[i], (lane + 1) % width)

    a = np.arange(40, dtype=np.int32) * 3
    out = np.zeros_like(a)
    rotate[1, 40](a, out)
    expected = np.concatenate([np.roll(a[:32], -1), np.roll(a[32:], -1)])
    np.testing.assert_array_equal(out, expected)


def test_warp_functions_compile_to_ptx_that_ptxas_accepts(check_ptx):
    def kernel(a, b, out):
        i = cuda.grid(1)
        s = cuda.shfl_sync(FULL, a[i], 3) + cuda.shfl_up_sync(FULL, a[i], 1) + \
            cuda.shfl_down_sync(FULL, a[i], 1) + cuda.shfl_xor_sync(FULL, a[i], 1)
        t = cuda.shfl_sync(FULL, b[i], 3)
        v = cuda.all_sync(FULL, s > 0) + cuda.any_sync(FULL, s > 0) + cuda.eq_sync(FULL, s > 0)
        w = cuda.ballot_sync(FULL, t > 0) + cuda.match_any_sync(FULL, t)
        lanes, same = cuda.match_all_sync(FULL, a[i])
        out[i] = s + t + v + w + lanes + same + cuda.activemask() + cuda.lanemask_lt()

    for cc in [(7, 5), (8, 0), (9, 0)]:
        ptx, _ = cuda.compile_ptx(kernel, "void(float32[::1], int64[::1], float64[::1])", cc=cc)
        check_ptx(ptx, cc=cc)
        for text in ["shfl.sync.idx.b32", "shfl.sync.up.b32", "shfl.sync.down.b32",
                     "shfl.sync.bfly.b32", "vote.sync.all.pred", "vote.sync.ballot.b32",
                     "match.any.sync.b64", "match.all.sync.b32", "activemask.b32"]:
            assert text in ptx, text


OUTSIDE_MASK = """
import numpy as np
import cudajit as cuda
from cudajit import _core

_core.set_current_device(_core.cuda_device(0) if DEVICE == "cuda" else _core.cpu_device())


@cuda.jit
def outside(out):
    out[cuda.grid(1)] = cuda.ballot_sync(0x1, 1)  # lanes 1-31 are not in the mask


try:
    outside[1, 32](np.zeros(32, np.int32))
    cuda.synchronize()
except Exception as error:
    print(type(error).__name__, error)
"""


def test_a_lane_outside_its_own_mask_is_an_error(tmp_path, device):
    if device == "cuda" and not _core.cuda_simulated():
        # The PTX ISA leaves it undefined; the H200 ran on without an error.
        pytest.skip("a lane outside its own mask is undefined behaviour on a GPU; "
                    "only the simulated GPU reports it")
    # On the simulated GPU the error poisons the context for good: a process of its own.
    script = tmp_path / "outside_mask.py"
    script.write_text(f"DEVICE = {device!r}\n" + OUTSIDE_MASK)
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            timeout=120, env=dict(os.environ, PYTHONPATH=PYTHON_DIR))
    if device == "cuda":
        assert "CUDA_ERROR_ILLEGAL_INSTRUCTION" in result.stdout, result.stdout + result.stderr
    else:
        assert result.stdout.startswith("RuntimeError kernel 'outside': lane 1 of warp 0 of "
                                        "block (0, 0, 0) called a warp operation whose mask 0x1 "
                                        "leaves it out"), result.stdout + result.stderr


@pytest.mark.parametrize("body, message", [
    ("cuda.shfl_sync(FULL, 1j, 0)", "cuda.shfl_sync() exchanges integers and floats, got "
     "complex128"),
    ("cuda.shfl_sync(FULL, 1.0)", "cuda.shfl_sync() takes 3 arguments, got 2"),
    ("cuda.shfl_down_sync(1.5, 1.0, 1)", "cuda.shfl_down_sync() needs an integer mask, got "
     "float64"),
    ("cuda.ballot_sync(FULL, 1j)", "cuda.ballot_sync(): Predicate must be an integer or "
     "boolean, got complex128"),
    # numba-cuda's checks and words: a float predicate, a bool mask
    ("cuda.all_sync(FULL, 1.5)", "cuda.all_sync(): Predicate must be an integer or boolean, "
     "got float64"),
    ("cuda.any_sync(True, 1)", "cuda.any_sync(): Mask type must be an integer, got bool"),
])
def test_warp_function_misuse_is_a_compile_error(tmp_path, body, message):
    module = module_from_source(
        tmp_path, "warp_misuse",
        f"import cudajit as cuda\nFULL = 0xFFFFFFFF\n\ndef kernel(a):\n    {body}\n")
    with pytest.raises(cuda.CompileError) as error:
        cuda.jit(module.kernel)[1, 1](np.zeros(1))
    assert message in str(error.value)
