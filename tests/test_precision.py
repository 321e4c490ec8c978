"""--precision: stop on whole chunks in index order; reproducible; recorded in run.json."""
from __future__ import annotations

import json
import math

import pandas as pd

from cli_helpers import run


def _run(capsys, out, *args):
    code, stdout, err = run(capsys, *args, "--out", out, "--quiet")
    assert code == 0, err
    return json.loads((out / "run.json").read_text()), err


def test_play_precision_is_reproducible_across_threads(tmp_path, capsys):
    args = ["play", "tienlen", "--precision", 0.006, "--target", "win_seat_0", "--seed", 9, "--chunk-size", 5000]
    a, err = _run(capsys, tmp_path / "a", *args, "--threads", 1)
    b, _ = _run(capsys, tmp_path / "b", *args, "--threads", 2)
    assert a["n"] == b["n"] and a["n"] % 5000 == 0
    report = a["precision"]
    assert report["reached"] and report["half_width"]["win_seat_0"] <= 0.006
    # the stopping point is the first chunk where the target was reached: one chunk less was not enough
    p = report["estimate"]["win_seat_0"]
    assert 1.96 * math.sqrt(p * (1 - p) / (a["n"] - 5000)) > 0.006 * 0.97
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "a" / "games").sort_values("game").reset_index(drop=True),
                                  pd.read_parquet(tmp_path / "b" / "games").sort_values("game").reset_index(drop=True))
    assert "precision 0.006 reached" in err


def test_deal_precision_matches_a_plain_run_of_the_same_size(tmp_path, capsys):
    meta, _ = _run(capsys, tmp_path / "p", "deal", "tusac", "--precision", 0.003, "--target", "weak_hand@any",
                   "--seed", 4, "--chunk-size", 20000)
    n = meta["n"]
    plain, _ = _run(capsys, tmp_path / "q", "deal", "tusac", "--deals", n, "--seed", 4, "--chunk-size", 20000)
    a = pd.read_parquet(tmp_path / "p" / "counts").groupby(["event", "seat"], observed=True)["count"].sum()
    b = pd.read_parquet(tmp_path / "q" / "counts").groupby(["event", "seat"], observed=True)["count"].sum()
    pd.testing.assert_series_equal(a, b)
    code, out, err = run(capsys, "verify", tmp_path / "p")
    assert code == 0, err


def test_precision_cap_and_errors(tmp_path, capsys):
    meta, err = _run(capsys, tmp_path / "c", "play", "tienlen", "--precision", 0.0001, "--max", 8000,
                     "--chunk-size", 4000, "--seed", 1)
    assert meta["n"] == 8000 and not meta["precision"]["reached"] and "NOT reached" in err
    for args, message in ((["--precision", 0.01, "--target", "nope"], "unknown --target"),
                          (["--precision", -1], "positive"),
                          (["--precision", 0.01, "--games", 100], "--max"),
                          ([], "--games is required")):
        code, _, err = run(capsys, "play", "tienlen", *args, "--max", 2000, "--chunk-size", 1000) if "--games" not in args \
            else run(capsys, "play", "tienlen", *args)
        assert code == 2 and message in err, err
