"""The kernel IR's text form (docs/kernel-ir.md), as the front end writes it."""

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
    if isinstance(node, str):
        return node
    text = node.head if node.loc is None else f"{node.head}@{node.loc[0]}:{node.loc[1]}"
    parts = ["(" + text]
    inline = _INLINE_CHILDREN.get(node.head, len(node.children))
    for position, child in enumerate(node.children):
        separator = " " if position < inline else "\n" + " " * (depth + 1)
        parts.append(separator + render(child, depth + 1))
    return "".join(parts) + ")"


def string_atom(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def ir_identifier(name: str) -> str:
    """IR symbols are ASCII; spell other characters of Python identifiers out."""
    return "".join(c if c.isascii() else f"_u{ord(c):04x}_" for c in name)


def mangle(qualname: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", ir_identifier(qualname))
