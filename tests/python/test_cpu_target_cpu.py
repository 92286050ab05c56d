"""CUDAJIT_CPU_NAME and CUDAJIT_CPU_FEATURES: the CPU the cpu device compiles for
(compiler/src/target/host_cpu.cpp), as Numba's NUMBA_CPU_NAME and NUMBA_CPU_FEATURES.
Each case is a fresh process: the choice is made once, at the first compile."""

import platform
import re

import pytest

from conftest import host_cpu_flags, run_on_cpu_device

pytestmark = pytest.mark.skipif(platform.machine() != "x86_64",
                                reason="the CPU names are x86-64's")




KERNELS = """
import numpy as np
import cudajit as cuda

@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]

@cuda.jit
def halvings(a, out):
    i = cuda.grid(1)
    if i < a.size:  # a lockstep loop: each thread leaves at its own iteration
        x = a[i]
        n = 0
        while x > 1:
            x //= 2
            n += 1
        out[i] = n

x = np.arange(1000, dtype=np.float32)
out = np.zeros_like(x)
saxpy[8, 128](np.float32(3), x, x + 1, out)
np.testing.assert_array_equal(out, 3 * x + x + 1)
a = np.random.default_rng(1).integers(0, 1 << 40, 300).astype(np.int64)
n = np.full(384, -1, np.int64)
halvings[3, 128](a, n)
np.testing.assert_array_equal(n[:300], [max(int(v).bit_length() - 1, 0) for v in a])
assert (n[300:] == -1).all()
print("ok")
"""




@pytest.mark.skipif("avx2" not in host_cpu_flags(), reason="x86-64-v3 needs AVX2")
@pytest.mark.parametrize("env", [{"CUDAJIT_CPU_NAME": "x86-64-v3"},
                                 {"CUDAJIT_CPU_NAME": "generic"},
                                 {"CUDAJIT_CPU_FEATURES": "-avx512f"},
                                 {"CUDAJIT_CPU_NAME": "native"}])
def test_code_for_an_older_cpu_gives_the_same_results(env):
    result = run_on_cpu_device(KERNELS, **env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


@pytest.mark.parametrize("env, message", [
    ({"CUDAJIT_CPU_NAME": "pentium-9000"}, "CUDAJIT_CPU_NAME='pentium-9000' is not a CPU LLVM knows"),
    ({"CUDAJIT_CPU_FEATURES": "avx2"}, "CUDAJIT_CPU_FEATURES: 'avx2' needs a + (add) or a -"),
    ({"CUDAJIT_CPU_FEATURES": "+avx2,+warp-drive"},
     "CUDAJIT_CPU_FEATURES: '+warp-drive' is not a feature LLVM knows for x86_64"),
])
def test_a_cpu_or_feature_llvm_does_not_know_is_a_value_error(env, message):
    result = run_on_cpu_device(KERNELS, **env)
    assert result.returncode != 0
    assert "ValueError: " + message in result.stderr, result.stderr


@pytest.mark.skipif("amx_tile" in host_cpu_flags(), reason="this CPU has AMX")
def test_a_feature_this_cpu_lacks_is_a_value_error_not_an_illegal_instruction():
    result = run_on_cpu_device(KERNELS, CUDAJIT_CPU_FEATURES="+amx-tile")
    assert result.returncode != 0
    assert re.search(r"ValueError: CUDAJIT_CPU_FEATURES='\+amx-tile' asks for features this "
                     r"CPU \(.*\) lacks: .*amx-tile", result.stderr), result.stderr


@pytest.mark.skipif("avx2" not in host_cpu_flags(), reason="x86-64-v3 needs AVX2")
def test_without_masked_byte_stores_each_thread_runs_its_own_loops():
    # x86-64-v3 has AVX2's masked stores of 32 and 64 bits but none of bytes: a lockstep loop
    # would make each of them lane by lane (mandelbrot 131 ms here, 60 as each thread's own)
    script = KERNELS.replace('print("ok")', 'print("ok"); halvings[1, 32](a[:32], n)')
    result = run_on_cpu_device(script, CUDAJIT_CPU_NAME="x86-64-v3", CUDAJIT_DUMP="cpu")
    assert result.returncode == 0, result.stderr
    halvings = result.stderr.split("=== cudajit cpu: halvings ===")[1]
    assert halvings.strip().startswith("thread loops: no barrier")
    assert ("no lockstep loops: this CPU has no masked vector stores of bytes (AVX-512BW), "
            "so each thread runs its own loops") in halvings
    if "avx512bw" in host_cpu_flags():  # this machine's own code runs the loop in lockstep
        native = run_on_cpu_device(script, CUDAJIT_DUMP="cpu")
        assert "lockstep loops (line" in native.stderr.split("=== cudajit cpu: halvings ===")[1]
