"""Loaded by every Python of a cudajit run of ``make compat`` (scripts/compat is on its
PYTHONPATH): binds numba.cuda to cudajit before anything runs, so that the processes
numba-cuda's tests start (``python -c CODE``, multiprocessing) test cudajit too."""

import os

if os.environ.get("COMPAT_TARGET") == "cudajit":
    import binding

    binding.install()
