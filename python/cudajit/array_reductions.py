"""NumPy's reductions of a whole array in kernels (np.sum(a), a.sum(), np.nanmax(a) ...):
device functions that the front end calls for them, registered with it
(frontend.register_array_reduction) when cudajit imports this module.

Each one reads the array's elements in C order, one thread doing them all, as Numba
compiles them; the results follow NumPy's rules:

- sum and prod start from 0 and 1 of the element type and add in order, so integers and
  booleans sum in int64 (uint64 for unsigned integers) and floats in their own precision;
  NumPy sums long float arrays pairwise, which can differ from this in the last bits;
- min and max return the first NaN they meet; an empty array raises ValueError with
  NumPy's message;
- nanmin and nanmax skip NaNs (all NaN: NaN), nansum and nanprod count them as 0 and 1,
  nanmean averages the others (all NaN: NaN);
- mean, var and std divide by the number of elements (var's ddof=0), in float64 for
  integer arrays; var and std of complex arrays are real (|x - mean|²); all, any and
  count_nonzero take each element's truth (NaN is true);
- complex arrays have no min and max (kernels do not order complex numbers).

Only the array argument is supported: the front end refuses ``axis=``, ``dtype=``, ``out=``,
``ddof=`` ... by name (calls._array_reduction_call)."""

from __future__ import annotations

import math

import numpy as np

from .compiler import jit
from .frontend import register_array_reduction
from .intrinsics import elements as _elements
from .intrinsics import like as _like

__all__ = ["IMPLEMENTATIONS"]


@jit(device=True)
def array_sum(a):
    total = _like.item(a, 0)
    for i in range(_elements.size(a)):
        total = total + _elements.item(a, a, i)
    return total


@jit(device=True)
def array_prod(a):
    product = _like.item(a, 1)
    for i in range(_elements.size(a)):
        product = product * _elements.item(a, a, i)
    return product


@jit(device=True)
def array_nansum(a):
    total = _like.item(a, 0)
    for i in range(_elements.size(a)):
        v = _elements.item(a, a, i)
        if v == v:
            total = total + v
    return total


@jit(device=True)
def array_nanprod(a):
    product = _like.item(a, 1)
    for i in range(_elements.size(a)):
        v = _elements.item(a, a, i)
        if v == v:
            product = product * v
    return product


@jit(device=True)
def array_min(a):
    n = _elements.size(a)
    if n == 0:
        raise ValueError("zero-size array to reduction operation minimum which has no "
                         "identity")
    least = _elements.item(a, a, 0)
    for i in range(n):
        v = _elements.item(a, a, i)
        if v != v:
            return v  # NumPy propagates the first NaN
        if v < least:
            least = v
    return least


@jit(device=True)
def array_max(a):
    n = _elements.size(a)
    if n == 0:
        raise ValueError("zero-size array to reduction operation maximum which has no "
                         "identity")
    greatest = _elements.item(a, a, 0)
    for i in range(n):
        v = _elements.item(a, a, i)
        if v != v:
            return v
        if v > greatest:
            greatest = v
    return greatest


@jit(device=True)
def array_nanmin(a):
    n = _elements.size(a)
    if n == 0:
        raise ValueError("zero-size array to reduction operation fmin which has no identity")
    least = _elements.item(a, a, 0)
    for i in range(n):
        v = _elements.item(a, a, i)
        if least != least or v < least:  # a NaN so far gives way; a NaN never wins
            least = v
    return least


@jit(device=True)
def array_nanmax(a):
    n = _elements.size(a)
    if n == 0:
        raise ValueError("zero-size array to reduction operation fmax which has no identity")
    greatest = _elements.item(a, a, 0)
    for i in range(n):
        v = _elements.item(a, a, i)
        if greatest != greatest or v > greatest:
            greatest = v
    return greatest


@jit(device=True)
def array_mean(a):
    return array_sum(a) / _elements.size(a)


@jit(device=True)
def array_nanmean(a):
    total = _like.item(a, 0)
    count = 0
    for i in range(_elements.size(a)):
        v = _elements.item(a, a, i)
        if v == v:
            total = total + v
            count += 1
    return total / count


@jit(device=True)
def array_var(a):
    mean = array_mean(a)
    squares = _like.real(mean, 0.0)
    for i in range(_elements.size(a)):
        d = _elements.item(a, a, i) - mean
        squares = squares + (d.real * d.real + d.imag * d.imag)  # |d|², complex d too
    return squares / _elements.size(a)


@jit(device=True)
def array_std(a):
    return math.sqrt(array_var(a))


@jit(device=True)
def array_all(a):
    for i in range(_elements.size(a)):
        if not _elements.item(a, a, i):
            return False
    return True


@jit(device=True)
def array_any(a):
    for i in range(_elements.size(a)):
        if _elements.item(a, a, i):
            return True
    return False


@jit(device=True)
def array_count_nonzero(a):
    count = 0
    for i in range(_elements.size(a)):
        if _elements.item(a, a, i):
            count += 1
    return count


# NumPy's function -> (its device function, the array method of the same meaning or None).
IMPLEMENTATIONS = {
    np.sum: (array_sum, "sum"), np.prod: (array_prod, "prod"),
    np.min: (array_min, "min"), np.max: (array_max, "max"),
    np.amin: (array_min, None), np.amax: (array_max, None),
    np.mean: (array_mean, "mean"), np.var: (array_var, "var"), np.std: (array_std, "std"),
    np.all: (array_all, "all"), np.any: (array_any, "any"),
    np.count_nonzero: (array_count_nonzero, None),
    np.nansum: (array_nansum, None), np.nanprod: (array_nanprod, None),
    np.nanmin: (array_nanmin, None), np.nanmax: (array_nanmax, None),
    np.nanmean: (array_nanmean, None),
}
for _function, (_implementation, _method) in IMPLEMENTATIONS.items():
    register_array_reduction(_function, _implementation, _method)
