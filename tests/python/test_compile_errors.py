"""Errors: unsupported or ill-typed kernel code raises CompileError with
file:line:col, the source line and a caret (at the first launch of a lazy
kernel, at decoration of an eager one); bad signatures, launch configurations
and arguments raise TypeError or ValueError saying what was expected and given.

The kernels below are plain functions so that each test decides how to
compile them; every error test checks the line it points at and the message."""

import inspect
import math
import os
import re
import warnings

import numpy as np
import pytest

import cudajit
import cudajit as cuda
from conftest import kernel_from_body, parse_compile_error, source_line_of

# --- unsupported Python -------------------------------------------------------


def uses_try(out):
    try:
        out[0] = 1
    except Exception:
        out[0] = 2


def uses_with(out):
    with out:
        out[0] = 1


def uses_lambda(out):
    out[0] = (lambda v: v + 1)(1)  # called where it is made (one assigned to a name works)


def uses_list_comprehension(out):
    values = [v * 2 for v in range(3)]
    out[0] = values[0]


def uses_dict(out):
    table = {1: 2}
    out[0] = table[1]


def uses_set(out):
    members = {1, 2}
    out[0] = 1 if members else 0


def uses_del(out):
    x = 1
    del x
    out[0] = 0


def uses_global_statement(out):
    global SOME_GLOBAL
    out[0] = 1


def uses_nested_async_def(out):
    async def inner(v):
        return v

    out[0] = 1


def uses_import(out):
    import os

    out[0] = 1


def uses_range_outside_for(out):
    r = range(3)
    out[0] = 1


def uses_matmul(a, out):
    out[0] = a @ a


def uses_in(out):
    if 1 in out:
        out[0] = 1


def uses_none(out):
    x = None
    out[0] = 1


def uses_starred_call(out):
    args = (1, 2)
    print(*args)


def uses_keyword_argument(out):
    out[0] = round(1.25, ndigits=1)


def uses_f_string(out):
    label = f"{out[0]}"
    out[0] = 1


def uses_yield(out):
    yield out[0]


UNSUPPORTED = [
    (uses_try, "try:", [r"\btry\b"]),
    (uses_with, "with out:", [r"\bwith\b"]),
    (uses_lambda, "lambda", [r"lambda"]),
    (uses_list_comprehension, "[v * 2 for v in range(3)]", [r"comprehension"]),
    (uses_dict, "{1: 2}", [r"dict"]),
    (uses_set, "{1, 2}", [r"\bset\b"]),
    (uses_del, "del x", [r"\bdel\b"]),
    (uses_global_statement, "global SOME_GLOBAL", [r"\bglobal\b"]),
    (uses_nested_async_def, "async def inner(v):", [r"async"]),
    (uses_import, "import os", [r"\bimport\b"]),
    (uses_range_outside_for, "range(3)", [r"range"]),
    (uses_matmul, "a @ a", [r"@|matmul"]),
    (uses_in, "1 in out", [r"'in' needs a tuple on its right"]),
    (uses_none, "None", [r"None"]),
    (uses_starred_call, "print(*args)", [r"f\(\*t\) of a tuple known only when the kernel "
                                         r"compiles works for device functions"]),
    (uses_keyword_argument, "round(1.25, ndigits=1)", [r"keyword|ndigits"]),
    (uses_f_string, 'f"{out[0]}"', [r"str|f-string|format"]),
    (uses_yield, "yield", [r"yield|generator"]),
]


@pytest.mark.parametrize(
    "func, marker, patterns", UNSUPPORTED, ids=[f.__name__ for f, _, _ in UNSUPPORTED]
)
def test_unsupported_python_is_a_compile_error_at_the_first_launch(
    func, marker, patterns, assert_compile_error
):
    kernel = cuda.jit(func)  # decorating a lazy kernel never fails
    args = (
        (np.zeros(1), np.zeros(1)) if "a" in inspect.signature(func).parameters else (np.zeros(1),)
    )
    with pytest.raises(cuda.CompileError) as excinfo:
        kernel[1, 1](*args)
    assert_compile_error(excinfo.value, func, marker, *patterns)


@pytest.mark.parametrize(
    "func, marker, patterns", UNSUPPORTED[:6], ids=[f.__name__ for f, _, _ in UNSUPPORTED[:6]]
)
def test_unsupported_python_is_a_compile_error_in_compile_ptx(
    func, marker, patterns, assert_compile_error
):
    with pytest.raises(cuda.CompileError) as excinfo:
        cuda.compile_ptx(func, (cuda.float64[::1],))
    assert_compile_error(excinfo.value, func, marker, *patterns)


def test_unsupported_messages_say_what_is_not_supported(assert_compile_error):
    with pytest.raises(cuda.CompileError) as excinfo:
        cuda.compile_ptx(uses_try, (cuda.float64[::1],))
    assert_compile_error(excinfo.value, uses_try, "try:", r"not supported|unsupported|cannot")


# --- names ----------------------------------------------------------------------


def uses_unknown_name(out):
    out[0] = undefined_thing + 1  # noqa: F821


def uses_input(out):
    out[0] = input()


def uses_string(out):
    label = "hello"
    out[0] = 1


def uses_unsupported_math(out):
    out[0] = math.factorial(3)


def uses_unknown_cuda_attribute(out):
    out[0] = cuda.no_such_intrinsic


def python_helper(x):
    return x + 1


def calls_plain_python_function(out):
    out[0] = python_helper(1)


MODULE_LIST = [1, 2, 3]


def uses_list_global(out):
    out[0] = MODULE_LIST[0]


NAME_ERRORS = [
    (uses_unknown_name, "undefined_thing", [r"undefined_thing"]),
    (uses_input, "input", [r"\binput\b"]),
    (uses_string, '"hello"', [r"str"]),
    (uses_unsupported_math, "math.factorial", [r"factorial"]),
    (uses_unknown_cuda_attribute, "cuda.no_such_intrinsic", [r"no_such_intrinsic"]),
    (calls_plain_python_function, "python_helper(1)", [r"python_helper", r"jit|device"]),
    (uses_list_global, "MODULE_LIST", [r"MODULE_LIST", r"list"]),
]


@pytest.mark.parametrize(
    "func, marker, patterns", NAME_ERRORS, ids=[f.__name__ for f, _, _ in NAME_ERRORS]
)
def test_names_that_cannot_be_resolved_are_compile_errors(
    func, marker, patterns, assert_compile_error
):
    kernel = cuda.jit(func)
    with pytest.raises(cuda.CompileError) as excinfo:
        kernel[1, 1](np.zeros(1))
    assert_compile_error(excinfo.value, func, marker, *patterns)


# --- stores into array elements -------------------------------------------------


@pytest.mark.parametrize("body, pattern", [
    ("out[0] = (1.0, 2.0)", r"cannot store UniTuple\(float64 x 2\) into an array element$"),
    ("out[0] = 1j", r"cannot store complex128 into an array of float64 \(take \.real or abs\(\) "
                    r"first\)$"),
])
def test_an_array_element_takes_a_number_of_its_kind(body, pattern):
    with pytest.raises(cuda.CompileError, match=pattern):
        cuda.jit(kernel_from_body("out", body))[1, 1](np.zeros(1))


# --- read-only arrays ------------------------------------------------------------


def writes_weights(weights, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = weights[i]
        weights[i] = 0.0


def augments_weights(weights, out):
    weights[0] += 1.0


@cuda.jit(device=True)
def zero_first(arr):
    arr[0] = 0.0


def passes_weights_to_a_writer(weights, out):
    zero_first(weights)


def readonly(values):
    values = np.array(values)
    values.flags.writeable = False
    return values


@pytest.mark.parametrize(
    "func, marker",
    [(writes_weights, "weights[i] = 0.0"), (augments_weights, "weights[0] += 1.0")],
    ids=["assignment", "augmented-assignment"],
)
def test_writing_a_read_only_array_names_the_argument_and_the_line(
    func, marker, assert_compile_error
):
    kernel = cuda.jit(func)
    with pytest.raises(cuda.CompileError) as excinfo:
        kernel[1, 4](readonly([1.0, 2.0]), np.zeros(2))
    assert_compile_error(excinfo.value, func, marker, r"read-?only", r"\bweights\b")


def test_writing_a_read_only_array_in_a_device_function_points_at_the_write(assert_compile_error):
    kernel = cuda.jit(passes_weights_to_a_writer)
    with pytest.raises(cuda.CompileError) as excinfo:
        kernel[1, 1](readonly([1.0]), np.zeros(1))
    assert_compile_error(excinfo.value, zero_first.py_func, "arr[0] = 0.0", r"read-?only")


def test_the_same_kernel_still_runs_with_a_writable_array():
    kernel = cuda.jit(writes_weights)
    with pytest.raises(cuda.CompileError):
        kernel[1, 4](readonly([1.0, 2.0]), np.zeros(2))
    weights = np.array([1.0, 2.0])
    out = np.zeros(2)
    kernel[1, 4](weights, out)
    np.testing.assert_array_equal(out, [1.0, 2.0])
    np.testing.assert_array_equal(weights, [0.0, 0.0])


# --- kernels are not launched from kernels (calling one is a device call, as in Numba) -------


@cuda.jit
def helper_kernel(out):
    out[0] = 1


def launches_a_kernel(out):
    helper_kernel[1, 1](out)


def test_launching_a_kernel_from_a_kernel_is_a_compile_error(assert_compile_error):
    kernel = cuda.jit(launches_a_kernel)
    with pytest.raises(cuda.CompileError) as excinfo:
        kernel[1, 1](np.zeros(1))
    assert_compile_error(excinfo.value, launches_a_kernel, "helper_kernel[1, 1]",
                         r"helper_kernel")


# --- type errors -------------------------------------------------------------------


def adds_array_and_scalar(a, out):
    out[0] = a + 1


def indexes_a_scalar(x, out):
    out[0] = x[0]


def too_many_indices(a, out):
    out[0] = a[0, 0]


def float_index(a, out):
    out[0] = a[1.5]


def stores_an_array_into_an_element(a, out):
    out[0] = a


def compares_complex_numbers(z, out):
    out[0] = z < z


def bitwise_and_of_floats(x, out):
    out[0] = x & x


def unknown_attribute(a, out):
    out[0] = a.dtype


def unknown_method(a, out):
    out[0] = a.cumsum()


def reduction_along_an_axis(a, out):
    out[0] = np.sum(a, axis=0)


def len_of_a_scalar(x, out):
    out[0] = len(x)


def math_on_an_array(a, out):
    out[0] = math.sqrt(a)


def math_with_too_many_arguments(x, out):
    out[0] = math.sqrt(x, x)


def grid_of_four_dimensions(x, out):
    out[0] = cuda.grid(4)


def grid_of_a_runtime_value(x, out):
    out[0] = cuda.grid(x)


@cuda.jit(device=True)
def two_arguments(a, b):
    return a + b


def calls_device_function_with_too_few_arguments(x, out):
    out[0] = two_arguments(x)


def calls_device_function_with_too_many_arguments(x, out):
    out[0] = two_arguments(x, x, x)


def returns_a_value_from_a_kernel(x, out):
    return 1


def integer_literal_too_large(x, out):
    out[0] = 123456789012345678901234567890


F64 = np.zeros(2)
C128 = np.zeros(2, np.complex128)

TYPE_ERRORS = [
    (adds_array_and_scalar, (F64, F64), "a + 1", [r"\+|add"]),
    (indexes_a_scalar, (1.5, F64), "x[0]", [r"float64|index|subscript"]),
    (too_many_indices, (F64, F64), "a[0, 0]", [r"ind(ex|ices)|dimension"]),
    (float_index, (F64, F64), "a[1.5]", [r"float|index"]),
    (stores_an_array_into_an_element, (F64, F64), "out[0] = a", [r"array"]),
    (compares_complex_numbers, (C128, np.zeros(2, np.bool_)), "z < z", [r"<|complex"]),
    (bitwise_and_of_floats, (1.5, F64), "x & x", [r"&|float"]),
    (unknown_attribute, (F64, F64), "a.dtype", [r"dtype"]),
    (unknown_method, (F64, F64), "a.cumsum()", [r"cumsum", r"supported: .*\.sum\(\)"]),
    (reduction_along_an_axis, (F64, F64), "axis=0", [r"np\.sum\(\)", r"whole array",
                                                    r"'axis='"]),
    (len_of_a_scalar, (1.5, F64), "len(x)", [r"len"]),
    (math_on_an_array, (F64, F64), "math.sqrt(a)", [r"sqrt"]),
    (math_with_too_many_arguments, (1.5, F64), "math.sqrt(x, x)", [r"sqrt", r"argument"]),
    (grid_of_four_dimensions, (1.5, F64), "cuda.grid(4)", [r"grid", r"1, 2 or 3|1.*3"]),
    (grid_of_a_runtime_value, (1, F64), "cuda.grid(x)", [r"grid", r"literal|constant"]),
    (
        calls_device_function_with_too_few_arguments,
        (1.5, F64),
        "two_arguments(x)",
        [r"two_arguments", r"argument"],
    ),
    (
        calls_device_function_with_too_many_arguments,
        (1.5, F64),
        "two_arguments(x, x, x)",
        [r"two_arguments", r"argument"],
    ),
    (returns_a_value_from_a_kernel, (1.5, F64), "return 1", [r"return|void"]),
    (
        integer_literal_too_large,
        (1.5, F64),
        "123456789012345678901234567890",
        [r"int64|too large|overflow|fit"],
    ),
]


@pytest.mark.parametrize(
    "func, args, marker, patterns", TYPE_ERRORS, ids=[f[0].__name__ for f in TYPE_ERRORS]
)
def test_ill_typed_code_is_a_compile_error_at_the_offending_expression(
    func, args, marker, patterns, assert_compile_error
):
    kernel = cuda.jit(func)
    with pytest.raises(cuda.CompileError) as excinfo:
        kernel[1, 1](*args)
    assert_compile_error(excinfo.value, func, marker, *patterns)


def test_type_error_message_names_the_types_involved(assert_compile_error):
    kernel = cuda.jit(adds_array_and_scalar)
    with pytest.raises(cuda.CompileError) as excinfo:
        kernel[1, 1](np.zeros(2, np.float32), np.zeros(2))
    assert_compile_error(
        excinfo.value, adds_array_and_scalar, "a + 1", r"array\(float32, 1d, C\)", r"int64"
    )


def test_error_in_a_device_function_points_into_the_device_function(assert_compile_error):
    @cuda.jit(device=True)
    def broken(v):
        return v.no_such_attribute

    @cuda.jit
    def caller(out):
        out[0] = broken(1.0)

    with pytest.raises(cuda.CompileError) as excinfo:
        caller[1, 1](np.zeros(1))
    assert_compile_error(excinfo.value, broken.py_func, "v.no_such_attribute", r"no_such_attribute")


# --- the shape of a CompileError ---------------------------------------------------


def same_file(a, b):
    return os.path.realpath(a) == os.path.realpath(b)


def test_compile_error_is_exported_in_two_places():
    assert cuda.CompileError is cudajit.errors.CompileError
    assert issubclass(cuda.CompileError, Exception)


def test_compile_error_shows_file_line_column_source_and_caret():
    kernel = cuda.jit(uses_unknown_name)
    with pytest.raises(cuda.CompileError) as excinfo:
        kernel[1, 1](np.zeros(1))
    file, line, col, message, source, caret = parse_compile_error(excinfo.value)
    expected_line, text = source_line_of(uses_unknown_name, "undefined_thing")
    assert same_file(file, inspect.getsourcefile(uses_unknown_name))
    assert line == expected_line
    # columns count from 1, as in compilers' messages
    assert col == text.index("undefined_thing") + 1
    assert source.strip() == text.strip()
    assert caret.index("^") == source.index("undefined_thing")
    assert "undefined_thing" in message


def test_compile_error_of_a_nested_kernel_points_into_this_file():
    @cuda.jit
    def nested(out):
        out[0] = not_defined_anywhere  # noqa: F821

    with pytest.raises(cuda.CompileError) as excinfo:
        nested[1, 1](np.zeros(1))
    file, line, _, _, source, _ = parse_compile_error(excinfo.value)
    assert same_file(file, __file__)
    assert (
        line
        == source_line_of(
            test_compile_error_of_a_nested_kernel_points_into_this_file, "not_defined_anywhere"
        )[0]
    )
    assert "not_defined_anywhere" in source


def test_lazy_kernel_reports_the_error_at_every_launch_not_at_decoration():
    kernel = cuda.jit(uses_try)
    for _ in range(2):
        with pytest.raises(cuda.CompileError):
            kernel[1, 1](np.zeros(1))


def test_eager_kernel_reports_the_error_at_decoration(assert_compile_error):
    with pytest.raises(cuda.CompileError) as excinfo:
        cuda.jit("void(float64[::1])")(uses_try)
    assert_compile_error(excinfo.value, uses_try, "try:", r"\btry\b")


def test_a_failed_compile_leaves_other_kernels_working():
    with pytest.raises(cuda.CompileError):
        cuda.jit(uses_input)[1, 1](np.zeros(1))

    @cuda.jit
    def fine(out):
        out[0] = 7

    out = np.zeros(1)
    fine[1, 1](out)
    assert out[0] == 7


# --- bad signatures ---------------------------------------------------------------


@pytest.mark.parametrize(
    "sig, named",
    [
        ("void(float33[::1])", r"float33"),
        ("void(float32[::1]", r"float32\[::1\]"),
        ("void(float32[::2])", r"::2|float32\[::2\]"),
        ("void(float32[:, ::1, :])", r"::1|float32\[:, ::1, :\]"),
        ("void(float32[:, :, :, :, :, :, :, :, :])", r"9|dimension"),
        ("void(float32[::1], 3)", r"\b3\b"),
        ("banana", r"banana"),
    ],
    ids=[
        "unknown-type",
        "unbalanced",
        "step-2",
        "middle-contiguous",
        "9d",
        "not-a-type",
        "nonsense",
    ],
)
def test_bad_signature_string_is_rejected_at_decoration_naming_it(sig, named):
    with pytest.raises((TypeError, ValueError)) as excinfo:
        cuda.jit(sig)(uses_try)
    message = str(excinfo.value)
    assert re.search(named, message), message


def test_kernel_signature_with_a_non_void_return_type_is_rejected():
    def kernel(out):
        out[0] = 1

    with pytest.raises(TypeError, match=r"void"):
        cuda.jit("int32(float64[::1])")(kernel)


def test_bad_signature_in_compile_ptx_is_rejected():
    with pytest.raises(TypeError, match=r"float33"):
        cuda.compile_ptx(uses_try, "void(float33[::1])")


# --- bad launch configurations -----------------------------------------------------


@cuda.jit
def noop(out):
    out[0] = 1


@pytest.mark.parametrize("where", ["griddim", "blockdim"])
@pytest.mark.parametrize(
    "bad, error",
    [
        (0, ValueError),
        (-1, ValueError),
        ((4, 0), ValueError),
        ((2, -3, 1), ValueError),
        ((1, 1, 1, 1), ValueError),
        (1.5, TypeError),
        ("2", TypeError),
        (None, TypeError),
        ((2, 1.0), TypeError),
    ],
    ids=[
        "zero",
        "negative",
        "zero-in-tuple",
        "negative-in-tuple",
        "four-dims",
        "float",
        "str",
        "None",
        "float-in-tuple",
    ],
)
def test_bad_launch_configuration_is_rejected_with_a_clear_message(where, bad, error):
    config = (bad, 1) if where == "griddim" else (1, bad)
    out = np.zeros(1)
    with pytest.raises(error, match=where):
        noop[config](out)
    assert out[0] == 0  # nothing ran


def test_block_of_more_than_1024_threads_is_rejected_as_on_cuda():
    with pytest.raises(ValueError, match=r"1024"):
        noop[1, (32, 32, 2)](np.zeros(1))


@pytest.mark.parametrize("config", [(4,), (1, 2, 3, 4, 5)], ids=["griddim-only", "five-items"])
def test_launch_needs_griddim_and_blockdim(config):
    with pytest.raises((ValueError, TypeError), match=r"griddim"):
        noop[config](np.zeros(1))


def test_calling_a_kernel_without_a_launch_configuration_is_an_error():
    with pytest.raises((ValueError, TypeError), match=r"griddim|launch"):
        noop(np.zeros(1))


# --- bad arguments ----------------------------------------------------------------


@cuda.jit
def two_args(a, b):
    pass


@pytest.mark.parametrize(
    "args", [(), (np.zeros(1),), (np.zeros(1), np.zeros(1), np.zeros(1))], ids=["0", "1", "3"]
)
def test_wrong_number_of_kernel_arguments_is_a_type_error(args):
    with pytest.raises(TypeError) as excinfo:
        two_args[1, 1](*args)
    message = str(excinfo.value)
    assert "2" in message and str(len(args)) in message, message


EXPECTED = r"expect|must|support"


@pytest.mark.parametrize(
    "value, given, expected",
    [
        ([1.0, 2.0], r"\blist\b", EXPECTED),
        ("text", r"\bstr\b", EXPECTED),
        ({"a": 1}, r"\bdict\b", EXPECTED),
        (None, r"None", EXPECTED),
        (object(), r"\bobject\b", EXPECTED),
        (np.zeros((1,) * 9), r"\b9\b", r"0 to 8"),
        (np.array([object()], dtype=object), r"\bobject\b", EXPECTED),
        (np.zeros(3, np.longdouble), r"float128", EXPECTED),
        (np.zeros(3, "V4"), r"V4", EXPECTED),  # (datetime64, 'U' and 'S' arrays are arguments)
        (np.zeros(3, ">f8"), r">f8|byte order|big", r"native|little|must"),
        (np.zeros(3, [("x", object), ("y", "f8")]), r"field 'x' has dtype object", EXPECTED),
        (2**64, r"18446744073709551616", r"int64|uint64"),
    ],
    ids=[
        "list",
        "str",
        "dict",
        "None",
        "object",
        "5d-array",
        "object-array",
        "longdouble-array",
        "void-array",
        "big-endian-array",
        "record-array-of-objects",
        "huge-int",
    ],
)
def test_unsupported_argument_type_is_a_type_error_naming_expected_and_given(
    value, given, expected
):
    out = np.zeros(1)
    with pytest.raises(TypeError) as excinfo:
        two_args[1, 1](value, out)
    message = str(excinfo.value)
    assert re.search(given, message), message
    assert re.search(expected, message), message


def test_an_error_in_a_device_function_of_another_file_names_that_file():
    from device_functions_elsewhere import first_element

    @cuda.jit
    def uses_it(a, out):
        out[0] = first_element(a)

    with pytest.raises(cuda.CompileError) as info:
        uses_it[1, 1](np.zeros(3), np.zeros(1))
    assert info.value.filename.endswith("device_functions_elsewhere.py")
    assert "too many indices" in str(info.value)
    assert "return a[0, 0]" in str(info.value)


# inline="always" and forceinline=True take effect (test_kernels_device_functions.py); a cost
# model, which Numba calls with its own IR, does not.
@pytest.mark.parametrize("option", [{"inline": lambda expr, caller, callee: True}],
                         ids=lambda o: next(iter(o)))
def test_numba_options_without_effect_say_so(option):
    with pytest.warns(UserWarning, match=f"{next(iter(option))}=.* has no effect in cudajit"):
        cuda.jit(**option)(lambda_free_kernel)


def test_numba_options_at_their_defaults_are_silent(recwarn):
    cuda.jit(cache=False, opt=True, max_registers=None)(lambda_free_kernel)
    assert not [w for w in recwarn if "no effect" in str(w.message)]


def test_numbas_debug_spelling_opt_false_is_accepted_silently(device):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kernel = cuda.jit(debug=True, opt=False)(lambda_free_kernel)
        values = cuda.to_device(np.zeros(3))
        kernel[1, 3](values)
        kernel[1, 3](values)
    assert values.copy_to_host().tolist() == [1.0, 0.0, 0.0]


@pytest.mark.parametrize("value", [0, -4, 256, 32.0, "32", True])
def test_max_registers_must_be_a_register_count(value):
    with pytest.raises(ValueError, match=r"max_registers must be an int from 1 to 255 "
                                         r"\(registers per thread\) or None; got " + re.escape(repr(value))):
        cuda.jit(max_registers=value)(lambda_free_kernel)


def lambda_free_kernel(a):
    a[0] = 1


def test_a_file_edited_after_import_is_refused_until_reloaded(tmp_path, monkeypatch):
    import importlib
    import time

    path = tmp_path / "edited_kernels.py"
    path.write_text("def bump(a):\n    a[0] += 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("edited_kernels")
    path.write_text("def bump(a):\n    a[0] += 100\n")
    later = time.time() + 10  # a new mtime, as an editor's save gives
    os.utime(path, (later, later))
    a = np.zeros(1)
    with pytest.raises(cuda.CompileError, match=r"the source of 'bump' in .*edited_kernels.py is "
                       r"not the code Python loaded \(was the file edited after it was "
                       r"imported\?\); reload the module"):
        cuda.jit(module.bump)[1, 1](a)
    assert a[0] == 0
    module = importlib.reload(module)
    cuda.jit(module.bump)[1, 1](a)
    cuda.synchronize()
    assert a[0] == 100


def test_a_nested_kernel_with_a_multi_line_docstring_is_the_loaded_code(device):
    # The source is parsed dedented, which shortens the docstring's inner lines; that is
    # not an edit (numba-cuda's matmul documentation example).
    def outer():
        if True:
            @cuda.jit
            def kernel(a):
                """
                Fill a.

                Indented text inside the docstring.
                """
                a[0] = 7

            return kernel

    a = cuda.to_device(np.zeros(1))
    outer()[1, 1](a)
    assert a.copy_to_host()[0] == 7


def test_launch_configuration_errors_use_numbas_wording():
    with pytest.raises(ValueError, match=r"griddim must be a sequence of 1, 2 or 3 integers, "
                                         r"got \[1, 2, 3, 4\]"):
        noop[(1, 2, 3, 4), 1]
    with pytest.raises(TypeError, match=r"griddim must be a sequence of integers, got \[2.0\]"):
        noop[2.0, 3]
    with pytest.raises(TypeError, match=r"blockdim must be a sequence of integers, "
                                        r"got \[2, 3.0\]"):
        noop[2, (2, 3.0)]
    with pytest.raises(ValueError, match=r"kernel 'noop': the launch configuration was not "
                                         r"specified; launch it as noop\[griddim, blockdim\]"):
        noop(np.zeros(1))


# --- the traceback of a compile error -------------------------------------

def _dict_in_kernel(a):
    a[0] = {1: 2}  # the front end refuses it


def _array_into_element(a):
    a[0] = a  # typing refuses it


_COMPILE_PATHS = {
    "launch": lambda f, d: cuda.jit(f)[1, 1](d),
    "launch with keywords": lambda f, d: cuda.jit(f)[1, 1](a=d),
    "debug launch": lambda f, d: cuda.jit(debug=True, opt=False)(f)[1, 1](d),
    "forall": lambda f, d: cuda.jit(f).forall(3)(d),
    "jit with a signature": lambda f, d: cuda.jit("void(float64[::1])")(f),
    "compile_ptx": lambda f, d: cuda.compile_ptx(f, "void(float64[::1])"),
    "cuda.compile": lambda f, d: cuda.compile(f, "void(float64[::1])", device=False,
                                              abi="numba"),
    "inspect_asm": lambda f, d: cuda.jit(f).inspect_asm("void(float64[::1])"),
}


@pytest.mark.parametrize("kernel", [_dict_in_kernel, _array_into_element],
                         ids=["front end", "typing"])
@pytest.mark.parametrize("path", list(_COMPILE_PATHS))
def test_a_compile_error_shows_no_frames_of_cudajits_internals(device, path, kernel):
    import traceback

    package = os.path.dirname(os.path.abspath(cudajit.__file__)) + os.sep
    d = cuda.to_device(np.zeros(3))
    with pytest.raises(cudajit.CompileError) as info:
        _COMPILE_PATHS[path](kernel, d)
    frames = traceback.extract_tb(info.value.__traceback__)
    ours = [(os.path.basename(f.filename), f.name) for f in frames
            if os.path.abspath(f.filename).startswith(package)]
    assert ours in ([], [("errors.py", "trimmed")]), ours  # at most the one re-raise
    assert frames[-1 if not ours else -2].filename == __file__  # then the user's call
    line, _ = source_line_of(kernel, "refuses")
    assert str(info.value).startswith(f"{__file__}:{line}:")
