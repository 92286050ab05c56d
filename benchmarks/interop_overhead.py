"""Interop overhead: microseconds per launch of an empty kernel on 3 arrays, by kind.

For the current device: 3 of cudajit's own arrays; 3 foreign arrays through
__cuda_array_interface__ (a minimal exporter over cudajit's memory, without a stream
and with another stream than the launch's; on cuda also CuPy arrays and PyTorch
tensors when installed); 3 through
DLPack only (PyTorch tensors on cuda; on the cpu device, NumPy arrays behind a
wrapper that hides everything but __dlpack__). Each foreign row also times what
the producer's own export costs (reading __cuda_array_interface__, or calling
__dlpack_device__ and __dlpack__ as cudajit does), which no consumer can avoid, and
reports cudajit's share apart. numba-cuda's launch on the same
CuPy arrays where numba-cuda and a GPU are present. Last, the host time that
stream-ordered synchronisation saves over host mode when the producer's stream
is busy.

Writes benchmarks/results/interop_overhead.json.

    PYTHONPATH=python python3 benchmarks/interop_overhead.py [--launches N]
"""

from __future__ import annotations

import os

# NumPy's BLAS threads spin on a small machine and disturb sub-microsecond timings;
# nothing here uses BLAS.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

import cudajit as cuda  # noqa: E402
from _timing import peer_us, us_per_launch  # noqa: E402

TARGET_US = 0.5  # a foreign array's cost over an own array, per argument (issue 4)


@cuda.jit
def empty3(a, b, c):
    pass


@cuda.jit
def spin(out, iterations):
    acc = 0.0
    for k in range(iterations):
        acc += k * 1e-9
    if cuda.grid(1) == 0:
        out[0] = acc * 0.0 + 1.0


def cai_dict(array, stream=None) -> dict:
    return {"shape": array.shape, "strides": None if array.is_c_contiguous() else array.strides,
            "typestr": array.dtype.str, "data": (array.device_pointer, False), "version": 3,
            "stream": stream}


class CaiExporter:
    """The smallest __cuda_array_interface__ producer, over cudajit memory."""

    def __init__(self, array, stream=None):
        self._array = array
        # Built here: arrays of the cpu device are host memory and export no interface.
        self.__cuda_array_interface__ = cai_dict(array, stream)


class FreshCaiExporter:
    """Builds a new dict of new objects (tuples, pointer int, typestr) at every access, as
    CuPy, PyTorch and Numba do: cudajit compares them by value with the last dict."""

    def __init__(self, array, stream=None):
        self._array = array
        self._interface = cai_dict(array, stream)

    @property
    def __cuda_array_interface__(self):
        d = self._interface
        return {"shape": tuple(d["shape"]), "strides": d["strides"],
                "typestr": d["typestr"].encode().decode(), "data": (d["data"][0] + 0, False),
                "version": 3, "stream": d["stream"]}


class DlpackOnly:
    """Hides an array behind __dlpack__ / __dlpack_device__ only."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, *args, **kwargs):
        return self._array.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def per_launch_us(args, stream, launches: int, repeats: int) -> float:
    return us_per_launch(empty3, (1, 1, stream), args, stream.synchronize, launches, repeats)


def export_us(args, stream, repeats: int, loops: int = 2000) -> float:
    """Median microseconds the producers themselves take to export `args` once, as a launch
    asks them: the CAI property, else __dlpack_device__ and __dlpack__ with the launch's
    stream (CAI numbering) and max_version, as cudajit calls them."""
    stream_value = stream.handle or 1

    def export(a):
        if hasattr(a, "__cuda_array_interface__"):
            return a.__cuda_array_interface__
        a.__dlpack_device__()
        if device_is_cpu:
            return a.__dlpack__(stream=None, max_version=(1, 0))
        return a.__dlpack__(stream=stream_value, max_version=(1, 0))

    device_is_cpu = cuda.get_current_device().kind == "cpu"
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(loops):
            for a in args:
                export(a)
        samples.append((time.perf_counter() - t0) / loops * 1e6)
    stream.synchronize()
    return sorted(samples)[len(samples) // 2]


def foreign_cases(device_kind: str):
    """(label, args factory) for the foreign arrays this machine can make."""
    cases = [("CAI exporter", lambda: [CaiExporter(cuda.device_array(16)) for _ in range(3)]),
             ("CAI, new dicts", lambda: [FreshCaiExporter(cuda.device_array(16))
                                         for _ in range(3)])]
    # A producer that says its stream, another than the launch's: ordered each launch.
    producer = cuda.stream()
    cases.append(("CAI, other stream", lambda: [CaiExporter(cuda.device_array(16),
                                                            producer.handle)
                                                for _ in range(3)]))
    if device_kind == "cpu":
        cases.append(("DLPack (NumPy)", lambda: [DlpackOnly(np.zeros(16)) for _ in range(3)]))
        return cases
    try:
        import cupy
        cases.append(("CuPy (CAI)", lambda: [cupy.zeros(16) for _ in range(3)]))
    except ImportError:
        pass
    try:
        import torch
        cases.append(("torch (CAI)", lambda: [torch.zeros(16, device="cuda") for _ in range(3)]))
        cases.append(("torch (DLPack)", lambda: [DlpackOnly(torch.zeros(16, device="cuda"))
                                                 for _ in range(3)]))
    except ImportError:
        pass
    return cases


def numba_on_cupy_us(launches: int, repeats: int) -> float | None:
    try:
        import cupy
        from numba import cuda as ncuda
        if not ncuda.is_available():
            return None
    except Exception:
        return None

    @ncuda.jit
    def nempty3(a, b, c):
        pass

    args = [cupy.zeros(16) for _ in range(3)]
    s = ncuda.stream()
    return us_per_launch(nempty3, (1, 1, s), args, s.synchronize, launches, repeats)


def sync_savings_ms(iterations: int) -> dict:
    """Host time of a launch whose argument's producer stream is busy, per mode."""
    result = {}
    producer_stream, launch_stream = cuda.stream(), cuda.stream()
    busy = cuda.device_array(1)
    data = cuda.device_array(16)
    spin[1, 1, producer_stream](busy, 1)
    producer_stream.synchronize()
    for mode in ("stream", "host"):
        cuda.config.CUDA_ARRAY_INTERFACE_SYNC_MODE = mode
        try:
            spin[1, 1, producer_stream](busy, iterations)
            t0 = time.perf_counter()
            empty3[1, 1, launch_stream](CaiExporter(data, producer_stream.handle), data, data)
            result[mode] = (time.perf_counter() - t0) * 1e3
            cuda.synchronize()
        finally:
            cuda.config.CUDA_ARRAY_INTERFACE_SYNC_MODE = "stream"
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--spin", type=int, default=20_000_000,
                        help="iterations of the producer's busy kernel")
    options = parser.parse_args()

    device = cuda.get_current_device()
    stream = cuda.stream()
    own = per_launch_us([cuda.device_array(16) for _ in range(3)], stream, options.launches,
                        options.repeats)
    rows = [{"arrays": "3 own", "us": own, "added_per_argument_us": 0.0}]
    for label, make in foreign_cases(device.kind):
        args = make()
        us = per_launch_us(args, stream, options.launches, options.repeats)
        exported = export_us(args, stream, options.repeats)
        rows.append({"arrays": f"3 {label}", "us": us, "added_per_argument_us": (us - own) / 3,
                     "producer_export_us": exported,
                     "cudajit_per_argument_us": (us - own - exported) / 3})
    numba = (peer_us(numba_on_cupy_us, options.launches, options.repeats)
             if device.kind == "cuda" else None)
    savings = sync_savings_ms(options.spin)

    print(f"device: {device.kind}:{device.id} {device.name}")
    print(f"{'arguments':<22} {'us/launch':>10} {'added us/arg':>13} {'export us':>10} "
          f"{'cudajit us/arg':>15}")
    for r in rows:
        export = r.get("producer_export_us")
        print(f"{r['arrays']:<22} {r['us']:>10.2f} {r['added_per_argument_us']:>13.2f} "
              + (f"{export:>10.2f} {r['cudajit_per_argument_us']:>15.2f}" if export is not None
                 else f"{'':>10} {'':>15}"))
    print(f"{'numba-cuda, 3 CuPy':<22} {'n/a' if numba is None else f'{numba:10.2f}':>10}")
    print(f"target: cudajit adds under {TARGET_US} us per foreign argument over an own array, "
          f"beyond the producer's own export (the 'cudajit us/arg' column)")
    print(f"host time of a launch while the producer's stream is busy: stream-ordered "
          f"{savings['stream']:.2f} ms, host mode {savings['host']:.2f} ms "
          f"(saved {savings['host'] - savings['stream']:.2f} ms)")

    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    (out / "interop_overhead.json").write_text(json.dumps({
        "machine": platform.node(), "device": f"{device.kind}:{device.id} {device.name}",
        "launches": options.launches, "rows": rows, "numba_cuda_cupy_us": numba,
        "sync_host_ms": savings,
    }, indent=2))


if __name__ == "__main__":
    main()
