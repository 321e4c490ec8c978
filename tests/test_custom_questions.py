"""Users' own questions: custom deal events (Numba) and custom game metrics, via the CLI."""
from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cardsim.simcore.framework import custom_events
from cardsim.simcore.tienlen.rules import TienLenRules
from cli_helpers import run

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _deal(capsys, tmp_path, game, n, seed, *events):
    out = tmp_path / f"d{seed}"
    args = ["deal", game, "--deals", n, "--seed", seed, "--out", out, "--quiet"]
    for e in events:
        args += ["--event", e]
    code, _, err = run(capsys, *args)
    assert code == 0, err
    code, stdout, err = run(capsys, "summary", out, "--json")
    return pd.DataFrame(json.loads(stdout)), out


def _z(count, n, p):
    p = float(p)
    return (count - n * p) / math.sqrt(n * p * (1 - p))


def p_two_quads(hand=13):
    """Exact P(a Tiến Lên hand holds >= 2 four-of-a-kinds): DP over ranks (cards, quads)."""
    ways = {(0, 0): 1}
    for _ in range(13):
        nxt = {}
        for (c, q), w in ways.items():
            for k in range(0, min(4, hand - c) + 1):
                key = (c + k, min(2, q + (k == 4)))
                nxt[key] = nxt.get(key, 0) + w * math.comb(4, k)
        ways = nxt
    return Fraction(ways.get((hand, 2), 0), math.comb(52, hand))


def p_three_generals(hand):
    """Exact P(a Tứ Sắc hand holds >= 3 copies of some colour's General)."""
    good = 0
    for ks in np.ndindex(5, 5, 5, 5):
        if max(ks) >= 3 and sum(ks) <= hand:
            w = math.prod(math.comb(4, k) for k in ks)
            good += w * math.comb(112 - 16, hand - sum(ks))
    return Fraction(good, math.comb(112, hand))


def test_custom_tienlen_event_matches_exact_value(tmp_path, capsys):
    table, out = _deal(capsys, tmp_path, "tienlen", 1_000_000, 5, f"{EXAMPLES}/deal_events.py:two_bombs")
    rows = table[table["event"] == "two_bombs"].set_index("seat")
    p = p_two_quads()
    for seat in range(4):
        assert abs(_z(rows.loc[seat, "count"], 1_000_000, p)) < 4
    assert abs(_z(rows[rows.index >= 0]["count"].sum(), 4_000_000, p)) < 4
    # the table row (seat -1) counts deals with at least one such seat
    assert rows.loc[-1, "count"] <= rows[rows.index >= 0]["count"].sum()
    meta = json.loads((out / "run.json").read_text())
    assert meta["options"]["events"][0].endswith("deal_events.py:two_bombs")


def test_custom_tusac_event_matches_exact_value(tmp_path, capsys):
    table, _ = _deal(capsys, tmp_path, "tusac", 200_000, 6, f"{EXAMPLES}/deal_events.py:three_generals_one_colour")
    rows = table[table["event"] == "three_generals_one_colour"].set_index("seat")
    for seat, size in ((0, 21), (1, 20), (2, 20), (3, 20)):
        assert abs(_z(rows.loc[seat, "count"], 200_000, p_three_generals(size))) < 4
    # and the test can fail: seat 0's 21 cards are far from the 20-card value
    assert abs(_z(rows.loc[0, "count"], 200_000, p_three_generals(20))) > 4


def test_fused_and_materialised_paths_agree():
    rules = TienLenRules()
    ref = f"{EXAMPLES}/deal_events.py:two_bombs"
    fused = custom_events.count_events("tienlen", [ref], 9, 1000, 50_000, rules)
    spec = custom_events.game_hands("tienlen")
    hands = spec.hands(9, 1000, 50_000, rules)
    kernel = custom_events._hits_kernel(custom_events.compile_event("tienlen", ref), hands.ndim)
    hits = kernel(hands)
    assert fused[0, :-1].tolist() == hits.sum(axis=0).tolist() and fused[0, -1] == hits.any(axis=1).sum()


def test_custom_event_is_identical_across_chunks_and_threads(tmp_path, capsys):
    ev = f"{EXAMPLES}/deal_events.py:two_bombs"
    for name, extra in (("a", ["--threads", 1, "--chunk-size", 7000]), ("b", ["--threads", 2])):
        code, _, err = run(capsys, "deal", "tienlen", "--deals", 20_000, "--seed", 4, "--event", ev,
                           "--out", tmp_path / name, "--quiet", *extra)
        assert code == 0, err
    a = pd.read_parquet(tmp_path / "a" / "counts").groupby(["event", "seat"], observed=True)["count"].sum()
    b = pd.read_parquet(tmp_path / "b" / "counts").groupby(["event", "seat"], observed=True)["count"].sum()
    pd.testing.assert_series_equal(a, b)


@pytest.mark.parametrize("body,message", [
    ("def ev(hand):\n    return hand.no_such_attribute > 0\n", "does not compile"),
    ("def ev(hand):\n    return hand * 1.5\n", "must return a bool"),
    ("def ev(hand):\n    return 3\n", "must return a bool"),  # an int counted every deal as a hit
    ("def ev(hand):\n    return hand & 1\n", "must return a bool"),
    ("import nosuchmodule_x\ndef ev(hand):\n    return True\n", "fails to import"),
])
def test_bad_custom_events_exit_2(body, message, tmp_path, capsys):
    path = tmp_path / "ev.py"
    path.write_text(body)
    code, _, err = run(capsys, "deal", "tienlen", "--deals", 100, "--event", f"{path}:ev", "--out", tmp_path / "o")
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("ref,message", [("nofile.py:ev", "file not found"), ("EX:nope", "no function"),
                                         ("justtext", "PATH.py:FUNCTION")])
def test_missing_event_or_metric_exits_2(ref, message, tmp_path, capsys):
    ref = ref.replace("EX", str(EXAMPLES / "deal_events.py"))
    code, _, err = run(capsys, "deal", "tienlen", "--deals", 100, "--event", ref)
    assert code == 2 and message in err, err
    code, _, err = run(capsys, "play", "tienlen", "--games", 10, "--metric", ref.replace("deal_events", "long_game"))
    assert code == 2 and message in err, err
    code, _, err = run(capsys, "deal", "loba", "--deals", 10, "--event", f"{EXAMPLES}/deal_events.py:two_bombs")
    assert code == 2, err


def test_custom_metric_in_summary_and_experiment(tmp_path, capsys):
    out = tmp_path / "p"
    code, stdout, err = run(capsys, "play", "tienlen", "--games", 3000, "--seed", 2, "--out", out, "--json",
                            "--metric", f"{EXAMPLES}/long_game.py:long_game",
                            "--metric", f"{EXAMPLES}/long_game.py:plays_per_trick")
    assert code == 0, err
    table = pd.DataFrame(json.loads(stdout)).set_index("metric")
    games = pd.read_parquet(out / "games")
    assert table.loc["long_game", "value"] == pytest.approx((games["tricks"] > 12).mean())
    per_trick = np.where(games["tricks"] > 0, games["plays"] / games["tricks"].where(games["tricks"] > 0, 1), 0.0)
    assert table.loc["plays_per_trick", "value"] == pytest.approx(per_trick.mean())
    spec = tmp_path / "e.toml"
    spec.write_text(f'game = "tienlen"\nn = 2000\nseed = 1\ncustom_metrics = ["{EXAMPLES}/long_game.py:long_game"]\n'
                    '[[arms]]\nname = "southern"\nrules = {{ chop_rules = "southern" }}\n'.replace("{{", "{").replace("}}", "}"))
    code, stdout, err = run(capsys, "experiment", spec, "--json", "--quiet")
    assert code == 0, err
    assert "long_game" in set(pd.DataFrame(json.loads(stdout))["metric"])


def test_custom_event_through_an_experiment(tmp_path, capsys):
    spec = tmp_path / "e.toml"
    spec.write_text(f'game = "tienlen"\ntask = "deal"\nn = 60000\nseed = 8\n'
                    f'custom_events = ["{EXAMPLES}/deal_events.py:two_bombs"]\nmetrics = ["two_bombs", "two_bombs_seat_0"]\n'
                    '[[arms]]\nname = "p3"\nrules = { players = 3, cards_per_player = 17 }\n')
    code, out, err = run(capsys, "experiment", spec, "--json", "--quiet")
    assert code == 0, err
    table = pd.DataFrame(json.loads(out)).set_index("metric")
    # the baseline arm is the plain default deal: the same deals as `cardsim deal` with the same seed
    counts, _ = _deal(capsys, tmp_path, "tienlen", 60000, 8, f"{EXAMPLES}/deal_events.py:two_bombs")
    rows = counts[counts["event"] == "two_bombs"].set_index("seat")
    assert table.loc["two_bombs", "baseline"] == pytest.approx(rows.loc[-1, "count"] / 60000)
    assert table.loc["two_bombs_seat_0", "baseline"] == pytest.approx(rows.loc[0, "count"] / 60000)


def test_an_event_written_for_another_games_hands_is_refused(tmp_path, capsys):
    # issue 50 item 14: a Tiến Lên bit-mask function given Tứ Sắc's count arrays compiled
    # (element by element) and counted 0 with exit 0
    ref = f"{EXAMPLES}/deal_events.py:two_bombs"
    code, _, err = run(capsys, "deal", "tusac", "--deals", 100, "--event", ref, "--out", tmp_path / "o")
    assert code == 2 and "another game" in err and "int8[28]" in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "o").exists()
    # arrays the function makes itself are fine; so is Tứ Sắc's own example
    path = tmp_path / "ev.py"
    path.write_text("import numpy as np\n\ndef ev(counts):\n    seen = np.zeros(4, np.int64)\n"
                    "    for c in range(4):\n        seen[c] = counts[7 * c]\n    return seen.sum() >= 3\n")
    for ref in (f"{path}:ev", f"{EXAMPLES}/deal_events.py:three_generals_one_colour"):
        code, _, err = run(capsys, "deal", "tusac", "--deals", 100, "--seed", 1, "--event", ref, "--quiet")
        assert code == 0, err
