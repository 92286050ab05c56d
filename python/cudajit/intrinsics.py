"""Placeholders for CUDA's thread-indexing intrinsics.

These objects only mean something inside a kernel: the front end recognises
them by identity (``from cudajit import grid, threadIdx`` works as well as
``cuda.grid``) and emits the matching IR call. Used from host code they raise.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable, NoReturn

__all__ = ["threadIdx", "blockIdx", "blockDim", "gridDim", "grid", "gridsize",
           "laneid", "warpsize", "shared", "local", "const", "atomic", "syncthreads",
           "syncthreads_count", "syncthreads_and", "syncthreads_or", "syncwarp",
           "threadfence", "threadfence_block", "threadfence_system", "shfl_sync",
           "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync", "all_sync", "any_sync",
           "eq_sync", "ballot_sync", "match_any_sync", "match_all_sync", "activemask",
           "lanemask_lt", "popc", "brev", "clz", "ffs", "fma", "cbrt", "selp", "ldca", "ldcg",
           "ldcs", "ldlu", "ldcv", "stcg", "stcs", "stwb", "stwt", "cg",
           "IndexIntrinsic", "Dim3Intrinsic", "ValueIntrinsic", "KERNEL_FUNCTIONS"]


def _host_call_error(name: str) -> NoReturn:
    raise RuntimeError(f"{name} can only be used inside a kernel compiled with @cuda.jit")


class ValueIntrinsic:
    """A read-only per-thread value such as ``cuda.laneid`` (used without parentheses)."""

    def __init__(self, ir_name: str):
        self.ir_name = ir_name  # the IR builtin, e.g. "cuda.laneid"

    def __repr__(self) -> str:
        return f"<cudajit intrinsic {self.ir_name}>"

    def __int__(self) -> NoReturn:
        _host_call_error(self.ir_name)

    __index__ = __int__


class IndexIntrinsic(ValueIntrinsic):
    """One component of a dim3 intrinsic, e.g. ``cuda.threadIdx.x``."""


class Dim3Intrinsic:
    """``threadIdx``, ``blockIdx``, ``blockDim`` or ``gridDim``, with ``.x .y .z``."""

    def __init__(self, name: str):
        self.name = name
        self.x = IndexIntrinsic(f"cuda.{name}.x")
        self.y = IndexIntrinsic(f"cuda.{name}.y")
        self.z = IndexIntrinsic(f"cuda.{name}.z")

    def __repr__(self) -> str:
        return f"<cudajit intrinsic cuda.{self.name}>"


threadIdx = Dim3Intrinsic("threadIdx")
blockIdx = Dim3Intrinsic("blockIdx")
blockDim = Dim3Intrinsic("blockDim")
gridDim = Dim3Intrinsic("gridDim")

laneid = ValueIntrinsic("cuda.laneid")
warpsize = ValueIntrinsic("cuda.warpsize")


def grid(ndim: int) -> NoReturn:
    """The absolute index of the thread in the grid: an int for ``ndim`` 1, else a
    tuple of ``ndim`` ints (``ndim`` a literal 1, 2 or 3). Kernels only."""
    _host_call_error("cuda.grid()")


def gridsize(ndim: int) -> NoReturn:
    """The number of threads in the grid along each of ``ndim`` dimensions (a literal
    1, 2 or 3): an int for 1, else a tuple. Kernels only."""
    _host_call_error("cuda.gridsize()")


DIM3_INTRINSICS = (threadIdx, blockIdx, blockDim, gridDim)


# ---------------------------------------------------------------------------
# Functions that exist only in kernels: each is recognised by identity and
# becomes the IR builtin of the same dotted name ("cuda.syncthreads").

KERNEL_FUNCTIONS: dict[int, tuple[Callable[..., Any], str]] = {}


def _kernel_function(ir_name: str, doc: str) -> Callable[..., NoReturn]:
    def intrinsic(*args: Any, **kwargs: Any) -> NoReturn:
        _host_call_error(ir_name + "()")

    intrinsic.__name__ = intrinsic.__qualname__ = ir_name.rsplit(".", 1)[1]
    intrinsic.__doc__ = doc + " Kernels only."
    KERNEL_FUNCTIONS[id(intrinsic)] = (intrinsic, ir_name)
    return intrinsic


def _namespace(name: str, doc: str, functions: dict[str, str]) -> ModuleType:
    namespace = ModuleType(f"cudajit.{name}", doc)
    for attr, function_doc in functions.items():
        setattr(namespace, attr, _kernel_function(f"cuda.{name}.{attr}", function_doc))
    return namespace


_ARRAY_DOC = ("A new {where} array of ``shape`` (an integer constant or a tuple of them) "
              "and ``dtype`` (a NumPy dtype, a cudajit or Numba type, or a string).")

shared = _namespace("shared", "Arrays in the block's shared memory.", {
    "array": _ARRAY_DOC.format(where="shared") + " A shape of 0 is the dynamic shared "
             "memory the launch's ``sharedmem`` sizes; every such array starts at the same byte.",
})
const = _namespace("const", "Read-only arrays frozen into the kernel.", {
    "array_like": "``ary`` (a global or closure NumPy array) as a read-only array in "
                  "constant memory, frozen when the kernel compiles.",
})
local = _namespace("local", "Arrays private to each thread.", {
    "array": _ARRAY_DOC.format(where="per-thread"),
})
_ATOMIC_DOC = "Atomically {what} ``ary[idx]``; returns the old value."
atomic = _namespace("atomic", "Atomic read-modify-write of one array element.", {
    "add": _ATOMIC_DOC.format(what="adds ``val`` to"),
    "sub": _ATOMIC_DOC.format(what="subtracts ``val`` from"),
    "max": _ATOMIC_DOC.format(what="takes the maximum of ``val`` and") +
           " A NaN operand changes nothing; a stored NaN stays.",
    "min": _ATOMIC_DOC.format(what="takes the minimum of ``val`` and") +
           " A NaN operand changes nothing; a stored NaN stays.",
    "nanmax": _ATOMIC_DOC.format(what="takes the maximum of ``val`` and") +
              " A stored NaN is replaced.",
    "nanmin": _ATOMIC_DOC.format(what="takes the minimum of ``val`` and") +
              " A stored NaN is replaced.",
    "and_": _ATOMIC_DOC.format(what="ANDs ``val`` into"),
    "or_": _ATOMIC_DOC.format(what="ORs ``val`` into"),
    "xor": _ATOMIC_DOC.format(what="XORs ``val`` into"),
    "exch": _ATOMIC_DOC.format(what="stores ``val`` in"),
    "inc": _ATOMIC_DOC.format(what="increments (0 once it reaches ``val``)"),
    "dec": _ATOMIC_DOC.format(what="decrements (``val`` below 0 or above ``val``)"),
    "cas": "Atomically stores ``val`` in ``ary[idx]`` if it equals ``old``; returns the "
           "old value.",
    "compare_and_swap": "Atomically stores ``val`` in ``ary[0]`` if it equals ``old``; "
                        "returns the old value.",
})

# For cudajit.libdevice's functions: bits reinterpreted, and the Bessel functions
# (libdevice's on the GPU, libm's on the cpu device). Not Numba's API.
reinterpret = _namespace("reinterpret", "A number's bits as another type of the same width.", {
    name: f"The bits of a number of the same width as {name}." for name in
    ("int8", "uint8", "fp8_e4m3", "fp8_e5m2", "fp8_e8m0", "int16", "uint16", "float16",
     "bfloat16", "int32", "uint32", "float32", "int64", "uint64", "float64")
})
libm = _namespace("libm", "Bessel functions of the first and second kind.", {
    "j0": "J0(x).", "j1": "J1(x).", "jn": "Jn(n, x).",
    "y0": "Y0(x).", "y1": "Y1(x).", "yn": "Yn(n, x).",
})

# For cudajit.cmath_impl: results in the precision of an argument. Not Numba's API.
like = _namespace("like", "Values in the precision of a first argument.", {
    "real": "like.real(z, v): v as float32 when z is float32 or complex64, else float64.",
    "complex": "like.complex(z, re, im): complex64 when z is float32 or complex64, "
               "else complex128.",
    "item": "like.item(a, v): v as the element type of the array a.",
})

# For cudajit.array_reductions (and the front end's ufunc loops): an array's elements by
# their position in C order. Not Numba's API.
elements = _namespace("ufunc", "An array's elements by their position in C order.", {
    "size": "size(out): how many elements out has.",
    "item": "item(x, out, i): x's element at out's i-th position (NumPy's broadcasting), "
            "or x itself for a number.",
    "store": "store(out, i, v): v cast to out's dtype, into out's i-th element.",
})

cg = _namespace("cg", "Cooperative groups.", {
    "this_grid": "The group of every thread of the grid; its ``.sync()`` waits until every "
                 "thread of the grid has reached it. A kernel that calls it is launched "
                 "cooperatively: its blocks must all fit on the device at once.",
})

syncthreads = _kernel_function("cuda.syncthreads",
                               "Waits until every thread of the block has reached it.")
syncthreads_count = _kernel_function(
    "cuda.syncthreads_count", "syncthreads(); returns how many threads' predicate was true.")
syncthreads_and = _kernel_function(
    "cuda.syncthreads_and", "syncthreads(); returns 1 if every thread's predicate was true.")
syncthreads_or = _kernel_function(
    "cuda.syncthreads_or", "syncthreads(); returns 1 if any thread's predicate was true.")
syncwarp = _kernel_function(
    "cuda.syncwarp", "Waits until the lanes of the warp in ``mask`` (all by default) reach it.")
threadfence_block = _kernel_function(
    "cuda.threadfence_block", "Orders this thread's memory accesses as the block sees them.")
threadfence = _kernel_function(
    "cuda.threadfence", "Orders this thread's memory accesses as the device sees them.")
threadfence_system = _kernel_function(
    "cuda.threadfence_system",
    "Orders this thread's memory accesses as the device and the host see them.")

shfl_sync = _kernel_function(
    "cuda.shfl_sync", "``value`` from lane ``src_lane`` (modulo 32) of the lanes in ``mask``.")
shfl_up_sync = _kernel_function(
    "cuda.shfl_up_sync", "``value`` from the lane ``delta`` below; the caller's own value "
    "where that is off the warp.")
shfl_down_sync = _kernel_function(
    "cuda.shfl_down_sync", "``value`` from the lane ``delta`` above; the caller's own value "
    "where that is off the warp.")
shfl_xor_sync = _kernel_function(
    "cuda.shfl_xor_sync", "``value`` from lane ``laneid ^ lane_mask`` (a butterfly).")
all_sync = _kernel_function("cuda.all_sync", "True if ``predicate`` holds in every lane of "
                            "``mask``.")
any_sync = _kernel_function("cuda.any_sync", "True if ``predicate`` holds in a lane of ``mask``.")
eq_sync = _kernel_function("cuda.eq_sync", "True if ``predicate`` is the same in every lane of "
                           "``mask``.")
ballot_sync = _kernel_function(
    "cuda.ballot_sync", "The lanes of ``mask`` whose ``predicate`` holds, one bit each (int32).")
match_any_sync = _kernel_function(
    "cuda.match_any_sync", "The lanes of ``mask`` whose ``value`` has the caller's bits (int32).")
match_all_sync = _kernel_function(
    "cuda.match_all_sync", "(``mask``, True) if every lane of ``mask`` has the same ``value`` "
    "bits, else (0, False).")
activemask = _kernel_function("cuda.activemask",
                              "The lanes of the warp executing this call together (uint32).")
lanemask_lt = _kernel_function("cuda.lanemask_lt",
                               "The lanes below the caller's, one bit each (uint32).")

popc = _kernel_function("cuda.popc", "The number of set bits of an integer (of its type).")
brev = _kernel_function("cuda.brev", "The bits of a uint32 or uint64 in reverse order.")
clz = _kernel_function("cuda.clz", "The number of leading zero bits of an integer (of its type).")
ffs = _kernel_function("cuda.ffs", "The 1-based position of the lowest set bit (uint32); 0 for 0.")
fma = _kernel_function("cuda.fma", "``a * b + c`` rounded once.")
cbrt = _kernel_function("cuda.cbrt", "The cube root.")
selp = _kernel_function("cuda.selp", "``a`` if ``predicate`` else ``b``, both evaluated.")

# Loads and stores of one element with a PTX cache operator (CUDA's __ldca ... __stwt): the
# element of an array at an index (an int, or a tuple of one per dimension) or of a CPointer at
# an offset. Plain loads and stores on the cpu device.
_LOAD_HINTS = {"ca": "cache at all levels", "cg": "cache in L2, not L1",
               "cs": "cache streaming, likely read once", "lu": "last use",
               "cv": "don't cache, fetch again"}
_STORE_HINTS = {"cg": "cache in L2, not L1", "cs": "cache streaming, likely written once",
                "wb": "cache write-back", "wt": "cache write-through to system memory"}
ldca, ldcg, ldcs, ldlu, ldcv = (
    _kernel_function(f"cuda.ld{op}", f"``array[i]`` read with ``ld.global.{op}`` ({what}).")
    for op, what in _LOAD_HINTS.items())
stcg, stcs, stwb, stwt = (
    _kernel_function(f"cuda.st{op}", f"``array[i] = value`` with ``st.global.{op}`` ({what}).")
    for op, what in _STORE_HINTS.items())


def ir_names() -> frozenset[str]:
    """The IR name of every intrinsic above (``cuda.threadIdx.x``, ``cuda.atomic.add``,
    ``cuda.shared.array``...). The compiler's registry of builtins has a row for each and for
    no other intrinsic: tests/python/test_builtin_registry.py checks both ways."""
    names = {axis.ir_name for dim3 in DIM3_INTRINSICS for axis in (dim3.x, dim3.y, dim3.z)}
    names |= {laneid.ir_name, warpsize.ir_name}
    names |= {"cuda.grid", "cuda.gridsize"}  # the front end's names for grid(N), gridsize(N)
    names |= {ir_name for _, ir_name in KERNEL_FUNCTIONS.values()}
    return frozenset(names)
