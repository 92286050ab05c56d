"""python/cudajit has no import circles, counting imports inside functions, and imports none
of its own modules inside a function (scripts/check_imports.py)."""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _checker():
    spec = importlib.util.spec_from_file_location("check_imports",
                                                  ROOT / "scripts" / "check_imports.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    package = tmp_path / "pkg"
    for name, text in files.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return package


def test_cudajit_has_no_import_circles_and_no_imports_of_its_own_inside_functions():
    circles, in_functions = _checker().check(ROOT / "python" / "cudajit")
    assert circles == []
    assert in_functions == []


def test_a_circle_through_an_import_inside_a_function_is_found(tmp_path):
    package = _package(tmp_path, {
        "__init__.py": "",
        "low.py": "def f():\n    from .high import g\n    return g\n",
        "high.py": "from . import low\n\ndef g():\n    return low\n",
        "sub/__init__.py": "from .leaf import x\n",
        "sub/leaf.py": "from ..low import f\nx = 1\n",
    })
    circles, in_functions = _checker().check(package)
    assert circles == [["pkg.high", "pkg.low", "pkg.high"]]
    assert [(i.importer, i.target, i.line) for i in in_functions] == [("pkg.low", "pkg.high", 2)]


def test_imports_under_type_checking_do_not_count(tmp_path):
    package = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n",
        "b.py": "from .a import TYPE_CHECKING\nB = 1\n",
    })
    assert _checker().check(package) == ([], [])


def test_importing_a_submodule_runs_its_package_first(tmp_path):
    package = _package(tmp_path, {
        "__init__.py": "",
        "user.py": "from .sub.leaf import x\n",
        "sub/__init__.py": "from ..user import y\n",
        "sub/leaf.py": "x = 1\n",
    })
    circles, _ = _checker().check(package)
    assert circles == [["pkg.sub", "pkg.user", "pkg.sub"]]
