"""The kernel IR's text form (docs/dev/kernel-ir.md), as the front end writes it."""

from __future__ import annotations

import re
from typing import Union

__all__ = ["IRNode", "render", "string_atom", "ir_identifier", "mangle"]


class IRNode:
    """One S-expression ``(HEAD@LINE:COL child ...)``; children are nodes or atoms."""

    __slots__ = ("head", "loc", "children")

    def __init__(self, head: str, loc: tuple[int, int] | None, *children: Union["IRNode", str]):
        self.head = head
        self.loc = loc
        self.children = children


# How many leading children stay on the head's line; the rest (statements and
# blocks) go on lines of their own. Newlines mean nothing to the parser.
_INLINE_CHILDREN = {"module": 1, "func": 2, "block": 0, "if": 1, "while": 1, "for": 4}


def render(node: IRNode | str, depth: int = 0) -> str:
    out: list[str] = []
    _render_into(node, depth, out)
    return "".join(out)


def _render_into(node: IRNode | str, depth: int, out: list[str]) -> None:
    # One list for the whole text: joining per node copied each subtree once per level.
    # Atoms are appended here, not in a call of their own: half the calls are atoms.
    if isinstance(node, str):
        out.append(node)
        return
    loc = node.loc
    out.append("(" + node.head if loc is None else f"({node.head}@{loc[0]}:{loc[1]}")
    children = node.children
    inline = _INLINE_CHILDREN.get(node.head, len(children))
    indent = None
    for position, child in enumerate(children):
        if position < inline:
            out.append(" ")
        else:
            if indent is None:
                indent = "\n" + " " * (depth + 1)
            out.append(indent)
        if isinstance(child, str):
            out.append(child)
        else:
            _render_into(child, depth + 1, out)
    out.append(")")


def string_atom(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def ir_identifier(name: str) -> str:
    """IR symbols are ASCII; spell other characters of Python identifiers out."""
    if name.isascii():
        return name
    return "".join(c if c.isascii() else f"_u{ord(c):04x}_" for c in name)


def mangle(qualname: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", ir_identifier(qualname))
