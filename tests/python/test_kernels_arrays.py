"""Array and scalar arguments: every dtype, ndim 1 to 4, C / F / strided
layouts, read-only arrays, shape / strides / ndim / size, integer and tuple
indexing with negative indices wrapping, stores converting to the element type."""

import numpy as np
import pytest

import cudajit as cuda
from conftest import (
    ALL_DTYPES,
    INT_DTYPES,
    LAYOUTS,
    cover,
    dtype_id,
    in_layout,
    launch_1d,
    random_array,
)

pytestmark = pytest.mark.usefixtures("device")

SHAPES = {1: (37,), 2: (5, 7), 3: (3, 4, 5), 4: (2, 3, 4, 5)}


@cuda.jit
def copy_1d(src, dst):
    i = cuda.grid(1)
    if i < src.shape[0]:
        dst[i] = src[i]


@cuda.jit
def copy_2d(src, dst):
    i, j = cuda.grid(2)
    if i < src.shape[0] and j < src.shape[1]:
        dst[i, j] = src[i, j]


@cuda.jit
def copy_3d(src, dst):
    i, j, k = cuda.grid(3)
    if i < src.shape[0] and j < src.shape[1] and k < src.shape[2]:
        dst[i, j, k] = src[i, j, k]


@cuda.jit
def copy_4d(src, dst):
    i, j, k = cuda.grid(3)
    if i < src.shape[0] and j < src.shape[1] and k < src.shape[2]:
        for m in range(src.shape[3]):
            dst[i, j, k, m] = src[i, j, k, m]


COPY = {1: copy_1d, 2: copy_2d, 3: copy_3d, 4: copy_4d}
BLOCK = {1: (16,), 2: (4, 4), 3: (2, 2, 4), 4: (2, 2, 2)}


def run_copy(src, dst):
    ndim = src.ndim
    block = BLOCK[ndim]
    COPY[ndim][cover(src.shape[: len(block)], block), block](src, dst)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_array_of_any_dtype_ndim_and_layout_is_read_element_by_element(dtype, ndim, layout):
    values = random_array(dtype, SHAPES[ndim], seed=ndim)
    src = in_layout(values, layout)
    dst = np.zeros(SHAPES[ndim], dtype)
    run_copy(src, dst)
    np.testing.assert_array_equal(dst, values)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
@pytest.mark.parametrize(
    "dtype", [np.bool_, np.int16, np.uint64, np.float32, np.complex128], ids=dtype_id
)
def test_array_of_any_layout_is_written_in_place(dtype, ndim, layout):
    values = random_array(dtype, SHAPES[ndim], seed=10 + ndim)
    dst = in_layout(np.zeros(SHAPES[ndim], dtype), layout)
    owner = dst.base
    if owner is not None:  # a view: fill its parent array around it
        owner[...] = random_array(dtype, owner.shape, seed=99)
        dst[...] = 0
        expected_owner = owner.copy()
        same_view(expected_owner, owner, dst)[...] = values
    run_copy(values, dst)
    np.testing.assert_array_equal(dst, values)
    if owner is not None:  # the elements outside the view are untouched
        np.testing.assert_array_equal(owner, expected_owner)


def same_view(other_owner, owner, view):
    """The view of `other_owner` that `view` is of `owner` (same offset, strides)."""
    offset = view.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
    return np.ndarray(
        view.shape, view.dtype, buffer=other_owner, offset=offset, strides=view.strides
    )


def test_column_of_a_c_matrix_is_a_strided_1d_array():
    m = random_array(np.float64, (6, 5), seed=3)
    out = np.zeros(6)
    copy_1d[1, 8](m[:, 2], out)
    np.testing.assert_array_equal(out, m[:, 2])


def test_write_through_a_column_view_changes_the_parent_matrix():
    m = np.zeros((6, 5), np.int32)
    col = m[:, 3]
    copy_1d[1, 8](np.arange(6, dtype=np.int32) + 1, col)
    expected = np.zeros((6, 5), np.int32)
    expected[:, 3] = np.arange(6) + 1
    np.testing.assert_array_equal(m, expected)


@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
def test_zero_size_array_launch_runs_and_writes_nothing(ndim):
    shape = (0,) + SHAPES[ndim][1:]
    src = np.zeros(shape, np.float32)
    dst = np.zeros(shape, np.float32)
    COPY[ndim][1, BLOCK[ndim]](src, dst)  # griddim 0 would be a launch error
    assert dst.shape == shape


@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", [np.int8, np.float64, np.complex64], ids=dtype_id)
def test_read_only_array_can_be_read(dtype, ndim):
    values = random_array(dtype, SHAPES[ndim], seed=20)
    src = values.copy()
    src.flags.writeable = False
    dst = np.zeros_like(values)
    run_copy(src, dst)
    np.testing.assert_array_equal(dst, values)


def test_read_only_and_writable_arguments_of_one_kernel_both_launch():
    values = np.arange(10, dtype=np.float64)
    writable_out = np.zeros(10)
    copy_1d[1, 16](values, writable_out)
    readonly = values.copy()
    readonly.flags.writeable = False
    readonly_out = np.zeros(10)
    copy_1d[1, 16](readonly, readonly_out)
    np.testing.assert_array_equal(writable_out, values)
    np.testing.assert_array_equal(readonly_out, values)


def test_same_array_passed_twice_is_updated_in_place():
    @cuda.jit
    def double_in_place(a, b):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = a[i] + b[i]

    a = np.arange(20, dtype=np.int64)
    double_in_place[2, 16](a, a)
    np.testing.assert_array_equal(a, 2 * np.arange(20))


# --- shape, strides, ndim, size -------------------------------------------


@cuda.jit
def describe(a, shape, strides, info):
    for k in range(a.ndim):
        shape[k] = a.shape[k]
        strides[k] = a.strides[k]
    info[0] = a.ndim
    info[1] = a.size


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
def test_shape_strides_ndim_and_size_match_numpy(ndim, layout):
    a = in_layout(random_array(np.int16, SHAPES[ndim]), layout)
    shape = np.full(4, -1, np.int64)
    strides = np.full(4, -1, np.int64)
    info = np.zeros(2, np.int64)
    describe[1, 1](a, shape, strides, info)
    assert tuple(shape[:ndim]) == a.shape
    assert tuple(strides[:ndim]) == a.strides  # in bytes, negative when reversed
    assert tuple(info) == (a.ndim, a.size)


def test_shape_is_a_tuple_that_unpacks():
    @cuda.jit
    def dims(a, out):
        rows, cols = a.shape
        s0, s1 = a.strides
        out[0] = rows
        out[1] = cols
        out[2] = s0
        out[3] = s1
        out[4] = len(a.shape)

    a = np.zeros((3, 8), np.float32)[:, ::2]
    out = np.zeros(5, np.int64)
    dims[1, 1](a, out)
    np.testing.assert_array_equal(out, [3, 4, 32, 8, 2])


# --- indexing --------------------------------------------------------------


@cuda.jit
def gather(src, idx, out):
    i = cuda.grid(1)
    if i < idx.size:
        out[i] = src[idx[i]]


@pytest.mark.parametrize("index_dtype", INT_DTYPES, ids=dtype_id)
def test_array_indexed_by_any_integer_type(index_dtype):
    src = np.arange(100, dtype=np.float64) * 1.5
    idx = np.array([0, 7, 99, 42, 3], dtype=index_dtype)
    out = np.zeros(5)
    gather[1, 8](src, idx, out)
    np.testing.assert_array_equal(out, src[idx])


@pytest.mark.parametrize("index_dtype", [np.int8, np.int16, np.int32, np.int64], ids=dtype_id)
def test_negative_runtime_index_wraps_from_the_end(index_dtype):
    src = np.arange(50, dtype=np.int32) * 3
    idx = np.array([-1, -2, -50, 0, -25], dtype=index_dtype)
    out = np.zeros(5, np.int32)
    gather[1, 8](src, idx, out)
    np.testing.assert_array_equal(out, src[idx])


def test_negative_literal_indices_wrap_on_each_axis():
    @cuda.jit
    def corners(m, out):
        out[0] = m[-1, -1]
        out[1] = m[0, -1]
        out[2] = m[-1, 0]
        out[3] = m[-2, -3]

    m = random_array(np.int64, (4, 6), seed=5)
    out = np.zeros(4, np.int64)
    corners[1, 1](m, out)
    np.testing.assert_array_equal(out, [m[-1, -1], m[0, -1], m[-1, 0], m[-2, -3]])


def test_negative_index_store_writes_from_the_end():
    @cuda.jit
    def store_last(a, v):
        a[-1] = v
        a[-a.size] = -v

    a = np.zeros(8, np.float32)
    store_last[1, 1](a, np.float32(2.5))
    np.testing.assert_array_equal(a, [-2.5, 0, 0, 0, 0, 0, 0, 2.5])


def test_negative_index_wraps_on_a_strided_view():
    @cuda.jit
    def last_two(a, out):
        out[0] = a[-1]
        out[1] = a[-2]

    base = np.arange(20, dtype=np.int16)
    view = base[1::3]
    out = np.zeros(2, np.int16)
    last_two[1, 1](view, out)
    np.testing.assert_array_equal(out, [view[-1], view[-2]])


def test_tuple_index_and_tuple_variable_index_agree():
    @cuda.jit
    def transpose(m, out):
        i, j = cuda.grid(2)
        if i < m.shape[0] and j < m.shape[1]:
            where = (j, i)
            out[where] = m[i, j]

    m = random_array(np.float64, (5, 3), seed=6)
    out = np.zeros((3, 5))
    transpose[(2, 1), (4, 4)](m, out)
    np.testing.assert_array_equal(out, m.T)


def test_4d_index_mixes_negative_and_computed_indices():
    @cuda.jit
    def pick(a, out):
        for k in range(a.shape[2]):
            out[k] = a[-1, 1, k, -(k + 1)]

    a = random_array(np.int32, (2, 3, 4, 5), seed=7)
    out = np.zeros(4, np.int32)
    pick[1, 1](a, out)
    np.testing.assert_array_equal(out, [a[-1, 1, k, -(k + 1)] for k in range(4)])


# --- stores convert to the element type -----------------------------------


@cuda.jit
def store_converted(values, out):
    i = cuda.grid(1)
    if i < values.size:
        out[i] = values[i]


@pytest.mark.parametrize(
    "values, out_dtype, expected",
    [
        pytest.param(
            np.array([2.7, -2.7, 0.5, -0.5]),
            np.int32,
            [2, -2, 0, 0],
            id="float64-to-int32-truncates",
        ),
        pytest.param(
            np.array([300, -1, 255, 256], np.int64),
            np.uint8,
            [44, 255, 255, 0],
            id="int64-to-uint8-wraps",
        ),
        pytest.param(
            np.array([70000, -70000], np.int64), np.int16, [4464, -4464], id="int64-to-int16-wraps"
        ),
        pytest.param(
            np.array([0, 5, -1, 0], np.int64),
            np.bool_,
            [False, True, True, False],
            id="int-to-bool-is-nonzero",
        ),
        pytest.param(
            np.array([0.0, 0.25, -0.0, np.nan]),
            np.bool_,
            [False, True, False, True],
            id="float-to-bool-is-nonzero",
        ),
        pytest.param(np.array([True, False]), np.float64, [1.0, 0.0], id="bool-to-float"),
        pytest.param(
            np.array([16777217], np.int64), np.float32, [16777216.0], id="int64-to-float32-rounds"
        ),
        pytest.param(
            np.array([0.1]), np.float32, [np.float32(0.1)], id="float64-to-float32-rounds"
        ),
        pytest.param(
            np.array([1.5, -2.0]), np.complex64, [1.5 + 0j, -2.0 + 0j], id="float-to-complex"
        ),
        pytest.param(
            np.array([-3, 4], np.int8), np.complex128, [-3 + 0j, 4 + 0j], id="int-to-complex"
        ),
    ],
)
def test_store_converts_value_to_the_array_element_type(values, out_dtype, expected):
    out = np.zeros(len(values), out_dtype)
    store_converted[1, 32](values, out)
    np.testing.assert_array_equal(out, np.array(expected, out_dtype))


# --- scalar arguments ------------------------------------------------------


@cuda.jit
def store_scalar(x, out):
    out[0] = x


SCALARS = [
    np.bool_(True),
    np.int8(-128),
    np.int16(-12345),
    np.int32(-(2**31)),
    np.int64(-(2**63)),
    np.uint8(255),
    np.uint16(65535),
    np.uint32(2**32 - 1),
    np.uint64(2**64 - 1),
    np.float32(-1.25e-3),
    np.float64(1.0 / 3.0),
    np.complex64(1.5 - 2.25j),
    np.complex128(1.0 / 3.0 + 2.0j / 7.0),
]


@pytest.mark.parametrize("value", SCALARS, ids=lambda v: type(v).__name__)
def test_scalar_argument_of_each_numpy_type_arrives_exactly(value):
    out = np.zeros(1, value.dtype)
    store_scalar[1, 1](value, out)
    assert out[0] == value


@pytest.mark.parametrize(
    "value, out_dtype",
    [
        pytest.param(2**53 + 1, np.int64, id="int-is-int64"),
        pytest.param(-(2**62), np.int64, id="negative-int-is-int64"),
        pytest.param(0.1, np.float64, id="float-is-float64"),
        pytest.param(1 / 3 - 2j / 3, np.complex128, id="complex-is-complex128"),
        pytest.param(True, np.bool_, id="bool-is-bool"),
    ],
)
def test_python_scalar_argument_keeps_full_precision(value, out_dtype):
    out = np.zeros(1, out_dtype)
    store_scalar[1, 1](value, out)
    assert out[0] == value


def test_numpy_float32_scalar_is_float32_not_float64():
    out = np.zeros(1, np.float64)
    store_scalar[1, 1](np.float32(0.1), out)
    assert out[0] == np.float64(np.float32(0.1))
    assert out[0] != 0.1


def test_python_int_scalar_is_int64_so_large_values_do_not_wrap():
    @cuda.jit
    def twice(x, out):
        out[0] = x * 2

    out = np.zeros(1, np.int64)
    twice[1, 1](2**40, out)
    assert out[0] == 2**41


def test_same_kernel_specializes_for_each_argument_type():
    outs = {}
    for value in (np.int8(-5), np.uint32(7), 2.5, 1 + 2j, True):
        out = np.zeros(1, np.asarray(value).dtype)
        store_scalar[1, 1](value, out)
        outs[type(value).__name__] = out[0]
    assert outs == {"int8": -5, "uint32": 7, "float": 2.5, "complex": 1 + 2j, "bool": True}


@pytest.mark.parametrize("n", [1, 31, 32, 33, 1000, 100_003])
def test_grid_of_many_threads_writes_every_element_once(n):
    @cuda.jit
    def iota(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] += i

    out = np.zeros(n, np.int64)
    launch_1d(iota, n, out, block=128)
    np.testing.assert_array_equal(out, np.arange(n))


# --- wrap-around is skipped only where an index cannot be negative ----------
# Lowering leaves out the wrap of an index it proves non-negative
# (compiler/src/lower/variable_facts.hpp). Each index below looks like one it
# could prove, and is negative for the first threads: it must still wrap.


@cuda.jit
def indices_that_may_be_negative(a, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        k = i
        if i == 0:
            k = -1  # one assignment of k is negative
        out[i, 0] = a[k]
        m = i
        m -= 3
        out[i, 1] = a[m]
        p, q = i, i - 4
        out[i, 2] = a[q] + p * 0
        out[i, 3] = a[i % -3]
        out[i, 4] = a[min(i, i - 2)]
        out[i, 5] = a[i | -8]
        out[i, 6] = a[(i - 5) >> 1]
        out[i, 7] = a[i if i > 1 else -2]
        last = 0
        for r in range(i, -3, -1):
            last = r
        out[i, 8] = a[last]
        out[i, 9] = a[max(-3, i - 5)]


def expected_indices_that_may_be_negative(i):
    k = -1 if i == 0 else i
    return [k, i - 3, i - 4, i % -3, min(i, i - 2), i | -8, (i - 5) >> 1,
            i if i > 1 else -2, -2, max(-3, i - 5)]


def test_indices_that_may_be_negative_still_wrap():
    a = np.arange(16, dtype=np.int64) * 10
    out = np.zeros((6, 10), np.int64)
    indices_that_may_be_negative[1, 8](a, out)
    expected = [[a[j] for j in expected_indices_that_may_be_negative(i)] for i in range(6)]
    np.testing.assert_array_equal(out, expected)


@cuda.jit
def indices_that_cannot_be_negative(a, out):
    i = cuda.grid(1)
    n = a.shape[0]
    if i < out.shape[0]:
        k = i
        k += 2
        out[i, 0] = a[k]
        out[i, 1] = a[i % 5]
        out[i, 2] = a[i & -4]
        out[i, 3] = a[max(-3, i)]
        out[i, 4] = a[min(i, n - 1) // 2]
        total = 0
        for r in range(i, 0, -1):
            total += r
        out[i, 5] = a[total % n]
        out[i, 6] = a[len(a) - 1 - i]


def test_indices_that_cannot_be_negative_index_from_the_start():
    a = np.arange(16, dtype=np.int64) * 10
    out = np.zeros((6, 7), np.int64)
    indices_that_cannot_be_negative[1, 8](a, out)
    expected = [
        [a[i + 2], a[i % 5], a[i & -4], a[max(-3, i)], a[min(i, 15) // 2],
         a[sum(range(i, 0, -1)) % 16], a[15 - i]]
        for i in range(6)
    ]
    np.testing.assert_array_equal(out, expected)


@cuda.jit
def scale_8d(a, out):
    i = cuda.grid(1)
    if i < a.size:
        s = a.shape
        k = i
        i7 = k % s[7]
        k //= s[7]
        i6 = k % s[6]
        k //= s[6]
        i5 = k % s[5]
        k //= s[5]
        i4 = k % s[4]
        k //= s[4]
        i3 = k % s[3]
        k //= s[3]
        i2 = k % s[2]
        k //= s[2]
        i1 = k % s[1]
        out[k // s[1], i1, i2, i3, i4, i5, i6, i7] = 2 * a[k // s[1], i1, i2, i3, i4, i5, i6, i7]


@pytest.mark.parametrize("view", ["C", "strided", "F"])
def test_arrays_of_up_to_8_dimensions(view):
    a = np.arange(2 * 3 * 1 * 2 * 2 * 1 * 3 * 2, dtype=np.float64).reshape(2, 3, 1, 2, 2, 1, 3, 2)
    a = {"C": a, "strided": a[:, ::2], "F": np.asfortranarray(a)}[view]
    out = np.zeros(a.shape)
    scale_8d[1, 256](cuda.to_device(a), out)
    np.testing.assert_array_equal(out, 2 * a)


@cuda.jit
def add_0d(r, x, y):
    r[()] = x[()] + y[()]


def test_0d_arrays_are_kernel_arguments_indexed_by_the_empty_tuple():
    # As Numba: a 0-d NumPy array is copied there and back like any host array; a 0-d device
    # array is passed as it is; a[()] reads and writes its one element.
    r = np.zeros((), np.float64)
    add_0d[1, 1](r, np.asarray(2.0), np.asarray(3.0))
    assert r[()] == 5.0
    d = cuda.to_device(np.zeros((), np.int32))
    add_0d[1, 1](d, np.asarray(np.int32(40)), cuda.to_device(np.asarray(np.int32(2))))
    assert d.copy_to_host()[()] == 42
    assert str(cuda.typeof(r)) == "array(float64, 0d, C)"


@pytest.mark.parametrize("body, message", [
    ("r[()] = len(r)", "len\\(\\) of unsized object"),
    ("r[0] = 1", "too many indices"),
    ("r.view(np.int32)[()] = 1", "0-d array is only supported if the itemsize is unchanged"),
])
def test_what_a_0d_array_refuses_is_a_compile_error(body, message):
    scope = {"np": np}
    exec(f"def kernel(r):\n    {body}\n", scope)  # noqa: S102
    with pytest.raises(cuda.CompileError, match=message):
        cuda.jit(scope["kernel"])[1, 1](np.zeros((), np.int64))


def test_a_0d_integer_array_indexes_as_its_value_as_in_numpy():
    @cuda.jit
    def pick(r, ary, i):
        r[()] = ary[i]

    @cuda.jit
    def pick2(r, ary, i, j):
        r[0] = ary[i, j] + ary[j, 1]

    ary = np.arange(10.0)
    r = np.zeros(())
    for i in (np.asarray(3), np.asarray(-2, np.int32), np.asarray(7, np.uint16)):
        pick[1, 1](r, ary, i)
        assert r[()] == ary[i]
    a2 = np.arange(12.0).reshape(3, 4)
    r1 = np.zeros(1)
    i, j = np.asarray(2), np.asarray(1, np.uint8)
    pick2[1, 1](r1, a2, i, j)
    assert r1[0] == a2[i, j] + a2[j, 1]
    record = np.dtype([("a", np.int64), ("b", np.float64)])
    recs = np.zeros(3, record)
    recs["a"], recs["b"] = [1, 2, 3], [1.5, 2.5, 3.5]
    out = np.zeros((), record)
    pick[1, 1](out, recs, np.asarray(1))
    assert out[()] == recs[1]
    with pytest.raises(cuda.CompileError, match=r"array index must be an integer, got "
                                                r"array\(float64, 0d, C\)"):
        pick[1, 1](r, ary, np.asarray(2.0))
