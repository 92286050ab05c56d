"""The cpu device's memory: large allocations ask the kernel for transparent huge pages (as
NumPy's do), so that streaming kernels over them meet fewer TLB misses and prefetchers that
are not stopped at every 4 KiB page; small ones do not."""

import pathlib

import numpy as np
import pytest

import cudajit as cuda

pytestmark = pytest.mark.usefixtures("on_cpu_device")

THP = pathlib.Path("/sys/kernel/mm/transparent_hugepage/enabled")


def huge_kib_at(address: int) -> int:
    """AnonHugePages of the mapping of this process that holds `address`, in KiB."""
    mapping = None
    for line in pathlib.Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()[0]
        if "-" in head and ":" not in head:  # a mapping's first line: start-end perms ...
            start, end = (int(x, 16) for x in head.split("-"))
            mapping = start <= address < end
        elif mapping and head == "AnonHugePages:":
            return int(line.split()[1])
    raise AssertionError(f"no mapping holds {address:#x}")


def thp_mode() -> str:
    return THP.read_text().split("[")[1].split("]")[0] if THP.exists() else "absent"


def test_a_large_device_array_is_backed_by_huge_pages():
    if thp_mode() not in ("always", "madvise"):
        pytest.skip(f"transparent huge pages are {thp_mode()} on this system")
    big = cuda.to_device(np.ones(8 << 20, np.float32))  # 32 MiB, touched by the copy
    address = big.device_pointer + (16 << 20)  # its middle (its first page is not a huge one's)
    assert huge_kib_at(address) >= 2048, "a 32 MiB device array got no huge page"
    assert big.copy_to_host().sum() == 8 << 20


def test_a_small_device_array_is_not_advised():
    if thp_mode() != "madvise":  # with "always" the kernel may use huge pages anyway
        pytest.skip(f"transparent huge pages are {thp_mode()}, not madvise")
    small = cuda.to_device(np.ones(1 << 18, np.float32))  # 1 MiB: under NumPy's 4 MiB
    address = small.device_pointer + (1 << 19)
    assert huge_kib_at(address) == 0
