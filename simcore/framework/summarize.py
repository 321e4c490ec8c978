"""Streaming summaries of ``play`` runs: the accumulator the games' ``summary.py`` use.

The table has one row per (metric, group): ``metric, group, n, value, ci_low, ci_high,
ess_factor``.
Rates (``win_rate``, ``instant_win``) get 95% Wilson intervals, means (``points``,
``tricks``, ``plays``) normal-approximation intervals, clipped at the smallest value the
metric can take where one is given (a count's interval never goes below 0). Groups
pooled over seats (by policy, by 2s dealt, 3♠ holder vs the rest) count seat-games,
which are not independent within a game (one winner per game), so their intervals are
slightly optimistic.

Cells given deal ``controls`` (centred features of the dealt hands, see
:mod:`cardsim.analysis.variance`) report the cross-fitted control-variate estimate and its
normal interval (clipped to [0, 1] for rates, at ``low`` for means) when it is at least as
precise as the plain one; ``ess_factor`` is the plain variance over the adjusted one (1
for plain rows).
"""
from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np
import pandas as pd

from cardsim.simcore.primitives.intervals import Z95, wilson

SUMMARY_COLUMNS = ["metric", "group", "n", "value", "ci_low", "ci_high", "ess_factor"]


class SummaryAccumulator:
    """Streaming sums per (metric, group)."""

    def __init__(self) -> None:
        # (metric, group) -> [kind, n, sum, sum of squares, smallest value (means) or None]
        self.cells: "OrderedDict[tuple[str, str], list]" = OrderedDict()
        # (metric, group) -> CrossFit of the cells given deal controls
        self.fits: dict = {}

    def _control(self, metric: str, group: str, values, controls) -> None:
        """``controls``: ``(centred features (n, k), folds (n,), covariance of the means or None)``."""
        if controls is None:
            return
        from cardsim.analysis.variance import CrossFit

        x, folds, cov = controls
        fit = self.fits.setdefault((metric, group), CrossFit(x.shape[1], mean_cov=cov))
        fit.add(values, x, folds)

    def _cell(self, metric: str, group: str, kind: str) -> list:
        return self.cells.setdefault((metric, group), [kind, 0, 0.0, 0.0, None])

    def rate(self, metric: str, group: str, hits, controls=None) -> None:
        hits = np.asarray(hits, bool)
        cell = self._cell(metric, group, "rate")
        cell[1] += hits.size
        cell[2] += float(hits.sum())
        self._control(metric, group, hits.astype(float), controls)

    def mean(self, metric: str, group: str, values, low: float | None = None, controls=None) -> None:
        """Add per-game ``values``; ``low`` is the smallest value the metric can take
        (``0`` for counts): the interval's lower end is clipped there."""
        values = np.asarray(values, float)
        cell = self._cell(metric, group, "mean")
        cell[1] += values.size
        cell[2] += float(values.sum())
        cell[3] += float(values @ values)
        cell[4] = low
        self._control(metric, group, values, controls)

    def table(self) -> pd.DataFrame:
        rows = []
        for (metric, group), (kind, n, s, ss, floor) in self.cells.items():
            if n == 0:
                continue
            fit = self.fits.get((metric, group))
            adjusted = fit.result() if fit is not None else None
            if adjusted is not None and adjusted.adjusted and adjusted.ess_factor >= 1.0:
                low, high = adjusted.interval()
                if kind == "rate":
                    low, high = max(low, 0.0), min(high, 1.0)
                elif floor is not None:
                    low = max(low, floor)
                rows.append((metric, group, n, adjusted.value, low, high, adjusted.ess_factor))
            elif kind == "rate":
                low, high = wilson(s, n)
                rows.append((metric, group, n, s / n, float(low), float(high), 1.0))
            else:
                mean = s / n
                se = math.sqrt(max(ss - s * s / n, 0.0) / (n - 1) / n) if n > 1 else math.nan
                low = mean - Z95 * se
                if floor is not None and not math.isnan(low):
                    low = max(low, floor)
                rows.append((metric, group, n, mean, low, mean + Z95 * se, 1.0))
        return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def deal_controls(control, frame: pd.DataFrame, seats, rows=None):
    """The ``controls`` argument of :meth:`SummaryAccumulator.rate` / ``mean`` for values
    of ``seats`` (one seat, or several stacked in that order, like ``np.concatenate`` of
    per-seat values), each seen from its own seat; ``rows`` picks games (a boolean mask).
    None when there is no control (the game records no deal features, or it is off)."""
    if control is None:
        return None
    seats = [seats] if isinstance(seats, (int, np.integer)) else list(seats)
    sub = frame if rows is None else frame[np.asarray(rows)]
    xs = [control.features(sub, s) for s in seats]
    folds = np.tile(control.folds(sub), len(seats))
    return np.concatenate(xs), folds, control.cov_from(seats[0]) if len(seats) == 1 else _pooled_cov(control)


def _pooled_cov(control):
    return None if control.mean_cov is None else control.cov_from(0)


def seat_columns(frame: pd.DataFrame, prefix: str) -> list[int]:
    """Seats ``s`` for which ``frame`` has a column ``{prefix}{s}``, sorted."""
    return sorted(int(c[len(prefix):]) for c in frame.columns if c.startswith(prefix) and c[len(prefix):].isdigit())
