"""The one number format of cardsim's printed tables and reports.

An estimate prints to the precision its 95% interval supports: the interval's half-width
to two significant figures fixes the decimals of the estimate and of both bounds
(``0.253 [0.234, 0.272]``, ``0.00100 [0.00065, 0.00154]``). Differences carry a sign,
bounds included (``+0.0065 [+0.0026, +0.0104]``); Elo ratings print with one decimal
and a sign (the field is 0). A figure without an interval prints to 4 significant
figures; counts with thousands separators. The command line (:mod:`cardsim.cli.render`)
and the reports (:mod:`cardsim.analysis.report_tables`) both print through here.
"""
from __future__ import annotations

import math

#: Decimals of an Elo rating and its interval.
ELO_DECIMALS = 1


def interval_decimals(low, high) -> int | None:
    """Decimals that show the interval's half-width to two significant figures (0-8);
    None when the interval has no width (or is missing)."""
    try:
        half = (float(high) - float(low)) / 2
    except (TypeError, ValueError):
        return None
    if not (half > 0 and math.isfinite(half)):
        return None
    return int(min(8, max(0, 1 - math.floor(math.log10(half)))))


def plain(value) -> str:
    """A figure without an interval: 4 significant figures (thousands separators from
    1,000; whole numbers there without decimals)."""
    v = float(value)
    if v != v:
        return ""
    if not math.isfinite(v):
        return str(v)
    if abs(v) >= 1000:
        return f"{int(v):,}" if v == int(v) else f"{v:,.1f}"
    return f"{v:.4g}" if abs(v) >= 1e-3 or v == 0 else f"{v:.3g}"


def number(value, decimals: int | None = None, signed: bool = False, missing: str = "") -> str:
    """``value`` with ``decimals`` decimals (thousands separators), :func:`plain` when
    ``decimals`` is None; ``signed`` puts a ``+`` before a positive value; NaN prints
    ``missing``. A value that rounds to zero prints unsigned (no ``-0.00`` or ``+0.00``)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        return str(value)
    if v != v:
        return missing
    if decimals is not None and math.isfinite(v) and round(v, decimals) == 0:
        v = 0.0
    text = plain(v) if decimals is None or not math.isfinite(v) else f"{v:,.{decimals}f}"
    return "+" + text if signed and v > 0 else text


def interval(low, high, decimals: int | None, signed: bool = False, missing: str = "") -> str:
    """``[low, high]`` with the estimate's decimals (signed bounds for a difference);
    ``missing`` when the interval is missing."""
    if float(low) != float(low) or float(high) != float(high):
        return missing
    return f"[{number(low, decimals, signed)}, {number(high, decimals, signed)}]"


def estimate(value, low, high, signed: bool = False, elo: bool = False, missing: str = "",
             decimals: int | None = None) -> tuple[str, str]:
    """``(value text, interval text)`` of an estimate and its 95% interval, sharing the
    decimals :func:`interval_decimals` gives (or ``decimals``; an Elo rating: one decimal,
    signed)."""
    if decimals is None:
        decimals = ELO_DECIMALS if elo else interval_decimals(low, high)
    signed = signed or elo
    return number(value, decimals, signed, missing), interval(low, high, decimals, signed, missing)


def with_interval(value, low, high, signed: bool = False, elo: bool = False, missing: str = "") -> str:
    """``value [low, high]`` in one piece (see :func:`estimate`)."""
    text, bounds = estimate(value, low, high, signed, elo, missing)
    return f"{text} {bounds}".strip()


def count(value) -> str:
    """A count with thousands separators."""
    return f"{int(value):,}"


#: Column names printed as another word (the command line's ``ess`` for the ESS factor).
_HEADERS = {"ess_factor": "ess"}


def header(name: str) -> str:
    """A column name for people: ``win_rate`` -> ``win rate``, ``elo`` -> ``Elo``."""
    name = _HEADERS.get(str(name), str(name))
    return " ".join("Elo" if w == "elo" else w for w in name.replace("_", " ").split(" "))


__all__ = ["ELO_DECIMALS", "interval_decimals", "plain", "number", "interval", "estimate", "with_interval",
           "count", "header"]
