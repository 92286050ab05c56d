"""Run-time settings, as numba.core.config: ``cudajit.config.NAME = value``.

CUDA_ARRAY_INTERFACE_SYNC (env CUDAJIT_CUDA_ARRAY_INTERFACE_SYNC, else Numba's
    NUMBA_CUDA_ARRAY_INTERFACE_SYNC, default 1): synchronise with the stream a foreign
    array names. Off: the stream is ignored.
CUDA_ARRAY_INTERFACE_SYNC_MODE (env CUDAJIT_CUDA_ARRAY_INTERFACE_SYNC_MODE):
    "stream" (default): order the launch after the producer's stream with
    events, and the producer's later work after the launch; the host never
    blocks. "host": Numba's behaviour, synchronise the producer's stream from
    the host before the launch.
CPU_WORKERS (env CUDAJIT_CPU_WORKERS, default: one per core): the threads that run the
    cpu device's blocks, the launching thread one of them. Set it to 1 where each process
    is one worker of many (a Dask worker per core), so that they do not oversubscribe the
    machine; it applies to the launches that start after it is set.
CUDA_NVRTC_EXTRA_SEARCH_PATHS (env CUDAJIT_NVRTC_EXTRA_SEARCH_PATHS): folders, separated by
    ':', that NVRTC searches for #include when it compiles CUDA C++ linked with kernels
    (cuda.CUSource, .cu files), as in numba-cuda.
"""

from __future__ import annotations

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
    def CUDA_NVRTC_EXTRA_SEARCH_PATHS(self) -> str:
        return linking.extra_search_paths

    @CUDA_NVRTC_EXTRA_SEARCH_PATHS.setter
    def CUDA_NVRTC_EXTRA_SEARCH_PATHS(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError(f"CUDA_NVRTC_EXTRA_SEARCH_PATHS must be a str of folders separated "
                            f"by ':', got {value!r}")
        linking.extra_search_paths = value

    def __setattr__(self, name: str, value: object) -> None:
        if not hasattr(type(self), name):
            raise AttributeError(f"cudajit.config has no setting {name!r}")
        super().__setattr__(name, value)


config = _Config()
