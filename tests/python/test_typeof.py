"""cudajit.typeof(x) types every kind of argument a launch takes, as the launch types it:
signatures made from values (compile_ptx, @jit, specialize) then fit the launch."""

import numpy as np
import pytest

import cudajit as cuda
from cudajit.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

pytestmark = pytest.mark.usefixtures("device")


def draw(states, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = xoroshiro128p_uniform_float32(states, i)


def test_device_arrays_of_records_such_as_random_states_have_a_type():
    states = create_xoroshiro128p_states(32, seed=7)
    out = cuda.device_array(32, np.float32)
    signature = (cuda.typeof(states), cuda.typeof(out))
    assert str(signature[0]).startswith("array(Record(") and str(signature[1]) == \
        "array(float32, 1d, C)"
    ptx, _ = cuda.compile_ptx(draw, signature)
    assert ".entry" in ptx
    kernel = cuda.jit([signature])(draw)
    kernel[1, 32](states, out)
    values = out.copy_to_host()
    assert ((0 <= values) & (values < 1)).all() and len(set(values.tolist())) > 16


def test_device_array_types_are_the_launchs():
    d = cuda.to_device(np.zeros((3, 4), np.float32))
    assert [str(cuda.typeof(a)) for a in (d, d[:, ::2], d.T)] == [
        "array(float32, 2d, C)", "array(float32, 2d, A)", "array(float32, 2d, F)"]

    @cuda.jit
    def fill(a):
        a[0, 0] = 1

    for a in (d, d[:, ::2], d.T):
        fill[1, 1](a)
    assert [tuple(s) for s in fill.signatures] == [(str(cuda.typeof(a)),)
                                                  for a in (d, d[:, ::2], d.T)]
    assert str(cuda.typeof((d, 2.0))) == "Tuple(array(float32, 2d, C), float64)"


def test_argument_hints_and_foreign_arrays_are_typed_as_what_the_launch_passes(device):
    host = np.zeros((3, 4))
    assert str(cuda.typeof(cuda.In(host[:, ::2]))) == "array(float64, 2d, C)"  # copied: C
    d = cuda.to_device(host)
    assert str(cuda.typeof(cuda.InOut(d))) == "array(float64, 2d, C)"
    if device == "cuda":  # a CAI producer: only GPU memory exports one
        class Producer:
            __cuda_array_interface__ = d[:, 1].__cuda_array_interface__
        assert str(cuda.typeof(Producer())) == "array(float64, 1d, A)"
    with pytest.raises(TypeError, match="expected what a launch takes"):
        cuda.typeof(object())


def test_the_type_system_facts_come_from_the_compiler():
    from cudajit import _core, types

    # One scalar type per compiler Scalar, spelled as the compiler spells it.
    assert ({str(t) for t in (*types.SCALAR_TYPES, cuda.bfloat16, *types.FP8_TYPES)} ==
            set(_core.SCALAR_NAMES))
    for name in _core.SCALAR_NAMES:
        assert _core.parse_type(name) == name
    assert types.MAX_ARRAY_NDIM == _core.MAX_ARRAY_NDIM == 8
    cuda.float32[(slice(None),) * _core.MAX_ARRAY_NDIM]  # the most dimensions there are
    with pytest.raises(TypeError, match=f"arrays have 1 to {_core.MAX_ARRAY_NDIM} dimensions"):
        cuda.float32[(slice(None),) * (_core.MAX_ARRAY_NDIM + 1)]
