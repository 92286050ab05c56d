"""NumPy's reductions of a whole array in kernels (np.sum(a), a.sum(), np.nanmax(a) ...):
each one, as a function and as a method, on 1-D, 2-D and non-contiguous arrays of integer,
float and bool dtypes, equals NumPy's result in NumPy's result dtype; NaNs follow NumPy's
rules; an empty array's min/max raise NumPy's ValueError (reported with debug=True); NumPy's
other parameters (axis=, dtype= ...) are refused with a message naming them. On every
device. The loops of a kernel (for/while-else, literal_unroll) have their own file,
test_kernels_loop_else.py."""

import functools

import numpy as np
import pytest

import cudajit as cuda
from conftest import in_layout, kernel_from_body, random_array

pytestmark = pytest.mark.usefixtures("device")

# Each reduction kernel writes its results into arrays of NumPy's result dtype, so that a
# narrower accumulator (int32 sums of an int32 array) shows as a different value.
SUMS = ["np.sum(a)", "a.sum()", "np.prod(a)", "a.prod()", "np.nansum(a)", "np.nanprod(a)"]
EXTREMES = ["np.min(a)", "a.min()", "np.amin(a)", "np.max(a)", "a.max()", "np.amax(a)",
            "np.nanmin(a)", "np.nanmax(a)"]
STATISTICS = ["np.mean(a)", "a.mean()", "np.var(a)", "a.var()", "np.std(a)", "a.std()",
              "np.nanmean(a)"]
TRUTHS = ["np.all(a)", "a.all()", "np.any(a)", "a.any()", "np.count_nonzero(a)"]


GROUPS = {"sums": SUMS, "extremes": EXTREMES, "statistics": STATISTICS, "truths": TRUTHS}
# The same expressions for NumPy, compiled once (cudajit keeps the text of only the latest
# 512 strings compiled, and the kernels below are compiled from theirs).
NUMPY = {e: eval(f"lambda a: {e}", {"np": np}) for g in GROUPS.values() for e in g}  # noqa: S307


@functools.cache
def _kernel(name: str):
    body = "\n".join(f"out[{k}] = {e}" for k, e in enumerate(GROUPS[name]))
    return cuda.jit(kernel_from_body("a, out", body, np=np))


def _numpy(expressions: list[str], a: np.ndarray) -> list:
    return [NUMPY[e](a) for e in expressions]


def _run(name: str, a: np.ndarray, dtype) -> np.ndarray:
    """The kernel computing GROUPS[name] of `a`, its results in an array of `dtype`."""
    out = np.zeros(len(GROUPS[name]), dtype)
    _kernel(name)[1, 1](a, out)
    return out


def _tolerance(a: np.ndarray) -> dict:
    """Sums added in order differ from NumPy's pairwise sums in the last bits."""
    if a.dtype.kind != "f":
        return {"rtol": 0, "atol": 0}
    eps = 1e-5 if a.dtype == np.float32 else 1e-12
    return {"rtol": eps, "atol": eps * float(np.abs(a.astype(np.float64)).sum())}


DTYPES = [np.int8, np.int32, np.int64, np.uint8, np.uint64, np.float32, np.float64, np.bool_]
# (shape, layout): 1-D and 2-D contiguous, and three non-contiguous views.
SHAPES = [((7,), "C"), ((3, 4), "C"), ((3, 4), "F"), ((4, 3), "step2"), ((5,), "reversed")]


def _case(dtype, shape, layout, seed=1):
    values = random_array(dtype, shape, seed)
    if np.dtype(dtype).kind in "iu":  # small values: products stay exact in float64 too
        values = values % 11 + (values % 2 == 0)
    return in_layout(values, layout)


@pytest.mark.parametrize("shape, layout", SHAPES, ids=[f"{s}-{lay}" for s, lay in SHAPES])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_sums_and_products_are_numpys_in_numpys_result_dtype(dtype, shape, layout):
    a = _case(dtype, shape, layout)
    expected = _numpy(SUMS, a)
    got = _run("sums", a, np.result_type(*expected))
    np.testing.assert_allclose(got, expected, **_tolerance(a))


def test_integer_sums_do_not_wrap_in_the_element_type():
    a = np.array([100, 100, 100], np.int8)  # 300: int8 would wrap, NumPy sums in int64
    got = _run("sums", a, np.int64)
    np.testing.assert_array_equal(got, _numpy(SUMS, a))
    assert got[0] == 300 and got[2] == 1_000_000
    u = np.array([200, 200], np.uint8)
    np.testing.assert_array_equal(_run("sums", u, np.uint64), _numpy(SUMS, u))


def test_float32_sums_add_in_float32():
    a = np.array([2.0**24, 1.0, 1.0], np.float32)  # each 1.0 is lost in float32, in order
    got = _run("sums", a, np.float64)
    assert got[0] == 2.0**24


@pytest.mark.parametrize("shape, layout", SHAPES, ids=[f"{s}-{lay}" for s, lay in SHAPES])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_min_and_max_are_numpys(dtype, shape, layout):
    a = _case(dtype, shape, layout)
    got = _run("extremes", a, a.dtype)
    np.testing.assert_array_equal(got, _numpy(EXTREMES, a))


@pytest.mark.parametrize("shape, layout", SHAPES, ids=[f"{s}-{lay}" for s, lay in SHAPES])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_mean_var_and_std_are_numpys(dtype, shape, layout):
    a = _case(dtype, shape, layout)
    expected = np.array(_numpy(STATISTICS, a), np.float64)
    got = _run("statistics", a, np.float64)
    tolerance = _tolerance(a)
    tolerance["rtol"] = max(tolerance["rtol"], 1e-12)  # float64 division and sqrt
    if a.dtype == np.float32:  # NumPy's float32 statistics round to float32
        tolerance["atol"] = 1e-5 * float(np.abs(a.astype(np.float64)).max()) ** 2
    np.testing.assert_allclose(got, expected, **tolerance)


@pytest.mark.parametrize("shape, layout", SHAPES, ids=[f"{s}-{lay}" for s, lay in SHAPES])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_all_any_and_count_nonzero_are_numpys(dtype, shape, layout):
    a = _case(dtype, shape, layout)
    a = np.where(np.arange(a.size).reshape(a.shape) % 3 == 1, a.dtype.type(0), a)
    a = in_layout(a, layout)
    got = _run("truths", a, np.int64)
    np.testing.assert_array_equal(got, _numpy(TRUTHS, a))
    ones = in_layout(np.ones(shape, dtype), layout)
    np.testing.assert_array_equal(_run("truths", ones, np.int64), _numpy(TRUTHS, ones))


def test_complex_arrays_sum_average_and_spread_as_in_numpy():
    a = in_layout(random_array(np.complex128, (3, 4), seed=2), "step2")
    expressions = SUMS + STATISTICS + TRUTHS
    got = np.concatenate([_run("sums", a, np.complex128), _run("statistics", a, np.complex128),
                          _run("truths", a, np.complex128)])
    np.testing.assert_allclose(got, np.array(_numpy(expressions, a), np.complex128),
                               rtol=1e-12)
    assert np.all(got[len(SUMS) + 2:len(SUMS) + 6].imag == 0)  # var and std are real


NAN_CASES = [
    np.array([1.0, np.nan, -3.0, np.nan, 2.0]),
    np.array([np.nan, 4.0, -1.5]),
    np.array([[np.inf, -2.0], [np.nan, 0.5]]),
    np.array([np.inf, -np.inf, 1.0]),
    np.array([-0.0, 0.0]),
]


@pytest.mark.parametrize("a", NAN_CASES, ids=range(len(NAN_CASES)))
def test_nans_propagate_or_are_skipped_as_in_numpy(a):
    with np.errstate(invalid="ignore"):
        for name, expressions in GROUPS.items():
            expected = _numpy(expressions, a)
            got = _run(name, a, np.float64)
            np.testing.assert_allclose(got, expected, rtol=1e-15, equal_nan=True,
                                       err_msg=name)


def test_all_nan_arrays_give_nan_for_nanmin_nanmax_and_nanmean():
    a = np.array([np.nan, np.nan], np.float32)
    got = _run("extremes", a, np.float32)
    assert np.isnan(got).all()
    stats = _run("statistics", a, np.float64)
    assert np.isnan(stats[-1])
    assert _run("sums", a, np.float64)[4:].tolist() == [0.0, 1.0]  # nansum, nanprod


def test_empty_arrays_sum_to_the_identity():
    a = np.zeros(0)
    np.testing.assert_array_equal(_run("sums", a, np.float64), [0, 0, 1, 1, 0, 1])
    np.testing.assert_array_equal(_run("truths", a, np.int64), [1, 1, 0, 0, 0])


@pytest.mark.parametrize("expression, ufunc", [
    ("np.min(a)", "minimum"), ("a.max()", "maximum"), ("np.nanmin(a)", "fmin"),
    ("np.nanmax(a)", "fmax"),
])
def test_min_and_max_of_an_empty_array_raise_numpys_value_error(expression, ufunc):
    kernel = cuda.jit(kernel_from_body("a, out", f"out[0] = {expression}", np=np),
                      debug=True, opt=False)
    message = f"zero-size array to reduction operation {ufunc} which has no identity"
    with pytest.raises(ValueError, match=message):  # NumPy's own message
        NUMPY[expression](np.zeros(0))
    with pytest.raises(ValueError, match=message):
        kernel[1, 1](np.zeros((2, 0)), np.zeros(1))


def test_a_zero_dimensional_global_array_reduces_to_its_value():
    kernel = cuda.jit(kernel_from_body("out", "out[0] = np.sum(SCALAR) + SCALAR.max()", np=np,
                                       SCALAR=np.array(2.5)))
    out = np.zeros(1)
    kernel[1, 1](out)
    assert out[0] == 5.0


def test_reductions_of_views_in_the_kernel():
    kernel = cuda.jit(kernel_from_body("a, out", "\n".join([
        "for i in range(a.shape[0]):",
        "    out[i] = a[i].sum() + a[:, i].max()",
    ]), np=np))
    a = np.arange(9.0).reshape(3, 3)
    out = np.zeros(3)
    kernel[1, 1](a, out)
    np.testing.assert_array_equal(out, a.sum(axis=1) + a.max(axis=0))


# --- what is refused ------------------------------------------------------------------


@pytest.mark.parametrize("expression, message", [
    ("np.sum(a, axis=0)", r"np\.sum\(\) in kernels reduces the whole array; 'axis=' is not"),
    ("a.sum(axis=1)", r"a\.sum\(\) in kernels reduces the whole array; 'axis=' is not"),
    ("np.mean(a, dtype=np.float32)", r"np\.mean\(\) .*'dtype=' is not supported"),
    ("np.var(a, ddof=1)", r"np\.var\(\) .*'ddof=' is not supported"),
    ("np.max(a, out=a)", r"np\.max\(\) .*'out=' is not supported"),
    ("np.sum(a, 0)", r"np\.sum\(\) in kernels takes one argument, the array"),
    ("a.prod(0)", r"a\.prod\(\) in kernels takes no arguments"),
    ("a.cumsum()", r"method '\.cumsum\(\)' is not supported in kernels; supported: .*"
                   r"\.sum\(\) \.var\(\)"),
    ("np.median(a)", r"'np\.median' is not supported in kernels"),
])
def test_what_numpy_has_and_kernels_do_not_is_a_clear_compile_error(expression, message):
    kernel = cuda.jit(kernel_from_body("a, out", f"out[0] = {expression}", np=np))
    with pytest.raises(cuda.CompileError, match=message):
        kernel[1, 1](np.ones((2, 2)), np.zeros(1))
