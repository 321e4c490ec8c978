"""Compile plans: the split into two halves, the hand-over through Numba's cache, the shipped plans."""
from __future__ import annotations

import os
import pickle
import subprocess
import sys

import pytest
from numba import types

from cardsim.simcore import compile_plan
from cardsim.simcore.compile_plan import Entry, split


def tree(spec):
    """Entries from ``(name, parent, seconds)`` rows."""
    return [Entry("m", name, (), parent, seconds) for name, parent, seconds in spec]


def test_the_spine_is_compiled_last_and_the_rest_is_split_evenly():
    # block -> game -> round (the spine); round calls four independent subtrees; leaf_a is
    # a's callee: compiled with a, never on its own
    entries = tree([("leaf_a", 1, 1.0), ("a", 3, 8.0), ("b", 3, 6.0), ("round", 4, 24.0), ("game", 5, 25.0),
                    ("block", -1, 26.0), ("c", 3, 4.0), ("d", 3, 3.0)])
    mine, helper, spine = split(entries)
    names = lambda ix: {entries[i].qualname for i in ix}  # noqa: E731
    assert names(spine) == {"block", "game", "round"}
    assert names(mine) | names(helper) == {"a", "b", "c", "d"} and not names(mine) & names(helper)
    load = lambda ix: sum(entries[i].seconds for i in ix)  # noqa: E731
    # largest first, the helper charged its start-up: a 8 | b 6 + c 4 ... within one subtree of even
    assert abs(load(mine) - (load(helper) + compile_plan.HELPER_START_S)) <= max(e.seconds for e in entries[:3])


def test_a_plan_without_a_dominant_kernel_has_no_spine():
    entries = tree([("a", -1, 2.0), ("b", -1, 2.0), ("c", -1, 1.0)])
    mine, helper, spine = split(entries)
    assert spine == [] and sorted(mine + helper) == [0, 1, 2] and helper


def _run(code: str, cache: str, plans: str) -> str:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, **{compile_plan.ENV_PLANS: plans, compile_plan.ENV_SWITCH: "1"})
    return subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


SETUP = "from cardsim.simcore import compile_plan as cp; "


def test_a_kernel_compiled_by_a_helper_process_is_loaded_from_the_cache(tmp_path):
    plan = [Entry("cardsim.simcore.rng", "randbelow", (types.uint64, types.int64), -1, 0.1)]
    (tmp_path / "one.pkl").write_bytes(pickle.dumps([vars(e) for e in plan], protocol=4))
    cache, plans = str(tmp_path / "numba"), str(tmp_path)
    assert _run(SETUP + "print(cp._is_cold(cp.load('one'), [0]))", cache, plans) == "True"
    assert _run(SETUP + "print(cp.compile_entries(cp.load('one'), [0]))", cache, plans) == "1"
    assert _run(SETUP + "print(cp._is_cold(cp.load('one'), [0]))", cache, plans) == "False"


def test_prepare_compiles_both_halves_on_a_cold_cache(tmp_path):
    # two independent kernels: one compiled by this process, one by the helper process
    plan = [Entry("cardsim.simcore.rng", "shuffle_plan", (types.int64, types.int64), -1, 2.0),
            Entry("cardsim.simcore.rng", "shuffle_prefix", (types.uint64, types.int64[::1], types.int64), -1, 2.0)]
    (tmp_path / "two.pkl").write_bytes(pickle.dumps([vars(e) for e in plan], protocol=4))
    mine, helper, _ = split(plan)
    assert len(mine) == 1 and len(helper) == 1
    cache, plans = str(tmp_path / "numba"), str(tmp_path)
    assert _run(SETUP + "print(cp.prepare('two') > 0)", cache, plans) == "True"
    assert _run(SETUP + "plan = cp.load('two'); print(cp._is_cold(plan, [0]), cp._is_cold(plan, [1]))",
                cache, plans) == "False False"
    # warm: nothing to do
    assert _run(SETUP + "print(cp.prepare('two'))", cache, plans) == "0.0"


def test_stale_entries_are_skipped():
    plan = [Entry("cardsim.simcore.rng", "no_such_kernel", (types.int64,), -1, 1.0),
            Entry("cardsim.simcore.rng", "randbelow", (types.float64[:, :],), -1, 1.0)]
    assert compile_plan.compile_entries(plan, [0, 1]) == 0


def test_nothing_happens_when_switched_off(monkeypatch):
    monkeypatch.setenv(compile_plan.ENV_SWITCH, "0")
    assert compile_plan.prepare("tienlen-play") == 0.0


def test_plan_keys_name_the_search_when_a_seat_searches():
    from cardsim.cli.runs import plan_key

    assert plan_key("loba", "play", {"policies": ["heuristic"] * 4}) == "loba-play"
    assert plan_key("loba", "play", {"policies": ["search:4"] + ["heuristic"] * 3}) == "loba-play-search"
    assert plan_key("tienlen", "deal", {}) == "tienlen-deal"
    keys = {key for game in compile_plan.games() for key, _ in compile_plan.recorded_commands(game)}
    assert {"tienlen-play", "tusac-play-search", "continental-replay"} <= keys


@pytest.mark.parametrize("game", compile_plan.games())
def test_every_shipped_plan_names_existing_kernels(game):
    from numba.core.registry import CPUDispatcher

    for key, _ in compile_plan.recorded_commands(game):
        plan = compile_plan.load(key)
        assert plan, f"no compile plan {key}: python -m cardsim.simcore.compile_plan record-all {game}"
        for entry in plan:
            assert isinstance(compile_plan._dispatcher(entry), CPUDispatcher), entry


def _cardsim(args: list[str], cache: str, plans: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, **{compile_plan.ENV_PLANS: plans, compile_plan.ENV_SWITCH: "1"})
    return subprocess.run([sys.executable, "-m", "cardsim", *args], env=env, capture_output=True, text=True)


def test_compile_command_fills_the_cache_once(tmp_path):
    plan = [Entry("cardsim.simcore.rng", "shuffle_plan", (types.int64, types.int64), -1, 2.0),
            Entry("cardsim.simcore.rng", "shuffle_prefix", (types.uint64, types.int64[::1], types.int64), -1, 2.0)]
    (tmp_path / "tienlen-deal.pkl").write_bytes(pickle.dumps([vars(e) for e in plan], protocol=4))
    cache, plans = str(tmp_path / "numba"), str(tmp_path)
    first = _cardsim(["compile", "tienlen", "--tasks", "deal"], cache, plans)
    assert first.returncode == 0, first.stderr
    assert "tienlen deal: compiled in" in first.stderr and "(2 kernels)" in first.stderr
    assert _run(SETUP + "plan = cp.load('tienlen-deal'); print(cp._is_cold(plan, [0]), cp._is_cold(plan, [1]))",
                cache, plans) == "False False"
    second = _cardsim(["compile", "tienlen", "--tasks", "deal"], cache, plans)
    assert second.returncode == 0 and "tienlen deal: already compiled" in second.stderr
    # a task without a plan in this folder says so instead of failing
    assert "tienlen play: no compile plan" in _cardsim(["compile", "tienlen", "--tasks", "play"], cache, plans).stderr


@pytest.mark.parametrize("args, message", [(["nope"], "unknown game 'nope'"),
                                           (["tienlen", "--tasks", "deal,plya"], "--tasks takes")])
def test_compile_command_refuses_bad_input(tmp_path, args, message):
    result = _cardsim(["compile", *args], str(tmp_path / "numba"), str(tmp_path))
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr


def test_compile_command_builds_the_lookup_tables_into_the_cache_folder(tmp_path):
    # no compile plans in this folder: only the tables are built
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"), CARDSIM_CACHE_DIR=str(tmp_path / "cardsim"),
               **{compile_plan.ENV_PLANS: str(tmp_path)})
    result = subprocess.run([sys.executable, "-m", "cardsim", "compile", "tusac", "--tasks", "deal"], env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    names = sorted(p.name.rsplit("-", 1)[0] for p in (tmp_path / "cardsim").glob("*.npz"))
    assert names == ["tusac-kind-tables", "tusac-meld-tables"]
