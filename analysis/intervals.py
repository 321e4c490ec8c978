"""Confidence intervals: re-exported from :mod:`cardsim.simcore.intervals`."""
from cardsim.simcore.intervals import Z95, wilson

__all__ = ["Z95", "wilson"]
