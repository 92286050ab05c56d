"""Loaded by every Python of a cudajit run of ``make compat`` (scripts/compat is on its
PYTHONPATH): binds numba.cuda to cudajit before anything runs, so that the processes
numba-cuda's tests start (``python -c CODE``, multiprocessing) test cudajit too."""

import os

if os.environ.get("COMPAT_ON_GPU") == "1":
    # pytest puts numba_cuda/numba on sys.path for the installed tests, where `cuda` would
    # then name numba.cuda's folder: import the real package (cuda.bindings) first.
    try:
        import cuda.bindings  # noqa: F401
    except ImportError:
        pass

if os.environ.get("COMPAT_TARGET") == "cudajit":
    import binding

    binding.install()
