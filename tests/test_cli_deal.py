"""The deal command end to end: reproducibility, dataset contract, bad input."""
import json
import os

import pandas as pd
import pyarrow.parquet as pq
import pytest

from cardsim import analysis
from cli_helpers import run

RATE_KEYS = ["event", "seat", "count", "n", "rate", "ci_low", "ci_high"]


def deal(capsys, out, *extra, n=120_000, seed=7):
    code, stdout, stderr = run(capsys, "deal", "tienlen", "--deals", n, "--seed", seed, "--out", out, "--quiet", *extra)
    assert code == 0, stderr
    return stdout


def test_same_seed_same_data_whatever_threads_and_chunks(tmp_path, capsys):
    deal(capsys, tmp_path / "a", "--threads", 1, "--chunk-size", 50_000, "--per-deal")
    deal(capsys, tmp_path / "b", "--threads", 2, "--chunk-size", 33_333, "--per-deal")
    deal(capsys, tmp_path / "c", "--threads", 2, "--per-deal")
    rates = [analysis.rates(analysis.load(tmp_path / x)) for x in "abc"]
    pd.testing.assert_frame_equal(rates[0], rates[1])
    pd.testing.assert_frame_equal(rates[0], rates[2])
    per_deal = [analysis.load(tmp_path / x, "per_deal").sort_values("deal").reset_index(drop=True) for x in "abc"]
    pd.testing.assert_frame_equal(per_deal[0], per_deal[1])
    pd.testing.assert_frame_equal(per_deal[0], per_deal[2])
    assert len(list((tmp_path / "a" / "counts").glob("part-*.parquet"))) == 3
    assert len(list((tmp_path / "b" / "counts").glob("part-*.parquet"))) == 4


def test_different_seed_different_counts(tmp_path, capsys):
    deal(capsys, tmp_path / "a", seed=1)
    deal(capsys, tmp_path / "b", seed=2)
    a, b = (analysis.rates(analysis.load(tmp_path / x)) for x in "ab")
    assert not a["count"].equals(b["count"])


def test_dataset_contract(tmp_path, capsys):
    out = tmp_path / "run"
    stdout = deal(capsys, out, "--set", "instant_wins=dragon,six_pairs", "--per-deal", n=20_000, seed=3)
    meta = json.loads((out / "run.json").read_text())
    assert meta["game"] == "tienlen" and meta["task"] == "deal"
    assert meta["n"] == 20_000 and meta["seed"] == 3
    assert meta["rules"]["instant_wins"] == ["dragon", "six_pairs"]
    assert meta["rules"]["players"] == 4 and meta["rules"]["scoring"] == "3-2-1-0"
    assert meta["cardsim_version"] and meta["created"] and meta["house_choices"]
    part_meta = pq.read_schema(next((out / "counts").glob("*.parquet"))).metadata[b"cardsim"]
    assert json.loads(part_meta)["rules"] == meta["rules"]
    assert analysis.run_info(out)["seed"] == 3
    # pandas reads a table folder directly
    counts = pd.read_parquet(out / "counts")
    assert set(counts.columns) >= {"event", "seat", "count", "n"}
    events = set(counts["event"].astype(str))
    assert {"instant_win_dragon", "instant_win_six_pairs"} <= events
    assert "instant_win_four_twos" not in events
    per_deal = pd.read_parquet(out / "per_deal")
    assert len(per_deal) == 20_000
    hands = per_deal[[f"hand_{s}" for s in range(4)]].to_numpy()
    assert (hands.sum(axis=1) == (1 << 52) - 1).all()  # disjoint and complete
    assert "dragon" in stdout and "95% CI" in stdout


def test_summary_json_records(tmp_path, capsys):
    deal(capsys, tmp_path / "run", n=10_000)
    code, stdout, _ = run(capsys, "summary", tmp_path / "run", "--json")
    assert code == 0
    records = json.loads(stdout)
    assert records and all(list(r)[:len(RATE_KEYS)] == RATE_KEYS for r in records)
    # games with exact values add them beside each rate (null where none exists)
    assert all(list(r)[len(RATE_KEYS):] in ([], ["exact_low", "exact_high", "z"]) for r in records)
    seats = {r["seat"] for r in records}
    assert seats == {0, 1, 2, 3, -1}  # -1: the table ("any seat") row
    four = {r["seat"]: r for r in records if r["event"] == "holds_three_spades"}
    assert four[-1]["count"] == four[-1]["n"] == 10_000
    assert all(r["ci_low"] <= r["rate"] <= r["ci_high"] for r in records)


def test_rules_file_and_set_precedence(tmp_path, capsys):
    rules = tmp_path / "house.toml"
    rules.write_text('players = 3\ncards_per_player = 17\ninstant_wins = ["dragon"]\n')
    deal(capsys, tmp_path / "run", "--rules", rules, "--set", "cards_per_player=13", n=5_000)
    meta = analysis.run_info(tmp_path / "run")
    assert meta["rules"]["players"] == 3 and meta["rules"]["cards_per_player"] == 13
    assert meta["rules"]["instant_wins"] == ["dragon"]


def test_no_out_prints_summary_only(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, stdout, _ = run(capsys, "deal", "tienlen", "--deals", "1e4", "--seed", 1, "--json")
    assert code == 0 and json.loads(stdout)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args, message", [
    (["deal", "poker", "--deals", 10], "unknown game"),
    (["deal", "tienlen", "--deals", 0], "positive"),
    (["deal", "tienlen", "--deals", -5], "positive"),
    (["deal", "tienlen", "--deals", "lots"], "positive integer"),
    (["deal", "tienlen", "--deals", 10, "--set", "colour=red"], "unknown switch"),
    (["deal", "tienlen", "--deals", 10, "--set", "players=5"], "players"),
    (["deal", "tienlen", "--deals", 10, "--set", "players=two"], "players"),
    (["deal", "tienlen", "--deals", 10, "--set", "cards_per_player=14"], "impossible"),
    (["deal", "tienlen", "--deals", 10, "--set", "instant_wins=dragon,royal_flush"], "instant_wins"),
    (["deal", "tienlen", "--deals", 10, "--set", "noequals"], "key=value"),
    (["deal", "tienlen", "--deals", 10, "--seed", "abc"], "--seed"),
    (["deal", "tienlen", "--deals", 10, "--seed", 2**64], "--seed"),
    (["deal", "tienlen", "--deals", 10, "--threads", 0], "--threads"),
    (["deal", "tienlen", "--deals", 10, "--chunk-size", 0], "chunk"),
    (["deal", "tienlen", "--deals", 10, "--per-deal"], "--out"),
    (["deal", "tienlen", "--deals", 10, "--rules", "missing.toml"], "rules file"),
    (["deal", "tienlen", "--deals", 10, "--frobnicate"], "No such option"),
    (["deal", "tienlen"], "--deals is required"),
    (["summary", "nowhere"], "not a cardsim dataset"),
    (["rules", "poker"], "unknown game"),
])
def test_bad_input_exits_2_with_one_line_and_writes_nothing(tmp_path, capsys, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    code, stdout, stderr = run(capsys, *args)
    assert code == 2
    assert stderr.count("\n") == 1 and stderr.startswith("cardsim: error:") and message in stderr
    assert "Traceback" not in stderr + stdout
    assert list(tmp_path.iterdir()) == []


def test_bad_rules_file_content(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("players = [\n")
    code, _, stderr = run(capsys, "deal", "tienlen", "--deals", 10, "--rules", bad)
    assert code == 2 and "cannot read rules file" in stderr
    bad.write_text("[loba]\nplayers = 3\n")
    code, _, stderr = run(capsys, "deal", "tienlen", "--deals", 10, "--rules", bad)
    assert code == 2 and "unexpected table" in stderr


def test_output_path_errors_leave_nothing(tmp_path, capsys):
    out = tmp_path / "run"
    deal(capsys, out, n=1000)
    before = sorted(os.listdir(tmp_path))
    code, _, stderr = run(capsys, "deal", "tienlen", "--deals", 10, "--out", out)
    assert code == 2 and "exists" in stderr
    code, _, stderr = run(capsys, "deal", "tienlen", "--deals", 10, "--out", tmp_path / "no" / "such" / "dir")
    assert code == 2 and "parent does not exist" in stderr
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.txt").write_text("do not delete")
    code, _, stderr = run(capsys, "deal", "tienlen", "--deals", 10, "--out", precious, "--overwrite")
    assert code == 2 and "not a cardsim dataset" in stderr
    assert (precious / "thesis.txt").exists()
    assert sorted(os.listdir(tmp_path)) == sorted(before + ["precious"])


def test_unwritable_parent(tmp_path, capsys):
    # A folder that cannot hold the output even for root: a path under a regular file.
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    code, _, stderr = run(capsys, "deal", "tienlen", "--deals", 10, "--out", plain / "run")
    assert code == 2 and len(stderr.strip().splitlines()) == 1, stderr
    assert plain.read_text() == "x" and sorted(os.listdir(tmp_path)) == ["plain.txt"]
    if os.geteuid() != 0:  # and a read-only folder, where permissions apply
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        code, _, stderr = run(capsys, "deal", "tienlen", "--deals", 10, "--out", locked / "run")
        assert code == 2 and "not writable" in stderr


def test_overwrite_replaces_dataset_atomically(tmp_path, capsys):
    out = tmp_path / "run"
    deal(capsys, out, n=1000, seed=1)
    deal(capsys, out, "--overwrite", n=2000, seed=2)
    assert analysis.run_info(out)["n"] == 2000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]  # no temporary leftovers


def test_interrupted_run_publishes_nothing_and_resumes(tmp_path, capsys, monkeypatch):
    import cardsim.simcore.tienlen.tasks as deal_task

    calls = {"n": 0}
    original = deal_task.DealTask.run_chunk

    def flaky(config, chunk_id):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return original(config, chunk_id)

    monkeypatch.setattr(deal_task.DealTask, "run_chunk", staticmethod(flaky))
    args = ["deal", "tienlen", "--deals", 3000, "--seed", 5, "--chunk-size", 1000]
    code, _, stderr = run(capsys, *args, "--out", tmp_path / "run")
    assert code == 130 and "1 of 3 chunks are saved" in stderr and "cardsim resume" in stderr
    assert not (tmp_path / "run").exists()  # nothing published
    assert sorted(p.name for p in (tmp_path / ".run.partial" / "counts").iterdir()) == ["part-000000.parquet"]
    # a new run refuses to clobber the unfinished one silently
    code, _, stderr = run(capsys, *args, "--out", tmp_path / "run")
    assert code == 2 and "unfinished run" in stderr
    code, _, stderr = run(capsys, "resume", tmp_path / "run", "--quiet")
    assert code == 0, stderr
    assert calls["n"] == 4  # 2 before the interrupt, 2 missing chunks after
    monkeypatch.undo()
    deal(capsys, tmp_path / "straight", n=3000, seed=5)
    pd.testing.assert_frame_equal(analysis.rates(analysis.load(tmp_path / "run")),
                                  analysis.rates(analysis.load(tmp_path / "straight")))


def test_interrupt_without_out_leaves_nothing(tmp_path, capsys, monkeypatch):
    import tempfile

    import cardsim.simcore.tienlen.tasks as deal_task

    def interrupted(config, chunk_id):
        raise KeyboardInterrupt

    monkeypatch.setattr(deal_task.DealTask, "run_chunk", staticmethod(interrupted))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    code, _, stderr = run(capsys, "deal", "tienlen", "--deals", 3000)
    assert code == 130 and "interrupted" in stderr
    assert list(tmp_path.iterdir()) == []


def test_games_and_rules_listing(capsys):
    code, stdout, _ = run(capsys, "games")
    assert code == 0 and "tienlen" in stdout
    rows = {line.split()[0]: line for line in stdout.splitlines()[1:]}
    for game in ("tienlen", "tusac", "loba", "continental"):  # what the README's command list says
        assert "deal, play, replay, ladder, balance, tune, experiment" in rows[game]  # tune races balance figures
        assert ("exact" in rows[game]) == (game in ("tienlen", "tusac"))
    for command, usage in (("replay", "[OPTIONS] [GAME]"), ("report", "[OPTIONS] PATHS..."),  # replay --record: no GAME
                           ("compile", "[OPTIONS] [GAMES]...")):
        code, stdout, _ = run(capsys, command, "--help")
        assert code == 0 and stdout.splitlines()[0] == f"Usage: cardsim {command} {usage}"
    code, stdout, _ = run(capsys, "rules", "tienlen")
    assert code == 0
    for switch in ("players", "cards_per_player", "instant_wins", "chop_rules", "scoring"):
        assert switch in stdout
    code, stdout, _ = run(capsys, "--help")
    assert code == 0 and "deal" in stdout and "summary" in stdout


@pytest.mark.parametrize("game, extra, event", [
    ("tusac", [], "weak_hand"),
    ("tusac", ["--set", "players=3", "--per-deal"], "dealt_quadruple"),
    ("loba", ["--draws", 3], "contract_r1_2T_after_3"),
    ("continental", ["--set", "jokers_per_deck=2"], "contract_EEE"),
])
def test_every_game_deals_through_the_cli(tmp_path, capsys, game, extra, event):
    code, _, stderr = run(capsys, "deal", game, "--deals", 3000, "--seed", 2, "--out", tmp_path / "run",
                          "--quiet", *extra)
    assert code == 0, stderr
    rates = analysis.rates(analysis.load(tmp_path / "run"))
    assert event in set(rates["event"]) and (rates["n"] == 3000).all()
    code, stdout, _ = run(capsys, "rules", game)
    assert code == 0 and "players" in stdout


def test_draws_option_only_for_contract_games(capsys):
    code, _, stderr = run(capsys, "deal", "tienlen", "--deals", 10, "--draws", 2)
    assert code == 2 and "draws" in stderr


def test_internal_errors_are_one_line(tmp_path, capsys, monkeypatch):
    import cardsim.simcore.tienlen.tasks as deal_task

    def broken(config, chunk_id):
        raise RuntimeError("kernel exploded")

    monkeypatch.setattr(deal_task.DealTask, "run_chunk", staticmethod(broken))
    code, _, stderr = run(capsys, "deal", "tienlen", "--deals", 10, "--out", tmp_path / "run")
    assert code == 1 and stderr.count("\n") == 1 and "internal error: RuntimeError: kernel exploded" in stderr
    assert not (tmp_path / "run").exists()
