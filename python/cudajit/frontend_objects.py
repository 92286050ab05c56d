"""What the Python objects a kernel reads from its globals and closure mean there:
modules, enums, types, numbers and tuples of them (frozen), NumPy arrays (frozen into
constant memory), device arrays (captured by their address, as Numba captures them),
device functions, kernels, cmath and @numba.jit functions. A mixin of the function
translator (frontend.py), which provides _error, _loc, _const_array and module."""

from __future__ import annotations

import ast
import builtins
import enum
from types import FunctionType, ModuleType
from typing import Any

import numpy as np

from . import types as cjtypes
from .devicearray import is_device_array
from .frontend_names import (
    _KNOWN_OBJECTS, _BuiltinFunction, _CapturedArray, _ConstArray, _Constant, _DeviceFunction,
    _EnumClass, _ForeignFunction, _ModuleRef, _Ref, _is_frozen_constant, _module_kind,
)
from .linking import DeclaredDevice
from .frontend_static import is_number as _is_number
from .kernel_ir import IRNode


class GlobalObjects:
    """Methods of the function translator that classify global and closure objects."""

    def _classify(self, value: Any, node: ast.expr) -> _Ref:
        """What a global, closure or builtin object means in a kernel."""
        spelled = ast.unparse(node)
        if isinstance(value, ModuleType):
            return _ModuleRef(_module_kind(value), value)
        if isinstance(value, enum.EnumMeta):
            return _EnumClass(value)
        if isinstance(value, enum.Enum):  # a member is its value, as Numba lowers it
            value = value.value
        known = _KNOWN_OBJECTS.get(id(value))
        if known is not None and known[0] is value:
            return known[1]
        if isinstance(value, cjtypes.ScalarType):
            return _BuiltinFunction(f"cast.{value}")
        if isinstance(value, type) and issubclass(value, np.generic):
            try:
                return _BuiltinFunction(f"cast.{cjtypes.from_dtype(value)}")
            except TypeError as exc:
                raise self._error(f"'{spelled}' cannot be used in kernels: {exc}", node) from None
        if _is_number(value):
            return _Constant(value)
        if isinstance(value, np.ndarray):
            return _ConstArray(value)
        if not isinstance(value, type) and (is_device_array(value)
                                            or hasattr(value, "__cuda_array_interface__")):
            return _CapturedArray(value)
        if isinstance(value, tuple):
            if not _is_frozen_constant(value):
                raise self._error(f"global tuple '{spelled}' cannot be frozen as a constant; "
                                  "only numbers and tuples of numbers can", node)
            return _Constant(value)
        if getattr(value, "__module__", None) == "cmath" and callable(value):
            from .cmath_impl import BY_ARITY, IMPLEMENTATIONS  # imported when used

            name = getattr(value, "__name__", "")
            implementation = IMPLEMENTATIONS.get(name)
            if implementation is not None:
                return _DeviceFunction(implementation._cudajit_device_pyfunc, by_arity=tuple(
                    (n, f._cudajit_device_pyfunc) for n, f in BY_ARITY.get(name, {}).items()))
        if isinstance(value, DeclaredDevice):
            return _ForeignFunction(value)
        if getattr(value, "_cudajit_device_pyfunc", None) is not None:
            return _DeviceFunction(value._cudajit_device_pyfunc,
                                   tuple(getattr(value, "signatures", ())))
        if getattr(value, "_cudajit_kernel_pyfunc", None) is not None:
            # As in Numba, a kernel called from a kernel is compiled as a device function.
            return _DeviceFunction(value._cudajit_kernel_pyfunc)
        if _is_numba_cpu_dispatcher(value):
            # numba.jit without a signature: compiled for the kernel as a device function, as
            # numba.cuda compiles it; with one, Numba refuses it ("cpu function on device").
            if not value._can_compile:
                raise self._error(f"'{spelled}' is a numba.jit function with an explicit "
                                  "signature, which kernels cannot call (Numba refuses it too); "
                                  "drop the signature, or use @cuda.jit(device=True)", node)
            return _DeviceFunction(value.py_func)
        raise self._error(self._unsupported_object_message(value, spelled), node)

    @staticmethod
    def _unsupported_object_message(value: Any, spelled: str) -> str:
        if getattr(builtins, getattr(value, "__name__", ""), None) is value:
            return f"builtin '{spelled}' is not supported in kernels"
        if isinstance(value, FunctionType):
            return (f"cannot call Python function '{spelled}' from a kernel; "
                    "decorate it with @cuda.jit(device=True)")
        return f"'{spelled}' (a {type(value).__name__}) cannot be used in kernels"

    def _captured_array(self, array: Any, node: ast.expr) -> IRNode:
        """A global or closure device array, captured by its address as Numba captures
        them: the kernel reads and writes the array's memory, so it sees later changes;
        the kernel holds the array, which thus lives as long as the kernel."""
        spelled = ast.unparse(node)
        try:
            address, shape, strides, dtype, readonly, kind = describe_captured_array(array)
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            raise self._error(f"device array '{spelled}' cannot be captured by the kernel: "
                              f"{exc}", node) from None
        if not 1 <= len(shape) <= cjtypes.MAX_ARRAY_NDIM:
            raise self._error(f"device array '{spelled}' cannot be captured by the kernel: it "
                              f"has {len(shape)} dimensions (1 to {cjtypes.MAX_ARRAY_NDIM} "
                              "are supported)", node)
        try:
            record = dtype.names is not None
            element = cjtypes.Record(dtype) if record else cjtypes.from_dtype(dtype)
        except TypeError as exc:
            raise self._error(f"device array '{spelled}' cannot be captured by the kernel: "
                              f"{exc}", node) from None
        self.module.captured.append(array)
        loc = self._loc(node)

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


def _is_numba_cpu_dispatcher(value: Any) -> bool:
    """A @numba.jit function (Numba need not be installed for the test)."""
    return (type(value).__name__ == "CPUDispatcher"
            and type(value).__module__.split(".")[0] == "numba"
            and isinstance(getattr(value, "py_func", None), FunctionType))


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
