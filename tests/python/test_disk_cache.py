"""jit(cache=True): a kernel's PTX kept on disk (python/src/disk_cache.hpp)
and loaded by later processes instead of compiled. The PTX path is the one a
GPU launch takes; inspect_asm goes through it, so these tests run anywhere."""

import json
import os
import platform
import subprocess
import sys
import textwrap

import pytest

from cudajit import _core, caching
from cudajit import float32, void
from conftest import environment_of_this_cpu

SIG = void(float32[::1], float32[::1])
SOURCE = textwrap.dedent('''
    import cudajit as cuda

    @cuda.jit(cache=True)
    def double(a, b):
        i = cuda.grid(1)
        if i < a.size:
            b[i] = 2.0 * a[i]
''')


@pytest.fixture
def module_dir(tmp_path, monkeypatch):
    """A directory holding kernels.py (SOURCE), importable; caches start empty."""
    (tmp_path / "kernels.py").write_text(SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("CUDAJIT_CACHE_DIR", raising=False)
    sys.modules.pop("kernels", None)
    _core.code_cache_clear()
    yield tmp_path
    sys.modules.pop("kernels", None)
    _core.code_cache_clear()


def fresh_kernel():
    """kernels.double from a fresh import, with nothing compiled in this process."""
    sys.modules.pop("kernels", None)
    _core.code_cache_clear()
    import kernels

    return kernels.double


def cached_files(directory):
    return sorted(p.name for p in directory.glob("*.ptxcache"))


def disk_counts():
    info = _core.code_cache_info()
    return info["disk_hits"], info["disk_misses"]


def run_twice(module_dir, script, **env):
    """The JSON that `script` prints last, from two fresh processes one after the other."""
    env = environment_of_this_cpu(PYTHONPATH=os.pathsep.join([str(module_dir)] + sys.path),
                                  **env)
    results = []
    for _ in range(2):
        run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                             text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        results.append(json.loads(run.stdout.strip().splitlines()[-1]))
    return results


def test_the_ptx_is_stored_beside_the_source_and_loaded_again(module_dir):
    first = fresh_kernel().inspect_asm(SIG)
    assert disk_counts() == (0, 1)
    files = cached_files(module_dir / "__pycache__")
    assert len(files) == 1 and files[0].startswith("double-")
    second = fresh_kernel().inspect_asm(SIG)
    assert disk_counts() == (1, 0)
    assert second == first and ".entry double" in second


def test_a_later_process_loads_the_ptx_instead_of_compiling(module_dir):
    script = textwrap.dedent('''
        import json, cudajit as cuda
        from cudajit import _core, float32, void
        import kernels
        ptx = kernels.double.inspect_asm(void(float32[::1], float32[::1]))
        print(json.dumps([_core.code_cache_info()["disk_hits"], len(ptx)]))
    ''')
    (hits_first, size_first), (hits_second, size_second) = run_twice(module_dir, script)
    assert (hits_first, hits_second) == (0, 1)
    assert size_first == size_second > 0


def test_an_edited_kernel_compiles_anew(module_dir):
    fresh_kernel().inspect_asm(SIG)
    path = module_dir / "kernels.py"
    path.write_text(SOURCE.replace("2.0 * a[i]", "3.0 * a[i]"))
    # The same size within the same second would let Python load the stale .pyc (its check is
    # the source's size and mtime in whole seconds): cudajit would then refuse, rightly, to
    # compile a source that is not the loaded code.
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    ptx = fresh_kernel().inspect_asm(SIG)
    assert disk_counts() == (0, 1)
    assert "0f40400000" in ptx  # 3.0
    assert len(cached_files(module_dir / "__pycache__")) == 2


def test_options_and_targets_are_part_of_the_key(module_dir):
    kernel = fresh_kernel()
    kernel.inspect_asm(SIG, cc=(8, 0))
    kernel.inspect_asm(SIG, cc=(9, 0))
    assert disk_counts() == (0, 2)
    assert ".target sm_90" in fresh_kernel().inspect_asm(SIG, cc=(9, 0))
    assert disk_counts() == (1, 0)


def test_a_damaged_file_is_a_miss_and_is_written_again(module_dir):
    good = fresh_kernel().inspect_asm(SIG)
    (path,) = (module_dir / "__pycache__").glob("*.ptxcache")
    text = path.read_bytes()
    for damaged in (b"", text[: len(text) // 2], text.replace(b"double", b"DOUBLE", 1),
                    b"cudajit-kernel-cache 1\n99999999999999999999\n"):
        path.write_bytes(damaged)
        assert fresh_kernel().inspect_asm(SIG) == good
        assert disk_counts() == (0, 1)
        assert path.read_bytes() == text


def test_a_flipped_byte_anywhere_in_the_ptx_is_a_miss_with_a_warning(module_dir):
    good = fresh_kernel().inspect_asm(SIG)
    (path,) = (module_dir / "__pycache__").glob("*.ptxcache")
    text = path.read_bytes()
    start = text.index(b".entry")
    for offset in (start, start + 40, len(text) - 40):  # the PTX's body, near the checksum
        damaged = bytearray(text)
        damaged[offset] ^= 0x01
        path.write_bytes(bytes(damaged))
        with pytest.warns(RuntimeWarning, match="is damaged \\(its checksum does not match\\); "
                          "the kernel is compiled instead"):
            assert fresh_kernel().inspect_asm(SIG) == good
        assert disk_counts() == (0, 1)
        assert path.read_bytes() == text  # written again, whole


@pytest.mark.parametrize("kind", ["directory", "fifo"])
def test_something_other_than_a_file_at_the_entry_is_a_miss_with_a_warning(module_dir, kind):
    good = fresh_kernel().inspect_asm(SIG)
    (path,) = (module_dir / "__pycache__").glob("*.ptxcache")
    path.unlink()
    if kind == "directory":
        path.mkdir()
    else:
        os.mkfifo(path)  # opening it to read would wait for a writer forever
    with pytest.warns(RuntimeWarning, match="is not a regular file; the kernel is compiled "
                      "instead"):
        assert fresh_kernel().inspect_asm(SIG) == good
    assert disk_counts()[0] == 0


def test_cudajit_cache_dir_overrides_the_place(module_dir, tmp_path_factory, monkeypatch):
    elsewhere = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("CUDAJIT_CACHE_DIR", str(elsewhere))
    fresh_kernel().inspect_asm(SIG)
    assert len(cached_files(elsewhere)) == 1
    assert not (module_dir / "__pycache__").exists() or not cached_files(
        module_dir / "__pycache__")


def test_an_unwritable_cache_place_warns_and_the_kernel_still_compiles(module_dir, monkeypatch):
    blocker = module_dir / "not-a-directory"
    blocker.write_text("")
    monkeypatch.setenv("CUDAJIT_CACHE_DIR", str(blocker))
    with pytest.warns(RuntimeWarning, match="kernel 'double' is not cached on disk: cannot "
                                            "create .*not-a-directory"):
        ptx = fresh_kernel().inspect_asm(SIG)
    assert ".entry double" in ptx


def test_without_a_writable_source_directory_the_user_cache_is_used(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("CUDAJIT_CACHE_DIR", raising=False)
    monkeypatch.setattr(caching, "_writable", lambda directory: False)
    assert caching.cache_dir_for(cached_files) == str(tmp_path / "xdg" / "cudajit")


def test_the_source_directory_is_used_when_it_can_be_written():
    expected = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__")
    assert caching.cache_dir_for(cached_files) == expected


def test_cache_true_on_the_cpu_device_runs_and_writes_nothing(module_dir, on_cpu_device):
    import numpy as np

    kernel = fresh_kernel()
    x = np.arange(8, dtype=np.float32)
    out = np.zeros_like(x)
    kernel[1, 8](x, out)
    np.testing.assert_array_equal(out, 2 * x)
    assert not (module_dir / "__pycache__").exists() or not cached_files(
        module_dir / "__pycache__")


# --- the cpu device's object code (issue 14 §4) ----------------------------------------------


def host_files(directory):
    return sorted(p.name for p in directory.glob("*.hostcache"))


def launch_on_cpu(kernel):
    import numpy as np

    a = np.arange(8, dtype=np.float32)
    b = np.zeros_like(a)
    previous = _core.current_device()
    _core.set_current_device(_core.cpu_device())
    try:
        kernel[1, 8](a, b)
        _core.cpu_device().synchronize()
    finally:
        _core.set_current_device(previous)
    return b


def test_the_cpu_devices_object_code_is_stored_and_linked_again(module_dir):
    import numpy as np

    np.testing.assert_array_equal(launch_on_cpu(fresh_kernel()), 2 * np.arange(8))
    assert disk_counts() == (0, 1)
    (name,) = host_files(module_dir / "__pycache__")
    assert name.startswith("double-")
    np.testing.assert_array_equal(launch_on_cpu(fresh_kernel()), 2 * np.arange(8))
    assert disk_counts() == (1, 0)  # linked from the file, not compiled


def test_a_later_process_runs_the_cpu_devices_object_code_without_compiling(module_dir):
    script = textwrap.dedent('''
        import json, numpy as np, cudajit as cuda
        from cudajit import _core
        import kernels
        a = np.arange(8, dtype=np.float32); b = np.zeros_like(a)
        kernels.double[1, 8](a, b)
        cuda.synchronize()
        print(json.dumps([_core.code_cache_info()["disk_hits"], b.tolist()]))
    ''')
    (hits_first, first), (hits_second, second) = run_twice(module_dir, script,
                                                            CUDAJIT_DEVICE="cpu")
    assert (hits_first, hits_second) == (0, 1)
    assert first == second == [2.0 * i for i in range(8)]


def test_a_damaged_object_file_is_a_miss_with_a_warning(module_dir):
    import numpy as np

    launch_on_cpu(fresh_kernel())
    (path,) = (module_dir / "__pycache__").glob("*.hostcache")
    text = path.read_bytes()
    damaged = bytearray(text)
    damaged[len(text) // 2] ^= 0x01  # inside the object file
    path.write_bytes(bytes(damaged))
    with pytest.warns(RuntimeWarning, match="is damaged"):
        np.testing.assert_array_equal(launch_on_cpu(fresh_kernel()), 2 * np.arange(8))
    assert disk_counts() == (0, 1)
    np.testing.assert_array_equal(launch_on_cpu(fresh_kernel()), 2 * np.arange(8))
    assert disk_counts() == (1, 0)  # written again, whole


def test_an_index_per_kernel_name_lists_its_entries_and_a_hit_leaves_it_alone(module_dir):
    cache = module_dir / "__pycache__"
    kernel = fresh_kernel()
    kernel.inspect_asm(SIG)
    kernel.inspect_asm(void(float32[:], float32[:]))  # a second entry, the same index
    entries = cached_files(cache)
    assert len(entries) == 2
    # Numba's layout: an index and a data file per entry (numba-cuda's tests count them)
    assert sorted(p.name for p in cache.iterdir()) == entries + ["double.ptxindex"]
    index = cache / "double.ptxindex"
    lines = index.read_text().splitlines()
    assert lines[0] == "cudajit-kernel-cache-index 1" and sorted(lines[1:]) == entries
    before = index.stat().st_mtime_ns
    fresh_kernel().inspect_asm(SIG)  # a hit: nothing written
    assert disk_counts() == (1, 0) and index.stat().st_mtime_ns == before
    # an entry compiled again (its file gone) is listed once
    (cache / entries[0]).unlink()
    fresh_kernel().inspect_asm(SIG)
    fresh_kernel().inspect_asm(void(float32[:], float32[:]))
    assert sorted(index.read_text().splitlines()[1:]) == entries


def test_a_kernel_reading_a_global_device_array_cannot_be_cached(tmp_path, monkeypatch):
    # The array's address is in the code: no later process could use the entry (Numba's rule
    # and exception class).
    import pickle

    import numpy as np

    import cudajit as cuda

    monkeypatch.setenv("CUDAJIT_CACHE_DIR", str(tmp_path))
    captured = cuda.to_device(np.arange(3, dtype=np.float32))

    @cuda.jit(cache=True)
    def doubled(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = captured[i] * 2.0

    with pytest.raises(pickle.PicklingError, match=r"kernel 'doubled' cannot be cached "
                       r"\(jit\(cache=True\)\): it reads global device arrays \(1\)"):
        doubled[1, 3](cuda.device_array(3, np.float32))
    assert list(tmp_path.iterdir()) == []


def test_stats_count_the_compiles_the_caches_answered_and_those_compiled(module_dir):
    kernel = fresh_kernel()
    assert kernel.stats.cache_path == str(module_dir / "__pycache__")
    kernel.inspect_asm(SIG)
    kernel.inspect_asm(void(float32[:], float32[:]))
    stats = kernel.stats
    assert sum(stats.cache_hits.values()) == 0
    assert stats.cache_misses == {"array(float32, 1d, C), array(float32, 1d, C)": 1,
                                  "array(float32, 1d, A), array(float32, 1d, A)": 1}
    again = fresh_kernel()  # from disk
    again.inspect_asm(SIG)
    assert sum(again.stats.cache_hits.values()) == 1 and not again.stats.cache_misses
    import kernels  # the same process's compiled code answers a second kernel too

    again2 = type(kernels.double)(kernels.double.py_func, cache_dir=kernels.double.cache_dir)
    again2.inspect_asm(SIG)
    assert dict(again2.stats.cache_hits) == {"array(float32, 1d, C), array(float32, 1d, C)": 1}


def test_stats_without_cache_count_nothing():
    import cudajit as cuda

    @cuda.jit
    def nothing(a):
        a[0] = 1

    nothing.inspect_asm(void(float32[::1]))
    assert nothing.stats == (None, {}, {})


def test_the_cpu_the_code_is_compiled_for_is_part_of_the_key(module_dir):
    flags = open("/proc/cpuinfo").read() if os.path.exists("/proc/cpuinfo") else ""
    if platform.machine() != "x86_64" or " avx2" not in flags:
        pytest.skip("x86-64-v3 is an x86-64 CPU with AVX2")
    script = textwrap.dedent('''
        import json, numpy as np, cudajit as cuda
        from cudajit import _core
        import kernels
        a = np.arange(8, dtype=np.float32); b = np.zeros_like(a)
        kernels.double[1, 8](a, b)
        cuda.synchronize()
        print(json.dumps([_core.code_cache_info()["disk_hits"], b.tolist()]))
    ''')
    native = run_twice(module_dir, script, CUDAJIT_DEVICE="cpu")
    older = run_twice(module_dir, script, CUDAJIT_DEVICE="cpu", CUDAJIT_CPU_NAME="x86-64-v3")
    # this machine's code is not loaded for x86-64-v3: each compiles once, then loads its own
    assert [hits for hits, _ in native + older] == [0, 1, 0, 1]
    assert all(b == [2.0 * i for i in range(8)] for _, b in native + older)
    assert len(host_files(module_dir / "__pycache__")) == 2
