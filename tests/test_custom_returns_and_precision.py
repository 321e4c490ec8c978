"""Custom events and metrics that return no bool or number, and --precision/--target/--max
that ask for nothing or cannot be met (issue 34).

Bad input exits 2 with one line ``cardsim: error: ...`` and writes nothing.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from cli_helpers import run
from cardsim.simcore.primitives.intervals import Z95
from cardsim.simcore.run import precision, runner


def _one_line_error(code: int, err: str, *words: str) -> None:
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("cardsim: error: "), err
    for word in words:
        assert word in lines[0], err


# ----------------------------------------------------------------------------- finding 6: custom events


@pytest.mark.parametrize("game,body,returned", [
    ("tienlen", "def lucky(hand):\n    return 3\n", "int"),
    ("tusac", "def lucky(hand):\n    return 3\n", "int"),
    ("tusac", "def lucky(hand):\n    return hand[0]\n", "int8"),  # a count, not a test of it
    ("tienlen", "def lucky(hand):\n    return (hand >> 48) & 15\n", "int64"),
    ("tienlen", "def lucky(hand):\n    if hand > 0:\n        return True\n", "Optional"),
])
def test_a_custom_event_that_returns_no_bool_is_refused_naming_function_and_type(game, body, returned,
                                                                                  tmp_path, capsys):
    path = tmp_path / "ev.py"
    path.write_text(body)
    code, out, err = run(capsys, "deal", game, "--deals", 1000, "--seed", 1, "--event", f"{path}:lucky",
                         "--out", tmp_path / "o")
    _one_line_error(code, err, "ev.py:lucky", "must return a bool", returned)
    assert out == "" and not (tmp_path / "o").exists()


def test_a_custom_event_returning_a_numpy_or_python_bool_is_counted(tmp_path, capsys):
    path = tmp_path / "ev.py"
    path.write_text("import numpy as np\n\ndef always(hand):\n    return np.bool_(True)\n\n"
                    "def never(hand):\n    return False\n")
    code, out, err = run(capsys, "deal", "tienlen", "--deals", 1000, "--seed", 1, "--json", "--quiet",
                         "--event", f"{path}:always", "--event", f"{path}:never")
    assert code == 0, err
    rows = {(r["event"], str(r["seat"])): r["count"] for r in json.loads(out)}  # seat -1: the table
    assert rows[("always", "0")] == rows[("always", "-1")] == 1000
    assert rows[("never", "0")] == rows[("never", "-1")] == 0


# ----------------------------------------------------------------------------- finding 6: custom metrics


@pytest.mark.parametrize("body,returned", [
    ("def m(row):\n    return '3'\n", "returns str"),  # float('3') would read it as 3
    ("def m(row):\n    return 1 + 2j\n", "returns complex"),  # float() would drop the 2j
    ("def m(row):\n    return None\n", "returns NoneType"),
    ("import numpy as np\ndef m(row):\n    return np.datetime64('2020-01-01')\n", "returns datetime64"),
    ("def m(frame):\n    return frame['tricks'].astype(str).to_numpy().astype('U')\n", "returns str"),
    ("def m(row):\n    return [1, 2]\n", "array of shape (2,) per game"),
])
def test_a_custom_metric_that_returns_no_number_is_refused(body, returned, tmp_path, capsys):
    path = tmp_path / "metric.py"
    path.write_text(body)
    code, out, err = run(capsys, "play", "tienlen", "--games", 20, "--seed", 1, "--metric", f"{path}:m")
    _one_line_error(code, err, "metric.py:m", "must return a number or bool per game", returned)
    assert out == ""


def test_number_and_bool_metrics_are_still_summarised(tmp_path, capsys):
    path = tmp_path / "metric.py"
    path.write_text("import numpy as np\n\ndef long(row):\n    return row['tricks'] > 5\n\n"
                    "def tricks(frame):\n    return frame['tricks'].to_numpy(np.int16)\n")
    code, out, err = run(capsys, "play", "tienlen", "--games", 20, "--seed", 1, "--json", "--quiet",
                         "--metric", f"{path}:long", "--metric", f"{path}:tricks")
    assert code == 0, err
    metrics = {r["metric"] for r in json.loads(out)}
    assert {"long", "tricks"} <= metrics


# ----------------------------------------------------------------------------- finding 8: --precision


@pytest.mark.parametrize("flags", [["--max", "1000"], ["--target", "four_twos"]])
def test_precision_flags_without_precision_or_n_are_refused(flags, capsys):
    for command in (["deal", "tienlen"], ["play", "tienlen"]):
        code, _, err = run(capsys, *command, "--seed", 1, *flags)
        _one_line_error(code, err, "--precision")


@pytest.fixture
def no_chunk(monkeypatch):
    """Fail the test if a chunk runs: the refusal must come before any work."""
    def refuse(*args, **kwargs):
        raise AssertionError("a chunk ran before --precision was checked")
    monkeypatch.setattr(runner, "run_chunk", refuse)


@pytest.mark.parametrize("eps,words", [(2, "below 0.5"), (1, "below 0.5"), (0.5, "below 0.5"),
                                       (0, "positive"), (-0.01, "positive"), ("inf", "positive"),
                                       ("nan", "positive")])
@pytest.mark.parametrize("command", [["deal", "tienlen"], ["deal", "tusac", "--target", "weak_hand@any"],
                                     ["play", "tienlen"], ["play", "tienlen", "--target", "win_seat_1"]])
def test_a_precision_that_is_no_half_width_of_a_rate_is_refused_before_running(eps, words, command, no_chunk,
                                                                                tmp_path, capsys):
    code, out, err = run(capsys, *command, "--precision", eps, "--seed", 1, "--out", tmp_path / "o")
    _one_line_error(code, err, "--precision", words)
    assert out == "" and not (tmp_path / "o").exists()


def test_a_large_precision_is_refused_for_a_play_rate_and_kept_for_a_mean(tmp_path, capsys):
    """A play metric shows whether it is a rate only in its values (the first chunk)."""
    common = ["play", "tienlen", "--seed", 2, "--max", 2000, "--chunk-size", 1000, "--quiet"]
    code, _, err = run(capsys, *common, "--precision", 0.7, "--target", "instant_win", "--out", tmp_path / "r")
    _one_line_error(code, err, "--precision 0.7", "below 0.5")
    assert not (tmp_path / "r").exists()
    code, _, err = run(capsys, *common, "--precision", 5, "--target", "points_seat_0", "--out", tmp_path / "m")
    assert code == 0, err
    report = json.loads((tmp_path / "m" / "run.json").read_text())["precision"]
    assert report["targets"] == ["points_seat_0"] and report["half_width"]["points_seat_0"] <= 5


def test_an_event_target_without_a_seat_targets_every_seat(tmp_path, capsys):
    common = ["deal", "tienlen", "--precision", 0.001, "--seed", 3, "--chunk-size", 20000, "--quiet"]
    code, _, err = run(capsys, *common, "--target", "four_twos", "--out", tmp_path / "bare")
    assert code == 0, err
    bare = json.loads((tmp_path / "bare" / "run.json").read_text())
    seats = [f"four_twos@{s}" for s in range(4)]
    report = bare["precision"]
    assert report["targets"] == seats and report["reached"]
    assert all(report["half_width"][t] <= 0.001 for t in seats)
    code, _, err = run(capsys, *common, *sum((["--target", t] for t in seats), []), "--out", tmp_path / "seats")
    assert code == 0, err
    assert json.loads((tmp_path / "seats" / "run.json").read_text())["n"] == bare["n"]


def test_expand_targets_keeps_named_rows_and_reports_unknown_names():
    known = ["four_twos@0", "four_twos@1", "four_twos@any", "dragon@0", "dragon@1", "dragon@any"]
    assert precision.expand_targets(["four_twos"], known) == ["four_twos@0", "four_twos@1"]
    assert precision.expand_targets(["dragon@any", "four_twos@1", "four_twos"], known) == \
        ["dragon@any", "four_twos@1", "four_twos@0"]
    assert precision.expand_targets(["nope", "four"], known) == ["nope", "four"]  # no prefix matching
    assert precision.expand_targets(["win_seat_0"], ["win_seat_0", "win_seat_1"]) == ["win_seat_0"]


def test_a_play_metric_that_looked_like_a_rate_keeps_its_variance():
    """A metric of only 0/1 in the first chunk starts as a rate; when larger values come,
    its variance must count the first chunk's squares too."""
    chunks = [np.array([0, 1, 1, 0, 1, 0, 0, 0.0]), np.array([2, 0, 3, 1, 0, 0, 0, 1.0])]
    stats = precision._Stats()
    for values in chunks:
        stats.add_values("steals", values)
    values = np.concatenate(chunks)
    expected = Z95 * values.std(ddof=1) / math.sqrt(values.size)
    assert stats.half_width("steals") == pytest.approx(expected, rel=1e-12)


def test_a_long_play_run_is_split_into_chunks_for_progress():
    """Issue 34 item 10: a long run that fits in one default chunk still shows progress."""
    from cardsim.api import PROGRESS_CHUNKS, progress_chunk_size

    search = {"policies": ["search:64", "heuristic", "heuristic", "heuristic"]}
    assert progress_chunk_size("loba", "play", 300, 16, search) == 10  # 30 chunks, each a few seconds
    assert progress_chunk_size("tienlen", "play", 20_000, 1 << 17, {"policies": ["heuristic"] * 4}) == 1 << 17
    assert progress_chunk_size("tienlen", "play", 8_000_000, 1 << 17, {}) == 1 << 17  # already 62 chunks
    assert progress_chunk_size("tienlen", "play", 2_000_000, 1 << 17, {}) == -(-2_000_000 // PROGRESS_CHUNKS)
    assert progress_chunk_size("tienlen", "deal", 10, 1 << 22, {}) == 1 << 22  # deal counts: one row per chunk
