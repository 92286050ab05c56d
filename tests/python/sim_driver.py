"""The simulated GPU's driver API through ctypes, for tests that hand it PTX
directly (mutated PTX, raw kernelParams) rather than through cudajit's launch path.

Usable only where the cuda device is the simulated GPU (see conftest).
"""

from __future__ import annotations

import ctypes

import numpy as np

CUDA_SUCCESS = 0


class DriverError(RuntimeError):
    def __init__(self, call: str, code: int, name: str):
        super().__init__(f"{call} failed: {name} ({code})")
        self.code = code
        self.name = name


class SimDriver:
    """A few driver calls on the primary context of the simulated device 0."""

    def __init__(self, library: str):
        self.lib = ctypes.CDLL(library)
        self._check("cuInit", self.lib.cuInit(0))
        self.context = ctypes.c_void_p()
        self._check("cuDevicePrimaryCtxRetain",
                    self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(self.context), 0))
        self._check("cuCtxSetCurrent", self.lib.cuCtxSetCurrent(self.context))

    def _check(self, call: str, code: int) -> None:
        if code != CUDA_SUCCESS:
            name = ctypes.c_char_p()
            self.lib.cuGetErrorName(code, ctypes.byref(name))
            raise DriverError(call, code, (name.value or b"?").decode())

    def load(self, ptx: str) -> ctypes.c_void_p:
        module = ctypes.c_void_p()
        log = ctypes.create_string_buffer(8192)
        options = (ctypes.c_int * 2)(0x5, 0x6)  # CU_JIT_ERROR_LOG_BUFFER(_SIZE_BYTES)
        values = (ctypes.c_void_p * 2)(ctypes.cast(log, ctypes.c_void_p).value, 8192)
        code = self.lib.cuModuleLoadDataEx(ctypes.byref(module), ptx.encode() + b"\0", 2,
                                           options, values)
        if code != CUDA_SUCCESS:
            error = DriverError("cuModuleLoadDataEx", code, "")
            error.log = log.value.decode()
            raise error
        return module

    def function(self, module: ctypes.c_void_p, name: str) -> ctypes.c_void_p:
        f = ctypes.c_void_p()
        self._check("cuModuleGetFunction",
                    self.lib.cuModuleGetFunction(ctypes.byref(f), module, name.encode()))
        return f

    def to_device(self, array: np.ndarray) -> int:
        pointer = ctypes.c_uint64()
        self._check("cuMemAlloc", self.lib.cuMemAlloc_v2(ctypes.byref(pointer),
                                                         ctypes.c_size_t(max(array.nbytes, 1))))
        self.copy(pointer.value, array.ctypes.data, array.nbytes)
        return pointer.value

    def copy(self, dst: int, src: int, nbytes: int) -> None:
        self._check("cuMemcpyAsync", self.lib.cuMemcpyAsync(ctypes.c_uint64(dst),
                                                            ctypes.c_uint64(src),
                                                            ctypes.c_size_t(nbytes), None))
        self.synchronize()

    def free(self, pointer: int) -> None:
        self._check("cuMemFree", self.lib.cuMemFree_v2(ctypes.c_uint64(pointer)))

    def synchronize(self) -> None:
        self._check("cuCtxSynchronize", self.lib.cuCtxSynchronize())

    def launch(self, function, grid, block, values, terminate: bool = True) -> int:
        """cuLaunchKernel with `values` (ctypes scalars) as kernelParams, NULL-terminated
        unless `terminate` is False; returns the CUresult."""
        pointers = [ctypes.cast(ctypes.pointer(v), ctypes.c_void_p) for v in values]
        if terminate:
            pointers.append(ctypes.c_void_p(None))
        params = (ctypes.c_void_p * max(len(pointers), 1))(*pointers)
        return self.lib.cuLaunchKernel(function, *grid, *block, 0, None, params, None)

    def last_fault(self) -> str:
        self.lib.cudajitSimLastFault.restype = ctypes.c_char_p
        return self.lib.cudajitSimLastFault().decode()
