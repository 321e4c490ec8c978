"""Streaming summaries of ``play`` runs: the accumulator the games' ``summary.py`` use.

The table has one row per (metric, group): ``metric, group, n, value, ci_low, ci_high``.
Rates (``win_rate``, ``instant_win``) get 95% Wilson intervals, means (``points``,
``tricks``, ``plays``) normal-approximation intervals, clipped at the smallest value the
metric can take where one is given (a count's interval never goes below 0). Groups
pooled over seats (by policy, by 2s dealt, 3♠ holder vs the rest) count seat-games,
which are not independent within a game (one winner per game), so their intervals are
slightly optimistic.
"""
from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np
import pandas as pd

from cardsim.simcore.primitives.intervals import Z95, wilson

SUMMARY_COLUMNS = ["metric", "group", "n", "value", "ci_low", "ci_high"]


class SummaryAccumulator:
    """Streaming sums per (metric, group)."""

    def __init__(self) -> None:
        # (metric, group) -> [kind, n, sum, sum of squares, smallest value (means) or None]
        self.cells: "OrderedDict[tuple[str, str], list]" = OrderedDict()

    def _cell(self, metric: str, group: str, kind: str) -> list:
        return self.cells.setdefault((metric, group), [kind, 0, 0.0, 0.0, None])

    def rate(self, metric: str, group: str, hits) -> None:
        hits = np.asarray(hits, bool)
        cell = self._cell(metric, group, "rate")
        cell[1] += hits.size
        cell[2] += float(hits.sum())

    def mean(self, metric: str, group: str, values, low: float | None = None) -> None:
        """Add per-game ``values``; ``low`` is the smallest value the metric can take
        (``0`` for counts): the interval's lower end is clipped there."""
        values = np.asarray(values, float)
        cell = self._cell(metric, group, "mean")
        cell[1] += values.size
        cell[2] += float(values.sum())
        cell[3] += float(values @ values)
        cell[4] = low

    def table(self) -> pd.DataFrame:
        rows = []
        for (metric, group), (kind, n, s, ss, floor) in self.cells.items():
            if n == 0:
                continue
            if kind == "rate":
                low, high = wilson(s, n)
                rows.append((metric, group, n, s / n, float(low), float(high)))
            else:
                mean = s / n
                se = math.sqrt(max(ss - s * s / n, 0.0) / (n - 1) / n) if n > 1 else math.nan
                low = mean - Z95 * se
                if floor is not None and not math.isnan(low):
                    low = max(low, floor)
                rows.append((metric, group, n, mean, low, mean + Z95 * se))
        return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def seat_columns(frame: pd.DataFrame, prefix: str) -> list[int]:
    """Seats ``s`` for which ``frame`` has a column ``{prefix}{s}``, sorted."""
    return sorted(int(c[len(prefix):]) for c in frame.columns if c.startswith(prefix) and c[len(prefix):].isdigit())
