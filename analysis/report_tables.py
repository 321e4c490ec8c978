"""Report tables: how a report prints a table (values to the precision of their interval,
intervals as one ``[low, high]`` column) as HTML or Markdown, and what each kind's columns mean."""
from __future__ import annotations

import html
import math

import numpy as np
import pandas as pd

from cardsim.simcore.framework.config import rule_text


#: Columns left out of report tables (explained in the README; noise for a reader).
HIDDEN_COLUMNS = ("se_ratio", "unpaired_ci_low", "unpaired_ci_high", "chunk")


#: Columns printed to the precision of the row's ``ci_low``/``ci_high`` interval.
VALUE_COLUMNS = ("rate", "value", "estimate", "baseline", "difference", "mean")


#: Columns printed with a sign (a difference reads "+0.20").
SIGNED_COLUMNS = ("difference",)


#: What the columns of each kind of table mean, printed under it.
TABLE_NOTES = {
    "deal": ("rate: share of deals with the event (seat any: at least one seat has it); 95% CI: Wilson score "
             "interval."),
    "deal_exact": ("rate: share of deals with the event (seat any: at least one seat has it); 95% CI: Wilson "
                   "score interval; exact: the exact probability, or [low, high] bounds where only bounds are "
                   "known; z: standard errors between the simulated rate and the exact value (0 within the "
                   "bounds; beyond ±4 would point to a bug)."),
    "play": ("value: a rate (Wilson score 95% interval) or a mean per game (normal 95% interval of the mean, "
             "clipped at 0 for counts)."),
    "sweep": ("estimate: the metric at each value of the swept switch (a rate for 0/1 metrics, else a mean per "
              "game); 95% CI: normal interval of the mean."),
    "ladder": ("games: games the candidate played (each deal once per seat); win_rate: share of those games "
               "its seat won (Wilson 95% interval); points: its mean points per game (normal interval); score: "
               "mean fraction of field seats it finished ahead of (ties count ½, the field scores 0.5); elo: "
               "400·log10(score / (1 − score)), the field at 0, with the score's interval carried over."),
    "balance": ("value: a rate (Wilson 95% interval), a mean over deals (normal interval), or a figure from "
                "several tables (seat_gap: simultaneous paired intervals of the seat differences; shares, "
                "Elo, spreads: percentile bootstrap over deals). Strength 'all': the ladder of every strength "
                "against the field. luck/skill/residual_share: variance of the hand (deal and seat), of the "
                "player (strength) and the rest, as shares of a win's variance; relative_skill: one seat's win "
                "rate against the field between random (0) and the peeking oracle (1)."),
    "experiment": ("baseline, value: the metric in the baseline arm and in this arm (a rate for 0/1 metrics, "
                   "else a mean per game); difference: value − baseline; 95% CI: its paired interval (every "
                   "arm plays the same deals)."),
}


def _cell(value) -> str:
    """Thousands separators for counts, 4 significant figures for rates and means."""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if v != v:
            return ""
        if not math.isfinite(v):
            return str(v)
        if v == int(v) and abs(v) >= 1000:
            return f"{int(v):,}"
        if abs(v) >= 1000:
            return f"{v:,.1f}"
        return f"{v:.4g}" if abs(v) >= 1e-3 or v == 0 else f"{v:.3g}"
    return str(value)


def ci_decimals(low: float, high: float) -> int | None:
    """Decimals that show an interval's width to two significant figures (0-8), so that a
    value and its interval print to the precision the run reached; None without a width."""
    width = float(high) - float(low)
    if not (width > 0 and math.isfinite(width)):
        return None
    return int(min(8, max(0, 1 - math.floor(math.log10(width)))))


def _number(value, decimals: int | None, signed: bool = False) -> str:
    """``value`` with ``decimals`` (thousands separators; :func:`_cell` when None)."""
    v = float(value)
    if v != v:
        return ""
    if decimals is not None and math.isfinite(v) and round(v, decimals) == 0:
        v = 0.0  # no "-0.000" or "+0.000"
    text = _cell(v) if decimals is None or not math.isfinite(v) else f"{v:,.{decimals}f}"
    return "+" + text if signed and v > 0 else text


def display_table(frame: pd.DataFrame) -> tuple[list[str], list[list[str]], list[bool]]:
    """Header, text rows and right-alignment of a table as a report prints it.

    Each ``X_ci_low``/``X_ci_high`` pair becomes one ``X 95% CI`` column ``[low, high]``,
    printed like its value column (``X``, or the columns of :data:`VALUE_COLUMNS` for the
    plain ``ci_low``/``ci_high``) to the precision of the interval (:func:`ci_decimals`);
    ``exact_low``/``exact_high`` become one ``exact`` column (a value, or ``[low, high]``
    bounds); ``z`` prints signed with two decimals; :data:`HIDDEN_COLUMNS` are left out.
    """
    frame = frame.drop(columns=[c for c in HIDDEN_COLUMNS if c in frame.columns])
    columns = list(frame.columns)
    pairs = {c[:-len("ci_low")]: (c, c[:-len("low")] + "high") for c in columns
             if str(c).endswith("ci_low") and str(c)[:-len("low")] + "high" in columns}
    interval_of = {}  # value column -> its interval's prefix
    for prefix in pairs:  # "win_ci_low" goes with "win" or "win_rate" (a ladder's columns)
        candidates = VALUE_COLUMNS + ("exact_low", "exact_high") if prefix == "" else \
            tuple(prefix + v for v in VALUE_COLUMNS) + (prefix.rstrip("_"),)
        for column in candidates:
            if column in columns:
                interval_of[column] = prefix
    exact = "exact_low" in columns and "exact_high" in columns
    skip = {high for _, high in pairs.values()} | ({"exact_high"} if exact else set())
    header, kinds = [], []
    for c in columns:
        prefix = str(c)[:-len("ci_low")] if str(c).endswith("ci_low") else None
        if c in skip:
            continue
        if prefix in pairs:
            header.append(f"{prefix.replace('_', ' ')}95% CI")
            kinds.append(("ci", prefix))
        elif c == "exact_low" and exact:
            header.append("exact")
            kinds.append(("exact", None))
        else:
            header.append(str(c))
            kinds.append(("z", None) if c == "z" else ("value", c) if c in interval_of else ("cell", c))
    rows = []
    for record in frame.to_dict("records"):
        decimals = {p: ci_decimals(record[low], record[high]) for p, (low, high) in pairs.items()}
        row = []
        for kind, key in kinds:
            if kind == "ci":
                low, high = pairs[key]
                d = decimals[key]
                row.append("" if record[low] != record[low] else
                           f"[{_number(record[low], d)}, {_number(record[high], d)}]")
            elif kind == "exact":
                low, high = record["exact_low"], record["exact_high"]
                d = decimals.get(interval_of.get("exact_low", ""))
                d = None if d is None else d + 1  # an exact value: one digit beyond the estimate's
                row.append("" if low != low else _number(low, d) if low == high
                           else f"[{_number(low, d)}, {_number(high, d)}]")
            elif kind == "z":
                z = record["z"]
                row.append("" if z != z else "0.00" if abs(z) < 0.005 else f"{z:+.2f}")
            elif kind == "value":
                row.append(_number(record[key], decimals[interval_of[key]], key in SIGNED_COLUMNS))
            else:
                row.append(_cell(record[key]))
        rows.append(row)
    right = [kind in ("ci", "exact", "z", "value") or pd.api.types.is_numeric_dtype(frame[key])
             for kind, key in kinds]
    return header, rows, right


def _render_table(frame: pd.DataFrame, fmt: str, note: str = "") -> str:
    """A readable table (no optional dependency): HTML, or a Markdown pipe table, with
    ``note`` (what its columns mean) under it."""
    header, rows, right = display_table(frame)
    if fmt == "md":
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines) + (f"\n\n_{note}_" if note else "")
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td{' class=n' if right[i] else ''}>{html.escape(v)}</td>"
                                    for i, v in enumerate(r)) + "</tr>" for r in rows)
    table = f"<table class='t'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    return table + (f"<p class='note'>{html.escape(note)}</p>" if note else "")


def _rules_text(rules: dict, fmt: str) -> str:
    lines = [f"{k} = {rule_text(v)}" for k, v in rules.items()]
    if fmt == "md":
        return "Rules: " + "; ".join(f"`{x}`" for x in lines)
    return "<p class='rules'>Rules: " + "; ".join(f"<code>{html.escape(x)}</code>" for x in lines) + "</p>"
