"""A cpu device loop that writes an array from end to end and reads others only as streams
(saxpy, copies, elementwise maps) writes past the caches (non-temporal stores) where the
array is at least config.CPU_STREAM_BYTES and its stores are aligned
(compiler/src/target/streaming_stores.cpp). The tests set the threshold to 0, so that
small arrays take that path, and compare with NumPy and with the cached path."""

import platform
from pathlib import Path

import numpy as np
import pytest

import cudajit as cuda
from conftest import cpu_dump_paths, run_on_cpu_device


pytestmark = pytest.mark.usefixtures("on_cpu_device")


@pytest.fixture
def stream_everything():
    before = cuda.config.CPU_STREAM_BYTES
    cuda.config.CPU_STREAM_BYTES = 0
    yield
    cuda.config.CPU_STREAM_BYTES = before


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def saxpy_stride(a, x, y, out):
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        out[i] = a * x[i] + y[i]


@cuda.jit
def saxpy_in_place(a, x, y):
    i = cuda.grid(1)
    if i < x.size:
        y[i] = a * x[i] + y[i]


@cuda.jit
def scale_2d(a, out):
    x, y = cuda.grid(2)
    if y < a.shape[0] and x < a.shape[1]:
        out[y, x] = a[y, x] * 3


@cuda.jit
def neighbours(a, out):
    i = cuda.grid(1)
    if 0 < i < a.size - 1:
        out[i] = a[i - 1] + a[i + 1]


def both_paths(run):
    """`run()`'s result streamed (threshold 0) and cached (threshold past any array)."""
    before = cuda.config.CPU_STREAM_BYTES
    try:
        cuda.config.CPU_STREAM_BYTES = 0
        streamed = run()
        cuda.config.CPU_STREAM_BYTES = 2**63
        cached = run()
    finally:
        cuda.config.CPU_STREAM_BYTES = before
    return streamed, cached


@pytest.mark.parametrize("n", [1, 15, 16, 255, 256, 1000, 4099, 65536 + 17])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_saxpy_streamed_is_numpy(n, dtype):
    rng = np.random.default_rng(n)
    x = (rng.random(n) * 100).astype(dtype)
    y = (rng.random(n) * 100).astype(dtype)
    a = dtype(3)
    dx, dy = cuda.to_device(x), cuda.to_device(y)

    def run():
        out = cuda.to_device(np.full(n, -7, dtype))
        saxpy[(n + 255) // 256, 256](a, dx, dy, out)
        return out.copy_to_host()

    streamed, cached = both_paths(run)
    np.testing.assert_array_equal(streamed, a * x + y)
    np.testing.assert_array_equal(cached, streamed)


@pytest.mark.parametrize("blocks", [1, 3, 64])
def test_grid_stride_streamed_is_numpy(stream_everything, blocks):
    n = 100_003
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, np.float32)
    out = cuda.device_array(n, np.float32)
    saxpy_stride[blocks, 128](np.float32(2), cuda.to_device(x), cuda.to_device(y), out)
    np.testing.assert_array_equal(out.copy_to_host(), 2 * x + y)


@pytest.mark.parametrize("offset", [0, 1, 3, 16])
def test_unaligned_outputs_are_written_too(stream_everything, offset):
    # A view that starts off a 16-byte boundary keeps ordinary stores; nothing around it moves.
    n = 5000
    x = np.arange(n, dtype=np.float32)
    base = cuda.to_device(np.full(n + 32, -1, np.float32))
    out = base[offset:offset + n]
    saxpy[(n + 127) // 128, 128](np.float32(0.5), cuda.to_device(x), cuda.to_device(x), out)
    host = base.copy_to_host()
    np.testing.assert_array_equal(host[offset:offset + n], 1.5 * x)
    assert (host[:offset] == -1).all() and (host[offset + n:] == -1).all()


def test_host_arrays_are_written(stream_everything):
    n = 3001
    x = np.linspace(0, 1, n, dtype=np.float64)
    out = np.zeros(n)
    saxpy[(n + 255) // 256, 256](2.0, x, x, out)
    np.testing.assert_array_equal(out, 3 * x)


def test_in_place_update_is_numpy(stream_everything):
    n = 10_000
    x = np.arange(n, dtype=np.float32)
    y = cuda.to_device(np.full(n, 2, np.float32))
    saxpy_in_place[(n + 255) // 256, 256](np.float32(2), cuda.to_device(x), y)
    np.testing.assert_array_equal(y.copy_to_host(), 2 * x + 2)


@pytest.mark.parametrize("shape, block", [((37, 300), (64, 4)), ((64, 1024), (256, 1)),
                                          ((5, 17), (16, 16))])
def test_2d_streamed_is_numpy(stream_everything, shape, block):
    a = np.random.default_rng(1).random(shape)
    out = cuda.to_device(np.full(shape, -1.0))
    grid = ((shape[1] + block[0] - 1) // block[0], (shape[0] + block[1] - 1) // block[1])
    scale_2d[grid, block](cuda.to_device(a), out)
    np.testing.assert_array_equal(out.copy_to_host(), a * 3)


def test_stencil_streamed_is_numpy(stream_everything):
    a = np.random.default_rng(2).random(3000).astype(np.float32)
    out = cuda.to_device(np.zeros_like(a))
    neighbours[(a.size + 255) // 256, 256](cuda.to_device(a), out)
    expected = np.zeros_like(a)
    expected[1:-1] = a[:-2] + a[2:]
    np.testing.assert_array_equal(out.copy_to_host(), expected)


def test_out_of_bounds_still_raises(stream_everything):
    x = cuda.to_device(np.ones(1000, np.float32))
    out = cuda.device_array(999, np.float32)
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 999"):
        saxpy[4, 256](np.float32(1), x, x, out)
        cuda.synchronize()


@pytest.mark.skipif(platform.machine() != "x86_64", reason="non-temporal stores are x86's")
def test_which_loops_stream(tmp_path):
    # The host code stores non-temporally (tested once per loop, fenced before the entry
    # returns) in loops that write an array from end to end; not in an in-place update (its
    # lines are read first) or a stencil (its loads come from the caches).
    names = ["saxpy", "saxpy_stride", "saxpy_in_place", "neighbours"]
    host = cpu_dump_paths(tmp_path, __file__, names, """
import numpy as np
import cudajit as cuda

{kernels}

x = cuda.to_device(np.ones(4096, np.float32))
out = cuda.device_array(4096, np.float32)
saxpy[16, 256](np.float32(2), x, x, out)
saxpy_stride[4, 256](np.float32(2), x, x, out)
saxpy_in_place[16, 256](np.float32(2), x, out)
neighbours[16, 256](x, out)
cuda.synchronize()
""", dump="host")
    def entry(kernel):
        return next(text for name, text in host.items() if name.startswith(kernel + "__"))
    for kernel in ("saxpy", "saxpy_stride"):
        assert "!nontemporal" in entry(kernel), kernel
        assert "@llvm.x86.sse.sfence()" in entry(kernel), kernel
        assert "%large_arrays" in entry(kernel), kernel
    for kernel in ("saxpy_in_place", "neighbours"):
        assert "!nontemporal" not in entry(kernel), kernel


def test_config_checks_its_value():
    with pytest.raises(TypeError, match="CPU_STREAM_BYTES must be an int, got str '1'"):
        cuda.config.CPU_STREAM_BYTES = "1"
    with pytest.raises(ValueError, match=r"CPU_STREAM_BYTES must be from 0 to 2\*\*64 - 1, got -1"):
        cuda.config.CPU_STREAM_BYTES = -1
    before = cuda.config.CPU_STREAM_BYTES
    try:
        cuda.config.CPU_STREAM_BYTES = 12345
        assert cuda.config.CPU_STREAM_BYTES == 12345
    finally:
        cuda.config.CPU_STREAM_BYTES = before


def largest_cache_bytes():
    caches = []
    for index in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"):
        try:
            level = int((index / "level").read_text())
            size = (index / "size").read_text().strip()
        except (OSError, ValueError):
            continue
        scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(size[-1:], 1)
        caches.append((level, int(size.rstrip("KMG")) * scale))
    return max(caches)[1] if caches else 32 << 20


def test_default_is_three_quarters_of_the_largest_cache():
    result = run_on_cpu_device(
        "import cudajit as cuda; print(cuda.config.CPU_STREAM_BYTES)",
        CUDAJIT_CPU_STREAM_BYTES="")
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) == largest_cache_bytes() // 4 * 3


@pytest.mark.parametrize("text", ["lots", "-5", "1e6", "99999999999999999999999"])
def test_environment_checks_its_value(text):
    result = run_on_cpu_device("""
import numpy as np
import cudajit as cuda

@cuda.jit
def fill(out):
    out[cuda.grid(1)] = 1

fill[1, 32](cuda.device_array(32))
""", CUDAJIT_CPU_STREAM_BYTES=text)
    assert result.returncode != 0
    assert (f"ValueError: CUDAJIT_CPU_STREAM_BYTES must be a whole number of bytes (arrays at "
            f"least this large are written past the cpu device's caches), got '{text}'"
            in result.stderr), result.stderr


def test_a_bad_environment_spares_other_devices():
    # The threshold is the cpu device's: the simulated GPU launches as before.
    import subprocess
    import sys
    from conftest import environment_of_this_cpu
    env = environment_of_this_cpu(CUDAJIT_DEVICE="sim", CUDAJIT_CPU_STREAM_BYTES="lots",
                                  PYTHONPATH=str(Path(cuda.__file__).parents[1]))
    result = subprocess.run([sys.executable, "-W", "ignore", "-c", """
import numpy as np
import cudajit as cuda

@cuda.jit
def fill(out):
    out[cuda.grid(1)] = 1

out = cuda.device_array(32)
fill[1, 32](out)
print(out.copy_to_host().sum())
"""], env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "32.0"
