"""Foreign device code linked with kernels on the cuda device, as in numba-cuda:
``cuda.declare_device`` declares a function that kernels call, ``@cuda.jit(link=[...])``
and ``declare_device(link=...)`` name the code that defines it (files, or the
``LinkableCode`` objects ``CUSource``, ``PTXSource``, ``Cubin``, ``Fatbin``, ``Object``,
``Archive``), which the driver's linker (cuLink*) links with the kernel's PTX when the kernel
is loaded. CUDA C++ is compiled to PTX with NVRTC (nvrtc.py) for the device's compute
capability first.

The foreign functions follow numba-cuda's conventions (``abi="numba"``, the default:
``extern "C" __device__ int f(T* result, args...)`` returning 0; ``abi="c"``:
``extern "C" __device__ T f(args...)``). The cpu device links nothing: a kernel that calls a
declared function does not compile there (a CompileError naming the cuda device).
"""

from __future__ import annotations

import io
import os
import re
from typing import Any, Iterable

from . import nvrtc
from . import types as cjtypes
from .errors import CompileError, LinkerError

__all__ = ["LinkableCode", "PTXSource", "CUSource", "Cubin", "Fatbin", "Object", "Archive",
           "LTOIR", "declare_device", "DeclaredDevice"]

# A file's kind by its extension, as numba-cuda reads them.
_KIND_BY_EXTENSION = {".ptx": "ptx", ".cu": "cu", ".cubin": "cubin", ".fatbin": "fatbin",
                      ".o": "object", ".a": "library", ".ltoir": "ltoir"}
_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

# Extra folders NVRTC searches for #include (config.CUDA_NVRTC_EXTRA_SEARCH_PATHS, as in
# numba-cuda: colon-separated).
extra_search_paths: str = os.environ.get("CUDAJIT_NVRTC_EXTRA_SEARCH_PATHS", "")


class LinkableCode:
    """Code to link from memory: ``data`` is bytes or text (or a StringIO/BytesIO, read
    when linked); ``name`` names it in the linker's and NVRTC's messages."""

    kind = ""
    default_name = "<unnamed>"

    def __init__(self, data: Any, name: str | None = None, setup_callback: Any = None,
                 teardown_callback: Any = None, nrt: bool = False):
        if setup_callback is not None or teardown_callback is not None:
            raise NotImplementedError("cudajit does not call setup_callback/teardown_callback "
                                      "of linked code yet")
        if nrt:
            raise NotImplementedError("cudajit has no NRT (memory allocation in kernels) to "
                                      "link with")
        self._data = data
        self._name = name
        self.nrt = False
        self.setup_callback = self.teardown_callback = None

    @property
    def name(self) -> str:
        return self._name or self.default_name

    @property
    def data(self) -> Any:
        if isinstance(self._data, (io.StringIO, io.BytesIO)):
            return self._data.getvalue()
        return self._data

    @staticmethod
    def from_path(path: str) -> "LinkableCode":
        """The code in the file at ``path``, its kind from its extension."""
        cls = _class_for(path)
        try:
            with open(path, "r" if cls.kind in ("cu", "ptx") else "rb") as f:
                return cls(f.read(), name=os.path.basename(os.path.splitext(path)[0]))
        except FileNotFoundError:
            raise LinkerError(f"{path} not found") from None

    @classmethod
    def from_path_or_obj(cls, path_or_obj: Any) -> "LinkableCode":
        if isinstance(path_or_obj, (str, os.PathLike)):
            return cls.from_path(os.fspath(path_or_obj))
        return path_or_obj

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


class PTXSource(LinkableCode):
    """PTX text in memory."""
    kind, default_name = "ptx", "<unnamed-ptx>"


class CUSource(LinkableCode):
    """CUDA C++ source in memory, compiled with NVRTC when linked."""
    kind, default_name = "cu", "<unnamed-cu>"


class Cubin(LinkableCode):
    """A cubin (ELF) in memory; the simulated GPU refuses it (it runs PTX)."""
    kind, default_name = "cubin", "<unnamed-cubin>"


class Fatbin(LinkableCode):
    """A fatbin in memory; the simulated GPU links the PTX inside it."""
    kind, default_name = "fatbin", "<unnamed-fatbin>"


class Object(LinkableCode):
    """A host object file whose device code (its fatbins) is linked."""
    kind, default_name = "object", "<unnamed-object>"


class Archive(LinkableCode):
    """A static library of such objects."""
    kind, default_name = "library", "<unnamed-archive>"


class LTOIR(LinkableCode):
    """LTO-IR, which needs nvJitLink's link-time optimisation: not linked by cudajit."""
    kind, default_name = "ltoir", "<unnamed-ltoir>"


_CLASS_BY_KIND = {cls.kind: cls for cls in (PTXSource, CUSource, Cubin, Fatbin, Object,
                                            Archive, LTOIR)}


def _class_for(path: str) -> type[LinkableCode]:
    extension = os.path.splitext(path)[1]
    kind = _KIND_BY_EXTENSION.get(extension)
    if kind is None:
        # Numba's words first: programs and tests match them.
        what = f"extension {extension}" if extension else "no extension"
        raise LinkerError(f"Don't know how to link file with {what}: cannot link '{path}', "
                          f"a file's kind is known by its extension, one of "
                          f"{', '.join(sorted(_KIND_BY_EXTENSION))}")
    return _CLASS_BY_KIND[kind]


# numba-cuda's LinkableCode kinds are the driver's CUjitInputType values (its CUSource's is
# "cu"): the kind of ours each one is, by the enum's name or its value.
_KIND_BY_JIT_INPUT = {"CU_JIT_INPUT_CUBIN": "cubin", "CU_JIT_INPUT_PTX": "ptx",
                      "CU_JIT_INPUT_FATBINARY": "fatbin", "CU_JIT_INPUT_OBJECT": "object",
                      "CU_JIT_INPUT_LIBRARY": "library", "CU_JIT_INPUT_NVVM": "ltoir"}
_KIND_BY_JIT_INPUT_VALUE = dict(enumerate(_KIND_BY_JIT_INPUT.values()))


def code_kind(code: Any) -> str | None:
    """The kind of a LinkableCode-like object (one of ours, numba-cuda's, or any object with
    ``kind``, ``data`` and ``name``): "ptx", "cu", "cubin", "fatbin", "object", "library" or
    "ltoir"; None if it has no such kind."""
    if not all(hasattr(code, a) for a in ("kind", "data", "name")):
        return None
    kind = code.kind
    if isinstance(kind, str):
        return kind if kind in _CLASS_BY_KIND else None
    name = getattr(kind, "name", None)  # numba-cuda's: a CUjitInputType member
    if isinstance(name, str) and name in _KIND_BY_JIT_INPUT:
        return _KIND_BY_JIT_INPUT[name]
    try:
        return _KIND_BY_JIT_INPUT_VALUE.get(int(kind))
    except (TypeError, ValueError):
        return None


def _check_linkable(item: Any) -> None:
    """A TypeError unless ``item`` is a LinkableCode-like object; NotImplementedError for
    what cudajit does not do with one (module callbacks, NRT), as for its own objects."""
    if code_kind(item) is None:
        raise TypeError(f"link= takes file paths and LinkableCode objects (cuda.CUSource, "
                        f"cuda.PTXSource, ..., or numba-cuda's: objects with kind, data and "
                        f"name); got {item!r}")
    if getattr(item, "setup_callback", None) or getattr(item, "teardown_callback", None):
        raise NotImplementedError(f"{item!r}: cudajit does not call setup_callback/"
                                  "teardown_callback of linked code yet")
    if getattr(item, "nrt", False):
        raise NotImplementedError(f"{item!r}: cudajit has no NRT (memory allocation in "
                                  "kernels) to link with")


def link_items(link: Any) -> tuple[Any, ...]:
    """``link=`` as a tuple of paths and LinkableCode objects, checked: a single item, a
    list, tuple or set of them, or None. A LinkableCode object is cudajit's or any object
    with its protocol (``kind``, ``data``, ``name``), numba-cuda's ``CUSource`` ... included."""
    if link is None:
        return ()
    items = tuple(link) if isinstance(link, (list, tuple, set, frozenset)) else (link,)
    for item in items:
        if isinstance(item, (str, os.PathLike)):
            _class_for(os.fspath(item))
        else:
            _check_linkable(item)
    return tuple(os.fspath(i) if isinstance(i, os.PathLike) else i for i in items)


def _as_bytes(data: Any) -> bytes:
    return data.encode() if isinstance(data, str) else bytes(data)


def link_inputs(items: Iterable[Any], cc: int) -> list[tuple[str, str, bytes]]:
    """What the driver's linker gets for a device of compute capability ``cc``
    (major*10+minor): ``(kind, name, bytes)``, CUDA C++ compiled to PTX. Files are read now,
    at the kernel's load, so an edited file is linked as it is then."""
    inputs = []
    for item in items:
        folders = [p for p in extra_search_paths.split(":") if p]
        if isinstance(item, str):
            folders.insert(0, os.path.dirname(os.path.abspath(item)))  # its own #includes
            name, code = item, LinkableCode.from_path(item)
        else:
            name, code = item.name, item
        kind = code_kind(code)
        if kind == "ltoir":
            raise CompileError(f"'{name}' is LTO-IR, which needs link-time optimisation "
                               "(nvJitLink); cudajit links with the driver's linker: link PTX, "
                               "CUDA C++ or a cubin instead")
        if kind == "cu":
            source = code.data if isinstance(code.data, str) else _as_bytes(code.data).decode()
            inputs.append(("ptx", name, nvrtc.compile_to_ptx(source, name, cc, folders)))
        else:
            inputs.append((str(kind), name, _as_bytes(code.data)))
    return inputs


def _unique(items: Iterable[Any]) -> tuple[Any, ...]:
    """The items once each, in order (a declared function used twice brings its code once)."""
    seen, unique = set(), []
    for item in items:
        key = item if isinstance(item, str) else id(item)
        if key not in seen:
            seen.add(key)
            unique.append(item)
    return tuple(unique)


def linked_code(jit_link: Iterable[Any], declared: Iterable["DeclaredDevice"]) -> tuple[Any, ...]:
    """Everything a kernel links: its own ``link=`` and its declared functions'."""
    return _unique([*jit_link, *(i for d in declared for i in d.link)])


class DeclaredDevice:
    """A foreign device function that kernels call (``cuda.declare_device``); ``name`` is
    its symbol, ``sig`` its signature, ``link`` the code that defines it."""

    def __init__(self, name: str, sig: cjtypes.Signature, link: tuple[Any, ...], abi: str):
        self.name = name
        self.sig = sig
        self.link = link
        self.abi = abi
        # declare_device(use_cooperative=True): a kernel calling it is launched cooperatively.
        self.use_cooperative = False

    @property
    def ir_declaration(self) -> str:
        """The declaration as the compiler reads it: the ABI, the return type, then each
        parameter's type, one a line."""
        ret = self.sig.return_type
        ret_text = "none" if ret is None or isinstance(ret, cjtypes.NoneType) else str(ret)
        return "\n".join([self.abi, ret_text, *(str(a) for a in self.sig.args)])

    def __call__(self, *args: Any) -> Any:
        raise TypeError(f"foreign device function '{self.name}' can only be called from "
                        "kernels and device functions")

    def __repr__(self) -> str:
        return f"<declared device function {self.name}{self.sig}>"


def declare_device(name: str, sig: Any, link: Any = None, use_cooperative: bool = False,
                   abi: str = "numba") -> DeclaredDevice:
    """Declare the signature of a foreign device function, defined in code that ``link``
    names (or the calling kernel's ``link=``); kernels then call the returned object.

    ``sig`` must give the return type (``"float32(float32, float32)"``). With ``abi="numba"``
    the function is ``extern "C" __device__ int name(ret* result, args...)`` returning 0; with
    ``abi="c"``, ``extern "C" __device__ ret name(args...)``. Numbers, bools and
    ``CPointer(dtype)`` pass; the code is linked on the cuda device only.
    """
    if abi not in ("numba", "c"):
        raise NotImplementedError(f"Unsupported ABI: {abi}")
    if not isinstance(name, str) or not _C_IDENTIFIER.match(name):
        raise ValueError(f"declare_device() needs the function's symbol, a C identifier; got "
                         f"{name!r}")
    signature = cjtypes.parse_signature(sig)
    if signature.return_type is None:
        raise TypeError("Return type must be provided for device declarations")
    declared = DeclaredDevice(name, signature, link_items(link), abi)
    declared.use_cooperative = bool(use_cooperative)  # its callers launch cooperatively
    return declared
