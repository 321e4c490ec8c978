"""`cardsim exact`: exact deal probabilities, checked against closed forms and simulation."""
from __future__ import annotations

import json
import math
from fractions import Fraction

import pandas as pd
import pytest

from cardsim.simcore.tienlen import exact as tl
from cardsim.simcore.tienlen.rules import TienLenRules
from cardsim.simcore.tusac import exact as ts
from cardsim.simcore.tusac.rules import TuSacRules
from cli_helpers import run


def test_tienlen_dp_agrees_with_closed_forms():
    assert tl.p_hand("four_twos", 13) == Fraction(math.comb(48, 9), math.comb(52, 13))
    dragon = sum(math.comb(12, j) * (-1) ** j * math.comb(52 - 4 * j, 13) for j in range(13))
    assert tl.p_hand("dragon", 13) == Fraction(dragon, math.comb(52, 13))
    for j in range(5):
        assert tl.p_hand(f"twos_{j}", 13) == Fraction(math.comb(4, j) * math.comb(48, 13 - j), math.comb(52, 13))
    assert tl.p_two_hands("four_twos", 13) == 0
    # every deal shows some number of 2s at each seat: the "any seat" rows cover it
    assert sum(tl.p_hand(f"twos_{j}", 13) for j in range(5)) == 1
    # P(some seat has exactly 4 twos) = 4 P(seat 0 has them): the events are disjoint
    assert tl.p_any_seat_twos(4, 4, 13) == 4 * tl.p_hand("four_twos", 13)
    # with 2 players, at least one of two 13-card hands holds 0 twos unless all 4 are dealt to them
    assert tl.p_any_seat_twos(0, 2, 13) > tl.p_hand("twos_0", 13)


def test_tusac_generating_functions_agree_with_hypergeometric():
    for size in (20, 21):
        p = ts.seat_probabilities(size)
        assert sum(p[f"generals_{k}"] for k in range(8)) + p["generals_8plus"] == 1
        assert p["has_general"] == 1 - Fraction(math.comb(96, size), math.comb(112, size))
        assert p["dealt_triple_or_quadruple"] <= p["dealt_triple"] + p["dealt_quadruple"]


def _summary(capsys, tmp_path, game, n, seed, *sets):
    out = tmp_path / f"{game}-{seed}"
    code, _, err = run(capsys, "deal", game, "--deals", n, "--seed", seed, "--out", out, "--quiet", *sets)
    assert code == 0, err
    code, stdout, err = run(capsys, "summary", out, "--json")
    assert code == 0, err
    return pd.DataFrame(json.loads(stdout))


@pytest.mark.parametrize("game,n,sets", [
    ("tienlen", 400_000, ()),
    ("tienlen", 200_000, ("--set", "players=2")),
    ("tusac", 200_000, ()),
    ("tusac", 150_000, ("--set", "players=2")),
])
def test_simulated_rates_agree_with_exact_values(game, n, sets, tmp_path, capsys):
    table = _summary(capsys, tmp_path, game, n, 11, *sets)
    checked = table.dropna(subset=["z"])
    assert len(checked) >= 10
    bad = checked[checked["z"].abs() >= 4]
    assert bad.empty, bad[["event", "seat", "rate", "exact_low", "exact_high", "z"]].to_string()


def test_a_wrong_exact_value_would_be_caught(tmp_path, capsys):
    """The comparison can fail: 12-card hands are far from the 13-card values."""
    table = _summary(capsys, tmp_path, "tienlen", 400_000, 12)
    wrong = {(e, s): float(lo) for e, s, lo, hi in tl.exact_table(TienLenRules.from_settings({"cards_per_player": 12}))}
    row = table[(table["event"] == "bomb_double_sequence") & (table["seat"] == 0)].iloc[0]
    p = wrong[("bomb_double_sequence", 0)]
    assert abs(row["rate"] - p) / math.sqrt(p * (1 - p) / row["n"]) > 4


def test_exact_command(capsys):
    code, out, err = run(capsys, "exact", "tusac", "--set", "players=2", "--json")
    assert code == 0, err
    rows = pd.DataFrame(json.loads(out))
    weak = rows[(rows["event"] == "weak_hand") & (rows["seat"] == -1)].iloc[0]  # -1: any seat
    expected = sum(ts.seat_probabilities(s)["weak_hand"] for s in (21, 20)) - ts.p_both_weak(21, 20)
    assert weak["exact_low"] == weak["exact_high"] == pytest.approx(float(expected), rel=1e-12)
    code, out, _ = run(capsys, "exact", "tienlen", "--set", "players=3", "--set", "cards_per_player=17")
    assert code == 0 and "holds_three_spades" in out and "bracket" not in out  # every table row exact
    code, _, err = run(capsys, "exact", "tienlen", "--set", "players=5")
    assert code == 2 and err.startswith("cardsim: error:")
    assert TuSacRules().players == 4


def test_k_hand_programme_matches_closed_forms():
    deals = Fraction(math.factorial(52), math.factorial(13) ** 4)  # ordered 13-card hands of a full deal
    # four dragons (a card of each rank 3..A in every hand): every rank gives each hand one card
    assert tl.p_k_hands("dragon", 13, 4) == Fraction(math.factorial(4) ** 13) / deals
    # three or four given hands with exactly one 2 each: the 2s go one per hand (the 4th to the rest)
    one_two = Fraction(24 * math.factorial(48), math.factorial(12) ** 4) / deals
    assert tl.p_k_hands("twos_1", 13, 3) == tl.p_k_hands("twos_1", 13, 4) == one_two
    assert tl.p_k_hands("four_twos", 13, 3) == 0  # no two hands share the four 2s
    for event in ("six_pairs", "bomb_any", "dragon"):  # the one- and two-hand programmes agree
        assert tl.p_k_hands(event, 13, 1) == tl.p_hand(event, 13)
        assert tl.p_k_hands(event, 13, 2) == tl.p_two_hands(event, 13)


def test_exact_table_rows_lie_in_the_old_brackets_and_match_simulation(tmp_path, capsys):
    rules = TienLenRules.from_settings({"players": 3})
    quick = {(e, s): (lo, hi) for e, s, lo, hi in tl.exact_table(rules)}
    full = {(e, s): (lo, hi) for e, s, lo, hi in tl.exact_table_full(rules)}
    brackets = [key for key, (lo, hi) in quick.items() if lo != hi]
    assert brackets, "3 players: some table rows are brackets"
    for key in brackets:
        lo, hi = quick[key]
        assert full[key][0] == full[key][1] and lo <= full[key][0] <= hi, key
    assert all(lo == hi for (e, s), (lo, hi) in full.items() if s == "any")
    assert {e for e, s in full if s == "any"} >= {"bomb_any", "bomb_four", "six_pairs"}  # wide brackets before
    table = _summary(capsys, tmp_path, "tienlen", 300_000, 13, "--set", "players=3")
    for event in ("bomb_any", "bomb_double_sequence", "six_pairs", "five_consecutive_pairs"):
        row = table[(table["event"] == event) & (table["seat"] == -1)].iloc[0]
        p = float(full[(event, "any")][0])
        assert abs(row["rate"] - p) / math.sqrt(p * (1 - p) / row["n"]) < 4, event
