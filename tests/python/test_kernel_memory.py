"""Kernels defined in a loop are freed with their dispatchers (issue 28 §7): the C++
Dispatcher holds a bound method of its Python object (the IR provider), a cycle the
garbage collector now sees (tp_traverse), so neither leaks; identical kernels share their
compiled code (the code cache, bounded at 256 kernels). Bounded, not timed: the growth of
the process's resident memory over N definitions stays under a generous bound."""

import gc
import os
import subprocess
import sys
import weakref

import numpy as np

import cudajit as cuda

PYTHON_DIR = os.path.dirname(os.path.dirname(cuda.__file__))


def define_kernel():
    @cuda.jit
    def index(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = i

    return index


def test_a_dispatcher_nobody_holds_is_collected(device):
    out = cuda.device_array(32, dtype=np.int64)
    launched, unlaunched = define_kernel(), define_kernel()
    launched[1, 32](out)
    cuda.synchronize()
    refs = [weakref.ref(launched), weakref.ref(unlaunched)]
    del launched, unlaunched
    gc.collect()
    assert [r() for r in refs] == [None, None]


RSS_SCRIPT = """
import gc
import cudajit as cuda

def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096

def define_kernel():
    @cuda.jit
    def index(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = i
    return index

out = cuda.device_array(32)
for _ in range(200):  # warm: allocator pools, caches
    define_kernel()[1, 32](out)
cuda.synchronize()
gc.collect()
before = rss()
N = 4000
for _ in range(N):
    define_kernel()[1, 32](out)
cuda.synchronize()
gc.collect()
print("bytes per kernel", (rss() - before) / N)
"""


def test_kernels_defined_in_a_loop_do_not_grow_memory():
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR, CUDAJIT_DEVICE="cpu")
    result = subprocess.run([sys.executable, "-c", RSS_SCRIPT], env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    per_kernel = float(result.stdout.split()[-1])
    # Before the fix: about 6.7 KB per kernel. A generous bound against noise.
    assert per_kernel < 1024, result.stdout
