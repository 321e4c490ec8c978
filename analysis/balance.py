"""The balance card: seat and role balance, length, draws, comebacks, luck versus skill
and the strength ladder of one rule set, every figure with a 95% interval.

Input is a played card (:class:`cardsim.simcore.study.balance.BalancePlay`): each
strength alone at the table, and each strength in one seat of the field in every seat
rotation, all on games ``0 .. n-1`` of one seed (the same deals everywhere).

Intervals. Rates get Wilson intervals and means normal ones (over deals); every other
figure (gaps, shares, ratings, spreads) a percentile bootstrap over deals, which keeps a
deal's tables together, so figures built from several tables are paired by deal. The
bootstrap draws from the card's seed, so the same card gives the same intervals.

Luck versus skill (:func:`decompose`): for a strength ``X`` and the field ``F``, the
outcome ``y[d, s, r]`` (win 0/1) of seat ``s`` of deal ``d`` when ``X`` sits at seat
``r`` is modelled as ``mu + hand[d, s] + player[who(s, r)] + residual``. Every cell
``(d, s)`` is played once by ``X`` and ``k - 1`` times by ``F`` (``k`` seats), so the
design is balanced and the sums of squares split exactly; the variance components are
the method-of-moments (ANOVA) estimates, corrected for the noise in cell means and in
the player difference. ``luck_share = var(hand) / total``, ``skill_share =
var(player) / total`` and ``residual_share`` (play that neither the deal nor the
player's strength explains: the interaction, the random choices) is the rest.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from cardsim.analysis.ladder import elo
from cardsim.simcore.framework.tasks import PEEKING_POLICIES, split_policy
from cardsim.simcore.primitives.intervals import Z95, wilson
from cardsim.simcore.study.ladder import score_against_field

CARD_COLUMNS = ["metric", "group", "strength", "unit", "n", "value", "ci_low", "ci_high", "ess_factor", "note"]
#: Bootstrap resamples (fewer for very large cards, see :func:`bootstrap_weights`).
BOOTSTRAP = 1000
#: Head-to-head probability a ladder level must reach over the level below (``levels_60``).
LEVEL_STEP = 0.6
#: The chance the better of two ladder neighbours must have of winning a match (``games_to_outweigh_luck``).
MATCH_CONFIDENCE = 0.75
#: ``games_to_outweigh_luck`` when the neighbours are not told apart (no better one): shown as this cap.
MATCH_GAMES_CAP = 1e6


def bootstrap_weights(deals: int, seed: int, resamples: int = BOOTSTRAP) -> np.ndarray:
    """How often each deal is drawn: float64[1 + B, deals]; row 0 is the data itself.

    ``B = resamples``, lowered so that ``B * deals`` stays under 2e7 (never below 200).
    """
    resamples = max(200, min(resamples, 20_000_000 // max(deals, 1)))
    rng = np.random.default_rng([int(seed), 0xBA1A])
    draws = rng.multinomial(deals, np.full(deals, 1.0 / deals), size=resamples).astype(float)
    return np.vstack([np.ones((1, deals)), draws])


def weighted_mean(weights: np.ndarray, x: np.ndarray, present: np.ndarray | None = None) -> np.ndarray:
    """Weighted mean over deals of ``x`` (float[D] or [D, m]) per weight row: [R] or [R, m]."""
    if present is None:
        return (weights @ x) / weights.sum(axis=1).reshape((-1,) + (1,) * (x.ndim - 1))
    x = np.where(present, x, 0.0)
    return (weights @ x) / np.maximum(weights @ present.astype(float), 1e-300)


# ----------------------------------------------------------------------------- luck versus skill
def deal_statistics(y: np.ndarray, design: np.ndarray | None = None) -> np.ndarray:
    """Per-deal sufficient statistics of the decomposition: float[D, 4].

    ``y``: float[D, k, R], ``y[d, s, r]`` the outcome of seat ``s`` of deal ``d`` in
    rotation ``r``; ``design`` bool[k, R]: whether the measured player plays seat ``s``
    in rotation ``r`` (default: the identity, one seat: it sits at seat ``r``). Every
    seat must be the measured player's in the same number of rotations. Columns: the sum
    of ``y``, the sum of ``y**2``, the sum over seats of the squared cell sums, and the
    sum over seats of (measured player's mean outcome - the field's mean).
    """
    d, k, R = y.shape
    design = np.eye(k, R, dtype=bool) if design is None else np.asarray(design, bool)
    a = design.sum(axis=1)
    if design.shape != (k, R) or not (a == a[0]).all() or not 0 < a[0] < R:
        raise ValueError("every seat must be the measured player's in the same number (not all) of rotations")
    a = float(a[0])
    cells = y.sum(axis=2)
    own = (y * design[None]).sum(axis=2) / a
    field_mean = (cells - own * a) / (R - a)
    return np.stack([y.sum(axis=(1, 2)), (y * y).sum(axis=(1, 2)), (cells * cells).sum(axis=1),
                     (own - field_mean).sum(axis=1)], axis=1)


def decompose(stats: np.ndarray, deals: np.ndarray, k: int, rotations: int | None = None,
              measured: int = 1) -> dict[str, np.ndarray]:
    """Variance components from summed :func:`deal_statistics`.

    ``stats``: float[R, 4] (weighted sums over deals, one row per bootstrap weight row),
    ``deals``: float[R] the weighted number of deals, ``k`` seats, ``rotations`` tables
    per deal (default ``k``) of which ``measured`` have the measured player at a given
    seat (default 1: one seat in turn). Returns float[R] arrays ``hand``, ``player``,
    ``residual`` (variance components, clipped at 0), ``total`` (their sum),
    ``luck_share``, ``skill_share``, ``residual_share`` (NaN where the outcomes do not
    vary) and ``player_gap`` (measured player minus field, in outcome units).
    """
    R = k if rotations is None else rotations
    p = measured / R  # share of a cell's observations the measured player makes
    s1, s2, q, delta_sum = stats.T
    n_obs = deals * k * R
    cells = deals * k
    grand = s1 / n_obs
    ss_total = s2 - n_obs * grand ** 2
    ss_hand = q / R - n_obs * grand ** 2
    gap = delta_sum / cells
    ss_player = n_obs * p * (1 - p) * gap ** 2
    ss_resid = np.maximum(ss_total - ss_hand - ss_player, 0.0)
    sigma2 = ss_resid / np.maximum(n_obs - cells - 1, 1)
    hand = np.maximum(ss_hand / (R * np.maximum(cells - 1, 1)) - sigma2 / R, 0.0)
    gap_var = sigma2 * R / (measured * (R - measured) * cells)
    player = np.maximum(p * (1 - p) * (gap ** 2 - gap_var), 0.0)
    total = hand + player + sigma2
    with np.errstate(invalid="ignore", divide="ignore"):
        ok = total > 1e-12
        share = {name: np.where(ok, part / np.where(ok, total, 1.0), np.nan)
                 for name, part in (("luck_share", hand), ("skill_share", player), ("residual_share", sigma2))}
    return {"hand": hand, "player": player, "residual": sigma2, "total": total, "player_gap": gap, **share}


# ----------------------------------------------------------------------------- ratings
def ladder_figures(scores: dict[str, np.ndarray], field: str) -> dict[str, np.ndarray]:
    """``elo_spread`` and ``levels_60`` from each strength's score against the field.

    ``scores``: strength -> float[R] (probability of beating a field player; the field
    itself is 1/2). Ratings are Bradley–Terry on the Elo scale with the field at 0;
    ``elo_spread`` is their standard deviation over the ladder's levels, ``levels_60``
    counts the successive levels (sorted by rating) whose implied head-to-head
    probability over the level below, ``1 / (1 + 10**(-gap / 400))``, is at least 0.6.
    """
    names = list(scores)
    ratings = np.stack([elo(scores[n]) if n != field else np.zeros_like(scores[n]) for n in names], axis=1)
    spread = ratings.std(axis=1)
    ordered = np.sort(ratings, axis=1)
    step = 1.0 / (1.0 + 10.0 ** (-np.diff(ordered, axis=1) / 400.0))
    levels = (step >= LEVEL_STEP).sum(axis=1).astype(float)
    return {"elo_spread": spread, "levels_60": levels}


def games_to_outweigh_luck(gap_elo: np.ndarray, confidence: float = MATCH_CONFIDENCE) -> np.ndarray:
    """Games a match between two ladder neighbours must last before the better one wins it
    with probability ``confidence``: each game is won with the head-to-head probability
    ``p = 1 / (1 + 10**(-gap / 400))``, a match by the most games won, so (normal form, as
    Tango's regression to the mean splits talent and luck: luck's variance per game
    ``p (1 - p)`` against skill's ``(p - 1/2)^2``) ``n = (z · sqrt(p (1 - p)) / (p - 1/2))^2``,
    at least 1; :data:`MATCH_GAMES_CAP` where ``p <= 1/2``."""
    from statistics import NormalDist

    z = NormalDist().inv_cdf(confidence)
    p = 1.0 / (1.0 + 10.0 ** (-np.asarray(gap_elo, float) / 400.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        n = (z * np.sqrt(p * (1.0 - p)) / (p - 0.5)) ** 2
    n = np.where(p > 0.5, np.maximum(np.ceil(n), 1.0), MATCH_GAMES_CAP)
    return np.minimum(n, MATCH_GAMES_CAP)


# ----------------------------------------------------------------------------- the card
@dataclass
class Figure:
    """One figure: its values for every bootstrap weight row and how to give its interval."""

    metric: str
    group: str
    strength: str
    unit: str
    n: int
    values: np.ndarray  # float[R]: row 0 the estimate, rows 1.. the bootstrap resamples
    #: "rate" (Wilson), "mean" (normal over deals), "bootstrap" (percentile) or "range"
    #: (the largest minus the smallest of ``parts``: simultaneous paired intervals of every
    #: difference, whose plain bootstrap would be biased upwards and exclude 0 for equal seats)
    kind: str = "bootstrap"
    hits: float = math.nan  # rate: successes of n
    per_deal: np.ndarray | None = None  # mean: the per-deal values
    parts: np.ndarray | None = None  # range: float[R, m] the compared values (seat win rates)
    note: str = ""
    #: plain variance over the adjusted one (1: not adjusted); an adjusted "mean" figure's
    #: ``per_deal`` holds the adjusted values and ``extra_var`` the variance its control's
    #: estimated expectation adds to the mean (:mod:`cardsim.analysis.variance`)
    ess_factor: float = 1.0
    extra_var: float = 0.0


def _is_peeking(policy: str) -> bool:
    return split_policy(policy)[0] in PEEKING_POLICIES


def figures(play, weights: np.ndarray) -> list[Figure]:
    """Every figure of a played card for the given bootstrap weights (:func:`bootstrap_weights`)."""
    config = play.config
    k = config.rules.players
    out: list[Figure] = []
    deals = weights.shape[1]
    some = next(iter(play.alone.values()))
    if some.win.shape[0] != deals:
        raise ValueError(f"{some.win.shape[0]} games per table, {deals} weight columns")
    lower = some.points_lower_is_better
    points_unit = "penalty points" if lower else "points"

    for strength, o in play.alone.items():
        adjusted_win = [_adjust(o, o.win[:, s], [s]) for s in range(k)]
        for s in range(k):
            if adjusted_win[s] is not None:
                out.append(_adjusted_figure("win_rate", f"seat {s}", strength, "rate", deals, weights, adjusted_win[s]))
                continue
            out.append(Figure("win_rate", f"seat {s}", strength, "rate", deals, weighted_mean(weights, o.win[:, s]),
                              "rate", hits=float(o.win[:, s].sum())))
        for role, held in o.roles.items():
            hits_d = (held * o.win).sum(axis=1)
            count_d = held.sum(axis=1).astype(float)
            out.append(Figure("win_rate", role, strength, "rate", int(count_d.sum()),
                              (weights @ hits_d) / np.maximum(weights @ count_d, 1e-300), "rate",
                              hits=float(hits_d.sum())))
        per_seat = np.stack([o.win[:, s] if a is None else a[0] for s, a in enumerate(adjusted_win)], axis=1)
        rates = weighted_mean(weights, per_seat)  # the seats' win rates, adjusted where a control helps
        out.append(Figure("seat_gap", "table", strength, "rate", deals, rates.max(axis=1) - rates.min(axis=1),
                          "range", parts=rates))
        for s in range(k):
            adjusted = _adjust(o, o.points[:, s], [s])
            if adjusted is not None:
                out.append(_adjusted_figure("points", f"seat {s}", strength, points_unit, deals, weights, adjusted))
                continue
            out.append(Figure("points", f"seat {s}", strength, points_unit, deals, weighted_mean(weights, o.points[:, s]),
                              "mean", per_deal=o.points[:, s]))
        out.append(Figure("length", "table", strength, some.length_unit, deals, weighted_mean(weights, o.length), "mean",
                          per_deal=o.length))
        per_game = o.no_winner_group == "table"  # else a fraction of each game's rounds: a mean over games
        out.append(Figure("no_winner_rate", o.no_winner_group, strength, "rate", deals,
                          weighted_mean(weights, o.no_winner), "rate" if per_game else "mean",
                          hits=float(o.no_winner.sum()), per_deal=o.no_winner))
        for name, trailed in o.comebacks.items():
            present = ~np.isnan(trailed)
            if present.any():
                out.append(Figure("comeback_rate", name, strength, "rate", int(present.sum()),
                                  weighted_mean(weights, np.nan_to_num(trailed), present), "rate",
                                  hits=float(np.nansum(trailed))))

    # one strength in one seat of the field, every rotation
    field = config.field
    scores: dict[str, np.ndarray] = {}
    field_wins: dict[str, np.ndarray] = {}
    if field in play.alone:
        field_wins[field] = weighted_mean(weights, play.alone[field].win.mean(axis=1))
        scores[field] = np.full(weights.shape[0], 0.5)
    seat_sets = config.seat_sets()
    for strength, all_rotations in play.rotations.items():
        rotations = [o for o, held in zip(all_rotations, seat_sets) if len(held) == 1]
        for m in config.mixes:
            if m > 1:
                out += _mix_figures(strength, m, [(o, held) for o, held in zip(all_rotations, seat_sets)
                                                  if len(held) == m], field, k, weights)
        if not rotations:
            continue
        figs, field_wins[strength], scores[strength] = _one_seat_figures(strength, rotations, field, k, weights,
                                                                          lower)
        out += figs
    for (measured, among), rotations in play.pairs.items():
        out += _one_seat_figures(measured, rotations, among, k, weights, lower)[0]

    if len(scores) >= 2:
        ladder = ladder_figures(scores, field)
        levels = ", ".join(scores)
        out.append(Figure("elo_spread", "ladder", "all", "elo", deals, ladder["elo_spread"], note=levels))
        out.append(Figure("levels_60", "ladder", "all", "levels", deals, ladder["levels_60"], note=levels))
        # neighbours in the estimated order: how long a match must be for skill to outweigh luck
        rating = {n: (elo(scores[n]) if n != field else np.zeros_like(scores[n])) for n in scores}
        ordered = sorted(rating, key=lambda n: float(rating[n][0]), reverse=True)
        for better, worse in zip(ordered, ordered[1:]):
            out.append(Figure("games_to_outweigh_luck", f"{better} vs {worse}", better, "games", deals,
                              games_to_outweigh_luck(rating[better] - rating[worse]),
                              note=f"the better wins a match of that many games {MATCH_CONFIDENCE:.0%} of the time"))
    randoms = [p for p in field_wins if split_policy(p)[0] == "random"]
    oracles = [p for p in field_wins if _is_peeking(p)]
    if randoms and oracles:
        low, high = field_wins[randoms[0]], field_wins[oracles[0]]
        for strength, w in field_wins.items():
            if strength in (randoms[0], oracles[0]):
                continue
            with np.errstate(invalid="ignore", divide="ignore"):
                rel = (w - low) / (high - low)
            out.append(Figure("relative_skill", f"{randoms[0]} = 0, {oracles[0]} = 1", strength, "share", deals,
                              rel, note=f"one seat's win rate against the {field} field"))
    return out


def _one_seat_figures(strength: str, rotations: list, against: str, k: int, weights: np.ndarray,
                      lower: bool) -> tuple[list[Figure], np.ndarray, np.ndarray]:
    """Figures of ``strength`` in one seat of an ``against`` table, every seat in turn
    (``rotations[r]``: it sits at seat ``r``): win rate, score and Elo against the others
    and the luck/skill split; with its resampled win rate and score."""
    deals = weights.shape[1]
    win = np.stack([o.win for o in rotations], axis=2)  # [D, k seats, k rotations]
    own_win = np.stack([o.win[:, r] for r, o in enumerate(rotations)], axis=1).mean(axis=1)
    score = np.stack([score_against_field(o.win, o.points, r, lower) for r, o in enumerate(rotations)],
                     axis=1).mean(axis=1)
    group = f"1 seat vs {against}"
    adjusted_win = _adjust_rotations(rotations, [o.win[:, r] for r, o in enumerate(rotations)])
    adjusted_score = _adjust_rotations(rotations, [score_against_field(o.win, o.points, r, lower)
                                                   for r, o in enumerate(rotations)])
    if adjusted_win is not None:
        own_win = adjusted_win[0]
    if adjusted_score is not None:
        score = adjusted_score[0]
    wins, scores = weighted_mean(weights, own_win), weighted_mean(weights, score)
    out = [_adjusted_figure("win_rate", group, strength, "rate", deals * k, weights, adjusted_win)
           if adjusted_win is not None else Figure("win_rate", group, strength, "rate", deals * k, wins, "mean",
                                                   per_deal=own_win),
           _adjusted_figure("score_vs_field", group, strength, "rate", deals * k, weights, adjusted_score)
           if adjusted_score is not None else Figure("score_vs_field", group, strength, "rate", deals * k, scores,
                                                     "mean", per_deal=score),
           Figure("elo", group, strength, "elo", deals * k, elo(scores))]
    parts = decompose(weights @ deal_statistics(win), weights.sum(axis=1), k)
    note = "" if np.isfinite(parts["luck_share"][0]) else "degenerate: the outcomes do not vary"
    for name in ("luck_share", "skill_share", "residual_share"):
        out.append(Figure(name, f"{strength} vs {against}", strength, "share", deals, parts[name], note=note))
    return out, wins, scores


def _adjust(o, y: np.ndarray, seats) -> tuple[np.ndarray, float, float] | None:
    """Cross-fitted control-variate values of a per-deal outcome ``y`` of a table ``o``,
    regressed on the features seen from ``seats`` (averaged over them): ``(z per deal,
    ess_factor, extra variance of the mean from the control's estimated expectation)``, or
    None when the table has no control, variance reduction is off or it does not help."""
    from cardsim.analysis.variance import adjusted_values, enabled, pooled_cov, seat_view

    if o.controls is None or not enabled():
        return None
    players, kx = o.controls.shape[1], o.controls.shape[2]
    x = np.mean([seat_view(o.controls, s) for s in seats], axis=0)
    z, fit, _ = adjusted_values(y, x, o.control_fold, mean_cov=pooled_cov(o.control_mean_cov, players, kx, seats))
    if not fit.adjusted or fit.ess_factor < 1.0:
        return None
    extra = max(fit.se ** 2 - float(np.var(z, ddof=1)) / len(z), 0.0)
    return z, float(fit.ess_factor), extra


def _adjust_rotations(rotations: list, per_table: list) -> tuple[np.ndarray, float, float] | None:
    """:func:`_adjust` of a one-seat figure: the measured strength sits at seat ``r`` of
    table ``r`` (``per_table[r]``: its per-deal outcome there), each table's outcome is
    adjusted by its own control seen from seat ``r``, and the figure's per-deal value is
    their mean over the tables. The extra variance carries every table's expectation error
    (the tables share one deal sample: ``v' C v`` with ``v`` the tables' mapped ``beta``)."""
    from cardsim.analysis.variance import adjusted_values, enabled, seat_view

    if not enabled() or any(o.controls is None for o in rotations):
        return None
    first = rotations[0]
    players, kx = first.controls.shape[1], first.controls.shape[2]
    if any(o.controls.shape != first.controls.shape for o in rotations):
        return None
    tables = len(rotations)
    z = np.zeros(len(per_table[0]))
    v = np.zeros(players * kx)
    for r, (o, y) in enumerate(zip(rotations, per_table)):
        zr, _, beta = adjusted_values(y, seat_view(o.controls, r), o.control_fold)
        z += zr / tables
        order = np.array([(r + j) % players for j in range(players)])
        v[(order[:, None] * kx + np.arange(kx)).reshape(-1)] += beta / tables
    plain = np.mean(per_table, axis=0)
    extra = 0.0 if first.control_mean_cov is None else float(v @ np.asarray(first.control_mean_cov) @ v)
    n = len(z)
    if n < 2:
        return None
    adjusted_var = float(np.var(z, ddof=1)) / n + extra
    plain_var = float(np.var(plain, ddof=1)) / n
    if not adjusted_var > 0 or plain_var < adjusted_var:
        return None
    return z, plain_var / adjusted_var, extra


def _adjusted_figure(metric: str, group: str, strength: str, unit: str, n: int, weights: np.ndarray,
                     adjusted: tuple[np.ndarray, float, float]) -> Figure:
    """A figure from adjusted per-deal values (:func:`_adjust`): a mean over deals with a
    normal interval (its control's expectation error added)."""
    z, ess, extra = adjusted
    return Figure(metric, group, strength, unit, n, weighted_mean(weights, z), "mean", per_deal=z,
                  ess_factor=ess, extra_var=extra)


def _mix_figures(strength: str, m: int, tables: list, field: str, k: int, weights: np.ndarray) -> list[Figure]:
    """Figures of ``strength`` holding ``m`` seats against the ``field``, every set of ``m``
    seats in turn (``tables``: ``(outcomes, seats held)``): its win rate per seat held and
    the luck/skill split of that mix."""
    deals = weights.shape[1]
    design = np.array([[s in held for _, held in tables] for s in range(k)])  # [seat, rotation]
    win = np.stack([o.win for o, _ in tables], axis=2)  # [D, k seats, rotations]
    own_win = (win * design[None]).sum(axis=(1, 2)) / design.sum()
    group = f"{m} seats vs {field}"
    out = [Figure("win_rate", group, strength, "rate", int(deals * design.sum()), weighted_mean(weights, own_win), "mean",
                  per_deal=own_win)]
    parts = decompose(weights @ deal_statistics(win, design), weights.sum(axis=1), k, len(tables),
                      int(design[0].sum()))
    note = "" if np.isfinite(parts["luck_share"][0]) else "degenerate: the outcomes do not vary"
    for name in ("luck_share", "skill_share", "residual_share"):
        out.append(Figure(name, f"{strength} x{m} vs {field}", strength, "share", deals, parts[name], note=note))
    return out


def figure_interval(f: Figure) -> tuple[float, float]:
    """The 95% interval of a figure, as its ``kind`` says (see :class:`Figure`)."""
    if f.kind == "rate":
        if f.n <= 0:
            return math.nan, math.nan
        low, high = wilson(min(max(f.hits, 0.0), f.n), f.n)
        return float(low), float(high)
    if f.kind == "mean" and f.per_deal is not None:
        x = np.asarray(f.per_deal, float)
        se = float(math.sqrt(x.var(ddof=1) / x.size + f.extra_var)) if x.size > 1 else math.nan
        return float(f.values[0] - Z95 * se), float(f.values[0] + Z95 * se)
    if f.kind == "range":
        # every pairwise difference lies within the estimate +- c at once with 95%, c the
        # 95% quantile of the resamples' largest pairwise deviation; the range follows
        deviation = f.parts[1:] - f.parts[0]
        c = float(np.percentile(deviation.max(axis=1) - deviation.min(axis=1), 95))
        return max(float(f.values[0]) - c, 0.0), float(f.values[0]) + c
    rest = f.values[1:]
    rest = rest[np.isfinite(rest)]
    if rest.size == 0 or not np.isfinite(f.values[0]):
        return math.nan, math.nan
    low, high = np.percentile(rest, [2.5, 97.5])
    return float(low), float(high)


def records(items: Sequence[Figure]) -> pd.DataFrame:
    """The card as a table: ``CARD_COLUMNS``, one row per figure."""
    rows = []
    for f in items:
        low, high = figure_interval(f)
        rows.append((f.metric, f.group, f.strength, f.unit, int(f.n), float(f.values[0]), low, high,
                     float(f.ess_factor), f.note))
    return pd.DataFrame(rows, columns=CARD_COLUMNS)


def card(play, resamples: int = BOOTSTRAP) -> pd.DataFrame:
    """The balance card of a played card (:func:`cardsim.simcore.study.balance.play_balance`)."""
    deals = next(iter(play.alone.values())).win.shape[0]
    return records(figures(play, bootstrap_weights(deals, play.config.seed, resamples)))


def compare_cards(base, other, resamples: int = BOOTSTRAP) -> pd.DataFrame:
    """Two played cards on the same deals side by side: ``CARD_COLUMNS`` plus ``rules``
    (``base``, ``compare``, ``difference``); a difference is ``compare - base`` with a
    percentile bootstrap interval over deals (paired: the same deals resampled in both)."""
    deals = next(iter(base.alone.values())).win.shape[0]
    weights = bootstrap_weights(deals, base.config.seed, resamples)
    a, b = figures(base, weights), figures(other, weights)
    keyed = {(f.metric, f.group, f.strength): f for f in b}
    diffs = []
    for f in a:
        g = keyed.get((f.metric, f.group, f.strength))
        if g is None:
            continue
        # a difference's interval is the paired bootstrap of the two cards' (adjusted) values:
        # its own factor is not measured (NaN)
        diffs.append(Figure(f.metric, f.group, f.strength, f.unit, min(f.n, g.n), g.values - f.values,
                            note=f.note or g.note, ess_factor=math.nan))
    frames = [records(a).assign(rules="base"), records(b).assign(rules="compare"),
              records(diffs).assign(rules="difference")]
    return pd.concat(frames, ignore_index=True)[["rules", *CARD_COLUMNS]]


def headline(table: pd.DataFrame) -> pd.DataFrame:
    """The answers at a glance: seat gap, length, draws, luck and skill shares, ladder figures."""
    keep = {"seat_gap", "length", "no_winner_rate", "luck_share", "skill_share", "elo_spread", "levels_60",
            "games_to_outweigh_luck",
            "relative_skill", "comeback_rate"}
    return table[table["metric"].isin(keep)].reset_index(drop=True)


__all__ = ["CARD_COLUMNS", "card", "compare_cards", "decompose", "deal_statistics", "figures", "records",
           "bootstrap_weights", "ladder_figures", "headline", "elo", "score_against_field", "Figure",
           "figure_interval", "weighted_mean"]
