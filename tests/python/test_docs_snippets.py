"""Every ```python block of docs/guide/*.md runs, on the cpu device.

The rule: the blocks of one page run in order, in one namespace of their own
(a page reads as one program, top to bottom: a kernel defined in one block is
launched in the next), and nothing carries over from one page to another. Each
block is one test; running block k first runs the blocks before it on its
page. Each block is written to a file of its own before it runs, because the
front end reads a kernel's source from its file, as it does for users.

The cpu device is made current for every page, whatever the machine has, so
that the guide's output is the same everywhere. Two exceptions:

- a block that imports CuPy or PyTorch runs on the GPU, and only where the
  library is installed and a real GPU is present (else it is skipped); such
  blocks come last on their page and define nothing later blocks use;
- blocks fenced ```python-norun (or ```text, ```sh) are not run: they show
  an error, a shell command or output. Keep them rare.

Snippets check their own results (assert against NumPy), as users copying
them would.
"""

from __future__ import annotations

import importlib.util
import pathlib
import re

import pytest

GUIDE = pathlib.Path(__file__).resolve().parents[2] / "docs" / "guide"
OPTIONAL_LIBRARIES = ("cupy", "torch")
HOST_LIBRARIES = ("dask",)  # a block importing one is skipped where it is not installed

_FENCE = re.compile(r"^```(\S*)\s*$")


def python_blocks(page: pathlib.Path) -> list[tuple[int, str]]:
    """(line of the opening fence, source) of each ```python block of `page`."""
    blocks = []
    lines = page.read_text().splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        tag, start = m.group(1), i
        i += 1
        body = []
        while i < len(lines) and lines[i].rstrip() != "```":
            body.append(lines[i])
            i += 1
        assert i < len(lines), f"{page.name}:{start + 1}: a code fence is never closed"
        i += 1
        if tag == "python":
            blocks.append((start + 1, "\n".join(body) + "\n"))
    return blocks


def _pages() -> list[pathlib.Path]:
    return sorted(GUIDE.glob("*.md"))


def _cases():
    for page in _pages():
        for index, (line, _) in enumerate(python_blocks(page)):
            yield pytest.param(page.name, index, id=f"{page.stem}:{line}")


def _missing_host_libraries(source: str) -> list[str]:
    """Libraries a block imports that run without a GPU (Dask) but are not installed."""
    return [name for name in HOST_LIBRARIES
            if re.search(rf"^\s*(import|from)\s+{name}\b", source, re.MULTILINE)
            and importlib.util.find_spec(name) is None]


def _optional_imports(source: str) -> list[str]:
    found = []
    for name in OPTIONAL_LIBRARIES:
        if re.search(rf"^\s*(import|from)\s+{name}\b", source, re.MULTILINE):
            found.append(name)
    return found


def test_the_guide_has_runnable_snippets():
    counts = {page.name: len(python_blocks(page)) for page in _pages()}
    assert counts, f"no pages in {GUIDE}"
    assert sum(counts.values()) >= 20, counts


class _Page:
    """A page's namespace and how many of its blocks have run in it."""

    def __init__(self, name: str, folder: pathlib.Path):
        self.name = name
        self.folder = folder
        self.namespace: dict = {}
        self.done = 0
        self.blocks = python_blocks(GUIDE / name)

    def run(self, index: int) -> None:
        line, source = self.blocks[index]
        path = self.folder / f"{pathlib.Path(self.name).stem.replace('-', '_')}_line{line}.py"
        path.write_text(source)
        self.namespace.setdefault("__name__", "__main__")
        self.namespace["__file__"] = str(path)
        code = compile(source, str(path), "exec")
        exec(code, self.namespace)


_pages_run: dict[str, _Page] = {}


@pytest.fixture
def cpu_device_current():
    import warnings

    from cudajit import _core

    with warnings.catch_warnings():  # "no usable GPU": the cpu device is what the guide runs on
        warnings.simplefilter("ignore", RuntimeWarning)
        previous = _core.current_device()
    _core.set_current_device(_core.cpu_device())
    yield
    _core.set_current_device(previous)


@pytest.mark.parametrize("page_name, index", list(_cases()))
def test_snippet(page_name, index, tmp_path_factory, cpu_device_current):
    from cudajit import _core

    blocks = python_blocks(GUIDE / page_name)
    missing = sorted({n for _, code in blocks[:index + 1] for n in _missing_host_libraries(code)})
    if missing:
        pytest.skip(f"needs {', '.join(missing)}, not installed (scripts/install-deps.sh "
                    "installs it)")
    page = _pages_run.get(page_name)
    if page is None or page.done > index:  # first time here, or run again (pytest -k, reruns)
        page = _Page(page_name, tmp_path_factory.mktemp(pathlib.Path(page_name).stem))
        _pages_run[page_name] = page
    # The blocks before this one, which this one builds on (each once).
    while page.done < index:
        if not _optional_imports(page.blocks[page.done][1]):
            page.run(page.done)
        page.done += 1

    needs = _optional_imports(page.blocks[index][1])
    if needs:
        page.done += 1
        missing = [n for n in needs if importlib.util.find_spec(n) is None]
        if missing:
            pytest.skip(f"needs {', '.join(missing)}, not installed")
        if not _core.cuda_available() or _core.cuda_simulated():
            pytest.skip(f"needs a GPU for {', '.join(needs)}")
        _core.set_current_device(_core.cuda_device(0))
        page.run(index)
        return
    try:
        page.run(index)
    finally:
        page.done = index + 1
