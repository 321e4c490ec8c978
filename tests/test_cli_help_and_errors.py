"""The CLI's help, version, errors, seeds and estimates as a new user meets them (issue 12)."""
from __future__ import annotations

import json

import pytest

from cli_helpers import run


def test_version_and_short_help(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.startswith("cardsim ")
    code, out, _ = run(capsys, "-h")
    commands = out.split("Commands:")[1]
    assert code == 0 and "ladder" in commands
    assert not any(line.rstrip().endswith("...") for line in commands.splitlines())  # descriptions not cut
    for command in ("deal", "play", "replay", "ladder", "experiment", "exact", "report"):
        code, out, _ = run(capsys, command, "-h")
        assert code == 0, command
        for internal in ("<str>", "<int>", "<list[str]>", "<path>", "{game}"):
            assert internal not in out, (command, internal)


@pytest.mark.parametrize("game", ["tienlen", "tusac", "loba", "continental"])
def test_rules_fit_in_80_columns(game, capsys):
    code, out, _ = run(capsys, "rules", game)
    assert code == 0 and "docs/rules/" in out
    assert max(len(line) for line in out.splitlines()) <= 80


def test_drawn_seed_is_always_printed(capsys):
    code, out, err = run(capsys, "deal", "tienlen", "--deals", 1000, "--json", "--quiet")
    assert code == 0 and json.loads(out)
    assert "cardsim: seed " in err and "--seed" in err


def test_replay_index_and_contradicting_flags(tmp_path, capsys):
    code, _, err = run(capsys, "play", "tienlen", "--games", 20, "--seed", 3, "--out", tmp_path / "r", "--quiet")
    assert code == 0, err
    code, new, _ = run(capsys, "replay", "tienlen", "--run", tmp_path / "r", "--index", 5)
    code2, old, _ = run(capsys, "replay", "tienlen", "--run", tmp_path / "r", "--game", 5)
    assert code == code2 == 0 and new == old
    for extra in (["--seed", 4], ["--policy", "random"], ["--set", "players=3"]):
        code, _, err = run(capsys, "replay", "tienlen", "--run", tmp_path / "r", "--index", 5, *extra)
        assert code == 2 and "--run takes" in err, err
    for index in (20, 2**63, -1):
        code, _, err = run(capsys, "replay", "tienlen", "--run", tmp_path / "r", "--index", index)
        assert code == 2 and len(err.strip().splitlines()) == 1, err


def test_runs_that_cannot_finish_are_refused_with_an_estimate(tmp_path, capsys):
    for args in (["deal", "tienlen", "--deals", "1e30"], ["play", "loba", "--games", "1e9"]):
        code, _, err = run(capsys, *args, "--seed", 1, "--out", tmp_path / "x")
        assert code == 2 and "would take about" in err and "--yes" in err, err
        assert not (tmp_path / "x").exists()


def test_rummy_play_without_out_prints_the_summary(capsys):
    code, out, err = run(capsys, "play", "continental", "--games", 3, "--seed", 1, "--quiet")
    assert code == 0, err
    assert "match_win_rate" in out


def test_experiment_metric_typos_fail_before_running(tmp_path, capsys):
    spec = tmp_path / "e.toml"
    spec.write_text('game = "tienlen"\nn = 100000000\nmetrics = ["win_seat_9"]\n'
                    '[[arms]]\nname = "s"\nrules = { chop_rules = "southern" }\n')
    code, _, err = run(capsys, "experiment", spec, "--out", tmp_path / "e")
    assert code == 2 and "win_seat_9" in err and "win_seat_0" in err
    assert not (tmp_path / "e").exists()


@pytest.mark.parametrize("count", ["1e400", "1e308M"])
def test_counts_beyond_any_float_are_a_user_error(count, capsys):
    code, _, err = run(capsys, "deal", "tienlen", "--deals", count)
    assert code == 2 and err.startswith("cardsim: error: --deals is far too large")
    assert len(err.strip().splitlines()) == 1


def test_report_refuses_paths_it_cannot_write(tmp_path, capsys):
    run(capsys, "deal", "tusac", "--deals", 500, "--seed", 1, "--out", tmp_path / "d", "--quiet")
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    for out, says in ((blocker / "r.html", "a-file is a file, not a folder"),
                      (blocker / "sub" / "r.md", "a-file is a file, not a folder"),
                      (tmp_path / "missing" / "r.html", "does not exist: "), (tmp_path / "m" / "r.html", "mkdir -p"),
                      (tmp_path / "d", "is a folder"), (tmp_path / "r.pdf", "must end in .html or .md")):
        code, _, err = run(capsys, "report", tmp_path / "d", "--out", out)
        assert code == 2 and says in err and len(err.strip().splitlines()) == 1, (out, err)
    assert blocker.read_text() == "x" and not (tmp_path / "r.pdf").exists()


def test_a_training_that_cannot_finish_is_refused_with_an_estimate(tmp_path, capsys):
    # issue 50 item 13: `train --games 1e30` trained forever; refused like play, unless --yes
    code, _, err = run(capsys, "train", "tienlen", "--games", "1e30", "--seed", 1, "--out", tmp_path / "m.txt")
    assert code == 2 and "would take about" in err and "--yes" in err and len(err.strip().splitlines()) == 1, err
    assert "1,000,000,000,000,000,000,000,000,000,000 games" in err  # exact: no float noise in the count
    assert not (tmp_path / "m.txt").exists()


def test_counts_are_exact_integers():
    from cardsim.api import parse_count

    assert parse_count("1e30", "--games") == 10 ** 30  # not 1000000000000000019884624838656
    assert parse_count("1.5k", "--games") == 1500 and parse_count("2M", "--games") == 2 * 10 ** 6
    assert parse_count("12_345", "--games") == 12345


def test_a_seat_named_twice_in_policy_is_refused(capsys):
    code, _, err = run(capsys, "play", "tienlen", "--games", 10, "--seed", 1, "--policy", "0=random,0=greedy")
    assert code == 2 and "seat 0" in err and "twice" in err and len(err.strip().splitlines()) == 1, err
