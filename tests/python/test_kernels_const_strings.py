"""str and bytes constants stored into elements of NumPy 'U' and 'S' arrays and into such
record fields in kernels, as Numba stores them: the text as NumPy holds it (UTF-32 for 'U'), zero-padded to the field's width or
truncated to it. Compared with NumPy's own assignment of the same constants; what kernels
cannot do with strings is a CompileError saying what they can."""

import numpy as np
import pytest

import cudajit as cuda
from cudajit.errors import CompileError

pytestmark = pytest.mark.usefixtures("device")


@pytest.mark.parametrize("dtype, text", [
    ("<U12", "XYZ"), ("S12", b"XYZ"), ("<U2", "XYZ"), ("S3", b"XYZ"), ("<U4", "\u00e9\U0001f600"),
])
def test_constants_into_array_elements(dtype, text):
    namespace = {"cuda": cuda}
    exec(f"def k(arr):\n    i = cuda.grid(1)\n    if i < len(arr) - 1:\n        arr[i] = {text!r}\n",
         namespace)
    kernel = cuda.jit(namespace["k"])
    arr = np.zeros(9, dtype)
    arr[-1] = text[:1]  # kept: the kernel writes all but the last
    kernel[1, 16](arr)
    expected = np.zeros_like(arr)
    expected[:-1] = text
    expected[-1] = text[:1]
    np.testing.assert_array_equal(arr, expected)
    assert arr.tobytes() == expected.tobytes()


def test_a_2d_array_and_a_strided_view():
    @cuda.jit
    def f(a, s):
        a[1, 0] = "ab"
        s[1] = b"cd"

    a = np.zeros((2, 2), "<U3")
    s = np.zeros(6, "S2")
    f[1, 1](a, s[::2])
    np.testing.assert_array_equal(a, [["", ""], ["ab", ""]])
    np.testing.assert_array_equal(s, [b"", b"", b"cd", b"", b"", b""])


def test_str_and_bytes_constants_into_record_fields():
    @cuda.jit
    def f(a):
        a[0].x = 1
        a[0].u = "ABC"
        a[0]["s"] = b"XYZ"
        a[1].x = 2
        a[1]["u"] = "\u00e9t\u00e9 \U0001f600"  # beyond ASCII: UTF-32 code points
        a[1].s = b"\x00\xffab"
        a[2].u = "longer than the field"  # truncated, as NumPy truncates
        a[2].s = b"0123456789"
        a[3].u = ""  # all zeros

    dt = np.dtype([("x", np.int32), ("u", "<U5"), ("s", "S4")])
    a = np.zeros(4, dt)
    a[3]["u"] = "junk"
    f[1, 1](a)
    expected = np.zeros(4, dt)
    expected[0] = (1, "ABC", b"XYZ")
    expected[1] = (2, "\u00e9t\u00e9 \U0001f600", b"\x00\xffab")
    expected[2]["u"] = "longer than the field"
    expected[2]["s"] = b"0123456789"
    np.testing.assert_array_equal(a, expected)
    assert a.tobytes() == expected.tobytes()  # the padding bytes too


def test_in_a_record_argument_and_a_device_array():
    @cuda.jit
    def f(r, d):
        r.name = "cudajit"
        d[1].name = "kernel"

    dt = np.dtype([("name", "<U8"), ("v", np.float64)])
    records = np.zeros(1, dt)
    d = cuda.to_device(np.zeros(2, dt))
    f[1, 1](records[0], d)
    assert records[0]["name"] == "cudajit"
    host = d.copy_to_host()
    assert list(host["name"]) == ["", "kernel"]


@pytest.mark.parametrize("body, message", [
    ("a[0].x = 'abc'", r"cannot store a str constant into the field 'x'"),
    ("a[0].u = b'abc'", r"cannot store a bytes constant into the field 'u' \(\[unichr x 3\]\)"),
    ("t = 'abc'", r"strings are supported in kernels only as constants stored into an element "
                  r"of a NumPy 'U' \(str\) or 'S' \(bytes\) array or into such a record field"),
    ("a[0] = 'abc'", r"cannot store a str constant into an element of array\(Record"),
    ("s[0] = b'abc'", r"cannot store a bytes constant into an element of "
                      r"array\(\[unichr x 2\], 1d, C\)"),
    ("a[0].x = len('abc')", r"strings are supported in kernels only as constants"),
])
def test_other_uses_of_strings_are_compile_errors(body, message):
    namespace = {"cuda": cuda}
    exec(f"def k(a, s):\n    {body}\n", namespace)
    kernel = cuda.jit(namespace["k"])
    with pytest.raises(CompileError, match=message):
        kernel[1, 1](np.zeros(1, [("x", np.int32), ("u", "<U3")]), np.zeros(1, "<U2"))
