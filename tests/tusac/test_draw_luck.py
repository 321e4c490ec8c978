"""The luck of the Tứ Sắc draws (:mod:`cardsim.simcore.tusac.luck`): hand-built draws, the
games unchanged by recording it, its exact expectation 0, and its use as a control."""
from __future__ import annotations

import math

import numpy as np
import pytest

from cardsim.simcore.tusac.luck import LUCK_NAMES, N_LUCK, add_draw_luck
from cardsim.simcore.tusac.melds import win_score
from cardsim.simcore.tusac.play import play_chunk, tables
from cardsim.simcore.tusac.rules import P_THR, TuSacRules, kernel_params


def test_a_hand_built_draw():
    rules = TuSacRules()
    prm = kernel_params(rules)
    trash, score, win, _ = tables(rules)
    hands = np.zeros((4, 28), np.int8)
    hands[0, 5], hands[0, 6] = 2, 1  # seat 0: a pair of type 5, one of type 6
    hands[2, 7] = 1  # seat 2: one of type 7
    locked = np.zeros(4, np.int64)
    exp_pts = np.zeros(4, np.int64)
    deck = np.array([9, 9, 5, 6, 7, 7, 9], np.uint8)  # the stock is deck[2:6]: types 5, 6, 7, 7
    luck = np.zeros((4, N_LUCK))
    add_draw_luck(luck, prm, hands, locked, exp_pts, deck, 2, 4, 5, 0, trash, score, win)
    col = {name: j for j, name in enumerate(LUCK_NAMES)}
    # seat 0 drew type 5: a triple (1) against a mean of 1/4; a pair with none of its types
    # but type 6 (mean 1/4); the drawer's own triple as the triple
    assert luck[0, col["triple"]] == pytest.approx(0.75)
    assert luck[0, col["pair"]] == pytest.approx(-0.25)
    assert luck[0, col["own_triple"]] == pytest.approx(0.75)
    # seat 2 holds one 7: type 5 makes no pair, two of the four stock cards would
    assert luck[2, col["pair"]] == pytest.approx(-0.5)
    assert luck[2, col["triple"]] == 0.0 and luck[2, col["own_triple"]] == 0.0
    for s in (1, 3):  # empty hands: no copy to match (a General alone may still win, below)
        assert luck[s, col["triple"]] == luck[s, col["pair"]] == luck[s, col["own_triple"]] == 0.0
    assert luck[0, col["own_win"]] == luck[0, col["win"]] and not luck[1:, col["own_win"]].any()

    def can_win(s, t):  # the rule of a win claim (no melds laid: no exposed points)
        ws = win_score(hands[s], t, locked[s], trash, score, win)
        return float(ws >= 0 and ws + exp_pts[s] >= prm[P_THR])

    for s in range(4):
        expected = can_win(s, 5) - np.mean([can_win(s, t) for t in (5, 6, 7, 7)])
        assert luck[s, col["win"]] == pytest.approx(expected)


def test_recording_the_luck_does_not_change_the_games():
    rules = TuSacRules()
    plain = play_chunk(5, 0, 300, rules, "heuristic", draw_luck=False)
    lucky = play_chunk(5, 0, 300, rules, "heuristic", draw_luck=True)
    assert set(lucky) - set(plain) == {f"draw_luck_{n}_{s}" for n in LUCK_NAMES for s in range(4)}
    for column, values in plain.items():
        np.testing.assert_array_equal(values, lucky[column], err_msg=column)


def test_the_luck_has_expectation_zero():
    # every term is the drawn card's value minus its exact mean over the stock: whatever the
    # players do, each column's mean is 0 (|z| < 4 over 20,000 games, 20 columns)
    cols = play_chunk(11, 0, 20_000, TuSacRules(), "heuristic", draw_luck=True)
    for name in LUCK_NAMES:
        for s in range(4):
            x = cols[f"draw_luck_{name}_{s}"]
            assert x.std() > 0, (name, s)
            z = x.mean() / (x.std(ddof=1) / math.sqrt(x.size))
            assert abs(z) < 4, (name, s, z)


def test_a_search_table_is_adjusted_by_its_draws(tmp_path):
    import cardsim
    from cardsim import analysis
    from cardsim.analysis.variance import deal_control, variance_reduction
    from cardsim.simcore.primitives.intervals import Z95

    result = cardsim.play("tusac", 1000, seed=23, policy="0=search:4", threads=1, progress=False,
                          out=tmp_path / "run")
    games = result.tables["games"]
    assert {f"draw_luck_{n}_0" for n in LUCK_NAMES} <= set(games.columns)
    with variance_reduction(True):
        control = deal_control(result.meta)
        assert "draws' luck" in control.name and "twin" in control.name
        adjusted = analysis.summary(result.path).set_index(["metric", "group"])
    with variance_reduction(False):
        plain = analysis.summary(result.path).set_index(["metric", "group"])
    rows = adjusted.index[adjusted["ess_factor"] > 1.0]
    assert len(rows) >= 4
    for key in rows:
        a, p = adjusted.loc[key], plain.loc[key]
        se_a, se_p = (a.ci_high - a.ci_low) / (2 * Z95), (p.ci_high - p.ci_low) / (2 * Z95)
        spread = math.sqrt(max(se_p ** 2 - se_a ** 2, 0.05 * se_p ** 2))
        assert abs(a.value - p.value) / spread < 4, key
