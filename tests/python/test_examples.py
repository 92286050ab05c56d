"""Every script in examples/ runs to success (each checks its own result against
NumPy and exits non-zero on a mismatch), on the cpu device and on the cuda
device (the simulated GPU where there is no GPU), each in a process of its own."""

import importlib.util
import os
import pathlib
import subprocess
import sys

import pytest

import cudajit

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
PYTHON_DIR = os.path.dirname(os.path.dirname(cudajit.__file__))


@pytest.mark.parametrize("device", ["cpu", "cuda"])
@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs_and_matches_numpy(script, device):
    if script.stem.startswith("dask_") and importlib.util.find_spec("dask") is None:
        pytest.skip("needs dask, not installed (scripts/install-deps.sh installs it)")
    # cudajit first; what PYTHONPATH held stays (packages carried onto a GPU machine).
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [PYTHON_DIR] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    if device == "cpu":
        env["CUDAJIT_DEVICE"] = "cpu"
    elif "CUDAJIT_LIBCUDA" in os.environ:  # conftest's simulated GPU: no GPU here
        env["CUDAJIT_DEVICE"] = "sim"
    else:
        env["CUDAJIT_DEVICE"] = "cuda"
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            env=env, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "MISMATCH" not in result.stdout
    expected_kind = "cpu" if device == "cpu" else "cuda"
    assert f"device: {expected_kind} (" in result.stdout, result.stdout  # it ran where asked
