"""The warning that kernels run on the cpu device (no usable GPU) names the user's line that
first needed a device, whichever cudajit function that went through, once per process."""

import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
# Where the cudajit under test is (this tree's python/, or an installed wheel's site-packages),
# found without importing it.
PYTHON_DIR = os.path.dirname(os.path.dirname(importlib.util.find_spec("cudajit").origin))


def _run_without_a_gpu(tmp_path, program):
    from conftest import _real_gpu_present

    if _real_gpu_present():
        pytest.skip("this machine has a GPU: nothing falls back")
    script = tmp_path / "user_program.py"
    script.write_text(textwrap.dedent(program))
    env = {k: v for k, v in os.environ.items() if k not in ("CUDAJIT_LIBCUDA", "CUDAJIT_DEVICE")}
    result = subprocess.run([sys.executable, "-W", "always::RuntimeWarning", str(script)],
                            capture_output=True, text=True, timeout=120,
                            env=dict(env, PYTHONPATH=PYTHON_DIR))
    assert result.returncode == 0, result.stderr
    return str(script), [line for line in result.stderr.splitlines() if "RuntimeWarning" in line]


@pytest.mark.parametrize("first_use, line", [
    ("cuda.to_device(np.zeros(3))", 4),                     # through cudajit.api
    ("cuda.device_array(3)", 4),
    ("@cuda.jit('void(float64[::1])')\ndef k(x):\n    x[0] = 1", 4),  # an eager compile
])
def test_the_fallback_warning_names_the_users_line_once(tmp_path, first_use, line):
    program = "import numpy as np\nimport cudajit as cuda\n\n" + first_use + \
        "\ncuda.device_array(3)\ncuda.to_device(np.ones(2))\n"
    script, warnings = _run_without_a_gpu(tmp_path, program)
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith(f"{script}:{line}: RuntimeWarning: cudajit: no usable GPU"), \
        warnings
