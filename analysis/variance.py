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
The per-draw corrections of AIVAT are not built.
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
        per_seat = self.seat_features(frame)
        order = [(seat + j) % self.players for j in range(self.players)]
        return per_seat[:, order, :].reshape(len(frame), -1)

    def cov_from(self, seat: int = 0) -> Optional[np.ndarray]:
        if self.mean_cov is None:
            return None
        order = np.array([(seat + j) % self.players for j in range(self.players)])
        idx = (order[:, None] * self.k + np.arange(self.k)).reshape(-1)
        return self.mean_cov[np.ix_(idx, idx)]

    def folds(self, frame: pd.DataFrame) -> np.ndarray:
        return frame[self.fold_column].to_numpy(np.int64)


def _hypergeom(k: int, population: int, hits: int, draws: int) -> float:
    return math.comb(hits, k) * math.comb(population - hits, draws - k) / math.comb(population, draws)


def tienlen_control(rules: dict, options: dict) -> Optional[DealControl]:
    """Tiến Lên: per seat the number of 2s dealt (one indicator per count 1..4, exact
    hypergeometric probabilities) and whether the seat holds the lowest card (3♠; exact
    probability cards/52). Folds are whole matches (a match's games share a leader chain)."""
    players, hand = int(rules["players"]), int(rules["cards_per_player"])
    counts = [k for k in range(1, 5) if k <= hand]
    p_twos = np.array([_hypergeom(k, 52, 4, hand) for k in counts])
    p_low = hand / 52

    def seat_features(frame: pd.DataFrame) -> np.ndarray:
        out = np.empty((len(frame), players, len(counts) + 1))
        low = frame["three_spades_seat"].to_numpy()
        for s in range(players):
            twos = frame[f"twos_dealt_{s}"].to_numpy()
            for j, k in enumerate(counts):
                out[:, s, j] = (twos == k) - p_twos[j]
            out[:, s, -1] = (low == s) - p_low
        return out

    return DealControl("tienlen: 2s dealt, 3♠", players, len(counts) + 1, seat_features,
                       fold_column="match")


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


CONTROLS = {"tienlen": tienlen_control, "tusac": tusac_control}


def deal_control(meta: dict) -> Optional[DealControl]:
    """The deal control of a play run (from its ``run.json`` meta), or None: the game
    records no deal features (Loba, Continental) or variance reduction is off."""
    if not enabled() or meta.get("task") != "play":
        return None
    make = CONTROLS.get(str(meta.get("game")))
    return None if make is None else make(meta["rules"], meta.get("options", {}))


_SEAT = re.compile(r"_seat_(\d+)$")


def metric_seat(metric: str) -> int:
    """The seat a per-game metric belongs to (``win_seat_2`` -> 2), 0 for game-level metrics."""
    found = _SEAT.search(metric)
    return int(found.group(1)) if found else 0
