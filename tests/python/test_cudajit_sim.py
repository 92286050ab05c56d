"""``cudajit-sim``: any program gets the simulated GPU as its CUDA driver (libcuda.so.1).

Each test runs a program in a subprocess under ``python -m cudajit.sim``: a ctypes client that
resolves the driver as cuda.bindings and cuda.core do (cuGetProcAddress_v2), links PTX with
cuLink* and launches through cuLibrary*/cuLaunchKernelEx; and cudajit itself, which then finds
a GPU without being told to simulate one.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# Where the cudajit under test is (this tree's python/, or an installed wheel's site-packages),
# found without importing it.
PYTHON_DIR = Path(importlib.util.find_spec("cudajit").origin).parents[1]


def run_under_sim(code: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(PYTHON_DIR)}
    env.pop("CUDAJIT_DEVICE", None)
    env.pop("CUDAJIT_DRIVER_LIBRARY", None)
    return subprocess.run([sys.executable, "-m", "cudajit.sim", *args, sys.executable, "-c",
                           textwrap.dedent(code)], env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_print_env_names_the_driver_folder_and_preload():
    env = {**os.environ, "PYTHONPATH": str(PYTHON_DIR)}
    out = subprocess.run([sys.executable, "-m", "cudajit.sim", "--print-env"], env=env,
                         capture_output=True, text=True, check=True).stdout
    lines = dict(line.removeprefix("export ").split("=", 1) for line in out.splitlines())
    folder = Path(lines["LD_LIBRARY_PATH"].split(":")[0])
    assert (folder / "libcuda.so.1").resolve().name == "libcudajit_sim.so"
    assert (folder / "libnvJitLink.so.13").resolve() == (folder / "libcuda.so.1").resolve()
    assert lines["LD_PRELOAD"] == "libnvJitLink.so.13"


def test_usage_errors_are_clear():
    env = {**os.environ, "PYTHONPATH": str(PYTHON_DIR)}
    bad = subprocess.run([sys.executable, "-m", "cudajit.sim", "--frobnicate"], env=env,
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown option '--frobnicate'" in bad.stderr
    missing = subprocess.run([sys.executable, "-m", "cudajit.sim", "no-such-program-xyz"],
                             env=env, capture_output=True, text=True)
    assert missing.returncode == 127 and "cannot run 'no-such-program-xyz'" in missing.stderr


# A ctypes client of the driver, written as cuda.bindings resolves it: only
# cuGetProcAddress_v2 is looked up by name.
CLIENT = r'''
import ctypes
lib = ctypes.CDLL("libcuda.so.1")
getter = lib.cuGetProcAddress_v2
getter.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_int,
                   ctypes.c_uint64, ctypes.POINTER(ctypes.c_int)]

def entry(name, version=13000, *argtypes):
    p, status = ctypes.c_void_p(), ctypes.c_int(-1)
    assert getter(name.encode(), ctypes.byref(p), version, 0, ctypes.byref(status)) == 0, name
    assert status.value == 0 and p.value, name
    return ctypes.CFUNCTYPE(ctypes.c_int, *argtypes)(p.value)

V, P, I, U, S = ctypes.c_void_p, ctypes.POINTER, ctypes.c_int, ctypes.c_uint, ctypes.c_size_t
assert entry("cuInit", 2000, U)(0) == 0
count = I()
assert entry("cuDeviceGetCount", 2000, P(I))(ctypes.byref(count)) == 0 and count.value == 1
ctx = V()
assert entry("cuDevicePrimaryCtxRetain", 7000, P(V), I)(ctypes.byref(ctx), 0) == 0
assert entry("cuCtxSetCurrent", 4000, V)(ctx) == 0

# cuMemAlloc as of CUDA 3.2 is cuMemAlloc_v2 (64-bit pointers); as of 2.0 it is the 32-bit
# v1, which the simulated GPU does not offer: a stub that says so.
ptr = ctypes.c_uint64()
assert entry("cuMemAlloc", 3020, P(ctypes.c_uint64), S)(ctypes.byref(ptr), 64) == 0 and ptr.value
old = entry("cuMemAlloc", 2000, P(ctypes.c_uint64), S)
print("v1", old(ctypes.byref(ptr), 64), old(ctypes.byref(ptr), 64))
unknown = entry("cuGraphCreate", 10000, P(V), U)
print("unknown", unknown(ctypes.byref(V()), 0))

# Two PTX modules linked with cuLink*: a kernel calls a device function of the other.
caller = b""".version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b32 r) twice(.param .b32 x);
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  { .param .b32 a; st.param.b32 [a], %r1; .param .b32 ret;
    call.uni (ret), twice, (a); ld.param.b32 %r2, [ret]; }
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
"""
callee = b""".version 8.0
.target sm_80
.address_size 64
.visible .func (.param .b32 r) twice(.param .b32 x) {
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [x];
  add.s32 %r2, %r1, %r1;
  st.param.b32 [r], %r2;
  ret;
}
"""
state = V()
assert entry("cuLinkCreate", 6050, U, V, V, P(V))(0, None, None, ctypes.byref(state)) == 0
add = entry("cuLinkAddData", 6050, V, I, ctypes.c_char_p, S, ctypes.c_char_p, U, V, V)
assert add(state, 1, caller, len(caller), b"caller.ptx", 0, None, None) == 0
assert add(state, 1, callee, len(callee), b"callee.ptx", 0, None, None) == 0
image, size = V(), S()
assert entry("cuLinkComplete", 5050, V, P(V), P(S))(state, ctypes.byref(image),
                                                     ctypes.byref(size)) == 0
library, kernel, function = V(), V(), V()
assert entry("cuLibraryLoadData", 12000, P(V), V, V, V, U, V, V, U)(
    ctypes.byref(library), image, None, None, 0, None, None, 0) == 0
assert entry("cuLinkDestroy", 5050, V)(state) == 0
assert entry("cuLibraryGetKernel", 12000, P(V), V, ctypes.c_char_p)(
    ctypes.byref(kernel), library, b"k") == 0
assert entry("cuKernelGetFunction", 12000, P(V), V)(ctypes.byref(function), kernel) == 0

class LaunchConfig(ctypes.Structure):
    _fields_ = [("grid", U * 3), ("block", U * 3), ("shared", U), ("stream", V),
                ("attrs", V), ("num_attrs", U)]

out = ctypes.c_uint64()
assert entry("cuMemAlloc", 3020, P(ctypes.c_uint64), S)(ctypes.byref(out), 32 * 4) == 0
config = LaunchConfig((U * 3)(1, 1, 1), (U * 3)(32, 1, 1), 0, None, None, 0)
arg = ctypes.c_uint64(out.value)
params = (V * 1)(ctypes.cast(ctypes.byref(arg), V))
assert entry("cuLaunchKernelEx", 11060, P(LaunchConfig), V, P(V), P(V))(
    ctypes.byref(config), function, params, None) == 0
host = (ctypes.c_uint32 * 32)()
assert entry("cuMemcpyDtoH", 3020, V, ctypes.c_uint64, S)(host, out.value, 32 * 4) == 0
print("result", list(host))
'''


def test_a_driver_client_links_and_launches_through_get_proc_address():
    done = run_under_sim(CLIENT)
    assert done.returncode == 0, done.stderr
    assert "v1 801 801" in done.stdout  # CUDA_ERROR_NOT_SUPPORTED
    assert "unknown 801" in done.stdout
    assert f"result {[2 * i for i in range(32)]}" in done.stdout
    # Each stub names itself once, however often it is called.
    assert done.stderr.count("cuMemAlloc (as of CUDA 2.0) is not implemented") == 1
    assert done.stderr.count("cuGraphCreate is not implemented") == 1


def test_cudajit_under_the_simulator_runs_on_the_same_simulated_gpu():
    done = run_under_sim("""
        import numpy as np
        import cudajit as cuda

        @cuda.jit
        def add_one(x):
            i = cuda.grid(1)
            if i < x.size:
                x[i] += 1

        x = np.arange(100, dtype=np.float32)
        add_one[4, 32](x)
        print(cuda.get_current_device().name, bool(np.array_equal(x, np.arange(100) + 1)))
    """)
    assert done.returncode == 0, done.stderr
    assert "cudajit simulated GPU" in done.stdout and done.stdout.strip().endswith("True")


@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_help_describes_the_command(flag):
    env = {**os.environ, "PYTHONPATH": str(PYTHON_DIR)}
    out = subprocess.run([sys.executable, "-m", "cudajit.sim", flag], env=env,
                         capture_output=True, text=True, check=True).stdout
    assert "usage: cudajit-sim" in out and "--print-env" in out


def test_a_child_forked_after_the_driver_started_gets_not_initialized():
    # As CUDA's driver: the child has none of the driver's threads, so every call fails
    # (numba-cuda turns this into "CUDA initialized before forking"), and the parent goes on.
    done = run_under_sim("""
        import ctypes, os
        lib = ctypes.CDLL("libcuda.so.1")
        assert lib.cuInit(0) == 0
        pid = os.fork()
        if pid == 0:
            n = ctypes.c_int()
            os._exit(10 * lib.cuInit(0) + lib.cuDeviceGetCount(ctypes.byref(n)))
        _, status = os.waitpid(pid, 0)
        n = ctypes.c_int()
        print("child", os.waitstatus_to_exitcode(status), "parent",
              lib.cuDeviceGetCount(ctypes.byref(n)), n.value)
    """)
    assert done.returncode == 0, done.stderr
    assert "child 33 parent 0 1" in done.stdout  # CUDA_ERROR_NOT_INITIALIZED twice


def test_cooperative_launches_sync_the_grid_up_to_the_occupancy_limit():
    # The device runtime's grid sync (libcudadevrt's cudaCGSynchronize calls the driver's
    # __cuda_syscall_CGS_sync): every block of a cooperative grid must be resident, so the
    # driver takes up to cuOccupancyMaxActiveBlocksPerMultiprocessor x the multiprocessors and
    # refuses more with CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE (720), as cuLaunchKernelEx with
    # CU_LAUNCH_ATTRIBUTE_COOPERATIVE does; a plain launch's grid has no handle to sync.
    done = run_under_sim(r'''
        import ctypes
        lib = ctypes.CDLL("libcuda.so.1")
        V, P, U = ctypes.c_void_p, ctypes.POINTER, ctypes.c_uint
        assert lib.cuInit(0) == 0
        ctx = V()
        assert lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 0) == 0
        assert lib.cuCtxSetCurrent(ctx) == 0
        ptx = b""".version 8.0
        .target sm_80
        .address_size 64
        .extern .func (.param .b64 h) __cuda_syscall_CGS_get_intrinsic_handle(.param .b32 s);
        .extern .func (.param .b32 e) __cuda_syscall_CGS_sync(.param .b64 h, .param .b32 f);
        .visible .entry k(.param .u64 m) {
          .reg .pred %p;
          .reg .b32 %r<10>;
          .reg .b64 %rd<8>, %h;
          ld.param.u64 %rd1, [m];
          mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x;
          mad.lo.u32 %r4, %r1, %r2, %r3; mov.u32 %r5, %nctaid.x; mul.lo.u32 %r5, %r5, %r2;
          { .param .b32 s; st.param.b32 [s], 1; .param .b64 h;
            call.uni (h), __cuda_syscall_CGS_get_intrinsic_handle, (s); ld.param.b64 %h, [h]; }
          setp.eq.u64 %p, %h, 0;
          @%p bra DONE;
          mul.wide.u32 %rd2, %r4, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r4;
          { .param .b64 h; st.param.b64 [h], %h; .param .b32 f; st.param.b32 [f], 0;
            .param .b32 e; call.uni (e), __cuda_syscall_CGS_sync, (h, f); }
          sub.u32 %r6, %r5, %r4; sub.u32 %r6, %r6, 1; mul.wide.u32 %rd4, %r6, 4;
          add.s64 %rd5, %rd1, %rd4; ld.global.u32 %r7, [%rd5]; add.u32 %r7, %r7, 1;
          { .param .b64 h; st.param.b64 [h], %h; .param .b32 f; st.param.b32 [f], 0;
            .param .b32 e; call.uni (e), __cuda_syscall_CGS_sync, (h, f); }
          st.global.u32 [%rd3], %r7;
        DONE:
          ret;
        }
        """ + b"\0"
        module, f = V(), V()
        assert lib.cuModuleLoadData(ctypes.byref(module), ptx) == 0
        assert lib.cuModuleGetFunction(ctypes.byref(f), module, b"k") == 0
        per_sm, sms = ctypes.c_int(), ctypes.c_int()
        assert lib.cuOccupancyMaxActiveBlocksPerMultiprocessor(ctypes.byref(per_sm), f, 1024,
                                                               ctypes.c_size_t(0)) == 0
        assert lib.cuDeviceGetAttribute(ctypes.byref(sms), 16, 0) == 0  # MULTIPROCESSOR_COUNT
        blocks = per_sm.value * sms.value
        n = blocks * 1024
        out = ctypes.c_uint64()
        assert lib.cuMemAlloc_v2(ctypes.byref(out), ctypes.c_size_t(n * 4)) == 0
        assert lib.cuMemsetD8_v2(out, 0, ctypes.c_size_t(n * 4)) == 0
        arg = ctypes.c_uint64(out.value)
        params = (V * 1)(ctypes.cast(ctypes.byref(arg), V))
        launch = lib.cuLaunchCooperativeKernel
        launch.argtypes = [V, U, U, U, U, U, U, U, V, V]
        print("too large", launch(f, blocks + 1, 1, 1, 1024, 1, 1, 0, None, params))
        assert launch(f, blocks, 1, 1, 1024, 1, 1, 0, None, params) == 0
        assert lib.cuCtxSynchronize() == 0
        host = (ctypes.c_uint32 * n)()
        assert lib.cuMemcpyDtoH_v2(host, out, ctypes.c_size_t(n * 4)) == 0
        print("per_sm", per_sm.value, "synced", all(host[t] == n - t for t in range(n)))

        class Attribute(ctypes.Structure):
            _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_int), ("value", ctypes.c_int * 16)]
        class Config(ctypes.Structure):
            _fields_ = [("grid", U * 3), ("block", U * 3), ("shared", U), ("stream", V),
                        ("attrs", V), ("num_attrs", U)]
        attribute = Attribute(2, 0, (ctypes.c_int * 16)(1))  # CU_LAUNCH_ATTRIBUTE_COOPERATIVE
        config = Config((U * 3)(blocks + 1, 1, 1), (U * 3)(1024, 1, 1), 0, None,
                        ctypes.cast(ctypes.byref(attribute), V), 1)
        print("ex too large", lib.cuLaunchKernelEx(ctypes.byref(config), f, params, None))
        config.grid[0] = 4
        assert lib.cuMemsetD8_v2(out, 0, ctypes.c_size_t(n * 4)) == 0
        assert lib.cuLaunchKernel(f, 4, 1, 1, 1024, 1, 1, 0, None, params, None) == 0
        assert lib.cuCtxSynchronize() == 0
        assert lib.cuMemcpyDtoH_v2(host, out, ctypes.c_size_t(16 * 4)) == 0
        print("plain launch wrote", sum(host[:16]))
        assert lib.cuLaunchKernelEx(ctypes.byref(config), f, params, None) == 0
        assert lib.cuCtxSynchronize() == 0
        assert lib.cuMemcpyDtoH_v2(host, out, ctypes.c_size_t(4 * 1024 * 4)) == 0
        print("ex synced", all(host[t] == 4 * 1024 - t for t in range(4 * 1024)))
    ''', timeout=300)
    assert done.returncode == 0, done.stderr
    assert "too large 720" in done.stdout and "ex too large 720" in done.stdout
    assert "per_sm 2 synced True" in done.stdout  # 2048 threads per multiprocessor
    assert "plain launch wrote 0" in done.stdout and "ex synced True" in done.stdout


def test_created_contexts_are_pushed_used_and_destroyed():
    # cuCtxCreate (v4 as CUDA 13 names it, v2 before) makes a context of its own and pushes it;
    # cuCtxDestroy frees it and pops it where it is current; a thread it stays current to gets
    # CUDA_ERROR_CONTEXT_IS_DESTROYED (709).
    done = run_under_sim(r'''
        import ctypes
        lib = ctypes.CDLL("libcuda.so.1")
        V = ctypes.c_void_p
        assert lib.cuInit(0) == 0
        primary = V()
        assert lib.cuDevicePrimaryCtxRetain(ctypes.byref(primary), 0) == 0
        assert lib.cuCtxSetCurrent(primary) == 0
        created, current = V(), V()
        assert lib.cuCtxCreate_v4(ctypes.byref(created), None, 0, 0) == 0
        assert lib.cuCtxGetCurrent(ctypes.byref(current)) == 0
        print("created is current", current.value == created.value != primary.value)
        ids = [ctypes.c_ulonglong(), ctypes.c_ulonglong()]
        assert lib.cuCtxGetId(primary, ctypes.byref(ids[0])) == 0
        assert lib.cuCtxGetId(created, ctypes.byref(ids[1])) == 0
        print("ids differ", ids[0].value != ids[1].value)
        ptx = b""".version 8.0
        .target sm_80
        .address_size 64
        .visible .entry k(.param .u64 out) {
          .reg .b32 %r1;
          .reg .b64 %rd<2>;
          ld.param.u64 %rd1, [out];
          mov.u32 %r1, 42;
          st.global.u32 [%rd1], %r1;
          ret;
        }
        """ + b"\0"
        module, f, out = V(), V(), ctypes.c_uint64()
        assert lib.cuModuleLoadData(ctypes.byref(module), ptx) == 0
        assert lib.cuModuleGetFunction(ctypes.byref(f), module, b"k") == 0
        assert lib.cuMemAlloc_v2(ctypes.byref(out), ctypes.c_size_t(4)) == 0
        arg = ctypes.c_uint64(out.value)
        params = (V * 1)(ctypes.cast(ctypes.byref(arg), V))
        assert lib.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, None, params, None) == 0
        value = ctypes.c_uint32()
        assert lib.cuMemcpyDtoH_v2(ctypes.byref(value), out, ctypes.c_size_t(4)) == 0
        print("launched in it", value.value)
        print("bad flags", lib.cuCtxCreate_v2(ctypes.byref(V()), 3, 0))  # SPIN | YIELD
        assert lib.cuCtxPushCurrent_v2(created) == 0  # current twice on this thread's stack
        assert lib.cuCtxDestroy_v2(created) == 0
        print("still below", lib.cuCtxSynchronize(), lib.cuMemAlloc_v2(ctypes.byref(out), 4))
        popped = V()
        assert lib.cuCtxPopCurrent_v2(ctypes.byref(popped)) == 0
        assert lib.cuCtxGetCurrent(ctypes.byref(current)) == 0
        print("back to primary", current.value == primary.value, lib.cuCtxSynchronize())
        print("destroyed handle", lib.cuCtxSetCurrent(created), lib.cuCtxDestroy_v2(created),
              lib.cuCtxDestroy_v2(primary))
    ''')
    assert done.returncode == 0, done.stderr
    assert "created is current True" in done.stdout and "ids differ True" in done.stdout
    assert "launched in it 42" in done.stdout and "bad flags 1" in done.stdout
    assert "still below 709 709" in done.stdout and "back to primary True 0" in done.stdout
    assert "destroyed handle 201 201 201" in done.stdout  # CUDA_ERROR_INVALID_CONTEXT
