"""Cooperative groups on every device: cuda.cg.this_grid().sync() waits for every
thread of the grid. A kernel that calls it is launched cooperatively (every
block resident at once); a grid too large for that is a clear error before
anything runs; blocks that sync unequally are an error, not a hang."""

import sys
import textwrap

import numpy as np
import pytest

import cudajit as cuda
from cudajit.errors import CompileError

from test_simulated_gpu import run_python

pytestmark = pytest.mark.usefixtures("device")


def test_each_row_reads_the_whole_previous_row_written_by_other_blocks():
    # numba-cuda's documentation example: row r needs every block's row r - 1.
    @cuda.jit
    def sequential_rows(M):
        col = cuda.grid(1)
        g = cuda.cg.this_grid()
        rows = M.shape[0]
        cols = M.shape[1]
        for row in range(1, rows):
            opposite = cols - col - 1
            M[row, col] = M[row - 1, opposite] + 1
            g.sync()

    A = np.zeros((40, 256), np.int32)
    sequential_rows[8, 32](A)
    expected = np.zeros_like(A)
    for row in range(1, A.shape[0]):
        expected[row] = expected[row - 1][::-1] + 1
    np.testing.assert_array_equal(A, expected)


@cuda.jit(device=True)
def publish_then_sync(partial, index, value):
    partial[index] = value
    cuda.cg.this_grid().sync()


def test_grid_sync_in_a_device_function_and_spelled_inline():
    @cuda.jit
    def block_sums_then_total(x, partial, total):
        i = cuda.grid(1)
        block = cuda.blockIdx.x
        s = cuda.shared.array(1, np.float64)
        if cuda.threadIdx.x == 0:
            s[0] = 0.0
        cuda.syncthreads()
        cuda.atomic.add(s, 0, x[i])
        cuda.syncthreads()
        if cuda.threadIdx.x == 0:
            publish_then_sync(partial, block, s[0])
        else:
            cuda.cg.this_grid().sync()
        if i == 0:
            t = 0.0
            for b in range(partial.size):
                t += partial[b]
            total[0] = t

    x = np.arange(12 * 64, dtype=np.float64)
    partial = np.zeros(12)
    total = np.zeros(1)
    block_sums_then_total[12, 64](x, partial, total)
    np.testing.assert_array_equal(partial, x.reshape(12, 64).sum(axis=1))
    assert total[0] == x.sum()


def test_only_the_threads_that_have_not_returned_meet_at_the_grid_sync():
    # numba-cuda's sessionization example: thread 0 takes a branch of its own, threads
    # that are no session boundary return, and the others meet at a grid sync (thread 0
    # among them: it arrives from its own path, which the simulated GPU must run while
    # the others wait), then read what every boundary wrote before it.
    @cuda.jit
    def label_sessions(user, results):
        gid = cuda.grid(1)
        size = len(user)
        if gid >= size:
            return
        if gid != 0:
            boundary = user[gid] != user[gid - 1]
        else:
            boundary = True
        if boundary:
            results[gid] = gid
            cuda.cg.this_grid().sync()
            ahead = 1
            while gid + ahead < size and results[gid + ahead] == 0:
                results[gid + ahead] = gid
                ahead += 1

    user = np.array([1, 1, 1, 2, 2, 3, 3, 3, 3, 4, 5, 5, 6, 6, 6, 6, 6, 7, 7, 7, 8, 9])
    results = np.zeros(len(user))
    label_sessions[1, 32](user, results)
    starts = np.flatnonzero(np.r_[True, user[1:] != user[:-1]])
    expected = starts[np.searchsorted(starts, np.arange(len(user)), side="right") - 1]
    np.testing.assert_array_equal(results, expected)


def test_a_thread_zero_path_left_behind_reaches_the_barrier_too():
    # Thread 0 diverges first; its siblings then diverge again, and some of them return
    # before the block's barrier: on Volta and later each path reaches barrier.sync on its
    # own, and the threads that returned are not waited for.
    @cuda.jit
    def kernel(flags, out):
        i = cuda.threadIdx.x
        if i == 0:
            mine = 100
        else:
            if flags[i] == 0:
                return
            mine = 1
        s = cuda.shared.array(32, np.int64)
        s[i] = mine
        cuda.syncthreads()
        total = 0
        for j in range(32):
            if j == 0 or flags[j] != 0:  # the slots of threads that returned hold garbage
                total += s[j]
        out[i] = total

    flags = np.array([1, 0, 1, 1, 0, 0, 1] + [1] * 25, np.int64)
    out = np.full(32, -1, np.int64)
    kernel[1, 32](flags, out)
    live = flags.copy()
    live[0] = 1
    expected = 100 + int(live[1:].sum())
    np.testing.assert_array_equal(out, np.where(live == 1, expected, -1))


def test_many_syncs_in_a_loop_keep_every_block_in_step():
    @cuda.jit
    def ping_pong(buffer, rounds):
        i = cuda.grid(1)
        n = buffer.shape[1]
        g = cuda.cg.this_grid()
        for r in range(rounds):
            src = r % 2
            buffer[1 - src, i] = buffer[src, (i + 1) % n] + 1
            g.sync()

    n = 6 * 32
    buffer = np.zeros((2, n), np.int64)
    buffer[0] = np.arange(n)
    ping_pong[6, 32](buffer, 50)
    # After 50 rounds the values have rotated 50 places and gained 50.
    np.testing.assert_array_equal(buffer[0], np.roll(np.arange(n), -50) + 50)


def test_a_grid_too_large_to_be_resident_is_refused_before_anything_runs(device):
    @cuda.jit
    def touch(out):
        out[cuda.grid(1)] = 1
        cuda.cg.this_grid().sync()

    # cpu: 8192 threads at most; the simulated H100: 132 multiprocessors x 2 blocks of 1024.
    blocks = 8 + 1 if device == "cpu" else 132 * 2 + 1
    out = cuda.to_device(np.zeros(blocks * 1024, np.int8))
    with pytest.raises(ValueError, match=r"kernel 'touch' syncs its grid .* at most \d+ blocks "
                                         r"of 1024 threads fit on device .*got grid "
                                         rf"\({blocks}, 1, 1\)"):
        touch[blocks, 1024](out)
    assert not out.copy_to_host().any()
    touch[blocks - 1, 1024](out)  # the largest resident grid runs
    assert out.copy_to_host()[: (blocks - 1) * 1024].all()


def test_grid_sync_misuse_is_a_compile_error():
    @cuda.jit
    def stores_the_group(out):
        g = cuda.cg.this_grid()
        g = 1
        out[0] = g

    with pytest.raises(CompileError, match="'g' holds cuda.cg.this_grid\\(\\) and cannot also "
                                           "hold another value"):
        stores_the_group[1, 1](np.zeros(1))

    @cuda.jit
    def passes_the_group(out):
        g = cuda.cg.this_grid()
        out[0] = g

    with pytest.raises(CompileError, match="the grid group 'g' can only call .sync\\(\\)"):
        passes_the_group[1, 1](np.zeros(1))

    @cuda.jit
    def stores_it_in_an_array(out):
        g = cuda.cg.this_grid()
        out[0] = cuda.cg.this_grid()
        g.sync()

    with pytest.raises(CompileError, match=r"cuda.cg.this_grid\(\) can only be assigned to a "
                                           r"name or called .sync\(\) on"):
        stores_it_in_an_array[1, 1](np.zeros(1))

    @cuda.jit
    def other_method(out):
        cuda.cg.this_grid().thread_rank()

    with pytest.raises(CompileError, match=r"'.thread_rank\(\)' of a grid group is not "
                                           r"supported in kernels; supported: .sync\(\)"):
        other_method[1, 1](np.zeros(1))


def test_blocks_that_sync_the_grid_unequally_are_an_error_on_the_cpu_device(device):
    if device != "cpu":
        pytest.skip("the simulated GPU's case runs in a process of its own (its fault is sticky)")

    @cuda.jit
    def unequal(out):
        if cuda.blockIdx.x == 0:
            return
        cuda.cg.this_grid().sync()
        out[cuda.grid(1)] = 1

    with pytest.raises(RuntimeError, match=r"synced it unequally \(a GPU would hang\)"):
        unequal[4, 32](np.zeros(128))
        cuda.synchronize()


def test_blocks_that_sync_the_grid_unequally_fault_on_the_simulated_gpu(tmp_path, device):
    if device != "cuda":
        pytest.skip("the cpu device's case is the test above")
    from conftest import _real_gpu_present, _simulator_library

    if _real_gpu_present() or _simulator_library() is None:
        pytest.skip("a real GPU would hang here; this is the simulated GPU's behaviour")
    source = tmp_path / "unequal_kernel.py"
    source.write_text(textwrap.dedent("""\
        import numpy as np
        import cudajit as cuda


        @cuda.jit
        def unequal(out):
            if cuda.blockIdx.x == 0:
                return
            cuda.cg.this_grid().sync()
            out[cuda.grid(1)] = 1


        try:
            unequal[4, 32](cuda.to_device(np.zeros(128)))
            cuda.synchronize()
        except Exception as e:
            print(type(e).__name__, e)
        """))
    result = run_python(f"import runpy; runpy.run_path({str(source)!r})", CUDAJIT_DEVICE="sim")
    assert "waits for blocks that have ended" in result.stdout, result.stdout + result.stderr
    assert "a GPU would hang here" in result.stdout


@pytest.mark.parametrize("cc", [(7, 5), (8, 0), (9, 0)])
def test_grid_sync_ptx_assembles_and_takes_the_workspace_last(check_ptx, cc):
    def kernel(out):
        out[cuda.grid(1)] = 1
        cuda.cg.this_grid().sync()

    ptx, _ = cuda.compile_ptx(kernel, "void(float32[::1])", cc=cc)
    check_ptx(ptx, cc)
    # The array is 3 parameters (data, extent, stride); the grid workspace is the 4th.
    assert "kernel_param_3" in ptx and "nanosleep" in ptx
    assert "kernel_param_4" not in ptx
    # The block's barriers are barrier.sync, not the aligned bar.sync: the threads of a warp
    # may reach the grid's sync at different calls (see the device-function test above).
    assert ptx.count("barrier.sync 0;") == 2 and "bar.sync" not in ptx


def test_a_device_function_that_syncs_the_grid_cannot_be_compiled_alone():
    def syncs(x):
        cuda.cg.this_grid().sync()
        return x

    with pytest.raises(CompileError, match="needs a kernel's cooperative launch"):
        cuda.compile_ptx(syncs, "float32(float32)", device=True)


def test_a_kernel_that_makes_the_grid_group_is_launched_cooperatively(device):
    # As Numba marks it (it links cudadevrt for this_grid()): overload.cooperative is True
    # on the cuda device, also without a sync; the grid must then fit on the device at once.
    @cuda.jit
    def makes_group(out):
        cuda.cg.this_grid()
        out[cuda.grid(1)] = 2.0

    @cuda.jit
    def no_group(out):
        out[cuda.grid(1)] = 3.0

    out = np.zeros(64)
    makes_group[2, 32](out)
    np.testing.assert_array_equal(out, 2.0)
    no_group[2, 32](out)
    np.testing.assert_array_equal(out, 3.0)
    for overload in no_group.overloads.values():
        assert not overload.cooperative
        assert not any("cudadevrt" in f for f in overload._codelibrary._linking_files)
    if device == "cuda":
        assert [o.cooperative for o in makes_group.overloads.values()] == [True]
        ptx = makes_group.inspect_asm(makes_group.signatures[0])
        assert "makes_group_param_3" in ptx  # the grid workspace, as a grid-syncing kernel's
        too_many = makes_group.overloads[makes_group.signatures[0]] \
            .max_cooperative_grid_blocks(32) + 1
        with pytest.raises(Exception, match="cooperative|resident|at once"):
            makes_group[too_many, 32](np.zeros(too_many * 32))


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))


def test_a_grid_group_made_and_dropped_does_nothing():
    @cuda.jit
    def kernel(out):
        cuda.cg.this_grid()
        out[cuda.grid(1)] = 1.0

    out = np.zeros(64)
    kernel[2, 32](out)
    np.testing.assert_array_equal(out, 1.0)
