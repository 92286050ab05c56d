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
    """A host array with a direction; ``value`` is the array."""

    def __init__(self, value: Any):
        self.value = value

    def to_device(self, retr: list[Callable[[], Any]], stream: Any = 0) -> Any:
        raise NotImplementedError

    def _device(self, stream: Any, copy_in: bool) -> tuple[Any, bool]:
        """(the array to pass, whether it is a device copy of the host array)."""
        value = self.value
        if is_device_array(value) or hasattr(value, "__cuda_array_interface__"):
            return value, False
        if not isinstance(value, np.ndarray):
            raise TypeError(f"cuda.{type(self).__name__}() takes a NumPy array or a device array, "
                            f"got {type(value).__name__}")
        if copy_in:
            return to_device(value, stream=stream), True
        return device_array_like(value, stream=stream), True

    def __repr__(self) -> str:
        return f"cuda.{type(self).__name__}({self.value!r})"


class In(ArgHint):
    """Copied to the device before the launch; not copied back."""

    def to_device(self, retr: list[Callable[[], Any]], stream: Any = 0) -> Any:
        return self._device(stream, copy_in=True)[0]


class Out(ArgHint):
    """Not copied in (the kernel writes it); copied back after the launch."""

    def to_device(self, retr: list[Callable[[], Any]], stream: Any = 0) -> Any:
        device, copied = self._device(stream, copy_in=False)
        if copied:
            retr.append(lambda: device.copy_to_host(self.value, stream=stream))
        return device


class InOut(ArgHint):
    """Copied to the device before the launch and back after it."""

    def to_device(self, retr: list[Callable[[], Any]], stream: Any = 0) -> Any:
        device, copied = self._device(stream, copy_in=True)
        if copied:
            retr.append(lambda: device.copy_to_host(self.value, stream=stream))
        return device
