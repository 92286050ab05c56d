"""A numba-cuda program for the simulated GPU: ``cudajit-sim python numba_program.py``.

Run by ``make compat`` (its numba-gpu check) with the compat environment's Python; it
uses numba-cuda itself (NVIDIA's NVVM compiles the kernels): ``cuda.jit``, device
arrays, a stream, events with timing, shared memory and a barrier, and ``link=`` of a
PTX file declaring a device function, each checked against NumPy. Prints one line per
check and exits non-zero if one fails.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np
from numba import cuda

TWICE_PTX = """\
.version 7.8
.target sm_80
.address_size 64

// numba's calling convention: the result through the first pointer, a status returned.
.visible .func (.param .b32 status) twice(.param .b64 result, .param .b32 x)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [result];
    ld.param.u32 %r1, [x];
    add.s32 %r2, %r1, %r1;
    st.u32 [%rd1], %r2;
    mov.u32 %r3, 0;
    st.param.b32 [status], %r3;
    ret;
}
"""


def main() -> int:
    results: list[bool] = []

    def check(name: str, ok: bool) -> None:
        results.append(ok)
        print(f"{'ok' if ok else 'FAILED'}: {name}", flush=True)

    check("numba.cuda.is_available()", cuda.is_available())

    @cuda.jit
    def saxpy(a, x, y, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]

    n = 10_000
    x = np.random.default_rng(1).random(n, dtype=np.float32)
    y = np.random.default_rng(2).random(n, dtype=np.float32)
    stream = cuda.stream()
    start, end = cuda.event(timing=True), cuda.event(timing=True)
    d_x, d_y = cuda.to_device(x, stream=stream), cuda.to_device(y, stream=stream)
    d_out = cuda.device_array_like(d_x, stream=stream)
    start.record(stream)
    saxpy[(n + 127) // 128, 128, stream](np.float32(2.0), d_x, d_y, d_out)
    end.record(stream)
    out = d_out.copy_to_host(stream=stream)
    stream.synchronize()
    check("saxpy on a stream, device arrays", np.allclose(out, 2 * x + y))
    check("event timing", cuda.event_elapsed_time(start, end) >= 0.0)

    @cuda.jit
    def block_sums(values, sums):
        tile = cuda.shared.array(128, np.float32)
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        tile[t] = values[i] if i < values.size else 0
        cuda.syncthreads()
        step = 64
        while step:
            if t < step:
                tile[t] += tile[t + step]
            cuda.syncthreads()
            step //= 2
        if t == 0:
            sums[cuda.blockIdx.x] = tile[0]

    blocks = (n + 127) // 128
    sums = np.zeros(blocks, np.float32)
    block_sums[blocks, 128](x, sums)
    check("shared memory and barriers", np.isclose(sums.sum(), x.sum(), rtol=1e-4))

    with tempfile.TemporaryDirectory() as folder:
        ptx = Path(folder) / "twice.ptx"
        ptx.write_text(TWICE_PTX)
        twice = cuda.declare_device("twice", "int32(int32)", link=[str(ptx)])

        @cuda.jit
        def doubled(values):
            i = cuda.grid(1)
            if i < values.size:
                values[i] = twice(values[i])

        values = np.arange(256, dtype=np.int32)
        doubled[2, 128](values)
        check("link= of a PTX file (declare_device)", np.array_equal(values, 2 * np.arange(256)))

    print(f"{sum(results)} of {len(results)} checks passed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
