"""Ratings of a strength ladder (:mod:`cardsim.simcore.study.ladder`) with 95% intervals.

Each candidate's *score* is its mean fraction of field seats beaten per game (ties
1/2); the field scores 1/2 against itself. The rating is the Bradley–Terry strength
against the field on the Elo scale, ``400 log10(score / (1 - score))`` (the field is
0; +100 means the candidate beats a field player about 64% of the time), with the
interval of the score (normal approximation over games, which are independent)
carried through the same monotone map.

Variance reduction. When the games carry the deal's control features (``control_*``,
:mod:`cardsim.simcore.study.ladder`) and variance reduction is on, each candidate's win
rate, points and score are cross-fitted control-variate estimates
(:mod:`cardsim.analysis.variance`: the same expectation, a smaller variance) with normal
intervals; ``ess_factor`` (win rate), ``points_ess_factor`` and ``score_ess_factor`` are
the plain variance over the adjusted one (1: plain, e.g. a game without a control).
``relative_skill`` stays the ratio of the plain win rates, with its paired bootstrap.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from cardsim.simcore.primitives.intervals import Z95, wilson

RATING_COLUMNS = ["policy", "games", "win_rate", "win_ci_low", "win_ci_high", "points", "points_ci_low",
                  "points_ci_high", "score", "score_ci_low", "score_ci_high", "elo", "elo_ci_low", "elo_ci_high",
                  "ess_factor", "points_ess_factor", "score_ess_factor"]


def elo(score):
    """Bradley–Terry rating on the Elo scale of a score (probability of beating the field)."""
    score = np.clip(np.asarray(score, float), 1e-6, 1 - 1e-6)
    return 400.0 * np.log10(score / (1.0 - score))


def _mean_ci(values: np.ndarray) -> tuple[float, float, float]:
    n = values.size
    mean = float(values.mean())
    se = float(values.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    return mean, mean - Z95 * se, mean + Z95 * se


def relative_skill(games: pd.DataFrame, seed: int = 0, resamples: int = 1000) -> pd.DataFrame | None:
    """Each policy's win rate between ``random`` (0) and the peeking ``oracle`` (1), with a
    95% percentile bootstrap interval over deals (a deal keeps all its seats and
    policies, so the ratio is paired); None unless both are among the candidates.

    Returns ``policy, relative_skill, relative_skill_ci_low, relative_skill_ci_high``.
    """
    from cardsim.simcore.framework.tasks import PEEKING_POLICIES, split_policy

    names = [str(p) for p in dict.fromkeys(games["policy"].astype(str))]
    randoms = [p for p in names if split_policy(p)[0] == "random"]
    oracles = [p for p in names if split_policy(p)[0] in PEEKING_POLICIES]
    if not randoms or not oracles:
        return None
    wins = games.assign(policy=games["policy"].astype(str)).pivot_table(
        index="game", columns="policy", values="win", aggfunc="mean")[names]  # per deal: mean over seats
    x = wins.to_numpy(float)
    rng = np.random.default_rng([int(seed), 0x5C111])
    draws = rng.integers(0, x.shape[0], size=(resamples, x.shape[0]))
    means = np.vstack([x.mean(axis=0), x[draws].mean(axis=1)])  # [1 + B, policies]
    low, high = means[:, names.index(randoms[0])], means[:, names.index(oracles[0])]
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = (means - low[:, None]) / (high - low)[:, None]
    q_low, q_high = np.nanpercentile(rel[1:], [2.5, 97.5], axis=0)
    return pd.DataFrame({"policy": names, "relative_skill": rel[0], "relative_skill_ci_low": q_low,
                         "relative_skill_ci_high": q_high})


def ratings(games: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """One row per policy (strongest first): ``RATING_COLUMNS``, plus ``relative_skill``
    and its interval (:func:`relative_skill`) when ``random`` and an ``oracle`` are candidates.

    ``games``: :func:`cardsim.simcore.study.ladder.play_ladder` rows. A game's unit is one
    deal played with the candidate in one seat; seats are pooled.
    """
    rows = []
    mean_covs = games.attrs.get("control_mean_cov", {})
    for policy, rows_p in games.groupby("policy", sort=False, observed=True):
        n = len(rows_p)
        wins = float(rows_p["win"].sum())
        w_low, w_high = wilson(wins, n)
        w_mean, w_ess = wins / n, 1.0
        p_mean, p_low, p_high = _mean_ci(rows_p["points"].to_numpy(float))
        s_mean, s_low, s_high = _mean_ci(rows_p["score"].to_numpy(float))
        p_ess = s_ess = 1.0
        adjusted = _adjusted(rows_p, ("win", "points", "score"), mean_covs.get(str(policy)))
        if adjusted:
            if adjusted["win"] is not None:
                (w_mean, w_low, w_high), w_ess = adjusted["win"]
            if adjusted["points"] is not None:
                (p_mean, p_low, p_high), p_ess = adjusted["points"]
            if adjusted["score"] is not None:
                (s_mean, s_low, s_high), s_ess = adjusted["score"]
        rows.append((str(policy), n, w_mean, float(w_low), float(w_high), p_mean, p_low, p_high,
                     s_mean, s_low, s_high, float(elo(s_mean)), float(elo(max(s_low, 0.0))),
                     float(elo(min(s_high, 1.0))), w_ess, p_ess, s_ess))
    table = pd.DataFrame(rows, columns=RATING_COLUMNS)
    relative = relative_skill(games, seed)
    if relative is not None:
        table = table.merge(relative, on="policy", how="left")
    return table.sort_values("elo", ascending=False, kind="stable").reset_index(drop=True)


def control_columns(rows: pd.DataFrame) -> list[str]:
    """The control-feature columns present (all finite) in these ladder rows, in order."""
    from cardsim.simcore.study.ladder import CONTROL_PREFIX

    names = [c for c in rows.columns if c.startswith(CONTROL_PREFIX) and c != "control_fold"]
    names.sort(key=lambda c: int(c[len(CONTROL_PREFIX):]))
    return [c for c in names if np.isfinite(rows[c].to_numpy(float)).all()]


def _adjusted(rows: pd.DataFrame, measures, mean_cov=None, values=None) -> dict | None:
    """Cross-fitted control-variate estimates of each measure's mean over ``rows``:
    ``{measure: ((value, low, high), ess_factor) or None}`` (None: not adjusted: too few
    rows or no gain); None when variance reduction is off or the rows carry no control.
    ``values``: the per-row values of each measure, when not ``rows[measure]``."""
    from cardsim.analysis.variance import cross_fitted, enabled

    columns = control_columns(rows) if enabled() and "control_fold" in rows else []
    if not columns:
        return None
    x = rows[columns].to_numpy(float)
    fold = rows["control_fold"].to_numpy(np.int64)
    cov = None
    if mean_cov is not None and np.shape(mean_cov) == (len(columns), len(columns)):
        cov = np.asarray(mean_cov, float)
    out = {}
    for measure in measures:
        y = rows[measure].to_numpy(float) if values is None else np.asarray(values[measure], float)
        fit = cross_fitted(y, x, fold, mean_cov=cov, force=False)
        if fit.adjusted and fit.ess_factor >= 1.0:  # as the play summaries: never a wider interval
            low, high = fit.interval(Z95)
            out[measure] = ((float(fit.value), float(low), float(high)), float(fit.ess_factor))
        else:
            out[measure] = None
    return out


def budget_of(policy: str) -> int | None:
    """The rollout budget of a ``search:N`` policy, else ``None``."""
    base, _, budget = str(policy).partition(":")
    return int(budget) if base == "search" and budget.isdigit() else None


def paired_gain(games: pd.DataFrame, policy: str, baseline: str) -> pd.DataFrame:
    """``policy`` minus ``baseline`` on the same deals and seats (duplicate format): one row per
    measure (``win``, ``points``, ``score``) with ``n`` (deal-seat pairs), ``gain`` and its 95%
    interval from the paired differences (adjusted by the deal's controls as :func:`ratings`
    when the rows carry them; ``ess_factor``). ``games``: ladder rows (:func:`ratings`) holding both."""
    a = games[games["policy"] == policy].set_index(["seat", "game"]).sort_index()
    b = games[games["policy"] == baseline].set_index(["seat", "game"]).sort_index()
    if len(a) == 0 or not a.index.equals(b.index):
        raise ValueError(f"{policy} and {baseline} were not played on the same deals and seats")
    rows = []
    diffs = {m: a[m].to_numpy(float) - b[m].to_numpy(float) for m in ("win", "points", "score")}
    adjusted = _adjusted(a.reset_index(), diffs, games.attrs.get("control_mean_cov", {}).get(str(policy)),
                         values=diffs) or {}
    for measure, d in diffs.items():
        mean, low, high = _mean_ci(d)
        ess = 1.0
        if adjusted.get(measure) is not None:
            (mean, low, high), ess = adjusted[measure]
        rows.append((measure, len(d), mean, low, high, ess))
    return pd.DataFrame(rows, columns=["measure", "n", "gain", "ci_low", "ci_high", "ess_factor"])
