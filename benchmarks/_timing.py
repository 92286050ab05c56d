"""Timing shared by the launch benchmarks (files starting with _ are not run as benchmarks)."""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any, Callable, Sequence


def us_per_launch(kernel: Any, config: tuple, args: Sequence[Any], sync: Callable[[], None],
                  launches: int, repeats: int) -> float:
    """Median over `repeats` of the host microseconds per `kernel[config](*args)`, as
    users write it (configuration included), for any backend; the first launch
    (compile, load) is outside the timing and the queue is drained between repeats."""
    kernel[config](*args)
    sync()
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(launches):
            kernel[config](*args)
        samples.append((time.perf_counter() - t0) / launches * 1e6)
        sync()
    return statistics.median(samples)


def peer_us(measure: Callable[..., float | None], *args: Any) -> float | None:
    """A peer's time, or None when the peer cannot run here (its import, compile or launch
    failed, e.g. a numba-cuda too old for the installed NumPy): the reason goes to stderr
    and our own rows are still measured."""
    try:
        return measure(*args)
    except Exception as exc:  # a broken peer is a missing column, not a failed benchmark
        print(f"peer not measured ({getattr(measure, '__name__', measure)}): "
              f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}",
              file=sys.stderr)
        return None
