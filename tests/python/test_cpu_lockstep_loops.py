"""On the cpu device, a loop over a range the same in every thread that threads leave at
different iterations (`break`) runs in lockstep: each chunk of up to 64 threads of the block
(rows of a narrow block, part of a wide row) counts the iterations once, each iteration a loop
over the chunk's threads still in the loop (vectorised across threadIdx.x, or the linear index
where the loop reads no thread index). Each thread must still run exactly its own iterations:
every kernel here runs on both devices against NumPy or a plain Python loop, with block shapes
whose rows are long, short or odd, chunks that end inside a row or a block, and grids whose
last block is partly outside the data."""

import numpy as np
import pytest

import cudajit as cuda

from conftest import cpu_dump_paths, needs_lockstep

pytestmark = pytest.mark.usefixtures("device")


@cuda.jit
def collatz_steps(start, steps, last, limit):
    i = cuda.grid(1)
    if i < start.size:
        x = start[i]
        n = -1
        for k in range(limit):
            if x == 1:
                n = k
                break
            if x % 2 == 0:
                x //= 2
                continue
            x = 3 * x + 1
        steps[i] = n
        last[i] = k  # the loop variable after the loop: the iteration that broke, or the last


def collatz_reference(start, limit):
    steps, last = [], []
    for x in start:
        n = -1
        for k in range(limit):
            if x == 1:
                n = k
                break
            x = x // 2 if x % 2 == 0 else 3 * x + 1
        steps.append(n)
        last.append(k)
    return np.array(steps), np.array(last)


@pytest.mark.parametrize("block", [(32,), (256,), (7,), (8, 4), (5, 3, 2), (100,), (24, 5),
                                   (1000,)])
def test_each_thread_leaves_a_lockstep_loop_at_its_own_iteration(block):
    threads = int(np.prod(block))
    n = 500
    start = np.arange(1, n + 1, dtype=np.int64)
    steps = np.zeros(n, np.int64)
    last = np.zeros(n, np.int64)
    limit = 100  # some threads never reach 1: they run every iteration
    # cuda.grid(1) counts x only: each (y, z) of a block repeats x's thread, as on a GPU
    collatz_steps[(n + block[0] - 1) // block[0], block](start, steps, last, limit)
    want_steps, want_last = collatz_reference(start, limit)
    np.testing.assert_array_equal(steps, want_steps)
    np.testing.assert_array_equal(last, want_last)
    assert (want_steps == -1).any() and (want_steps > 50).any() and threads > 0


@cuda.jit
def collatz_while(start, steps, limit):
    i = cuda.grid(1)
    if i < start.size:
        x = start[i]
        n = 0
        while x != 1:  # a condition of each thread's own
            x = x // 2 if x % 2 == 0 else 3 * x + 1
            n += 1
            if n >= limit:
                n = -n
                break
        steps[i] = n


@pytest.mark.parametrize("block", [(64,), (9, 2)])
def test_a_while_loop_runs_until_each_threads_condition_fails(block):
    n = 300
    start = np.arange(1, n + 1, dtype=np.int64)
    steps = np.zeros(n, np.int64)
    collatz_while[(n + block[0] - 1) // block[0], block](start, steps, 110)
    want, _ = collatz_reference(start, 110)
    np.testing.assert_array_equal(steps, np.where(want == -1, -110, want))


@cuda.jit
def two_searches(a, out):
    i = cuda.grid(1)
    x = a[i]
    for j in range(40):
        if x < j * j:
            break
    total = 0
    for k in range(j):  # a range from where each thread left the first loop: its own
        total += k
        if total > 3 * x:
            break
    out[i] = total


def test_a_loop_over_a_range_each_thread_found_in_a_lockstep_loop():
    a = np.random.default_rng(7).integers(0, 1500, 96).astype(np.int64)
    out = np.zeros(96, np.int64)
    two_searches[3, 32](a, out)
    for i, x in enumerate(a):
        j = next((j for j in range(40) if x < j * j), 39)
        total = 0
        for k in range(j):
            total += k
            if total > 3 * x:
                break
        assert out[i] == total, i


@cuda.jit
def clear_then_search(a, out):
    i = cuda.grid(1)
    if a[i] > 0:  # the body changes what the condition reads: tested once, its result kept
        a[i] = 0
        for k in range(50):
            if k * k > i:
                break
        out[i] = k


def test_an_if_whose_body_changes_the_memory_its_condition_reads():
    a = np.array([1, 0, 2, 3] * 16, np.int64)
    out = np.full(64, -1, np.int64)
    clear_then_search[2, 32](a, out)
    want = [next(k for k in range(50) if k * k > i) if i % 4 != 1 else -1 for i in range(64)]
    np.testing.assert_array_equal(out, want)
    assert not a.any()


@cuda.jit
def halvings_down(a, out, top):
    i = cuda.grid(1)
    x = a[i]
    count = 0
    for k in range(top, 0, -3):  # a falling range, at the kernel's top level
        if x <= k:
            break
        x = x // 2 + (k % 4) * (k % 4 - 1) // 2
        count += 1
    out[i, 0] = count
    out[i, 1] = x


def test_a_falling_range_runs_each_threads_iterations():
    a = np.random.default_rng(3).integers(0, 5000, 192).astype(np.int64)
    out = np.zeros((192, 2), np.int64)
    halvings_down[3, 64](a, out, 400)
    for i, x in enumerate(a):
        count = 0
        for k in range(400, 0, -3):
            if x <= k:
                break
            x = x // 2 + sum(range(k % 4))
            count += 1
        assert tuple(out[i]) == (count, x), i


@cuda.jit
def masked_halvings(a, valid, out):
    i = cuda.grid(1)
    if i < a.size and valid[i]:  # reads memory: tested once per thread, its result kept
        x = a[i]
        n = 0
        while x > 1:
            x //= 2
            n += 1
        out[i] = n


@cuda.jit
def uniform_guard(a, out, limit):
    i = cuda.grid(1)
    if limit > 0:  # the same in every thread
        x = a[i]
        for k in range(limit):
            if x <= 1:
                break
            x //= 2
        out[i] = k


def test_lockstep_ifs_on_memory_and_on_a_uniform_condition():
    a = np.random.default_rng(8).integers(0, 1 << 40, 256).astype(np.int64)
    valid = np.arange(256) % 3 != 0
    out = np.full(256, -1, np.int64)
    masked_halvings[5, 64](a[:200], valid[:200], out)  # the last block partly outside
    want = np.where(valid, [max(int(x).bit_length() - 1, 0) for x in a], -1)
    want[200:] = -1
    np.testing.assert_array_equal(out, want)
    out[:] = -1
    uniform_guard[4, 64](a, out, 0)
    assert (out == -1).all()
    uniform_guard[4, 64](a, out, 30)
    np.testing.assert_array_equal(out, [min(max(int(x).bit_length() - 1, 0), 29) for x in a])


@cuda.jit(debug=True, opt=False)
def guarded_range(out, m):
    i = cuda.grid(1)
    if m > 0:  # guards the range: 100 // 0 would raise ZeroDivisionError with debug=True
        x = i
        for k in range(100 // m):
            if x > 1000:
                break
            x = x * 3 + 1
        out[i] = x


def test_a_range_an_if_guards_is_computed_only_where_it_holds():
    out = np.full(64, -1, np.int64)
    guarded_range[1, 64](out, 0)  # no thread computes the range: nothing raises
    assert (out == -1).all()
    guarded_range[1, 64](out, 3)
    want = []
    for x in range(64):
        for _ in range(33):
            if x > 1000:
                break
            x = x * 3 + 1
        want.append(x)
    np.testing.assert_array_equal(out, want)


@cuda.jit
def lcg_steps(seed, out, steps):
    i = cuda.grid(1)
    if i < seed.size:
        x = seed[i]
        for k in range(steps):  # no thread leaves early: lockstep too, no thread waits
            x = (x * 1103515245 + 12345) % 2147483648
        out[i] = x


@pytest.mark.parametrize("block", [(64,), (20, 3)])
def test_a_loop_every_thread_runs_to_the_end(block):
    seed = np.arange(1000, 1200, dtype=np.int64)
    out = np.zeros_like(seed)
    lcg_steps[(seed.size + block[0] - 1) // block[0], block](seed, out, 37)
    want = []
    for x in seed.tolist():
        for _ in range(37):
            x = (x * 1103515245 + 12345) % 2147483648
        want.append(x)
    np.testing.assert_array_equal(out, want)


@cuda.jit
def index_in_the_loop(a, out):
    t = (cuda.threadIdx.z * cuda.blockDim.y + cuda.threadIdx.y) * cuda.blockDim.x + cuda.threadIdx.x
    g = cuda.blockIdx.x * cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z + t
    if g < a.size:
        x = a[g]
        n = 0
        while x > 0:  # reads threadIdx in the loop: chunks loop over (y, x), not linear indices
            x -= 1 + cuda.threadIdx.x % 3 + cuda.threadIdx.y
            n += 1
        out[g] = n


@pytest.mark.parametrize("block", [(8, 8), (24, 5), (100, 1), (3, 2, 4)])
def test_a_loop_that_reads_the_thread_index(block):
    threads = int(np.prod(block))
    n = 3 * threads - 5  # the last block partly outside
    a = np.random.default_rng(3).integers(0, 200, n).astype(np.int64)
    out = np.zeros(n, np.int64)
    index_in_the_loop[3, block](a, out)
    want = []
    for g in range(n):
        t = g % threads
        tx, ty = t % block[0], t // block[0] % block[1]
        x, k = int(a[g]), 0
        while x > 0:
            x -= 1 + tx % 3 + ty
            k += 1
        want.append(k)
    np.testing.assert_array_equal(out, want)


@cuda.jit
def bumped_counter(a, out):
    i = cuda.grid(1)
    x = a[i]
    for k in range(20):
        if x > 150:
            break
        k += x % 3  # the loop variable changed for the rest of this thread's iteration
        x += k
    out[i] = x


def test_a_loop_whose_body_assigns_its_variable():
    a = np.arange(96, dtype=np.int64)
    out = np.zeros_like(a)
    bumped_counter[3, 32](a, out)
    want = []
    for x in a.tolist():
        for k in range(20):
            if x > 150:
                break
            k += x % 3
            x += k
        want.append(x)
    np.testing.assert_array_equal(out, want)


@cuda.jit
def nested_rounds(a, out):
    i = cuda.grid(1)
    x = a[i]
    for k in range(5):  # a loop inside: each thread runs its own loops
        for j in range(3):
            x = x * 3 % 1001 + j
    out[i] = x


def test_a_loop_with_a_loop_inside_runs_each_threads_own():
    a = np.arange(64, dtype=np.int64)
    out = np.zeros(64, np.int64)
    nested_rounds[2, 32](a, out)
    want = []
    for x in a.tolist():
        for _ in range(5):
            for j in range(3):
                x = x * 3 % 1001 + j
        want.append(x)
    np.testing.assert_array_equal(out, want)


@cuda.jit
def escape_times(out, iters):
    col, row = cuda.grid(2)
    rows, cols = out.shape
    if row < rows and col < cols:
        cr = np.float32(-2.0 + 3.0 * col / cols)
        ci = np.float32(-1.0 + 2.0 * row / rows)
        zr = np.float32(0.0)
        zi = np.float32(0.0)
        n = iters
        for k in range(iters):
            zr2 = zr * zr
            zi2 = zi * zi
            if zr2 + zi2 > 4.0:
                n = k
                break
            zi = np.float32(2.0) * zr * zi + ci
            zr = zr2 - zi2 + cr
        out[row, col] = n


def escape_times_reference(rows, cols, iters):
    col, row = np.meshgrid(np.arange(cols), np.arange(rows))
    cr = (-2.0 + 3.0 * col / cols).astype(np.float32)
    ci = (-1.0 + 2.0 * row / rows).astype(np.float32)
    zr = np.zeros_like(cr)
    zi = np.zeros_like(ci)
    n = np.full(cr.shape, iters, np.int32)
    inside = np.ones(cr.shape, bool)
    for k in range(iters):
        zr2, zi2 = zr * zr, zi * zi
        escaped = inside & (zr2 + zi2 > 4.0)
        n[escaped] = k
        inside &= ~escaped
        zi = np.where(inside, np.float32(2.0) * zr * zi + ci, zi)
        zr = np.where(inside, zr2 - zi2 + cr, zr)
    return n


def check_escape_times(kernel, device, block):
    """`kernel(out, iters)`'s escape times of a 45x70 image against NumPy's."""
    rows, cols, iters = 45, 70, 60
    out = np.full((rows, cols), -7, np.int32)
    grid = ((cols + block[0] - 1) // block[0], (rows + block[1] - 1) // block[1])
    kernel[grid, block](out, iters)
    want = escape_times_reference(rows, cols, iters)
    if device == "cpu":  # the same float32 operations in the same order
        np.testing.assert_array_equal(out, want)
    else:  # a GPU contracts a*b+c into fma: a pixel on the set's edge may move
        assert np.mean(out != want) < 0.02
    assert (want == iters).any() and (want < 3).any()


@pytest.mark.parametrize("block", [(32, 8), (7, 3), (64, 1)])
def test_escape_times_in_an_if_whose_threads_outside_the_image_never_enter(device, block):
    check_escape_times(escape_times, device, block)


@cuda.jit(device=True)
def squared_norm(zr, zi):
    return zr * zr + zi * zi


@cuda.jit(device=True)
def mandelbrot_step(zr, zi, cr, ci):
    zr2 = zr * zr
    zi2 = zi * zi
    return zr2 - zi2 + cr, np.float32(2.0) * zr * zi + ci


@cuda.jit
def escape_times_by_calls(out, iters):
    col, row = cuda.grid(2)
    rows, cols = out.shape
    if row < rows and col < cols:
        cr = np.float32(-2.0 + 3.0 * col / cols)
        ci = np.float32(-1.0 + 2.0 * row / rows)
        zr = np.float32(0.0)
        zi = np.float32(0.0)
        n = iters
        for k in range(iters):  # device functions computing in registers: still lockstep
            if squared_norm(zr, zi) > 4.0:
                n = k
                break
            zr, zi = mandelbrot_step(zr, zi, cr, ci)
        out[row, col] = n


@pytest.mark.parametrize("block", [(32, 8), (8, 8), (7, 3)])
def test_a_lockstep_loop_that_calls_device_functions(device, block):
    check_escape_times(escape_times_by_calls, device, block)


@cuda.jit(device=True)
def lane_weight(x):
    return x + cuda.threadIdx.x % 4 + cuda.threadIdx.y  # an index register in a device function


@cuda.jit(device=True)
def table_value(table, x):
    return table[x % table.size]  # reads memory: a loop calling it stays each thread's own


@cuda.jit(device=True)
def digit_sum(x):
    s = 0
    while x > 0:  # a loop: the caller's loop stays each thread's own
        s += x % 10
        x //= 10
    return s


@cuda.jit
def loops_calling(a, table, out):
    t = (cuda.threadIdx.z * cuda.blockDim.y + cuda.threadIdx.y) * cuda.blockDim.x + cuda.threadIdx.x
    g = cuda.blockIdx.x * cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z + t
    if g < a.size:
        x = a[g]
        n = 0
        while x > 0:
            x -= lane_weight(1)
            n += 1
        y = a[g]
        for k in range(5):
            y = table_value(table, y) + digit_sum(y)
        out[g, 0] = n
        out[g, 1] = y


@pytest.mark.parametrize("block", [(8, 8), (24, 5), (3, 2, 4)])
def test_device_functions_that_read_the_index_memory_or_loop(block):
    threads = int(np.prod(block))
    n = 3 * threads - 5
    a = np.random.default_rng(4).integers(0, 300, n).astype(np.int64)
    table = np.arange(7, 50, dtype=np.int64)
    out = np.zeros((n, 2), np.int64)
    loops_calling[3, block](a, table, out)
    for g in range(n):
        t = g % threads
        tx, ty = t % block[0], t // block[0] % block[1]
        x, k = int(a[g]), 0
        while x > 0:
            x -= 1 + tx % 4 + ty
            k += 1
        y = int(a[g])
        for _ in range(5):
            y = int(table[y % table.size]) + sum(int(c) for c in str(y))
        assert tuple(out[g]) == (k, y), g


@cuda.jit
def neighbour_halvings(a, out):
    s = cuda.shared.array(64, np.int64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = a[i]
    cuda.syncthreads()
    x = s[(t + 1) % 64]
    for k in range(64):  # after a barrier: a split kernel's lockstep loop
        if x <= 1:
            break
        x //= 2
    out[i] = k


def test_a_lockstep_loop_after_a_block_barrier():
    a = np.random.default_rng(5).integers(0, 1 << 40, 128).astype(np.int64)
    a[::7] = 0
    out = np.zeros(128, np.int64)
    neighbour_halvings[2, 64](a, out)
    want = []
    for i in range(128):
        x = int(a[i - i % 64 + (i % 64 + 1) % 64])
        k = 0
        while x > 1:
            x //= 2
            k += 1
        want.append(k)
    np.testing.assert_array_equal(out, want)


@cuda.jit
def search_past_the_end(a, out, limit):
    i = cuda.grid(1)
    out[i] = -1
    for k in range(limit):
        if a[i + k] < 0:  # runs off a's end where no negative comes first
            out[i] = k
            break


def test_an_index_error_in_a_loop_that_breaks_names_the_line(device):
    a = np.ones(100)
    a[50] = -1.0
    out = np.zeros(64, np.int64)
    if device != "cpu":  # a GPU checks nothing: the search in bounds finds the same
        search_past_the_end[2, 32](a, out, 30)
        want = [50 - i if 0 <= 50 - i < 30 else -1 for i in range(64)]
        np.testing.assert_array_equal(out, want)
        return
    line = open(__file__).read().splitlines().index("        if a[i + k] < 0:  # runs off a's "
                                                    "end where no negative comes first") + 1
    with pytest.raises(IndexError, match=rf"kernel 'search_past_the_end' \(.*:{line}:\d+\): "
                                         r"index 1\d\d is out of bounds for axis 0 with size 100"):
        search_past_the_end[2, 32](a, out, 80)
    assert out[30] == 20 and out[50] == 0  # threads that found it before the error


@cuda.jit
def collatz_after_return(start, steps):
    i = cuda.grid(1)
    if i >= start.size:  # the common guard: threads past the data return
        return
    x = start[i]
    n = 0
    while x != 1:
        x = x // 2 if x % 2 == 0 else 3 * x + 1
        n += 1
    steps[i] = n


@pytest.mark.parametrize("block", [(64,), (7,), (8, 4)])
def test_the_statements_after_an_early_return_run_in_lockstep(block):
    n = 300
    start = np.arange(1, n + 1, dtype=np.int64)
    steps = np.full(n + 50, -7, np.int64)  # past start's end: no thread may write there
    collatz_after_return[(n + block[0] - 1) // block[0], block](start, steps)
    want = []
    for x in start.tolist():
        k = 0
        while x != 1:
            x = x // 2 if x % 2 == 0 else 3 * x + 1
            k += 1
        want.append(k)
    np.testing.assert_array_equal(steps[:n], want)
    assert (steps[n:] == -7).all()


@cuda.jit
def lcg_pairs(seed, out, steps):
    i = cuda.grid(1)
    j = 2 * i  # before the return: every thread computes it
    if j >= seed.size:
        return
    x = seed[j]
    for k in range(steps):
        x = (x * 1103515245 + 12345) % 2147483648
    out[j] = x
    out[j + 1] = k


def test_an_early_return_after_statements_every_thread_runs():
    seed = np.arange(5000, 5400, dtype=np.int64)
    out = np.full(seed.size + 2, -1, np.int64)
    lcg_pairs[5, 48](seed, out, 23)  # 240 threads, 200 of them with a pair
    want = []
    for x in seed[::2].tolist():
        for _ in range(23):
            x = (x * 1103515245 + 12345) % 2147483648
        want += [x, 22]
    np.testing.assert_array_equal(out[:seed.size], want)
    assert (out[seed.size:] == -1).all()


@cuda.jit
def two_returns(a, out):
    i = cuda.grid(1)
    if i >= a.size:
        return
    x = a[i]
    if x < 0:  # a second return: each thread runs its own loop
        return
    n = 0
    while x > 1:
        x //= 3
        n += 1
    out[i] = n


@cuda.jit
def guard_reassigned(a, out):
    i = cuda.grid(1)
    if i >= a.size:
        return
    x = a[i]
    if x > 50:  # the guard's name assigned after it (one variable with the guard's: a join)
        i += a.size  # tested again after the loop, the guard would now fail: it is kept
    for k in range(40):
        if x < 2:
            break
        x //= 2
    out[i % a.size] = k


def test_a_second_return_and_a_reassigned_guard_keep_their_results():
    a = np.arange(-20, 80, dtype=np.int64)
    out = np.full(a.size, 99, np.int64)
    two_returns[4, 32](a, out)
    want = []
    for x in a.tolist():
        n = 0
        while x > 1:
            x //= 3
            n += 1
        want.append(99 if x < 0 else n)
    np.testing.assert_array_equal(out, want)
    out[:] = 99
    guard_reassigned[4, 32](np.abs(a), out)
    want = []
    for x in np.abs(a).tolist():
        for k in range(40):
            if x < 2:
                break
            x //= 2
        want.append(k)
    np.testing.assert_array_equal(out, want)


@cuda.jit
def return_after_barrier(a, out):
    s = cuda.shared.array(64, np.int64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = a[i] if i < a.size else 0
    cuda.syncthreads()  # every thread reaches it, then those past a's end return
    if i >= a.size:
        return
    x = s[63 - t]
    n = 0
    while x > 1:
        x //= 2
        n += 1
    out[i] = n


def test_an_early_return_after_a_block_barrier():
    a = np.random.default_rng(9).integers(0, 1 << 30, 100).astype(np.int64)
    out = np.full(100, -1, np.int64)
    return_after_barrier[2, 64](a, out)
    padded = np.concatenate([a, np.zeros(28, np.int64)])  # threads past a's end stored 0
    mirrored = [int(padded[i - i % 64 + 63 - i % 64]) for i in range(100)]
    want = [max(x.bit_length() - 1, 0) for x in mirrored]  # halvings down to 1 or 0
    np.testing.assert_array_equal(out, want)


PATHS = """
import numpy as np
import cudajit as cuda


@cuda.jit(device=True)
def squared_norm(zr, zi):
    return zr * zr + zi * zi


@cuda.jit(device=True)
def mandelbrot_step(zr, zi, cr, ci):
    return zr * zr - zi * zi + cr, np.float32(2.0) * zr * zi + ci


{kernels}
out = np.zeros((8, 8), np.int32)
escape_times[(1, 1), (8, 8)](out, 10)
a = np.arange(64); out = np.zeros(64, np.int64)
search_past_the_end[1, 64](np.arange(200.0), out, 3)
clear_then_search[1, 64](np.ones(64, np.int64), out)
lcg_steps[1, 64](np.arange(64), out, 3)
nested_rounds[1, 64](np.arange(64), out)
collatz_after_return[1, 64](np.arange(1, 60), out)
two_returns[1, 64](np.arange(64), out)
guard_reassigned[1, 64](np.arange(64), out)
return_after_barrier[1, 64](np.arange(64), out)
escape_times_by_calls[(1, 1), (8, 8)](np.zeros((8, 8), np.int32), 10)
masked_halvings[1, 64](np.arange(64), np.ones(64, np.bool_), out)
uniform_guard[1, 64](np.arange(64), out, 3)
"""


@needs_lockstep
def test_the_dump_says_which_loops_run_in_lockstep(tmp_path):
    names = ("escape_times", "search_past_the_end", "clear_then_search", "lcg_steps",
             "nested_rounds", "collatz_after_return", "two_returns", "guard_reassigned",
             "return_after_barrier", "escape_times_by_calls", "masked_halvings", "uniform_guard")
    paths, script = cpu_dump_paths(tmp_path, __file__, names, PATHS), (tmp_path / "kernels.py")
    lines = script.read_text().splitlines()
    stripped = [text.strip() for text in lines]
    escape = stripped.index("for k in range(iters):") + 1
    assert paths["escape_times"].startswith("thread loops split around lockstep loops")
    assert f"lockstep loops (line {escape})" in paths["escape_times"]
    # a loop over memory stays each thread's own (lockstep would gather across rows)
    assert paths["search_past_the_end"].startswith("thread loops: no barrier")
    # its `if` reads the array its body writes: lockstep all the same (the test is kept)
    assert "lockstep loops (line" in paths["clear_then_search"]
    assert "lockstep loops (line" in paths["lcg_steps"]
    assert paths["nested_rounds"].startswith("thread loops: no barrier")
    # the statements after an early return are an if's body
    kernel = stripped.index("def collatz_after_return(start, steps):")
    collatz = stripped.index("while x != 1:", kernel) + 1
    assert f"lockstep loops (line {collatz})" in paths["collatz_after_return"]
    assert "lockstep loops (line" in paths["return_after_barrier"]
    assert paths["return_after_barrier"].startswith("thread loops split at barriers")
    assert paths["two_returns"].startswith("thread loops: no barrier")
    assert "lockstep loops (line" in paths["guard_reassigned"]
    assert "lockstep loops (line" in paths["escape_times_by_calls"]
    assert "lockstep loops (line" in paths["masked_halvings"]
    assert "lockstep loops (line" in paths["uniform_guard"]


@cuda.jit
def shrinking_limit(a, out):
    i = cuda.grid(1)
    m = a.size
    if i < m:  # m changes inside: the guard is tested once and its result kept
        x = a[i]
        for k in range(40):
            if x <= 1:
                break
            x //= 2
            m = 0
        out[i] = k + m


@needs_lockstep
def test_a_guard_is_tested_again_only_where_nothing_can_change_it(tmp_path):
    a = np.random.default_rng(5).integers(0, 1 << 30, 100).astype(np.int64)
    out = np.full(128, -1, np.int64)
    shrinking_limit[2, 64](a, out)
    want = []
    for x in a:
        m = 100
        for k in range(40):
            if x <= 1:
                break
            x //= 2
            m = 0
        want.append(k + m)
    np.testing.assert_array_equal(out[:100], want)
    assert (out[100:] == -1).all()
    script = """import numpy as np
import cudajit as cuda
{kernels}
escape_times[(3, 2), (32, 8)](np.zeros((10, 70), np.int32), 20)
shrinking_limit[1, 64](np.arange(50), np.zeros(64, np.int64))
masked_halvings[1, 64](np.arange(64), np.ones(64, np.bool_), np.zeros(64, np.int64))
"""
    names = ["escape_times", "shrinking_limit", "masked_halvings"]
    host = cpu_dump_paths(tmp_path, __file__, names, script, dump="host")
    module = {name: next(text for entry, text in host.items() if entry.startswith(name + "__"))
              for name in names}
    # `row < rows and col < cols` reads what no thread changes: each run tests it again
    assert "lockstep.guard" not in module["escape_times"]
    # a variable the loop assigns, an array's elements: tested once, kept per thread
    assert "lockstep.guard" in module["shrinking_limit"]
    assert "lockstep.guard" in module["masked_halvings"]
