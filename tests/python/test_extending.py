"""Numba's high-level extension API in kernels (cudajit.extending): a call of a function
with @overload implementations compiles what the generator returns, the "cuda" target's
registration before the "generic" one; a generator returning None is a CompileError in
Numba's shape naming the overload; overload_method and overload_attribute give methods
and attributes; register_jitable makes a plain function callable; @intrinsic is refused."""

import numpy as np
import pytest

import cudajit as cuda
from cudajit import types
from cudajit.errors import PerformanceWarning
from cudajit.errors import CompileError
from cudajit.extending import (
    UNDETERMINED, intrinsic, overload, overload_attribute, overload_method, register_jitable,
)

pytestmark = pytest.mark.filterwarnings("ignore", category=PerformanceWarning)


def by_target(x):
    """Overloaded for "generic" and for "cuda" below."""


def generic_only(x):
    """Overloaded for "generic" only."""


def cpu_only(x):
    """Overloaded for "cpu" only: not for kernels."""


def calls_generic(x):
    """Its overload calls another overloaded function."""


def with_defaults(out, x, y=5, z=6):
    """Overloaded with keyword arguments and defaults."""


def no_implementation(x):
    """Its generator has none."""


def seen_types(x, n):
    """Its generator records the types it was given."""


SEEN = []


@overload(by_target, target="generic")
def ol_by_target_generic(x):
    def impl(x):
        x[0] *= 2
    return impl


@overload(by_target, target="cuda")
def ol_by_target_cuda(x):
    def impl(x):
        x[0] *= 3
    return impl


@overload(generic_only, target="generic")
def ol_generic_only(x):
    def impl(x):
        x[0] *= 5
    return impl


@overload(cpu_only, target="cpu")
def ol_cpu_only(x):
    def impl(x):
        x[0] *= 7
    return impl


@overload(calls_generic)
def ol_calls_generic(x):
    def impl(x):
        x[0] *= 11
        generic_only(x)
    return impl


@overload(with_defaults)
def ol_with_defaults(out, x, y=5, z=6):
    def impl(out, x, y=5, z=6):
        out[0], out[1] = x + y, z
    return impl


@overload(no_implementation)
def ol_no_implementation(x):
    return None


@overload(seen_types)
def ol_seen_types(x, n):
    SEEN.append((x, n))

    def impl(x, n):
        x[0] = n
    return impl


@overload_method(types.Array, "scaled")
def ol_scaled(a, i, factor=10):
    def impl(a, i, factor=10):
        return a[i] * factor
    return impl


@overload_attribute(types.Array, "first")
def ol_first(a):
    def impl(a):
        return a[0]
    return impl


@register_jitable
def add_one(x):
    return x + 1


def run(kernel, *args):
    cuda.jit(kernel)[1, 1](*args)


def test_the_cuda_targets_overload_wins_over_the_generic_one(device):
    def kernel(x):
        by_target(x)

    x = np.ones(1, dtype=np.int32)
    run(kernel, x)
    assert x[0] == 3


def test_a_generic_overload_serves_kernels_and_overloads_call_overloads(device):
    def kernel(x):
        generic_only(x)
        calls_generic(x)

    x = np.ones(1, dtype=np.int64)
    run(kernel, x)
    assert x[0] == 5 * 11 * 5


def test_an_overload_for_another_target_does_not_apply(device):
    def kernel(x):
        cpu_only(x)

    with pytest.raises(CompileError, match="cannot call Python function 'cpu_only'"):
        run(kernel, np.ones(1, dtype=np.int64))


def test_keywords_and_defaults_are_bound_to_the_implementations_parameters(device):
    def kernel(a, b, out):
        with_defaults(out, a, z=b)

    out = np.zeros(2, dtype=np.int64)
    run(kernel, 1, 2, out)
    assert tuple(out) == (6, 2)


def test_a_generator_returning_none_is_a_compile_error_naming_the_overload(device):
    def kernel(x):
        no_implementation(x)

    with pytest.raises(CompileError) as raised:
        run(kernel, np.ones(1))
    message = str(raised.value)
    assert "No implementation of function 'no_implementation' found for signature" in message
    assert ">>> no_implementation(undetermined)" in message
    assert "'ol_no_implementation'" in message and "returned None" in message


def test_generators_get_the_types_known_when_compiling(device):
    def kernel(x):
        seen_types(x, 7)

    x = np.zeros(1, dtype=np.int64)
    run(kernel, x)
    assert x[0] == 7
    assert SEEN[-1] == (UNDETERMINED, types.int64)
    assert isinstance(SEEN[-1][1], types.Integer)  # what generators ask, as in Numba


def test_overload_method_with_a_default_and_a_keyword(device):
    def kernel(a, out):
        out[0] = a.scaled(1)
        out[1] = a.scaled(1, 3)
        out[2] = a.scaled(2, factor=4)

    a = np.arange(3, dtype=np.int64)
    out = np.zeros(3, dtype=np.int64)
    run(kernel, a, out)
    assert tuple(out) == (10, 3, 8)


def test_overload_attribute(device):
    def kernel(a, out):
        out[0] = a.first + 1

    a = np.array([41], dtype=np.int64)
    out = np.zeros(1, dtype=np.int64)
    run(kernel, a, out)
    assert out[0] == 42


def test_register_jitable_makes_a_plain_function_callable(device):
    def kernel(out):
        out[0] = add_one(41)

    out = np.zeros(1, dtype=np.int64)
    run(kernel, out)
    assert out[0] == 42
    assert add_one(1) == 2  # still a Python function


def test_an_intrinsic_is_refused_naming_it(device):
    @intrinsic
    def llvm_thing(typingctx, x):
        raise AssertionError("never typed")

    def kernel(out):
        out[0] = llvm_thing(1)

    with pytest.raises(CompileError, match="'llvm_thing' is a Numba @intrinsic"):
        run(kernel, np.zeros(1))


def test_unknown_targets_are_refused_at_registration():
    with pytest.raises(ValueError, match="unknown target 'tpu'"):
        overload(by_target, target="tpu")


def mismatched(x, kw=None):
    """Its strict overload's implementation has another default."""


@overload(mismatched)
def ol_mismatched(x, kw=None):
    def impl(x, kw=12):
        return x
    return impl


def test_a_strict_overloads_implementation_must_have_the_generators_parameters(device):
    def kernel(out):
        out[0] = mismatched(1, kw=2)

    with pytest.raises(CompileError, match="keyword argument default values"):
        run(kernel, np.zeros(1))
