"""Records (NumPy structured dtypes) in kernels, as Numba has them: arrays of records and
record arguments, fields read and written by attribute, by name and by position, nested
array fields, whole-record copies, field views of record arrays, device arrays of records;
checked against NumPy on the cpu device and the cuda device."""

import warnings

import numpy as np
import pytest

import cudajit as cuda
from conftest import kernel_from_body
from cudajit import types

pytestmark = [pytest.mark.usefixtures("device"),
              pytest.mark.filterwarnings("ignore::cudajit.PerformanceWarning")]

ALIGNED = np.dtype([("a", np.float64), ("b", np.int32), ("c", np.complex64),
                    ("d", np.uint8, 5), ("e", np.bool_)], align=True)
PACKED = np.dtype([("x", np.int8), ("y", np.float64), ("z", np.float32, (3, 2))])


def sample(dtype, n=4):
    """Records with distinct values in every field."""
    a = np.zeros(n, dtype)
    for name in dtype.names:
        field = a[name]
        values = np.arange(field.size).reshape(field.shape) + 1
        a[name] = (values % 2 == 0) if field.dtype == np.bool_ else values
    return a


def assert_records_equal(got, expected):
    """Field by field (padding bytes between fields are not data)."""
    assert got.dtype == expected.dtype
    for name in expected.dtype.names:
        np.testing.assert_array_equal(got[name], expected[name], err_msg=f"field {name!r}")


def test_fields_are_read_and_written_in_place_by_attribute_name_and_position():
    @cuda.jit
    def kernel(ary, out):
        i = cuda.grid(1)
        if i < ary.shape[0]:
            r = ary[i]
            out[i] = r.a + r["b"] + r[1] + r.c.imag + r.d[4] + r.e
            r.a = r.b * 2.5  # through the local: the array's record changes
            ary[i]["b"] += 10
            ary[i].c = complex(r.a, -1)
            r.d[0] = 200
            r["e"] = not r.e

    got = sample(ALIGNED)
    expected = got.copy()
    out = np.zeros(len(got))
    kernel[1, 8](got, out)
    np.testing.assert_array_equal(out, expected["a"] + 2 * expected["b"] +
                                  expected["c"].imag + expected["d"][:, 4] + expected["e"])
    expected["a"] = expected["b"] * 2.5
    expected["b"] += 10
    expected["c"] = expected["a"] - 1j
    expected["d"][:, 0] = 200
    expected["e"] = ~expected["e"]
    assert_records_equal(got, expected)


def test_packed_records_keep_their_unaligned_offsets():
    @cuda.jit
    def kernel(ary):
        i = cuda.grid(1)
        if i < ary.shape[0]:
            ary[i].y = ary[i].x * 0.5 + ary[i].z[2, 1]
            ary[i].z[0, 0] = ary[i].y

    got = sample(PACKED, 5)
    expected = got.copy()
    kernel[1, 8](got)
    expected["y"] = expected["x"] * 0.5 + expected["z"][:, 2, 1]
    expected["z"][:, 0, 0] = expected["y"]
    assert_records_equal(got, expected)


def test_a_record_array_element_is_assigned_whole():
    @cuda.jit
    def kernel(ary, i, j):
        ary[i] = ary[j]

    got = sample(ALIGNED)
    expected = got.copy()
    kernel[1, 1](got, 0, 3)
    expected[0] = expected[3]
    assert_records_equal(got, expected)


def test_a_record_argument_is_written_back_like_numba():
    @cuda.jit
    def kernel(rec, value, out):
        rec.a = value
        rec.d[1] = 9
        out[0] = rec.b

    array = sample(ALIGNED)
    rec = array[2]  # a view into `array`
    out = np.zeros(1, np.int32)
    kernel[1, 1](rec, 7.5, out)
    assert out[0] == 3
    assert rec["a"] == 7.5 and array[2]["a"] == 7.5 and array[2]["d"][1] == 9


def test_nested_array_fields_are_filled_and_copied():
    @cuda.jit
    def kernel(ary, src):
        ary[0].z = 4.0  # a number fills the field
        ary[1]["z"] = src  # an array of its shape is copied into it
        ary[2].z[1, :] = -1.0

    got = sample(PACKED, 3)
    src = np.arange(6, dtype=np.float64).reshape(3, 2)
    expected = got.copy()
    kernel[1, 1](got, src)
    expected["z"][0] = 4.0
    expected["z"][1] = src
    expected["z"][2, 1, :] = -1.0
    assert_records_equal(got, expected)


def test_a_field_of_a_record_array_is_a_strided_view():
    @cuda.jit
    def kernel(ary, out, grid):
        b = ary.b
        for i in range(b.shape[0]):
            out[i] = b[i] + ary["d"][i, 2]
        d = ary.d  # a 2-d view: records x nested elements
        grid[0] = d.shape[0] * 10 + d.shape[1]
        ary.a[1] = 0.25

    got = sample(ALIGNED)
    out = np.zeros(len(got), np.int64)
    grid = np.zeros(1, np.int64)
    expected = got.copy()
    kernel[1, 1](got, out, grid)
    np.testing.assert_array_equal(out, expected["b"] + expected["d"][:, 2])
    assert grid[0] == len(got) * 10 + 5
    expected["a"][1] = 0.25
    assert_records_equal(got, expected)


def test_records_go_through_device_functions_and_come_back_as_references():
    @cuda.jit(device=True)
    def first(ary):
        return ary[0]

    @cuda.jit(device=True)
    def bump(rec):
        rec.b += 1
        return rec.a

    @cuda.jit
    def kernel(ary, out):
        out[0] = bump(ary[1])
        ary[2] = first(ary)

    got = sample(ALIGNED)
    out = np.zeros(1)
    expected = got.copy()
    kernel[1, 1](got, out)
    assert out[0] == expected["a"][1]
    expected["b"][1] += 1
    expected[2] = expected[0]
    assert_records_equal(got, expected)


def test_device_arrays_of_records_round_trip_and_launch():
    @cuda.jit
    def kernel(ary):
        i = cuda.grid(1)
        if i < ary.shape[0]:
            ary[i].a = -ary[i].a

    host = sample(ALIGNED)
    d = cuda.to_device(host)
    assert d.dtype == ALIGNED and d.shape == host.shape
    kernel[1, 8](d)
    back = d.copy_to_host()
    expected = host.copy()
    expected["a"] = -expected["a"]
    assert_records_equal(back, expected)
    empty = cuda.device_array(3, dtype=PACKED)
    assert empty.dtype == PACKED and empty.nbytes == 3 * PACKED.itemsize


def test_explicit_record_signatures():
    record = types.Record(ALIGNED)
    assert str(record).startswith("Record(a[type=float64;offset=0],b[type=int32;offset=8],")
    assert str(record).endswith(f";{ALIGNED.itemsize};True)")
    assert types.typeof(sample(ALIGNED)) == record[::1]
    assert types.typeof(sample(ALIGNED)[0]) == record

    @cuda.jit((record[:], types.int64, types.float64))
    def kernel(ary, i, v):
        ary[i].a = v

    got = sample(ALIGNED)
    kernel[1, 1](got, 1, 0.5)
    assert got["a"][1] == 0.5
    with pytest.raises(TypeError, match="no matching definition"):
        kernel[1, 1](sample(PACKED), 1, 0.5)


@pytest.mark.parametrize("body, pattern", [
    ("ary[0].nope = 1", r"has no field 'nope'; its fields: \.a \.b \.c \.d \.e"),
    ("x = ary[0]['nope']", r"has no field 'nope'"),
    ("ary[0].a = 1j", r"cannot store complex128 into the field 'a' of float64 \(take \.real"),
    ("ary[0].a = (1, 2)", r"cannot store UniTuple\(int64 x 2\) into the field 'a'$"),
    ("ary[0] = 1.0", r"cannot store float64 into an array of Record\("),
    ("ary.a = 1.0", r"assign to the field of one record"),
    ("ary[1:3] = ary[0]", r"cannot assign to a view of records"),
    ("x = ary[0] + 1", r"unsupported operand types for \+"),
    ("x = ary[0][7]", r"constant position 0\.\.4"),
    ("cuda.atomic.add(ary, 0, 1)", r"records are not supported by"),
    ("ary[0]['my field'] = 1", r"field names in kernels must be Python identifiers"),
])
def test_record_misuse_is_a_compile_error(body, pattern):
    with pytest.raises(cuda.CompileError, match=pattern):
        cuda.jit(kernel_from_body("ary", body))[1, 1](sample(ALIGNED))


@pytest.mark.parametrize("dtype, pattern", [
    (np.dtype([("o", object), ("x", np.int32)]), r"field 'o' has dtype object"),
    (np.dtype([("inner", [("p", np.int32)])]), r"field 'inner': a record inside a record "
                                                r"needs both made with align=True"),
    (np.dtype([("inner", [("p", np.int32)], (2,))], align=True),
     r"field 'inner': arrays of records inside records are not supported"),
    (np.dtype([("a b", np.int32)]), r"field name 'a b' is not a Python identifier"),
])
def test_record_dtypes_kernels_cannot_take_are_type_errors(dtype, pattern):
    @cuda.jit
    def kernel(ary):
        pass

    with pytest.raises(TypeError, match=pattern):
        kernel[1, 1](np.zeros(2, dtype))


def test_a_read_only_record_array_refuses_writes():
    @cuda.jit
    def kernel(ary):
        ary[0].a = 1.0

    readonly = sample(ALIGNED)
    readonly.flags.writeable = False
    with pytest.raises(cuda.CompileError, match="read-only record"):
        kernel[1, 1](readonly)


def test_dlpack_refuses_record_device_arrays():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = cuda.to_device(sample(ALIGNED))
    with pytest.raises(BufferError, match="DLPack has no record dtypes"):
        d.__dlpack__()


FROZEN = np.array([(1.5, 2, 3), (4.5, 5, 6)],
                  dtype=np.dtype([("x", np.float64), ("y", np.int32), ("z", np.uint8)], align=True))


def test_a_global_record_array_is_frozen_into_the_kernel():
    @cuda.jit
    def kernel(out):
        c = cuda.const.array_like(FROZEN)
        i = cuda.grid(1)
        if i < c.shape[0]:
            out[i] = c[i].x + c[i]["y"] + FROZEN[i].z

    out = np.zeros(2)
    kernel[1, 2](out)
    np.testing.assert_array_equal(out, FROZEN["x"] + FROZEN["y"] + FROZEN["z"])


def test_a_frozen_record_array_is_read_only():
    def kernel():
        FROZEN[0].x = 1.0

    with pytest.raises(cuda.CompileError, match="read-only record"):
        cuda.jit(kernel)[1, 1]()


# --- shared and local arrays of records --------------------------------------------------------


@pytest.mark.parametrize("dtype", [ALIGNED, PACKED], ids=["aligned", "packed"])
def test_a_shared_array_of_records_holds_whole_records(dtype):
    threads = 8

    @cuda.jit
    def copy_through_shared(x, y):
        staged = cuda.shared.array(threads, dtype=dtype)
        t = cuda.threadIdx.x
        i = cuda.blockIdx.x * threads + t
        staged[t] = x[i]
        cuda.syncthreads()
        y[i] = staged[threads - 1 - t]  # each block's records, reversed

    x = sample(dtype, 16)
    y = cuda.device_array_like(x)
    copy_through_shared[2, threads](x, y)
    expected = np.concatenate([x[:8][::-1], x[8:][::-1]])
    assert_records_equal(y.copy_to_host(), expected)


POINT = np.dtype([("x", np.float64), ("y", np.float64), ("n", np.int8)], align=True)
POINT_RECORD = types.Record(POINT)  # as Numba's numpy_support.from_dtype(POINT) is passed


def test_a_local_array_of_records_by_dtype_or_record_type():
    @cuda.jit
    def local_records(out):
        pts = cuda.local.array(4, POINT)
        more = cuda.local.array((2, 2), POINT_RECORD)
        for k in range(4):
            pts[k].x = k
            pts[k].y = 2 * k
            pts[k].n = k
            more[k // 2, k % 2] = pts[k]
        acc = 0.0
        for k in range(4):
            acc += more[k // 2, k % 2].x * pts[k].y + pts[k].n
        out[0] = acc

    out = np.zeros(1)
    local_records[1, 1](out)
    assert out[0] == sum(k * 2 * k + k for k in range(4))


def test_dynamic_shared_memory_as_records():
    @cuda.jit
    def rotate(x, out):
        staged = cuda.shared.array(0, dtype=POINT)
        t = cuda.threadIdx.x
        staged[t].x = x[t]
        staged[t].n = t
        cuda.syncthreads()
        out[t] = staged[(t + 1) % len(staged)].x + staged[t].n

    x = np.arange(8.0)
    out = np.zeros(8)
    rotate[1, 8, 0, 8 * POINT.itemsize](x, out)
    np.testing.assert_array_equal(out, np.roll(x, -1) + np.arange(8))


def test_a_shared_array_of_a_record_kernels_cannot_take_is_a_compile_error():
    text = np.dtype([("s", object)])
    with pytest.raises(cuda.CompileError, match=r"cuda.shared.array\(\): .*field 's' has dtype "
                                                r"object"):
        cuda.jit(kernel_from_body("out", "a = cuda.shared.array(4, text)", text=text))[1, 1](
            np.zeros(1))


# --- records inside records ---------------------------------------------------------------------

BACKYARD = [("statue", np.float64), ("newspaper", np.float64, (6,))]
GOOSE = np.dtype([("garden", np.float64, (12,)), ("n", np.int8), ("backyard", BACKYARD)],
                 align=True)


def test_a_record_inside_a_record_is_read_and_written_in_place():
    @cuda.jit
    def kernel(f):
        f.garden[0] = 45.0
        f.backyard.newspaper[3] = 2.0
        f.backyard.newspaper[3] = f.backyard.newspaper[3] + 3.0
        inner = f["backyard"]  # a reference: writing through it writes into f
        inner.statue = inner[1][3] * 2 + f.n

    item = np.recarray(1, dtype=GOOSE)
    item[0]["n"] = 1
    kernel[1, 1](item[0])
    assert item[0]["garden"][0] == 45
    assert item[0]["backyard"]["newspaper"][3] == 5
    assert item[0]["backyard"]["statue"] == 11


def test_inner_records_are_copied_whole_and_viewed_across_an_array():
    @cuda.jit
    def kernel(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            if i > 0:
                a[i].backyard = a[0].backyard
            yards = a.backyard  # the inner record of every element
            out[i] = yards[i].statue + yards[i].newspaper[5]

    a = np.zeros(4, GOOSE)
    a[0]["backyard"]["statue"] = 7
    a[0]["backyard"]["newspaper"] = np.arange(6)
    a["n"] = np.arange(4)
    out = np.zeros(4)
    kernel[1, 4](a, out)
    np.testing.assert_array_equal(out, [12.0] * 4)
    np.testing.assert_array_equal(a["backyard"]["newspaper"], np.tile(np.arange(6.0), (4, 1)))
    np.testing.assert_array_equal(a["n"], np.arange(4))  # the copies touch the inner bytes only


def test_storing_another_record_type_into_an_inner_record_is_a_compile_error():
    other = np.dtype([("statue", np.float32)], align=True)

    @cuda.jit
    def kernel(a, b):
        a[0].backyard = b[0]

    with pytest.raises(cuda.CompileError, match=r"cannot store Record\(statue\[type=float32.* "
                                                r"into the field 'backyard'"):
        kernel[1, 1](np.zeros(1, GOOSE), np.zeros(1, other))


CHARACTERS = np.dtype([("a", np.float64), ("b", np.int32), ("c", np.complex64), ("d", "U5"),
                       ("e", "S3")])


def test_character_fields_travel_with_records_that_kernels_use():
    host = np.zeros(3, CHARACTERS)
    for i in range(3):
        host[i] = (i / 2, i, i * 1j, str(i) * 5, b"ab" + bytes([ord("0") + i]))

    @cuda.jit
    def bump_and_copy(src, dst):
        i = cuda.grid(1)
        if i < src.size:
            src[i].b += 10
            dst[i] = src[i]  # the whole record, characters included

    src, dst = cuda.to_device(host), cuda.device_array(3, CHARACTERS)
    bump_and_copy[1, 3](src, dst)
    expected = host.copy()
    expected["b"] += 10
    np.testing.assert_array_equal(dst.copy_to_host(), expected)
    assert "[unichr x 5]" in str(cuda.typeof(src)) and "[char x 3]" in str(cuda.typeof(src))


def test_a_character_field_used_in_a_kernel_is_a_compile_error_naming_it():
    @cuda.jit
    def reads(ary):
        ary[0].d = ary[1].d

    with pytest.raises(cuda.CompileError, match=r"the field 'd' of .* holds \[unichr x 5\], "
                                                r"which kernels cannot read or write"):
        reads[1, 1](cuda.to_device(np.zeros(2, CHARACTERS)))


def test_device_records_read_and_write_device_memory_field_by_field():
    # Numba's DeviceRecord: d[i] of a record array stays on the device.
    d = cuda.device_array(3, CHARACTERS)
    for i in range(3):
        d[i]["a"] = (i + 1) / 2
        d[i]["b"] = i + 1
        d[i]["d"] = str(i + 1) * 5
    host = d.copy_to_host()
    np.testing.assert_array_equal(host["a"], [0.5, 1.0, 1.5])
    np.testing.assert_array_equal(host["d"], ["11111", "22222", "33333"])
    assert d[1]["b"] == 2 and d[2]["d"] == "33333"
    assert d[0].copy_to_host()["b"] == 1 and d[0].shape == () and d[0].dtype == CHARACTERS
    np.testing.assert_array_equal(d["b"].copy_to_host(), [1, 2, 3])  # a field of every record
    with pytest.raises(ValueError, match="no field of name 'z': the device array's dtype .* has "
                                         "the fields a, b"):
        d["z"]
    with pytest.raises(TypeError, match="field 'd' holds <U5, which has no device view"):
        d["d"]


def test_array_and_record_fields_of_a_device_record_are_device_views():
    inner = np.dtype([("i", np.int32), ("j", np.float32, (3, 3))], align=True)
    outer = np.dtype([("x", np.int32), ("y", inner)], align=True)
    d = cuda.to_device(np.zeros(2, outer))
    d[1]["y"]["i"] = 7
    d[1]["y"]["j"][0, 2] = 2.5
    d[1]["y"]["j"][2] = [1, 2, 3]
    host = d.copy_to_host()
    assert host[1]["y"]["i"] == 7 and host[0]["y"]["i"] == 0
    np.testing.assert_array_equal(host[1]["y"]["j"], [[0, 0, 2.5], [0, 0, 0], [1, 2, 3]])
    assert d[1]["y"]["j"].shape == (3, 3)
