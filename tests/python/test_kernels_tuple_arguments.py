"""Tuples as kernel arguments, as Numba takes them: of arrays, scalars and
tuples, each item passed as an argument of its own and the tuple rebuilt in the
kernel. On every device."""

import numpy as np
import pytest

import cudajit as cuda

pytestmark = pytest.mark.usefixtures("device")


@cuda.jit
def combine(arrays, scale, out):
    i = cuda.grid(1)
    a, b = arrays
    if i < out.size:
        out[i] = (a[i] + b[i]) * scale[0] + scale[1][i]


def test_tuples_of_arrays_and_scalars():
    a, b, c = np.arange(8.0), np.ones(8), np.full(8, 0.5)
    out = np.zeros(8)
    combine[1, 8]((a, b), (2.0, c), out)
    np.testing.assert_array_equal(out, (a + b) * 2.0 + c)
    # Device arrays and host arrays mix in one tuple.
    combine[1, 8]((cuda.to_device(a), b), (2.0, cuda.to_device(c)), out)
    np.testing.assert_array_equal(out, (a + b) * 2.0 + c)


def test_each_tuple_of_types_is_its_own_specialization():
    a, b, c = np.arange(8.0), np.ones(8), np.full(8, 0.5)
    out = np.zeros(8)
    combine[1, 8]((a, b), (3, c), out)  # an int scale
    np.testing.assert_array_equal(out, (a + b) * 3 + c)
    combine[1, 8]((a, b), (2.5, c), out)  # a float scale: compiled anew, not the int code
    np.testing.assert_array_equal(out, (a + b) * 2.5 + c)
    assert len({s[1] for s in combine.signatures}) >= 2


def test_nested_tuples_len_and_iteration_over_a_tuple_of_arrays():
    @cuda.jit
    def total(parts, nested, out):
        i = cuda.grid(1)
        acc = 0.0
        for p in parts:  # a uniform tuple of arrays, indexed by the loop
            acc += p[i]
        (x, (y, z)) = nested
        out[i] = acc + x * len(parts) + y[i] * z

    parts = tuple(np.arange(5.0) * k for k in range(1, 4))
    out = np.zeros(5)
    total[1, 5](parts, (10, (np.ones(5), 2.0)), out)
    np.testing.assert_array_equal(out, sum(parts) + 30 + 2.0)


def test_an_array_in_a_tuple_is_written_back():
    @cuda.jit
    def fill(pair):
        i = cuda.grid(1)
        first, second = pair
        first[i] = i
        second[i] = 2 * i

    first, second = np.zeros(16), np.zeros(16, np.int32)
    fill[1, 16]((first, second))
    cuda.synchronize()
    np.testing.assert_array_equal(first, np.arange(16.0))
    np.testing.assert_array_equal(second, 2 * np.arange(16))


def test_a_tuple_with_something_that_is_not_an_argument_names_its_position():
    @cuda.jit
    def use(pair, out):
        out[0] = pair[0]

    with pytest.raises(TypeError, match=r"argument 0: expected a device array.*got str"):
        use[1, 1]((1.0, "text"), np.zeros(1))


def test_named_tuples_read_their_items_by_name():
    from collections import namedtuple
    from typing import NamedTuple

    Point = namedtuple("Point", ("x", "y", "r"))

    class Scale(NamedTuple):
        factor: float
        times: int

    @cuda.jit
    def kernel(out, p, s):
        out[0] = p.x + p.y + p.r
        out[1] = s.factor * s.times
        out[2] = p[2]

    out = np.zeros(3)
    kernel[1, 1](out, Point(1, 2, 2.5), Scale(1.5, 4))
    np.testing.assert_array_equal(out, [5.5, 6.0, 2.5])
    # a plain tuple of the same items is another type: no names to read
    with pytest.raises(cuda.CompileError, match=r"Tuple\(int64, int64, float64\) has no "
                                                r"attribute 'x'"):
        kernel[1, 1](out, (1, 2, 2.5), Scale(1.5, 4))
    assert "Point(x=int64, y=int64, r=float64)" in str(kernel.signatures)


# --- tuples in declared signatures (Numba's spelling) -------------------------------------------


def test_a_signature_string_declares_tuples():
    @cuda.jit("void(UniTuple(float64, 2), Tuple((int32, float32)), float64[:])")
    def kernel(t, u, out):
        out[0] = t[0] + t[1]
        out[1] = u[0]
        out[2] = u[1]

    out = cuda.to_device(np.zeros(3))
    kernel[1, 1]((1.25, 2.5), (-3, 0.5), out)
    np.testing.assert_array_equal(out.copy_to_host(), [3.75, -3.0, 0.5])
    kernel[1, 1]((1, 2), (7, 1), out)  # ints converted to the declared items' types
    np.testing.assert_array_equal(out.copy_to_host(), [3.0, 7.0, 1.0])
    assert kernel.signatures == [("UniTuple(float64 x 2)", "Tuple(int32, float32)",
                                  "array(float64, 1d, A)")]


@pytest.mark.parametrize("given, shown", [
    ((1.5, 2.0), r"UniTuple\(float64 x 2\)"),  # a float where an int is declared
    ((1.5, 2, 3), r"Tuple\(float64, int64, int64\)"),  # another length
    (1.5, r"float64"),  # not a tuple
])
def test_a_tuple_that_does_not_match_the_declared_one_is_a_type_error(given, shown):
    @cuda.jit("void(Tuple((float64, int64)), float64[:])")
    def kernel(t, out):
        out[0] = t[0] * t[1]

    with pytest.raises(TypeError, match=r"no matching definition of kernel 'kernel' for argument "
                                        rf"types \({shown}, array\(float64, 1d, C\)\); declared: "
                                        r"\(Tuple\(float64, int64\), array\(float64, 1d, A\)\)"):
        kernel[1, 1](given, np.zeros(1))


def test_tuple_types_are_cudajit_types_too():
    assert str(cuda.types.UniTuple(cuda.float32, 3)) == "UniTuple(float32 x 3)"
    assert cuda.types.UniTuple(cuda.int64, 2) == cuda.types.Tuple([cuda.int64, cuda.int64])
    with pytest.raises(TypeError, match="UniTuple's count must be a positive int; got 0"):
        cuda.types.UniTuple(cuda.float32, 0)
    ptx, _ = cuda.compile_ptx(lambda t, out: None, "void(UniTuple(float32, 3), float32[:])")
    assert ".entry" in ptx
