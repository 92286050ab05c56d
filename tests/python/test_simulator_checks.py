"""The simulated GPU's racecheck and initcheck (CUDAJIT_SIM_CHECK=race,init, or
``cudajit-sim --check``): a shared-memory race of a cudajit kernel is reported on stderr with
both source lines and threads, a read of device memory nothing wrote with its line; the kernel
runs on and its results arrive. Each runs in a process of its own, as the checks are chosen
when the simulated GPU loads."""

import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

from cudajit import _core

pytestmark = pytest.mark.skipif(
    not (_core.cuda_available() and _core.cuda_simulated()),
    reason="the cuda device is not the simulated GPU (a real GPU is present, or "
           "libcudajit_sim.so was not built)")

HERE = os.path.dirname(os.path.abspath(__file__))
# Where the cudajit under test is (this tree's python/, or an installed wheel's site-packages),
# found without importing it.
PYTHON_DIR = os.path.dirname(os.path.dirname(importlib.util.find_spec("cudajit").origin))

EXCHANGE = """\
    import numpy as np
    import cudajit as cuda


    @cuda.jit(lineinfo=True)
    def exchange(out):
        cells = cuda.shared.array(64, cuda.int32)
        t = cuda.threadIdx.x
        cells[t] = t
        {between}
        out[t] = cells[(t + 32) % 64]


    out = cuda.device_array(64, np.int32)
    exchange[1, 64](out)
    print("result", out.copy_to_host()[40])
    """


def run_script(tmp_path, text: str, **env) -> subprocess.CompletedProcess:
    source = tmp_path / "kernel.py"
    source.write_text(textwrap.dedent(text))
    environment = dict(os.environ, PYTHONPATH=PYTHON_DIR, CUDAJIT_DEVICE="sim", **env)
    return subprocess.run([sys.executable, str(source)], capture_output=True, text=True,
                          env=environment, timeout=120)


def test_racecheck_names_both_source_lines_of_a_race(tmp_path):
    result = run_script(tmp_path, EXCHANGE.format(between="pass"), CUDAJIT_SIM_CHECK="race")
    assert result.returncode == 0, result.stderr
    assert "result 8" in result.stdout  # reported, not stopped
    source = str(tmp_path / "kernel.py")
    assert ("racecheck: read-after-write hazard on shared memory (4 bytes at offset 0x0) in "
            "kernel 'exchange', block (0, 0, 0): thread (0, 0, 0) wrote at "
            f"{source}:9 (PTX line") in result.stderr
    assert f"thread (32, 0, 0) reads at {source}:11 (PTX line" in result.stderr
    assert "write-after-read hazard" in result.stderr
    assert result.stderr.count("racecheck:") == 2  # each pair of instructions once


def test_racecheck_is_silent_when_syncthreads_orders_the_accesses(tmp_path):
    result = run_script(tmp_path, EXCHANGE.format(between="cuda.syncthreads()"),
                        CUDAJIT_SIM_CHECK="race")
    assert result.returncode == 0, result.stderr
    assert "result 8" in result.stdout
    assert "racecheck" not in result.stderr


def test_checks_are_off_by_default(tmp_path):
    result = run_script(tmp_path, EXCHANGE.format(between="pass"))
    assert result.returncode == 0, result.stderr
    assert "racecheck" not in result.stderr


def test_initcheck_reports_a_read_of_device_memory_nothing_wrote(tmp_path):
    result = run_script(tmp_path, """\
        import numpy as np
        import cudajit as cuda


        @cuda.jit(lineinfo=True)
        def total(out, parts):
            i = cuda.grid(1)
            out[i] = parts[i] + 1


        parts = cuda.device_array(32, np.int32)   # never written
        out = cuda.device_array(32, np.int32)
        total[1, 32](out, parts)
        total[1, 32](parts, cuda.to_device(np.zeros(32, np.int32)))
        total[1, 32](out, parts)                   # written by the kernel now
        cuda.synchronize()
        print("done")
        """, CUDAJIT_SIM_CHECK="race,init")
    assert result.returncode == 0, result.stderr
    assert "done" in result.stdout
    assert result.stderr.count("initcheck:") == 1, result.stderr
    assert "of a device allocation of 128 bytes" in result.stderr
    assert "of memory nothing wrote since its allocation (in kernel 'total'" in result.stderr
    assert "kernel.py:8 (PTX line" in result.stderr


def test_an_unknown_check_is_named_once(tmp_path):
    result = run_script(tmp_path, EXCHANGE.format(between="cuda.syncthreads()"),
                        CUDAJIT_SIM_CHECK="race,memcheck")
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("CUDAJIT_SIM_CHECK: unknown check 'memcheck' ignored") == 1
