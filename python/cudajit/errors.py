"""Exceptions and warnings raised by cudajit.

``CompileError`` is raised for kernel code that cudajit cannot compile, by the
Python front end (unsupported syntax, unknown names) and by the C++ compiler
(typing errors), which the binding layer constructs with the same four
positional arguments. Like Python's ``SyntaxError`` it points at the user's
line: ``str()`` shows ``file:line:col: message``, the source line and a caret.
"""

from __future__ import annotations

import functools
import linecache
from typing import Any, Callable, TypeVar

__all__ = [
    "CompileError",
    "CudaDriverError",
    "CudaSupportError",
    "PerformanceWarning",
    "NumbaPerformanceWarning",
    "InvalidConfigWarning",
    "NumbaInvalidConfigWarning",
    "DebugInfoWarning",
    "NumbaDebugInfoWarning",
    "hides_cudajit_frames",
]

_F = TypeVar("_F", bound=Callable[..., Any])


def hides_cudajit_frames(function: _F) -> _F:
    """``function``, whose CompileError leaves without the frames of cudajit it came
    through (the front end's recursion, the dispatcher's callbacks): the message names the
    user's file and line, so the traceback holds the user's frames and this one re-raise.
    Every path that compiles (a launch, ``@jit`` with signatures, ``compile_ptx``,
    ``inspect_*``) goes through such a function, so each error looks the same."""

    @functools.wraps(function)
    def trimmed(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except CompileError as error:
            raise error.with_traceback(None) from None

    return trimmed  # type: ignore[return-value]


class _PythonDefinedException(Exception):
    """CompileError's base: an Exception laid out as exception classes defined in Python are
    (with a ``__weakref__`` slot), so that a binding can give CompileError such classes as its
    bases instead (numba's TypingError: see scripts/compat/binding.py)."""


class CompileError(_PythonDefinedException):
    """Kernel code that cannot be compiled, with the location of the offending node.

    ``lineno`` is 1-based and ``col_offset`` 0-based (a UTF-8 byte offset, as
    ``ast`` gives it). The first line of ``str()`` shows the column 1-based, as
    compilers do in ``file:line:col`` messages, so editors jump to the right
    character.
    """

    def __init__(self, msg: str, filename: str = "", lineno: int = 0, col_offset: int = 0):
        # All four go to Exception.args so that pickling and copying rebuild it. Exception's
        # __init__ by name, not super()'s: a binding may add bases (numba's TypingError, see
        # scripts/compat/binding.py) whose __init__ takes other arguments.
        Exception.__init__(self, msg, filename, lineno, col_offset)
        self.msg = msg
        self.filename = filename
        self.lineno = lineno
        self.col_offset = col_offset

    def __str__(self) -> str:
        if self.lineno <= 0:
            return f"{self.filename}: {self.msg}" if self.filename else self.msg
        filename = self.filename or "<unknown>"
        lines = [f"{filename}:{self.lineno}:{self.col_offset + 1}: {self.msg}"]
        source = linecache.getline(self.filename, self.lineno) if self.filename else ""
        source = source.rstrip("\r\n")
        if source.strip():
            lines.extend(_source_with_caret(source, self.col_offset))
        return "\n".join(lines)


def _source_with_caret(source: str, col_offset: int) -> list[str]:
    """The source line without its indentation and a caret under the column."""
    # col_offset counts UTF-8 bytes; the caret needs characters.
    prefix = source.encode("utf-8")[: max(col_offset, 0)].decode("utf-8", errors="ignore")
    stripped = source.lstrip()
    indent = len(source) - len(stripped)
    caret_col = max(len(prefix) - indent, 0)
    return ["    " + stripped.rstrip(), "    " + " " * caret_col + "^"]


class CudaDriverError(RuntimeError):
    """A CUDA driver call failed; the message names the call and the CUresult."""


class CudaOutOfMemoryError(CudaDriverError, MemoryError):
    """The device has no memory left for an allocation (CUDA_ERROR_OUT_OF_MEMORY): a
    MemoryError as well as a CudaDriverError."""


class CudaSupportError(RuntimeError):
    """CUDA is not usable here: no driver, no device, an unsupported device, or CUDA
    disabled (CUDAJIT_DISABLE_CUDA or NUMBA_DISABLE_CUDA set)."""

    @property
    def msg(self) -> str:
        """The message, under the name of Numba's (an ImportError's) attribute."""
        return str(self.args[0]) if self.args else ""


class LinkerError(RuntimeError):
    """Code given to ``link=`` (or ``declare_device(link=)``) that cannot be linked: a file
    that does not exist, or whose kind its extension does not tell (Numba's class of the same
    name and meaning)."""


class NvrtcError(CompileError):
    """CUDA C++ given to ``link=`` that NVRTC does not compile; the message has NVRTC's result
    (``NVRTC_ERROR_COMPILATION``), the file and NVRTC's log."""


class PerformanceWarning(UserWarning):
    """Code that runs correctly but slowly, e.g. a grid too small to fill the device."""


# Numba's name, so that filters written for Numba keep working.
NumbaPerformanceWarning = PerformanceWarning


class InvalidConfigWarning(UserWarning):
    """Options that work against each other: debug=True with opt=True, debug with lineinfo."""


NumbaInvalidConfigWarning = InvalidConfigWarning


class DebugInfoWarning(UserWarning):
    """debug=True's debug information will not lead a debugger to the source: the function's
    file cannot be read (it was defined by exec of a string, or its file is gone)."""


NumbaDebugInfoWarning = DebugInfoWarning
