"""Confidence intervals: re-exported from :mod:`cardsim.simcore.primitives.intervals`."""
from cardsim.simcore.primitives.intervals import Z95, wilson

__all__ = ["Z95", "wilson"]
