"""Conformance: every registered game passes the same checks, through the CLI.

Adding a game (its package plus one line in ``simcore/framework/registry.py``) makes this module
run it: deal and play end to end, summary and report, replay and single-game reruns
equal to the dataset, reproducibility across threads and chunk sizes, every declared
policy playable, cards conserved, metrics fit for experiments and ladders, bad input
exits 2.
"""
from __future__ import annotations

import json

import pandas as pd
import pytest

from cardsim import analysis
from cardsim.simcore.framework import registry
from cardsim.simcore.run.runner import RunConfig
from cli_helpers import run

GAMES = registry.game_names()
#: Small, fast sizes per game (rummy games are whole matches).
PLAY_N = {"tienlen": 240, "tusac": 120, "loba": 12, "continental": 12}


def _n(game: str) -> int:
    return PLAY_N.get(game, 20)


def _ok(capsys, *args) -> str:
    code, out, err = run(capsys, *args)
    assert code == 0, err
    return out


def _frame(path, table) -> pd.DataFrame:
    frame = pd.read_parquet(path / table)
    key = [c for c in ("game", "round") if c in frame.columns]
    return frame.drop(columns=[c for c in ("chunk",) if c in frame.columns]).sort_values(key).reset_index(drop=True)


@pytest.mark.parametrize("game", GAMES)
def test_spec_is_complete(game):
    spec = registry.get_spec(game)
    spec.check()  # every lazily imported piece resolves and fits
    assert spec.name == game and spec.title
    assert spec.deal.game == game and spec.play.game == game
    assert spec.play.can_replay
    assert spec.policies and spec.play.default_policy in spec.policies
    assert "play" in spec.metrics
    assert spec.rules_cls().to_dict()  # the defaults validate
    for option in spec.options:
        assert option.name in spec.task(option.task).option_names()


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("players", ["default", "fewest"])
def test_cards_are_conserved(game, players):
    """Every card of the deck is in exactly one place at the end of every game, for each
    declared policy (the game's :attr:`GameSpec.ledger`, read from the kernel's own
    final state or move log)."""
    from cardsim.simcore.framework.spec import resolve_ref

    spec = registry.get_spec(game)
    assert spec.ledger, f"{game} declares no card ledger"
    ledger = resolve_ref(spec.ledger)
    rules = spec.rules_cls()
    if players == "fewest":
        rules = spec.rules_cls(players=spec.rules_cls.SWITCHES["players"].low)
    n = max(2, _n(game) // 20)
    for policy in [p for p in spec.policies if p != "search"]:
        deck, where = ledger(3, 0, n, rules, policy)
        assert where.shape[0] >= n and where.shape[2] == deck.shape[0]
        assert (where >= 0).all(), f"{game} {policy}: a negative card count"
        assert (where.sum(axis=1) == deck).all(), f"{game} {policy}: cards created or lost"


@pytest.mark.parametrize("game", GAMES)
def test_deal_runs_and_summarises(game, tmp_path, capsys):
    out = tmp_path / "deal"
    _ok(capsys, "deal", game, "--deals", 3000, "--seed", 1, "--out", out, "--quiet")
    rates = pd.DataFrame(json.loads(_ok(capsys, "summary", out, "--json")))
    assert len(rates) and (rates["n"] == 3000).all()
    assert ((rates["ci_low"] <= rates["rate"]) & (rates["rate"] <= rates["ci_high"])).all()
    _ok(capsys, "report", out, "--out", tmp_path / "deal.html")
    assert "<img" in (tmp_path / "deal.html").read_text()


@pytest.mark.parametrize("game", GAMES)
def test_play_is_reproducible_and_replayable(game, tmp_path, capsys):
    spec = registry.get_spec(game)
    n = _n(game)
    a, b = tmp_path / "a", tmp_path / "b"
    _ok(capsys, "play", game, "--games", n, "--seed", 7, "--out", a, "--quiet", "--threads", 1,
        "--chunk-size", max(1, n // 3))
    _ok(capsys, "play", game, "--games", n, "--seed", 7, "--out", b, "--quiet", "--threads", 2,
        "--chunk-size", n)
    tables = list(analysis.run_info(a)["tables"])
    for table in tables:
        pd.testing.assert_frame_equal(_frame(a, table), _frame(b, table))
    # one game rerun alone (a chunk of one game) equals its row in the dataset
    meta = analysis.run_info(a)
    config = RunConfig.from_manifest(dict(meta, chunk_size=1))
    index = n - 2
    alone = spec.play.run_chunk(config, index)
    metric_table = spec.metric_spec("play").table
    row = _frame(a, metric_table)
    row = row[row["game"] == index].reset_index(drop=True)
    single = alone[metric_table].to_pandas().drop(columns=["chunk"], errors="ignore").reset_index(drop=True)
    pd.testing.assert_frame_equal(single[row.columns], row, check_dtype=False)
    # replay prints the game from the dataset's settings
    text = _ok(capsys, "replay", game, "--run", a, "--game", index)
    assert len(text.splitlines()) > 3
    # summary and report render
    table = pd.DataFrame(json.loads(_ok(capsys, "summary", a, "--json")))
    assert {"metric", "group", "n", "value", "ci_low", "ci_high"} <= set(table.columns) and len(table)
    _ok(capsys, "report", a, "--out", tmp_path / "play.html")
    assert "<img" in (tmp_path / "play.html").read_text()


@pytest.mark.parametrize("game", GAMES)
def test_every_policy_plays_and_metrics_fit_ladders(game):
    spec = registry.get_spec(game)
    rules = spec.rules_cls()
    metric = spec.metric_spec("play")
    for policy in spec.policies:
        text = "search:2" if policy == "search" else policy
        options = spec.play.parse_options(rules, {"policy": f"0={text}"})
        spec.play.check_options(rules, options)
        config = RunConfig(game=game, task="play", rules=rules, n=4, seed=3, chunk_size=4, options=options)
        frame = spec.play.run_chunk(config, 0)[metric.table].to_pandas()
        metrics = metric.function(frame)
        for s in range(rules.players):
            assert f"win_seat_{s}" in metrics and f"points_seat_{s}" in metrics
        assert metrics.notna().all().all()


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("args", [
    ["--set", "no_such_switch=1"],
    ["--set", "players=99"],
    ["--policy", "no_such_policy"],
    ["--policy", "heuristic:5"],
    ["--seed", "-1"],
])
def test_bad_play_input_exits_2(game, args, tmp_path, capsys):
    code, out, err = run(capsys, "play", game, "--games", 5, "--out", tmp_path / "x", "--quiet", *args)
    assert code == 2, err
    assert err.startswith("cardsim: error:") and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("game", GAMES)
def test_game_options_are_command_flags(game, tmp_path, capsys):
    """The CLI's game flags come from the GameSpec: each declared option is a flag of its
    commands (help names the game), and a flag only other games declare exits 2."""
    from cardsim.cli.options import declared_options

    spec = registry.get_spec(game)
    for option in spec.options:
        commands = ("deal",) if option.task == "deal" else ("play", "replay")
        for command in commands:
            helptext = " ".join(_ok(capsys, command, "--help").split())
            assert option.flag in helptext and game in helptext
    own = {option.name for option in spec.options}
    for task in ("deal", "play"):
        for name, (option, games) in declared_options(task).items():
            if name in own:
                continue
            value = 3 if option.kind is int else "all"
            code, _, err = run(capsys, task, game, "--deals" if task == "deal" else "--games", 3, "--seed", 1,
                               "--out", tmp_path / name, "--quiet", option.flag, value)
            assert code == 2 and option.flag in err, err
            assert not (tmp_path / name).exists()


@pytest.mark.parametrize("game", GAMES)
def test_ladder_runs(game, capsys):
    spec = registry.get_spec(game)
    policies = ",".join(p if p != "search" else "search:2" for p in spec.policies[:2])
    table = pd.DataFrame(json.loads(_ok(capsys, "ladder", game, "--policies", policies, "--games", 3,
                                        "--seed", 2, "--json", "--quiet")))
    assert len(table) == len(spec.policies[:2])
    assert ((table["score_ci_low"] <= table["score"]) & (table["score"] <= table["score_ci_high"])).all()


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("players", ["default", "fewest"])
def test_balance_outcomes_fit_the_card(game, players):
    """The game's balance outcomes: one row per game in game order, at most one winner,
    every role held by exactly one seat, comebacks in {0, 1, NaN}."""
    import numpy as np

    from cardsim.simcore.framework.spec import resolve_ref

    spec = registry.get_spec(game)
    assert spec.balance, f"{game} declares no balance outcomes"
    low = spec.rules_cls.SWITCHES["players"].low if players == "fewest" else None
    rules = spec.rules_cls.from_settings({} if low is None else {"players": str(low)})
    options = spec.play.parse_options(rules, {"policy": "random"})
    spec.play.check_options(rules, options)
    config = RunConfig(game=game, task="play", rules=rules, n=6, seed=4, chunk_size=6, options=options)
    tables = {name: t.to_pandas() for name, t in spec.play.run_chunk(config, 0).items()}
    for name, frame in tables.items():
        if "round" not in frame:
            tables[name] = frame.sort_values("game").reset_index(drop=True)
    o = resolve_ref(spec.balance)(tables, rules)
    assert o.game.tolist() == list(range(6))
    assert o.win.shape == o.points.shape == (6, rules.players)
    assert set(np.unique(o.win)) <= {0.0, 1.0} and (o.win.sum(axis=1) <= 1).all()
    assert ((o.win.sum(axis=1) == 0) <= (o.no_winner > 0)).all()  # no winner only where the game says so
    assert o.length.shape == o.no_winner.shape == (6,) and (o.length >= 0).all()
    for role, held in o.roles.items():
        assert held.shape == (6, rules.players) and (held.sum(axis=1) == 1).all(), role
    for name, trailed in o.comebacks.items():
        assert set(np.unique(trailed[~np.isnan(trailed)])) <= {0.0, 1.0}, name
