"""Shared fixtures for the cudajit Python tests.

- `device`: every kernel test runs once per device, "cpu" always and "cuda":
  the GPU, or the simulated GPU (libcudajit_sim.so) where there is none.
- `ptxas` / `check_ptx`: assemble generated PTX with the toolkit's ptxas.
- `assert_compile_error`: checks a CompileError's location, source line, caret
  and message in one place, so every error test reads the same.
"""

import os
import platform
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

# Test modules import kernels from one another (test_compile_ptx reuses the
# kernels of test_kernels_*), whatever pytest's import mode.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def _real_gpu_present():
    """Whether libcuda.so.1 loads and sees a GPU (asked through ctypes, before cudajit
    loads any driver)."""
    import ctypes

    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int(0)
    return lib.cuInit(0) == 0 and lib.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0


def _simulator_library():
    import importlib.util

    spec = importlib.util.find_spec("cudajit")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = os.path.join(folder, "libcudajit_sim.so")
        if os.path.exists(path):
            return path
    return None


# Without a GPU, the cuda variants run on the simulated GPU (a real GPU takes precedence; an
# explicit CUDAJIT_LIBCUDA or CUDAJIT_DEVICE is left alone). The default device stays the cpu
# device: the simulator is chosen, never defaulted to.
if ("CUDAJIT_LIBCUDA" not in os.environ and os.environ.get("CUDAJIT_DEVICE") not in ("cuda", "sim")
        and not _real_gpu_present() and _simulator_library()):
    os.environ["CUDAJIT_LIBCUDA"] = _simulator_library()

# Numba's test suite turns the low-occupancy warning off, as here: most kernel tests launch a
# few blocks on purpose. test_config.py turns it on where it tests it.
os.environ.setdefault("CUDAJIT_CUDA_LOW_OCCUPANCY_WARNINGS", "0")

import cudajit  # noqa: E402


def cuda_device_setting() -> str:
    """CUDAJIT_DEVICE for a child process that must run on the cuda device this run uses:
    "sim" where that is the simulated GPU, "cuda" on a real GPU."""
    from cudajit import _core

    return "sim" if _core.cuda_simulated() else "cuda"


def pytest_report_header(config):
    from cudajit import _core

    if not _core.cuda_available():
        return "cudajit cuda device: unavailable (" + (_cuda_unavailable_reason() or "") + ")"
    kind = "simulated GPU" if _core.cuda_simulated() else "GPU"
    return f"cudajit cuda device: {kind}, {_core.cuda_driver_library()}"


def _cuda_unavailable_reason():
    """None when cudajit can run kernels on a GPU, else why not."""
    available = getattr(cudajit, "cuda_available", None)
    if available is None:
        return "cudajit.cuda_available() does not exist yet"
    try:
        if available():
            return None
    except Exception as exc:  # a missing driver must skip, not error
        return f"cudajit.cuda_available() raised {type(exc).__name__}: {exc}"
    return "no GPU or no CUDA driver on this machine"


@pytest.fixture
def restore_interop_config():
    """The test leaves cudajit.config's synchronisation settings as it found them."""
    import cudajit

    saved = (cudajit.config.CUDA_ARRAY_INTERFACE_SYNC,
             cudajit.config.CUDA_ARRAY_INTERFACE_SYNC_MODE)
    try:
        yield
    finally:
        cudajit.config.CUDA_ARRAY_INTERFACE_SYNC = saved[0]
        cudajit.config.CUDA_ARRAY_INTERFACE_SYNC_MODE = saved[1]


@pytest.fixture(scope="module")
def on_cpu_device():
    """Makes the cpu device current for a whole module (tests about host memory
    behind device interfaces, or about the cpu device itself)."""
    from cudajit import _core

    previous = _core.current_device()
    _core.set_current_device(_core.cpu_device())
    yield
    _core.set_current_device(previous)


@pytest.fixture
def on_gpu_device():
    """Makes the cuda device current for one test (the GPU, else the simulated GPU):
    for what only GPU memory has, such as exporting __cuda_array_interface__."""
    from cudajit import _core

    reason = _cuda_unavailable_reason()
    if reason is not None:
        pytest.skip(f"cuda device not available: {reason}")
    previous = _core.current_device()
    _core.set_current_device(_core.cuda_device(0))
    yield
    _core.set_current_device(previous)


@pytest.fixture(params=["cpu", "cuda"])
def device(request):
    """The device a kernel test runs on, made the current device for the test:
    "cpu" always; "cuda" on the GPU, or where there is none on the simulated GPU
    (the report header says which). The previous current device is restored
    afterwards."""
    from cudajit import _core

    if request.param == "cuda":
        reason = _cuda_unavailable_reason()
        if reason is not None:
            pytest.skip(f"cuda device not available: {reason}")
        chosen = _core.cuda_device(0)
    else:
        chosen = _core.cpu_device()
    previous = _core.current_device()
    _core.set_current_device(chosen)
    yield request.param
    _core.set_current_device(previous)


def _find_ptxas():
    candidates = []
    for var in ("CUDA_HOME", "CUDA_PATH"):
        root = os.environ.get(var)
        if root:
            candidates.append(os.path.join(root, "bin", "ptxas"))
    candidates.append("/usr/local/cuda/bin/ptxas")
    for path in candidates:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path, candidates
    return None, candidates


@pytest.fixture(scope="session")
def ptxas():
    """Path of ptxas from $CUDA_HOME, $CUDA_PATH or /usr/local/cuda/bin."""
    path, looked = _find_ptxas()
    if path is None:
        pytest.skip("ptxas not found (looked at " + ", ".join(looked) + "); set CUDA_HOME")
    return path


# ptxas of CUDA 13 no longer assembles for Maxwell, Pascal and Volta.
PTXAS_MIN_CC = (7, 5)


def run_ptxas(ptxas_path, ptx, cc, *options):
    """Assembles `ptx` for sm_<cc> (with ptxas `options`); returns the CompletedProcess."""
    arch = "sm_%d%d" % tuple(cc)
    with tempfile.TemporaryDirectory(prefix="cudajit-ptxas-") as tmp:
        src = os.path.join(tmp, "kernel.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        return subprocess.run(
            [ptxas_path, f"-arch={arch}", *options, src, "-o", os.path.join(tmp, "kernel.cubin")],
            capture_output=True,
            text=True,
            timeout=120,
        )


@pytest.fixture
def check_ptx(ptxas):
    """check_ptx(ptx, cc, kernel=True): `.entry` (or `.func`) is present and
    ptxas -arch=sm_XX assembles the text; shows ptxas's stderr on failure."""

    def check(ptx, cc=(8, 0), kernel=True):
        assert isinstance(ptx, str) and ptx, "compile_ptx returned no PTX text"
        if kernel:
            assert ".entry" in ptx, "kernel PTX has no .entry:\n" + ptx[:2000]
        else:
            assert ".func" in ptx, "device function PTX has no .func:\n" + ptx[:2000]
        if tuple(cc) < PTXAS_MIN_CC:
            return  # this ptxas cannot target it; the text checks above still ran
        result = run_ptxas(ptxas, ptx, cc)
        assert (
            result.returncode == 0
        ), "ptxas -arch=sm_%d%d failed (exit %d):\n%s\n--- PTX ---\n%s" % (
            cc[0],
            cc[1],
            result.returncode,
            result.stderr + result.stdout,
            ptx,
        )

    return check


# --- compile errors ------------------------------------------------------

_HEADER = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<message>.+)$")


def parse_compile_error(exc):
    """Splits str(CompileError) into (file, line, col, message, source, caret)."""
    text = str(exc)
    lines = text.splitlines()
    assert len(lines) >= 3, (
        "a CompileError shows `file:line:col: message`, the source line and a caret; got:\n" + text
    )
    m = _HEADER.match(lines[0])
    assert m, "first line of a CompileError is `file:line:col: message`; got:\n" + text
    return (m["file"], int(m["line"]), int(m["col"]), m["message"], lines[1], lines[2])


def source_line_of(pyfunc, marker):
    """(line number, source text) of the first line of the body of `pyfunc` containing `marker`."""
    import inspect

    lines, start = inspect.getsourcelines(pyfunc)
    header = next(k for k, text in enumerate(lines) if text.lstrip().startswith("def "))
    for offset, text in enumerate(lines[header + 1 :], header + 1):  # the body, not the def line
        if marker in text:
            return start + offset, text.rstrip("\n")
    raise AssertionError(f"{marker!r} is not in the source of {pyfunc.__name__}")


@pytest.fixture
def assert_compile_error():
    """assert_compile_error(exc, pyfunc, marker, *patterns):

    the error points at the line of `pyfunc` that contains `marker` (in the
    file that defines it), shows that line with a caret under the offending
    code (somewhere in `marker`), and its message matches every
    regex in `patterns` (case-insensitive)."""
    import inspect

    def check(exc, pyfunc, marker, *patterns):
        import cudajit as cuda

        assert isinstance(
            exc, cuda.CompileError
        ), f"expected CompileError, got {type(exc).__name__}: {exc}"
        file, line, col, message, source, caret = parse_compile_error(exc)
        expected_line, expected_source = source_line_of(pyfunc, marker)
        expected_file = inspect.getsourcefile(pyfunc)
        assert os.path.basename(file) == os.path.basename(expected_file), str(exc)
        assert (
            line == expected_line
        ), f"expected line {expected_line} ({expected_source.strip()!r}), got:\n{exc}"
        assert expected_source.strip() in source, f"second line is the source line:\n{exc}"
        assert caret.strip() and set(caret.strip()) <= set(
            "^~"
        ), f"third line is a caret, got {caret!r}:\n{exc}"
        marker_at = source.index(marker)
        assert (
            marker_at <= caret.index("^") < marker_at + len(marker)
        ), f"caret is not under {marker!r}:\n{exc}"
        for pattern in patterns:
            assert re.search(
                pattern, message, re.IGNORECASE
            ), f"message does not match {pattern!r}:\n{exc}"
        return message

    return check


# --- data and launch helpers shared by the kernel tests ------------------

import numpy as np  # noqa: E402

ALL_DTYPES = [
    np.bool_,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.uint16,
    np.uint32,
    np.uint64,
    np.float32,
    np.float64,
    np.complex64,
    np.complex128,
]
INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOAT_DTYPES = [np.float32, np.float64]
COMPLEX_DTYPES = [np.complex64, np.complex128]


def dtype_id(dtype):
    return np.dtype(dtype).name


def random_array(dtype, shape, seed=0):
    """Values that exercise `dtype`: both signs, the extremes of integer types,
    fractions for floats, distinct real and imaginary parts for complex."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    size = int(np.prod(shape, dtype=np.int64))
    if dtype == np.bool_:
        flat = rng.integers(0, 2, size).astype(np.bool_)
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        flat = rng.integers(info.min, info.max, size, dtype=dtype, endpoint=True)
        flat[: min(size, 2)] = [info.min, info.max][: min(size, 2)]
    elif dtype.kind == "f":
        flat = (rng.standard_normal(size) * 100).astype(dtype)
    else:
        flat = (rng.standard_normal(size) * 100 + 1j * rng.standard_normal(size) * 100).astype(
            dtype
        )
    return flat.reshape(shape)


LAYOUTS = ["C", "F", "step2", "subarray", "moveaxis", "reversed"]


def in_layout(values, layout):
    """A view equal to `values` whose memory layout is `layout`:

    C / F: contiguous; step2: every other element of a larger array along each
    axis (a[::2, ::2]); subarray: an interior block of a larger array (a slice
    of a 2-D array); moveaxis: axes permuted (a.T for 2-D); reversed: negative
    strides on every axis (a[::-1])."""
    values = np.asarray(values)
    ndim = values.ndim
    if layout == "C":
        view = np.ascontiguousarray(values)
    elif layout == "F":
        view = np.asfortranarray(values)
    elif layout == "step2":
        base = np.zeros(tuple(2 * n + 1 for n in values.shape), values.dtype)
        view = base[(slice(None, None, 2),) * ndim][tuple(slice(0, n) for n in values.shape)]
        view[...] = values
    elif layout == "subarray":
        base = np.zeros(tuple(n + 3 for n in values.shape), values.dtype)
        view = base[tuple(slice(1, 1 + n) for n in values.shape)]
        view[...] = values
    elif layout == "moveaxis":
        view = np.moveaxis(np.ascontiguousarray(np.moveaxis(values, 0, -1)), -1, 0)
    elif layout == "reversed":
        flip = (slice(None, None, -1),) * ndim
        view = np.ascontiguousarray(values[flip])[flip]
    else:
        raise ValueError(layout)
    assert np.array_equal(view, values)
    return view


def cover(shape, block):
    """griddim that covers `shape` with blocks of `block` threads (per axis)."""
    return tuple(-(-n // b) for n, b in zip(shape, block))


def launch_1d(kernel, n, *args, block=32):
    """Launches `kernel` over at least n threads in one dimension."""
    kernel[max(1, -(-n // block)), block](*args)


def module_from_source(tmp_path, name, source):
    """Imports `source` as module `name` from a file under tmp_path: a kernel
    written for one test still has a source file for cudajit's front end."""
    import importlib.util

    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def kernel_from_body(params, body, **names):
    """The Python function `def kernel(params): body` (one line, or lines joined by
    newlines and indented as a body), its globals `names` (cuda by default): a kernel
    written out per test case, compiled from the text exec saw."""
    import cudajit

    scope = {"cuda": cudajit, **names}
    lines = "\n".join("    " + line for line in body.split("\n"))
    exec(f"def kernel({params}):\n{lines}\n", scope)  # noqa: S102
    return scope["kernel"]


def assert_bits_equal_any_nan(actual, expected, as_float):
    """Bit patterns equal, except that where `expected` is a NaN any NaN will do: the PTX ISA
    leaves the NaN an arithmetic instruction or conversion makes unspecified (the H200 gives
    the canonical 0x7fff for float16 and bfloat16, the cpu device keeps sign and payload).
    `as_float` turns an array of bits into the floats they encode."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    nan = np.isnan(as_float(expected))
    np.testing.assert_array_equal(np.isnan(as_float(actual)), nan)
    np.testing.assert_array_equal(actual[~nan], expected[~nan])


def cpu_masks_bytes():
    """Whether this machine's CPU stores masked vectors of bytes (x86's AVX-512BW): only
    there does the cpu device run loops in lockstep (cudajit.compiler's host_masks_bytes).
    Not when the suite runs compiled for another CPU (CUDAJIT_CPU_NAME, _FEATURES)."""
    if os.environ.get("CUDAJIT_CPU_NAME", "native") not in ("native", "host", "") or \
            os.environ.get("CUDAJIT_CPU_FEATURES"):
        return False
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return platform.machine() == "x86_64" and " avx512bw" in flags


needs_lockstep = pytest.mark.skipif(not cpu_masks_bytes(),
                                    reason="lockstep loops need AVX-512BW's masked byte stores")


def environment_of_this_cpu(**env):
    """os.environ for a child process, without a CPU the suite was told to compile for
    (the tests that choose one start from this machine's own), and with `env`."""
    base = {k: v for k, v in os.environ.items()
            if k not in ("CUDAJIT_CPU_NAME", "CUDAJIT_CPU_FEATURES")}
    return dict(base, **env)


def host_cpu_flags():
    """This machine's CPU flags, as /proc/cpuinfo names them (avx2, avx512bw, ...)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def run_on_cpu_device(script, **env):
    """`script` in a fresh Python on the cpu device, with `env` (a CPU to compile for: the
    choice is made once, at a process's first compile)."""
    environment = environment_of_this_cpu(
        CUDAJIT_DEVICE="cpu", PYTHONPATH=str(Path(cudajit.__file__).parents[1]), **env)
    return subprocess.run([sys.executable, "-W", "ignore", "-c", script], env=environment,
                          capture_output=True, text=True, timeout=600)


def cpu_dump_paths(tmp_path, test_file, names, script, dump="cpu"):
    """CUDAJIT_DUMP=cpu's account of how each kernel's blocks run, by kernel name (with
    dump="host", the optimised host module of each entry, by entry name). The kernels and
    device functions `names` of `test_file` (each a `@cuda.jit` function up to the next two
    blank lines) take the place of `{kernels}` in `script`, which launches them; it runs in a fresh interpreter on the cpu
    device, as the dump is chosen once per process."""
    import textwrap
    from pathlib import Path

    source = Path(test_file).read_text()
    def start(name):  # a kernel, or a device function
        found = source.find(f"@cuda.jit\ndef {name}(")
        return found if found >= 0 else source.index(f"@cuda.jit(device=True)\ndef {name}(")

    kernels = [textwrap.dedent(source[start(name):].split("\n\n\n")[0]) for name in names]
    path = tmp_path / "kernels.py"
    path.write_text(script.format(kernels="\n\n\n".join(kernels)))
    env = dict(os.environ, CUDAJIT_DEVICE="cpu", CUDAJIT_DUMP=dump,
               PYTHONPATH=str(Path(cudajit.__file__).parents[1]))
    result = subprocess.run([sys.executable, "-W", "ignore", str(path)], env=env,
                            capture_output=True, text=True, check=True)
    paths = {}
    for chunk in result.stderr.split(f"=== cudajit {dump}: ")[1:]:
        name, text = chunk.split(" ===\n", 1)
        paths[name] = text.strip()
    return paths
