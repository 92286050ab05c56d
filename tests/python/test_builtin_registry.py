"""The compiler's registry of builtins (compiler/src/builtins/) and cudajit.intrinsics name
the same intrinsics: one added on a side only fails here, before any kernel calls it."""

from cudajit import _core, intrinsics


def _covers(spelled: str, name: str) -> bool:
    """Whether a row listed under `spelled` stands for `name` (a spelling ending in '.'
    stands for every name that starts with it: cuda.reinterpret.int32 ...)."""
    return name == spelled or (spelled.endswith(".") and name.startswith(spelled))


def test_every_intrinsic_has_a_row_in_the_compiler():
    spelled = [intrinsic for _, intrinsic in _core.builtin_names() if intrinsic]
    missing = sorted(name for name in intrinsics.ir_names()
                     if not any(_covers(s, name) for s in spelled))
    assert missing == []


def test_every_intrinsic_row_of_the_compiler_is_in_intrinsics_py():
    names = intrinsics.ir_names()
    orphans = sorted(intrinsic for _, intrinsic in _core.builtin_names()
                     if intrinsic and not any(_covers(intrinsic, name) for name in names))
    assert orphans == []


def test_each_name_is_registered_once():
    names = [name for name, _ in _core.builtin_names()]
    assert len(names) == len(set(names))
    assert {"len", "math.sqrt", "cast.", "cuda.atomic.add", "cuda.vector."} <= set(names)
