"""Argument hints, as numba.cuda's: ``kernel[grid, block](cuda.In(a), cuda.Out(b))`` says which
way a host array's data goes around a launch. A plain NumPy array is copied to the device
and back (InOut); In copies it there only, Out only back.

The launch asks each hint for the array to pass: ``hint.to_device(retr, stream)`` returns
it and appends to ``retr`` the copies back, which run once the kernel is done (Numba's
protocol, so numba.cuda's own hints work too). A device array or an array of another
library passes as it is, with nothing copied."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .api import device_array_like, to_device
from .devicearray import is_device_array

__all__ = ["ArgHint", "In", "Out", "InOut"]


class ArgHint:
    """A host array with a direction; ``value`` is the array. ``copy_in``: copied to the
    device before the launch; ``copy_back``: copied back after it."""

    copy_in = True
    copy_back = True

    def __init__(self, value: Any):
        self.value = value

    def to_device(self, retr: list[Callable[[], Any]], stream: Any = 0) -> Any:
        """The array to pass; the copy back, if any, appended to ``retr``."""
        value = self.value
        if is_device_array(value) or hasattr(value, "__cuda_array_interface__"):
            return value  # already device memory: nothing to copy
        if not isinstance(value, np.ndarray):
            raise TypeError(f"cuda.{type(self).__name__}() takes a NumPy array or a device array, "
                            f"got {type(value).__name__}")
        device = to_device(value, stream=stream) if self.copy_in else \
            device_array_like(value, stream=stream)
        if self.copy_back:
            retr.append(lambda: device.copy_to_host(value, stream=stream))
        return device

    def __repr__(self) -> str:
        return f"cuda.{type(self).__name__}({self.value!r})"


class In(ArgHint):
    """Copied to the device before the launch; not copied back."""

    copy_back = False


class Out(ArgHint):
    """Not copied in (the kernel writes it); copied back after the launch."""

    copy_in = False


class InOut(ArgHint):
    """Copied to the device before the launch and back after it."""
