"""``numba.cuda.runtime``: the CUDA version programs compare with.

Numba reports the toolkit's (NVRTC's) version. cudajit uses no toolkit library: it makes
PTX itself and hands it to the driver, so the version that decides what runs is the
driver's, which ``get_version()`` reports. Without a usable driver (the cpu device) it is
the version of the driver API cudajit is written against."""

from __future__ import annotations

from .. import _core

__all__ = ["Runtime", "runtime", "get_version", "SUPPORTED_TOOLKIT_MAJOR_VERSIONS"]

SUPPORTED_TOOLKIT_MAJOR_VERSIONS = (12, 13)

# The CUDA driver API of cudajit's headers (runtime/include/cudajit/cuda_api.h), and the
# version its simulated GPU reports.
_WRITTEN_AGAINST = (13, 0)


class Runtime:
    """``cuda.runtime``: ``get_version()`` and ``is_supported_version()``."""

    def get_version(self) -> tuple[int, int]:
        """``(major, minor)``: the CUDA driver's version, or (13, 0) without a driver."""
        if not _core.cuda_available():
            return _WRITTEN_AGAINST
        version = _core.cuda_driver_version()
        return version // 1000, (version % 1000) // 10

    def is_supported_version(self) -> bool:
        """Always True: cudajit needs no CUDA toolkit whose version it could refuse."""
        return True


runtime = Runtime()


def get_version() -> tuple[int, int]:
    """``runtime.get_version()``."""
    return runtime.get_version()
