"""Kernels and device functions as ``@cuda.jit`` makes them.

A kernel is a :class:`Dispatcher`: ``kernel[griddim, blockdim](*args)`` launches
it, compiling a specialization for the argument types at the first launch that
sees them (or eagerly, for the signatures given to ``@jit``). The launch path —
classifying arguments, finding the specialization, packing parameters — is in
C++ (``cudajit._core.Dispatcher``); this module only holds the Python face.
"""

from __future__ import annotations

import collections
import functools
import importlib
import inspect
import operator
import os
import pickle
import sys
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from . import _core, frontend, linking
from . import types as cjtypes
from .api import synchronize, to_device
from .function_pickling import bind_owner, by_value
from .errors import hides_cudajit_frames
from .introspection import TypeAnnotation
from .sass import sass_of_ptx
from .source import attach_text, function_text, warn_if_source_unreadable
from .types import Type, from_numba, parse_signature, typeof

__all__ = ["Dispatcher", "DebugDispatcher", "DeviceFunction"]

DEFAULT_CC = (8, 0)


def current_cc() -> tuple[int, int] | None:
    """The current GPU's compute capability; None on the cpu device (compile_ptx's default)."""
    device = _core.current_device()
    return tuple(device.compute_capability) if device.kind == "cuda" else None


def cc_number(cc: tuple[int, int] | None) -> int:
    """(8, 0) -> 80, checked."""
    if cc is None:
        cc = DEFAULT_CC
    if (not isinstance(cc, tuple) or len(cc) != 2
            or not all(isinstance(v, int) and v >= 0 for v in cc)):
        raise TypeError(f"cc must be a tuple (major, minor) such as (8, 0); got {cc!r}")
    number = cc[0] * 10 + cc[1]
    try:
        _core.ptx_feature(number)
    except ValueError as exc:
        raise ValueError(f"unsupported compute capability {cc!r}: {exc}") from None
    return number


def _signature_key(signature: Any) -> tuple[str, ...]:
    """The argument type spellings of a signature given as a Signature, a string or types."""
    if isinstance(signature, tuple) and all(isinstance(t, str) for t in signature):
        return signature
    return tuple(str(t) for t in parse_signature(signature).args)


class CacheStats(NamedTuple):
    """A kernel's ``stats``, as Numba's dispatcher has them: its cache directory (None
    without ``cache=True``), and by argument types the compiles that the caches answered (the
    code shared between kernels in this process, or the disk) and those that compiled."""

    cache_path: str | None
    cache_hits: collections.Counter
    cache_misses: collections.Counter


class Dispatcher(_core.Dispatcher):
    """A CUDA kernel compiled from ``py_func``, specialised per argument types.

    ``kernel[griddim, blockdim, stream, sharedmem](*args)`` launches it on the
    current device; indexing and calling are C++ methods of the base class.
    """

    def __init__(self, py_func: Callable[..., Any], signatures: Sequence[Any] = (),
                 fastmath: bool = False, lineinfo: bool = False, debug: bool = False,
                 max_registers: int | None = None, cache_dir: str | None = None,
                 link: Sequence[Any] = (), launch_bounds: tuple[int, int, int] = (0, 0, 0),
                 shared_memory_carveout: int = -1, opt: bool = True):
        name = getattr(py_func, "__name__", "kernel")
        # The IR is built at the first compile (a launch, an inspect_*), called from C++.
        super().__init__(name, hides_cudajit_frames(self._build_ir), fastmath=fastmath,
                         lineinfo=lineinfo, debug=debug, max_registers=max_registers or 0,
                         cache_dir=cache_dir or "", launch_bounds=launch_bounds, opt=opt)
        self._set_shared_memory_carveout(shared_memory_carveout)
        self._set_defaults(tuple(getattr(py_func, "__defaults__", None) or ()))
        self.shared_memory_carveout = shared_memory_carveout
        self.launch_bounds = launch_bounds
        self.cache_dir = cache_dir
        self.py_func = py_func
        self._cudajit_kernel_pyfunc = py_func
        self.__name__ = name
        self.__doc__ = getattr(py_func, "__doc__", None)
        self.__wrapped__ = py_func
        self.fastmath = fastmath
        self.debug = debug
        # What a copy in another process is made from (pickling by value).
        self._options = dict(fastmath=fastmath, lineinfo=lineinfo, debug=debug,
                             max_registers=max_registers, cache_dir=cache_dir, link=link,
                             launch_bounds=launch_bounds,
                             shared_memory_carveout=shared_memory_carveout, opt=opt)
        self.link = linking.link_items(link)
        self._declared = [parse_signature(s) for s in signatures]
        # Numba's rule: a kernel declared with one signature, or made by specialize(), is
        # specialized; specialize() on it is an error. specialize()'s kernels, by argument
        # types and compute capability, so that the same types give the same kernel.
        self.specialized = len(signatures) == 1
        self.specializations: dict[tuple[Any, tuple[str, ...]], Dispatcher] = {}
        self._exceptions: list[tuple[type, tuple, str, int, str]] = []
        self._captured_arrays: list[Any] = []
        self._foreign: list[Any] = []
        self._llvm_ir_cache: dict[tuple[tuple[str, ...], int], str] = {}
        for signature in signatures:
            self.compile(signature)

    def _build_ir(self) -> str:
        # Device arrays the kernel reads by address live as long as the kernel (Numba's
        # captured device arrays). The IR is built once, so these are the arrays of the
        # first compile, as in Numba.
        # A kernel taking types has them bound (type_arguments.py): no parameters of its IR.
        module = frontend.build_kernel_module(self.py_func, self.debug,
                                              getattr(self, "_static_arguments", None))
        if self.cache_dir and module.captured:
            # Their addresses are in the code: an entry no other process could use.
            raise pickle.PicklingError(
                f"kernel '{self.__name__}' cannot be cached (jit(cache=True)): it reads "
                f"global device arrays ({len(module.captured)}) by their address in this "
                "process; pass them as arguments, or drop cache=True")
        self._exceptions, self._captured_arrays = module.exceptions, module.captured
        self._foreign = module.foreign  # the declared functions it calls (_LinkedFiles)
        # Foreign code (jit(link=), the declared functions' link=) is linked at each load on
        # a cuda device, read and compiled then; the compiled code (and its caches) is the
        # kernel's own PTX. A partial of the items, not a method: no cycle through self.
        linked = linking.linked_code(self.link, module.foreign)
        if linked:
            self._set_link_provider(functools.partial(linking.link_inputs, linked))
        return module.text

    @property
    def stats(self) -> CacheStats:
        """With ``cache=True``, the compiles the caches answered and those that compiled,
        by argument types (see :class:`CacheStats`)."""
        hits, misses = self._cache_stats()
        return CacheStats(self.cache_dir, collections.Counter(hits),
                          collections.Counter(misses))

    def __call__(self, *args: Any) -> None:
        raise ValueError(f"kernel '{self.__name__}': the launch configuration was not "
                         f"specified; launch it as "
                         f"{self.__name__}[griddim, blockdim](...)")

    def __repr__(self) -> str:
        return f"<cudajit kernel {self.__name__}>"

    def __reduce__(self) -> tuple:
        """Pickled by module and qualified name where that finds this kernel (the
        other process imports it), else by its Python function (by value: its code,
        the globals it names, its closure), its declared signatures and options:
        compiled anew where it is unpickled. So a kernel defined in ``__main__`` or in a
        function pickles with plain pickle, as Numba's does."""
        reference = _by_reference(self, self.py_func)
        if reference is not None:
            return reference
        return (_rebuild_kernel, (type(self), by_value(self.py_func, self), self._declared,
                                  self._options, function_text(self.py_func)))

    def forall(self, ntasks: int, tpb: int = 0, stream: Any = 0, sharedmem: int = 0) -> Any:
        """A launch configuration covering ``ntasks`` threads in 1-d: ``tpb``
        threads per block (128 when 0), as many blocks as needed. With 0 tasks the launch
        does nothing, as in Numba."""
        try:
            ntasks = operator.index(ntasks)
        except TypeError:
            raise TypeError(f"forall() needs an integer number of tasks, got {ntasks!r}") from None
        if ntasks < 0:
            raise ValueError(f"Can't create ForAll with negative task count: forall() needs a "
                             f"non-negative number of tasks, got {ntasks}")
        if ntasks == 0:
            return lambda *args, **kwargs: None
        threads = tpb or 128
        return self.configure((ntasks + threads - 1) // threads, threads, stream, sharedmem)

    @hides_cudajit_frames
    def compile(self, signature: Any) -> None:
        """Compile eagerly for ``signature`` (a Signature, a string or a tuple of types)."""
        sig = parse_signature(signature)
        if sig.return_type is not None and str(sig.return_type) != "none":
            raise TypeError(f"kernel '{self.__name__}' must return void; the signature "
                            f"declares {sig.return_type}")
        self.declare(list(self._compiled_key(tuple(str(t) for t in sig.args))))

    def _compiled_key(self, signature: tuple[str, ...]) -> tuple[str, ...]:
        """The argument types the kernel is compiled for: a debug kernel's end with its hidden
        exception record, which its users never pass nor name."""
        return signature + (EXCEPTION_RECORD_TYPE,) if self.debug else signature

    @property
    def signatures(self) -> list[tuple[str, ...]]:
        """The argument types of every specialization compiled so far."""
        hidden = 1 if self.debug else 0
        return [tuple(s)[:len(s) - hidden] for s in super().signatures]

    def _texts(self, signature: tuple[str, ...], cc: int) -> dict:
        key = (signature, cc)
        if key not in self._llvm_ir_cache:
            self._llvm_ir_cache[key] = self.compile_ptx(list(signature), cc)
        return self._llvm_ir_cache[key]

    def _llvm_ir(self, signature: tuple[str, ...], cc: int) -> str:
        return self._texts(signature, cc)["llvm_ir"]

    def _typed_ir(self, signature: tuple[str, ...], cc: int) -> str:
        return self._texts(signature, cc)["typed_ir"]

    def _ptx_text(self, signature: tuple[str, ...], cc: int) -> str:
        return self.ptx(list(signature), cc)  # the launch path's caches (and disk)

    def _inspect(self, get: Callable[[tuple[str, ...], int], str], signature: Any,
                 cc: tuple[int, int] | None) -> Any:
        number = cc_number(cc)
        if signature is not None:
            return get(self._compiled_key(_signature_key(signature)), number)
        return BySignature({sig: get(self._compiled_key(sig), number) for sig in self.signatures})

    @hides_cudajit_frames
    def inspect_llvm(self, signature: Any = None, cc: tuple[int, int] | None = None) -> Any:
        """The LLVM IR (for the GPU) of one signature, or a dict over every compiled one."""
        return self._inspect(self._llvm_ir, signature, cc)

    @hides_cudajit_frames
    def inspect_asm(self, signature: Any = None, cc: tuple[int, int] | None = None) -> Any:
        """The PTX of one signature, or a dict over every compiled one."""
        return self._inspect(self._ptx_text, signature, cc)

    def _resource(self, name: str, signature: Any) -> Any:
        """One signature's resource; without one, a specialized kernel's (Numba's rule: an
        int for a kernel of one declared signature or made by specialize()), else a dict."""
        device = _core.current_device()
        if signature is None and self.specialized and len(self.signatures) == 1:
            signature = self.signatures[0]
        if signature is not None:
            return self.resources(list(self._compiled_key(_signature_key(signature))),
                                  device)[name]
        return {sig: self.resources(list(self._compiled_key(sig)), device)[name]
                for sig in self.signatures}

    def get_regs_per_thread(self, signature: Any = None) -> Any:
        """Registers per thread of the kernel for ``signature`` on the current device (a dict
        over every compiled signature without one); 0 on the cpu device."""
        return self._resource("registers_per_thread", signature)

    def get_shared_mem_per_block(self, signature: Any = None) -> Any:
        """Static shared memory per block, in bytes."""
        return self._resource("static_shared_bytes", signature)

    def get_local_mem_per_thread(self, signature: Any = None) -> Any:
        """Local memory per thread, in bytes (0 on the cpu device)."""
        return self._resource("local_bytes_per_thread", signature)

    def get_const_mem_size(self, signature: Any = None) -> Any:
        """Constant memory the kernel uses, in bytes (0 on the cpu device)."""
        return self._resource("const_bytes", signature)

    def get_max_threads_per_block(self, signature: Any = None) -> Any:
        """The most threads a block of this kernel may have on the current device."""
        return self._resource("max_threads_per_block", signature)

    def max_cooperative_grid_blocks(self, blockdim: Any, dynsmemsize: int = 0,
                                    signature: Any = None) -> int:
        """The most blocks of ``blockdim`` threads a cooperative launch (a kernel that
        syncs its grid) may have on the current device, for its only compiled signature
        or the one given (Numba has it on ``kernel.overloads[sig]``)."""
        if signature is None:
            if len(self.signatures) != 1:
                raise TypeError(f"kernel '{self.__name__}' has {len(self.signatures)} compiled "
                                "signatures; say which with signature=")
            signature = self.signatures[0]
        threads = int(np.prod(blockdim if isinstance(blockdim, tuple) else (blockdim,)))
        return self.max_resident_blocks(list(self._compiled_key(_signature_key(signature))),
                                        _core.current_device(), threads, dynsmemsize)

    @hides_cudajit_frames
    def inspect_sass(self, signature: Any = None, cc: tuple[int, int] | None = None) -> Any:
        """The SASS a GPU runs for one signature (a dict over every compiled one without
        it), for ``cc`` or else the current GPU (8.0 on the cpu device): the PTX through
        the toolkit's ptxas and NVIDIA's nvdisasm, so no GPU is needed."""
        if cc is None:
            device = _core.current_device()
            cc = tuple(device.compute_capability) if device.kind == "cuda" else (8, 0)
        return self._inspect(lambda sig, number: sass_of_ptx(self._ptx_text(sig, number), cc),
                             signature, cc)

    @property
    def overloads(self) -> "Overloads":
        """Each compiled signature's kernel, by its argument types (Numba's ``overloads``):
        looked up by a tuple of type spellings, or of types as Numba programs write them
        (``overloads[(int32[:, ::1],)]``)."""
        return Overloads({sig: CompiledOverload(self, sig) for sig in self.signatures})

    @hides_cudajit_frames
    def specialize(self, *args: Any) -> "Dispatcher":
        """A kernel compiled for the types of ``args`` and for no others (Numba's
        ``specialize``): a launch with other types is a TypeError. A type given in place of
        a value (``float32[::1]``) stands for a value of that type. The same types on the
        same compute capability give the same kernel (``specializations``); a specialized
        kernel cannot be specialized again (RuntimeError, as in Numba)."""
        if self.specialized:
            raise RuntimeError(f"Dispatcher already specialized: kernel '{self.__name__}' "
                               f"was compiled for {self.signatures or self._declared} only")
        arg_types = tuple(_type_of(a) for a in args)
        key = (current_cc(), _signature_key(arg_types))
        kernel = self.specializations.get(key)
        if kernel is None:
            kernel = type(self)(self.py_func, [arg_types], **self._options)
            self.specializations[key] = kernel
        return kernel

    @hides_cudajit_frames
    def inspect_types(self, file: Any = None, signature: Any = None) -> None:
        """Prints, for each compiled signature (or the one given), the kernel's typed IR:
        every variable's and expression's type (Numba prints its own typed IR here)."""
        out = sys.stdout if file is None else file
        texts = self._inspect(self._typed_ir, signature, None)
        if signature is not None:
            texts = {_signature_key(signature): texts}
        for sig, text in texts.items():
            print(f"{self.__name__} ({', '.join(sig)})", file=out)
            print("-" * 80, file=out)
            print(text, file=out)
            print("=" * 80, file=out)


def _type_of(value: Any) -> Any:
    """A value's type for specialize(); a type (cudajit's, Numba's) is itself."""
    converted = from_numba(value)
    return converted if isinstance(converted, Type) else typeof(value)


class _NormalisedKeys(dict):
    """A dict whose lookups first turn the key into the form it is stored under (_key)."""

    @staticmethod
    def _key(key: Any) -> Any:
        return key

    def __getitem__(self, key: Any) -> Any:
        return super().__getitem__(self._key(key))

    def __contains__(self, key: Any) -> bool:
        return super().__contains__(self._key(key))

    def get(self, key: Any, default: Any = None) -> Any:
        return super().get(self._key(key), default)


class BySignature(_NormalisedKeys):
    """Values keyed by argument types' spellings (``inspect_llvm()``, ``overloads``); a key
    of types (cudajit's, Numba's), as Numba's dicts are keyed, is spelled first, and a
    Signature (a device function's ``signatures``) stands for its argument types."""

    @staticmethod
    def _key(key: Any) -> Any:
        if isinstance(key, cjtypes.Signature) or (
                isinstance(key, tuple) and not all(isinstance(t, str) for t in key)):
            return tuple(str(t) for t in parse_signature(key).args)
        return key


class ByArgumentTypes(_NormalisedKeys):
    """A device function's ``inspect_llvm()``/``inspect_asm()``: values keyed by argument
    types, as Numba's are; one of the function's ``signatures`` (a Signature, with its return
    type) stands for its argument types."""

    @staticmethod
    def _key(key: Any) -> Any:
        return key.args if isinstance(key, cjtypes.Signature) else key


class Overloads(BySignature):
    """A dispatcher's compiled kernels: ``CompiledOverload`` by signature."""


class _LinkedFiles:
    """A kernel's foreign code as numba-cuda's code library lists it (``_linking_files``):
    the paths of jit(link=) and of the declared functions it calls, and the names of the
    LinkableCode objects. cudajit links no CUDA runtime library (cudadevrt) of its own: a
    grid sync is its own code."""

    def __init__(self, kernel: Dispatcher):
        linked = list(kernel.link)
        for declared in kernel._foreign:
            linked += [item for item in declared.link if item not in linked]
        self._linking_files = [item if isinstance(item, str) else str(getattr(item, "name", item))
                               for item in linked]


class CompiledOverload:
    """One compiled signature of a kernel: an item of ``kernel.overloads``."""

    def __init__(self, kernel: Dispatcher, signature: tuple[str, ...]):
        self._kernel = kernel
        self.signature = signature

    def inspect_asm(self, cc: tuple[int, int] | None = None) -> str:
        return self._kernel.inspect_asm(self.signature, cc)

    def inspect_llvm(self, cc: tuple[int, int] | None = None) -> str:
        return self._kernel.inspect_llvm(self.signature, cc)

    def max_cooperative_grid_blocks(self, blockdim: Any, dynsmemsize: int = 0) -> int:
        return self._kernel.max_cooperative_grid_blocks(blockdim, dynsmemsize, self.signature)

    @property
    def regs_per_thread(self) -> int:
        return self._kernel.get_regs_per_thread(self.signature)

    @property
    def shared_mem_per_block(self) -> int:
        return self._kernel.get_shared_mem_per_block(self.signature)

    @property
    def local_mem_per_thread(self) -> int:
        return self._kernel.get_local_mem_per_thread(self.signature)

    @property
    def cooperative(self) -> bool:
        """Whether the kernel syncs its grid (``cg.this_grid().sync()``), so that it is
        launched cooperatively: all its blocks resident on the device at once."""
        return bool(self._texts()["cooperative"])

    @property
    def _codelibrary(self) -> "_LinkedFiles":
        """What numba-cuda's tests read of its code library: ``_linking_files``."""
        return _LinkedFiles(self._kernel)

    @property
    def _type_annotation(self) -> TypeAnnotation:
        """The types of the kernel's variables (``typemap``), as Numba's annotation."""
        return TypeAnnotation(self._texts()["typed_ir"])

    def _texts(self) -> dict:
        kernel = self._kernel
        return kernel._texts(kernel._compiled_key(self.signature), cc_number(current_cc()))

    def __repr__(self) -> str:
        return f"<cudajit kernel {self._kernel.__name__}({', '.join(self.signature)})>"


# Python 3.14 evaluates annotations when they are first asked for: a kernel's parameter
# annotated with a name defined nowhere (or later) is legal there, and a signature that
# evaluates it would raise NameError. Binding needs only the parameters' names.
if sys.version_info >= (3, 14):
    import annotationlib

    _ANNOTATIONS_UNEVALUATED = {"annotation_format": annotationlib.Format.FORWARDREF}
else:
    _ANNOTATIONS_UNEVALUATED = {}


def bind_arguments(kernel: "Dispatcher", args: tuple, kwargs: dict) -> tuple:
    """The arguments of a launch with keywords, in the order of the kernel's
    parameters (as a Python call binds them); a TypeError naming the kernel and
    its parameters when they do not fit."""
    signature = inspect.signature(kernel.py_func, **_ANNOTATIONS_UNEVALUATED)
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as exc:
        raise TypeError(f"kernel '{kernel.__name__}{signature}': {exc}") from None
    return tuple(bound.args)


# The hidden last argument of a debug kernel: int32[8] = code, threadIdx, blockIdx, unused.
EXCEPTION_RECORD_TYPE = "array(int32, 1d, C)"


class DebugDispatcher(Dispatcher):
    """A kernel compiled with debug=True: each launch passes a fresh exception
    record, waits for the kernel (as Numba does) and raises the first exception
    a thread raised, prefixed with where: ``In function 'f', file F, line L,
    tid=[z, y, x] ctaid=[z, y, x]: message``."""

    def __getitem__(self, config: Any) -> "_DebugLaunch":
        return _DebugLaunch(self, super().__getitem__(config))

    def configure(self, *config: Any) -> "_DebugLaunch":
        return _DebugLaunch(self, super().configure(*config))

    def raise_recorded(self, record: Any) -> None:
        code = int(record[0])
        if code == 0:
            return
        cls, args, filename, line, function = self._exceptions[code - 1]
        tid = [int(record[3]), int(record[2]), int(record[1])]
        ctaid = [int(record[6]), int(record[5]), int(record[4])]
        where = (f"In function {function!r}, file {os.path.abspath(filename)}, line {line}, "
                 f"tid={tid} ctaid={ctaid}")
        args = (f"{where}: {args[0]}",) + tuple(args[1:]) if args else (where,)
        raise cls(*args)


class _DebugLaunch:
    def __init__(self, dispatcher: DebugDispatcher, launch: Any):
        self.dispatcher = dispatcher
        self.launch = launch

    @hides_cudajit_frames
    def __call__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs:
            args = bind_arguments(self.dispatcher, args, kwargs)
        record = to_device(np.zeros(8, np.int32))
        self.launch(*args, record)
        synchronize()
        self.dispatcher.raise_recorded(record.copy_to_host())


class DeviceFunction:
    """A function compiled into the kernels that call it (``@cuda.jit(device=True)``)."""

    def __init__(self, py_func: Callable[..., Any], signature: Any = None,
                 fastmath: bool = False, inline: str | None = None, debug: bool = False,
                 lineinfo: bool = False, opt: bool = True):
        self.py_func = py_func
        self.inline = inline  # "always", "force" (forceinline=True) or None
        if inline is not None:
            frontend.set_inline_mode(py_func, inline)
        # Declared signatures: a call converts its arguments and result to the one that
        # fits them best (Numba's ranking: exact, promotion, safe, unsafe conversions).
        declared = signature if isinstance(signature, list) else \
            [] if signature is None else [signature]
        self.signatures = [parse_signature(s) for s in declared]
        self.signature = self.signatures[0] if len(self.signatures) == 1 else None
        self._cudajit_device_pyfunc = py_func
        self.__name__ = getattr(py_func, "__name__", "device_function")
        self.__doc__ = getattr(py_func, "__doc__", None)
        self.__wrapped__ = py_func
        self.fastmath = fastmath
        # Its own compiles (inspect_asm, inspect_llvm) use these; a kernel calling it compiles
        # it with the kernel's.
        self.debug = debug
        self.lineinfo = lineinfo
        self.opt = opt

    def __call__(self, *args: Any) -> Any:
        raise TypeError(f"device function '{self.__name__}' can only be called from a kernel "
                        "or another device function")

    def __getitem__(self, config: Any) -> Any:
        raise RuntimeError(f"Cannot compile a device function as a kernel: '{self.__name__}' "
                           "was made with @cuda.jit(device=True); launch a kernel that calls it")

    def __repr__(self) -> str:
        return f"<cudajit device function {self.__name__}>"

    def _inspect(self, text: str, signature: Any, cc: tuple[int, int] | None) -> Any:
        """``text`` ("ptx", "llvm_ir") of the function compiled alone for ``signature``, as
        ``cuda.compile_ptx(f, signature, device=True)`` gives it with this function's
        ``fastmath``, ``debug``, ``lineinfo`` and ``opt``; without one, a dict over the
        declared signatures, keyed by argument types (a Signature of ``signatures`` too)."""
        def compiled(sig: Any) -> str:
            parsed = parse_signature(sig)
            declared = parsed.return_type
            program = _core.Program(frontend.build_module(self.py_func))
            if self.debug:
                warn_if_source_unreadable(self.py_func)
            return program.compile_ptx([str(t) for t in parsed.args], device=True,
                                       fastmath=self.fastmath, cc=cc_number(cc),
                                       return_type=str(declared) if declared else None,
                                       debug=self.debug, lineinfo=self.lineinfo, opt=self.opt,
                                       keep_llvm_ir=text == "llvm_ir")[text]
        if signature is not None:
            return compiled(signature)
        return ByArgumentTypes({sig.args: compiled(sig) for sig in self.signatures})

    def inspect_asm(self, signature: Any = None, cc: tuple[int, int] | None = None) -> Any:
        """The PTX of the device function (a ``.func``) for ``signature`` (Numba's
        ``inspect_asm``; see :meth:`_inspect`)."""
        return self._inspect("ptx", signature, cc)

    def inspect_llvm(self, signature: Any = None, cc: tuple[int, int] | None = None) -> Any:
        """The LLVM IR of the device function for ``signature``, as lowered (Numba's
        ``inspect_llvm``; see :meth:`_inspect`)."""
        return self._inspect("llvm_ir", signature, cc)

    def inspect_sass(self, signature: Any = None, cc: tuple[int, int] | None = None) -> Any:
        """A device function has no SASS of its own (it is compiled into its callers'):
        RuntimeError, as in Numba; inspect a kernel that calls it."""
        raise RuntimeError("Cannot inspect SASS of a device function: it is compiled into "
                           "the kernels that call it; use kernel.inspect_sass()")

    def compile_device(self, args: Any, return_type: Any = None) -> "DeviceCompileResult":
        """Compile for the argument types ``args`` (Numba's ``compile_device``): the result's
        ``fndesc.mangled_name`` is the ``.func``'s name in :meth:`inspect_asm`'s PTX."""
        sig = parse_signature(args)
        if return_type is not None:
            sig = cjtypes.Signature(from_numba(return_type), sig.args)
        program = _core.Program(frontend.build_module(self.py_func))
        declared = sig.return_type
        result = program.compile_ptx([str(t) for t in sig.args], device=True,
                                     fastmath=self.fastmath, cc=cc_number(current_cc()),
                                     return_type=str(declared) if declared else None)
        return DeviceCompileResult(result, sig)

    def __reduce__(self) -> tuple:
        """As a kernel pickles: by reference where importable, else by its function."""
        reference = _by_reference(self, self.py_func)
        if reference is not None:
            return reference
        return (_rebuild_device_function, (by_value(self.py_func, self), self.signatures,
                                           self.fastmath, function_text(self.py_func),
                                           self.inline, (self.debug, self.lineinfo, self.opt)))


class DeviceCompileResult:
    """A device function compiled for one signature (Numba's compile result): ``signature``
    (the argument types), ``fndesc.mangled_name`` (its ``.func``'s name), ``ptx``."""

    class FunctionDescriptor:
        """The compiled function's names."""

        def __init__(self, mangled_name: str):
            self.mangled_name = mangled_name
            self.llvm_func_name = mangled_name

    def __init__(self, artifact: dict, signature: Any):
        self.fndesc = self.FunctionDescriptor(artifact["entry_name"])
        self.signature = signature
        self.ptx = artifact["ptx"]


def _by_reference(obj: Any, py_func: Callable[..., Any]) -> tuple | None:
    """(import_attribute, (module, qualname)) when that names `obj` itself."""
    module_name = getattr(py_func, "__module__", None)
    qualname = getattr(py_func, "__qualname__", "")
    if not module_name or "<locals>" in qualname or module_name == "__main__":
        return None
    try:
        found = _import_attribute(module_name, qualname)
    except (ImportError, AttributeError):
        return None
    return (_import_attribute, (module_name, qualname)) if found is obj else None


def _import_attribute(module_name: str, qualname: str) -> Any:
    value: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        value = getattr(value, part)
    return value


def _rebuild_kernel(cls: type, py_func: Callable[..., Any], declared: list[Any],
                    options: dict[str, Any], text: tuple[int, list[str]] | None = None
                    ) -> "Dispatcher":
    if text is not None:  # its source, for a process that has not its file
        attach_text(py_func, *text)
    kernel = cls(py_func, declared, **options)
    bind_owner(py_func, kernel)
    return kernel


def _rebuild_device_function(py_func: Callable[..., Any], signature: Any, fastmath: bool,
                             text: tuple[int, list[str]] | None = None,
                             inline: str | None = None,
                             debugging: tuple[bool, bool, bool] = (False, False, True)
                             ) -> "DeviceFunction":
    if text is not None:
        attach_text(py_func, *text)
    debug, lineinfo, opt = debugging
    function = DeviceFunction(py_func, signature, fastmath, inline, debug, lineinfo, opt)
    bind_owner(py_func, function)
    return function


def return_type_from_name(name: str) -> Type | str:
    """The cudajit type object for a C++ type spelling (scalars and none); else the string."""
    if name == "none":
        return cjtypes.void
    if name == "bool":
        return cjtypes.boolean
    found = getattr(cjtypes, name, None) or cjtypes.SIGNATURE_NAMESPACE.get(name)
    return found if isinstance(found, Type) else name

