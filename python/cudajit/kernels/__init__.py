"""Ready-made kernels, as ``numba.cuda.kernels``: :func:`transpose.transpose`."""

from . import transpose  # noqa: F401

__all__ = ["transpose"]
