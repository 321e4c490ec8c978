"""Outside seats (issue 49): ``--policy SEAT=python:...`` and ``openspiel-ismcts:N``.

A run with an outside seat steps every game through :func:`cardsim.env` and writes the
rows the play kernels write; these tests check the rows against the kernels (every seat
built in), against stepping by hand, across chunk sizes and threads, and that a bad
callable stops the run with one line and nothing written.
"""
from __future__ import annotations

import json
import textwrap

import pytest

import cardsim
from cardsim.simcore.framework import outside, registry
from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.run.runner import RunConfig

from cli_helpers import run

#: Small, fast rules of each game (the rummy games: few rounds or two players).
GAMES = {
    "tienlen": ({}, 6),
    "tusac": ({}, 4),
    "loba": ({"contracts": "2T"}, 3),
    "continental": ({"players": "2", "claims": "off"}, 2),
    "bigtwo": ({}, 6),
}

PLAYERS_FILE = textwrap.dedent("""
    def lowest(observation, legal_actions):
        return min(legal_actions)

    def highest(observation, legal_actions):
        listed = [a[0] if isinstance(a, (list, tuple)) else a for a in observation["legal_actions"]]
        assert listed == legal_actions
        return legal_actions[-1]

    def boom(observation, legal_actions):
        raise ValueError("cannot decide\\nsecond line")

    def illegal(observation, legal_actions):
        return max(legal_actions) + 1

    def text(observation, legal_actions):
        return str(legal_actions[0])

    def boolean(observation, legal_actions):
        return True
""")


@pytest.fixture(scope="module")
def players(tmp_path_factory):
    path = tmp_path_factory.mktemp("players") / "players.py"
    path.write_text(PLAYERS_FILE)
    return path


def _rules(game, settings):
    return cardsim.api.resolve_rules(game, settings)


def _chunk_tables(game, settings, policies, n, seed=7, **options):
    task = registry.get_task(game, "play")
    rules = _rules(game, settings)
    opts = task.parse_options(rules, {"policy": ",".join(policies), **options})
    task.check_options(rules, opts)
    config = RunConfig(game=game, task="play", rules=rules, n=n, seed=seed, chunk_size=n, options=opts)
    return task.run_chunk(config, 0)


@pytest.mark.parametrize("game", list(GAMES))
def test_stepped_rows_are_the_kernels_rows(game, monkeypatch):
    """Every seat built in, the stepped path writes exactly the kernels' tables (columns,
    dtypes, order, values): the conversion of ``Env.result()`` rows is exact."""
    settings, n = GAMES[game]
    players = _rules(game, settings).players
    policies = ["heuristic"] * players
    kernel = _chunk_tables(game, settings, policies, n)
    module = registry.get_task(game, "play").run_chunk.__module__
    import importlib

    monkeypatch.setattr(importlib.import_module(module), "has_outside", lambda policies: True)
    stepped = _chunk_tables(game, settings, policies, n)
    assert set(stepped) == set(kernel)
    for name in kernel:
        assert stepped[name].schema == kernel[name].schema, name
        assert stepped[name].equals(kernel[name]), name


def test_stepped_matches_follow_the_previous_winner(monkeypatch):
    """Tiến Lên matches (-k 2): the stepped path leads each later game as play does."""
    import cardsim.simcore.tienlen.tasks as tasks

    kernel = _chunk_tables("tienlen", {}, ["heuristic"] * 4, 6, games_per_match=3)
    monkeypatch.setattr(tasks, "has_outside", lambda policies: True)
    stepped = _chunk_tables("tienlen", {}, ["heuristic"] * 4, 6, games_per_match=3)
    assert stepped["games"].equals(kernel["games"])


def test_stepped_big_two_matches_follow_the_previous_winner(monkeypatch):
    """Big Two matches (-k 3) on the stepped path, as on the kernels'."""
    import cardsim.simcore.bigtwo.tasks as tasks

    kernel = _chunk_tables("bigtwo", {}, ["heuristic"] * 4, 6, games_per_match=3)
    monkeypatch.setattr(tasks, "has_outside", lambda policies: True)
    stepped = _chunk_tables("bigtwo", {}, ["heuristic"] * 4, 6, games_per_match=3)
    assert stepped["games"].equals(kernel["games"])


@pytest.mark.parametrize("game", list(GAMES))
def test_outside_seat_is_stepping_by_hand(game, players):
    """An outside seat playing the lowest legal action gives the rows of stepping
    cardsim.env by hand with that rule at the seat and the built-in policy elsewhere."""
    settings, n = GAMES[game]
    n = min(n, 2)
    P = _rules(game, settings).players
    policies = ["heuristic"] * P
    policies[1] = f"python:{players}:lowest"
    tables = _chunk_tables(game, settings, policies, n, seed=11)
    main = "games" if game in ("tienlen", "tusac", "bigtwo") else "matches"
    got = tables[main].to_pylist()
    for index in range(n):
        g = cardsim.env(game, seed=11, index=index, rules=settings, policy="heuristic")
        while not g.done:
            g.step(min(g.legal_actions()) if g.to_move == 1 else g.policy_action())
        want = g.result()[main]
        assert got[index] == want


@pytest.mark.parametrize("game", list(GAMES))
def test_same_data_every_run_chunk_size_and_thread_count(game, players):
    settings, n = GAMES[game]
    P = _rules(game, settings).players
    policy = f"0=python:{players}:lowest,{P - 1}=python:{players}:highest"
    runs = [cardsim.play(game, n, seed=5, rules=settings, policy=policy, chunk_size=chunk, threads=threads,
                         progress=False)
            for chunk, threads in ((n, 1), (1, 2), (2, 1))]
    for table in runs[0].tables:
        for other in runs[1:]:
            assert other.tables[table].equals(runs[0].tables[table]), table


def test_metadata_records_the_callable(players, tmp_path):
    out = tmp_path / "run"
    r = cardsim.play("tienlen", 3, seed=1, policy=f"2=python:{players}:lowest", out=out, progress=False)
    meta = json.loads((out / "run.json").read_text())
    ref = f"python:{players.resolve()}:lowest"
    assert meta["options"]["policies"][2] == ref
    note = meta["players"][f"outside {ref}"]
    import hashlib

    assert note["sha256"] == hashlib.sha256(players.read_bytes()).hexdigest()
    assert note["file"] == str(players.resolve())
    assert r.meta["players"] == meta["players"]


def test_module_callable_and_ladder(players, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(players.parent))
    code, out, err = run(capsys, "ladder", "tienlen", "--policies", "heuristic,python:players:lowest",
                         "--games", "4", "--seed", "3")
    assert code == 0, err
    assert "python:players:lowest" in out
    assert "at Python speed" in err


def test_play_prints_the_speed_note(players, capsys):
    code, out, err = run(capsys, "play", "tusac", "-n", "2", "--seed", "1", "--policy", f"1=python:{players}:lowest")
    assert code == 0, err
    assert "Python speed" in err and "about" in err


def test_balance_and_experiment_take_outside_seats(players):
    ref = f"python:{players}:lowest"
    card = cardsim.balance("tienlen", policies=f"heuristic,{ref}", games=4, seed=2, progress=False)
    assert len(card.tables["card"]) and ref in card.meta["policies"]
    spec = {"name": "outside", "game": "tienlen", "task": "play", "n": 6, "seed": 4,
            "baseline": {"name": "base", "options": {"policy": f"1={ref}"}},
            "arms": [{"name": "lowest_everywhere", "options": {"policy": ref}}]}
    result = cardsim.experiment(spec, progress=False)
    assert len(result.summary())


@pytest.mark.parametrize("function, message", [
    ("boom", "seat 2 (python:{path}:boom) in game 0 raised ValueError: cannot decide"),
    ("illegal", "seat 2 (python:{path}:illegal) in game 0 returned action"),
    ("text", "seat 2 (python:{path}:text) in game 0 returned '"),
    ("boolean", "seat 2 (python:{path}:boolean) in game 0 returned True (bool), not an integer action id"),
    ("missing", "policy python:{path}:missing: no function 'missing'"),
])
def test_bad_callables_are_refused(players, tmp_path, capsys, function, message):
    out = tmp_path / "out"
    code, stdout, err = run(capsys, "play", "tienlen", "-n", "4", "--seed", "1", "--chunk-size", "2",
                            "--policy", f"2=python:{players}:{function}", "-o", out)
    assert code == 2
    lines = [line for line in err.splitlines() if line.startswith("cardsim: error:")]
    assert len(lines) == 1 and message.format(path=players.resolve()) in lines[0], err
    assert "Traceback" not in err
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == []  # no unfinished run left either


@pytest.mark.parametrize("policy, message", [
    ("python:no_such_module_xyz:f", "no module named 'no_such_module_xyz'"),
    ("python:json:no_such_function", "no function 'no_such_function' in module json"),
    ("python:/no/such/file.py:f", "file not found"),
    ("python:nothing", "expected python:MODULE:FUNCTION"),
    ("openspiel-ismcts:0", "the simulations must be in"),
])
def test_bad_specs_are_refused(capsys, policy, message):
    code, _, err = run(capsys, "play", "tienlen", "-n", "2", "--policy", f"1={policy}")
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_rummy_outside_seats_need_the_step_interfaces_options(players):
    with pytest.raises(ConfigError, match="claim"):
        cardsim.play("loba", 1, seed=1, policy=f"0=python:{players}:lowest", claim_seats="0", progress=False)


def test_estimate_reflects_python_speed(players):
    from cardsim.simcore.run.estimate import estimate

    ref = f"python:{players.resolve()}:lowest"
    fast = estimate("tienlen", "play", 10_000, 10_000, {"policies": ["heuristic"] * 4}, 1)[0]
    slow = estimate("tienlen", "play", 10_000, 10_000, {"policies": [ref] + ["heuristic"] * 3}, 1)[0]
    ismcts = estimate("tienlen", "play", 10_000, 10_000, {"policies": ["openspiel-ismcts:64"] + ["heuristic"] * 3},
                      1)[0]
    assert slow > 10 * fast and ismcts > 10 * slow


# ------------------------------------------------------------------ OpenSpiel's ISMCTS
pyspiel = pytest.importorskip("pyspiel")


@pytest.mark.parametrize("game", list(GAMES))
def test_ismcts_plays_every_game(game):
    settings, _ = GAMES[game]
    result = cardsim.play(game, 1, seed=3, rules=settings, policy="0=openspiel-ismcts:2", progress=False)
    main = "games" if game in ("tienlen", "tusac", "bigtwo") else "matches"
    assert len(result.tables[main]) == 1
    assert "outside openspiel-ismcts:2" in result.meta["players"]


def test_ismcts_is_reproducible():
    runs = [cardsim.play("tienlen", 3, seed=9, policy="1=openspiel-ismcts:6", chunk_size=chunk, progress=False)
            for chunk in (3, 1)]
    assert runs[0].tables["games"].equals(runs[1].tables["games"])
    moves = []
    for _ in range(2):
        g = cardsim.env("tienlen", seed=9, index=0)
        seat = outside.IsmctsSeat(outside.parse_outside("openspiel-ismcts:6"), "tienlen", g.rules, 9, 0, g.to_move)
        moves.append(seat(g))
    assert moves[0] == moves[1]



def test_resume_refuses_a_changed_callable(tmp_path):
    from cardsim.simcore.run import lifecycle

    path = tmp_path / "mine.py"
    path.write_text(PLAYERS_FILE)
    rules = _rules("tienlen", {})
    task = registry.get_task("tienlen", "play")
    options = task.parse_options(rules, {"policy": f"0=python:{path}:lowest"})
    config = RunConfig(game="tienlen", task="play", rules=rules, n=4, seed=1, chunk_size=2, options=options)
    manifest = config.manifest()
    lifecycle.check_models(manifest, config)
    path.write_text(PLAYERS_FILE + "\n# changed\n")
    with pytest.raises(ConfigError, match="source file changed"):
        lifecycle.check_models(manifest, config)
