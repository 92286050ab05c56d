"""The types of cudajit's kernel language, shaped like Numba's.

Scalars (``float32``, ``int64``, ...), arrays (``float32[:, ::1]``), tuples and
``void``; calling a type with types makes a signature, as in Numba:
``void(float32[::1], float32)``. ``str()`` of every type is exactly the
spelling of the C++ compiler's ``Type::str()`` ("array(float32, 2d, C)"), which
is how types cross the binding layer.
"""

from __future__ import annotations

import functools
import re

from typing import Any, Sequence

import numpy as np

from . import _core

__all__ = [
    "Type", "NoneType", "ScalarType", "Boolean", "Integer", "Float", "Complex", "Array",
    "Record", "Tuple", "UniTuple", "CPointer", "NumberClass", "type_argument",
    "Signature",
    "typeof", "from_dtype", "from_numba", "parse_signature",
    "none", "void",
    "boolean", "bool_", "b1",
    "int8", "int16", "int32", "int64", "i1", "i2", "i4", "i8",
    "uint8", "uint16", "uint32", "uint64", "u1", "u2", "u4", "u8",
    "byte", "short", "ushort", "intc", "uintc", "intp", "uintp", "int_", "uint",
    "longlong", "ulonglong",
    "float16", "float32", "float64", "f2", "f4", "f8", "half", "float_", "single", "double",
    "bfloat16",
    "complex64", "complex128", "c8", "c16", "csingle", "cdouble",
]

MAX_ARRAY_NDIM: int = _core.MAX_ARRAY_NDIM  # the compiler's kMaxArrayDims
LAYOUTS = ("C", "F", "A")


class Type:
    """Base of all cudajit types. Types compare equal when they print the same; a cudajit
    type also equals the Numba type it stands for (``cudajit.uint8 == numba.types.uint8``),
    as cudajit takes Numba's types wherever it takes a type (the hash stays cudajit's: a dict
    keyed by both kinds keeps them apart)."""

    def __str__(self) -> str:
        raise NotImplementedError

    def __repr__(self) -> str:
        return str(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Type) and _is_numba_object(other):
            try:
                other = from_numba(other)
            except Exception:  # a Numba object that is no type cudajit knows: not equal
                return False
        return isinstance(other, Type) and type(other) is type(self) and str(other) == str(self)

    def __hash__(self) -> int:
        return hash((type(self).__name__, str(self)))

    def __call__(self, *args: Any) -> "Signature":
        """``return_type(arg_type, ...)`` makes a Signature, as in Numba."""
        args = tuple(from_numba(a) for a in args)
        if all(isinstance(a, Type) for a in args):
            return Signature(self, args)
        raise TypeError(f"{self}(...) expects types to make a signature; got {args!r}")


class NoneType(Type):
    """The type of ``None``: the return type of kernels (``void``)."""

    def __str__(self) -> str:
        return "none"


class ScalarType(Type):
    """A boolean, integer, floating-point or complex number type."""

    def __init__(self, name: str, numpy_type: type):
        self.name = name
        self.numpy_dtype = np.dtype(numpy_type)

    def __str__(self) -> str:
        return self.name

    @property
    def bitwidth(self) -> int:
        return 1 if self.name == "bool" else self.numpy_dtype.itemsize * 8

    @property
    def is_bool(self) -> bool:
        return self.numpy_dtype.kind == "b"

    @property
    def is_integer(self) -> bool:
        return self.numpy_dtype.kind in "iu"

    @property
    def is_signed(self) -> bool:
        return self.numpy_dtype.kind in "ifc"

    @property
    def is_float(self) -> bool:
        return self.numpy_dtype.kind == "f"

    @property
    def is_complex(self) -> bool:
        return self.numpy_dtype.kind == "c"

    @property
    def underlying_float(self) -> "ScalarType":
        """The type of a complex type's parts (Numba's name): float32 for complex64."""
        if not self.is_complex:
            raise AttributeError(f"{self} is not a complex type: it has no underlying_float")
        return from_dtype(np.dtype(f"f{self.numpy_dtype.itemsize // 2}"))

    def __getitem__(self, key: Any) -> "Array":
        """``float32[::1]`` is a C-contiguous 1d array, ``float32[::1, :]`` an F 2d one."""
        return Array(self, len(_as_tuple(key)), _layout_from_slices(_as_tuple(key)))

    def __call__(self, *args: Any) -> Any:
        """With types, a Signature; with one value, the value converted as NumPy would."""
        if args and all(_is_numba_object(a) for a in args):
            args = tuple(from_numba(a) for a in args)
        if all(isinstance(a, Type) for a in args):
            return Signature(self, args)
        if len(args) == 1:
            return self.numpy_dtype.type(args[0])
        raise TypeError(
            f"{self}(...) expects either types (to make a signature) or one value "
            f"(to convert); got {args!r}")


class Boolean(ScalarType):
    """The boolean type (Numba's ``types.Boolean``)."""


class Integer(ScalarType):
    """A signed or unsigned integer type (Numba's ``types.Integer``)."""

    @property
    def signed(self) -> bool:
        return self.numpy_dtype.kind == "i"


class Float(ScalarType):
    """A floating-point type (Numba's ``types.Float``)."""


class Complex(ScalarType):
    """A complex type (Numba's ``types.Complex``)."""


class Record(Type):
    """A record: one element of a NumPy structured dtype (Numba's ``Record``), whose fields
    are numbers or nested arrays of numbers. In a kernel a record is a reference to its
    bytes: ``r.x = 1`` writes into the array (or the record argument) it came from.
    ``Record(dtype)[:]`` is an array of them."""

    def __init__(self, dtype: Any):
        self.dtype = np.dtype(dtype)
        # The compiler's spelling (Numba's), checked there: fields must be numbers or arrays.
        self._spelling = _core.record_type(self.dtype)

    def __getitem__(self, key: Any) -> "Array":
        """``rec[:]``: a 1-d array of these records, as Numba spells array types."""
        slices = _as_tuple(key)
        return Array(self, len(slices), _layout_from_slices(slices))

    @property
    def fields(self) -> dict[str, tuple[np.dtype, int]]:
        """Each field's dtype and byte offset, as NumPy's ``dtype.fields`` gives them."""
        return {name: (f[0], f[1]) for name, f in self.dtype.fields.items()}

    @property
    def size(self) -> int:
        return self.dtype.itemsize

    def __str__(self) -> str:
        return self._spelling


class Array(Type):
    """An array of ``dtype`` (a number type or a Record) with ``ndim`` dimensions (0 to 8)
    and a layout: "C" (C-contiguous), "F" (Fortran-contiguous) or "A" (any strides)."""

    def __init__(self, dtype: "ScalarType | Record", ndim: int, layout: str,
                 readonly: bool = False):
        if not isinstance(dtype, (ScalarType, Record)):
            raise TypeError(f"array dtype must be a scalar type such as float32 or a Record; "
                            f"got {dtype!r}")
        if not isinstance(ndim, int) or not 0 <= ndim <= MAX_ARRAY_NDIM:
            raise TypeError(f"arrays have 0 to {MAX_ARRAY_NDIM} dimensions; got ndim={ndim!r}")
        if layout not in LAYOUTS:
            raise TypeError(f"array layout must be one of 'C', 'F', 'A'; got {layout!r}")
        self.dtype = dtype
        self.ndim = ndim
        self.layout = layout
        self.readonly = bool(readonly)

    @property
    def mutable(self) -> bool:
        return not self.readonly

    def copy(self, dtype: "ScalarType | Record | None" = None, ndim: int | None = None,
             layout: str | None = None, readonly: bool | None = None) -> "Array":
        """This array type with some of its properties replaced (Numba's ``Array.copy``)."""
        return Array(
            self.dtype if dtype is None else dtype,
            self.ndim if ndim is None else ndim,
            self.layout if layout is None else layout,
            self.readonly if readonly is None else readonly)

    def __str__(self) -> str:
        prefix = "readonly " if self.readonly else ""
        return f"{prefix}array({self.dtype}, {self.ndim}d, {self.layout})"


class Tuple(Type):
    """A tuple of types; homogeneous ones print as Numba's ``UniTuple(int64 x 2)``."""

    def __init__(self, elements: Sequence[Type]):
        for element in elements:
            if not isinstance(element, Type) or isinstance(element, NoneType):
                raise TypeError(f"tuple elements must be cudajit types; got {element!r}")
        self.elements = tuple(elements)

    def __len__(self) -> int:
        return len(self.elements)

    def __str__(self) -> str:
        first = self.elements[0] if self.elements else None
        if first is not None and all(e == first for e in self.elements):
            return f"UniTuple({first} x {len(self.elements)})"
        return "Tuple(" + ", ".join(str(e) for e in self.elements) + ")"


def _number_type(value: Any, what: str) -> ScalarType:
    """A cudajit or Numba number type, or what NumPy takes as a dtype, as cudajit's number type
    (a TypeError naming `what` for anything else)."""
    converted = from_numba(value)
    return converted if isinstance(converted, ScalarType) else from_dtype(converted, what)


class CPointer(Type):
    """Numba's ``CPointer(dtype)``: a raw address of numbers, as a kernel parameter in a
    signature (``void(CPointer(uint8), uint32)``). It is given an integer at the launch
    (an address, such as ``a.__cuda_array_interface__["data"][0]``); in the kernel
    ``p[i]`` reads and writes the ``i``-th number from there, with no shape, bounds
    checks or wrap-around of negative indices (pointer arithmetic)."""

    def __init__(self, dtype: Any):
        self.dtype = _number_type(dtype, "CPointer dtype")

    def __str__(self) -> str:
        return f"CPointer({self.dtype})"


class NumberClass(Type):
    """The type of a number type given as a kernel argument (Numba's ``NumberClass``, which
    ``numba.typeof(np.float32)`` gives, printed ``class(float32)``): ``kernel[g, b](a,
    np.float32)``. It is known when compiling: the kernel is specialised on it (one kernel
    per type) and it is not passed at the launch; the kernel uses it as the dtype it names
    (``cuda.local.array(n, dty)``, ``dty(x)``). ``instance_type`` is that dtype."""

    def __init__(self, instance_type: Any):
        self.instance_type = _number_type(instance_type, "NumberClass dtype")

    def __str__(self) -> str:
        return f"class({self.instance_type})"


def type_argument(value: Any) -> ScalarType | None:
    """The number type that ``value`` names when it is a type given in place of an argument
    (a NumPy scalar class such as ``np.float32``, a ``np.dtype``, a cudajit or Numba number
    type, Numba's ``NumberClass`` or ``DType``, a cudajit NumberClass); None for any other
    value."""
    if isinstance(value, NumberClass):
        return value.instance_type
    if isinstance(value, ScalarType):
        return value
    if isinstance(value, type) and issubclass(value, np.generic) or isinstance(value, np.dtype):
        try:
            return from_dtype(value)
        except TypeError:
            return None
    if _is_numba_object(value):
        converted = from_numba(value)
        if isinstance(converted, NumberClass):
            return converted.instance_type
        return converted if isinstance(converted, ScalarType) else None
    return None


def UniTuple(dtype: Type, count: int) -> Tuple:  # noqa: N802 - Numba's name
    """Numba's ``UniTuple(dtype, count)``: a tuple of ``count`` items of one type, as
    signatures spell it (``"void(UniTuple(float64, 3), float64[:])"``)."""
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise TypeError(f"UniTuple's count must be a positive int; got {count!r}")
    return Tuple([dtype] * count)


class Signature:
    """A function signature: ``return_type`` (None when not given) and ``args``."""

    __slots__ = ("return_type", "args")

    def __init__(self, return_type: Type | None, args: Sequence[Type]):
        for arg in args:
            if not isinstance(arg, Type) or isinstance(arg, NoneType):
                raise TypeError(f"signature argument types must be cudajit types; got {arg!r}")
        if return_type is not None and not isinstance(return_type, Type):
            raise TypeError(f"signature return type must be a cudajit type; got {return_type!r}")
        self.return_type = return_type
        self.args = tuple(args)

    def __str__(self) -> str:
        args = "(" + ", ".join(str(a) for a in self.args) + ")"
        return args if self.return_type is None else f"{args} -> {self.return_type}"

    def __repr__(self) -> str:
        return f"Signature({self})"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Signature) and self.return_type == other.return_type
                and self.args == other.args)

    def __hash__(self) -> int:
        return hash((self.return_type, self.args))


def _as_tuple(key: Any) -> tuple:
    return key if isinstance(key, tuple) else (key,)


def _layout_from_slices(slices: tuple) -> str:
    """Numba's rule: ``::1`` on the last dimension means C, on the first F."""
    usage = "index a type with ':' or '::1' slices, e.g. float32[:, ::1]"
    if not 1 <= len(slices) <= MAX_ARRAY_NDIM:
        raise TypeError(f"arrays have 1 to {MAX_ARRAY_NDIM} dimensions; got {len(slices)} slices")
    contiguous = []
    for position, item in enumerate(slices):
        if not (isinstance(item, slice) and item.start is None and item.stop is None
                and item.step in (None, 1)):
            raise TypeError(f"{usage}; got {item!r}")
        if item.step == 1:
            contiguous.append(position)
    if not contiguous:
        return "A"
    if contiguous == [len(slices) - 1]:
        return "C"
    if contiguous == [0]:
        return "F"
    raise TypeError(f"only the first (F) or the last (C) dimension can be '::1'; got {slices!r}")


none = NoneType()
void = none

boolean = bool_ = b1 = Boolean("bool", np.bool_)
int8 = i1 = Integer("int8", np.int8)
int16 = i2 = short = Integer("int16", np.int16)
int32 = i4 = intc = Integer("int32", np.int32)
int64 = i8 = intp = int_ = longlong = Integer("int64", np.int64)
uint8 = u1 = byte = Integer("uint8", np.uint8)
uint16 = u2 = ushort = Integer("uint16", np.uint16)
uint32 = u4 = uintc = Integer("uint32", np.uint32)
uint64 = u8 = uintp = uint = ulonglong = Integer("uint64", np.uint64)
float16 = f2 = half = Float("float16", np.float16)
# As in Numba, float_ is float32 (single) and double is float64.
float32 = f4 = float_ = single = Float("float32", np.float32)
float64 = f8 = double = Float("float64", np.float64)
complex64 = c8 = csingle = Complex("complex64", np.complex64)
complex128 = c16 = cdouble = Complex("complex128", np.complex128)



def _bfloat16_dtype() -> np.dtype:
    """NumPy has no bfloat16: ml_dtypes' (JAX's) where installed, else two opaque bytes."""
    try:
        import ml_dtypes  # noqa: PLC0415
    except ImportError:
        return np.dtype("V2")
    return np.dtype(ml_dtypes.bfloat16)


# numba-cuda's bf16.bfloat16: a kernel type as float16 is (cudajit.bf16 has its functions).
bfloat16 = ScalarType("bfloat16", np.void)
bfloat16.numpy_dtype = _bfloat16_dtype()

# CUDA's 8-bit floats (cuda_fp8.h; numba-cuda's numba.cuda._internal.cuda_fp8, cudajit.fp8):
# kernel types made and read by conversion only (fp8_e4m3(x), float32(v)); never elements of
# host arrays (their bytes are uint8 storage there, as __nv_fp8_storage_t).
fp8_e4m3 = ScalarType("fp8_e4m3", np.void)
fp8_e5m2 = ScalarType("fp8_e5m2", np.void)
fp8_e8m0 = ScalarType("fp8_e8m0", np.void)
FP8_TYPES = (fp8_e4m3, fp8_e5m2, fp8_e8m0)
for _fp8 in FP8_TYPES:
    _fp8.numpy_dtype = np.dtype("V1")
    _fp8.__name__ = _fp8.name  # as numba-cuda's classes (tests print fp8_type.__name__)

# The scalar types by their names (the C++ spelling of an array's element).
_SCALARS_BY_NAME = {t.name: t for t in (bool_, int8, int16, int32, int64, uint8, uint16, uint32,
                                        uint64, float16, float32, float64, complex64, complex128,
                                        bfloat16, *FP8_TYPES)}

# Numba's type groups (numba.core.types.signed_domain ...), which programs and tests use to
# list the types they try.
signed_domain = frozenset([int8, int16, int32, int64])
unsigned_domain = frozenset([uint8, uint16, uint32, uint64])
integer_domain = signed_domain | unsigned_domain
real_domain = frozenset([float32, float64])
complex_domain = frozenset([complex64, complex128])
number_domain = integer_domain | real_domain | complex_domain

SCALAR_TYPES = (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
                float16, float32, float64, complex64, complex128)
# Every scalar type the compiler has, by its spelling there: a type added in C++ and not here
# fails at import, not in the first kernel that uses it.
if {str(t) for t in (*SCALAR_TYPES, bfloat16, *FP8_TYPES)} != set(_core.SCALAR_NAMES):
    raise ImportError(f"cudajit.types has scalars {sorted(str(t) for t in SCALAR_TYPES)} + "
                      f"bfloat16 and fp8; the compiler has {sorted(_core.SCALAR_NAMES)}")
_SCALAR_BY_DTYPE = {t.numpy_dtype: t for t in SCALAR_TYPES}
if bfloat16.numpy_dtype.name == "bfloat16":  # opaque V2 bytes are not taken for bfloat16
    _SCALAR_BY_DTYPE[bfloat16.numpy_dtype] = bfloat16
_SUPPORTED_DTYPES = ", ".join(str(t) for t in SCALAR_TYPES)


class NPDatetime(ScalarType):
    """NumPy's ``datetime64[unit]`` or ``timedelta64[unit]`` (Numba's ``NPDatetime`` and
    ``NPTimedelta``): an int64 count of the unit, ``NaT`` the smallest int64. In kernels they
    compare, subtract and add as NumPy's do (the compiler's typing says which operators)."""

    def __init__(self, kind: str, unit: str):
        super().__init__(f"{kind}[{unit}]" if unit else kind,
                         np.dtype(f"{kind}[{unit}]" if unit else kind))
        self.unit = unit

    @property
    def bitwidth(self) -> int:
        return 64


# Their units from the coarsest ("" is NumPy's generic unit), as the compiler orders them.
DATETIME_UNITS = ("Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", "")
DATETIME_TYPES = tuple(NPDatetime("datetime64", unit) for unit in DATETIME_UNITS)
TIMEDELTA_TYPES = tuple(NPDatetime("timedelta64", unit) for unit in DATETIME_UNITS)
for _t in (*DATETIME_TYPES, *TIMEDELTA_TYPES):
    _SCALAR_BY_DTYPE[_t.numpy_dtype] = _t
    _SCALARS_BY_NAME[_t.name] = _t
# A signature string spells them datetime64[D]; eval sees these names instead.
_DATETIME_SPELLING = re.compile(r"\b(datetime64|timedelta64)\[(\w*)\]")
_DATETIME_NAMESPACE = {f"_{t.name.replace('[', '_').rstrip(']')}": t
                       for t in (*DATETIME_TYPES, *TIMEDELTA_TYPES)}


def _spell_datetimes(text: str) -> str:
    """``text`` with each ``datetime64[D]`` as the name eval finds it under."""
    return _DATETIME_SPELLING.sub(lambda m: f"_{m.group(1)}_{m.group(2)}", text)

# The names a signature string may use, as in Numba.
SIGNATURE_NAMESPACE: dict[str, Any] = {
    name: value for name, value in globals().items() if isinstance(value, Type)}
SIGNATURE_NAMESPACE.update(Array=Array, Tuple=Tuple, UniTuple=UniTuple, CPointer=CPointer,
                           NumberClass=NumberClass)
SIGNATURE_NAMESPACE.update({t.name: t for t in (*DATETIME_TYPES, *TIMEDELTA_TYPES)})
SIGNATURE_NAMESPACE.update(_DATETIME_NAMESPACE)


def _is_numba_object(value: Any) -> bool:
    return type(value).__module__.split(".")[0] == "numba"


def from_numba(value: Any) -> Any:
    """The cudajit type (or Signature) of a Numba or numba-cuda type object, so that
    signatures written with ``from numba import float32`` or ``types.Array(...)`` work;
    any other value is returned as it is. Numba need not be installed."""
    if not _is_numba_object(value) or isinstance(value, (Type, Signature)):
        return value
    if hasattr(value, "args") and hasattr(value, "return_type"):  # a Numba Signature
        args = [from_numba(a) for a in value.args]
        return Signature(from_numba(value.return_type), args)
    if type(value).__name__ == "Record" and isinstance(getattr(value, "dtype", None), np.dtype):
        return Record(value.dtype)
    if type(value).__name__ == "CPointer" and hasattr(value, "dtype"):
        return CPointer(from_numba(value.dtype))
    if type(value).__name__ == "NumberClass" and hasattr(value, "instance_type"):
        return NumberClass(from_numba(value.instance_type))  # numba.typeof(np.int32)
    if type(value).__name__ == "DType" and hasattr(value, "dtype"):
        return NumberClass(from_numba(value.dtype))  # numba.typeof(np.dtype(np.int32))
    if hasattr(value, "dtype") and hasattr(value, "ndim") and hasattr(value, "layout"):
        dtype = from_numba(value.dtype)
        if isinstance(dtype, (ScalarType, Record)):
            return Array(dtype, int(value.ndim), str(value.layout),
                         readonly=not getattr(value, "mutable", True))
    if hasattr(value, "types") and isinstance(getattr(value, "types"), tuple):
        return Tuple([from_numba(t) for t in value.types])
    if type(value).__name__ == "Bfloat16":  # numba-cuda's types.bfloat16, "__nv_bfloat16"
        return bfloat16
    # Numba prints its boolean type "bool", a name signatures cannot use (Python's bool).
    named = bool_ if str(value) == "bool" else SIGNATURE_NAMESPACE.get(str(value))
    if isinstance(named, (ScalarType, NoneType)):
        return named
    return value  # not a type cudajit has: the caller's message names it


def from_dtype(dtype: Any, what: str = "dtype") -> ScalarType:
    """The scalar type of a NumPy dtype (or anything ``np.dtype()`` accepts)."""
    try:
        np_dtype = np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"expected a NumPy dtype; got {dtype!r} ({exc})") from None
    if not np_dtype.isnative:
        raise TypeError(f"{what} must have the native byte order; got {np_dtype.str!r}")
    scalar = _SCALAR_BY_DTYPE.get(np_dtype)
    if scalar is None:
        raise TypeError(f"unsupported {what} {np_dtype}; expected one of {_SUPPORTED_DTYPES}")
    return scalar


def typeof(value: Any) -> Type:
    """The cudajit type of a NumPy array, a Python or NumPy number, or a tuple of them."""
    if isinstance(value, np.ndarray):
        return _typeof_array(value)
    if isinstance(value, (bool, np.bool_)):
        return bool_
    if isinstance(value, np.void) and value.dtype.names is not None:
        return Record(value.dtype)
    if isinstance(value, np.generic):  # before float/complex: np.float64 subclasses float
        return from_dtype(value.dtype)
    if isinstance(value, int):
        if -2**63 <= value < 2**63:
            return int64
        if 0 <= value < 2**64:
            return uint64
        raise TypeError(f"integer {value} does not fit in int64 or uint64")
    if isinstance(value, float):
        return float64
    if isinstance(value, complex):
        return complex128
    if isinstance(value, tuple):
        return Tuple([typeof(v) for v in value])
    if (type_arg := type_argument(value)) is not None:
        return NumberClass(type_arg)  # a type given in place of an argument, as in Numba

    if isinstance(value, _core.DeviceArray):  # device arrays, records (random states) too
        return _typeof_device_array(value)
    if callable(getattr(value, "to_device", None)) and hasattr(value, "value"):
        return _typeof_argument_hint(value)  # cuda.In/Out/InOut, Numba's protocol
    if hasattr(value, "__cuda_array_interface__") or hasattr(value, "__dlpack__"):
        # Typed as a launch types it: as the view the launch makes (no synchronisation).
        return _typeof_device_array(_core.import_array(value, False))
    raise TypeError(
        f"cannot determine the cudajit type of a {type(value).__name__} value; "
        "expected what a launch takes: a device array, an array exporting "
        "__cuda_array_interface__ or DLPack, a NumPy array, a number, a record, or a tuple "
        "of them")


def _typeof_device_array(array: Any) -> Array:
    """The type of a DeviceArray (cudajit's, or the view of a foreign array), as the launch
    path gives it: its element, dimensions, layout and read-only flag."""
    record = array.record_dtype
    dtype: ScalarType | Record = (Record(record) if record is not None
                                  else _SCALARS_BY_NAME[array.dtype_name])
    return Array(dtype, array.ndim, array.layout, readonly=array.readonly)


def _typeof_argument_hint(hint: Any) -> Array:
    """What a launch passes for cuda.In(x) ...: a device array as it is, a NumPy array as
    the contiguous device copy made of it (F-contiguous stays F, anything else is C)."""
    value = hint.value
    if not isinstance(value, np.ndarray):
        return typeof(value)
    host = _typeof_array(value)
    layout = "F" if host.layout == "F" else "C"
    return Array(host.dtype, host.ndim, layout)


def _typeof_array(array: np.ndarray) -> Array:
    if not 0 <= array.ndim <= MAX_ARRAY_NDIM:
        raise TypeError(f"arrays must have 0 to {MAX_ARRAY_NDIM} dimensions; got {array.ndim}")
    dtype: ScalarType | Record = (Record(array.dtype) if array.dtype.names is not None
                                  else from_dtype(array.dtype, what="array dtype"))
    if array.flags.c_contiguous:
        layout = "C"
    elif array.flags.f_contiguous:
        layout = "F"
    else:
        layout = "A"
    return Array(dtype, array.ndim, layout, readonly=not array.flags.writeable)


_SIGNATURE_USAGE = ("expected a signature such as 'void(float32[::1], float32)', "
                    "a Signature, or a tuple of argument types")


def parse_signature(sig: Any) -> Signature:
    """A Signature from a Signature, a string such as ``"void(float32[::1], float32)"``
    (evaluated among the type names, as Numba does) or a tuple/list of argument
    types (the return type is then None)."""
    sig = from_numba(sig)
    if isinstance(sig, Signature):
        return sig
    if isinstance(sig, str):
        return _parse_signature_text(sig)
    if isinstance(sig, (tuple, list)):
        return _signature_from_args(sig, sig)
    raise TypeError(f"invalid signature {sig!r}: {_SIGNATURE_USAGE}")


@functools.lru_cache(maxsize=1024)
def _parse_signature_text(sig: str) -> Signature:
    # Cached: eval of the text is a tenth of a millisecond, on every compile_ptx.
    parsed = _eval_type_expression(sig)
    if isinstance(parsed, Signature):
        return parsed
    if isinstance(parsed, tuple):
        return _signature_from_args(parsed, sig)
    raise TypeError(f"invalid signature {sig!r}: {_SIGNATURE_USAGE}; got {parsed!r}")


def _signature_from_args(args: Sequence[Any], original: Any) -> Signature:
    types = []
    for arg in args:
        arg_type = _eval_type_expression(arg) if isinstance(arg, str) else from_numba(arg)
        if not isinstance(arg_type, Type) or isinstance(arg_type, NoneType):
            raise TypeError(f"invalid signature {original!r}: argument {arg!r} is not a type; "
                            f"{_SIGNATURE_USAGE}")
        types.append(arg_type)
    return Signature(None, types)


def _eval_type_expression(text: str) -> Any:
    try:
        return eval(_spell_datetimes(text), {"__builtins__": {}},  # noqa: S307
                    dict(SIGNATURE_NAMESPACE))
    except Exception as exc:  # any failure means the string is not a signature
        raise TypeError(
            f"invalid signature {text!r}: {_SIGNATURE_USAGE} ({type(exc).__name__}: {exc})"
        ) from None
