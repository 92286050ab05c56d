"""What the Python objects a kernel reads from its globals and closure mean there, with no
translator state: modules, enums, types, numbers and tuples of them (frozen), NumPy arrays
(frozen into constant memory), device arrays (captured by their address, as Numba captures
them), device functions, kernels, cmath and @numba.jit functions; and the IR of the values
among them (literals, frozen and captured arrays). What cannot be used raises
NotUsableInKernels, which the translator reports at the node that read the object."""

from __future__ import annotations

import ast
import builtins
import enum
import math
import sys
from types import FunctionType, ModuleType
from typing import Any

import numpy as np

from .. import intrinsics
from .. import types as cjtypes
from ..devicearray import is_device_array
from ..kernel_ir import IRNode
from ..linking import DeclaredDevice
from .entities import (
    BuiltinFunction, CapturedArray, CffiFFI, Constant, Dim3, EnumClass, Entity, ForeignFunction,
    FrozenArray, FrozenTuple, GridIntrinsic, IntrinsicValue, PythonFunction, PythonModule,
    complex_math, is_known, known_entity,
)
from .overloads import overloaded_function
from .scope import is_number

Loc = tuple[int, int]

MATH_CONSTANTS = ("pi", "e", "inf", "nan", "tau")
DIM3_NAMES = tuple(d.name for d in intrinsics.DIM3_INTRINSICS)
# NumPy arrays read in kernels are frozen into constant memory, which has 64 KiB.
CONSTANT_MEMORY_BYTES = 64 * 1024
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1


class NotUsableInKernels(Exception):
    """An object (or constant) that kernels cannot use; the message says why."""


def meaning_of(value: Any, spelled: str) -> Entity:
    """What a global, closure or builtin object (written `spelled`) means in a kernel."""
    if isinstance(value, ModuleType):
        return PythonModule(module_kind(value), value)
    if isinstance(value, enum.EnumMeta):
        return EnumClass(value)
    if isinstance(value, enum.Enum):  # a member is its value, as Numba lowers it
        value = value.value
    known = known_entity(value)
    if known is not None:
        return known
    if isinstance(value, cjtypes.ScalarType):
        return BuiltinFunction(f"cast.{value}")
    if isinstance(cjtypes.from_numba(value), cjtypes.ScalarType):  # numba's float16 type ...
        return BuiltinFunction(f"cast.{cjtypes.from_numba(value)}")
    if isinstance(value, type) and issubclass(value, np.generic):
        try:
            return BuiltinFunction(f"cast.{cjtypes.from_dtype(value)}")
        except TypeError as exc:
            raise NotUsableInKernels(f"'{spelled}' cannot be used in kernels: {exc}") from None
    if is_number(value):
        return Constant(value)
    if isinstance(value, np.ndarray):
        return FrozenArray(value)
    if not isinstance(value, type) and (is_device_array(value)
                                        or hasattr(value, "__cuda_array_interface__")):
        return CapturedArray(value)
    if isinstance(value, tuple):
        if is_frozen_constant(value):
            return Constant(value)
        if _is_frozen_tuple(value):
            return FrozenTuple(value)
        raise NotUsableInKernels(f"global tuple '{spelled}' cannot be frozen as a constant; "
                                 "only numbers, NumPy arrays and tuples of them can")
    if getattr(value, "__module__", None) == "cmath" and callable(value):
        implementation = complex_math(getattr(value, "__name__", ""))
        if implementation is not None:
            return implementation
    if isinstance(value, DeclaredDevice):
        return ForeignFunction(value)
    if type(value).__name__ == "FFI" and type(value).__module__.startswith("cffi"):
        return CffiFFI(value)
    if getattr(value, "_cudajit_device_pyfunc", None) is not None:
        return PythonFunction(value._cudajit_device_pyfunc,
                              tuple(getattr(value, "signatures", ())))
    if getattr(value, "_cudajit_kernel_pyfunc", None) is not None:
        # As in Numba, a kernel called from a kernel is compiled as a device function.
        return PythonFunction(value._cudajit_kernel_pyfunc)
    if _is_numba_cpu_dispatcher(value):
        # numba.jit without a signature: compiled for the kernel as a device function, as
        # numba.cuda compiles it; with one, Numba refuses it ("cpu function on device").
        if not value._can_compile:
            raise NotUsableInKernels(  # Numba's words first
                f"Untyped global name '{spelled}': using cpu function on device: "
                f"'{spelled}' is a numba.jit function with an explicit signature, which "
                "kernels cannot call (Numba refuses it too); drop the signature, or use "
                "@cuda.jit(device=True)")
        return PythonFunction(value.py_func)
    if callable(value):
        overloaded = overloaded_function(value)
        if overloaded is not None:
            return overloaded
        if _is_numba_intrinsic(value):
            raise NotUsableInKernels(
                f"'{spelled}' is a Numba @intrinsic, which cudajit cannot compile: its "
                "code generator writes LLVM IR with llvmlite into Numba's own lowering; "
                "write it as a @cuda.jit(device=True) function or an @overload")
    raise NotUsableInKernels(_unsupported_object_message(value, spelled))


def namespace_attribute(base: PythonModule | Dim3 | CffiFFI, node: ast.Attribute) -> Entity:
    """`node`, an attribute of a module, of a dim3 (cuda.threadIdx.x, math.pi, np.int32) or
    of a cffi FFI object (ffi.from_buffer)."""
    attr, spelled = node.attr, ast.unparse(node)
    if isinstance(base, CffiFFI):
        if attr == "from_buffer":  # Numba's: an array's data as a CPointer of its dtype
            return BuiltinFunction("array.pointer")
        raise NotUsableInKernels(f"'{spelled}' is not supported in kernels; of a cffi FFI "
                                 "object, kernels call from_buffer(array)")
    if isinstance(base, Dim3):
        if attr in ("x", "y", "z"):
            return IntrinsicValue(f"cuda.{base.name}.{attr}")
        raise NotUsableInKernels(f"'{spelled}' is not supported; use .x, .y or .z")
    if base.kind == "cudajit":
        if attr in DIM3_NAMES:
            return Dim3(attr)
        if attr in ("grid", "gridsize"):
            return GridIntrinsic(attr)
        if attr in ("laneid", "warpsize"):
            return IntrinsicValue(f"cuda.{attr}")
        scalar = cjtypes.SIGNATURE_NAMESPACE.get(attr)
        if isinstance(scalar, cjtypes.ScalarType):
            return BuiltinFunction(f"cast.{scalar}")
        member = getattr(base.module, attr, None)
        if isinstance(member, ModuleType) or is_known(member):
            return meaning_of(member, spelled)
        raise NotUsableInKernels(f"'{spelled}' is not supported in kernels")
    if base.kind == "math":
        if attr in MATH_CONSTANTS:
            return Constant(getattr(math, attr))
        if callable(getattr(math, attr, None)) and not attr.startswith("_"):
            return BuiltinFunction(f"math.{attr}")
        raise NotUsableInKernels(f"'{spelled}' is not supported in kernels")
    missing = object()
    value = getattr(base.module, attr, missing)
    if value is missing:
        raise NotUsableInKernels(f"module '{ast.unparse(node.value)}' has no attribute '{attr}'")
    if base.kind == "numpy" and not is_known(value) and not (is_number(value) or (
            isinstance(value, type) and issubclass(value, np.generic))):
        hint = f"; use math.{attr}" if callable(getattr(math, attr, None)) else ""
        raise NotUsableInKernels(f"'{spelled}' is not supported in kernels{hint}")
    return meaning_of(value, spelled)


def module_kind(module: ModuleType) -> str:
    if module is sys.modules.get("cudajit") or module.__name__ == "cudajit":
        return "cudajit"
    if module.__name__ in ("math", "numpy"):
        return module.__name__
    return "other"


def is_frozen_constant(value: Any) -> bool:
    if isinstance(value, tuple):
        return all(is_frozen_constant(v) for v in value)
    return is_number(value)


def _is_frozen_tuple(value: Any) -> bool:
    """A tuple of numbers and NumPy arrays (nested tuples too), arrays frozen in kernels."""
    if isinstance(value, tuple):
        return all(_is_frozen_tuple(v) for v in value)
    return is_number(value) or isinstance(value, np.ndarray)


def is_literal_unroll(value: Any) -> bool:
    """Numba's literal_unroll (numba's or numba-cuda's), known by name: Numba need not be
    installed, and kernels that use it were written for Numba."""
    return getattr(value, "__name__", None) == "literal_unroll" and \
        str(getattr(value, "__module__", "")).split(".")[0] == "numba"


def _unsupported_object_message(value: Any, spelled: str) -> str:
    if getattr(builtins, getattr(value, "__name__", ""), None) is value:
        return f"builtin '{spelled}' is not supported in kernels"
    if isinstance(value, FunctionType):
        return (f"cannot call Python function '{spelled}' from a kernel; "
                "decorate it with @cuda.jit(device=True)")
    return f"'{spelled}' (a {type(value).__name__}) cannot be used in kernels"


def _is_numba_intrinsic(value: Any) -> bool:
    """A function made by Numba's or cudajit's @intrinsic."""
    return type(value).__name__ in ("_Intrinsic", "Intrinsic") and \
        type(value).__module__.split(".")[0] in ("numba", "cudajit")


def _is_numba_cpu_dispatcher(value: Any) -> bool:
    """A @numba.jit function (Numba need not be installed for the test)."""
    return (type(value).__name__ == "CPUDispatcher"
            and type(value).__module__.split(".")[0] == "numba"
            and isinstance(getattr(value, "py_func", None), FunctionType))


# ---------------------------------------------------------------------------
# Values as IR

def literal(value: Any, loc: Loc) -> IRNode:
    """A number (or a tuple of them) known when compiling, as an IR constant."""
    if isinstance(value, (bool, np.bool_)):
        return IRNode("bool", loc, "1" if value else "0")
    if isinstance(value, np.number) and not isinstance(value, np.complexfloating):
        # A NumPy scalar keeps its type, as Numba types it by its dtype.
        dtype = cjtypes.from_dtype(value.dtype)
        if isinstance(value, np.integer):
            number = int(value)  # a uint64 above int64's range: the same bits
            inner = IRNode("int", loc, str(number - 2**64 if number > INT64_MAX else number))
        else:
            inner = IRNode("float", loc, repr(float(value)))
        return IRNode("call", loc, f"cast.{dtype}", inner)
    if isinstance(value, (int, np.integer)):
        number = int(value)
        if INT64_MAX < number <= UINT64_MAX:
            # uint64 as Numba types it: the same bits, written as an int64.
            return IRNode("call", loc, "cast.uint64", IRNode("int", loc, str(number - 2**64)))
        if not INT64_MIN <= number <= INT64_MAX:
            raise NotUsableInKernels(f"integer constant {number} does not fit in int64 or "
                                     "uint64")
        return IRNode("int", loc, str(number))
    if isinstance(value, (float, np.floating)):
        return IRNode("float", loc, repr(float(value)))
    if isinstance(value, (complex, np.complexfloating)):
        number = complex(value)
        return IRNode("complex", loc, repr(number.real), repr(number.imag))
    if isinstance(value, tuple):
        return IRNode("tuple", loc, *(literal(v, loc) for v in value))
    raise NotUsableInKernels(f"the constant {value!r} is not supported in kernels")


def frozen_array(array: np.ndarray, loc: Loc, spelled: str) -> IRNode:
    """A NumPy array as constant data of the kernel (constant memory on the GPU),
    as Numba freezes global arrays: later changes to it are not seen."""
    try:
        record = array.dtype.names is not None
        dtype = cjtypes.Record(array.dtype) if record else cjtypes.from_dtype(array.dtype)
    except TypeError as exc:
        raise NotUsableInKernels(f"array '{spelled}' cannot be frozen into the kernel: "
                                 f"{exc}") from None
    if not 0 <= array.ndim <= cjtypes.MAX_ARRAY_NDIM:
        raise NotUsableInKernels(f"array '{spelled}' cannot be frozen into the kernel: it has "
                                 f"{array.ndim} dimensions (0 to {cjtypes.MAX_ARRAY_NDIM} "
                                 "are supported)")
    if array.nbytes > CONSTANT_MEMORY_BYTES:
        raise NotUsableInKernels(f"array '{spelled}' ({array.nbytes} bytes) is larger than the "
                                 f"{CONSTANT_MEMORY_BYTES // 1024} KiB of constant memory it "
                                 "would be frozen into; pass it as an argument")
    data = np.ascontiguousarray(array).tobytes()
    shape = IRNode("tuple", loc, *(IRNode("int", loc, str(n)) for n in array.shape))
    data_node = IRNode("bytes", loc, '"' + data.hex() + '"')
    if record:  # the record type's spelling travels as bytes too (it is no IR symbol)
        return IRNode("call", loc, "cuda.const.array.record", shape, data_node,
                      IRNode("bytes", loc, '"' + str(dtype).encode().hex() + '"'))
    return IRNode("call", loc, f"cuda.const.array.{dtype}", shape, data_node)


def captured_array(array: Any, loc: Loc, spelled: str) -> IRNode:
    """A global or closure device array, captured by its address as Numba captures
    them: the kernel reads and writes the array's memory, so it sees later changes.
    Whoever runs the kernel must hold the array (ModuleBuilder.captured)."""
    try:
        address, shape, strides, dtype, readonly, kind = describe_captured_array(array)
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise NotUsableInKernels(f"device array '{spelled}' cannot be captured by the kernel: "
                                 f"{exc}") from None
    if not 1 <= len(shape) <= cjtypes.MAX_ARRAY_NDIM:
        raise NotUsableInKernels(f"device array '{spelled}' cannot be captured by the kernel: "
                                 f"it has {len(shape)} dimensions (1 to "
                                 f"{cjtypes.MAX_ARRAY_NDIM} are supported)")
    try:
        record = dtype.names is not None
        element = cjtypes.Record(dtype) if record else cjtypes.from_dtype(dtype)
    except TypeError as exc:
        raise NotUsableInKernels(f"device array '{spelled}' cannot be captured by the kernel: "
                                 f"{exc}") from None

    def ints(values: tuple) -> IRNode:
        return IRNode("tuple", loc, *(IRNode("int", loc, str(int(v))) for v in values))

    def text(value: str) -> IRNode:  # bytes travel hex-encoded
        return IRNode("bytes", loc, '"' + value.encode().hex() + '"')

    name = "record" if record else str(element)
    args = [ints(shape), ints(strides), IRNode("int", loc, str(address)),
            text(("readonly " if readonly else "") + kind)]
    if record:
        args.append(text(str(element)))
    return IRNode("call", loc, f"cuda.captured.array.{name}", *args)


def describe_captured_array(array: Any) -> tuple[int, tuple, tuple, np.dtype, bool, str]:
    """A device array's address, shape, strides (bytes), dtype, read-only flag and the
    kind of device whose memory holds it ("cpu" or "cuda"): a cudajit array's own, or
    what its CUDA Array Interface says (GPU memory)."""
    if is_device_array(array):
        dtype = array.record_dtype
        dtype = np.dtype(array.dtype_name) if dtype is None else dtype
        return (array.device_pointer, tuple(array.shape), tuple(array.strides), dtype,
                bool(array.readonly), array.device.kind)
    cai = array.__cuda_array_interface__
    if cai.get("mask") is not None:
        raise ValueError("its CUDA Array Interface has a mask, which kernels cannot read")
    shape = tuple(int(n) for n in cai["shape"])
    descr = cai.get("descr")
    dtype = np.dtype(descr) if descr and any(name for name, *_ in descr) \
        else np.dtype(cai["typestr"])
    strides = cai.get("strides")
    if strides is None:
        strides = tuple(int(np.prod(shape[i + 1:], dtype=np.int64)) * dtype.itemsize
                        for i in range(len(shape)))
    address, readonly = cai["data"]
    return int(address or 0), shape, tuple(int(s) for s in strides), dtype, bool(readonly), \
        "cuda"
