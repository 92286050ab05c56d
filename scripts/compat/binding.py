"""Bind ``numba.cuda`` to cudajit for numba-cuda's tests (the cudajit run of ``make compat``).

After :func:`install`, ``from numba import cuda``, ``import numba.cuda as cuda`` and
``from numba.cuda import jit`` give the tests a module named ``cudajit`` (so that cudajit's
front end reads ``cuda.threadIdx.x`` in kernels as its own) holding:

- every public name of cudajit, with cudajit's object, but for its implementation modules
  that share a name with a numba.cuda submodule (``compiler``, ``dispatcher`` ...: see
  :data:`API_MODULES`);
- numba.cuda's submodules that cudajit lacks (``testing``, ``core`` ...), also those not
  imported yet: the tests' helpers, not the API under test; cudajit's API submodules
  (``cudadrv``, ``vector_types`` ...) look up the names they lack in numba.cuda's;
- :data:`FROM_NUMBA`: names the tests read to decide what to run, kept from numba.

A name that numba.cuda has and cudajit lacks is absent, as it would be after replacing
``from numba import cuda`` with ``import cudajit as cuda``. ``numba.cuda.random`` is
cudajit.random. numba-cuda's own modules (everything under ``numba.cuda`` outside its
test modules) still see the real ``numba.cuda``, also those imported later.

The counters in :data:`USED` say whether cudajit compiled or launched a kernel, or ran
a host API function (``jit``, ``to_device``, ``stream`` ...), since :func:`reset_usage`.
"""

from __future__ import annotations

import functools
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from typing import Any, Callable

# Kept from numba.cuda although cudajit defines or lacks them: the tests' skip decorators and
# helpers read them (numba's settings module; whether the numba package is installed), and
# `types`: the tests import it as `from numba.cuda import types`, a line that a program moved to
# cudajit by replacing `from numba import cuda` keeps (so it gets numba-cuda's types, which
# cudajit takes wherever it takes a type), and hand its objects to numba-cuda's own helpers
# (numpy_support.as_dtype, its typing tests), which know no other types.
FROM_NUMBA = ("config", "HAS_NUMBA", "types")

# cudajit's submodules that are its user API under numba.cuda's names (cuda.cudadrv.driver,
# cuda.libdevice.sinf, cuda.fp16.hadd, cuda.cg.this_grid, cuda.float32x4's module): the tests
# get cudajit's, and names only numba-cuda has (its typing registries, cudadrv.driver.Stream)
# from numba-cuda's module of that name, which numba-cuda's own lazy imports (`from . import
# vector_types` inside a function, run while numba.cuda is bound) need. cudajit's other
# submodules (compiler, dispatcher, errors, api, intrinsics, args) are its implementation,
# not numba.cuda's API; where numba.cuda has a submodule of the same name (numba.cuda.compiler
# with run_frontend ...), the tests reach numba-cuda's internals, so they get numba-cuda's.
API_MODULES = ("cudadrv", "libdevice", "fp16", "bf16", "cg", "vector_types")

# numba-cuda modules that are helpers of the tests, not tests: they see the real numba.cuda.
# extensions_usecases defines types with Numba's extension API (not a kernel in it); bound to
# cudajit it failed to import and took down every test of the three files that import it,
# where only the few that use its types need the extension API.
HELPER_MODULES = ("numba.cuda.tests", "numba.cuda.tests.support",
                  "numba.cuda.tests.cudapy.extensions_usecases")

# numba-cuda's internal modules that also define part of numba.cuda's API (numba.cuda.compile_ptx
# is numba.cuda.compiler.compile_ptx): the tests get numba-cuda's module, but those of its names
# that numba.cuda re-exports are cudajit's (see :func:`_api_view`). The tests import them from
# there (`from numba.cuda.compiler import compile_ptx`) and pass them cudajit's types, which
# numba-cuda's compile_ptx refuses ("invalid type in signature").
API_DEFINING_MODULES = ("compiler",)

# numba-cuda's modules that the tests import functions from by path (`from numba.cuda.bf16
# import hadd`, which reads sys.modules, not numba.cuda's attribute), with the cudajit module
# that holds those functions and the names numba-cuda spells differently there.
# _internal.cuda_bf16 is numba-cuda's generated binding of cuda_bf16.h (nv_bfloat16, htrunc ...).
# _internal.cuda_fp8 is its binding of cuda_fp8.h (fp8_e4m3 ..., cvt_float_to_fp8 ...).
# kernels.transpose: numba-cuda's transpose() compiles a kernel of its own with numba-cuda's
# typing (nps.from_dtype), which cudajit's front end cannot take; cudajit has its own.
BY_PATH_MODULES = {"bf16": ("bf16", {}),
                   "_internal.cuda_bf16": ("bf16", {"nv_bfloat16": "bfloat16"}),
                   "_internal.cuda_fp8": ("fp8", {}),
                   "kernels.transpose": ("kernels.transpose", {})}

USED = {"kernel": 0, "api": 0}


def reset_usage() -> None:
    """Zero the counters (at the start of each test)."""
    for key in USED:
        USED[key] = 0


def _counting(kind: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """``function``, counting its calls in USED[kind]."""
    @functools.wraps(function)
    def counted(*args: Any, **kwargs: Any) -> Any:
        """Count, then call."""
        USED[kind] += 1
        return function(*args, **kwargs)
    return counted


def _count_cudajit_entry_points(cudajit: types.ModuleType) -> None:
    """Count compiles (the front end builds a kernel's IR) and launches (a launch
    configuration is made, inspected or compiled eagerly) in USED['kernel']."""
    frontend, dispatcher = cudajit.frontend, cudajit.dispatcher
    for name in ("build_module", "build_kernel_module"):
        setattr(frontend, name, _counting("kernel", getattr(frontend, name)))
    cls = dispatcher.Dispatcher
    for name in ("__getitem__", "configure", "forall", "compile", "_inspect"):
        setattr(cls, name, _counting("kernel", getattr(cls, name)))


def _is_test_module(name: str) -> bool:
    """Modules of numba-cuda's test folders that are not packages nor helpers."""
    return name.startswith("numba.cuda.tests.") and name not in HELPER_MODULES


class _RealCudaLoader(importlib.abc.Loader):
    """Runs a numba-cuda module with the real numba.cuda bound, then binds back."""

    def __init__(self, loader: importlib.abc.Loader, real: types.ModuleType) -> None:
        """Wrap ``loader``; ``real`` is numba.cuda."""
        self.loader = loader
        self.real = real

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> Any:
        """As the wrapped loader."""
        return self.loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        """Run the module with the real numba.cuda bound."""
        previous = sys.modules["numba.cuda"]
        _bind(self.real)
        try:
            self.loader.exec_module(module)
        finally:
            _bind(previous)


class _NumbaInternalsFinder(importlib.abc.MetaPathFinder):
    """Finds numba.cuda.* modules as the other finders do; numba-cuda's own get the real
    numba.cuda while they import."""

    def __init__(self, real: types.ModuleType) -> None:
        """``real`` is numba.cuda."""
        self.real = real

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        """The other finders' spec, its loader wrapped, for numba-cuda's own modules."""
        if not name.startswith("numba.cuda.") or _is_test_module(name):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _RealCudaLoader(spec.loader, self.real)
                return spec
        return None


def _bind(module: types.ModuleType) -> None:
    """Make ``module`` what ``numba.cuda`` imports as."""
    sys.modules["numba.cuda"] = module
    setattr(sys.modules["numba"], "cuda", module)


def _public(module: types.ModuleType) -> dict[str, Any]:
    """The module's names that do not start with an underscore."""
    return {k: v for k, v in vars(module).items() if not k.startswith("_")}


def make_cuda_module(real: types.ModuleType, cudajit: types.ModuleType) -> types.ModuleType:
    """The module the tests get for ``numba.cuda``: cudajit's names, numba's helpers."""
    module = types.ModuleType("cudajit", cudajit.__doc__)
    for name, value in _public(real).items():
        if isinstance(value, types.ModuleType):
            setattr(module, name, value)
    api_functions = set(getattr(cudajit.api, "__all__", ())) | {
        "jit", "as_cuda_array", "from_cuda_array_interface", "from_dlpack", "is_cuda_array"}
    for name, value in _public(cudajit).items():
        if isinstance(value, types.ModuleType) and _has_submodule(real, name):
            if name not in API_MODULES:
                continue  # numba.cuda.compiler ...: numba-cuda's internals, not cudajit's
            fallback = _real_submodule(real, name)
            if fallback is not None:
                value = _with_fallback(value, fallback)
        if name in api_functions and callable(value) and not isinstance(value, type):
            value = _counting("api", value)
        setattr(module, name, value)
    for name in FROM_NUMBA:
        if hasattr(real, name):
            setattr(module, name, getattr(real, name))
    module.__path__ = list(real.__path__)  # numba.cuda.* submodules still import
    module.__getattr__ = _submodule_getter(real)  # type: ignore[attr-defined]
    return module


def _real_submodule(real: types.ModuleType, name: str) -> types.ModuleType | None:
    """numba.cuda's submodule ``name``; under numba-cuda's simulator (NUMBA_ENABLE_CUDASIM)
    its GPU-only modules do not import (vector_types needs cuda.shared), and the simulator's
    own attribute of that name, if a module, stands in."""
    try:
        return importlib.import_module(f"{real.__name__}.{name}")
    except (ImportError, AttributeError):
        found = getattr(real, name, None)
        return found if isinstance(found, types.ModuleType) else None


def _has_submodule(real: types.ModuleType, name: str) -> bool:
    """Whether numba.cuda has a submodule ``name``, imported or not."""
    if isinstance(getattr(real, name, None), types.ModuleType):
        return True
    try:
        return importlib.util.find_spec(f"{real.__name__}.{name}") is not None
    except ImportError:
        return False


def _with_fallback(module: types.ModuleType, fallback: types.ModuleType) -> types.ModuleType:
    """A module holding ``module``'s names (the same objects, so cudajit's front end knows
    them in kernels) that looks up the names it lacks in ``fallback``, numba-cuda's module of
    the same name; cudajit's own module stays as it is."""
    merged = types.ModuleType(module.__name__, module.__doc__)
    merged.__dict__.update(vars(module))
    for name, value in vars(module).items():  # submodules of submodules: cudadrv.driver
        real = getattr(fallback, name, None)
        if (isinstance(value, types.ModuleType) and isinstance(real, types.ModuleType)
                and value is not real):
            setattr(merged, name, _with_fallback(value, real))

    def lookup(name: str) -> Any:
        """numba-cuda's ``name`` where cudajit has none."""
        try:
            return getattr(fallback, name)
        except AttributeError:
            raise AttributeError(f"module '{module.__name__}' has no attribute "
                                 f"'{name}'") from None
    merged.__getattr__ = lookup  # type: ignore[attr-defined]
    return merged


def _api_view(internal: types.ModuleType, real: types.ModuleType,
              bound: types.ModuleType) -> types.ModuleType:
    """numba-cuda's module ``internal`` (numba.cuda.compiler), but for the names that numba.cuda
    re-exports from it (the same objects) and the bound module has: those are the bound
    module's (cudajit's compile_ptx), as ``from numba.cuda import compile_ptx`` gives. Its other
    names (run_frontend, compile_internal ...) are numba-cuda's, looked up in ``internal``."""
    view = types.ModuleType(internal.__name__, internal.__doc__)
    for name in ("__file__", "__spec__", "__loader__", "__package__"):
        if hasattr(internal, name):
            setattr(view, name, getattr(internal, name))
    for name, value in _public(internal).items():
        if getattr(real, name, None) is value and hasattr(bound, name):
            setattr(view, name, getattr(bound, name))

    def lookup(name: str) -> Any:
        """numba-cuda's ``name``."""
        return getattr(internal, name)
    view.__getattr__ = lookup  # type: ignore[attr-defined]
    return view


def _submodule_getter(real: types.ModuleType) -> Callable[[str], types.ModuleType]:
    """A module __getattr__: numba.cuda's submodules that are not imported yet
    (``from numba.cuda import launchconfig``)."""
    def submodule(name: str) -> types.ModuleType:
        """numba.cuda.<name> if it is a module numba.cuda has not imported yet."""
        if not name.startswith("_") and not hasattr(real, name):
            try:
                found = importlib.util.find_spec(f"{real.__name__}.{name}")
            except ImportError:
                found = None
            if found is not None:
                return importlib.import_module(f"{real.__name__}.{name}")
        raise AttributeError(f"module 'cudajit' has no attribute '{name}'")
    return submodule


# numba-cuda's warning classes and cudajit's of the same meaning: a program moved to cudajit
# that filters or catches numba-cuda's (`from numba.cuda.core.errors import ...`) gets cudajit's.
ERROR_CLASSES = {"NumbaPerformanceWarning": "PerformanceWarning",
                 "NumbaInvalidConfigWarning": "InvalidConfigWarning",
                 "NumbaDebugInfoWarning": "DebugInfoWarning"}


def _bind_error_classes(cudajit: types.ModuleType) -> None:
    """numba.cuda.core.errors' classes in ERROR_CLASSES are cudajit's (numba-cuda's own
    modules, which raise them, get cudajit's too: the same meaning, one class)."""
    errors = importlib.import_module("numba.cuda.core.errors")
    for numba_name, cudajit_name in ERROR_CLASSES.items():
        setattr(errors, numba_name, getattr(cudajit.errors, cudajit_name))
    _compile_errors_are_typing_errors(cudajit)


def _compile_errors_are_typing_errors(cudajit: types.ModuleType) -> None:
    """cudajit's CompileError becomes a subclass of Numba's and numba-cuda's TypingError (two
    classes), so that a program moved to cudajit that catches those (``except TypingError``,
    ``assertRaises(TypingError)``) catches cudajit's compile errors, where numba-cuda raises
    TypingError for the same kernels. CompileError's own ``__init__`` and ``__str__`` stay."""
    bases = tuple(importlib.import_module(name).TypingError
                  for name in ("numba.cuda.core.errors", "numba.core.errors"))
    error = cudajit.errors.CompileError
    if not issubclass(error, bases):
        error.__bases__ = bases


# numba.core.config's settings that cudajit.config has under the same name: the tests set them
# on Numba's module (override_config), and cudajit follows.
FOLLOWED_SETTINGS = ("CUDA_LOW_OCCUPANCY_WARNINGS", "CUDA_WARN_ON_IMPLICIT_COPY",
                     "DISABLE_PERFORMANCE_WARNINGS", "CUDA_DEBUGINFO_DEFAULT", "OPT",
                     "CUDA_ARRAY_INTERFACE_SYNC", "CUDA_NVRTC_EXTRA_SEARCH_PATHS",
                     "CUDA_DEALLOCS_COUNT", "CUDA_DEALLOCS_RATIO")


def _follow_numba_config(cudajit: types.ModuleType) -> None:
    """Assignments to numba.core.config's FOLLOWED_SETTINGS are made to cudajit.config too."""
    numba_config = importlib.import_module("numba.core.config")
    ours = cudajit.config

    class FollowedConfig(types.ModuleType):
        """numba.core.config, forwarding its followed settings to cudajit.config."""

        def __setattr__(self, name: str, value: Any) -> None:
            super().__setattr__(name, value)
            if name in FOLLOWED_SETTINGS:
                setattr(ours, name, value)

    numba_config.__class__ = FollowedConfig
    for name in FOLLOWED_SETTINGS:
        if hasattr(numba_config, name):
            setattr(ours, name, getattr(numba_config, name))


def _bind_ufunc_targets() -> None:
    """Numba's ``vectorize``/``guvectorize(target="cuda")`` build numba.cuda's ufuncs
    (``numba.cuda.vectorizers``, imported on first use): bound, cudajit's."""
    from numba.np.ufunc.decorators import GUVectorize, Vectorize

    from cudajit.vectorizers import CUDAGUFuncVectorize, CUDAVectorize
    for registry, builder in ((Vectorize.target_registry, CUDAVectorize),
                              (GUVectorize.target_registry, CUDAGUFuncVectorize)):
        registry.ondemand.pop("cuda", None)
        dict.__setitem__(registry, "cuda", builder)  # a UniqueDict refuses a second value


def _bind_support_error(cudajit: types.ModuleType) -> None:
    """``from numba.cuda.cudadrv.error import CudaSupportError`` gives cudajit's class, which
    cudajit raises where CUDA is unusable (the same meaning). Set on numba-cuda's module, so
    only later imports see it: numba-cuda's own modules keep raising theirs."""
    error_module = importlib.import_module("numba.cuda.cudadrv.error")
    error_module.CudaSupportError = cudajit.errors.CudaSupportError


def _nvrtc_errors_are_cuda_cores(cudajit: types.ModuleType) -> None:
    """cudajit's NvrtcError (CUDA C++ in ``link=`` that does not compile) becomes a subclass
    of cuda.core's NVRTCError too, which numba-cuda raises for the same code (its message has
    the same ``NVRTC_ERROR_COMPILATION in the compilation of "file.cu"``)."""
    try:
        from cuda.core._utils.cuda_utils import NVRTCError
    except ImportError:  # numba-cuda without cuda.core: nothing to catch
        return
    error = cudajit.errors.NvrtcError
    if not issubclass(error, NVRTCError):
        error.__bases__ = (*error.__bases__, NVRTCError)


def _bind_linker_error(cudajit: types.ModuleType) -> None:
    """``from numba.cuda.cudadrv.driver import LinkerError`` gives cudajit's class, which
    cudajit raises for a ``link=`` file that does not exist or is of no known kind."""
    driver = importlib.import_module("numba.cuda.cudadrv.driver")
    driver.LinkerError = cudajit.errors.LinkerError


def install() -> None:
    """Import numba.cuda (and the tests' helpers) for real, then bind numba.cuda to cudajit.
    Once per process (sitecustomize.py calls it, so subprocesses of the tests bind too)."""
    if any(isinstance(f, _NumbaInternalsFinder) for f in sys.meta_path):
        return
    for name in ("numba.cuda", "numba.cuda.testing", *HELPER_MODULES):
        importlib.import_module(name)
    real = sys.modules["numba.cuda"]
    cudajit = importlib.import_module("cudajit")
    importlib.import_module("cudajit.random")
    _count_cudajit_entry_points(cudajit)
    _bind_ufunc_targets()
    _bind_error_classes(cudajit)
    _nvrtc_errors_are_cuda_cores(cudajit)
    _bind_linker_error(cudajit)
    _bind_support_error(cudajit)
    _follow_numba_config(cudajit)
    module = make_cuda_module(real, cudajit)
    sys.meta_path.insert(0, _NumbaInternalsFinder(real))
    sys.modules["numba.cuda.random"] = cudajit.random
    for name in API_DEFINING_MODULES:
        internal = _real_submodule(real, name)
        if internal is None:
            continue
        view = _api_view(internal, real, module)
        sys.modules[f"numba.cuda.{name}"] = view
        setattr(module, name, view)
    for path, (cudajit_name, renamed) in BY_PATH_MODULES.items():
        fallback = _real_submodule(real, path)
        ours = importlib.import_module(f"cudajit.{cudajit_name}")
        if fallback is not None:
            view = _with_fallback(ours, fallback)
        else:  # a copy, so that the renamed names stay out of cudajit's module
            view = types.ModuleType(ours.__name__, ours.__doc__)
            view.__dict__.update(vars(ours))
        for numba_name, cudajit_attr in renamed.items():
            setattr(view, numba_name, getattr(ours, cudajit_attr))
        sys.modules[f"numba.cuda.{path}"] = view
    _bind(module)
