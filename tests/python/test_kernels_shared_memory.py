"""Shared and local arrays, barriers and fences, on every device: cuda.shared.array
(static 1-D to 3-D, dynamic with shape 0), cuda.local.array, syncthreads and its
reductions, syncwarp, threadfence*. On the cpu device the threads of a block that
synchronises run as fibers; on the cuda device the PTX runs (on the simulated GPU
where there is no GPU)."""

import re

import numpy as np
import pytest

import cudajit as cuda

from conftest import ALL_DTYPES, dtype_id, random_array

pytestmark = pytest.mark.usefixtures("device")

TPB = 16
TILE = 8


@cuda.jit
def tiled_matmul(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=cuda.float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype="float32")
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    acc = cuda.float32(0.0)
    for i in range(cuda.gridDim.x):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and tx + i * TPB < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and ty + i * TPB < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = acc


def test_tiled_matrix_multiply_in_shared_memory():
    rng = np.random.default_rng(1)
    n = 48
    A = rng.random((n, n), dtype=np.float32)
    B = rng.random((n, n), dtype=np.float32)
    C = np.zeros((n, n), np.float32)
    blocks = n // TPB
    tiled_matmul[(blocks, blocks), (TPB, TPB)](A, B, C)
    np.testing.assert_allclose(C, A @ B, rtol=1e-5)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_block_reverses_through_shared_memory_of_each_dtype(dtype):
    numba_dtype = dtype

    @cuda.jit
    def reverse(a, out):
        s = cuda.shared.array(64, numba_dtype)
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        s[t] = a[i]
        cuda.syncthreads()
        out[i] = s[cuda.blockDim.x - 1 - t]

    a = random_array(dtype, (256,))
    out = np.zeros_like(a)
    reverse[4, 64](a, out)
    np.testing.assert_array_equal(out, a.reshape(4, 64)[:, ::-1].reshape(-1))


def test_shared_arrays_of_two_and_three_dimensions_with_constant_expression_shapes():
    @cuda.jit
    def transpose(a, out):
        tile = cuda.shared.array((TILE, TILE + 1), np.float64)  # padded: beyond Numba
        cube = cuda.shared.array(shape=(2, TILE, TILE), dtype=np.dtype("i8"))
        x, y = cuda.threadIdx.x, cuda.threadIdx.y
        tile[y, x] = a[y, x]
        cube[1, y, x] = y * 100 + x
        cuda.syncthreads()
        out[y, x] = tile[x, y] + cube[1, x, y]

    a = random_array(np.float64, (TILE, TILE))
    out = np.zeros_like(a)
    transpose[1, (TILE, TILE)](a, out)
    yy, xx = np.mgrid[0:TILE, 0:TILE]
    np.testing.assert_array_equal(out, a.T + (xx * 100 + yy))
    # The array's own shape and strides are the declared ones.

    @cuda.jit
    def describe(out):
        tile = cuda.shared.array((3, TILE + 1), np.float32)
        out[0] = tile.shape[0]
        out[1] = tile.shape[1]
        out[2] = tile.strides[0]
        out[3] = tile.strides[1]
        out[4] = tile.size
        out[5] = tile.ndim

    info = np.zeros(6, np.int64)
    describe[1, 1](info)
    np.testing.assert_array_equal(info, [3, TILE + 1, 4 * (TILE + 1), 4, 3 * (TILE + 1), 2])


def test_dynamic_shared_memory_is_sized_by_the_launch_and_aliased_by_every_shape_0_array():
    @cuda.jit
    def dynamic(out, lengths):
        floats = cuda.shared.array(0, np.float32)
        ints = cuda.shared.array(0, np.int32)  # the same bytes
        t = cuda.threadIdx.x
        floats[t] = t + 0.5
        cuda.syncthreads()
        out[t] = ints[t]
        if t == 0:
            lengths[0] = len(floats)
            lengths[1] = ints.size
            lengths[2] = len(cuda.shared.array(0, np.int8))

    out = np.zeros(32, np.int32)
    lengths = np.zeros(3, np.int64)
    dynamic[1, 32, 0, 4 * 40](out, lengths)
    np.testing.assert_array_equal(out, (np.arange(32) + 0.5).astype(np.float32).view(np.int32))
    np.testing.assert_array_equal(lengths, [40, 40, 160])


def test_dynamic_shared_memory_follows_the_static_arrays():
    @cuda.jit
    def both(out):
        static = cuda.shared.array(3, np.int64)
        dynamic = cuda.shared.array(0, np.int64)
        t = cuda.threadIdx.x
        if t < 3:
            static[t] = 100 + t
        dynamic[t] = 200 + t
        cuda.syncthreads()
        out[t] = dynamic[t] + (static[t] if t < 3 else 0)

    out = np.zeros(16, np.int64)
    both[1, 16, 0, 16 * 8](out)
    expected = 200 + np.arange(16)
    expected[:3] += 100 + np.arange(3)
    np.testing.assert_array_equal(out, expected)


def test_shared_memory_is_per_block():
    @cuda.jit
    def per_block(out):
        s = cuda.shared.array(1, np.int64)
        if cuda.threadIdx.x == 0:
            s[0] = cuda.blockIdx.x
        cuda.syncthreads()
        out[cuda.grid(1)] = s[0]

    out = np.zeros(64 * 8, np.int64)
    per_block[64, 8](out)
    np.testing.assert_array_equal(out, np.repeat(np.arange(64), 8))


def test_launch_with_more_shared_memory_than_the_device_has_is_refused_before_running():
    @cuda.jit
    def uses_shared(out):
        s = cuda.shared.array(1024, np.float64)  # 8 KiB static
        s[cuda.threadIdx.x] = 1
        cuda.syncthreads()
        out[0] = s[0]

    out = np.zeros(1, np.float64)
    with pytest.raises(ValueError, match=r"dynamic shared memory of 1048576 bytes exceeds the "
                       r"limit of (\d+) bytes per block") as too_much:
        uses_shared[1, 1, 0, 1 << 20](out)
    limit = int(re.search(r"limit of (\d+)", str(too_much.value)).group(1))
    dynamic = limit - 8192 + 16
    with pytest.raises(ValueError, match=f"kernel 'uses_shared' uses 8192 bytes of static shared "
                       f"memory; with {dynamic} dynamic bytes that exceeds the limit of {limit}"):
        uses_shared[1, 1, 0, dynamic](out)
    assert out[0] == 0
    uses_shared[1, 1, 0, 1024](out)
    assert out[0] == 1


@pytest.mark.parametrize("count", [1, 16, 33, 64])
def test_syncthreads_count_and_or_reduce_the_predicates_of_the_block(count):
    @cuda.jit
    def reductions(threshold, out):
        t = cuda.threadIdx.x
        below = t < threshold
        n = cuda.syncthreads_count(below)
        every = cuda.syncthreads_and(below)
        some = cuda.syncthreads_or(t == threshold)
        out[t, 0] = n
        out[t, 1] = every
        out[t, 2] = some

    out = np.full((64, 3), -1, np.int64)
    reductions[1, 64](count, out)
    np.testing.assert_array_equal(out[:, 0], np.full(64, count))
    np.testing.assert_array_equal(out[:, 1], np.full(64, int(count == 64)))
    np.testing.assert_array_equal(out[:, 2], np.full(64, int(count < 64)))


def test_syncthreads_in_loops_and_device_functions():
    @cuda.jit(device=True)
    def shift_left(s, t):
        value = s[(t + 1) % s.size]
        cuda.syncthreads()
        s[t] = value
        cuda.syncthreads()

    @cuda.jit
    def rotate(a, steps):
        s = cuda.shared.array(128, np.int32)
        t = cuda.threadIdx.x
        s[t] = a[t]
        cuda.syncthreads()
        for _ in range(steps):
            shift_left(s, t)
        a[t] = s[t]

    a = np.arange(128, dtype=np.int32)
    rotate[1, 128](a, 37)
    np.testing.assert_array_equal(a, np.roll(np.arange(128, dtype=np.int32), -37))


def test_block_reduction_of_1024_threads_in_shared_memory():
    @cuda.jit
    def block_sum(a, out):
        s = cuda.shared.array(1024, np.float64)
        t = cuda.threadIdx.x
        s[t] = a[cuda.grid(1)]
        cuda.syncthreads()
        stride = cuda.blockDim.x // 2
        while stride > 0:
            if t < stride:
                s[t] += s[t + stride]
            cuda.syncthreads()
            stride //= 2
        if t == 0:
            out[cuda.blockIdx.x] = s[0]

    a = np.random.default_rng(3).random(4 * 1024)
    out = np.zeros(4)
    block_sum[4, 1024](a, out)
    np.testing.assert_allclose(out, a.reshape(4, 1024).sum(axis=1), rtol=1e-12)


def test_syncwarp_orders_shared_memory_between_lanes():
    @cuda.jit
    def neighbour(out):
        s = cuda.shared.array(64, np.int32)
        t = cuda.threadIdx.x
        s[t] = t * 3
        cuda.syncwarp()
        lane = t % 32
        out[t] = s[t - lane + (lane + 1) % 32]
        cuda.syncwarp(0xFFFFFFFF)

    out = np.zeros(64, np.int32)
    neighbour[1, 64](out)
    t = np.arange(64)
    np.testing.assert_array_equal(out, (t - t % 32 + (t % 32 + 1) % 32) * 3)


def test_local_arrays_are_private_to_each_thread():
    @cuda.jit
    def per_thread(out):
        i = cuda.grid(1)
        scratch = cuda.local.array(8, np.int64)
        grid = cuda.local.array(shape=(2, 3), dtype="float64")
        for k in range(8):
            scratch[k] = i * 10 + k
        for r in range(2):
            for c in range(3):
                grid[r, c] = r * 3 + c + i
        total = 0
        for k in range(8):
            total += scratch[k]
        out[i] = total + grid[1, 2]

    out = np.zeros(96, np.float64)
    per_thread[3, 32](out)
    i = np.arange(96)
    np.testing.assert_array_equal(out, 80 * i + 28 + 5 + i)


def test_threadfence_orders_a_last_block_reduction():
    # Each block writes its partial sum, fences, and takes a ticket; the block
    # that draws the last ticket sums the partials (CUDA's threadFenceReduction).
    @cuda.jit
    def reduce(a, partial, ticket, out):
        t = cuda.threadIdx.x
        s = cuda.shared.array(32, np.int64)
        s[t] = a[cuda.grid(1)]
        cuda.syncthreads()
        if t == 0:
            total = 0
            for k in range(32):
                total += s[k]
            partial[cuda.blockIdx.x] = total
            cuda.threadfence()
            cuda.threadfence_block()
            cuda.threadfence_system()
            last = cuda.atomic.inc(ticket, 0, cuda.gridDim.x - 1) == cuda.gridDim.x - 1
            if last:
                grand = 0
                for b in range(cuda.gridDim.x):
                    grand += partial[b]
                out[0] = grand

    a = np.arange(32 * 50, dtype=np.int64)
    partial = np.zeros(50, np.int64)
    ticket = np.zeros(1, np.uint32)
    out = np.zeros(1, np.int64)
    reduce[50, 32](a, partial, ticket, out)
    assert out[0] == a.sum()
    assert ticket[0] == 0  # inc wrapped back to 0 after the last block


def test_kernels_with_barriers_compile_to_ptx_that_ptxas_accepts(check_ptx):
    sig = "void(float32[:, ::1], float32[:, ::1], float32[:, ::1])"
    for cc in [(7, 5), (8, 0), (9, 0)]:
        ptx, _ = cuda.compile_ptx(tiled_matmul, sig, cc=cc)
        check_ptx(ptx, cc=cc)
        assert "bar.sync 0;" in ptx
        assert ".shared" in ptx


def test_barrier_reductions_and_dynamic_shared_compile_for_each_target(check_ptx):
    def kernel(out):
        dyn = cuda.shared.array(0, np.float32)
        local = cuda.local.array(4, np.int32)
        local[0] = cuda.threadIdx.x
        dyn[0] = cuda.syncthreads_count(local[0] > 3) + cuda.syncthreads_and(1) + \
            cuda.syncthreads_or(0)
        cuda.syncwarp(0xFF)
        cuda.threadfence()
        cuda.threadfence_block()
        cuda.threadfence_system()
        out[0] = dyn[0] + len(dyn)

    for cc in [(7, 5), (8, 0), (9, 0)]:
        ptx, _ = cuda.compile_ptx(kernel, "void(float32[::1])", cc=cc)
        check_ptx(ptx, cc=cc)
        for text in ["bar.red.popc.u32", "bar.red.and.pred", "bar.red.or.pred",
                     "bar.warp.sync", "membar.gl", "membar.cta", "membar.sys",
                     "%dynamic_smem_size",
                     ".extern .shared .align 16 .b8 cudajit_dynamic_shared[]"]:
            assert text in ptx, text


def test_threads_that_returned_do_not_hold_a_barrier_up():
    # Numba's documented tiled matmul returns early, before its barriers.
    @cuda.jit
    def early_return(out):
        t = cuda.threadIdx.x
        if t >= 40:
            return
        s = cuda.shared.array(64, np.int32)
        s[t] = t
        cuda.syncthreads()
        out[t] = s[39 - t] + cuda.syncthreads_count(t < 10)

    out = np.full(64, -1, np.int32)
    early_return[1, 64](out)
    cuda.synchronize()
    expected = np.full(64, -1, np.int32)
    expected[:40] = 39 - np.arange(40) + 10  # the count is over the 40 that arrive
    np.testing.assert_array_equal(out, expected)


def test_numbas_fast_matmul_with_its_early_return_on_an_odd_size():
    @cuda.jit
    def fast_matmul(A, B, C):
        sA = cuda.shared.array(shape=(TPB, TPB), dtype=cuda.float32)
        sB = cuda.shared.array(shape=(TPB, TPB), dtype=cuda.float32)
        x, y = cuda.grid(2)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        bpg = cuda.gridDim.x
        if x >= C.shape[0] and y >= C.shape[1]:
            return
        tmp = 0.
        for i in range(bpg):
            sA[tx, ty] = 0
            sB[tx, ty] = 0
            if x < A.shape[0] and (ty + i * TPB) < A.shape[1]:
                sA[tx, ty] = A[x, ty + i * TPB]
            if y < B.shape[1] and (tx + i * TPB) < B.shape[0]:
                sB[tx, ty] = B[tx + i * TPB, y]
            cuda.syncthreads()
            for j in range(TPB):
                tmp += sA[tx, j] * sB[j, ty]
            cuda.syncthreads()
        if x < C.shape[0] and y < C.shape[1]:
            C[x, y] = tmp

    n = 37
    rng = np.random.default_rng(11)
    A = rng.random((n, n), dtype=np.float32)
    B = rng.random((n, n), dtype=np.float32)
    C = np.zeros((n, n), np.float32)
    blocks = (n + TPB - 1) // TPB
    fast_matmul[(blocks, blocks), (TPB, TPB)](A, B, C)
    np.testing.assert_allclose(C, A @ B, rtol=1e-5)


def test_threads_that_cannot_meet_are_an_error_on_the_cpu_device(device):
    @cuda.jit
    def split(out):
        t = cuda.threadIdx.x
        if t == 0:
            cuda.syncthreads()  # lane 0 here, lanes 1-31 at a syncwarp waiting for it
        else:
            cuda.syncwarp()
        out[t] = 1

    if device != "cpu":
        pytest.skip("undefined behaviour on a GPU; only the cpu device detects it")
    out = np.zeros(32, np.int32)
    with pytest.raises(RuntimeError, match=r"kernel 'split': the threads of block \(0, 0, 0\) "
                       r"cannot meet at a barrier \(undefined behaviour on a GPU\): 1 thread "
                       r"waits at cuda.syncthreads\(\) \(the first: threadIdx \(0, 0, 0\)\), "
                       r"31 threads wait at a warp operation"):
        split[1, 32](out)
        cuda.synchronize()
    # The device goes on working.
    tiled_matmul[(1, 1), (TPB, TPB)](np.ones((TPB, TPB), np.float32),
                                      np.ones((TPB, TPB), np.float32),
                                      np.zeros((TPB, TPB), np.float32))


def test_barrier_intrinsics_used_outside_kernels_raise():
    with pytest.raises(RuntimeError, match="cuda.syncthreads\\(\\) can only be used inside"):
        cuda.syncthreads()
    with pytest.raises(RuntimeError, match="cuda.shared.array\\(\\) can only be used inside"):
        cuda.shared.array(4, np.float32)


def test_a_local_assigned_a_constant_once_sizes_a_shared_array():
    @cuda.jit
    def kernel(out):
        n = 64
        half = n // 2
        sm = cuda.shared.array(half + n // 2, np.int32)
        i = cuda.grid(1)
        sm[i] = i * 2
        cuda.syncthreads()
        out[i] = sm[n - 1 - i]

    out = np.zeros(64, np.int32)
    kernel[1, 64](out)
    np.testing.assert_array_equal(out, (63 - np.arange(64)) * 2)


def test_a_local_assigned_twice_is_not_a_constant():
    def kernel(out):
        n = 8
        n = 16
        sm = cuda.shared.array(n, np.int32)
        out[0] = sm[0]

    with pytest.raises(cuda.CompileError, match="'n' is not a constant"):
        cuda.jit(kernel)[1, 1](np.zeros(1, np.int32))


ALIGN_DTYPES = [np.uint8, np.float64,
                np.dtype([("a", np.uint8), ("b", np.int32), ("c", np.float64)], align=True),
                np.dtype([("a", np.uint32), ("b", np.uint8)])]


@pytest.mark.parametrize("dtype", ALIGN_DTYPES, ids=lambda d: str(np.dtype(d)))
@pytest.mark.parametrize("alignment", [None, 16, 64, 256, 1024])
def test_shared_and_local_arrays_start_at_the_alignment_asked_for(device, alignment, dtype):
    # Numba's alignment= (a power of 2, a multiple of the pointer size); a.ctypes.data is
    # the array's address, as in Numba. Another array before each makes the offset matter.
    @cuda.jit
    def addresses(out):
        before = cuda.shared.array(3, np.uint8)
        shared = cuda.shared.array((5, 3), dtype, alignment=alignment)
        pad = cuda.local.array(3, np.uint8)
        local = cuda.local.array(7, dtype, alignment=alignment)
        i = cuda.threadIdx.x
        before[0] = 1
        pad[0] = 1
        out[i, 0] = shared.ctypes.data
        out[i, 1] = local.ctypes.data

    out = np.zeros((4, 2), np.uint64)
    addresses[1, 4](out)
    assert (out % np.uint64(alignment or 16) == 0).all(), [hex(int(a)) for a in out.ravel()]
    assert (out[:, 0] == out[0, 0]).all()  # the block's one shared array


def test_aligned_arrays_assemble(check_ptx):
    @cuda.jit
    def kernel(out):
        s = cuda.shared.array(32, np.float32, alignment=256)
        t = cuda.local.array(4, np.float64, alignment=64)
        i = cuda.threadIdx.x
        s[i] = 1.0
        for k in range(4):
            t[k] = out[k]
        out[0] = s[0] + t[i % 4]  # indexed by a run-time value: t stays in local memory

    ptx, _ = cuda.compile_ptx(kernel, "void(float64[::1])", cc=(8, 0))
    check_ptx(ptx, cc=(8, 0))
    assert re.search(r"\.shared \.align 256 ", ptx), ptx
    assert re.search(r"\.local \.align 64 ", ptx), ptx


@pytest.mark.parametrize("alignment, message", [
    (3, "a power of 2 from 8 to 1024"), (4, "a power of 2 from 8 to 1024"),
    (0, "a power of 2 from 8 to 1024"), (2048, "a power of 2 from 8 to 1024"),
    (1.5, "alignment must be a constant integer; got 1.5"),
    ("16", "alignment must be a constant integer; got '16'"),
])
def test_bad_alignments_are_compile_errors(alignment, message):
    @cuda.jit
    def kernel(out):
        s = cuda.shared.array(4, np.float32, alignment=alignment)
        s[0] = 1.0
        out[0] = s[0]

    with pytest.raises(cuda.CompileError, match=re.escape(message)):
        kernel[1, 1](np.zeros(1))


def test_the_dynamic_shared_array_takes_no_alignment():
    @cuda.jit
    def kernel(out):
        s = cuda.shared.array(0, np.float32, alignment=64)
        out[0] = s[0]

    with pytest.raises(cuda.CompileError, match=r"alignment= is not supported for the dynamic "
                                                r"shared array"):
        kernel[1, 1, 0, 64](np.zeros(1))
