"""CUDAJIT_DISABLE_CUDA, or Numba's NUMBA_DISABLE_CUDA, set (to anything but 0): the driver
is never loaded; cuda.cuda_error() says why, a cuda device asked for by CUDAJIT_DEVICE is a
CudaSupportError (with Numba's ``.msg``), and by default kernels run on the cpu device."""

import os
import subprocess
import sys

import pytest

import cudajit as cuda

PROGRAM = """
import cudajit as cuda
print("error:", cuda.cuda_error())
print("available:", cuda.is_available())
try:
    d = cuda.device_array(1)
except cuda.CudaSupportError as e:
    print("refused:", e.msg)
else:
    print("device:", d.device.kind)
"""


def run(variables, device=None):
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(cuda.__file__)),
               **variables)
    for name in ("CUDAJIT_DEVICE", "CUDAJIT_DISABLE_CUDA", "NUMBA_DISABLE_CUDA"):
        if name not in variables:
            env.pop(name, None)
    if device:
        env["CUDAJIT_DEVICE"] = device
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", PROGRAM], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("name", ["NUMBA_DISABLE_CUDA", "CUDAJIT_DISABLE_CUDA"])
def test_disabled_cuda_is_reported_and_kernels_use_the_cpu_device(name):
    out = run({name: "1"})
    assert f"error: CUDA is disabled due to setting {name}=1" in out
    assert "available: False" in out and "device: cpu" in out


def test_a_cuda_device_asked_for_while_disabled_is_a_support_error():
    out = run({"NUMBA_DISABLE_CUDA": "1"}, device="sim")
    assert ("refused: CUDAJIT_DEVICE=sim, but the cuda device is unavailable: CUDA is disabled "
            "due to setting NUMBA_DISABLE_CUDA=1") in out


def test_zero_disables_nothing():
    out = run({"NUMBA_DISABLE_CUDA": "0"})
    assert "CUDA is disabled" not in out


def test_support_errors_msg_is_its_message():
    assert cuda.CudaSupportError("no GPU").msg == "no GPU"
