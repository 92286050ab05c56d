"""``cuda.vectorize``: a scalar function made a ufunc over arrays, as numba.cuda's.

    @cuda.vectorize(["float32(float32, float32)", "float64(float64, float64)"])
    def rel_diff(a, b):
        return 2 * (a - b) / (a + b)

    rel_diff(x, y)                   # NumPy arrays in: a NumPy array out
    rel_diff(dx, dy, stream=s)       # device arrays in: a device array out, on stream s
    rel_diff(x, 1.5, out=d_out)      # scalars broadcast; out= is written

The function becomes a device function; each call picks the first declared signature
that the inputs' dtypes cast to safely (NumPy's rule; an exact match first), broadcasts
the inputs as NumPy does, and runs a kernel of one thread per output element that calls
the device function with the inputs converted to the signature's types. Without
signatures, the inputs' own dtypes are the argument types and the result type is what
the function returns for them.
"""

from __future__ import annotations

import itertools
import sys
import warnings
from typing import Any, Callable, Sequence

import numpy as np

from . import _core, frontend
from . import types as cjtypes
from .api import device_array, to_device
from .compiler import compile_ptx, jit
from .devicearray import device_view, is_device_array
from .dispatcher import return_type_from_name
from .function_pickling import bind_owner, by_value
from .source import attach_text, function_from_text, function_text

__all__ = ["vectorize", "CUDAUFunc"]

_THREADS = 256
_names = itertools.count()


def _rebuild_ufunc(pyfunc: Callable[..., Any], signatures: Sequence[Any],
                   options: dict[str, Any], text: tuple[int, list[str]] | None) -> "CUDAUFunc":
    if text is not None:
        attach_text(pyfunc, *text)
    ufunc = CUDAUFunc(pyfunc, signatures, options)
    bind_owner(pyfunc, ufunc)
    return ufunc


def vectorize(signatures: Any = None, target: str = "cuda", **options: Any) -> Callable:
    """``@cuda.vectorize(signatures)``: a CUDA ufunc from a scalar function (Numba's
    vectorize with target="cuda"); ``@cuda.vectorize`` without signatures types each call
    by its inputs."""
    if target not in ("cuda", "gpu"):
        raise ValueError(f"cuda.vectorize compiles for target 'cuda'; got target={target!r}")
    options = vectorize_options(options)
    if callable(signatures) and not isinstance(signatures, (str, list, tuple)):
        return CUDAUFunc(signatures, [], options)
    declared = [] if signatures is None else \
        [signatures] if isinstance(signatures, str) else list(signatures)
    return lambda pyfunc: CUDAUFunc(pyfunc, declared, options)


# Options a CUDA ufunc takes beyond numba-cuda's (which takes none but nopython).
UFUNC_OPTIONS = ("fastmath",)


def vectorize_options(options: dict[str, Any]) -> dict[str, Any]:
    """``options`` checked as numba-cuda's vectorize checks them: ``nopython`` is redundant (a
    RuntimeWarning), ``cache=True`` is refused (TypeError), ``identity`` is accepted, any other
    name than :data:`UFUNC_OPTIONS` is a KeyError naming it."""
    options = dict(options)
    options.pop("identity", None)
    if options.pop("cache", False):
        raise TypeError("caching is not supported")
    if options.pop("nopython", None) is not None:
        warnings.warn("nopython kwarg for cuda target is redundant", RuntimeWarning,
                      stacklevel=3)
    for name in options:
        if name not in UFUNC_OPTIONS:
            raise KeyError(f"Unrecognized options. cuda vectorize target does not support option: "
                           f"'{name}' (it takes {', '.join(UFUNC_OPTIONS)})")
    return options


class CUDAUFunc:
    """A ufunc whose loop is a cudajit kernel."""

    def __init__(self, pyfunc: Callable[..., Any], signatures: Sequence[Any],
                 options: dict[str, Any]):
        self.py_func = pyfunc
        self.__name__ = getattr(pyfunc, "__name__", "ufunc")
        self.__doc__ = getattr(pyfunc, "__doc__", None)
        self.nin = pyfunc.__code__.co_argcount
        self.nout = 1
        self._options = dict(options)
        self._device = jit(device=True, fastmath=options.get("fastmath", False))(pyfunc)
        self._signatures = [cjtypes.parse_signature(s) for s in signatures]
        for k, sig in enumerate(self._signatures):
            if len(sig.args) != self.nin:
                raise TypeError(f"vectorize signature {sig} has {len(sig.args)} arguments; "
                                f"'{self.__name__}' takes {self.nin}")
            if sig.return_type is None:  # (float32, float32): the type the function returns
                sig = self._signatures[k] = cjtypes.Signature(self._inferred_return(sig), sig.args)
            if not isinstance(sig.return_type, cjtypes.ScalarType):
                raise TypeError(f"vectorize signature {sig} must return a scalar type")
        self._kernels: dict[tuple, Any] = {}

    def _inferred_return(self, sig: Any) -> Any:
        """What the function returns for a signature's argument types, as Numba infers a
        vectorize signature given without its return type."""
        name = _core.Program(frontend.build_module(self.py_func)).return_type(
            [str(t) for t in sig.args], device=True)
        return return_type_from_name(name)

    @property
    def types(self) -> list[str]:
        """The declared loops in NumPy's spelling ('ff->f')."""
        return ["".join(np.dtype(t.numpy_dtype).char for t in s.args) + "->" +
                np.dtype(s.return_type.numpy_dtype).char for s in self._signatures]

    def __repr__(self) -> str:
        return f"<cudajit vectorized ufunc {self.__name__}>"

    def __reduce__(self) -> tuple:
        """Pickled by its Python function (by value, as a kernel made in a function is), its
        declared loops and options: compiled anew where it is unpickled."""
        return (_rebuild_ufunc, (by_value(self.py_func, self), self._signatures, self._options,
                                 function_text(self.py_func)))

    def __call__(self, *args: Any, out: Any = None, stream: Any = 0) -> Any:
        if len(args) != self.nin:
            raise TypeError(f"ufunc '{self.__name__}' takes {self.nin} inputs, got {len(args)}")
        # Foreign device arrays (the CUDA Array Interface) are device arrays here, as in Numba:
        # used in place, and an `out` of them is written and returned as a cudajit view.
        args, out = tuple(device_view(a) for a in args), device_view(out)
        on_device = any(is_device_array(a) for a in args) or is_device_array(out)
        inputs = [a if is_device_array(a) else np.asarray(a) for a in args]
        arg_types, result_type = self._loop([np.dtype(a.dtype) for a in inputs])
        shape = np.broadcast_shapes(*(tuple(a.shape) for a in inputs))
        if out is not None and tuple(out.shape) != shape:
            raise ValueError(f"ufunc '{self.__name__}': out has shape {tuple(out.shape)}, the "
                             f"inputs broadcast to {shape}")
        result_dtype = np.dtype(result_type.numpy_dtype)
        if out is not None and np.dtype(out.dtype) != result_dtype:
            raise TypeError(f"ufunc '{self.__name__}': out has dtype {np.dtype(out.dtype)}, the "
                            f"loop makes {result_dtype}")
        size = int(np.prod(shape, dtype=np.int64))
        # Each input: a scalar (size 1) passed by value, or an array of the full shape,
        # flattened; other broadcasts are made on the host.
        kernel_args, pattern = [], []
        for a, t in zip(inputs, arg_types):
            if a.size == 1 and size != 1:
                value = a.copy_to_host() if is_device_array(a) else a
                kernel_args.append(np.asarray(value).reshape(()).astype(t.numpy_dtype)[()])
                pattern.append("scalar")
                continue
            if tuple(a.shape) != shape:
                host = a.copy_to_host() if is_device_array(a) else a
                a = np.ascontiguousarray(np.broadcast_to(host, shape))
            if is_device_array(a):
                flat = a.ravel() if a.is_c_contiguous() else \
                    to_device(np.ascontiguousarray(a.copy_to_host()), stream=stream)
            else:
                flat = to_device(np.ascontiguousarray(a).reshape(-1), stream=stream)
            kernel_args.append(flat.reshape(size) if size else flat)
            pattern.append("array")
        result = device_array(shape, dtype=result_dtype, stream=stream) \
            if out is None or not is_device_array(out) or not out.is_c_contiguous() else out
        if size:
            kernel = self._kernel(tuple(pattern), tuple(str(t) for t in arg_types))
            blocks = (size + _THREADS - 1) // _THREADS
            kernel[blocks, _THREADS, stream](*kernel_args, result.reshape(size))
        if out is not None:
            if out is not result:
                if is_device_array(out):
                    out[...] = result.copy_to_host(stream=stream)
                else:
                    result.copy_to_host(out, stream=stream)
            return out
        return result if on_device else result.copy_to_host(stream=stream)

    def reduce(self, arg: Any, stream: Any = 0) -> Any:
        """Fold a 1-d array (host or device) with this binary ufunc on the device, as Numba's
        CUDA ufuncs do: the two halves combined element by element, again and again (log2(n)
        launches; the order of the operations is not the sequential one). ``arg`` is left
        as it is. Returns a NumPy scalar of the loop's result type."""
        if self.nin != 2:
            raise TypeError(f"reduce needs a binary ufunc; '{self.__name__}' takes {self.nin} "
                            f"inputs")
        ndim = len(getattr(arg, "shape", np.shape(arg)))
        if ndim != 1:
            raise ValueError(f"ufunc '{self.__name__}'.reduce needs a 1-d array, got {ndim} "
                             f"dimensions")
        n = arg.shape[0]
        if n == 0:
            raise TypeError("Reduction on an empty array.")
        dtype = np.dtype(arg.dtype)
        _, result_type = self._loop([dtype, dtype])
        result_dtype = np.dtype(result_type.numpy_dtype)
        # A copy of the loop's result type, folded in place: its left half takes each step.
        if is_device_array(arg) and dtype == result_dtype:
            work = device_array(n, dtype=result_dtype, stream=stream)
            work.copy_to_device(arg, stream=stream)
        else:
            host = arg.copy_to_host(stream=stream) if is_device_array(arg) else np.asarray(arg)
            work = to_device(np.ascontiguousarray(host, dtype=result_dtype), stream=stream)
        while n > 1:
            half = n // 2
            self(work[:half], work[half:2 * half], out=work[:half], stream=stream)
            if n % 2:  # the last element joins the first
                self(work[:1], work[n - 1:n], out=work[:1], stream=stream)
            n = half
        return work[:1].copy_to_host(stream=stream)[0]

    def _loop(self, dtypes: list[np.dtype]) -> tuple[list[cjtypes.ScalarType], Any]:
        """The argument types and result type for inputs of these dtypes."""
        if not self._signatures:
            arg_types = [cjtypes.from_dtype(d) for d in dtypes]
            _, result = compile_ptx(self.py_func, tuple(arg_types), device=True)
            if not isinstance(result, cjtypes.ScalarType):
                raise TypeError(f"ufunc '{self.__name__}' returns {result} for "
                                f"({', '.join(map(str, arg_types))}); a ufunc returns a number")
            return arg_types, result
        for rule in ("equiv", "safe"):
            for sig in self._signatures:
                if all(np.can_cast(d, t.numpy_dtype, casting=rule)
                       for d, t in zip(dtypes, sig.args)):
                    return list(sig.args), sig.return_type
        raise TypeError(f"ufunc '{self.__name__}' has no loop for inputs "
                        f"({', '.join(str(d) for d in dtypes)}); its loops are "
                        f"{', '.join(str(s) for s in self._signatures)}")

    def _kernel(self, pattern: tuple[str, ...], arg_types: tuple[str, ...]) -> Any:
        key = (pattern, arg_types)
        kernel = self._kernels.get(key)
        if kernel is None:
            kernel = self._kernels[key] = self._make_kernel(pattern, arg_types)
        return kernel

    def _make_kernel(self, pattern: tuple[str, ...], arg_types: tuple[str, ...]) -> Any:
        """The loop kernel, written as Python source (cudajit compiles source)."""
        names = [f"a{k}" for k in range(self.nin)]
        calls = [f"T{k}({n}[i])" if p == "array" else f"T{k}({n})"
                 for k, (n, p) in enumerate(zip(names, pattern))]
        # datetime64/timedelta64 inputs come in their loop's type already: no cast to make
        calls = [c[c.index("(") + 1:-1] if t.startswith(("datetime64", "timedelta64")) else c
                 for c, t in zip(calls, arg_types)]
        name = f"ufunc_{self.__name__}_{next(_names)}"
        text = (f"def {name}({', '.join(names)}, out):\n"
                f"    i = cuda.grid(1)\n"
                f"    if i < out.size:\n"
                f"        out[i] = f({', '.join(calls)})\n")
        scope: dict[str, Any] = {"cuda": sys.modules[__package__], "f": self._device}
        for k, t in enumerate(arg_types):
            scope[f"T{k}"] = getattr(cjtypes, t, None) or cjtypes.SIGNATURE_NAMESPACE[t]
        return jit(function_from_text(text, name, scope, f"<cudajit vectorize {self.__name__}>"))
