"""Tiến Lên issue-13 items through the CLI: the games table's ``winner`` and named
``instant_kind`` columns, game length over played games, search seats from ``--policy``."""
import json

import numpy as np
import pandas as pd

from cardsim import analysis
from cardsim.simcore.tienlen.rules import INSTANT_WIN_KINDS, TienLenRules
from cli_helpers import run


def play(capsys, out, *extra, n=3000, seed=5):
    code, stdout, stderr = run(capsys, "play", "tienlen", "--games", n, "--seed", seed, "--out", out, "--quiet", *extra)
    assert code == 0, stderr
    return stdout


def test_games_table_has_winner_and_named_instant_kinds(tmp_path, capsys):
    play(capsys, tmp_path / "run", "--set", "instant_wins=all", "--policy", "greedy")
    games = analysis.load(tmp_path / "run")
    places = games[[f"place_{s}" for s in range(4)]].to_numpy()
    np.testing.assert_array_equal(games["winner"].to_numpy(), places.argmin(axis=1))
    kinds = games["instant_kind"].astype(str)
    assert set(kinds) <= {"none", *INSTANT_WIN_KINDS} and (kinds != "none").sum() > 10
    assert ((kinds == "none") == (games["instant_winner"] < 0)).all()
    instant = games["instant_winner"] >= 0
    assert (games.loc[instant, "winner"] == games.loc[instant, "instant_winner"]).all()


def test_game_length_is_over_played_games(tmp_path, capsys):
    play(capsys, tmp_path / "run", "--set", "instant_wins=all", "--policy", "greedy")
    games = analysis.load(tmp_path / "run")
    played = games[games["instant_winner"] < 0]
    assert len(played) < len(games)
    code, stdout, _ = run(capsys, "summary", tmp_path / "run", "--json")
    assert code == 0
    table = pd.DataFrame(json.loads(stdout)).set_index(["metric", "group"])
    for metric in ("tricks", "plays"):
        row = table.loc[(metric, "per played game")]
        assert row["n"] == len(played) and np.isclose(row["value"], played[metric].mean())
    assert table.loc[("instant_win", "any seat"), "n"] == len(games)


def test_chop_length_switch_is_listed_and_defaults_to_at_least(capsys):
    code, stdout, _ = run(capsys, "rules", "tienlen")
    assert code == 0 and "chop_length" in stdout and "at_least" in stdout
    assert TienLenRules().chop_length == "at_least"


def test_search_seat_from_the_command_line(tmp_path, capsys):
    play(capsys, tmp_path / "run", "--policy", "0=search:16,1=heuristic,2=search,3=random", n=40, seed=3)
    meta = analysis.run_info(tmp_path / "run")
    assert meta["options"]["policies"] == ["search:16", "heuristic", "search:64", "random"]
    code, stdout, stderr = run(capsys, "replay", "tienlen", "--run", tmp_path / "run", "--game", 5)
    assert code == 0, stderr
    games = analysis.load(tmp_path / "run").set_index("game")
    expected = ", ".join(f"seat {s}: {games.loc[5, f'place_{s}']}" for s in range(4))
    assert stdout.strip().splitlines()[-2] == f"places: {expected}"
    code, _, stderr = run(capsys, "play", "tienlen", "--games", 5, "--policy", "greedy:4")
    assert code == 2 and "budget" in stderr
