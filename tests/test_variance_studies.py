"""Variance reduction in the study commands: ladder ratings and paired gains, balance-card
figures and tune candidates adjusted by the deal's controls (and the heuristic twin at
tables with a costly seat), cross-fitted, with their ``ess_factor``; plain when off."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from cardsim.analysis.variance import adjusted_values, cross_fitted, variance_reduction
from cardsim.simcore.primitives.intervals import Z95
from cli_helpers import run


def _se(low, high) -> float:
    return (high - low) / (2 * Z95)


def _agree(value_a, se_a, value_p, se_p) -> float:
    """|z| of adjusted minus plain: their difference's spread is at most the plain se (the
    adjusted estimate is the plain one minus a correction); floor it at a fraction."""
    spread = math.sqrt(max(se_p ** 2 - se_a ** 2, 0.05 * se_p ** 2))
    return abs(value_a - value_p) / spread


def test_adjusted_values_never_use_a_games_own_fold():
    rng = np.random.default_rng(3)
    n = 2000
    x = rng.normal(size=(n, 2))
    y = x @ np.array([1.0, -0.5]) + rng.normal(size=n)
    fold = np.arange(n) % 10
    z, summary, beta = adjusted_values(y, x, fold)
    assert summary.adjusted and summary.ess_factor > 1.5
    assert np.isclose(z.mean(), summary.value)
    assert np.isclose(summary.value, cross_fitted(y, x, fold, force=False).value)
    # a game's own outcome moves its adjusted value one for one: its beta was fitted without it
    y2 = y.copy()
    y2[fold == 0] += 5.0
    z2, _, _ = adjusted_values(y2, x, fold)
    assert np.allclose((z2 - z)[fold == 0], 5.0)
    assert beta.shape == (2,) and abs(beta[0] - 1.0) < 0.1


@pytest.fixture(scope="module")
def ladder():
    import cardsim

    with variance_reduction(True):  # the rows get their controls (whatever an earlier test's flag set)
        return cardsim.ladder("tienlen", policies=["heuristic", "greedy", "search:4"], field="heuristic",
                              games=400, seed=7, threads=1, progress=False)


def test_ladder_games_carry_the_controls_and_ratings_use_them(ladder):
    from cardsim.analysis.ladder import paired_gain, ratings

    games = ladder.tables["games"]
    assert "control_fold" in games and "control_0" in games
    with variance_reduction(True):
        adjusted = ratings(games).set_index("policy")
    with variance_reduction(False):
        plain = ratings(games).set_index("policy")
        assert (plain[["ess_factor", "points_ess_factor", "score_ess_factor"]] == 1.0).all().all()
        plain_gain = paired_gain(games, "search:4", "heuristic").set_index("measure")
    # the search at 4 rollouts mostly plays its twin's (the heuristic's) game: a large gain
    assert adjusted.loc["search:4", "ess_factor"] > 1.5
    assert adjusted.loc["search:4", "score_ess_factor"] > 1.5
    for policy in adjusted.index:
        for value, low, high, ess in (("win_rate", "win_ci_low", "win_ci_high", "ess_factor"),
                                      ("points", "points_ci_low", "points_ci_high", "points_ess_factor"),
                                      ("score", "score_ci_low", "score_ci_high", "score_ess_factor")):
            a, p = adjusted.loc[policy], plain.loc[policy]
            assert a[ess] >= 1.0
            if a[ess] > 1.0:
                assert _agree(a[value], _se(a[low], a[high]), p[value], _se(p[low], p[high])) < 4, (policy, value)
    # exact: the heuristic in a heuristic field is the field; pooled over its seats it wins
    # exactly a quarter of the games and scores exactly 1/2 (plain), and the adjusted
    # estimates must find the same within their own error
    assert plain.loc["heuristic", "win_rate"] == 0.25 and plain.loc["heuristic", "score"] == 0.5
    a = adjusted.loc["heuristic"]
    assert abs(a["win_rate"] - 0.25) < 4 * _se(a["win_ci_low"], a["win_ci_high"])
    assert abs(a["score"] - 0.5) < 4 * _se(a["score_ci_low"], a["score_ci_high"])
    with variance_reduction(True):
        gain = paired_gain(games, "search:4", "heuristic").set_index("measure")
    assert (gain["ess_factor"] >= 1.0).all()
    for m in gain.index:
        g, p = gain.loc[m], plain_gain.loc[m]
        assert _agree(g.gain, _se(g.ci_low, g.ci_high), p.gain, _se(p.ci_low, p.ci_high)) < 4, m


def test_ladder_command_prints_the_factor(capsys):
    code, out, err = run(capsys, "ladder", "tienlen", "--policies", "heuristic,greedy", "--games", "400", "--seed",
                         "2", "--threads", "1")
    assert code == 0, err
    assert out.splitlines()[0].split()[-1] == "ess"
    code, out, err = run(capsys, "--no-variance-reduction", "ladder", "tienlen", "--policies", "heuristic,greedy",
                         "--games", "400", "--seed", "2", "--threads", "1", "--json")
    assert code == 0, err
    assert all(r["ess_factor"] == 1.0 for r in json.loads(out))


@pytest.fixture(scope="module")
def balance_play():
    from cardsim.simcore.study.balance import BalanceConfig, play_balance
    from cardsim.simcore.tienlen.rules import TienLenRules

    config = BalanceConfig(game="tienlen", rules=TienLenRules(), policies=("heuristic", "greedy", "search:4"),
                           field="heuristic", n=600, seed=8)
    with variance_reduction(True):
        return play_balance(config)


def test_balance_card_figures_are_adjusted_and_agree_with_plain(balance_play):
    from cardsim.analysis.balance import card

    with variance_reduction(True):
        adjusted = card(balance_play, resamples=200).set_index(["metric", "group", "strength"])
    with variance_reduction(False):
        plain = card(balance_play, resamples=200).set_index(["metric", "group", "strength"])
    assert (plain["ess_factor"] == 1.0).all()
    # the search's table: its seats follow their twin's seats closely
    for s in range(4):
        assert adjusted.loc[("win_rate", f"seat {s}", "search:4"), "ess_factor"] > 1.5
    rows = adjusted.index[adjusted["ess_factor"] > 1.0]
    assert len(rows) >= 8
    for key in rows:
        a, p = adjusted.loc[key], plain.loc[key]
        assert _agree(a.value, _se(a.ci_low, a.ci_high), p.value, _se(p.ci_low, p.ci_high)) < 4, key
    # exact: one seat wins every Tiến Lên game, so the seats' win rates sum to 1
    for strength in ("heuristic", "greedy", "search:4"):
        seats = [adjusted.loc[("win_rate", f"seat {s}", strength)] for s in range(4)]
        total = sum(r.value for r in seats)
        spread = math.sqrt(sum(_se(r.ci_low, r.ci_high) ** 2 for r in seats))
        assert abs(total - 1.0) < 4 * spread, strength


def test_a_card_read_back_keeps_its_controls(balance_play):
    from cardsim.analysis.balance import card
    from cardsim.simcore.study.balance import from_frames, to_frames

    seats, games = to_frames(balance_play)
    assert "control:0" in seats and "control_fold" in games
    first = next(iter(balance_play.alone.values()))
    again = from_frames(balance_play.config, seats, games, first.length_unit, first.points_lower_is_better)
    twin_table = again.alone["search:4"]
    assert twin_table.control_mean_cov is not None  # the twin's mean is estimated: its error read back
    np.testing.assert_array_equal(twin_table.controls, balance_play.alone["search:4"].controls)
    with variance_reduction(True):
        import pandas as pd

        pd.testing.assert_frame_equal(card(again, resamples=100), card(balance_play, resamples=100))


def test_tune_reports_each_figures_factor(capsys):
    code, out, err = run(capsys, "tune", "tusac", "--switch", "win_threshold=0,12", "--objective",
                         "win_rate@seat 0:max", "--budget", "8000", "--seed", "1", "--threads", "1", "--json")
    assert code == 0, err
    rows = json.loads(out)
    assert all("win_rate@seat 0_ess_factor" in r for r in rows)
    assert any(r["win_rate@seat 0_ess_factor"] > 1.0 for r in rows)
