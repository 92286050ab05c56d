"""Random numbers in kernels: the xoroshiro128+ generator of ``numba.cuda.random``,
with the same seeding, jumps and conversions, so the same seed gives the same
numbers as Numba's.

Each thread owns one generator state: create an array of them on the host with
:func:`create_xoroshiro128p_states`, pass it to the kernel, and draw with
``xoroshiro128p_uniform_float32(states, i)`` and friends, ``i`` the thread's own
index. States are consecutive subsequences of one sequence, 2**64 draws apart.

A state array is a 1-d device array of records of ``xoroshiro128p_dtype``
(fields ``s0`` and ``s1``, uint64), as Numba's; kernels and host code written
against Numba's functions run unchanged.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import _core
from .api import device_array
from .compiler import jit
from .types import float32, float64, int64, uint32, uint64

__all__ = ["create_xoroshiro128p_states", "init_xoroshiro128p_states",
           "xoroshiro128p_uniform_float32", "xoroshiro128p_uniform_float64",
           "xoroshiro128p_normal_float32", "xoroshiro128p_normal_float64",
           "xoroshiro128p_next", "xoroshiro128p_jump", "xoroshiro128p_dtype"]

# The layout of one state (Numba's record).
xoroshiro128p_dtype = np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)

# splitmix64's constants, and the jump polynomial of xoroshiro128+ (2**64 draws).
_GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_JUMP = (np.uint64(0xBEAC0467EBA5FACB), np.uint64(0xD86B048B86AA9922))
_TWO_PI_FLOAT32 = np.float32(2 * math.pi)
_TWO_PI_FLOAT64 = np.float64(2 * math.pi)


@jit(device=True)
def _rotl(x, k):
    return (x << k) | (x >> uint32(64 - k))


@jit(device=True)
def xoroshiro128p_next(states, index):
    """The next raw uint64 of generator ``index``; advances it by one step."""
    index = int64(index)
    s0 = states[index].s0
    s1 = states[index].s1
    result = s0 + s1
    s1 ^= s0
    states[index].s0 = _rotl(s0, uint32(55)) ^ s1 ^ (s1 << uint32(14))
    states[index].s1 = _rotl(s1, uint32(36))
    return result


@jit(device=True)
def xoroshiro128p_jump(states, index):
    """Advances generator ``index`` by 2**64 steps."""
    index = int64(index)
    s0 = uint64(0)
    s1 = uint64(0)
    for i in range(2):
        for b in range(64):
            if _JUMP[i] & (uint64(1) << uint32(b)):
                s0 ^= states[index].s0
                s1 ^= states[index].s1
            xoroshiro128p_next(states, index)
    states[index].s0 = s0
    states[index].s1 = s1


@jit(device=True)
def _unit_float64(x):
    return (x >> uint32(11)) * (float64(1) / (uint64(1) << uint32(53)))


@jit(device=True)
def xoroshiro128p_uniform_float32(states, index):
    """A float32 uniform in [0, 1) from generator ``index``."""
    return float32(_unit_float64(xoroshiro128p_next(states, index)))


@jit(device=True)
def xoroshiro128p_uniform_float64(states, index):
    """A float64 uniform in [0, 1) from generator ``index``."""
    return _unit_float64(xoroshiro128p_next(states, index))


@jit(device=True)
def xoroshiro128p_normal_float32(states, index):
    """A float32 standard normal (Box-Muller; two draws) from generator ``index``."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(-float32(2.0) * math.log(u1)) * math.cos(_TWO_PI_FLOAT32 * u2)


@jit(device=True)
def xoroshiro128p_normal_float64(states, index):
    """A float64 standard normal (Box-Muller; two draws) from generator ``index``.
    As Numba's, it draws its two uniforms as float32."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(-float64(2.0) * math.log(u1)) * math.cos(_TWO_PI_FLOAT64 * u2)


@jit
def _init_states(states, seed, subsequence_start):
    # One thread: each state is the previous one jumped 2**64 steps ahead.
    n = states.shape[0]
    if n >= 1:
        z = seed + _GOLDEN_GAMMA  # splitmix64 of the seed
        z = (z ^ (z >> uint32(30))) * _MIX_1
        z = (z ^ (z >> uint32(27))) * _MIX_2
        z = z ^ (z >> uint32(31))
        states[0].s0 = z
        states[0].s1 = z
        for _ in range(subsequence_start):
            xoroshiro128p_jump(states, 0)
        for i in range(1, n):
            states[i] = states[i - 1]
            xoroshiro128p_jump(states, i)


def _check(n: int, seed: int, subsequence_start: int) -> None:
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
        raise ValueError(f"the number of generator states must be a non-negative int; got {n!r}")
    for name, value in (("seed", seed), ("subsequence_start", subsequence_start)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool) \
                or not 0 <= int(value) < 2**64:
            raise ValueError(f"{name} must be an int in [0, 2**64); got {value!r}")


def _seeded(n: int, seed: int, subsequence_start: int) -> np.ndarray:
    """The initial states on the host, computed by native code on the cpu device."""
    _check(n, seed, subsequence_start)
    host = np.zeros(int(n), xoroshiro128p_dtype)
    previous = _core.current_device()
    _core.set_current_device(_core.cpu_device())
    try:
        _init_states[1, 1](host, np.uint64(seed), np.uint64(subsequence_start))
    finally:
        _core.set_current_device(previous)
    return host


def init_xoroshiro128p_states(states: Any, seed: int, subsequence_start: int = 0,
                              stream: Any = 0) -> None:
    """Seeds the generators of ``states`` (a device array of ``xoroshiro128p_dtype``) as
    ``numba.cuda.random.init_xoroshiro128p_states`` does: state 0 from ``seed``
    (through splitmix64), advanced by ``subsequence_start`` jumps of 2**64 draws,
    and each next state one jump further."""
    shape = getattr(states, "shape", None)
    if shape is None or len(shape) != 1 or getattr(states, "dtype", None) != xoroshiro128p_dtype:
        raise TypeError("states must be a 1-d array of xoroshiro128p_dtype records from "
                        f"create_xoroshiro128p_states; got {states!r}")
    states.copy_to_device(_seeded(shape[0], seed, subsequence_start), stream=stream)


def create_xoroshiro128p_states(n: int, seed: int, subsequence_start: int = 0,
                                stream: Any = 0) -> Any:
    """A device array of ``n`` seeded generator states, one per thread that draws
    (``numba.cuda.random.create_xoroshiro128p_states``)."""
    _check(n, seed, subsequence_start)
    states = device_array(int(n), xoroshiro128p_dtype, stream=stream)
    init_xoroshiro128p_states(states, seed, subsequence_start, stream)
    return states
