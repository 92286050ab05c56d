"""Foreign arrays on a GPU: CuPy and PyTorch as producers and consumers of
cudajit kernels and arrays (issue 4, "on a machine with a GPU").

The same rules run on the cpu device, with test-only producers, in
test_interop_cai.py, test_interop_sync.py and test_interop_dlpack.py. Here the
producers are real:

- CuPy arrays written on a non-default (non-blocking) CuPy stream by a
  RawKernel that spins on the GPU's %globaltimer for SPIN_SECONDS and then
  writes; CuPy exports its *current* stream in ``__cuda_array_interface__``
  (version 3), so the launch that reads them happens inside ``with stream:``.
- torch tensors written on a side stream after ``torch.cuda._sleep`` (a spin
  calibrated here with torch events); PyTorch's CAI is version 2 without a
  stream, so ordering across streams goes through DLPack, where
  ``__dlpack__(stream=...)`` makes the consumer's stream wait for torch's
  current stream.

Nothing here asserts a race (with synchronisation off the outcome on a GPU is
not ours to promise); every timing assertion has a wide margin (a 0.25 s spin
against a launch of microseconds). Skips without a GPU, CuPy or PyTorch.
"""

import gc
import inspect
import time
import weakref

import numpy as np
import pytest

import cudajit as cuda
from cudajit import _core

if not cuda.is_available():
    pytest.skip("needs a CUDA GPU: " + _core.cuda_unavailable_reason(), allow_module_level=True)

from conftest import cover, dtype_id, random_array  # noqa: E402
from interop_producers import DlpackOnly, capsule_name, copy_1d  # noqa: E402

pytestmark = pytest.mark.usefixtures("restore_interop_config")

N = 4096
THREADS = 256
BLOCKS = N // THREADS
SPIN_SECONDS = 0.25
SHAPE = (33, 17)
BLOCK_2D = (8, 8)
DTYPES = [np.float32, np.float64, np.int32, np.complex64]


@cuda.jit
def fill_1d(x, value):
    i = cuda.grid(1)
    if i < x.shape[0]:
        x[i] = value


@cuda.jit
def add_2d(x, y, out):
    i, j = cuda.grid(2)
    if i < x.shape[0] and j < x.shape[1]:
        out[i, j] = x[i, j] + y[i, j]


@cuda.jit
def write_ones(x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        x[i] = 1


# --- fixtures ---------------------------------------------------------------------------------


@pytest.fixture(scope="module", autouse=True)
def on_the_gpu():
    """cudajit's current device is the GPU for every test here (module scope,
    so that module-scoped fixtures compile and calibrate on it too)."""
    previous = _core.current_device()
    cuda.select_device(0)
    assert _core.current_device().kind == "cuda"
    yield
    _core.set_current_device(previous)


@pytest.fixture(scope="module")
def cp():
    return pytest.importorskip("cupy", reason="cupy is not installed")


@pytest.fixture(scope="module")
def torch():
    torch = pytest.importorskip("torch", reason="torch is not installed")
    if not torch.cuda.is_available():
        pytest.skip(f"torch {torch.__version__} has no CUDA here")
    return torch


@pytest.fixture(scope="module")
def warm():
    """Compiles and loads the kernels that tests launch while a producer is
    still busy (a foreign array has the same type key as an own one of its
    dtype and layout): a first launch may load a module, which can wait for
    the whole GPU (CUDA's lazy loading) and so hide what the test checks."""
    s = cuda.stream()
    a, b = cuda.device_array(N), cuda.device_array(N)
    copy_1d[BLOCKS, THREADS, s](a, b)
    fill_1d[BLOCKS, THREADS, s](a, 0.0)
    s.synchronize()


_SPIN_FILL = r"""
extern "C" __global__
void spin_fill(double* x, long long n, double value, unsigned long long ns)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = value;
}
"""


@pytest.fixture(scope="module")
def spin_fill(cp):
    """spin_fill(x, value, seconds): queues on CuPy's current stream a kernel
    that spins for `seconds` of GPU time, then writes `value` to every element
    of the contiguous float64 CuPy array `x`. Checked once to really spin."""
    kernel = cp.RawKernel(_SPIN_FILL, "spin_fill")

    def launch(x, value, seconds):
        assert x.dtype == np.float64 and x.flags.c_contiguous
        n = x.size
        kernel(((n + THREADS - 1) // THREADS,), (THREADS,),
               (x, np.int64(n), np.float64(value), np.uint64(int(seconds * 1e9))))

    scratch = cp.zeros(1, dtype=cp.float64)
    launch(scratch, 0.0, 0.0)  # compiles
    cp.cuda.Device().synchronize()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    launch(scratch, 1.0, 0.05)
    end.record()
    end.synchronize()
    ms = cp.cuda.get_elapsed_time(start, end)
    assert ms >= 40, f"the spinning CuPy kernel ran {ms:.2f} ms where 50 ms were asked"
    return launch


@pytest.fixture(scope="module")
def torch_sleep(torch):
    """torch_sleep(seconds): torch.cuda._sleep on torch's current stream, for
    about `seconds` (cycles per second measured here with torch events)."""
    if not hasattr(torch.cuda, "_sleep"):
        pytest.skip(f"torch {torch.__version__} has no torch.cuda._sleep to spin with")
    torch.cuda._sleep(1000)
    torch.cuda.synchronize()
    probe = 50_000_000
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    torch.cuda._sleep(probe)
    end.record()
    end.synchronize()
    seconds_per_cycle = start.elapsed_time(end) / 1000.0 / probe
    assert seconds_per_cycle > 0

    def sleep(seconds):
        torch.cuda._sleep(int(seconds / seconds_per_cycle))

    return sleep


# --- arrays of the libraries in a given layout ---------------------------------------------------


CUPY_LAYOUTS = ["C", "F", "step2", "subarray", "reversed"]
TORCH_LAYOUTS = ["C", "F", "step2", "subarray"]  # torch has no negative strides


def cupy_in_layout(cp, values, layout):
    """A CuPy array equal to the 2-d `values` whose memory layout is `layout`."""
    src = cp.asarray(values)
    n0, n1 = values.shape
    if layout == "C":
        view = src
    elif layout == "F":
        view = cp.asfortranarray(src)
    elif layout == "step2":
        base = cp.zeros((2 * n0 + 1, 2 * n1 + 1), dtype=values.dtype)
        view = base[::2, ::2][:n0, :n1]
        view[...] = src
    elif layout == "subarray":
        base = cp.zeros((n0 + 3, n1 + 3), dtype=values.dtype)
        view = base[1:1 + n0, 2:2 + n1]
        view[...] = src
    elif layout == "reversed":
        view = cp.ascontiguousarray(src[::-1, ::-1])[::-1, ::-1]
    else:
        raise ValueError(layout)
    cp.cuda.Device().synchronize()
    np.testing.assert_array_equal(cp.asnumpy(view), values)
    return view


def torch_in_layout(torch, values, layout):
    """A CUDA tensor equal to the 2-d `values` whose memory layout is `layout`."""
    src = torch.from_numpy(np.ascontiguousarray(values)).to("cuda")
    n0, n1 = values.shape
    if layout == "C":
        view = src
    elif layout == "F":
        view = src.t().contiguous().t()
    elif layout == "step2":
        base = torch.zeros((2 * n0 + 1, 2 * n1 + 1), dtype=src.dtype, device="cuda")
        view = base[::2, ::2][:n0, :n1]
        view.copy_(src)
    elif layout == "subarray":
        base = torch.zeros((n0 + 3, n1 + 3), dtype=src.dtype, device="cuda")
        view = base[1:1 + n0, 2:2 + n1]
        view.copy_(src)
    else:
        raise ValueError(layout)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(view.cpu().numpy(), values)
    return view


def check_layout(array, layout):
    """The exported strides say what the test means to pass."""
    strides = array.__cuda_array_interface__["strides"]
    assert (strides is None) == (layout == "C"), (layout, strides)
    if layout == "reversed":
        assert all(s < 0 for s in strides), strides


def expected_sum(x, y):
    with np.errstate(over="ignore"):
        return x + y


# --- kernels launched directly on CuPy arrays and torch tensors ---------------------------------


@pytest.mark.parametrize("layout", CUPY_LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_a_kernel_on_cupy_arrays_matches_numpy_in_every_layout(cp, dtype, layout):
    x, y = random_array(dtype, SHAPE, seed=1), random_array(dtype, SHAPE, seed=2)
    cx, cy = cupy_in_layout(cp, x, layout), cupy_in_layout(cp, y, layout)
    cout = cupy_in_layout(cp, np.zeros(SHAPE, dtype), layout)
    check_layout(cx, layout)
    add_2d[cover(SHAPE, BLOCK_2D), BLOCK_2D](cx, cy, cout)
    cuda.synchronize()
    np.testing.assert_array_equal(cp.asnumpy(cout), expected_sum(x, y))


@pytest.mark.parametrize("layout", TORCH_LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_a_kernel_on_torch_tensors_matches_numpy_in_every_layout(torch, dtype, layout):
    x, y = random_array(dtype, SHAPE, seed=3), random_array(dtype, SHAPE, seed=4)
    tx, ty = torch_in_layout(torch, x, layout), torch_in_layout(torch, y, layout)
    tout = torch_in_layout(torch, np.zeros(SHAPE, dtype), layout)
    check_layout(tx, layout)
    add_2d[cover(SHAPE, BLOCK_2D), BLOCK_2D](tx, ty, tout)
    cuda.synchronize()
    np.testing.assert_array_equal(tout.cpu().numpy(), expected_sum(x, y))


def test_a_kernel_on_a_dlpack_only_torch_tensor_matches_numpy(torch):
    x = random_array(np.float32, SHAPE, seed=5)
    t = torch_in_layout(torch, x, "step2")
    out = cuda.device_array(SHAPE, dtype=np.float32)
    add_2d[cover(SHAPE, BLOCK_2D), BLOCK_2D](DlpackOnly(t), DlpackOnly(t), out)
    np.testing.assert_array_equal(out.copy_to_host(), x + x)


def test_cupy_and_torch_arrays_in_a_kernels_closure_are_captured_by_address(cp, torch):
    # numba-cuda's issue 659: a CuPy array global/closure read by a kernel. Captured by its
    # address: what CuPy and torch write later is seen, and the kernel's writes land.
    table = cp.asarray(np.array([1.0, 2.0, 3.0, 4.0], np.float32))
    weights = torch.arange(4, dtype=torch.float32, device="cuda")

    @cuda.jit
    def weigh(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = table[i] * weights[i]
            weights[i] += 1

    out = cuda.device_array(4, np.float32)
    weigh[1, 32](out)
    np.testing.assert_array_equal(out.copy_to_host(), [0, 2, 6, 12])
    table[:] = 10
    cp.cuda.runtime.deviceSynchronize()
    weigh[1, 32](out)
    np.testing.assert_array_equal(out.copy_to_host(), [10, 20, 30, 40])
    np.testing.assert_array_equal(weights.cpu().numpy(), [2, 3, 4, 5])


def test_a_read_only_torch_export_makes_a_read_only_argument(torch):
    # CuPy never exports read-only memory, and torch's CAI always says
    # writable; a torch whose __dlpack__ takes read_only=True sets the
    # READ_ONLY flag of a versioned capsule.
    try:
        parameters = inspect.signature(torch.Tensor.__dlpack__).parameters
    except (TypeError, ValueError):
        parameters = {}
    if "read_only" not in parameters:
        pytest.skip(f"torch {torch.__version__} exports no read-only flag (nor does CuPy)")

    class ReadOnly:
        def __init__(self, tensor):
            self.tensor = tensor

        def __dlpack__(self, **kwargs):
            return self.tensor.__dlpack__(read_only=True, **kwargs)

        def __dlpack_device__(self):
            return self.tensor.__dlpack_device__()

    t = torch.arange(8, dtype=torch.float64, device="cuda")
    out = cuda.device_array(8)
    copy_1d[1, 8](ReadOnly(t), out)
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(8.0))
    assert ("readonly array(float64, 1d, C)", "array(float64, 1d, C)") in copy_1d.signatures
    with pytest.raises(cuda.CompileError, match="cannot write to read-only array 'x'"):
        write_ones[1, 8](ReadOnly(t))
    torch.cuda.synchronize()
    np.testing.assert_array_equal(t.cpu().numpy(), np.arange(8.0))


# --- CuPy arrays produced on a non-default stream ---------------------------------------------


def produced_slowly(cp, spin_fill, stream, value=1.0):
    """A CuPy array of N zeros (already written) that a kernel queued on the
    CuPy stream `stream` sets to `value` after spinning SPIN_SECONDS."""
    with stream:
        x = cp.zeros(N, dtype=cp.float64)
    stream.synchronize()
    with stream:
        spin_fill(x, value, SPIN_SECONDS)
    return x


def launch_in_order(x, out, consumer):
    copy_1d[BLOCKS, THREADS, consumer](x, out)


def launch_through_a_view(x, out, consumer):
    view = cuda.as_cuda_array(x)
    copy_1d[BLOCKS, THREADS, consumer](view, out)


@pytest.mark.parametrize("mode, busy_after_launch", [("stream", True), ("host", False)])
@pytest.mark.parametrize("launch", [launch_in_order, launch_through_a_view],
                         ids=["argument", "as_cuda_array"])
def test_a_kernel_on_another_stream_reads_what_cupys_stream_wrote(
        cp, spin_fill, warm, mode, busy_after_launch, launch):
    cuda.config.CUDA_ARRAY_INTERFACE_SYNC_MODE = mode
    s = cp.cuda.Stream(non_blocking=True)
    consumer = cuda.stream()
    out = cuda.to_device(np.full(N, -1.0))
    x = produced_slowly(cp, spin_fill, s)
    with s:  # CuPy exports its current stream: s
        assert x.__cuda_array_interface__["stream"] == s.ptr
        launch(x, out, consumer)
    busy = not s.done
    consumer.synchronize()
    assert busy == busy_after_launch, (
        "stream-ordered mode waited on the host" if busy_after_launch
        else "host mode returned before CuPy's stream was done")
    np.testing.assert_array_equal(out.copy_to_host(), 1.0)


def test_a_stream_ordered_launch_returns_while_cupys_stream_is_busy(cp, spin_fill, warm):
    s = cp.cuda.Stream(non_blocking=True)
    consumer = cuda.stream()
    out = cuda.to_device(np.full(N, -1.0))
    x = produced_slowly(cp, spin_fill, s)
    with s:
        t0 = time.perf_counter()
        copy_1d[BLOCKS, THREADS, consumer](x, out)
        launched = time.perf_counter() - t0
    busy = not s.done
    consumer.synchronize()
    finished = time.perf_counter() - t0
    assert busy
    assert launched < finished / 4, (launched, finished)
    np.testing.assert_array_equal(out.copy_to_host(), 1.0)


def test_a_launch_on_cupys_own_stream_is_in_order(cp, spin_fill, warm):
    s = cp.cuda.Stream(non_blocking=True)
    out = cuda.to_device(np.full(N, -1.0))
    x = produced_slowly(cp, spin_fill, s)
    with s:
        copy_1d[BLOCKS, THREADS, s](x, out)  # a CuPy stream as the launch stream
    assert not s.done
    s.synchronize()
    np.testing.assert_array_equal(out.copy_to_host(), 1.0)


def test_cupys_later_work_on_its_stream_waits_for_the_kernel(cp, spin_fill, warm):
    # The CAI v3 condition on consumers: what CuPy queues on its stream after
    # the launch runs after the kernel. The launch stream is held up by a
    # spin, so without that ordering CuPy's overwrite would land first.
    s = cp.cuda.Stream(non_blocking=True)
    late = cp.cuda.Stream(non_blocking=True)
    out = cuda.to_device(np.full(N, -1.0))
    with s:
        x = cp.ones(N, dtype=cp.float64)
    with late:
        scratch = cp.zeros(1, dtype=cp.float64)
    cp.cuda.Device().synchronize()
    with late:
        spin_fill(scratch, 0.0, SPIN_SECONDS)
    with s:
        copy_1d[BLOCKS, THREADS, late](x, out)
        x.fill(2.0)  # queued on s
    s.synchronize()
    late.synchronize()
    np.testing.assert_array_equal(out.copy_to_host(), 1.0)
    np.testing.assert_array_equal(cp.asnumpy(x), 2.0)


def test_with_synchronisation_off_the_launch_still_runs(cp, spin_fill, warm):
    # Off: the stream CuPy exports is ignored. Whether the kernel then reads
    # the old or the new values is a race on a GPU; only its completion and
    # the producer's own write are checked.
    cuda.config.CUDA_ARRAY_INTERFACE_SYNC = False
    s = cp.cuda.Stream(non_blocking=True)
    consumer = cuda.stream()
    out = cuda.to_device(np.full(N, -1.0))
    x = produced_slowly(cp, spin_fill, s)
    with s:
        copy_1d[BLOCKS, THREADS, consumer](x, out)
    consumer.synchronize()
    assert set(np.unique(out.copy_to_host())) <= {0.0, 1.0}
    s.synchronize()
    np.testing.assert_array_equal(cp.asnumpy(x), 1.0)


# --- torch tensors on a side stream ---------------------------------------------------------------


def test_a_torch_tensor_launched_on_its_side_stream_is_in_order(torch, torch_sleep, warm):
    # PyTorch's CAI (version 2) names no stream: launching on the side stream
    # itself is the ordering.
    side = torch.cuda.Stream()
    out = cuda.to_device(np.full(N, -1.0))
    t = torch.zeros(N, dtype=torch.float64, device="cuda")
    t.fill_(0.0)  # loads torch's fill kernel now, not inside the timed window
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        torch_sleep(SPIN_SECONDS)
        t.fill_(1.0)
    copy_1d[BLOCKS, THREADS, side](t, out)  # a torch stream as the launch stream
    assert not side.query()
    side.synchronize()
    np.testing.assert_array_equal(out.copy_to_host(), 1.0)


@pytest.mark.parametrize("path", ["argument", "from_dlpack"])
def test_a_torch_tensor_on_a_side_stream_is_ordered_through_dlpack(
        torch, torch_sleep, warm, path):
    side = torch.cuda.Stream()
    consumer = cuda.stream()
    out = cuda.to_device(np.full(N, -1.0))
    t = torch.zeros(N, dtype=torch.float64, device="cuda")
    t.fill_(0.0)  # loads torch's fill kernel now, not inside the timed window
    torch.cuda.synchronize()
    producer = DlpackOnly(t)  # hides the CAI: the import takes DLPack
    with torch.cuda.stream(side):
        torch_sleep(SPIN_SECONDS)
        t.fill_(1.0)
        if path == "argument":
            # torch makes the launch stream wait for its current stream (side)
            copy_1d[BLOCKS, THREADS, consumer](producer, out)
        else:
            view = cuda.from_dlpack(producer)  # stream=1: the legacy default stream waits
    if path == "from_dlpack":
        copy_1d[BLOCKS, THREADS](view, out)
    busy = not side.query()
    cuda.synchronize()
    assert busy, "the import or the launch waited on the host for torch's side stream"
    expected_stream = consumer.handle if path == "argument" else 1
    assert producer.calls[0]["stream"] == expected_stream
    assert tuple(producer.calls[0]["max_version"]) == (1, 0)
    np.testing.assert_array_equal(out.copy_to_host(), 1.0)


# --- export: cudajit arrays in CuPy and PyTorch, without copies ---------------------------------


def test_cupy_asarray_of_a_device_array_shares_its_memory(cp):
    d = cuda.to_device(np.arange(N, dtype=np.float32))
    c = cp.asarray(d)
    assert c.data.ptr == d.device_pointer
    assert c.shape == d.shape and c.dtype == np.float32
    c *= 2  # CuPy writes
    cp.cuda.Device().synchronize()
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(N, dtype=np.float32) * 2)
    fill_1d[BLOCKS, THREADS](d, 5.0)  # cudajit writes
    cuda.synchronize()
    np.testing.assert_array_equal(cp.asnumpy(c), 5.0)


def test_cupy_asarray_waits_for_the_stream_a_device_array_exports(cp, spin_fill, warm):
    # CAI v3, consumer side: CuPy synchronises the exported stream.
    s = cuda.stream()
    d = cuda.device_array(N, stream=s)
    assert d.__cuda_array_interface__["stream"] == s.handle
    scratch = cp.zeros(1, dtype=cp.float64)
    cp.cuda.Device().synchronize()
    with cp.cuda.ExternalStream(s.handle):
        spin_fill(scratch, 0.0, SPIN_SECONDS)  # holds s up
    fill_1d[BLOCKS, THREADS, s](d, 4.0)
    assert not s.query()
    c = cp.asarray(d)
    assert s.query(), "CuPy did not synchronise the stream the array exports"
    np.testing.assert_array_equal(cp.asnumpy(c), 4.0)


def test_torch_as_tensor_of_a_device_array_shares_its_memory(torch):
    d = cuda.to_device(np.arange(N, dtype=np.float64))
    t = torch.as_tensor(d, device="cuda")
    assert t.data_ptr() == d.device_pointer
    assert tuple(t.shape) == d.shape and t.dtype == torch.float64
    t.mul_(3)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(N) * 3.0)
    fill_1d[BLOCKS, THREADS](d, 6.0)
    cuda.synchronize()
    np.testing.assert_array_equal(t.cpu().numpy(), 6.0)


class DlpackExporter:
    """Passes a cudajit array's DLPack export on and keeps each capsule, to
    read its name once the consumer has it. With versioned=False it is a
    producer from before DLPack 1.0: max_version is a TypeError, and the
    consumer asks again without it (and gets a legacy "dltensor" capsule)."""

    def __init__(self, array, versioned):
        self.array = array
        self.versioned = versioned
        self.calls = []
        self.capsules = []

    def __dlpack__(self, **kwargs):
        self.calls.append(dict(kwargs))
        if not self.versioned and "max_version" in kwargs:
            raise TypeError("__dlpack__() got an unexpected keyword argument 'max_version'")
        capsule = self.array.__dlpack__(**kwargs)
        self.capsules.append(capsule)
        return capsule

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def exported(d, kind):
    """What a consumer is given: the array itself, or a wrapper that yields a
    capsule of the named kind."""
    return d if kind == "array" else DlpackExporter(d, versioned=(kind == "versioned"))


def check_capsule(producer, kind):
    if kind == "array":
        return
    expected = "used_dltensor_versioned" if kind == "versioned" else "used_dltensor"
    assert [capsule_name(c) for c in producer.capsules] == [expected]


@pytest.mark.parametrize("kind", ["array", "versioned", "legacy"])
def test_torch_from_dlpack_of_a_device_array_shares_its_memory(torch, kind):
    d = cuda.to_device(np.arange(N, dtype=np.float64))
    producer = exported(d, kind)
    t = torch.from_dlpack(producer)
    check_capsule(producer, kind)
    assert t.data_ptr() == d.device_pointer
    assert tuple(t.shape) == d.shape and t.dtype == torch.float64
    t.add_(1)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(N) + 1.0)
    fill_1d[BLOCKS, THREADS](d, 2.0)
    cuda.synchronize()
    np.testing.assert_array_equal(t.cpu().numpy(), 2.0)


@pytest.mark.parametrize("kind", ["array", "versioned", "legacy"])
def test_cupy_from_dlpack_of_a_device_array_shares_its_memory(cp, kind):
    d = cuda.to_device(np.arange(N, dtype=np.float64))
    producer = exported(d, kind)
    c = cp.from_dlpack(producer)
    check_capsule(producer, kind)
    assert c.data.ptr == d.device_pointer
    assert c.shape == d.shape and c.dtype == np.float64
    c += 1
    cp.cuda.Device().synchronize()
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(N) + 1.0)
    fill_1d[BLOCKS, THREADS](d, 2.0)
    cuda.synchronize()
    np.testing.assert_array_equal(cp.asnumpy(c), 2.0)


def test_as_cuda_array_of_a_cupy_array_shares_its_memory(cp):
    c = cp.arange(N, dtype=cp.float64)
    assert cuda.is_cuda_array(c)
    v = cuda.as_cuda_array(c)
    assert v.device_pointer == c.data.ptr
    assert v.shape == c.shape and v.dtype == np.float64
    fill_1d[BLOCKS, THREADS](v, 8.0)
    cuda.synchronize()
    np.testing.assert_array_equal(cp.asnumpy(c), 8.0)
    c[:] = 9.0
    cp.cuda.Device().synchronize()
    np.testing.assert_array_equal(v.copy_to_host(), 9.0)
    part = c.reshape(64, 64)[::2, 1::3]
    strided = cuda.as_cuda_array(part)
    assert strided.device_pointer == part.data.ptr
    assert strided.shape == part.shape and strided.strides == part.strides
    np.testing.assert_array_equal(strided.copy_to_host(), cp.asnumpy(part))


def test_from_dlpack_of_a_torch_tensor_shares_its_memory(torch):
    t = torch.arange(N, dtype=torch.float64, device="cuda")
    v = cuda.from_dlpack(t)
    assert v.device_pointer == t.data_ptr()
    assert v.shape == tuple(t.shape) and v.dtype == np.float64
    fill_1d[BLOCKS, THREADS](v, 8.0)
    cuda.synchronize()
    np.testing.assert_array_equal(t.cpu().numpy(), 8.0)
    t.fill_(9.0)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(v.copy_to_host(), 9.0)


# --- lifetime ------------------------------------------------------------------------------------


def released(ref):
    """Whether the weakly referenced object is gone once cudajit has run the
    releases it defers to its next call (a synchronisation here)."""
    cuda.synchronize()
    gc.collect()
    return ref() is None


def test_a_cupy_array_deleted_straight_after_the_launch_lives_until_the_kernel_ends(
        cp, spin_fill, warm):
    gc.collect()  # no collection (and no cuMemFree, which waits for the GPU) below
    s = cp.cuda.Stream(non_blocking=True)
    consumer = cuda.stream()
    out = cuda.to_device(np.full(N, -1.0))
    with s:
        a = cp.zeros(N, dtype=cp.float64)
    s.synchronize()
    with s:
        spin_fill(a, 7.0, SPIN_SECONDS)  # a holds 7.0 once the spin is over
        copy_1d[BLOCKS, THREADS, consumer](a, out)  # ordered after the spin
    ref = weakref.ref(a)
    del a  # a CuPy array is in no cycle: only a reference held elsewhere keeps it
    assert ref() is not None, "the launch let go of its argument before the kernel ran"
    assert not consumer.query(), "the kernel finished too early to test anything"
    consumer.synchronize()
    np.testing.assert_array_equal(out.copy_to_host(), 7.0)
    s.synchronize()
    assert released(ref)


def test_as_cuda_array_keeps_a_cupy_array_alive_until_the_view_is_gone(cp):
    c = cp.arange(N, dtype=cp.float64)
    ref = weakref.ref(c)
    view = cuda.as_cuda_array(c)
    del c
    assert not released(ref)
    np.testing.assert_array_equal(view.copy_to_host(), np.arange(N, dtype=np.float64))
    del view
    assert released(ref)
