"""NumPy's datetime64 and timedelta64 in kernels, as Numba's NPDatetime/NPTimedelta: arrays and
scalars of any unit as arguments, comparisons, datetime - datetime, datetime +- timedelta,
timedelta arithmetic among timedeltas and with numbers, units meeting in the finer one, NaT
propagating as NumPy propagates it; device arrays of them and their int64 views; CUDA ufuncs
and gufuncs with datetime signatures. Every result is compared with NumPy's."""

import numpy as np
import pytest

import cudajit as cuda
from cudajit.errors import CompileError

pytestmark = pytest.mark.usefixtures("device")

NAT = np.iinfo(np.int64).min


def dates(unit="D", n=40, seed=0):
    rng = np.random.default_rng(seed)
    values = rng.integers(-20000, 20000, n)
    values[3] = NAT
    return values.astype(np.int64).view(f"datetime64[{unit}]")


def deltas(unit="D", n=40, seed=1):
    rng = np.random.default_rng(seed)
    values = rng.integers(-500, 500, n)
    values[5] = NAT
    values[7] = 0
    return values.astype(np.int64).view(f"timedelta64[{unit}]")


def launch(kernel, out, *args):
    kernel[1, 64](out, *args)
    return out


@cuda.jit
def subtract(out, a, b):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] - b[i]


@cuda.jit
def add(out, a, b):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


@cuda.jit
def compare_all(out, a, b):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] == b[i]
        out[i, 1] = a[i] != b[i]
        out[i, 2] = a[i] < b[i]
        out[i, 3] = a[i] <= b[i]
        out[i, 4] = a[i] > b[i]
        out[i, 5] = a[i] >= b[i]


def test_datetime_minus_datetime_is_a_timedelta():
    a, b = dates(), dates(seed=5)
    out = launch(subtract, np.zeros(a.size, "m8[D]"), a, b)
    np.testing.assert_array_equal(out, a - b)
    assert np.isnat(out[3])


def test_units_meet_in_the_finer_one():
    a, b = dates("D"), dates("h", seed=5)
    out = launch(subtract, np.zeros(a.size, "m8[h]"), a, b)
    np.testing.assert_array_equal(out, a - b)
    t = deltas("W")
    out = launch(add, np.zeros(a.size, "M8[D]"), a, t)
    np.testing.assert_array_equal(out, a + t)
    out = launch(add, np.zeros(a.size, "M8[M]"), dates("Y"), deltas("M"))
    np.testing.assert_array_equal(out, dates("Y") + deltas("M"))


def test_datetime_plus_and_minus_timedelta():
    a, t = dates(), deltas()
    np.testing.assert_array_equal(launch(add, np.zeros(a.size, "M8[D]"), a, t), a + t)
    np.testing.assert_array_equal(launch(add, np.zeros(a.size, "M8[D]"), t, a), t + a)
    np.testing.assert_array_equal(launch(subtract, np.zeros(a.size, "M8[D]"), a, t), a - t)
    np.testing.assert_array_equal(launch(add, np.zeros(a.size, "m8[D]"), t, deltas(seed=9)),
                                  t + deltas(seed=9))


@pytest.mark.parametrize("kind", ["datetime", "timedelta"])
def test_comparisons_treat_nat_as_numpy_does(kind):
    a = dates() if kind == "datetime" else deltas()
    b = a.copy()
    b[::2] = (dates(seed=7) if kind == "datetime" else deltas(seed=7))[::2]
    b[9] = NAT if kind == "timedelta" else np.datetime64("NaT")
    out = launch(compare_all, np.zeros((a.size, 6), np.bool_), a, b)
    expected = np.stack([a == b, a != b, a < b, a <= b, a > b, a >= b], axis=1)
    np.testing.assert_array_equal(out, expected)


def test_scalar_arguments_and_numbers():
    @cuda.jit
    def f(out_dt, out_td, out_f, out_i, a, target, delta, k, x):
        i = cuda.grid(1)
        if i < a.size:
            out_dt[i] = a[i] - delta
            out_td[i, 0] = delta * k
            out_td[i, 1] = k * delta
            out_td[i, 2] = (a[i] - target) // k
            out_td[i, 3] = (a[i] - target) / k
            out_td[i, 4] = (a[i] - target) * x
            out_td[i, 5] = -(a[i] - target)
            out_td[i, 6] = (a[i] - target) % delta
            out_f[i] = (a[i] - target) / delta
            out_i[i] = (a[i] - target) // delta

    a = dates()
    target, delta, k, x = a[5], np.timedelta64(-3, "D"), 4, 1.5
    n = a.size
    out_dt, out_td = np.zeros(n, "M8[D]"), np.zeros((n, 7), "m8[D]")
    out_f, out_i = np.zeros(n), np.zeros(n, np.int64)
    f[1, 64](out_dt, out_td, out_f, out_i, a, target, delta, k, x)
    d = a - target
    np.testing.assert_array_equal(out_dt, a - delta)
    with np.errstate(all="ignore"):
        expected = np.stack([np.full(n, delta * k), np.full(n, k * delta), d // k, d / k, d * x,
                             -d, d % delta], axis=1)
        np.testing.assert_array_equal(out_td, expected)
        np.testing.assert_array_equal(out_f, d / delta)
        np.testing.assert_array_equal(out_i, d // delta)


def test_any_unit_and_the_generic_one():
    for unit in ("Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"):
        a, b = dates(unit), dates(unit, seed=3)
        out = launch(subtract, np.zeros(a.size, f"m8[{unit}]"), a, b)
        np.testing.assert_array_equal(out, a - b)


def test_device_arrays_and_int64_views():
    a = dates()
    d = cuda.to_device(a)
    assert d.dtype == a.dtype
    np.testing.assert_array_equal(d.copy_to_host(), a)
    viewed = d.view(np.int64)
    np.testing.assert_array_equal(viewed.copy_to_host(), a.view(np.int64))
    assert viewed.gpu_data == d.gpu_data  # the same bytes, as Numba's views share them
    assert d[1:].gpu_data != d.gpu_data
    t = deltas("us")
    dt = cuda.to_device(t)
    np.testing.assert_array_equal(dt.view(np.int64).copy_to_host(), t.view(np.int64))
    out = cuda.device_array(a.size, "m8[D]")
    subtract[1, 64](out, d, cuda.to_device(dates(seed=5)))
    np.testing.assert_array_equal(out.copy_to_host(), a - dates(seed=5))


def test_vectorize_and_guvectorize_signatures():
    @cuda.vectorize(["timedelta64[D](datetime64[D], datetime64[D])"], target="cuda")
    def diff(start, end):
        return end - start

    @cuda.vectorize([(cuda.types.from_dtype(np.dtype("M8[D]")),) * 2], target="cuda")
    def diff_inferred(start, end):
        return end - start

    @cuda.guvectorize(["void(datetime64[D], timedelta64[D], datetime64[D][:])"], "(),()->()",
                      target="cuda")
    def shift(start, by, out):
        out[0] = start + by

    a, b, t = dates(), dates(seed=5), deltas()
    for f in (diff, diff_inferred):
        out = f(a, b)
        assert out.dtype == np.dtype("m8[D]")
        np.testing.assert_array_equal(out, b - a)
    np.testing.assert_array_equal(shift(a, t), a + t)


@pytest.mark.parametrize("body, message", [
    ("out[0] = a[0] + a[1]", r"unsupported operand types for \+: datetime64\[D\] and "
                             r"datetime64\[D\]"),
    ("out[0] = a[0] - t[0]", r"their units do not convert"),
    ("out[0] = a[0] < t[0]", r"cannot compare datetime64\[D\] and timedelta64\[M\]"),
    ("out[0] = -a[0]", r"unary -: datetime64\[D\]"),
])
def test_what_numba_refuses_is_a_compile_error(body, message):
    namespace = {"cuda": cuda}
    exec(f"def k(out, a, t):\n    {body}\n", namespace)
    kernel = cuda.jit(namespace["k"])
    with pytest.raises(CompileError, match=message):
        kernel[1, 1](np.zeros(1, "M8[D]"), dates(), deltas("M"))
