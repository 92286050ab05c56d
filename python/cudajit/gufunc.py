"""``cuda.guvectorize``: a function over core dimensions made a generalized ufunc, as
numba.cuda's.

    @cuda.guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->()")
    def dot(a, b, res):
        acc = 0.0
        for i in range(a.shape[0]):
            acc += a[i] * b[i]
        res[0] = acc

    dot(x, y)   # x, y of shape (..., n): a result of shape (...)

The layout names each argument's core dimensions; the leading (loop) dimensions of the
inputs broadcast as NumPy's do, and one thread runs the function for each loop index,
given views of the core dimensions: an input of layout "()" whose declared type is a
scalar is passed as that number, an output of layout "()" as a 1-element array (Numba's
convention). The loop is the first declared signature the inputs' dtypes cast to safely.
"""

from __future__ import annotations

import itertools
import re
import sys
from typing import Any, Callable, Sequence

import numpy as np

from . import types as cjtypes
from .api import device_array, to_device
from .compiler import jit
from .devicearray import device_view, is_device_array
from .source import function_from_text

__all__ = ["guvectorize", "CUDAGUFunc"]

_THREADS = 128
_names = itertools.count()
_SIDE = re.compile(r"\([\w,]*\)(,\([\w,]*\))*")


def _parse_layout(layout: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """'(n),(n)->()' as the core dimension names of the inputs and of the outputs."""
    sides = layout.replace(" ", "").split("->")
    if len(sides) != 2 or not all(_SIDE.fullmatch(side) for side in sides):
        raise ValueError(f"guvectorize layout {layout!r}: expected a form such as "
                         "'(m,n),(n)->(m)'")
    inputs, outputs = ([tuple(d for d in arg.split(",") if d)
                        for arg in re.findall(r"\(([\w,]*)\)", side)] for side in sides)
    return inputs, outputs


def guvectorize(signatures: Any, layout: str, target: str = "cuda", **options: Any) -> Callable:
    """``@cuda.guvectorize(signatures, layout)``: a CUDA generalized ufunc."""
    if target not in ("cuda", "gpu"):
        raise ValueError(f"cuda.guvectorize compiles for target 'cuda'; got target={target!r}")
    options = guvectorize_options(options)
    declared = [signatures] if isinstance(signatures, str) else list(signatures)
    return lambda pyfunc: CUDAGUFunc(pyfunc, declared, layout, options)


# Options a CUDA gufunc takes beyond numba-cuda's (which takes none but nopython=True).
GUFUNC_OPTIONS = ("fastmath",)


def guvectorize_options(options: dict[str, Any]) -> dict[str, Any]:
    """``options`` checked as numba-cuda's guvectorize checks them (TypeErrors): caching and
    writable_args are not supported, ``nopython`` must be True, and names other than
    :data:`GUFUNC_OPTIONS` are listed as not supported."""
    options = dict(options)
    options.pop("identity", None)
    if options.pop("cache", False):
        raise TypeError("caching is not supported")
    if options.pop("writable_args", ()):
        raise TypeError("writable_args are not supported")
    if not options.pop("nopython", True):
        raise TypeError("nopython flag must be True")
    unknown = [name for name in options if name not in GUFUNC_OPTIONS]
    if unknown:
        raise TypeError("The following target options are not supported: "
                        + ", ".join(repr(name) for name in unknown))
    return options


def _element_dtype(t: Any) -> np.dtype:
    """The NumPy dtype of a gufunc argument type: an array's elements, or the scalar."""
    return np.dtype(t.dtype.numpy_dtype if isinstance(t, cjtypes.Array) else t.numpy_dtype)


def _positional(n: int) -> str:
    return f"{n} positional argument{'s' * (n != 1)}"


class CUDAGUFunc:
    """A generalized ufunc whose loop is a cudajit kernel."""

    def __init__(self, pyfunc: Callable[..., Any], signatures: Sequence[Any], layout: str,
                 options: dict[str, Any]):
        self.py_func = pyfunc
        self.__name__ = getattr(pyfunc, "__name__", "gufunc")
        self.layout = layout
        self.inputs, self.outputs = _parse_layout(layout)
        self.nin, self.nout = len(self.inputs), len(self.outputs)
        if pyfunc.__code__.co_argcount != self.nin + self.nout:
            raise TypeError(f"'{self.__name__}' takes {pyfunc.__code__.co_argcount} arguments; "
                            f"the layout {layout!r} has {self.nin + self.nout}")
        self._signatures = [cjtypes.parse_signature(s) for s in signatures]
        if not self._signatures:
            raise TypeError("cuda.guvectorize needs at least one signature")
        for sig in self._signatures:
            if sig.return_type not in (None, cjtypes.none):
                raise TypeError(f"guvectorized functions cannot return values: signature {sig} "
                                f"specifies {sig.return_type} return type")
            if len(sig.args) != self.nin + self.nout:
                raise TypeError(f"guvectorize signature {sig} has {len(sig.args)} arguments; "
                                f"the layout {layout!r} has {self.nin + self.nout}")
        self._device = jit(device=True, fastmath=options.get("fastmath", False))(pyfunc)
        self._kernels: dict[str, Any] = {}

    def __repr__(self) -> str:
        return f"<cudajit generalized ufunc {self.__name__} {self.layout}>"

    def __call__(self, *args: Any, out: Any = None, stream: Any = 0) -> Any:
        if out is None and len(args) not in (self.nin, self.nin + self.nout):
            raise TypeError(f"gufunc '{self.__name__}': this gufunc accepts "
                            f"{_positional(self.nin)} (when providing input only) or "
                            f"{_positional(self.nin + self.nout)} (when providing input and "
                            f"output). Got {_positional(len(args))}.")
        if out is not None and len(args) > self.nin:
            raise ValueError("cannot specify argument 'out' as both positional and keyword")
        if len(args) == self.nin + self.nout:
            args, out = args[:self.nin], args[self.nin:]
        elif out is not None:
            out = out if isinstance(out, tuple) else (out,)
        if len(args) != self.nin:
            raise TypeError(f"gufunc '{self.__name__}' takes {self.nin} inputs, got {len(args)}")
        # Foreign device arrays (the CUDA Array Interface) are device arrays here, as in Numba.
        args = tuple(device_view(a) for a in args)
        if out is not None:
            out = tuple(device_view(o) for o in out)
        on_device = any(is_device_array(a) for a in args)
        inputs = [a if is_device_array(a) else np.asarray(a) for a in args]
        sig = self._loop(args, inputs)
        sizes: dict[str, int] = {}
        loops = []
        for k, (a, core) in enumerate(zip(inputs, self.inputs)):
            if a.ndim < len(core):
                raise ValueError(f"gufunc '{self.__name__}': input {k} has {a.ndim} dimensions, "
                                 f"its core ({','.join(core)}) needs {len(core)}")
            for name, extent in zip(core, a.shape[a.ndim - len(core):]):
                if sizes.setdefault(name, extent) != extent:
                    raise ValueError(f"gufunc '{self.__name__}': dimension {name} is "
                                     f"{sizes[name]} and {extent} in the inputs")
            loops.append(tuple(a.shape[:a.ndim - len(core)]))
        loop_shape = np.broadcast_shapes(*loops)
        count = int(np.prod(loop_shape, dtype=np.int64))
        kernel_args = []
        for a, core, t in zip(inputs, self.inputs, sig.args[:self.nin]):
            core_shape = tuple(sizes[d] for d in core)
            host = a.copy_to_host() if is_device_array(a) else a
            if not core and isinstance(t, cjtypes.Array):
                # A "()" input declared as an array (Numba's old style): a 1-element view.
                core_shape, host = (1,), np.reshape(host, np.shape(host) + (1,))
            full = np.ascontiguousarray(np.broadcast_to(host, loop_shape + core_shape),
                                        dtype=_element_dtype(t))
            kernel_args.append(to_device(full.reshape((count,) + core_shape), stream=stream))
        results = []
        for k, (core, t) in enumerate(zip(self.outputs, sig.args[self.nin:])):
            if any(d not in sizes for d in core):
                raise ValueError(f"gufunc '{self.__name__}': output {k}'s dimensions "
                                 f"({','.join(core)}) must appear in the inputs")
            core_shape = tuple(sizes[d] for d in core) or (1,)
            dtype = _element_dtype(t)
            results.append(device_array((count,) + core_shape, dtype=dtype, stream=stream))
        if count:
            kernel = self._kernel()
            kernel[(count + _THREADS - 1) // _THREADS, _THREADS, stream](*kernel_args, *results)
        shaped = []
        for r, core in zip(results, self.outputs):
            final_shape = loop_shape + tuple(sizes[d] for d in core)
            shaped.append(r.reshape(final_shape) if final_shape else r)  # () stays (1,)
        if out is not None:
            for target, r in zip(out, shaped):
                values = r.copy_to_host(stream=stream).reshape(np.shape(target))
                if is_device_array(target):
                    target.copy_to_device(values, stream=stream)
                else:
                    np.copyto(target, values)
            return out[0] if self.nout == 1 else out
        made = [r if on_device else r.copy_to_host(stream=stream) for r in shaped]
        if not loop_shape and not on_device:  # no loop dimensions: a "()" output is a number
            made = [m.reshape(()) if not core else m for m, core in zip(made, self.outputs)]
        return made[0] if self.nout == 1 else tuple(made)

    def _loop(self, args: Sequence[Any], inputs: Sequence[Any]) -> Any:
        """The first declared signature the inputs cast to: exactly, then safely, then within
        their kind (numba-cuda casts host inputs to a loop it finds). A Python number is
        weak, as in NumPy: judged by its value (10 fits an int32 loop). Device arrays are not
        cast."""
        def fits(arg: Any, given: np.dtype, wanted: np.dtype, rule: str) -> bool:
            if isinstance(arg, (bool, int, float, complex)):
                return np.can_cast(np.min_scalar_type(arg), wanted, casting="safe") or \
                    np.can_cast(given, wanted, casting=rule)
            return np.can_cast(given, wanted, casting=rule)

        dtypes = [np.dtype(a.dtype) for a in inputs]
        for rule in ("equiv", "safe", "same_kind"):
            for sig in self._signatures:
                wanted = [_element_dtype(t) for t in sig.args[:self.nin]]
                if all(fits(arg, d, w, rule) for arg, d, w in zip(args, dtypes, wanted)):
                    for k, (a, d, w) in enumerate(zip(inputs, dtypes, wanted)):
                        if is_device_array(a) and d != w:
                            raise TypeError(
                                f"gufunc '{self.__name__}': input {k} is a device array of {d} "
                                f"and the loop {sig} takes {w}; a compatible signature is "
                                f"possible by casting, but a device array does not support "
                                f".astype(): cast it first")
                    return sig
        raise TypeError(f"gufunc '{self.__name__}' has no loop for inputs "
                        f"({', '.join(str(d) for d in dtypes)}); its loops are "
                        f"{', '.join(str(s) for s in self._signatures)}")

    def _kernel(self) -> Any:
        if "loop" not in self._kernels:
            self._kernels["loop"] = self._make_kernel()
        return self._kernels["loop"]

    def _make_kernel(self) -> Any:
        """The loop kernel as Python source: thread i calls the function on row i of every
        argument (a number for a scalar input, a view of the core dimensions otherwise)."""
        names = [f"a{k}" for k in range(self.nin + self.nout)]
        name = f"gufunc_{self.__name__}_{next(_names)}"
        text = (f"def {name}({', '.join(names)}):\n"
                f"    i = cuda.grid(1)\n"
                f"    if i < {names[0]}.shape[0]:\n"
                f"        f({', '.join(n + '[i]' for n in names)})\n")
        scope: dict[str, Any] = {"cuda": sys.modules[__package__], "f": self._device}
        return jit(function_from_text(text, name, scope,
                                      f"<cudajit guvectorize {self.__name__}>"))
