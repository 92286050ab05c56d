"""On the cpu device, a 2-D or 3-D kernel without barriers that reads threadIdx.x and
blockIdx.x only through cuda.grid runs each row of its blocks as one loop over the row's x
(in chunks of up to 2^20 threads), not a short loop per block. Every thread must still run
once with its own indices, edge blocks and runs of blocks split between workers included
(test_bounds_check covers a 2-D kernel's index errors). Results are compared with NumPy on
both devices."""

import numpy as np
import pytest

import cudajit as cuda

from conftest import cpu_dump_paths

pytestmark = pytest.mark.usefixtures("device")


@cuda.jit
def where_2d(out):
    x, y = cuda.grid(2)
    if y < out.shape[0] and x < out.shape[1]:
        out[y, x] = y * 100000 + x


@pytest.mark.parametrize("shape, block", [((37, 70), (16, 4)), ((8, 300), (32, 2)),
                                          ((5, 1), (8, 8))])
def test_every_thread_of_a_2d_grid_runs_once_with_its_own_indices(shape, block):
    out = np.full(shape, -1, np.int64)
    grid = (-(-shape[1] // block[0]), -(-shape[0] // block[1]))
    where_2d[grid, block](out)
    y, x = np.indices(shape)
    np.testing.assert_array_equal(out, y * 100000 + x)


def test_a_row_longer_than_a_chunk():
    # 40000 blocks of 32 threads in x: 1.28M threads in a row, two chunks of 2^20; the
    # array's 64 columns past the grid stay untouched
    width = 40000 * 32
    out = np.full((2, width + 64), -1, np.int64)
    where_2d[(40000, 2), (32, 1)](out)
    y, x = np.indices(out.shape)
    np.testing.assert_array_equal(out, np.where(x < width, y * 100000 + x, -1))


@cuda.jit
def counts_3d(out):
    x, y, z = cuda.grid(3)
    if z < out.shape[0] and y < out.shape[1] and x < out.shape[2]:
        cuda.atomic.add(out, (z, y, x), 1)


def test_every_thread_of_a_3d_grid_runs_once():
    out = np.zeros((6, 7, 60), np.int64)  # the grid covers x < 48: the rest stays 0
    counts_3d[(3, 2, 3), (16, 4, 2)](out)
    np.testing.assert_array_equal(out[:, :, :48], 1)
    np.testing.assert_array_equal(out[:, :, 48:], 0)


PATHS = """
import numpy as np, cudajit as cuda
{kernels}
where_2d[(1, 1), (8, 8)](np.zeros((8, 8), np.int64))
counts_3d[(1, 1, 1), (4, 4, 4)](np.zeros((4, 4, 4), np.int64))
"""


def test_the_dump_says_rows_run_as_one_loop(tmp_path):
    paths = cpu_dump_paths(tmp_path, __file__, ("where_2d", "counts_3d"), PATHS)
    for name in ("where_2d", "counts_3d"):
        assert "a row of blocks is one loop over its threads' x" in paths[name], paths[name]
