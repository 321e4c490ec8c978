"""The exact deal values' cache (memory + user cache dir): same fractions, computed once,
robust to damaged or unwritable cache files (issue 12: warm ``deal`` overhead)."""
from __future__ import annotations

from fractions import Fraction

import pytest

from cardsim.simcore.framework import exact_cache
from cardsim.simcore.framework.registry import get_spec
from cardsim.simcore.framework.spec import resolve_ref


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv(exact_cache.CACHE_ENV, str(folder))
    monkeypatch.setattr(exact_cache, "_MEMORY", {})
    return folder


def _counting(game):
    """The game's exact function, counting its calls."""
    function = resolve_ref(get_spec(game).exact)
    calls = []

    def compute(rules):
        calls.append(rules)
        return function(rules)
    return compute, calls


@pytest.mark.parametrize("game, sets", [("tienlen", {"players": 3}), ("tusac", {"players": 2})])
def test_values_are_computed_once_and_read_back_identical(game, sets, cache):
    spec = get_spec(game)
    rules = spec.rules_cls.from_settings(sets)
    compute, calls = _counting(game)
    first = exact_cache.cached_exact_rows(game, spec.exact, rules, compute)
    assert first == compute(rules) and len(calls) == 2  # the cache's call and ours
    assert all(isinstance(x, Fraction) for row in first for x in row[2:])
    assert len(list(cache.glob(f"exact-{game}-*.json"))) == 1
    exact_cache._MEMORY.clear()  # a new process: only the file is left
    assert exact_cache.cached_exact_rows(game, spec.exact, rules, compute) == first
    assert len(calls) == 2
    other = spec.rules_cls.from_settings({**sets, "players": 4})
    assert exact_cache.cached_exact_rows(game, spec.exact, other, compute) != first  # keyed by the rules
    assert len(calls) == 3 and len(list(cache.glob(f"exact-{game}-*.json"))) == 2


def test_damaged_file_is_recomputed_and_rewritten(cache):
    spec = get_spec("tusac")
    rules = spec.rules_cls()
    compute, calls = _counting("tusac")
    good = exact_cache.cached_exact_rows("tusac", spec.exact, rules, compute)
    (path,) = cache.glob("exact-tusac-*.json")
    for damage in ("", "{not json", '[["weak_hand", "x", "1/2", "1/2"]]', '[["weak_hand", 0, "1/0", "1"]]'):
        path.write_text(damage)
        exact_cache._MEMORY.clear()
        assert exact_cache.cached_exact_rows("tusac", spec.exact, rules, compute) == good
    assert len(calls) == 5
    exact_cache._MEMORY.clear()
    assert exact_cache.cached_exact_rows("tusac", spec.exact, rules, compute) == good and len(calls) == 5


def test_unwritable_or_disabled_cache_still_gives_the_values(tmp_path, monkeypatch):
    monkeypatch.setattr(exact_cache, "_MEMORY", {})
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    spec = get_spec("tusac")
    rules = spec.rules_cls()
    expected = resolve_ref(spec.exact)(rules)
    for setting in (str(blocker / "cache"), "off"):  # a folder under a regular file cannot be made
        monkeypatch.setenv(exact_cache.CACHE_ENV, setting)
        exact_cache._MEMORY.clear()
        assert exact_cache.cached_exact_rows("tusac", spec.exact, rules, resolve_ref(spec.exact)) == expected
    assert exact_cache.cache_dir() is None and blocker.read_text() == "x"


def test_spec_exact_rows_uses_the_cache(cache):
    spec = get_spec("tienlen")
    rules = spec.rules_cls.from_settings({"players": 2})
    rows = spec.exact_rows(rules)
    assert rows == resolve_ref(spec.exact)(rules)
    assert len(list(cache.glob("exact-tienlen-*.json"))) == 1


def test_old_files_are_pruned(cache, monkeypatch):
    monkeypatch.setattr(exact_cache, "MAX_FILES_PER_GAME", 2)
    spec = get_spec("tienlen")
    for players in (2, 3, 4):
        exact_cache.cached_exact_rows("tienlen", spec.exact, spec.rules_cls.from_settings({"players": players}),
                                      resolve_ref(spec.exact))
    assert len(list(cache.glob("exact-tienlen-*.json"))) == 2


def test_cached_arrays_are_computed_once_read_back_identical_and_survive_damage(cache):
    import numpy as np

    calls = []

    def compute():
        calls.append(1)
        return {"a": np.arange(12, dtype=np.int16).reshape(3, 4), "b": np.array([-1, 5], np.int8)}

    first = exact_cache.cached_arrays("demo-tables", "(1, 2)", [exact_cache], ("a", "b"), compute)
    second = exact_cache.cached_arrays("demo-tables", "(1, 2)", [exact_cache], ("a", "b"), compute)
    assert len(calls) == 1
    for name in ("a", "b"):
        assert second[name].dtype == first[name].dtype and np.array_equal(second[name], first[name])
        assert not second[name].flags.writeable
    other = exact_cache.cached_arrays("demo-tables", "(1, 3)", [exact_cache], ("a", "b"), compute)  # new key
    assert len(calls) == 2 and np.array_equal(other["a"], first["a"])
    for path in cache.glob("demo-tables-*.npz"):
        path.write_bytes(b"PK\x03\x04 damaged")
    again = exact_cache.cached_arrays("demo-tables", "(1, 2)", [exact_cache], ("a", "b"), compute)
    assert len(calls) == 3 and np.array_equal(again["a"], first["a"])
    for path in cache.glob("demo-tables-*.npz"):  # a readable file with other arrays: recomputed too
        np.savez(path, a=np.zeros(2))
    again = exact_cache.cached_arrays("demo-tables", "(1, 2)", [exact_cache], ("a", "b"), compute)
    assert len(calls) == 4 and np.array_equal(again["b"], first["b"])


def test_tusac_meld_tables_from_the_cache_equal_the_built_ones(cache):
    import numpy as np

    from cardsim.simcore.tusac import melds

    points = (0, 1, 3, 4, False)
    built = melds._build_meld_tables(points)
    melds._meld_tables.cache_clear()
    cached = melds._meld_tables(points)  # writes the file
    melds._meld_tables.cache_clear()
    loaded = melds._meld_tables(points)  # reads it
    assert list(cache.glob("tusac-meld-tables-*.npz"))
    for name in ("trash", "score", "win"):
        assert np.array_equal(getattr(loaded, name), built[name]) and getattr(loaded, name).dtype == built[name].dtype
        assert np.array_equal(getattr(cached, name), built[name])
    melds._meld_tables.cache_clear()
