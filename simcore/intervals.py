"""Confidence intervals (vectorised, numpy)."""
from __future__ import annotations

import numpy as np

Z95 = 1.959963984540054


def wilson(count, n, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for a binomial proportion.

    Parameters
    ----------
    count, n : array_like of int
        Successes and trials (``n > 0``), broadcast together.
    z : float
        Normal quantile (1.96 for 95%).

    Returns
    -------
    low, high : ndarray of float
        Interval bounds in [0, 1].

    Examples
    --------
    >>> low, high = wilson(50, 100)
    >>> round(float(low), 4), round(float(high), 4)
    (0.4038, 0.5962)
    """
    count = np.asarray(count, dtype=float)
    n = np.asarray(n, dtype=float)
    p = count / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)
