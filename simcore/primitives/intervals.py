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
        Interval bounds in [0, 1]; exactly 0 when ``count == 0`` and 1 when ``count == n``.

    Examples
    --------
    >>> low, high = wilson(50, 100)
    >>> round(float(low), 4), round(float(high), 4)
    (0.4038, 0.5962)
    >>> float(wilson(0, 1000)[0]), float(wilson(1000, 1000)[1])
    (0.0, 1.0)
    """
    count = np.asarray(count, dtype=float)
    n = np.asarray(n, dtype=float)
    p = count / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    # The bounds at 0 and n successes are exactly 0 and 1 (rounding leaves ~1e-19 otherwise).
    low = np.where(count <= 0, 0.0, np.clip(centre - half, 0.0, 1.0))
    high = np.where(count >= n, 1.0, np.clip(centre + half, 0.0, 1.0))
    return low, high
