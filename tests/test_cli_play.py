"""`cardsim play/replay tienlen` end to end: dataset, summary, reproducibility, replay."""
import json

import pandas as pd
import pytest

from cardsim import analysis
from cli_helpers import run


def play(capsys, out, *extra, n=4000, seed=5):
    code, stdout, stderr = run(capsys, "play", "tienlen", "--games", n, "--seed", seed, "--out", out, "--quiet", *extra)
    assert code == 0, stderr
    return stdout


def test_play_dataset_is_reproducible_across_threads_and_chunks(tmp_path, capsys):
    play(capsys, tmp_path / "a", "--threads", 1, "--chunk-size", 1000, "--policy", "heuristic,random,greedy,random")
    play(capsys, tmp_path / "b", "--threads", 2, "--chunk-size", 1500, "--policy", "heuristic,random,greedy,random")
    a = analysis.load(tmp_path / "a").sort_values("game").reset_index(drop=True)
    b = analysis.load(tmp_path / "b").sort_values("game").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)
    assert len(a) == 4000 and a["game"].tolist() == list(range(4000))


def test_play_rows_are_consistent(tmp_path, capsys):
    play(capsys, tmp_path / "run", "--set", "players=3", "--set", "cards_per_player=17")
    games = analysis.load(tmp_path / "run")
    places = games[[f"place_{s}" for s in range(3)]].to_numpy()
    assert (pd.DataFrame(places).apply(sorted, axis=1, result_type="expand").to_numpy() == [1, 2, 3]).all()
    points = games[[f"points_{s}" for s in range(3)]].to_numpy()
    ladder = {1: 3, 2: 2, 3: 1}
    assert (points == pd.DataFrame(places).replace(ladder).to_numpy()).all()
    assert "place_3" not in games.columns
    meta = analysis.run_info(tmp_path / "run")
    assert meta["options"]["policies"] == ["heuristic"] * 3 and meta["rules"]["players"] == 3


def test_play_summary_and_json(tmp_path, capsys):
    play(capsys, tmp_path / "run", "--policy", "0=heuristic,1=random,2=random,3=random", n=6000)
    code, stdout, _ = run(capsys, "summary", tmp_path / "run", "--json")
    assert code == 0
    table = pd.DataFrame(json.loads(stdout))
    assert list(table.columns) == ["metric", "group", "n", "value", "ci_low", "ci_high", "ess_factor"]
    win = table[table["metric"] == "win_rate"].set_index("group")
    assert win.loc["policy heuristic", "ci_low"] > win.loc["policy random", "ci_high"]
    assert {"3♠ holder", "not 3♠ holder", "0 twos dealt", "4 twos dealt"} <= set(win.index)
    assert (table["ci_low"] <= table["value"]).all() and (table["value"] <= table["ci_high"]).all()
    seat_wins = win.loc[[f"seat {s} ({p})" for s, p in enumerate(["heuristic", "random", "random", "random"])], "value"]
    # each seat's rate is adjusted for the deal on its own: the sum is 1 within the noise
    assert seat_wins.sum() == pytest.approx(1.0, abs=0.01)


def test_replay_matches_the_dataset(tmp_path, capsys):
    play(capsys, tmp_path / "run", "--games-per-match", 3, "--policy", "random", n=30, seed=8)
    games = analysis.load(tmp_path / "run").set_index("game")
    for index in (0, 4, 29):
        code, stdout, stderr = run(capsys, "replay", "tienlen", "--run", tmp_path / "run", "--game", index)
        assert code == 0, stderr
        places = stdout.strip().splitlines()[-2]
        expected = ", ".join(f"seat {s}: {games.loc[index, f'place_{s}']}" for s in range(4))
        assert places == f"places: {expected}"
        code, same, _ = run(capsys, "replay", "tienlen", "--seed", 8, "--game", index, "--games-per-match", 3,
                            "--policy", "random")
        assert same == stdout


@pytest.mark.parametrize("args, message", [
    (["play", "tienlen", "--games", 10, "--policy", "smart"], "unknown policy"),
    (["play", "tienlen", "--games", 10, "--policy", "random,random"], "2 policies for 4 players"),
    (["play", "tienlen", "--games", 10, "--policy", "7=random"], "seat must be"),
    (["play", "tienlen", "--games", 10, "--games-per-match", 0], "games-per-match"),
    (["play", "tienlen", "--games", 10, "--games-per-match", 4, "--chunk-size", 10], "multiple"),
    (["play", "tienlen", "--games", 0], "positive"),
    (["replay", "tienlen", "--game", 3], "--seed"),
    (["replay", "tienlen", "--game", 3, "--run", "nowhere"], "not a cardsim dataset"),
])
def test_play_bad_input(tmp_path, capsys, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    code, _, stderr = run(capsys, *args)
    assert code == 2 and message in stderr and stderr.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_play_experiment_pairs_games(tmp_path, capsys):
    spec = tmp_path / "chop.toml"
    spec.write_text('game = "tienlen"\ntask = "play"\nn = 3000\nseed = 4\nchunk_size = 1000\n'
                    '[baseline]\nrules = { chop_rules = "seed" }\noptions = { policy = "greedy" }\n'
                    '[[arms]]\nname = "southern"\nrules = { chop_rules = "southern" }\n')
    code, stdout, stderr = run(capsys, "experiment", spec, "--out", tmp_path / "exp", "--json", "--quiet")
    assert code == 0, stderr
    table = pd.DataFrame(json.loads(stdout))
    assert {"win_seat_0", "points_seat_0", "tricks", "plays"} <= set(table["metric"])
    base = analysis.load(tmp_path / "exp" / "baseline").sort_values("game").reset_index(drop=True)
    arm = analysis.load(tmp_path / "exp" / "southern").sort_values("game").reset_index(drop=True)
    dealt = [f"twos_dealt_{s}" for s in range(4)] + ["three_spades_seat"]
    assert base[dealt].equals(arm[dealt])  # the same deals in both arms
    code, _, stderr = run(capsys, "report", tmp_path / "exp", tmp_path / "exp" / "baseline",
                          "--out", tmp_path / "r.html")
    assert code == 0, stderr
    assert (tmp_path / "r.html").read_text().count("data:image/png;base64,") >= 3


def test_tusac_play_summary_replay_and_steal_experiment(tmp_path, capsys):
    code, stdout, stderr = run(capsys, "play", "tusac", "--games", 3000, "--seed", 3, "--out", tmp_path / "run",
                               "--quiet", "--json", "--policy", "0=heuristic,1=random,2=random,3=random")
    assert code == 0, stderr
    table = pd.DataFrame(json.loads(stdout)).set_index(["metric", "group"])
    assert table.loc[("win_rate", "seat 0 (heuristic)"), "ci_low"] > table.loc[("win_rate", "policy random"), "ci_high"]
    assert {"winning_take", "steals_win", "win_claim_tie", "mulligans"} <= set(table.index.get_level_values(0))
    games = analysis.load(tmp_path / "run").set_index("game")
    code, text, stderr = run(capsys, "replay", "tusac", "--run", tmp_path / "run", "--game", 11)
    assert code == 0, stderr
    assert text.startswith("game 11")
    winner = games.loc[11, "winner"]
    assert (f"seat {winner} wins" in text) if winner >= 0 else ("no winner" in text)
    spec = tmp_path / "steals.toml"
    spec.write_text('game = "tusac"\ntask = "play"\nn = 2000\nseed = 1\n[baseline]\nrules = { steals = "off" }\n'
                    '[[arms]]\nname = "seat0"\nrules = { steals = "on", steal_seats = "0" }\n')
    code, stdout, stderr = run(capsys, "experiment", spec, "--json", "--quiet")
    assert code == 0, stderr
    comparison = pd.DataFrame(json.loads(stdout)).set_index("metric")
    assert comparison.loc["win_seat_0", "ci_low"] > 0  # the right to steal is worth something
    assert comparison.loc["steals_seat_1", "value"] == 0  # nobody else may steal


@pytest.mark.parametrize("game", ["loba", "continental"])
def test_rummy_play_summary_replay_and_claim_experiment(tmp_path, capsys, game):
    code, stdout, stderr = run(capsys, "play", game, "--games", 300, "--seed", 3, "--out", tmp_path / "run",
                               "--quiet", "--json", "--set", "claims=on", "--claim-seats", "0")
    assert code == 0, stderr
    table = pd.DataFrame(json.loads(stdout)).set_index(["metric", "group"])
    assert table.loc[("claims_per_match", "seat 1"), "value"] == 0  # only seat 0 may claim
    assert table.loc[("claims_per_match", "seat 0"), "value"] > 0
    assert ("match_win_rate", "seat 0 (heuristic, may claim)") in table.index
    matches = analysis.load(tmp_path / "run", "matches")
    hands = analysis.load(tmp_path / "run", "hands")
    assert len(matches) == 300 and len(hands) == 300 * (6 if game == "loba" else 7)
    totals = hands.groupby("game")[[f"points_{s}" for s in range(4)]].sum().sort_index()
    assert (totals.to_numpy() == matches.sort_values("game")[[f"total_{s}" for s in range(4)]].to_numpy()).all()
    code, text, stderr = run(capsys, "replay", game, "--run", tmp_path / "run", "--game", 7)
    assert code == 0, stderr
    assert text.startswith(f"{game} game 7")
    spec = tmp_path / "claims.toml"
    spec.write_text(f'game = "{game}"\ntask = "play"\nn = 300\nseed = 1\n[baseline]\nrules = {{ claims = false }}\n'
                    '[[arms]]\nname = "seat0"\nrules = { claims = true }\noptions = { claim_seats = "0" }\n')
    code, stdout, stderr = run(capsys, "experiment", spec, "--json", "--quiet")
    assert code == 0, stderr
    comparison = pd.DataFrame(json.loads(stdout)).set_index("metric")
    assert comparison.loc["win_seat_0", "ci_low"] > 0  # the right to claim is worth something here
    code, _, stderr = run(capsys, "play", game, "--games", 10, "--claim-seats", "7")
    assert code == 2 and "claim_seats" in stderr
