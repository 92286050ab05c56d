"""The source of functions that have no source file: defined by ``exec`` of a string, or in
the program of ``python -c``. cudajit compiles Python source, not bytecode, and Python keeps
no text for such functions; but it announces every compile of a string to audit hooks
(the ``compile`` event, with the text and its pseudo file name such as ``<string>``), and
keeps the ``-c`` program in ``sys.orig_argv``. This module records those texts (bounded) and
finds the one a function came from, checking it by compiling it again: the candidate must
hold a function of the same name and first line with the same bytecode, names and
constants.

Numba reads bytecode, so its users (and its test suite) define kernels this way; without
this, each such kernel is a CompileError. Set CUDAJIT_EXEC_SOURCES=0 before importing
cudajit to record nothing (the audit hook is then not installed)."""

from __future__ import annotations

import collections
import os
import sys
import threading
from types import CodeType

__all__ = ["install", "lines_for"]

# The most recent texts compiled from strings: (pseudo file name, text). Bounded, so a
# program that execs in a loop keeps only the latest.
_MAX_TEXTS = 512
_MAX_TEXT_CHARS = 1 << 20
_texts: collections.deque[tuple[str, str]] = collections.deque(maxlen=_MAX_TEXTS)
_installed = False
_lock = threading.Lock()
_checking = threading.local()  # set while lines_for compiles a text again: not recorded


def _record(event: str, args: tuple) -> None:
    # Runs for every audit event of the process: return at once unless it is ours.
    if event != "compile" or len(args) < 2 or getattr(_checking, "active", False):
        return
    source, filename = args[0], args[1]
    if not isinstance(filename, str) or not filename.startswith("<"):
        return  # a real file: linecache reads it
    if isinstance(source, bytes):
        try:
            source = source.decode("utf-8")
        except UnicodeDecodeError:
            return
    if isinstance(source, str) and len(source) <= _MAX_TEXT_CHARS:
        _texts.append((filename, source))


def install() -> None:
    """Starts recording the texts of compiled strings (once per process)."""
    global _installed
    with _lock:
        if _installed or os.environ.get("CUDAJIT_EXEC_SOURCES", "1") == "0":
            return
        sys.addaudithook(_record)
        _installed = True


def _candidates(filename: str) -> list[str]:
    """Texts that may hold a function of `filename`, the newest first."""
    found = [text for name, text in reversed(_texts) if name == filename]
    argv = getattr(sys, "orig_argv", [])
    if filename == "<string>" and "-c" in argv[:-1]:
        found.append(argv[argv.index("-c") + 1])  # python -c PROGRAM
    return found


def _find_code(code: CodeType, name: str, first_line: int) -> CodeType | None:
    for const in code.co_consts:
        if isinstance(const, CodeType):
            if const.co_name == name and const.co_firstlineno == first_line:
                return const
            inner = _find_code(const, name, first_line)
            if inner is not None:
                return inner
    return None


def _same_code(a: CodeType, b: CodeType) -> bool:
    """Compiled from the same text: bytecode, names and constants alike (texts generated
    from one template differ only in a name, as cuda.atomic.max and .min do)."""
    if (a.co_code, a.co_names, a.co_varnames, a.co_freevars) != \
            (b.co_code, b.co_names, b.co_varnames, b.co_freevars):
        return False
    if len(a.co_consts) != len(b.co_consts):
        return False
    for x, y in zip(a.co_consts, b.co_consts):
        if isinstance(x, CodeType) and isinstance(y, CodeType):
            if not _same_code(x, y):
                return False
        elif type(x) is not type(y) or repr(x) != repr(y):
            return False
    return True


def lines_for(code: CodeType) -> list[str] | None:
    """The lines of the recorded text that `code` was compiled from, or None."""
    if not code.co_filename.startswith("<"):
        return None
    for text in _candidates(code.co_filename):
        lines = text.splitlines(keepends=True)
        if len(lines) < code.co_firstlineno:
            continue
        _checking.active = True
        try:
            compiled = compile(text, code.co_filename, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            continue
        finally:
            _checking.active = False
        again = _find_code(compiled, code.co_name, code.co_firstlineno)
        if again is not None and _same_code(again, code):
            return lines
    return None
