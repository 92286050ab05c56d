"""pytest plugin of ``make compat`` (loaded with ``-p plugin``), for one run of one test file.

- Imports numba-cuda's test files by their module names (``numba.cuda.tests.cudapy.test_x``):
  they live in ``numba_cuda/numba/cuda/tests`` and only import right as ``numba.cuda.*``.
- With ``COMPAT_TARGET=cudajit``, binds ``numba.cuda`` to cudajit first (binding.py); with
  ``COMPAT_DOC_EXAMPLES=1`` too, ``skip_on_cudasim`` skips nothing (the doc examples' run).
- Appends one JSON line per test to ``$COMPAT_RESULTS``: a ``start`` line when it begins
  (so that a run killed by a hang or a crash shows which test did it), then its outcome,
  the exception that failed it and whether cudajit was used.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import unittest
from pathlib import Path
from typing import Any

import pytest

_TARGET = os.environ.get("COMPAT_TARGET", "numba")
_RESULTS = os.environ.get("COMPAT_RESULTS", "")
_outcomes: dict[str, dict[str, Any]] = {}
_usage: Any = None  # binding.USED in the cudajit run


def _emit(record: dict[str, Any]) -> None:
    """Append one JSON line to $COMPAT_RESULTS."""
    if _RESULTS:
        with open(_RESULTS, "a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")


def _module_name(path: Path) -> str:
    """numba_cuda/numba/cuda/tests/cudapy/test_x.py -> numba.cuda.tests.cudapy.test_x."""
    spec = importlib.util.find_spec("numba_cuda")
    assert spec is not None and spec.submodule_search_locations
    root = Path(spec.submodule_search_locations[0]).resolve()
    return ".".join(path.resolve().relative_to(root).with_suffix("").parts)


class _ByNameModule(pytest.Module):
    """A test file imported by its module name instead of its path."""

    def _getobj(self) -> Any:
        """Import the file as numba.cuda.tests.…; a module-level SkipTest skips it."""
        try:
            return importlib.import_module(_module_name(self.path))
        except unittest.SkipTest as exc:
            raise pytest.skip.Exception(str(exc), allow_module_level=True) from exc


def pytest_configure(config: pytest.Config) -> None:
    """Bind numba.cuda to cudajit before any test file imports (cudajit run)."""
    global _usage
    if _TARGET == "cudajit":
        import binding

        binding.install()
        _usage = binding
        if os.environ.get("COMPAT_DOC_EXAMPLES"):
            # numba-cuda's documentation examples skip on its simulator only because
            # it cannot import `cuda` inside a function; they are whole programs.
            import numba.cuda.testing as testing

            testing.skip_on_cudasim = lambda reason: (lambda test: test)


@pytest.hookimpl(tryfirst=True)
def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector:
    """Plain folders: pytest's Package would import __init__.py by path."""
    return pytest.Dir.from_parent(parent, path=path)


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.Module:
    """Test files are imported by module name."""
    return _ByNameModule.from_parent(parent, path=module_path)


@pytest.fixture(scope="class")
def initialize_from_pytest_config(request: pytest.FixtureRequest) -> None:
    """The fixture numba-cuda's CUDATestCase asks for (its repository's conftest, not in
    the wheel, defines it): no FileCheck reproducers are dumped."""
    request.cls._dump_failed_filechecks = False


def pytest_collectreport(report: pytest.CollectReport) -> None:
    """A test file that fails to import: one record for the whole file."""
    if report.failed and report.nodeid.endswith(".py"):
        crash = getattr(report.longrepr, "reprcrash", None)
        message = crash.message if crash is not None else str(report.longrepr)
        _emit({"kind": "collect_error", "message": message[-2000:]})


def pytest_runtest_logstart(nodeid: str, location: Any) -> None:
    """Mark the start of a test; zero cudajit's counters."""
    _outcomes[nodeid] = {"outcome": "passed"}
    if _usage is not None:
        _usage.reset_usage()
    _emit({"kind": "start", "test": nodeid})


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Merge the phases' results; keep the first exception."""
    report = yield
    state = _outcomes.setdefault(item.nodeid, {"outcome": "passed"})
    if report.failed and state["outcome"] != "failed":
        state["outcome"] = "failed"
        state["phase"] = call.when
        if call.excinfo is not None:
            state["exc_type"] = call.excinfo.type.__name__
            state["message"] = str(call.excinfo.value)[:2000]
    elif report.skipped and state["outcome"] == "passed":
        state["outcome"] = "xfailed" if hasattr(report, "wasxfail") else "skipped"
        state["message"] = str(report.longrepr[2] if isinstance(report.longrepr, tuple)
                               else report.longrepr)[:500]
    return report


def pytest_runtest_logfinish(nodeid: str, location: Any) -> None:
    """One record per test, with cudajit's usage during it."""
    record = {"kind": "test", "test": nodeid, **_outcomes.pop(nodeid, {"outcome": "passed"})}
    if _usage is not None:
        record["used"] = dict(_usage.USED)
    _emit(record)
