"""Failure causes of ``make compat``: a failing test's exception, normalised so that tests
failing for one reason share one key (paths, line numbers, addresses, numbers and the
test's own names stripped)."""

from __future__ import annotations

import re

_LOCATION = re.compile(r"^\S+:\d+(:\d+)?:\s*")  # cudajit's "file.py:12:8: " prefix
_PATH = re.compile(r"(/[\w.+-]+)+/?")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(\.\d+)?([eE][-+]?\d+)?(?![\w.])")
_QUOTED = re.compile(r"(['\"])(.*?)\1")
_OBJECT = re.compile(r"<([\w.]+) [^<>]*>")  # <function f at 0x...> -> <function>
_COMMAND = re.compile(r"^Command '.*' returned")  # CalledProcessError: the test's own code
_LONG_GROUP = re.compile(r"\((?:[^()]|\([^()]*\))*\)")  # "(Array(float32, 1, 'C'), ...)"
# Quoted names kept: what cudajit lacks (``has no attribute 'x'``, ``cannot import name 'x'``,
# ``method '.copy()'``, ``'DeviceNDArray' object``); other quoted text is the test's own.
_KEEP_AFTER = re.compile(r"(has no attribute|import name|module|method)\s*$")
_KEEP_BEFORE = re.compile(r"^\s*object\b")
LONGEST = 160


def _quoted(match: re.Match[str], text: str) -> str:
    """A quoted name kept if it names what cudajit lacks, else '…'."""
    inner = match.group(2)
    if not re.fullmatch(r"[\w.()]+", inner):
        return "'…'"
    if _KEEP_AFTER.search(text[:match.start()]) or _KEEP_BEFORE.match(text[match.end():]):
        return match.group(0)
    return "'…'"


def _shorten_group(match: re.Match[str]) -> str:
    """A long parenthesised group (a tuple of types) as (…)."""
    return "(…)" if len(match.group(0)) > 40 else match.group(0)


def first_line(message: str) -> str:
    """The message's first non-empty line."""
    for line in message.splitlines():
        if line.strip():
            return line.strip()
    return ""


def normalise(exc_type: str, message: str) -> str:
    """One key per reason: ``CompileError: '…' is not a constant``."""
    text = _LOCATION.sub("", first_line(message))
    text = _COMMAND.sub("Command '…' returned", text)
    text = _OBJECT.sub(r"<\1>", text)
    text = _LONG_GROUP.sub(_shorten_group, text)
    text = _PATH.sub("<path>", text)
    text = _ADDRESS.sub("0x…", text)
    text = _QUOTED.sub(lambda m: _quoted(m, text), text)
    text = _NUMBER.sub("N", text)
    if len(text) > LONGEST:
        text = text[:LONGEST - 1] + "…"
    return f"{exc_type}: {text}" if exc_type else text
