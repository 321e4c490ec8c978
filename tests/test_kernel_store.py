"""The kernels shipped precompiled (:mod:`cardsim.simcore.kernel_store`).

The rest of the suite compiles every kernel from its source (``conftest.py`` switches the
store off), so these tests are what check the store: a first run that loads it compiles no
cardsim kernel and gives the same results as the compiled kernels, and a store that does
not fit (other sources, unreadable, a kernel that fails to load) is never worse than
compiling.
"""
from __future__ import annotations

import json
import pickle

import pytest

from cli_helpers import run
from cardsim.simcore import kernel_store

def _store_meta() -> dict:
    with open(kernel_store.STORE_FILE, "rb") as f:
        return pickle.load(f)["meta"]


@pytest.fixture(scope="module")
def usable_store():
    """Skip where the shipped store cannot be used (another Python, Numba or platform)."""
    meta = _store_meta()
    differ = {k: (meta.get(k), v) for k, v in kernel_store.environment().items() if meta.get(k) != v}
    if differ:
        pytest.skip(f"the store was built for another environment: {differ}")


def first_run(tmp_path, args, **env) -> tuple[dict, str]:
    """``cardsim ARGS`` in a new process on the Numba cache ``tmp_path/cache``, the store on
    (:func:`kernel_store.check`): (what it compiled and loaded, its stdout)."""
    report = kernel_store.check([str(a) for a in args], cache=str(tmp_path / "cache"), env=env)
    assert report["code"] == 0, report
    return report, report["stdout"]


def test_the_store_was_built_from_these_sources():
    assert _store_meta()["sources"] == kernel_store.source_digest(), \
        "a kernel source changed since the store was built: python -m cardsim.simcore.kernel_store build"


# The slowest first run (a rummy search: by-symbol callees loaded before their callers) and
# the cheapest. Continental and Tứ Sắc searches pass the same way; they are left out for the
# suite's time: the comparison compiles the command from source in this process.
@pytest.mark.parametrize("args", [
    ("play", "loba", "--games", "2", "--seed", "3", "--policy", "0=search:4", "--json"),
    ("deal", "tienlen", "--deals", "3000", "--seed", "2", "--json"),
], ids=["loba-search", "tienlen-deal"])
def test_a_first_run_loads_the_store_and_matches_compiled_kernels(tmp_path, capsys, usable_store, args):
    report, out = first_run(tmp_path, args)
    assert report["compiled"] == [], report  # every cardsim kernel came from the store
    assert report["loaded"] > 0 and report["status"].startswith("kernel store in use"), report
    # the same command in this process, on kernels compiled from their source
    code, expected, _ = run(capsys, *args)
    assert code == 0 and json.loads(out) == json.loads(expected)
    # the store's kernels went into Numba's cache: the second run loads them from there
    again, out_again = first_run(tmp_path, args)
    assert again["compiled"] == [] and again["loaded"] == 0 and out_again == out


def test_a_stored_kernel_that_fails_to_load_is_compiled(tmp_path, capsys, usable_store):
    with open(kernel_store.STORE_FILE, "rb") as f:
        data = pickle.load(f)
    data["entries"] = {key: b"not a kernel" for key in data["entries"]}
    broken = tmp_path / "broken.pkl"
    broken.write_bytes(pickle.dumps(data))
    args = ("deal", "tienlen", "--deals", "2000", "--seed", "9", "--json")
    report, out = first_run(tmp_path, args, **{kernel_store.ENV_FILE: str(broken)})
    assert report["compiled"] and report["loaded"] == 0, report
    assert "failed to load" in report["status"], report
    code, expected, _ = run(capsys, *args)
    assert code == 0 and json.loads(out) == json.loads(expected)


@pytest.fixture
def fresh_store_state(monkeypatch):
    """The store module as a new process finds it (read on first use), restored afterwards."""
    for name, value in (("_checked", False), ("_store", None), ("why_not", None)):
        monkeypatch.setattr(kernel_store, name, value)
    monkeypatch.setenv(kernel_store.ENV_SWITCH, "1")
    return monkeypatch


def _write_store(path, **meta_changes):
    meta = dict(kernel_store.environment(), sources=kernel_store.source_digest())
    meta.update(meta_changes)
    path.write_bytes(pickle.dumps({"meta": meta, "entries": {"k": b""}}))


def test_a_store_that_does_not_fit_is_not_used(tmp_path, fresh_store_state):
    store = tmp_path / "kernels.pkl"
    fresh_store_state.setenv(kernel_store.ENV_FILE, str(store))
    _write_store(store)
    assert kernel_store._entries() == {"k": b""}  # the control: a fitting store is used

    for change, reason in ((dict(sources="0" * 64), "sources"), (dict(numba="0.1.0"), "numba"),
                           (dict(python="2.7"), "python"), (dict(triple="aarch64-apple-darwin"), "triple")):
        fresh_store_state.setattr(kernel_store, "_checked", False)
        _write_store(store, **change)
        assert kernel_store._entries() is None
        assert kernel_store.why_not.startswith("built for another") and reason in kernel_store.why_not

    fresh_store_state.setattr(kernel_store, "_checked", False)
    store.write_bytes(b"\x80\x04 torn")
    assert kernel_store._entries() is None and kernel_store.why_not.startswith("unreadable store")

    fresh_store_state.setattr(kernel_store, "_checked", False)
    store.unlink()
    assert kernel_store._entries() is None and kernel_store.why_not.startswith("no store")

    fresh_store_state.setattr(kernel_store, "_checked", False)
    _write_store(store)
    fresh_store_state.setenv(kernel_store.ENV_SWITCH, "0")
    assert kernel_store._entries() is None and "=0" in kernel_store.status()


def test_the_digest_covers_every_kernel_source(tmp_path):
    (tmp_path / "game").mkdir()
    (tmp_path / "game" / "engine.py").write_text("X = 1\n")
    (tmp_path / "kernel_store.py").write_text("# loads kernels\n")
    before = kernel_store.source_digest(tmp_path)
    (tmp_path / "kernel_store.py").write_text("# loads kernels, differently\n")
    assert kernel_store.source_digest(tmp_path) == before  # the loader compiles nothing
    (tmp_path / "game" / "engine.py").write_text("X = 2\n")
    assert kernel_store.source_digest(tmp_path) != before


def test_only_what_numbas_cache_would_keep_is_stored():
    import numpy as np
    from numba import njit

    strided = np.arange(40)[::2]  # a non-contiguous global: Numba bakes in this process's address

    @njit
    def plain(a):
        return a.sum()

    @njit
    def with_address(i):
        return strided[i]

    plain(np.arange(3))
    with_address(1)
    assert kernel_store.storable(plain.overloads[plain.signatures[0]])
    assert not kernel_store.storable(with_address.overloads[with_address.signatures[0]])


def test_check_reports_what_a_command_compiled(usable_store):
    report = kernel_store.check(["deal", "tienlen", "--deals", "500", "--seed", "4", "--quiet"])
    assert report["code"] == 0 and report["compiled"] == [] and report["loaded"] > 0, report
    assert kernel_store.check(["deal", "nosuchgame"])["code"] == 2
