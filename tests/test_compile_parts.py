"""A first run compiles independent parts of a game's kernels in two processes
(:mod:`cardsim.simcore.primitives.compile_parts`). The parts must be the very kernels and
argument types the run's entry kernel compiles (otherwise the helper's work is wasted and
nothing says so) and they compile once per cache. That the two-process path gives the
same data is the goldens' job: they run it on a 2-CPU machine."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from numba import types

from cardsim.simcore.primitives import rng
from cardsim.simcore.primitives import compile_parts as cp

# In a fresh cache: compile the rummy play parts one after another here (unless argv[2] is
# "play-only"), then play a game and list every kernel the game (still) compiles.
COMPILED_BY_PLAY = textwrap.dedent("""\
    import json, sys
    from numba.core import event
    from cardsim.simcore.framework import registry
    from cardsim.simcore.rummy import play
    rules = registry.get_spec(sys.argv[1]).rules_cls()
    policies = ["search:2"] + ["heuristic"] * (rules.players - 1)
    setup = play._Setup(rules, policies, None)
    parts = setup.kernel_parts()
    if sys.argv[2] != "play-only":
        for part in parts:
            for kernel, sig in part:
                kernel.compile(sig)
    compiled = []
    class Listen(event.Listener):
        def on_start(self, ev):
            compiled.append(ev.data["dispatcher"].py_func.__name__)
        def on_end(self, ev):
            pass
    with event.install_listener("numba:compile", Listen()):
        play.play_chunk(1, 0, 1, rules, policies)
    print(json.dumps({"parts": [k.py_func.__name__ for part in parts for k, _ in part], "compiled": compiled}))
    """)


def _compiled_by_play(tmp_path, game, mode):
    import json

    out = subprocess.run([sys.executable, "-c", COMPILED_BY_PLAY, game, mode], capture_output=True, text=True,
                         env=_env(tmp_path), check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _env(cache, processes="1"):
    env = {k: v for k, v in os.environ.items() if k != "CARDSIM_KEEP_KERNEL_CACHE"}
    env.update(NUMBA_CACHE_DIR=str(cache), CARDSIM_COMPILE_PROCESSES=processes)
    return env


def test_the_rummy_parts_are_what_the_play_kernel_compiles(tmp_path):
    seen = _compiled_by_play(tmp_path, "continental", "parts-first")
    assert "apply_decision" in seen["parts"] and "search_choose" in seen["parts"]
    assert "best_laydown" in seen["parts"]  # the exact lay-down's fallback, compiled beside the lay-down
    # the entry kernel and its small glue compile; no part compiles a second time
    assert "_play_block" in seen["compiled"]
    assert not set(seen["parts"]) & set(seen["compiled"]), seen


def test_every_rummy_part_is_a_kernel_the_play_kernel_needs(tmp_path):
    """A part the entry kernel never calls (a wrapper, say) would be compiled for nothing."""
    seen = _compiled_by_play(tmp_path, "loba", "play-only")
    assert set(seen["parts"]) <= set(seen["compiled"]), set(seen["parts"]) - set(seen["compiled"])


def test_parts_compile_in_a_helper_process_once_per_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("CARDSIM_COMPILE_PROCESSES", "2")
    sig = (types.uint64, types.int64)
    parts = [[(rng.game_key, sig)], [(rng.search_key, sig)]]
    assert cp.compile_parts(parts) is True  # a helper ran
    assert cp.parts_key(parts) in cp.record_path().read_text().split()
    # the helper wrote search_key's cache entry into this cache folder
    assert any("search_key" in p.name for p in tmp_path.rglob("*.nbi"))
    assert cp.compile_parts(parts) is False  # recorded: no second helper
    cp._DONE.clear()
    assert cp.compile_parts(parts) is False  # a new process reads the record


def test_nothing_runs_without_a_second_process(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("CARDSIM_COMPILE_PROCESSES", "1")
    sig = (types.uint64, types.int64)
    assert cp.compile_parts([[(rng.game_key, sig)], [(rng.search_key, sig)]]) is False
    assert not cp.record_path().exists()


def test_a_failing_helper_is_ignored_and_not_recorded(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("CARDSIM_COMPILE_PROCESSES", "2")
    bad = (types.unicode_type, types.int64)  # game_key does not type for a string: the helper exits 1
    parts = [[(rng.game_key, (types.uint64, types.int64))], [(rng.game_key, bad)]]
    assert cp.compile_parts(parts) is True
    assert not cp.record_path().exists()
