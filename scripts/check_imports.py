#!/usr/bin/env python3
"""Import circles in python/cudajit: a module that imports, directly or not, a module that
imports it back. Every import counts, those inside functions too (an import moved into a
function to dodge a circle is still a circle; docs/dev/architecture.md, "Import direction").
Imports under ``if TYPE_CHECKING:`` do not run and do not count.

Also reported: imports of cudajit's own modules placed inside functions. Lower layers never
import upper ones; a service of an upper layer reaches a lower one by registration. Imports
inside functions remain for optional dependencies only (ml_dtypes, nvidia's wheels ...).

Usage: python3 scripts/check_imports.py [package folder]   (exit status 1 when any is found)
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Iterator, NamedTuple

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "python" / "cudajit"


class Import(NamedTuple):
    importer: str  # the importing module, cudajit.x.y
    target: str  # the imported module
    line: int
    in_function: bool


def module_names(package_dir: Path) -> dict[str, Path]:
    """Every module of the package by its dotted name: Python files and extension modules."""
    root = package_dir.name
    names: dict[str, Path] = {}
    for path in sorted(package_dir.rglob("*")):
        if "__pycache__" in path.parts or not path.is_file():
            continue
        parts = list(path.relative_to(package_dir).parts)
        if path.suffix == ".py":
            parts[-1] = path.stem
        elif path.suffix == ".so" and path.name.split(".")[0].isidentifier():
            parts[-1] = path.name.split(".")[0]  # _core.cpython-311-x86_64-linux-gnu.so
        else:
            continue
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join([root, *parts])] = path
    return names


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(tree: ast.AST) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Each import statement that runs, and whether it sits inside a function."""
    def visit(node: ast.AST, in_function: bool) -> Iterator[tuple[ast.AST, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for other in child.orelse:
                    yield from visit(other, in_function)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child, in_function
            yield from visit(child, in_function or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))
    yield from visit(tree, False)  # type: ignore[misc]


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> list[Import]:
    """The package's modules that module `name` imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[Import] = []
    for node, in_function in _import_nodes(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                targets.append(submodule if submodule in modules else base)
        for target in targets:
            # Importing a.b.c runs a and a.b first: those that are not already running
            # (the importer's own packages) count as imported too.
            parts = target.split(".")
            for k in range(1, len(parts) + 1):
                prefix = ".".join(parts[:k])
                if prefix in modules and prefix != name and not name.startswith(prefix + "."):
                    found.append(Import(name, prefix, node.lineno, in_function))
    return found


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                connect(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(graph) + 100))
    for node in sorted(graph):
        if node not in index:
            connect(node)
    return components


def cycle_in(component: list[str], graph: dict[str, set[str]]) -> list[str]:
    """One circle through the component's first module: a -> b -> ... -> a."""
    start, members = component[0], set(component)
    paths = {start: [start]}
    pending = [start]
    while pending:
        node = pending.pop(0)
        for other in sorted(graph[node] & members):
            if other == start:
                return paths[node] + [start]
            if other not in paths:
                paths[other] = paths[node] + [other]
                pending.append(other)
    return component


def check(package_dir: Path = PACKAGE_DIR) -> tuple[list[list[str]], list[Import]]:
    """(the circles, each as a -> ... -> a; the imports of the package's modules placed
    inside functions)."""
    modules = module_names(package_dir)
    imports = [i for name, path in modules.items() if path.suffix == ".py"
               for i in imports_of(name, path, modules)]
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for item in imports:
        graph[item.importer].add(item.target)
    circles = [cycle_in(c, graph) for c in strongly_connected(graph)]
    in_functions = sorted({i for i in imports if i.in_function})
    return circles, in_functions


def main(argv: list[str]) -> int:
    package_dir = Path(argv[1]) if len(argv) > 1 else PACKAGE_DIR
    circles, in_functions = check(package_dir)
    for circle in circles:
        print("import circle: " + " -> ".join(circle))
    for item in in_functions:
        print(f"import inside a function: {item.importer} (line {item.line}) imports "
              f"{item.target}")
    if not circles and not in_functions:
        print(f"no import circles in {package_dir}")
    return 1 if circles or in_functions else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
