"""cudajit.random: Numba's xoroshiro128+ generator. The same seed gives the
same numbers as numba.cuda.random (the reference values below came from
numba-cuda 0.30.4's simulator), on every device."""

import numpy as np
import pytest

import cudajit as cuda
from cudajit.random import (create_xoroshiro128p_states, init_xoroshiro128p_states,
                            xoroshiro128p_next, xoroshiro128p_normal_float32,
                            xoroshiro128p_normal_float64, xoroshiro128p_uniform_float32,
                            xoroshiro128p_uniform_float64)

pytestmark = pytest.mark.usefixtures("device")

# numba.cuda.random with seed=12345, subsequence_start=3, generators 0, 1 and 7:
# uniform_float32, uniform_float64, normal_float32, normal_float64, drawn in that order.
NUMBA_REFERENCE = {
    0: [0.9227350950241089, 0.6592114979913283, 2.389319377084103, 0.37750651917254174],
    1: [0.16962958872318268, 0.9227937199496237, -1.9889553010966874, -0.6760186005218629],
    7: [0.11921589821577072, 0.5414592519271821, -0.2672414207103183, -0.7134196891112233],
}


@cuda.jit
def draw(states, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i, 0] = xoroshiro128p_uniform_float32(states, i)
        out[i, 1] = xoroshiro128p_uniform_float64(states, i)
        out[i, 2] = xoroshiro128p_normal_float32(states, i)
        out[i, 3] = xoroshiro128p_normal_float64(states, i)


def test_the_same_seed_gives_numbas_numbers():
    states = create_xoroshiro128p_states(8, seed=12345, subsequence_start=3)
    out = np.zeros((8, 4))
    draw[1, 8](states, out)
    for generator, expected in NUMBA_REFERENCE.items():
        # Uniforms bit for bit; normals to float32's rounding (Numba's simulator takes
        # the logarithm in float64, a GPU in float32 as here).
        np.testing.assert_array_equal(out[generator, :2], expected[:2])
        np.testing.assert_allclose(out[generator, 2:], expected[2:], rtol=2e-7, atol=1e-7)


def test_uniforms_are_uniform_and_normals_normal():
    n = 4096
    states = create_xoroshiro128p_states(n, seed=7)

    @cuda.jit
    def many(states, uniforms, normals):
        i = cuda.grid(1)
        for k in range(16):
            uniforms[i, k] = xoroshiro128p_uniform_float64(states, i)
            normals[i, k] = xoroshiro128p_normal_float32(states, i)

    uniforms = np.zeros((n, 16))
    normals = np.zeros((n, 16), np.float32)
    many[n // 128, 128](states, uniforms, normals)
    assert 0.0 <= uniforms.min() and uniforms.max() < 1.0
    assert abs(uniforms.mean() - 0.5) < 0.005
    assert abs(normals.mean()) < 0.01 and abs(normals.std() - 1.0) < 0.01
    # Each generator's stream differs from its neighbour's.
    assert not np.any(np.all(uniforms[1:] == uniforms[:-1], axis=1))


def test_reseeding_repeats_the_sequence_and_states_are_independent_of_the_launch():
    states = create_xoroshiro128p_states(64, seed=99)

    @cuda.jit
    def raw(states, out):
        i = cuda.grid(1)
        out[i] = xoroshiro128p_next(states, i)

    first = np.zeros(64, np.uint64)
    raw[2, 32](states, first)
    init_xoroshiro128p_states(states, 99)
    again = np.zeros(64, np.uint64)
    raw[8, 8](states, again)
    np.testing.assert_array_equal(first, again)
    # Generator 5 of seed 99 is generator 0 of seed 99 advanced by 5 subsequences.
    shifted = create_xoroshiro128p_states(1, seed=99, subsequence_start=5)
    one = np.zeros(1, np.uint64)
    raw[1, 1](shifted, one)
    assert one[0] == first[5]


def test_monte_carlo_pi():
    n = 256 * 64

    @cuda.jit
    def hits(states, counts, samples):
        i = cuda.grid(1)
        inside = 0
        for _ in range(samples):
            x = xoroshiro128p_uniform_float32(states, i)
            y = xoroshiro128p_uniform_float32(states, i)
            if x * x + y * y <= 1.0:
                inside += 1
        counts[i] = inside

    states = create_xoroshiro128p_states(n, seed=1)
    counts = np.zeros(n, np.int64)
    hits[64, 256](states, counts, 50)
    assert abs(4.0 * counts.sum() / (n * 50) - np.pi) < 0.01


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError, match=r"seed must be an int in \[0, 2\*\*64\); got -1"):
        create_xoroshiro128p_states(4, seed=-1)
    with pytest.raises(ValueError, match="the number of generator states must be a "
                       "non-negative int; got -2"):
        create_xoroshiro128p_states(-2, seed=1)
    with pytest.raises(TypeError, match=r"states must be a 1-d array of xoroshiro128p_dtype"):
        init_xoroshiro128p_states(cuda.device_array(4, np.uint64), 1)
