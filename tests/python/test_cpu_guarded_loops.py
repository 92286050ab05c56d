"""Thread loops whose body is an `if` on the thread's index (compiler/src/target/
guarded_loops.cpp): where the CPU has no cheap vector masks (no AVX-512: `x86-64-v3` here),
such a loop runs only the indices where the `if` holds, without testing it, and a loop whose
`if` has two sides runs as three loops, before, inside and after the range where it holds;
with AVX-512 the vectoriser masks them. Either way the results are NumPy's and the bounds
checks still fire.
Each case is a fresh process, as the CPU is chosen once, at the first compile."""

import platform

import pytest

from conftest import host_cpu_flags, run_on_cpu_device

pytestmark = pytest.mark.skipif(platform.machine() != "x86_64",
                                reason="x86-64-v3 is an x86-64 CPU")

GUARDED_KERNELS = """
import numpy as np
import cudajit as cuda

rng = np.random.default_rng(7)

@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]

@cuda.jit
def saxpy_return(a, x, y, out):
    i = cuda.grid(1)
    if i >= x.size:
        return
    out[i] = a * x[i] + y[i]

for n in (0, 1, 127, 128, 1000, 4099):
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    for kernel in (saxpy, saxpy_return):
        out = np.full(n, -1, np.float32)
        kernel[max(1, (n + 127) // 128), 128](np.float32(2.5), x, y, out)
        np.testing.assert_allclose(out, 2.5 * x + y, rtol=1e-6)

@cuda.jit
def window(x, out, lo, hi):
    i = cuda.grid(1)
    if i > lo and i <= hi:
        out[i] = x[i] + 1

@cuda.jit
def from_on(x, out, lo):
    i = cuda.grid(1)
    if i >= lo and i < x.size:
        out[i] = x[i] * 2

@cuda.jit
def only(x, out, k):
    i = cuda.grid(1)
    if i == k:
        out[i] = x[i] - 1

@cuda.jit
def shifted(x, out, k):
    i = cuda.grid(1)
    if 0 <= i - k and i - k < x.size:
        out[i - k] = x[i - k] + 3

x = np.arange(1000.0)
for lo, hi in ((-5, 2000), (-1, 0), (10, 500), (500, 10), (998, 999), (-(1 << 62), 1 << 62)):
    out = np.zeros(1000)
    window[8, 128](x, out, lo, min(hi, 999))
    want = np.zeros(1000)
    idx = np.arange(1000)
    keep = (idx > lo) & (idx <= min(hi, 999))
    want[keep] = x[keep] + 1
    np.testing.assert_array_equal(out, want)
for lo in (-7, 0, 1, 333, 999, 1000, 5000, -(1 << 62)):
    out = np.zeros(1000)
    from_on[8, 128](x, out, lo)
    want = np.where(np.arange(1000) >= lo, 2 * x, 0)
    np.testing.assert_array_equal(out, want)
for k in (-1, 0, 5, 999, 1024, 5000):  # no thread is 1024 or past it
    out = np.zeros(1000)
    only[8, 128](x, out, k)
    want = np.zeros(1000)
    if 0 <= k < 1000:
        want[k] = x[k] - 1
    np.testing.assert_array_equal(out, want)
for k in (-300, 0, 17, 1023):
    out = np.zeros(1000)
    shifted[8, 128](x, out, k)
    idx = np.arange(1024) - k
    idx = idx[(idx >= 0) & (idx < 1000)]
    want = np.zeros(1000)
    want[idx] = x[idx] + 3
    np.testing.assert_array_equal(out, want)

@cuda.jit
def shift_in_zeros(x, out, k):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i - k] if i >= k else 0.0  # a two-sided `if`: the loop runs in three parts
        out[i] = v

@cuda.jit
def sign_by_side(x, out, lo, hi):
    i = cuda.grid(1)
    if i < x.size:
        if lo <= i and i < hi:
            out[i] = x[i]
        else:
            out[i] = -x[i]

x = np.arange(1, 1001.0)
for k in (0, 1, 5, 127, 128, 999, 1000, 4000):
    out = np.full(1000, np.nan)
    shift_in_zeros[8, 128](x, out, k)
    want = np.concatenate([np.zeros(min(k, 1000)), x[:max(1000 - k, 0)]])
    np.testing.assert_array_equal(out, want)
for lo, hi in ((0, 1000), (-5, 3), (100, 100), (100, 50), (127, 129), (990, 5000), (-9, -1)):
    out = np.full(1000, np.nan)
    sign_by_side[8, 128](x, out, lo, hi)
    idx = np.arange(1000)
    np.testing.assert_array_equal(out, np.where((lo <= idx) & (idx < hi), x, -x))

TPB = 128

@cuda.jit
def scan(a, out):
    s = cuda.shared.array(TPB, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = a[i]
    cuda.syncthreads()
    offset = 1
    while offset < TPB:
        v = s[t - offset] if t >= offset else np.float32(0)
        cuda.syncthreads()
        s[t] += v
        cuda.syncthreads()
        offset *= 2
    out[i] = s[t]

a = rng.random(TPB * 16, dtype=np.float32)
out = np.zeros_like(a)
scan[16, TPB](a, out)
np.testing.assert_allclose(out, np.cumsum(a.reshape(16, TPB), axis=1).ravel(), rtol=1e-5)

@cuda.jit
def when_active(x, out, active):
    i = cuda.grid(1)
    if active and i < x.size:
        out[i] = x[i] + 1

for active in (True, False):
    out = np.zeros(1000)
    when_active[8, 128](np.arange(1000.0), out, active)
    np.testing.assert_array_equal(out, np.arange(1000.0) + 1 if active else np.zeros(1000))

@cuda.jit
def positive_only(x, out):
    i = cuda.grid(1)
    if i < x.size and x[i] > 0:  # a part that reads memory: tested per thread
        out[i] = x[i]

x = rng.standard_normal(1000)
out = np.zeros(1000)
positive_only[8, 128](x, out)
np.testing.assert_array_equal(out, np.where(x > 0, x, 0))

@cuda.jit
def stencil(a, out):
    j, i = cuda.grid(2)
    n, m = a.shape
    if 0 < i < n - 1 and 0 < j < m - 1:
        out[i, j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1] - 4 * a[i, j]

for n, m in ((96, 160), (97, 161), (3, 3), (2, 40)):
    a = rng.random((n, m))
    out = np.zeros_like(a)
    stencil[((m + 31) // 32, (n + 7) // 8), (32, 8)](a, out)
    want = np.zeros_like(a)
    want[1:-1, 1:-1] = (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:]
                        - 4 * a[1:-1, 1:-1])
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-12)

@cuda.jit
def first_thread_writes(x, out):
    if cuda.threadIdx.x == 0:
        out[cuda.blockIdx.x] = x[cuda.grid(1)]

x = np.arange(1024.0)
out = np.zeros(8)
first_thread_writes[8, 128](x, out)
np.testing.assert_array_equal(out, x[::128])

@cuda.jit
def read_past_the_end(a, out):
    i = cuda.grid(1)
    if 0 < i and i <= a.size - 1:  # holds for i = a.size - 1, whose a[i + 1] is out
        out[i] = a[i + 1]

a = np.arange(256.0)
out = np.zeros(256)
try:
    read_past_the_end[2, 128](a, out)
    raise AssertionError("no IndexError")
except IndexError as e:
    assert "index 256 is out of bounds for axis 0 with size 256" in str(e), e
np.testing.assert_array_equal(out[1:255], a[2:])

@cuda.jit
def rows_around(a, out):
    j, i = cuda.grid(2)
    m = a.shape[1]
    if 0 < j < m - 1:
        out[j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]

try:
    rows_around[(1, 1), (4, 64)](np.arange(40.0).reshape(10, 4), np.zeros(4))
    raise AssertionError("no IndexError")
except IndexError as e:
    assert "index 10 is out of bounds for axis 0 with size 10" in str(e), e
print("ok")
"""






needs_avx2 = pytest.mark.skipif("avx2" not in host_cpu_flags(), reason="x86-64-v3 needs AVX2")


@needs_avx2
@pytest.mark.parametrize("env", [{"CUDAJIT_CPU_NAME": "x86-64-v3"}, {}],
                         ids=["without AVX-512", "this CPU"])
def test_guarded_thread_loops_give_numpys_results_and_errors(env):
    result = run_on_cpu_device(GUARDED_KERNELS, **env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


UNMASKED = GUARDED_KERNELS.split("for n in")[0] + """
@cuda.jit
def shift_in_zeros(x, out, k):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i - k] if i >= k else 0.0

x = np.arange(1000, dtype=np.float32)
out = np.zeros_like(x)
saxpy[8, 128](np.float32(2), x, x, out)
np.testing.assert_array_equal(out, 3 * x)
y = np.zeros(1000)
shift_in_zeros[8, 128](x.astype(np.float64), y, 3)
np.testing.assert_array_equal(y, np.concatenate([[0, 0, 0], x[:-3]]))
"""


@needs_avx2
def test_without_avx512_guarded_loops_run_unmasked():
    result = run_on_cpu_device(UNMASKED, CUDAJIT_CPU_NAME="x86-64-v3", CUDAJIT_DUMP="host")
    assert result.returncode == 0, result.stderr
    hosts = result.stderr.split("=== cudajit host: ")
    saxpy_ir = next(h for h in hosts if h.startswith("saxpy"))
    shift_ir = next(h for h in hosts if h.startswith("shift_in_zeros"))
    assert "<8 x float>" in saxpy_ir  # vectorised, 8 lanes of AVX2
    assert "llvm.masked" not in saxpy_ir  # and not masked: the `if` became the loop's range
    assert "<4 x double>" in shift_ir
    assert "llvm.masked" not in shift_ir  # the two-sided `if`: three loops, unmasked
    assert ".below" in shift_ir and ".above" in shift_ir
