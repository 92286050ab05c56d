"""Run-time settings, as numba.core.config: ``cudajit.config.NAME = value``.

CUDA_ARRAY_INTERFACE_SYNC (env CUDAJIT_CUDA_ARRAY_INTERFACE_SYNC, else Numba's
    NUMBA_CUDA_ARRAY_INTERFACE_SYNC, default 1): synchronise with the stream a foreign
    array names. Off: the stream is ignored.
CUDA_ARRAY_INTERFACE_SYNC_MODE (env CUDAJIT_CUDA_ARRAY_INTERFACE_SYNC_MODE):
    "stream" (default): order the launch after the producer's stream with
    events, and the producer's later work after the launch; the host never
    blocks. "host": Numba's behaviour, synchronise the producer's stream from
    the host before the launch.
CUDA_DEALLOCS_COUNT and CUDA_DEALLOCS_RATIO (env CUDAJIT_CUDA_MAX_PENDING_DEALLOCS_COUNT and
    _RATIO, else Numba's NUMBA_CUDA_MAX_PENDING_DEALLOCS_*; default 10 and 0.2): memory
    whose last reference went waits in its device's queue of pending deallocations, freed
    once the queue holds more than CUDA_DEALLOCS_COUNT allocations or more than
    CUDA_DEALLOCS_RATIO of the device's memory, as in numba-cuda
    (``cuda.defer_cleanup()`` holds it back).
CPU_WORKERS (env CUDAJIT_CPU_WORKERS, default: one per core): the threads that run the
    cpu device's blocks, the launching thread one of them. Set it to 1 where each process
    is one worker of many (a Dask worker per core), so that they do not oversubscribe the
    machine; it applies to the launches that start after it is set.
CPU_STREAM_BYTES (env CUDAJIT_CPU_STREAM_BYTES, default: three quarters of the CPU's largest
    cache): arrays of at least this many bytes that a vectorised loop of a cpu device kernel
    writes from end to end (``out[i] = ...``) are written past the caches, with non-temporal
    stores: a quarter less memory traffic for saxpy. 0 streams every such array (when
    16-byte aligned, as device arrays and NumPy's are); it applies to later launches.
CUDA_NVRTC_EXTRA_SEARCH_PATHS (env CUDAJIT_NVRTC_EXTRA_SEARCH_PATHS): folders, separated by
    ':', that NVRTC searches for #include when it compiles CUDA C++ linked with kernels
    (cuda.CUSource, .cu files), as in numba-cuda.
CUDA_LOW_OCCUPANCY_WARNINGS (env CUDAJIT_CUDA_LOW_OCCUPANCY_WARNINGS, else Numba's
    NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS, default 1): ``kernel[griddim, blockdim]`` of fewer
    than 128 blocks on a GPU (the simulated one too) warns with a PerformanceWarning, Numba's
    "Grid size N will likely result in GPU under-utilization due to low occupancy.". The cpu
    device never warns.
CUDA_WARN_ON_IMPLICIT_COPY (env CUDAJIT_CUDA_WARN_ON_IMPLICIT_COPY, else Numba's
    NUMBA_CUDA_WARN_ON_IMPLICIT_COPY, default 1): a launch on a GPU given NumPy arrays, which
    are copied to the device and back around it, warns with a PerformanceWarning.
DISABLE_PERFORMANCE_WARNINGS (env CUDAJIT_DISABLE_PERFORMANCE_WARNINGS, else Numba's
    NUMBA_DISABLE_PERFORMANCE_WARNINGS, default 0): silences both of those warnings, whatever
    they are set to, as in Numba.
CUDA_DEBUGINFO_DEFAULT (env CUDAJIT_CUDA_DEBUGINFO, else NUMBA_CUDA_DEBUGINFO, default 0):
    what ``jit()`` takes for ``debug`` when it is not given.
OPT (env CUDAJIT_OPT, else NUMBA_OPT, default 3): 0 makes ``jit()`` default to
    ``opt=False`` (unoptimised PTX, for the debugger); 1, 2, 3 and "max" to ``opt=True``.
"""

from __future__ import annotations

import os

from . import _core, linking


class _Config:
    """The settings object behind ``cudajit.config``; assignments take effect at once."""

    @property
    def CUDA_ARRAY_INTERFACE_SYNC(self) -> bool:
        return _core.get_interop_config()[0]

    @CUDA_ARRAY_INTERFACE_SYNC.setter
    def CUDA_ARRAY_INTERFACE_SYNC(self, value: bool) -> None:
        _core.set_interop_config(bool(value), self.CUDA_ARRAY_INTERFACE_SYNC_MODE)

    @property
    def CUDA_ARRAY_INTERFACE_SYNC_MODE(self) -> str:
        return _core.get_interop_config()[1]

    @CUDA_ARRAY_INTERFACE_SYNC_MODE.setter
    def CUDA_ARRAY_INTERFACE_SYNC_MODE(self, value: str) -> None:
        if value not in ("stream", "host"):
            raise ValueError(f"CUDA_ARRAY_INTERFACE_SYNC_MODE must be 'stream' or 'host', "
                             f"got {value!r}")
        _core.set_interop_config(self.CUDA_ARRAY_INTERFACE_SYNC, value)

    @property
    def CPU_WORKERS(self) -> int:
        return _core.host_worker_count()

    @CPU_WORKERS.setter
    def CPU_WORKERS(self, value: int) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"CPU_WORKERS must be an int, got {type(value).__name__} {value!r}")
        if not 1 <= value <= 4096:
            raise ValueError(f"CPU_WORKERS must be from 1 to 4096, got {value}")
        _core.set_host_worker_count(value)

    @property
    def CPU_STREAM_BYTES(self) -> int:
        return _core.host_stream_bytes()

    @CPU_STREAM_BYTES.setter
    def CPU_STREAM_BYTES(self, value: int) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"CPU_STREAM_BYTES must be an int, got {type(value).__name__} {value!r}")
        if not 0 <= value < 2**64:
            raise ValueError(f"CPU_STREAM_BYTES must be from 0 to 2**64 - 1, got {value}")
        _core.set_host_stream_bytes(value)

    @property
    def CUDA_DEALLOCS_COUNT(self) -> int:
        return _core.deallocation_limits()[0]

    @CUDA_DEALLOCS_COUNT.setter
    def CUDA_DEALLOCS_COUNT(self, value: int) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"CUDA_DEALLOCS_COUNT must be an int >= 0, got {value!r}")
        _core.set_deallocation_limits(value, self.CUDA_DEALLOCS_RATIO)

    @property
    def CUDA_DEALLOCS_RATIO(self) -> float:
        return _core.deallocation_limits()[1]

    @CUDA_DEALLOCS_RATIO.setter
    def CUDA_DEALLOCS_RATIO(self, value: float) -> None:
        try:
            ratio = float(value)
        except (TypeError, ValueError):
            ratio = -1.0
        if isinstance(value, bool) or not 0 <= ratio < float("inf"):
            raise ValueError(f"CUDA_DEALLOCS_RATIO must be a number >= 0, got {value!r}")
        _core.set_deallocation_limits(self.CUDA_DEALLOCS_COUNT, ratio)

    @property
    def CUDA_NVRTC_EXTRA_SEARCH_PATHS(self) -> str:
        return linking.extra_search_paths

    @CUDA_NVRTC_EXTRA_SEARCH_PATHS.setter
    def CUDA_NVRTC_EXTRA_SEARCH_PATHS(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError(f"CUDA_NVRTC_EXTRA_SEARCH_PATHS must be a str of folders separated "
                            f"by ':', got {value!r}")
        linking.extra_search_paths = value

    # The performance warnings: each one's setting, and DISABLE_PERFORMANCE_WARNINGS over
    # both; the C++ side keeps what results (read at every launch).
    @property
    def CUDA_LOW_OCCUPANCY_WARNINGS(self) -> bool:
        return self._low_occupancy_warnings

    @CUDA_LOW_OCCUPANCY_WARNINGS.setter
    def CUDA_LOW_OCCUPANCY_WARNINGS(self, value: object) -> None:
        object.__setattr__(self, "_low_occupancy_warnings", bool(value))
        self._apply_performance_warnings()

    @property
    def CUDA_WARN_ON_IMPLICIT_COPY(self) -> bool:
        return self._implicit_copy_warnings

    @CUDA_WARN_ON_IMPLICIT_COPY.setter
    def CUDA_WARN_ON_IMPLICIT_COPY(self, value: object) -> None:
        object.__setattr__(self, "_implicit_copy_warnings", bool(value))
        self._apply_performance_warnings()

    @property
    def DISABLE_PERFORMANCE_WARNINGS(self) -> bool:
        return self._no_performance_warnings

    @DISABLE_PERFORMANCE_WARNINGS.setter
    def DISABLE_PERFORMANCE_WARNINGS(self, value: object) -> None:
        object.__setattr__(self, "_no_performance_warnings", bool(value))
        self._apply_performance_warnings()

    def _apply_performance_warnings(self) -> None:
        off = getattr(self, "_no_performance_warnings", False)
        _core.set_low_occupancy_warnings(getattr(self, "_low_occupancy_warnings", True) and not off)
        _core.set_host_copy_warnings(getattr(self, "_implicit_copy_warnings", True) and not off)

    @property
    def CUDA_DEBUGINFO_DEFAULT(self) -> bool:
        return self._debuginfo_default

    @CUDA_DEBUGINFO_DEFAULT.setter
    def CUDA_DEBUGINFO_DEFAULT(self, value: object) -> None:
        object.__setattr__(self, "_debuginfo_default", bool(value))

    @property
    def OPT(self) -> int | str:
        return self._opt

    @OPT.setter
    def OPT(self, value: object) -> None:
        object.__setattr__(self, "_opt", _opt_level(value))

    def __setattr__(self, name: str, value: object) -> None:
        if not hasattr(type(self), name):
            raise AttributeError(f"cudajit.config has no setting {name!r}")
        super().__setattr__(name, value)


def _opt_level(value: object) -> int | str:
    """An optimisation level as Numba spells them: 0 to 3 or "max"."""
    if isinstance(value, str) and value.strip().lower() == "max":
        return "max"
    try:
        level = int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        level = -1
    if level not in (0, 1, 2, 3):
        raise ValueError(f"OPT must be 0, 1, 2, 3 or 'max', got {value!r}")
    return level


def _env(name: str, default: str) -> str:
    """cudajit's variable CUDAJIT_<name>, else Numba's NUMBA_<name>, else `default`."""
    return os.environ.get(f"CUDAJIT_{name}", os.environ.get(f"NUMBA_{name}", default))


def _env_flag(name: str, default: bool) -> bool:
    value = _env(name, "1" if default else "0").strip()
    try:
        return int(value) != 0
    except ValueError:
        raise ValueError(f"environment variable CUDAJIT_{name} (or NUMBA_{name}) must be an "
                         f"integer (0 or 1), got {value!r}") from None


config = _Config()
config.CUDA_LOW_OCCUPANCY_WARNINGS = _env_flag("CUDA_LOW_OCCUPANCY_WARNINGS", True)
config.CUDA_WARN_ON_IMPLICIT_COPY = _env_flag("CUDA_WARN_ON_IMPLICIT_COPY", True)
config.DISABLE_PERFORMANCE_WARNINGS = _env_flag("DISABLE_PERFORMANCE_WARNINGS", False)
config.CUDA_DEBUGINFO_DEFAULT = _env_flag("CUDA_DEBUGINFO", False)
config.OPT = _env("OPT", "3")


def _env_number(name: str, default: str, kind: type) -> int | float:
    value = _env(name, default).strip()
    try:
        return kind(value)
    except ValueError:
        raise ValueError(f"environment variable CUDAJIT_{name} (or NUMBA_{name}) must be "
                         f"{'an integer' if kind is int else 'a number'}, got {value!r}") from None


config.CUDA_DEALLOCS_COUNT = _env_number("CUDA_MAX_PENDING_DEALLOCS_COUNT", "10", int)
config.CUDA_DEALLOCS_RATIO = _env_number("CUDA_MAX_PENDING_DEALLOCS_RATIO", "0.2", float)
