"""Control variates on the deal are honest: planted answers, coverage, agreement with the
plain estimate on real runs, and no value function evaluated on its own fitting data."""
from __future__ import annotations

import math

import numpy as np
import pytest

import cardsim
from cardsim.analysis.variance import (CrossFit, LeakError, cross_fitted, deal_control, fit_values, tienlen_control,
                                       tusac_feature_means, variance_reduction)
from cardsim.simcore.primitives.intervals import Z95
from cli_helpers import run


def _planted(rng, n, binary=False):
    """Outcomes with a known mean: ``x`` has mean 0, ``y`` depends on it (and on noise)."""
    x = rng.integers(0, 5, size=(n, 3)).astype(float) - 2.0  # uniform on -2..2: mean exactly 0
    signal = 0.6 * x[:, 0] - 0.3 * x[:, 1] + 0.1 * x[:, 0] * x[:, 2]
    if binary:  # P(y = 1) = 0.3 + 0.08 x0 - 0.04 x1: truth 0.3
        p = 0.3 + 0.08 * x[:, 0] - 0.04 * x[:, 1]
        return (rng.random(n) < p).astype(float), x, 0.3
    return 1.5 + signal + rng.normal(0, 0.5, n), x, 1.5


@pytest.mark.parametrize("binary", [False, True])
def test_planted_answer_is_recovered_with_fewer_games(binary):
    rng = np.random.default_rng(11)
    y, x, truth = _planted(rng, 20_000, binary)
    est = cross_fitted(y, x, np.arange(len(y)))
    assert abs(est.value - truth) / est.se < 4
    assert est.ess_factor > (1.04 if binary else 3)  # the planted deal explains part of the variance
    assert est.se < est.plain_se


@pytest.mark.parametrize("binary", [False, True])
def test_adjusted_intervals_cover_the_truth_at_95_percent(binary):
    rng = np.random.default_rng(2024 + binary)
    reps, covered = 1000, 0
    for _ in range(reps):
        y, x, truth = _planted(rng, 300, binary)
        low, high = cross_fitted(y, x, np.arange(len(y))).interval()
        covered += low <= truth <= high
    assert 0.93 <= covered / reps <= 0.97


def test_useless_features_cost_almost_nothing_and_stay_unbiased():
    rng = np.random.default_rng(5)
    n = 5000
    y = rng.normal(2.0, 1.0, n)
    x = rng.normal(0, 1, (n, 8))  # independent of y
    est = cross_fitted(y, x, np.arange(n))
    assert abs(est.value - 2.0) / est.se < 4 and 0.97 < est.ess_factor < 1.01


def test_estimated_feature_means_widen_the_interval():
    rng = np.random.default_rng(9)
    y, x, _ = _planted(rng, 4000)
    exact = cross_fitted(y, x, np.arange(4000))
    carried = cross_fitted(y, x, np.arange(4000), mean_cov=np.eye(3) * 1e-3)
    assert carried.se > exact.se and carried.value == exact.value


def test_a_fit_refuses_its_own_data():
    rng = np.random.default_rng(3)
    y, x, _ = _planted(rng, 1000)
    games = np.arange(1000)
    fit = fit_values(y[:500], x[:500], games[:500])
    fit.adjust(y[500:], x[500:], games[500:])  # other games: fine
    with pytest.raises(LeakError):
        fit.adjust(y[400:600], x[400:600], games[400:600])
    # the cross-fitting fits every fold on the others only: a fold fitted with itself is refused
    cf = CrossFit(3)
    cf.add(y, x, games)
    from cardsim.analysis.variance import Moments, fit_control

    total = Moments(3)
    for m in cf.cells.values():
        total += m
    with pytest.raises(LeakError):
        fit_control(total, list(cf.cells)).adjust_moments(cf.cells[0], 0)


def test_feature_means_are_the_exact_ones():
    control = tienlen_control({"players": 4, "cards_per_player": 13}, {})
    assert control.width == 20
    # a deal-only sample of the real deal kernel agrees with the exact hypergeometric means
    from cardsim.simcore.tienlen import deal as kernel
    from cardsim.simcore.tienlen.rules import TienLenRules

    rules = TienLenRules()
    hands, _, _ = kernel.deal_rows(99, 0, 20_000, 4, 13, rules.instant_win_mask(), rules.black_mask())
    cards = (hands[:, :, None].astype(np.uint64) >> np.arange(52, dtype=np.uint64)) & np.uint64(1)
    import pandas as pd

    frame = pd.DataFrame({"match": np.arange(20_000), "three_spades_seat": cards[:, :, 0].argmax(axis=1)})
    for s in range(4):
        frame[f"twos_dealt_{s}"] = cards[:, s, 48:].sum(axis=1).astype(int)
    centred = control.features(frame)
    se = centred.std(axis=0) / math.sqrt(len(frame))
    assert (np.abs(centred.mean(axis=0)) < 4 * se + 1e-12).all()
    means, cov, size = tusac_feature_means(4, True)
    assert size > 900_000 and means.shape == (8,) and cov.shape == (8, 8)
    assert deal_control({"game": "loba", "task": "play", "rules": {}}) is None


@pytest.fixture(scope="module")
def real_runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("vr")
    return {game: cardsim.play(game, n, seed=20240601, threads=1, progress=False, out=folder / game)
            for game, n in (("tienlen", 2400), ("tusac", 1200))}


@pytest.mark.parametrize("game", ["tienlen", "tusac"])
def test_adjusted_and_plain_agree_on_real_runs(real_runs, game):
    result = real_runs[game]
    adjusted = result.summary().set_index(["metric", "group"])
    with variance_reduction(False):
        from cardsim import analysis

        plain = analysis.summary(result.path).set_index(["metric", "group"])
    assert (plain["ess_factor"] == 1.0).all()
    assert (adjusted["ess_factor"] >= 1.0).all()
    changed = adjusted.index[adjusted["ess_factor"] > 1.0]
    assert len(changed) >= 4  # at least the seat rows gain something
    for key in changed:
        a, p = adjusted.loc[key], plain.loc[key]
        se_a, se_p = (a.ci_high - a.ci_low) / (2 * Z95), (p.ci_high - p.ci_low) / (2 * Z95)
        # var(plain - adjusted) ~ se_p^2 - se_a^2 (the adjustment's own part); floor it
        spread = math.sqrt(max(se_p ** 2 - se_a ** 2, 0.05 * se_p ** 2))
        assert abs(a.value - p.value) / spread < 4, key


def test_rummy_summaries_carry_a_factor_of_one():
    meta = {"game": "continental", "task": "play", "rules": {"players": 4}}
    assert deal_control(meta) is None


def test_plan_api_and_command(capsys):
    from cardsim.analysis.plan import plan

    table = plan("tienlen", 0.02, "win_rate@seat0", pilot_games=500, threads=1)
    plain, adjusted = table.iloc[0], table.iloc[1]
    assert list(table["estimator"]) == ["plain", "adjusted"]
    assert plain.games_for_ci == math.ceil((Z95 * plain.sd / 0.02) ** 2)
    assert adjusted.games_for_ci <= plain.games_for_ci and adjusted.ess_factor >= 1.0
    assert plain.games_for_power > plain.games_for_ci and plain.seconds_per_game > 0
    code, out, err = run(capsys, "plan", "tienlen", "--effect", "0.05", "--pilot", "100", "-t", "1")
    assert code == 0, err
    assert "games ±0.05" in out and "adjusted" in out
    code, _, err = run(capsys, "plan", "tienlen", "--effect", "0.05", "--metric", "nope", "--pilot", "20")
    assert code == 2 and "not a per-game metric" in err
    code, _, err = run(capsys, "plan", "tienlen", "--effect", "-1")
    assert code == 2 and "--effect" in err


def test_the_flag_works_after_the_command_too(capsys):
    # issue 51: per command, as a user of one command writes it (also before the command, as before)
    import json as _json

    args = ("play", "tienlen", "--games", 3000, "--seed", 4, "--json")
    for flags in (("--no-variance-reduction",), ()):
        code, out, err = run(capsys, *args, *flags)
        assert code == 0, err
        ess = [r["ess_factor"] for r in _json.loads(out)]
        assert all(e == 1 for e in ess) == bool(flags), ess
    code, out, _ = run(capsys, "--no-variance-reduction", *args)
    assert code == 0 and all(r["ess_factor"] == 1 for r in _json.loads(out))


# ------------------------------------------------------------------ the heuristic twin (costly seats)

@pytest.fixture(scope="module")
def costly_run(tmp_path_factory):
    # one search seat: the twin (the heuristic in every seat, same deals) is cheap beside it
    folder = tmp_path_factory.mktemp("twin")
    return cardsim.play("tienlen", 1600, seed=515, policy="0=search:4", threads=1, progress=False,
                        out=folder / "run")


def test_the_twin_is_the_same_game_played_by_the_heuristic(costly_run):
    from cardsim.analysis.variance import twin_control

    meta = costly_run.meta
    control = twin_control(meta)
    frame = costly_run.tables["games"].sort_values("game").reset_index(drop=True)
    twin = cardsim.play("tienlen", meta["n"], seed=meta["seed"], policy="heuristic", threads=1, progress=False)
    heuristic = twin.tables["games"].sort_values("game").reset_index(drop=True)
    mu = np.asarray(control.cov_from(0)).shape  # the means' covariance covers every seat's (won, points)
    assert mu == (8, 8) and np.all(np.diag(control.mean_cov) > 0)  # estimated: its error is carried
    values = control.seat_features(frame)
    # centred values differ from the heuristic's own outcome by a constant per (seat, feature)
    for s in range(4):
        won = (heuristic[f"place_{s}"] == 1).to_numpy(float)
        shift = values[:, s, 0] - won
        assert np.allclose(shift, shift[0])
        pts = heuristic[f"points_{s}"].to_numpy(float)
        assert np.allclose(values[:, s, 1] - pts, values[0, s, 1] - pts[0])


def test_the_twins_mean_comes_from_other_games():
    from cardsim.analysis.variance import twin_sample_games, twin_seed

    for seed in (0, 1, 515, 2**64 - 1, 0x7719_C0DE_5EED_0001):
        assert twin_seed(seed) != seed and 0 <= twin_seed(seed) < 2**64
    assert twin_sample_games(10) == 10_000 and twin_sample_games(10**9) == 2_000_000


def test_a_costly_run_gains_from_the_twin_and_stays_unbiased(costly_run):
    from cardsim import analysis

    with variance_reduction(True):  # whatever an earlier test's --no-variance-reduction set
        adjusted = analysis.summary(costly_run.path).set_index(["metric", "group"])
    with variance_reduction(False):
        plain = analysis.summary(costly_run.path).set_index(["metric", "group"])
    # the heuristic seats play the same game as their twin's seats until the search seat
    # diverges: their outcomes follow the twin's closely
    for s in (1, 2, 3):
        assert adjusted.loc[("win_rate", f"seat {s} (heuristic)"), "ess_factor"] > 1.5
    assert adjusted.loc[("win_rate", "seat 0 (search:4)"), "ess_factor"] > 1.05
    for key in adjusted.index[adjusted["ess_factor"] > 1.0]:
        a, p = adjusted.loc[key], plain.loc[key]
        se_a, se_p = (a.ci_high - a.ci_low) / (2 * Z95), (p.ci_high - p.ci_low) / (2 * Z95)
        spread = math.sqrt(max(se_p ** 2 - se_a ** 2, 0.05 * se_p ** 2))
        assert abs(a.value - p.value) / spread < 4, key


def test_cheap_tables_get_no_twin():
    from cardsim.analysis.variance import costly

    assert not costly(["heuristic", "learned", "random", "greedy"])
    assert not costly(["learned:model.txt"] * 4)
    assert costly(["heuristic", "search:64", "heuristic", "heuristic"])
    assert costly(["python:mod:f", "heuristic"]) and costly(["openspiel-ismcts:64"]) and costly(["bigtwo-ppo:F"])
