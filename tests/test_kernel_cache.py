"""The kernel cache is kept in step with the sources as a whole: Numba checks a cached
kernel against its own file only, so a caller cached before a callee's edit would run the
old callee; :mod:`cardsim.simcore.primitives.kernel_cache` drops the cache when any source
changed."""
from __future__ import annotations

import subprocess
import sys
import textwrap

from cardsim.simcore.primitives import kernel_cache

CALLEE = "from numba import njit\n\n@njit(cache=True)\ndef value():\n    return {}\n"
CALLER = textwrap.dedent("""\
    from numba import njit
    from callee import value

    @njit(cache=True)
    def caller():
        return value() + 100
    """)
RUN = textwrap.dedent("""\
    import sys
    sys.path.insert(0, sys.argv[1])
    if sys.argv[2] == "check":
        from pathlib import Path
        from cardsim.simcore.primitives import kernel_cache
        kernel_cache.check(Path(sys.argv[1]))
    from caller import caller
    print(caller())
    """)


def run(root, mode, env):
    out = subprocess.run([sys.executable, "-c", RUN, str(root), mode], capture_output=True, text=True, env=env,
                         check=True)
    return int(out.stdout.strip())


def test_a_callee_edit_reaches_its_cached_caller_only_through_the_check(tmp_path, monkeypatch):
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "CARDSIM_KEEP_KERNEL_CACHE")}
    for mode, expected_after_edit in (("plain", 101), ("check", 102)):
        root = tmp_path / mode / "simcore"
        root.mkdir(parents=True)
        (root / "callee.py").write_text(CALLEE.format(1))
        (root / "caller.py").write_text(CALLER)
        assert run(root, mode, env) == 101
        (root / "callee.py").write_text(CALLEE.format(2) + "# edited\n")
        # Numba alone keeps the caller's stale machine code (101); the check drops it (102)
        assert run(root, mode, env) == expected_after_edit, mode


def test_check_keeps_the_cache_while_the_sources_are_unchanged(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.delenv("CARDSIM_KEEP_KERNEL_CACHE", raising=False)
    root = tmp_path / "simcore"
    (root / "game" / "__pycache__").mkdir(parents=True)
    (root / "game" / "engine.py").write_text("x = 1\n")
    pycache = root / "game" / "__pycache__"
    cached = [pycache / "engine.step-3.py311.nbi", pycache / "engine.step-3.py311.1.nbc"]
    other = pycache / "engine.cpython-311.pyc"
    for p in (*cached, other):
        p.write_text("")
    assert kernel_cache.check(root)  # no record yet: dropped
    assert not any(p.exists() for p in cached) and other.exists()
    for p in cached:
        p.write_text("")
    assert not kernel_cache.check(root)  # same sources: kept
    assert all(p.exists() for p in cached)
    (root / "game" / "engine.py").write_text("x = 2\n")
    assert kernel_cache.check(root)
    assert not any(p.exists() for p in cached)
    monkeypatch.setenv("CARDSIM_KEEP_KERNEL_CACHE", "1")
    (root / "game" / "engine.py").write_text("x = 3\n")
    for p in cached:
        p.write_text("")
    assert not kernel_cache.check(root) and all(p.exists() for p in cached)


def test_under_numba_cache_dir_only_cardsims_kernels_are_dropped(tmp_path, monkeypatch):
    monkeypatch.delenv("CARDSIM_KEEP_KERNEL_CACHE", raising=False)
    root = tmp_path / "src" / "simcore"
    root.mkdir(parents=True)
    (root / "engine.py").write_text("x = 1\n")
    cache = tmp_path / "cache"
    mine = cache / "src" / "simcore" / "tusac" / "engine.advance-9.py311.nbi"
    theirs = cache / "elsewhere" / "lib" / "kernel.f-1.py311.nbi"
    for p in (mine, theirs):
        p.parent.mkdir(parents=True)
        p.write_text("")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(cache))
    assert kernel_cache.check(root)
    assert not mine.exists() and theirs.exists()
    assert (cache / kernel_cache.MARKER).read_text().strip() == kernel_cache.source_digest(root)


def test_the_check_reaches_numbas_own_cache_dir_layout(tmp_path):
    """Under ``NUMBA_CACHE_DIR`` Numba (0.60+) keeps a folder ``NAME_<sha1 of its path>`` per
    source folder; the check must find the kernels there too (it once looked only for a
    mirrored ``simcore`` path and dropped nothing)."""
    import os

    env = {k: v for k, v in os.environ.items() if k != "CARDSIM_KEEP_KERNEL_CACHE"}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "cache")
    root = tmp_path / "src" / "simcore"
    root.mkdir(parents=True)
    (root / "callee.py").write_text(CALLEE.format(1))
    (root / "caller.py").write_text(CALLER)
    assert run(root, "check", env) == 101
    assert kernel_cache.cache_files(root, env["NUMBA_CACHE_DIR"])
    (root / "callee.py").write_text(CALLEE.format(2) + "# edited\n")
    assert run(root, "check", env) == 102
