"""Where the compiler finds libdevice: $CUDAJIT_LIBDEVICE alone when set, else CUDA_HOME,
CUDA_PATH, NVIDIA's pip wheels (site-packages/nvidia/cu13 or cuda_nvcc), the build's
toolkit, /usr/local/cuda; and the error that says how to install it. Each case runs in a
fresh interpreter: the search roots are set when cudajit is imported."""

import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cudajit as cuda
from conftest import cuda_device_setting

PACKAGE_ROOT = Path(cuda.__file__).resolve().parent.parent

try:
    REAL_LIBDEVICE = cuda.libdevice_search.libdevice_path()
except RuntimeError:
    REAL_LIBDEVICE = None
needs_libdevice = pytest.mark.skipif(REAL_LIBDEVICE is None, reason="no libdevice on this machine")


def run(code: str, env_changes: dict, extra_path: list[str] = ()) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_HOME", "CUDA_PATH")}
    env.update(env_changes)
    env["PYTHONPATH"] = os.pathsep.join([*extra_path, str(PACKAGE_ROOT)])
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120)


def fake_wheel(site: Path, name: str) -> Path:
    """site/nvidia/<name>/nvvm/libdevice/libdevice.10.bc, as NVIDIA's wheels lay it out."""
    target = site / "nvidia" / name / "nvvm" / "libdevice" / "libdevice.10.bc"
    target.parent.mkdir(parents=True)
    shutil.copyfile(REAL_LIBDEVICE, target)
    return target


@needs_libdevice
@pytest.mark.parametrize("wheel", ["cu13", "cuda_nvcc"])
def test_an_nvidia_wheel_is_found_before_the_toolkits_usual_places(tmp_path, wheel):
    expected = fake_wheel(tmp_path, wheel)
    result = run("import cudajit; print(cudajit.libdevice_search.libdevice_path())", {},
                 [str(tmp_path)])
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(expected)


@needs_libdevice
def test_cuda_home_comes_before_the_wheels(tmp_path):
    fake_wheel(tmp_path / "site", "cu13")
    home = tmp_path / "toolkit"
    chosen = home / "nvvm" / "libdevice" / "libdevice.10.bc"
    chosen.parent.mkdir(parents=True)
    shutil.copyfile(REAL_LIBDEVICE, chosen)
    result = run("import cudajit; print(cudajit.libdevice_search.libdevice_path())",
                 {"CUDA_HOME": str(home)}, [str(tmp_path / "site")])
    assert result.stdout.strip() == str(chosen), result.stderr


@needs_libdevice
def test_cudajit_libdevice_names_the_file(tmp_path):
    chosen = tmp_path / "my-libdevice.bc"
    shutil.copyfile(REAL_LIBDEVICE, chosen)
    result = run("import cudajit; print(cudajit.libdevice_search.libdevice_path())",
                 {"CUDAJIT_LIBDEVICE": str(chosen)})
    assert result.stdout.strip() == str(chosen), result.stderr


def test_a_math_kernel_without_libdevice_says_how_to_install_it(tmp_path):
    missing = tmp_path / "nowhere" / "libdevice.10.bc"
    code = """
import math, numpy as np, cudajit as cuda
@cuda.jit
def k(x):
    x[0] = math.sin(x[0])
@cuda.jit
def plain(x):
    x[0] = x[0] * 2.0
x = np.ones(1)
plain[1, 1](x)  # kernels without math functions need no libdevice
assert x[0] == 2.0
try:
    k[1, 1](x)
except Exception as e:
    print(type(e).__name__, e)
"""
    result = run(code, {"CUDAJIT_LIBDEVICE": str(missing), "CUDAJIT_DEVICE": cuda_device_setting(),
                        "CUDAJIT_CACHE_DIR": str(tmp_path / "cache")})
    assert result.returncode == 0, result.stderr
    assert "libdevice.10.bc" in result.stdout and str(missing) in result.stdout
    assert "pip install nvidia-nvvm" in result.stdout


def test_the_cpu_device_needs_no_libdevice(tmp_path):
    code = """
import math, numpy as np, cudajit as cuda
@cuda.jit
def k(x):
    x[0] = math.sin(x[0])
x = np.ones(1)
k[1, 1](x)
print(x[0])
"""
    result = run(code, {"CUDAJIT_LIBDEVICE": str(tmp_path / "none.bc"), "CUDAJIT_DEVICE": "cpu",
                        "CUDAJIT_CACHE_DIR": str(tmp_path / "cache")})
    assert result.returncode == 0, result.stderr
    assert float(result.stdout) == pytest.approx(math.sin(1.0), rel=1e-15)
