"""Report tables: how a report prints a table (values to the precision of their interval,
intervals as one ``[low, high]`` column) as HTML or Markdown, and what each kind's columns mean."""
from __future__ import annotations

import html

import numpy as np
import pandas as pd

from cardsim.analysis import numbers
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
    "ladder": ("Elo: 400·log10(score / (1 − score)), the field at 0, with the score's interval carried over; "
               "win rate: share of the games its seat won (Wilson 95% interval); points: its mean points per "
               "game (normal interval); score: mean fraction of field seats it finished ahead of (ties count ½, "
               "the field scores 0.5); games: games the candidate played (each deal once per seat)."),
    "balance": ("value: a rate (Wilson 95% interval), a mean over deals (normal interval), or a figure from "
                "several tables (seat_gap: simultaneous paired intervals of the seat differences; shares, "
                "Elo, spreads: percentile bootstrap over deals). Strength 'all': the ladder of every strength "
                "against the field. luck/skill/residual_share: variance of the hand (deal and seat), of the "
                "player (strength) and the rest, as shares of a win's variance; relative_skill: one seat's win "
                "rate against the field between random (0) and the peeking oracle (1)."),
    "experiment": ("difference: value − baseline; 95% CI: its paired interval (every arm plays the same "
                   "deals); baseline, value: the metric in the baseline arm and in this arm (a rate for 0/1 "
                   "metrics, else a mean per game)."),
}


def _cell(value) -> str:
    """Thousands separators for counts, 4 significant figures for rates and means
    (:func:`cardsim.analysis.numbers.plain`)."""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, (float, np.floating)):
        return numbers.plain(value)
    return str(value)


def ci_decimals(low: float, high: float) -> int | None:
    """Decimals that show an interval's half-width to two significant figures (0-8), so that
    a value and its interval print to the precision the run reached; None without a width
    (:func:`cardsim.analysis.numbers.interval_decimals`)."""
    return numbers.interval_decimals(low, high)


def _number(value, decimals: int | None, signed: bool = False) -> str:
    """``value`` with ``decimals`` (thousands separators; :func:`_cell` when None)."""
    return numbers.number(value, decimals, signed)


#: Columns printed after the answers (what a reader needs less than the estimates).
LATE_COLUMNS = ("count", "n", "games", "deals", "unit", "ess_factor", "points_ess_factor", "score_ess_factor",
                "round_out", "pareto", "reason", "note")


#: The order of the answer columns: a rating, then a difference, then the rest as they come.
_ANSWER_FIRST = ("elo", "difference")


def display_table(frame: pd.DataFrame) -> tuple[list[str], list[list[str]], list[bool]]:
    """Header, text rows and right-alignment of a table as a report prints it.

    Each ``X_ci_low``/``X_ci_high`` pair becomes one ``X 95% CI`` column ``[low, high]``
    beside its value column (``X``, or the columns of :data:`VALUE_COLUMNS` for the plain
    ``ci_low``/``ci_high``), value and interval sharing the decimals the interval's
    half-width gives (:mod:`cardsim.analysis.numbers`); differences are signed, bounds
    included, and Elo ratings print with one decimal. ``exact_low``/``exact_high`` become
    one ``exact`` column (a value, or ``[low, high]`` bounds); ``z`` prints signed with two
    decimals; :data:`HIDDEN_COLUMNS` are left out. The answers (estimates, intervals,
    exact values, z) come right after the labels, the counts (:data:`LATE_COLUMNS`) after
    them, so that a narrow screen shows the answers first; headers are words
    (``win rate``, ``Elo``).
    """
    frame = frame.drop(columns=[c for c in HIDDEN_COLUMNS if c in frame.columns])
    columns = list(frame.columns)
    pairs = {c[:-len("ci_low")]: (c, c[:-len("low")] + "high") for c in columns
             if str(c).endswith("ci_low") and str(c)[:-len("low")] + "high" in columns}
    interval_of = {}  # value column -> its interval's prefix
    owner = {}  # interval prefix -> its value column (the one the interval follows)
    for prefix in pairs:  # "win_ci_low" goes with "win" or "win_rate" (a ladder's columns)
        candidates = VALUE_COLUMNS + ("exact_low", "exact_high") if prefix == "" else \
            tuple(prefix + v for v in VALUE_COLUMNS) + (prefix.rstrip("_"),)
        for column in candidates:
            if column in columns:
                interval_of[column] = prefix
        if prefix == "":
            owner[prefix] = next((c for c in ("difference", *VALUE_COLUMNS) if c in columns), None)
        else:
            owner[prefix] = next((c for c in candidates if c in columns), None)
    exact = "exact_low" in columns and "exact_high" in columns
    skip = {high for _, high in pairs.values()} | ({"exact_high"} if exact else set())
    items = []  # (header, kind, key, column)
    for c in columns:
        prefix = str(c)[:-len("ci_low")] if str(c).endswith("ci_low") else None
        if c in skip:
            continue
        if prefix in pairs:
            value = owner.get(prefix)
            title = "95% CI" if prefix == "" or value is None else f"{numbers.header(value)} 95% CI"
            items.append((title, "ci", prefix, c))
        elif c == "exact_low" and exact:
            items.append(("exact", "exact", None, c))
        else:
            kind = "z" if c == "z" else "value" if c in interval_of else "cell"
            items.append((numbers.header(c), kind, c, c))
    answers = [i for i in items if i[1] in ("value", "z", "exact") or (i[1] == "ci" and owner.get(i[2]) is None)]
    ordered_values = sorted((i for i in answers if i[1] == "value"),
                            key=lambda i: _ANSWER_FIRST.index(i[2]) if i[2] in _ANSWER_FIRST else len(_ANSWER_FIRST))
    answer_order = []
    for item in ordered_values:
        answer_order.append(item)
        answer_order += [i for i in items if i[1] == "ci" and owner.get(i[2]) == item[2]]
    answer_order += [i for i in items if i[1] == "ci" and owner.get(i[2]) not in [v[2] for v in ordered_values]]
    answer_order += [i for i in answers if i[1] in ("exact", "z")]
    leading = [i for i in items if i[1] == "cell" and i[3] not in LATE_COLUMNS]
    late = [i for i in items if i[1] == "cell" and i[3] in LATE_COLUMNS]
    items = leading + answer_order + late
    header = [i[0] for i in items]
    rows = []
    for record in frame.to_dict("records"):
        elo_row = record.get("metric") == "elo"  # a balance card's rating row (signed, one decimal)
        in_elo = elo_row or record.get("unit") == "elo"  # and its Elo spread (one decimal)
        decimals = {p: numbers.ELO_DECIMALS if (owner.get(p) == "elo" or in_elo)
                    else numbers.interval_decimals(record[low], record[high]) for p, (low, high) in pairs.items()}
        signed = {p: owner.get(p) in SIGNED_COLUMNS or owner.get(p) == "elo" or elo_row for p in pairs}
        row = []
        for _, kind, key, _column in items:
            if kind == "ci":
                low, high = pairs[key]
                row.append(numbers.interval(record[low], record[high], decimals[key], signed[key]))
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
                prefix = interval_of[key]
                row.append(_number(record[key], decimals[prefix], key in SIGNED_COLUMNS or key == "elo" or elo_row))
            elif str(key).endswith("ess_factor"):  # as the command line prints it
                row.append(_number(record[key], 2))
            else:
                row.append(_cell(record[key]))
        rows.append(row)
    right = [kind in ("ci", "exact", "z", "value") or pd.api.types.is_numeric_dtype(frame[column])
             for _, kind, _, column in items]
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
    def cell_class(i: int, v: str) -> str:  # numbers right-aligned; a long text may wrap, a short one not
        return " class=n" if right[i] else " class=w" if len(v) > 40 else ""

    body = "".join("<tr>" + "".join(f"<td{cell_class(i, v)}>{html.escape(v)}</td>"
                                    for i, v in enumerate(r)) + "</tr>" for r in rows)
    table = f"<div class='scroll'><table class='t'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
    return table + (f"<p class='note'>{html.escape(note)}</p>" if note else "")


def _rules_text(rules: dict, fmt: str) -> str:
    lines = [f"{k} = {rule_text(v)}" for k, v in rules.items()]
    if fmt == "md":
        return "Rules: " + "; ".join(f"`{x}`" for x in lines)
    return "<p class='rules'>Rules: " + "; ".join(f"<code>{html.escape(x)}</code>" for x in lines) + "</p>"
