"""More of numba.cuda's host API: compiling for the current device (cuda.compile and
friends), cuda.close and cuda.defer_cleanup, and the stream's add_callback/async_done."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any, Callable, Iterator

from . import _core, frontend, linking
from .api import current_context
from .compiler import compile_ptx
from .dispatcher import cc_number, current_cc
from .errors import hides_cudajit_frames

__all__ = ["compile", "compile_all", "compile_for_current_device",
           "compile_ptx_for_current_device", "close", "defer_cleanup"]


@hides_cudajit_frames
def compile(pyfunc: Callable[..., Any], sig: Any, debug: bool | None = None,
            lineinfo: bool = False, device: bool = True, fastmath: bool = False,
            cc: tuple[int, int] | None = None, opt: Any = None, abi: str = "c",
            abi_info: dict[str, Any] | None = None, output: str = "ptx",
            forceinline: bool = False, launch_bounds: Any = None) -> tuple[str, Any]:
    """numba.cuda.compile: ``(code, return_type)`` for ``sig``, a device function with the C
    ABI by default, as in numba-cuda (see :func:`compile_ptx` for ``abi``, ``abi_info`` and
    ``launch_bounds``). cudajit makes PTX (``output="ptx"``); LTO-IR is not supported."""
    if output not in ("ptx", "ltoir"):
        raise NotImplementedError(f"Unsupported output type: {output} (expected 'ptx')")
    if output != "ptx":
        raise NotImplementedError(f"cuda.compile(output={output!r}): cudajit makes PTX only; "
                                  "pass output='ptx'")
    if forceinline:
        raise ValueError("Can only designate forced inlining in LTO-IR")
    return compile_ptx(pyfunc, sig, device=device, fastmath=fastmath, cc=cc, debug=bool(debug),
                       lineinfo=lineinfo, abi=abi, abi_info=abi_info,
                       launch_bounds=launch_bounds, opt=opt)


@hides_cudajit_frames
def compile_all(pyfunc: Callable[..., Any], sig: Any, debug: bool | None = None,
                lineinfo: bool = False, device: bool = True, fastmath: bool = False,
                cc: tuple[int, int] | None = None, opt: Any = None, abi: str = "c",
                abi_info: Any = None, output: str = "ltoir", forceinline: bool = False,
                launch_bounds: Any = None) -> tuple[list[Any], Any]:
    """numba.cuda.compile_all: ``([code, ...], return_type)``, the function's code followed by
    the code of the foreign functions it calls (``cuda.declare_device``'s ``link=``): CUDA C++
    compiled with NVRTC to PTX for ``cc``, PTX as text, other kinds (cubins, fatbins ...) as
    their bytes, so that another toolchain can link them all. cudajit makes PTX
    (``output="ptx"``); LTO-IR, numba-cuda's default here, is not supported."""
    if output not in ("ptx", "ltoir"):
        raise NotImplementedError(f"Unsupported output type: {output}")
    if forceinline and output != "ltoir":
        raise ValueError("Can only designate forced inlining in LTO-IR")
    code, return_type = compile(pyfunc, sig, device=device, fastmath=fastmath, cc=cc,
                                output=output, debug=bool(debug), lineinfo=lineinfo, abi=abi,
                                abi_info=abi_info, launch_bounds=launch_bounds, opt=opt)
    declared = frontend.build_kernel_module(pyfunc, bool(debug)).foreign
    codes: list[Any] = [code]
    for kind, _name, data in linking.link_inputs(linking.linked_code((), declared),
                                                 cc_number(cc)):
        codes.append(data.decode() if kind == "ptx" else data)
    return codes, return_type


@hides_cudajit_frames
def compile_for_current_device(pyfunc: Callable[..., Any], sig: Any, debug: bool | None = None,
                               lineinfo: bool = False, device: bool = True,
                               fastmath: bool = False, opt: Any = None, abi: str = "c",
                               abi_info: dict[str, Any] | None = None, output: str = "ptx",
                               forceinline: bool = False,
                               launch_bounds: Any = None) -> tuple[str, Any]:
    """cuda.compile for the current GPU's compute capability (8.0 on the cpu device)."""
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device,
                   fastmath=fastmath, cc=current_cc(), opt=opt, abi=abi, abi_info=abi_info,
                   output=output, forceinline=forceinline, launch_bounds=launch_bounds)


@hides_cudajit_frames
def compile_ptx_for_current_device(pyfunc: Callable[..., Any], sig: Any,
                                   debug: bool | None = None, lineinfo: bool = False,
                                   device: bool = False, fastmath: bool = False,
                                   opt: Any = None, abi: str = "numba",
                                   abi_info: dict[str, Any] | None = None,
                                   forceinline: bool = False,
                                   launch_bounds: Any = None) -> tuple[str, Any]:
    """compile_ptx for the current GPU's compute capability (8.0 on the cpu device)."""
    if forceinline:
        raise ValueError("Can only designate forced inlining in LTO-IR")
    return compile_ptx(pyfunc, sig, device=device, fastmath=fastmath, cc=current_cc(),
                       debug=bool(debug), lineinfo=lineinfo, abi=abi, abi_info=abi_info,
                       launch_bounds=launch_bounds, opt=opt)


def close() -> None:
    """numba.cuda.close: cudajit's contexts live as long as the process and arrays free their
    own memory, so this waits for the current device's work and leaves it usable."""
    _core.current_device().synchronize()


@contextlib.contextmanager
def defer_cleanup() -> Iterator[None]:
    """numba.cuda.defer_cleanup: the current context's queued releases (of the memory its
    ``memalloc``, ``memhostalloc``, ``memallocmanaged`` and ``mempin`` gave out) wait until
    the block ends. Device arrays need no such block: their memory is never released before
    the work queued on it is done (a launch holds its arrays until the kernel has finished)."""
    with current_context().defer_cleanup():
        yield


def _add_callback(stream: Any, callback: Callable[[Any, int, Any], Any], arg: Any = None) -> None:
    """Calls ``callback(stream, status, arg)`` once the work queued so far is done (status 0),
    from a thread of its own. Unlike CUDA's stream callbacks it does not hold back work queued
    after it; the callback must not wait for that work."""
    done = stream.device.create_event(False)
    done.record(stream)

    def wait_then_call() -> None:
        done.synchronize()
        callback(stream, 0, arg)

    threading.Thread(target=wait_then_call, name="cudajit stream callback", daemon=True).start()


def _async_done(stream: Any) -> "asyncio.Future[Any]":
    """An asyncio future (of the running loop) that completes, with the stream, once the work
    queued so far is done."""
    loop = asyncio.get_running_loop()
    future = loop.create_future()

    def finish(stream_: Any, status: int, arg: Any) -> None:
        loop.call_soon_threadsafe(lambda: future.done() or future.set_result(stream_))

    _add_callback(stream, finish)
    return future


_core.Stream.add_callback = _add_callback
_core.Stream.async_done = _async_done
