"""Fewer games for the same answer: cross-fitted regression control variates on the deal.

A game's outcome ``y`` (a seat's win, its points, the game's length) depends partly on
the luck of the deal. For a vector ``x`` of features of the dealt hands whose
expectation ``mu`` is known (exactly, from the hypergeometric law of the deck, or from
a separate, much larger deal-only sample), the adjusted value

    z_i = y_i - (x_i - mu) . beta

has the same expectation as ``y_i`` for any *fixed* ``beta``, and a smaller variance
when ``beta`` is near the regression of ``y`` on ``x``. Fitting ``beta`` on the same
games it adjusts would bias the estimate (slightly, and the interval more), so the
games are split into ``K`` folds (by game index) and fold ``f`` is adjusted with the
``beta`` fitted on the other ``K - 1`` folds (*cross-fitting*). The estimate is the
mean of ``z``; its 95% interval is the normal one from the variance of ``z`` (plus, when
``mu`` comes from a deal-only sample, ``beta' Cov(mu) beta``: that sample's error is
carried into the interval). ``ess_factor`` is the plain variance over the adjusted one:
the adjusted estimate from ``n`` games is as precise as the plain one from
``ess_factor x n`` games.

Everything is streamed: each fold keeps only sums (``n``, ``sum y``, ``sum y^2``,
``sum x``, ``sum x y``, ``sum x x'``), so memory does not grow with the number of games.

The separation between the data a fit sees and the data it adjusts is enforced, not
just promised: :class:`ControlFit` records the folds (or game ids) it was fitted on and
:meth:`ControlFit.adjust` refuses data from them (:class:`LeakError`).

This is the deal part of AIVAT (Burch et al., 2017, "AIVAT: A New Variance Reduction
Technique for Agent Evaluation in Imperfect Information Games"): one chance event (the
deal) corrected with a value function of the dealt hands that is fitted out of fold.
For runs with costly seats (search, outside seats) a stronger value is used as well: the
outcome of the *heuristic twin*, the same game (same deal, same stock) played by the
heuristic in every seat (:func:`twin_control`). The stock draws are corrected too, in Tứ Sắc
and in Loba and Continental (:func:`tusac_draw_control`, :func:`rummy_draw_control`: per
stock draw, a fixed value of the drawn card minus its mean over the stock, AIVAT's later
chance events).
"""
from __future__ import annotations

import contextlib
import math
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Iterable, Optional

import numpy as np
import pandas as pd

from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.primitives.intervals import Z95

#: Folds of the cross-fitting (games are assigned by index: ``game % FOLDS``).
FOLDS = 10
#: Fewest values of a cell (per feature + 1) for the adjustment; smaller cells stay plain.
MIN_PER_FEATURE = 20
MIN_VALUES = 400


class LeakError(ConfigError):
    """A control fitted on data that it is asked to evaluate (the estimate would be biased)."""


# --------------------------------------------------------------------------- switch

_ENABLED: list[bool] = [os.environ.get("CARDSIM_VARIANCE_REDUCTION", "1").lower() not in ("0", "off", "no", "false")]


def enabled() -> bool:
    """Is variance reduction on (default yes; ``CARDSIM_VARIANCE_REDUCTION=0`` or
    :func:`variance_reduction` ``(False)`` turn it off)?"""
    return _ENABLED[-1]


@contextlib.contextmanager
def variance_reduction(on: bool = True):
    """Context manager: summaries built inside use (or not) the deal control variates."""
    _ENABLED.append(bool(on))
    try:
        yield
    finally:
        _ENABLED.pop()


def set_variance_reduction(on: bool) -> None:
    """Set the process-wide default (the CLI's ``--no-variance-reduction``)."""
    _ENABLED[0] = bool(on)


# --------------------------------------------------------------------------- fitting

@dataclass
class Moments:
    """Sums of one fold: ``n, sum y, sum y^2, sum x, sum x y, sum x x'`` (``x`` centred at ``mu``)."""

    k: int
    n: int = 0
    sy: float = 0.0
    syy: float = 0.0
    sx: np.ndarray = None  # type: ignore[assignment]
    sxy: np.ndarray = None  # type: ignore[assignment]
    sxx: np.ndarray = None  # type: ignore[assignment]

    def __post_init__(self):
        if self.sx is None:
            self.sx = np.zeros(self.k)
            self.sxy = np.zeros(self.k)
            self.sxx = np.zeros((self.k, self.k))

    def add(self, y: np.ndarray, x: np.ndarray) -> None:
        self.n += y.size
        self.sy += float(y.sum())
        self.syy += float(y @ y)
        self.sx += x.sum(axis=0)
        self.sxy += x.T @ y
        self.sxx += x.T @ x

    def __iadd__(self, other: "Moments") -> "Moments":
        self.n += other.n
        self.sy += other.sy
        self.syy += other.syy
        self.sx = self.sx + other.sx
        self.sxy = self.sxy + other.sxy
        self.sxx = self.sxx + other.sxx
        return self


@dataclass(frozen=True)
class ControlFit:
    """A fitted control: ``z = y - (x - mu) . beta``, with the data it was fitted on.

    ``fitted_on`` holds the fold numbers (or game ids) of the fitting data; :meth:`adjust`
    refuses data carrying any of them, so a fit never evaluates its own games.
    """

    beta: np.ndarray
    fitted_on: frozenset

    def check(self, ids: Iterable) -> None:
        overlap = self.fitted_on.intersection(np.unique(np.asarray(list(ids) if not isinstance(ids, np.ndarray)
                                                                   else ids)).tolist())
        if overlap:
            raise LeakError(f"the control was fitted on the data it is asked to evaluate "
                            f"({len(overlap)} shared fold/game ids, e.g. {sorted(overlap)[:3]}): "
                            "fit it on other games (cross-fitting) or the estimate is biased")

    def adjust(self, y, x, ids) -> np.ndarray:
        """Adjusted values of games ``ids`` (disjoint from ``fitted_on``, else :class:`LeakError`)."""
        self.check(ids)
        return np.asarray(y, float) - np.asarray(x, float) @ self.beta

    def adjust_moments(self, m: Moments, fold) -> tuple[float, float]:
        """``(sum z, sum z^2)`` of a fold from its sums (the fold must not be in ``fitted_on``)."""
        self.check([fold])
        b = self.beta
        return m.sy - m.sx @ b, m.syy - 2 * b @ m.sxy + b @ m.sxx @ b


def fit_control(m: Moments, fitted_on: Iterable) -> ControlFit:
    """Least squares of ``y`` on ``x`` (with an intercept) from sums; singular directions
    (collinear features, e.g. indicators that sum to 1 over the seats) get no weight."""
    if m.n <= m.k + 1:
        return ControlFit(np.zeros(m.k), frozenset(fitted_on))
    cxx = m.sxx - np.outer(m.sx, m.sx) / m.n
    cxy = m.sxy - m.sx * m.sy / m.n
    beta = np.linalg.pinv(cxx, rcond=1e-9, hermitian=True) @ cxy
    return ControlFit(beta, frozenset(fitted_on))


def fit_values(y, x, ids) -> ControlFit:
    """A control fitted on per-game values ``y`` and centred features ``x`` of games ``ids``."""
    y = np.asarray(y, float)
    x = np.asarray(x, float).reshape(len(y), -1)
    m = Moments(x.shape[1])
    m.add(y, x)
    return fit_control(m, np.unique(np.asarray(ids)).tolist())


@dataclass
class Adjusted:
    """An estimate of a mean: plain and cross-fitted adjusted, with standard errors."""

    n: int
    plain: float
    plain_se: float
    value: float
    se: float
    adjusted: bool

    @property
    def ess_factor(self) -> float:
        if not self.adjusted or not self.se > 0:
            return 1.0
        return float(self.plain_se ** 2 / self.se ** 2)

    def interval(self, z: float = Z95) -> tuple[float, float]:
        return self.value - z * self.se, self.value + z * self.se


@dataclass
class CrossFit:
    """Streaming cross-fitted control variate of one mean: ``add(y, x, folds)`` part by
    part, then :meth:`result`. ``x`` must already be centred at its expectation;
    ``mean_cov`` is the covariance of that expectation's estimate (zeros when exact)."""

    k: int
    folds: int = FOLDS
    mean_cov: Optional[np.ndarray] = None
    cells: dict = field(default_factory=dict)

    def add(self, y, x, fold) -> None:
        y = np.asarray(y, float)
        x = np.asarray(x, float).reshape(len(y), self.k)
        fold = np.asarray(fold, np.int64) % self.folds
        for f in np.unique(fold):
            pick = fold == f
            self.cells.setdefault(int(f), Moments(self.k)).add(y[pick], x[pick])

    def total(self) -> Moments:
        total = Moments(self.k)
        for m in self.cells.values():
            total += m
        return total

    def result(self, force: bool = False) -> Adjusted:
        total = self.total()
        n = total.n
        plain = total.sy / n if n else math.nan
        var_y = max(total.syy - total.sy ** 2 / n, 0.0) / (n - 1) if n > 1 else math.nan
        plain_se = math.sqrt(var_y / n) if n > 1 else math.nan
        usable = (force or n >= max(MIN_VALUES, MIN_PER_FEATURE * (self.k + 1))) and len(self.cells) >= 2
        if not usable or not var_y > 0:
            return Adjusted(n, plain, plain_se, plain, plain_se, False)
        sz = szz = 0.0
        beta_bar = np.zeros(self.k)
        for f, m in self.cells.items():
            rest = Moments(self.k)
            for g, other in self.cells.items():
                if g != f:
                    rest += other
            fit = fit_control(rest, [g for g in self.cells if g != f])
            a, b = fit.adjust_moments(m, f)
            sz += a
            szz += b
            beta_bar += fit.beta * (m.n / n)
        var_z = max(szz - sz * sz / n, 0.0) / (n - 1)
        extra = float(beta_bar @ self.mean_cov @ beta_bar) if self.mean_cov is not None else 0.0
        se = math.sqrt(var_z / n + extra)
        return Adjusted(n, plain, plain_se, sz / n, se, True)


def cross_fitted(y, x, fold, folds: int = FOLDS, mean_cov=None, force: bool = True) -> Adjusted:
    """One-shot :class:`CrossFit` of per-game values ``y`` on centred features ``x``."""
    y = np.asarray(y, float)
    x = np.asarray(x, float).reshape(len(y), -1)
    cf = CrossFit(x.shape[1], folds, None if mean_cov is None else np.asarray(mean_cov, float))
    cf.add(y, x, fold)
    return cf.result(force=force)


# --------------------------------------------------------------------------- the games' deal features

@dataclass(frozen=True)
class DealControl:
    """Per-seat deal features of a game's per-game table, centred at their expectation.

    ``seat_features(frame)`` returns an array ``(games, players, k)``: seat ``s``'s own
    features (each centred). :meth:`features` orders them from a given seat (own first,
    then the next seats in play order), the regressors of that seat's metrics.
    ``mean_cov`` (``players*k`` square) is the covariance of the estimated expectation
    (zeros when it is exact).
    """

    name: str
    players: int
    k: int
    seat_features: Callable[[pd.DataFrame], np.ndarray]
    mean_cov: Optional[np.ndarray] = None
    fold_column: str = "game"

    @property
    def width(self) -> int:
        return self.players * self.k

    def features(self, frame: pd.DataFrame, seat: int = 0, seats: Optional[np.ndarray] = None) -> np.ndarray:
        """``(games, players*k)`` centred features seen from ``seat`` (own seat first)."""
        return seat_view(self.seat_features(frame), seat)

    def cov_from(self, seat: int = 0) -> Optional[np.ndarray]:
        """The expectation's error covariance in :meth:`features`' order from ``seat`` (None: exact)."""
        return pooled_cov(self.mean_cov, self.players, self.k, [seat])

    def folds(self, frame: pd.DataFrame) -> np.ndarray:
        return frame[self.fold_column].to_numpy(np.int64)


def _hypergeom(k: int, population: int, hits: int, draws: int) -> float:
    return math.comb(hits, k) * math.comb(population - hits, draws - k) / math.comb(population, draws)


def tienlen_control(rules: dict, options: dict, lowest: str = "three_spades_seat",
                    name: str = "tienlen: 2s dealt, 3♠") -> Optional[DealControl]:
    """Tiến Lên: per seat the number of 2s dealt (one indicator per count 1..4, exact
    hypergeometric probabilities) and whether the seat holds the lowest card (3♠; exact
    probability cards/52). Folds are whole matches (a match's games share a leader chain).
    Big Two's is the same with 3♦ (column ``lowest``)."""
    players, hand = int(rules["players"]), int(rules.get("cards_per_player", 13))
    counts = [k for k in range(1, 5) if k <= hand]
    p_twos = np.array([_hypergeom(k, 52, 4, hand) for k in counts])
    p_low = hand / 52

    def seat_features(frame: pd.DataFrame) -> np.ndarray:
        out = np.empty((len(frame), players, len(counts) + 1))
        low = frame[lowest].to_numpy()
        for s in range(players):
            twos = frame[f"twos_dealt_{s}"].to_numpy()
            for j, k in enumerate(counts):
                out[:, s, j] = (twos == k) - p_twos[j]
            out[:, s, -1] = (low == s) - p_low
        return out

    return DealControl(name, players, len(counts) + 1, seat_features, fold_column="match")


def bigtwo_control(rules: dict, options: dict) -> Optional[DealControl]:
    """Big Two: Tiến Lên's control with the 3♦ (the first leader's card)."""
    return tienlen_control(rules, options, lowest="three_diamonds_seat", name="bigtwo: 2s dealt, 3♦")


#: Deals of the deal-only sample that estimates the Tứ Sắc feature means (1M: ~1.5 s).
TUSAC_DEALS = 1_000_000
TUSAC_SEED = 0x5EED_DEA1


@lru_cache(maxsize=8)
def tusac_feature_means(players: int, mulligan: bool, deals: int = TUSAC_DEALS) -> tuple[np.ndarray, np.ndarray, int]:
    """Means of (triples, quadruples dealt) per seat over a deal-only sample (conditioned on
    no weak hand when mulligans redeal them), the covariance of those means, and the
    sample size. The sample is separate from every play run (its own seed)."""
    from cardsim.simcore.tusac import deal as kernel

    hands, weak = kernel.deal_rows(TUSAC_SEED, 0, deals, players)
    if mulligan:
        hands = hands[weak == 0]
    seats = hands[:, :players, :]
    x = np.concatenate([(seats == 3).sum(axis=2), (seats == 4).sum(axis=2)], axis=1).astype(float)
    # reorder to seat-major (seat, feature)
    x = np.stack([x[:, :players], x[:, players:]], axis=2).reshape(len(x), -1)
    return x.mean(axis=0), np.cov(x, rowvar=False) / len(x), len(x)


def tusac_control(rules: dict, options: dict) -> Optional[DealControl]:
    """Tứ Sắc: per seat the types dealt exactly 3 and 4 times, centred at their means over
    a 1M-deal sample (conditioned like the play's mulligans); that sample's error is
    carried into the interval."""
    players = int(rules["players"])
    means, cov, _ = tusac_feature_means(players, bool(rules.get("mulligan", True)))
    mu = means.reshape(players, 2)

    def seat_features(frame: pd.DataFrame) -> np.ndarray:
        out = np.empty((len(frame), players, 2))
        for s in range(players):
            out[:, s, 0] = frame[f"dealt_triples_{s}"].to_numpy() - mu[s, 0]
            out[:, s, 1] = frame[f"dealt_quads_{s}"].to_numpy() - mu[s, 1]
        return out

    return DealControl("tusac: triples, quadruples dealt", players, 2, seat_features, mean_cov=cov)


def tusac_draw_control(rules: dict, options: dict) -> Optional[DealControl]:
    """Tứ Sắc's luck of the draws (:mod:`cardsim.simcore.tusac.luck`): per seat the sums over
    the game's stock draws of a fixed value of the drawn card minus its mean over the stock
    (``draw_luck_NAME_s``; the play kernel records them at tables with a search seat). Each
    term has expectation exactly 0 given the game before the draw, so the means are exact
    (0). A table without the columns (no search seat) gets zeros: no adjustment."""
    from cardsim.simcore.tusac.luck import LUCK_NAMES

    return _luck_control("tusac: the draws' luck", int(rules["players"]), LUCK_NAMES)


def rummy_draw_control(rules: dict, options: dict) -> Optional[DealControl]:
    """Loba's and Continental's luck of the stock draws (:mod:`cardsim.simcore.rummy.luck`):
    per seat, summed over the match's stock draws, a fixed value of the drawn card minus its
    mean over the stock (``draw_luck_NAME_s`` of the matches table; recorded at tables with a
    search seat). Exact expectation 0; a table without the columns gets zeros."""
    from cardsim.simcore.rummy.luck import LUCK_NAMES

    return _luck_control("rummy: the draws' luck", int(rules["players"]), LUCK_NAMES)


def _luck_control(name: str, players: int, names) -> DealControl:
    def seat_features(frame: pd.DataFrame) -> np.ndarray:
        out = np.zeros((len(frame), players, len(names)))
        for s in range(players):
            for j, value in enumerate(names):
                column = f"draw_luck_{value}_{s}"
                if column in frame:
                    out[:, s, j] = frame[column].to_numpy(float)
        return out

    return DealControl(name, players, len(names), seat_features)


CONTROLS = {"tienlen": tienlen_control, "tusac": tusac_control, "bigtwo": bigtwo_control}
#: Per-draw controls (AIVAT's chance events after the deal), used at tables with a costly seat.
DRAW_CONTROLS = {"tusac": tusac_draw_control, "loba": rummy_draw_control, "continental": rummy_draw_control}


# --------------------------------------------------------------------------- the heuristic twin

#: Seat policies that cost far more per game than the heuristic: a run with one of them
#: gets the twin control (below), whose extra games are cheap beside the run's own.
COSTLY_POLICIES = ("search", "oracle", "openspiel-ismcts", "python:", "bigtwo-ppo")
#: The twin's policy, in every seat.
TWIN_POLICY = "heuristic"
#: The twin's mean comes from a separate sample of ``TWIN_SAMPLE_FACTOR x`` the run's
#: games (within the bounds below), so its error adds at most ~5% to the variance.
TWIN_SAMPLE_FACTOR = 20
TWIN_SAMPLE_MIN = 10_000
TWIN_SAMPLE_MAX = 2_000_000
#: Mixed into the run seed for the separate sample (a different run: independent games).
TWIN_SEED_MIX = 0x7719_C0DE_5EED_0001


def costly(policies: Iterable[str]) -> bool:
    """Does a seat play a costly policy (search, oracle or an outside seat)?"""
    return any(str(p).startswith(COSTLY_POLICIES) for p in policies)


def twin_seed(seed: int) -> int:
    """The seed of the twin's separate sample: never the run's own (so its games are not
    the run's games), a fixed function of it (so a summary is the same every time)."""
    mixed = (int(seed) ^ TWIN_SEED_MIX) % (1 << 64)
    return mixed if mixed != int(seed) else (mixed + 1) % (1 << 64)


def twin_sample_games(n: int) -> int:
    return int(min(TWIN_SAMPLE_MAX, max(TWIN_SAMPLE_MIN, TWIN_SAMPLE_FACTOR * int(n))))


def _twin_values(game: str, seed: int, games: int, rules: dict, options: dict) -> tuple[np.ndarray, np.ndarray]:
    """Game ids and per-seat ``(won, points)``, shape ``(games, players, 2)``, of games
    ``0 .. games-1`` of run ``seed`` played by the heuristic in every seat (in memory)."""
    import cardsim
    from cardsim.analysis.metrics import metric_spec
    from cardsim.simcore.framework.config import rule_text

    table, function, _ = metric_spec(game, "play")
    settings = {k: rule_text(v) for k, v in rules.items()}
    with variance_reduction(False):
        result = cardsim.play(game, games, seed=seed, rules=settings, policy=TWIN_POLICY, progress=False,
                              **options)
    frame = result.tables[table]
    frame = frame.sort_values("game", kind="stable").reset_index(drop=True)
    values = function(frame)
    players = int(rules["players"])
    out = np.empty((len(frame), players, 2))
    for s in range(players):
        out[:, s, 0] = values[f"win_seat_{s}"].to_numpy(float)
        out[:, s, 1] = values[f"points_seat_{s}"].to_numpy(float)
    return frame["game"].to_numpy(np.int64), out


@lru_cache(maxsize=8)
def _twin(game: str, seed: int, games: int, rules_json: str, options_json: str):
    import json

    rules, options = json.loads(rules_json), json.loads(options_json)
    ids, values = _twin_values(game, seed, games, rules, options)
    sample_n = twin_sample_games(games)
    _, sample = _twin_values(game, twin_seed(seed), sample_n, rules, options)
    flat = sample.reshape(len(sample), -1)  # seat-major (seat, feature), as DealControl wants
    means = flat.mean(axis=0)
    cov = np.cov(flat, rowvar=False) / len(flat)
    return ids, values, means, cov, sample_n


def _twin_options(meta: dict) -> dict:
    """The run's play options for the twin (every one but the seats' policies)."""
    options = dict(meta.get("options", {}))
    options.pop("policies", None)
    options.pop("policy", None)
    return options


def twin_control(meta: dict) -> Optional[DealControl]:
    """The heuristic twin of a costly run: per seat, whether the seat won and its points
    when the heuristic plays the *same* game (same seed and index: the same deal and, in
    the stock games, the same shuffled stock) in every seat. The twin is a fixed function
    of the game's randomness, so it is a control variate whatever the run's players do;
    its expectation comes from a separate sample of :func:`twin_sample_games` heuristic
    games of another seed, and that sample's error is carried into the interval."""
    import json

    game, seed, n = str(meta["game"]), int(meta["seed"]), int(meta["n"])
    rules, options = meta["rules"], _twin_options(meta)
    ids, values, means, cov, sample_n = _twin(game, seed, n, json.dumps(rules, sort_keys=True),
                                             json.dumps(options, sort_keys=True))
    players = int(rules["players"])
    position = {int(g): i for i, g in enumerate(ids)}
    mu = means.reshape(players, 2)

    def seat_features(frame: pd.DataFrame) -> np.ndarray:
        rows = np.fromiter((position[int(g)] for g in frame["game"].to_numpy()), np.int64, len(frame))
        return values[rows] - mu

    return DealControl(f"heuristic twin ({sample_n:,} games for its mean)", players, 2, seat_features,
                       mean_cov=cov)


def combine(first: Optional[DealControl], second: Optional[DealControl]) -> Optional[DealControl]:
    """One control with both controls' features per seat (their means estimated apart:
    the covariance is block diagonal); the first control's folds."""
    if first is None or second is None:
        return first if second is None else second
    players, k1, k2 = first.players, first.k, second.k
    k = k1 + k2
    cov = np.zeros((players * k, players * k))
    for a, control, offset in ((first, first, 0), (second, second, k1)):
        if control.mean_cov is None:
            continue
        src = np.array([s * control.k + j for s in range(players) for j in range(control.k)])
        dst = np.array([s * k + offset + j for s in range(players) for j in range(control.k)])
        cov[np.ix_(dst, dst)] = control.mean_cov[np.ix_(src, src)]

    def seat_features(frame: pd.DataFrame) -> np.ndarray:
        return np.concatenate([first.seat_features(frame), second.seat_features(frame)], axis=2)

    return DealControl(f"{first.name}; {second.name}", players, k, seat_features,
                       mean_cov=cov if cov.any() else None, fold_column=first.fold_column)


def deal_control(meta: dict) -> Optional[DealControl]:
    """The control of a play run (from its ``run.json`` meta), or None when variance
    reduction is off or the game has none: the game's deal features (Tiến Lên, Tứ Sắc),
    plus, when a seat plays a costly policy (:data:`COSTLY_POLICIES`), the heuristic twin
    (every game)."""
    if not enabled() or meta.get("task") != "play":
        return None
    make = CONTROLS.get(str(meta.get("game")))
    control = None if make is None else make(meta["rules"], meta.get("options", {}))
    # below MIN_VALUES games no cell is adjusted: the twin would be played for nothing
    if costly(meta.get("options", {}).get("policies", [])) and int(meta.get("n", 0)) >= MIN_VALUES:
        draws = DRAW_CONTROLS.get(str(meta.get("game")))
        if draws is not None:
            control = combine(control, draws(meta["rules"], meta.get("options", {})))
        control = combine(control, twin_control(meta))
    return control


def table_control(game: str, rules: dict, options: dict, seed: int, n: int,
                  policies) -> Optional[DealControl]:
    """The control of one table of a study (a ladder's or a balance card's play run of games
    ``0 .. n-1`` of ``seed`` with ``policies`` at the seats; ``options``: the study's other
    play options): as :func:`deal_control` for that play run, or None when variance
    reduction is off or the game has no control."""
    meta = {"task": "play", "game": game, "rules": dict(rules), "seed": int(seed), "n": int(n),
            "options": {**dict(options), "policies": [str(p) for p in policies]}}
    return deal_control(meta)


def seat_view(per_seat: np.ndarray, seat: int) -> np.ndarray:
    """``(games, players*k)`` features seen from ``seat`` (own seat first, then the next seats
    in play order) of per-seat features ``(games, players, k)``, as :meth:`DealControl.features`."""
    players = per_seat.shape[1]
    order = [(seat + j) % players for j in range(players)]
    return per_seat[:, order, :].reshape(len(per_seat), -1)


def pooled_cov(mean_cov: Optional[np.ndarray], players: int, k: int, seats) -> Optional[np.ndarray]:
    """The covariance of the expectation's error for features averaged (or rows pooled)
    over ``seats``, each seat's features in its own order (:func:`seat_view`): ``M C M'``
    with ``M`` the mean of the seats' reorderings of the seat-major ``C = mean_cov``; one
    seat gives :meth:`DealControl.cov_from`. None when the expectation is exact."""
    if mean_cov is None:
        return None
    seats = list(seats)
    width = players * k
    mix = np.zeros((width, width))
    for seat in seats:
        order = np.array([(seat + j) % players for j in range(players)])
        idx = (order[:, None] * k + np.arange(k)).reshape(-1)
        mix[np.arange(width), idx] += 1.0 / len(seats)
    return mix @ np.asarray(mean_cov, float) @ mix.T


def pooled_mean_cov(control: DealControl, seats) -> Optional[np.ndarray]:
    """:func:`pooled_cov` of a control's expectation error."""
    return pooled_cov(control.mean_cov, control.players, control.k, seats)


def adjusted_values(y, x, fold, folds: int = FOLDS, mean_cov=None) -> tuple[np.ndarray, Adjusted, np.ndarray]:
    """Per-game cross-fitted adjusted values ``z`` (each fold adjusted with the ``beta``
    fitted on the other folds, :class:`ControlFit`, so no game is adjusted by a fit that saw
    it), the :class:`Adjusted` summary of their mean (:func:`cross_fitted`) and the folds'
    ``beta`` averaged by fold size (what the mean of ``z`` subtracts per unit of error in
    the features' expectation). When the cell is too small to adjust (or does not vary),
    ``z`` is ``y`` and ``beta`` zero. A weighted mean of ``z`` (a bootstrap over games) is an
    adjusted estimate with the same expectation."""
    y = np.asarray(y, float)
    x = np.asarray(x, float).reshape(len(y), -1)
    fold = np.asarray(fold, np.int64) % folds
    summary = cross_fitted(y, x, fold, folds, mean_cov, force=False)
    beta = np.zeros(x.shape[1])
    if not summary.adjusted:
        return y.copy(), summary, beta
    z = np.empty_like(y)
    for f in np.unique(fold):
        pick = fold == f
        fit = fit_values(y[~pick], x[~pick], fold[~pick])
        z[pick] = fit.adjust(y[pick], x[pick], fold[pick])
        beta += fit.beta * (pick.sum() / len(y))
    return z, summary, beta


_SEAT = re.compile(r"_seat_(\d+)$")


def metric_seat(metric: str) -> int:
    """The seat a per-game metric belongs to (``win_seat_2`` -> 2), 0 for game-level metrics."""
    found = _SEAT.search(metric)
    return int(found.group(1)) if found else 0
