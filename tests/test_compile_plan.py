"""Compile plans: the schedule shared by two processes, the hand-over through Numba's cache, the shipped plans."""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
import time

import pytest
from numba import types

from cardsim.simcore import compile_plan
from cardsim.simcore.compile_plan import Entry


def tree(spec):
    """Entries from ``(name, parent, seconds)`` or ``(name, parent, seconds, calls)`` rows."""
    return [Entry("m", row[0], (), row[1], row[2], tuple(row[3]) if len(row) > 3 else ()) for row in spec]


# block -> game -> round (the spine); round calls a and b; both call s (compiled under a)
SHARED = [("block", -1, 20.0), ("game", 0, 19.0), ("round", 1, 18.0), ("a", 2, 9.0), ("s", 3, 5.0),
          ("b", 2, 8.0, [4])]


def test_a_callee_shared_by_two_callers_depends_on_both_chains():
    entries = tree(SHARED)
    own = compile_plan.own_seconds(entries)
    assert own == [1.0, 1.0, 1.0, 4.0, 5.0, 8.0]
    deps = compile_plan.callees(entries)
    assert deps[3] == {4} and deps[5] == {4} and deps[2] == {3, 5}
    rank = compile_plan.ranks(entries)
    # s waits for the longer of its callers' chains: b (8) + round + game + block
    assert rank[4] == 5.0 + 8.0 + 3.0 and rank[3] == 4.0 + 3.0 and rank[0] == 1.0


def test_two_workers_compile_independent_kernels_at_once_and_callees_first():
    independent = tree([("a", -1, 4.0), ("b", -1, 4.0), ("c", -1, 2.0), ("d", -1, 2.0)])
    assert compile_plan.simulate(independent, workers=1) == 12.0
    assert compile_plan.simulate(independent, workers=2) == 6.0
    # a chain cannot be shared: each kernel waits for its callee
    chain = tree([("top", -1, 6.0), ("mid", 0, 4.0), ("leaf", 1, 2.0)])
    assert compile_plan.simulate(chain, workers=2) == 6.0
    # the shared callee first, then a and b at once, then the spine
    assert compile_plan.simulate(tree(SHARED), workers=2) == 5.0 + 8.0 + 3.0
    assert compile_plan.simulate(tree(SHARED), workers=2, start_delay=1.0) == 5.0 + 8.0 + 3.0


RNG_PLAN = [Entry("cardsim.simcore.rng", "shuffle_plan", (types.int64, types.int64), -1, 2.0),
            Entry("cardsim.simcore.rng", "shuffle_prefix", (types.uint64, types.int64[::1], types.int64), -1, 2.0,
                  (0,))]


def test_a_worker_skips_claimed_kernels_and_waits_for_callees_the_other_compiles(tmp_path):
    # the other worker claimed entry 0 and has not finished it: entry 1 (which calls it) waits
    (tmp_path / "claim-0").touch()
    assert compile_plan._work(RNG_PLAN, [0, 1], tmp_path, other_alive=lambda: True, deadline=time.monotonic() + 0.3) == 0
    assert not (tmp_path / "claim-1").exists()
    # once it is done, entry 1 is this worker's
    (tmp_path / "done-0").touch()
    assert compile_plan._work(RNG_PLAN, [0, 1], tmp_path, other_alive=lambda: True) == 1
    assert (tmp_path / "done-1").exists()


def test_kernels_that_call_each_other_are_compiled_not_waited_for(tmp_path):
    cycle = [Entry(e.module, e.qualname, e.args, -1, e.seconds, (1 - i,)) for i, e in enumerate(RNG_PLAN)]
    # the other worker is alive but compiles nothing: without the cycle rule both wait to the deadline
    assert compile_plan._work(cycle, [0, 1], tmp_path, other_alive=lambda: True,
                              deadline=time.monotonic() + 10) == 2


def test_the_helper_stops_when_its_command_is_gone(tmp_path):
    assert compile_plan._work(RNG_PLAN, [0, 1], tmp_path, other_alive=lambda: False, stop_alone=True) == 0
    assert not list(tmp_path.iterdir())


def test_a_worker_does_not_wait_for_a_worker_that_is_gone(tmp_path):
    (tmp_path / "claim-0").touch()  # claimed, never done
    assert compile_plan._work(RNG_PLAN, [0, 1], tmp_path, other_alive=lambda: False) == 1


def test_a_helper_stops_once_the_command_removed_the_claim_folder(tmp_path):
    folder = tmp_path / "claims"  # never created: the command already has every kernel
    start = time.monotonic()
    assert compile_plan._work(RNG_PLAN, [0, 1], folder, other_alive=lambda: True, stop_alone=True,
                              deadline=start + 5) == 0
    assert time.monotonic() - start < 1


def test_the_command_waits_for_the_last_kernel_and_does_its_idle_work_meanwhile(tmp_path):
    (tmp_path / "claim-0").touch()  # the helper compiles entry 0 ...
    (tmp_path / "claim-1").touch()  # ... and entry 1: nothing is left to claim
    idle = []

    def other_alive():
        if len(idle) == 1 and not (tmp_path / "done-0").exists():
            (tmp_path / "done-0").touch()  # the helper finishes while the command waits
            (tmp_path / "done-1").touch()
        return True

    assert compile_plan._work(RNG_PLAN, [0, 1], tmp_path, other_alive=other_alive,
                              deadline=time.monotonic() + 5, idle=lambda: idle.append(1)) == 0
    assert idle == [1] and (tmp_path / "done-1").exists()  # returned once both were done, idle work once


def test_progress_counts_the_kernels_either_worker_finishes(tmp_path):
    (tmp_path / "claim-0").touch()  # the helper compiles entry 0; this worker compiles entry 1 after it
    seen = []

    def other_alive():
        (tmp_path / "done-0").touch()  # the helper finishes entry 0
        return True

    assert compile_plan._work(RNG_PLAN, [0, 1], tmp_path, other_alive=other_alive, deadline=time.monotonic() + 5,
                              progress=lambda done, total: seen.append((done, total))) == 1
    assert seen[0] == (1, 2) and seen[-1] == (2, 2) and seen == sorted(seen)  # the helper's kernel, then its own
    shared = []
    compile_plan.compile_shared("rng", RNG_PLAN, [0, 1], helper=False,
                                progress=lambda done, total: shared.append((done, total)))
    assert shared[0] == (0, 2) and shared[-1] == (2, 2)  # a spinner hears of the plan before its first kernel


def test_shipped_plans_know_callees_compiled_earlier_for_another_caller():
    # apply_take is compiled under advance; apply_decision calls it too
    plan = compile_plan.load("loba-play")
    index = {e.qualname: i for i, e in enumerate(plan)}
    assert index["apply_take"] in plan[index["apply_decision"]].calls
    assert plan[index["apply_take"]].parent == index["advance"]


def _run(code: str, cache: str, plans: str) -> str:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, **{compile_plan.ENV_PLANS: plans, compile_plan.ENV_SWITCH: "1"})
    return subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


SETUP = "from cardsim.simcore import compile_plan as cp; "


def test_a_kernel_compiled_by_a_helper_process_is_loaded_from_the_cache(tmp_path):
    plan = [Entry("cardsim.simcore.rng", "randbelow", (types.uint64, types.int64), -1, 0.1)]
    (tmp_path / "one.pkl").write_bytes(pickle.dumps([vars(e) for e in plan], protocol=4))
    cache, plans = str(tmp_path / "numba"), str(tmp_path)
    assert _run(SETUP + "print(cp._is_cold(cp.load('one'), 0))", cache, plans) == "True"
    assert _run(SETUP + "print(cp.compile_entries(cp.load('one'), [0]))", cache, plans) == "1"
    assert _run(SETUP + "print(cp._is_cold(cp.load('one'), 0))", cache, plans) == "False"


def test_prepare_compiles_the_plan_with_a_helper_on_a_cold_cache(tmp_path):
    # two independent kernels: this process and the helper process take one each
    plan = [Entry("cardsim.simcore.rng", "shuffle_plan", (types.int64, types.int64), -1, 2.0),
            Entry("cardsim.simcore.rng", "shuffle_prefix", (types.uint64, types.int64[::1], types.int64), -1, 2.0)]
    (tmp_path / "two.pkl").write_bytes(pickle.dumps([vars(e) for e in plan], protocol=4))
    cache, plans = str(tmp_path / "numba"), str(tmp_path)
    assert _run(SETUP + "print(cp.prepare('two') > 0)", cache, plans) == "True"
    assert _run(SETUP + "plan = cp.load('two'); print(cp._is_cold(plan, 0), cp._is_cold(plan, 1))",
                cache, plans) == "False False"
    # warm: nothing to do
    assert _run(SETUP + "print(cp.prepare('two'))", cache, plans) == "0.0"


def test_prepare_compiles_what_is_cold_when_another_command_cached_a_shared_kernel(tmp_path):
    # deal before play: the deal compiled shuffle_plan, which the play plan also calls from Python
    plan = [Entry("cardsim.simcore.rng", "shuffle_plan", (types.int64, types.int64), -1, 2.0),
            Entry("cardsim.simcore.rng", "shuffle_prefix", (types.uint64, types.int64[::1], types.int64), -1, 2.0),
            Entry("cardsim.simcore.rng", "randbelow", (types.uint64, types.int64), -1, 2.0)]
    (tmp_path / "three.pkl").write_bytes(pickle.dumps([vars(e) for e in plan], protocol=4))
    cache, plans = str(tmp_path / "numba"), str(tmp_path)
    assert _run(SETUP + "print(cp.compile_entries(cp.load('three'), [0]))", cache, plans) == "1"
    cold = SETUP + "plan = cp.load('three'); print(*(cp._is_cold(plan, i) for i in range(3)))"
    assert _run(cold, cache, plans) == "False True True"
    assert _run(SETUP + "print(cp.prepare('three') > 0)", cache, plans) == "True"
    assert _run(cold, cache, plans) == "False False False"


def test_without_a_temporary_folder_the_plan_compiles_in_this_process(tmp_path, monkeypatch):
    def no_folder(**kwargs):
        raise PermissionError("read-only temporary folder")

    monkeypatch.setattr(compile_plan.tempfile, "mkdtemp", no_folder)
    monkeypatch.setattr(compile_plan, "compile_entries", lambda entries, indices: calls.append(indices))
    calls = []
    compile_plan.compile_shared("rng", RNG_PLAN, [0, 1])
    assert calls == [[0, 1]]


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
    # a random seat: the rummy kernels then compile the random policy, a plan of its own
    assert plan_key("loba", "play", {"policies": ["heuristic", "random", "heuristic", "heuristic"]}) == "loba-play-random"
    assert plan_key("loba", "replay", {"policies": ["random"] * 4}) == "loba-replay"  # no such plan: the nearest
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
    assert "tienlen deal: ready in" in first.stderr and "(2 kernels)" in first.stderr
    assert _run(SETUP + "plan = cp.load('tienlen-deal'); print(cp._is_cold(plan, 0), cp._is_cold(plan, 1))",
                cache, plans) == "False False"
    second = _cardsim(["compile", "tienlen", "--tasks", "deal"], cache, plans)
    assert second.returncode == 0 and "tienlen deal: already in the cache" in second.stderr
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
