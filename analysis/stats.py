"""Means and differences with 95% intervals, from streamed per-game data.

Per-game metrics (0/1 wins, points, lengths) arrive one Parquet part at a time; the
:class:`PairedMoments` accumulator keeps only sums, so memory does not grow with the
number of games. Intervals use the normal approximation (games are independent).

Examples
--------
>>> import numpy as np
>>> acc = PairedMoments()
>>> acc.add(np.array([1.0, 0.0, 1.0, 1.0]), np.array([1.0, 0.0, 0.0, 1.0]))
>>> round(acc.paired()["difference"], 3)
-0.25
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from cardsim.analysis.intervals import Z95


def mean_interval(values, z: float = Z95) -> dict[str, float]:
    """Mean of ``values`` with a normal-approximation interval.

    Returns ``{"n", "mean", "se", "ci_low", "ci_high"}``.
    """
    x = np.asarray(values, dtype=float)
    n = x.size
    mean = float(x.mean()) if n else math.nan
    se = float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    return {"n": n, "mean": mean, "se": se, "ci_low": mean - z * se, "ci_high": mean + z * se}


@dataclass
class PairedMoments:
    """Running sums of two aligned per-game series ``a`` (baseline) and ``b`` (arm)."""

    n: int = 0
    sum_a: float = 0.0
    sum_b: float = 0.0
    sum_aa: float = 0.0
    sum_bb: float = 0.0
    sum_ab: float = 0.0

    def add(self, a, b) -> None:
        """Add aligned values: ``a[i]`` and ``b[i]`` come from the same game ``i``."""
        a = np.asarray(a, dtype=float)
        b = np.asarray(b, dtype=float)
        if a.shape != b.shape:
            raise ValueError("paired series must have the same length")
        self.n += a.size
        self.sum_a += float(a.sum())
        self.sum_b += float(b.sum())
        self.sum_aa += float(a @ a)
        self.sum_bb += float(b @ b)
        self.sum_ab += float(a @ b)

    def _var(self, s, ss) -> float:
        n = self.n
        return max(ss - s * s / n, 0.0) / (n - 1) if n > 1 else math.nan

    @property
    def mean_a(self) -> float:
        return self.sum_a / self.n

    @property
    def mean_b(self) -> float:
        return self.sum_b / self.n

    def paired(self, z: float = Z95) -> dict[str, float]:
        """Difference ``mean(b - a)`` with the paired (common random numbers) interval."""
        var_d = self._var(self.sum_b - self.sum_a, self.sum_aa + self.sum_bb - 2 * self.sum_ab)
        se = math.sqrt(var_d / self.n)
        diff = self.mean_b - self.mean_a
        return {"difference": diff, "se": se, "ci_low": diff - z * se, "ci_high": diff + z * se}

    def unpaired(self, z: float = Z95) -> dict[str, float]:
        """The same difference with the interval two independent runs would give."""
        se = math.sqrt((self._var(self.sum_a, self.sum_aa) + self._var(self.sum_b, self.sum_bb)) / self.n)
        diff = self.mean_b - self.mean_a
        return {"difference": diff, "se": se, "ci_low": diff - z * se, "ci_high": diff + z * se}


def paired_difference(a, b, z: float = Z95) -> dict[str, float]:
    """Paired difference ``mean(b - a)`` with its 95% interval (same games in both arms)."""
    acc = PairedMoments()
    acc.add(a, b)
    return acc.paired(z)


def unpaired_difference(a, b, z: float = Z95) -> dict[str, float]:
    """Difference of means of two independent samples with its 95% interval."""
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    diff = float(b.mean() - a.mean())
    return {"difference": diff, "se": se, "ci_low": diff - z * se, "ci_high": diff + z * se}


def means_table(frame: pd.DataFrame, columns: list[str] | None = None) -> pd.DataFrame:
    """Mean and 95% interval of each numeric column: ``metric, n, mean, ci_low, ci_high``."""
    columns = columns or [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])]
    rows = []
    for column in columns:
        stats = mean_interval(frame[column].to_numpy())
        rows.append({"metric": column, "n": stats["n"], "mean": stats["mean"],
                     "ci_low": stats["ci_low"], "ci_high": stats["ci_high"]})
    return pd.DataFrame(rows, columns=["metric", "n", "mean", "ci_low", "ci_high"])
