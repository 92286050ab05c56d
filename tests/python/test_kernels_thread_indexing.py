"""Thread indexing: threadIdx, blockIdx, blockDim, gridDim (.x .y .z),
grid(1|2|3), gridsize(1|2|3), laneid and warpsize, over launch configurations
given as ints and as tuples of one to three ints."""

import itertools

import numpy as np
import pytest

import cudajit as cuda

pytestmark = pytest.mark.usefixtures("device")

FIELDS = ["tx", "ty", "tz", "bx", "by", "bz", "bdx", "bdy", "bdz", "gdx", "gdy", "gdz"]


@cuda.jit
def record_indices(out):
    bdx = cuda.blockDim.x
    bdy = cuda.blockDim.y
    bdz = cuda.blockDim.z
    gdx = cuda.gridDim.x
    gdy = cuda.gridDim.y
    block = cuda.blockIdx.x + cuda.blockIdx.y * gdx + cuda.blockIdx.z * gdx * gdy
    thread = cuda.threadIdx.x + cuda.threadIdx.y * bdx + cuda.threadIdx.z * bdx * bdy
    n = block * (bdx * bdy * bdz) + thread
    out[n, 0] = cuda.threadIdx.x
    out[n, 1] = cuda.threadIdx.y
    out[n, 2] = cuda.threadIdx.z
    out[n, 3] = cuda.blockIdx.x
    out[n, 4] = cuda.blockIdx.y
    out[n, 5] = cuda.blockIdx.z
    out[n, 6] = bdx
    out[n, 7] = bdy
    out[n, 8] = bdz
    out[n, 9] = gdx
    out[n, 10] = gdy
    out[n, 11] = cuda.gridDim.z


def as_dim3(dim):
    dim = (dim,) if isinstance(dim, int) else tuple(dim)
    return dim + (1,) * (3 - len(dim))


def expected_indices(griddim, blockdim):
    g, b = as_dim3(griddim), as_dim3(blockdim)
    rows = []
    for bz, by, bx in itertools.product(range(g[2]), range(g[1]), range(g[0])):
        for tz, ty, tx in itertools.product(range(b[2]), range(b[1]), range(b[0])):
            rows.append([tx, ty, tz, bx, by, bz, *b, *g])
    return np.array(rows, np.int64)


LAUNCHES = [
    (1, 1),
    (4, 32),
    (3, (5,)),
    ((2,), 7),
    ((2, 3), (4, 2)),
    ((2, 3, 2), (4, 3, 2)),
    ((1, 1, 3), (1, 2, 1)),
    ((5, 1), (1, 6)),
    (2, (8, 4, 2)),
]


@pytest.mark.parametrize("griddim, blockdim", LAUNCHES, ids=[f"{g}x{b}" for g, b in LAUNCHES])
def test_thread_block_and_grid_indices_cover_the_launch(griddim, blockdim):
    expected = expected_indices(griddim, blockdim)
    out = np.full((len(expected), len(FIELDS)), -1, np.int64)
    record_indices[griddim, blockdim](out)
    np.testing.assert_array_equal(out, expected)


def test_each_thread_runs_exactly_once():
    @cuda.jit
    def count(out):
        x, y, z = cuda.grid(3)
        w, h, _ = cuda.gridsize(3)
        out[x + y * w + z * w * h] += 1

    out = np.zeros((3 * 2) * (2 * 2) * (2 * 2), np.int32)  # gridsize(3) == (6, 4, 4)
    count[(3, 2, 2), (2, 2, 2)](out)
    assert out.sum() == out.size
    np.testing.assert_array_equal(out, 1)


@cuda.jit
def record_grid(g1, g2, g3, s1, s2, s3):
    n = (
        cuda.blockIdx.x
        + cuda.blockIdx.y * cuda.gridDim.x
        + cuda.blockIdx.z * cuda.gridDim.x * cuda.gridDim.y
    ) * (cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z) + (
        cuda.threadIdx.x
        + cuda.threadIdx.y * cuda.blockDim.x
        + cuda.threadIdx.z * cuda.blockDim.x * cuda.blockDim.y
    )
    g1[n] = cuda.grid(1)
    x, y = cuda.grid(2)
    g2[n, 0] = x
    g2[n, 1] = y
    x, y, z = cuda.grid(3)
    g3[n, 0] = x
    g3[n, 1] = y
    g3[n, 2] = z
    s1[n] = cuda.gridsize(1)
    w, h = cuda.gridsize(2)
    s2[n, 0] = w
    s2[n, 1] = h
    w, h, d = cuda.gridsize(3)
    s3[n, 0] = w
    s3[n, 1] = h
    s3[n, 2] = d


@pytest.mark.parametrize("griddim, blockdim", LAUNCHES, ids=[f"{g}x{b}" for g, b in LAUNCHES])
def test_grid_and_gridsize_in_one_two_and_three_dimensions(griddim, blockdim):
    idx = expected_indices(griddim, blockdim)
    tx, ty, tz, bx, by, bz, bdx, bdy, bdz, gdx, gdy, gdz = idx.T
    n = len(idx)
    g1, g2, g3 = np.zeros(n, np.int64), np.zeros((n, 2), np.int64), np.zeros((n, 3), np.int64)
    s1, s2, s3 = np.zeros(n, np.int64), np.zeros((n, 2), np.int64), np.zeros((n, 3), np.int64)
    record_grid[griddim, blockdim](g1, g2, g3, s1, s2, s3)
    x, y, z = bx * bdx + tx, by * bdy + ty, bz * bdz + tz
    np.testing.assert_array_equal(g1, x)
    np.testing.assert_array_equal(g2, np.stack([x, y], 1))
    np.testing.assert_array_equal(g3, np.stack([x, y, z], 1))
    np.testing.assert_array_equal(s1, gdx * bdx)
    np.testing.assert_array_equal(s2, np.stack([gdx * bdx, gdy * bdy], 1))
    np.testing.assert_array_equal(s3, np.stack([gdx * bdx, gdy * bdy, gdz * bdz], 1))


def test_grid_stride_loop_visits_every_element_once():
    @cuda.jit
    def increment(a):
        start = cuda.grid(1)
        stride = cuda.gridsize(1)
        for i in range(start, a.size, stride):
            a[i] += 1

    a = np.zeros(1000, np.int32)
    increment[3, 32](a)
    np.testing.assert_array_equal(a, 1)


def test_2d_grid_indexes_rows_and_columns():
    @cuda.jit
    def coordinates(out):
        col, row = cuda.grid(2)
        if row < out.shape[0] and col < out.shape[1]:
            out[row, col] = row * 1000 + col

    out = np.zeros((37, 50), np.int64)
    coordinates[(4, 3), (16, 16)](out)
    rows, cols = np.indices(out.shape)
    np.testing.assert_array_equal(out, rows * 1000 + cols)


@cuda.jit
def record_lanes(lane, warp):
    n = (cuda.blockIdx.x + cuda.blockIdx.y * cuda.gridDim.x) * (
        cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z
    ) + (
        cuda.threadIdx.x
        + cuda.threadIdx.y * cuda.blockDim.x
        + cuda.threadIdx.z * cuda.blockDim.x * cuda.blockDim.y
    )
    lane[n] = cuda.laneid
    warp[n] = cuda.warpsize


@pytest.mark.parametrize("griddim, blockdim", [(1, 70), (2, (8, 5, 2)), ((2, 2), (33, 1)), (1, 1)])
def test_laneid_is_the_linear_thread_index_modulo_the_warp_size(griddim, blockdim):
    idx = expected_indices(griddim, blockdim)
    tx, ty, tz = idx[:, 0], idx[:, 1], idx[:, 2]
    bdx, bdy = idx[:, 6], idx[:, 7]
    lane = np.full(len(idx), -1, np.int64)
    warp = np.zeros(len(idx), np.int64)
    record_lanes[griddim, blockdim](lane, warp)
    np.testing.assert_array_equal(lane, (tx + ty * bdx + tz * bdx * bdy) % 32)
    np.testing.assert_array_equal(warp, 32)


def test_thread_indices_are_non_negative_integers_usable_in_arithmetic():
    @cuda.jit
    def k(out):
        i = cuda.threadIdx.x
        out[i] = (i - 4) // 3 + cuda.blockDim.x * 1.5

    out = np.zeros(8)
    k[1, 8](out)
    np.testing.assert_array_equal(out, [(i - 4) // 3 + 12.0 for i in range(8)])


@pytest.mark.parametrize(
    "griddim, blockdim",
    [(4, 8), ((4,), (8,)), ((4, 1), (8, 1)), ((4, 1, 1), (8, 1, 1)), (np.int32(4), np.int64(8))],
    ids=["ints", "1-tuples", "2-tuples", "3-tuples", "numpy-ints"],
)
def test_launch_configuration_spellings_are_equivalent(griddim, blockdim):
    @cuda.jit
    def iota(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = i

    out = np.full(32, -1, np.int64)
    iota[griddim, blockdim](out)
    np.testing.assert_array_equal(out, np.arange(32))


def test_many_blocks_each_write_their_own_slice():
    @cuda.jit
    def block_ids(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = cuda.blockIdx.x

    out = np.zeros(4096 * 64, np.int32)
    block_ids[4096, 64](out)
    np.testing.assert_array_equal(out, np.repeat(np.arange(4096, dtype=np.int32), 64))


def test_a_block_of_1024_threads():
    @cuda.jit
    def ids(out):
        out[cuda.threadIdx.x + cuda.threadIdx.y * cuda.blockDim.x] = cuda.threadIdx.y

    out = np.zeros(1024, np.int64)
    ids[1, (32, 32)](out)
    np.testing.assert_array_equal(out, np.repeat(np.arange(32), 32))


def test_launch_bounds_refuse_a_larger_block_on_every_device():
    @cuda.jit(launch_bounds=(64, 2))
    def count(out):
        cuda.atomic.add(out, 0, 1)

    out = np.zeros(1, np.int64)
    count[2, 64](out)
    count[1, (8, 8)](out)
    assert out[0] == 192
    # numba-cuda's CUDAError (the driver's CUDA_ERROR_INVALID_VALUE), on the cpu device too
    with pytest.raises(cuda.CudaDriverError,
                       match=r"CUDA_ERROR_INVALID_VALUE \(kernel 'count' has launch_bounds of "
                             r"at most 64 threads per block; got block \(65, 1, 1\) of 65"):
        count[1, 65](out)
    assert out[0] == 192  # nothing ran
    assert ".maxntid 64, 1, 1" in count.inspect_asm(count.signatures[0])
    assert count.launch_bounds == (64, 2, 0)


@pytest.mark.parametrize("carveout, percent",
                         [("MaxL1", 0), ("maxshared", 100), ("default", -1), (50, 50), (-1, -1)])
def test_shared_memory_carveout_reaches_the_driver(device, carveout, percent):
    @cuda.jit(shared_memory_carveout=carveout)
    def add_one(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] = i + 1

    x = cuda.to_device(np.zeros(10, np.int32))
    add_one[1, 10](x)
    np.testing.assert_array_equal(x.copy_to_host(), np.arange(1, 11))
    assert add_one.shared_memory_carveout == percent
    # The kernel's attribute as the driver reports it; the cpu device has no carveout.
    reported = add_one.resources([str(t) for t in add_one.signatures[0]],
                                 cuda._core.current_device())["shared_memory_carveout"]
    assert reported == (percent if device != "cpu" else -1)


def test_shared_memory_carveout_out_of_range_or_unknown_is_refused():
    for bad in (150, -2, 101):
        with pytest.raises(ValueError, match=f"must be between -1 and 100; got {bad}"):
            cuda.jit(shared_memory_carveout=bad)(lambda x: None)
    with pytest.raises(ValueError, match="Invalid carveout value: 'InvalidOption'; expected "
                                         "'MaxL1', 'MaxShared', 'default'"):
        cuda.jit("void(int32[:])", shared_memory_carveout="InvalidOption")(lambda x: None)
    with pytest.raises(TypeError, match="shared_memory_carveout must be a str"):
        cuda.jit(shared_memory_carveout=1.5)(lambda x: None)
