"""Rendering for the command line: plain tables, summaries, comparisons, ladders, progress.

Everything here writes text (stdout) or a progress bar (stderr); nothing runs a simulation.
"""
from __future__ import annotations

import json
import sys

from cardsim.progress import compiling_notice, stderr_console  # noqa: F401 - the commands' progress, shared with the API


def json_records(table) -> str:
    """A table as one JSON array of records, the one JSON format of every ``--json``.

    Integers stay integers, floats keep full precision (the shortest text that reads
    back as the same double, as Python writes floats), NaN (no value) becomes ``null``;
    column order is the table's. Deal rates: ``event, seat, count, n, rate, ci_low,
    ci_high`` (+ ``exact_low, exact_high, z``), ``seat`` an int with -1 for the table
    ("any seat") row; play summaries: ``metric, group, n, value, ci_low, ci_high``.
    """
    columns = [str(c) for c in table.columns]
    records = [dict(zip(columns, map(_json_value, row))) for row in table.itertuples(index=False, name=None)]
    return json.dumps(records, ensure_ascii=False)


def _json_value(value):
    """One cell as a JSON-ready Python value (numpy scalars converted, NaN as None)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    kind = type(value).__name__
    if kind in ("NAType", "NaTType"):
        return None
    if kind.startswith("bool"):
        return bool(value)
    if isinstance(value, int) or kind.startswith(("int", "uint")):
        return int(value)
    if isinstance(value, float) or kind.startswith("float"):
        value = float(value)
        return None if value != value else value
    return str(value)


def seat_text(seat) -> str:
    """A rates table's seat for people: the seat number, or ``any`` for the table row (-1)."""
    return "any" if int(seat) < 0 else str(int(seat))


def print_summary(table, as_json: bool) -> None:
    """Print a summary table (``analysis.summary``) as text or JSON records (:func:`json_records`).

    Deal runs give rates (event, seat, count, n, rate, ci_low, ci_high, and with exact
    values exact_low, exact_high, z); play runs give (metric, group, n, value, ci_low, ci_high,
    ess_factor: printed as ``ess``, the effective sample-size factor of the deal's control variates).
    """
    if as_json:
        sys.stdout.write(json_records(table) + "\n")
        return
    if "event" not in table.columns:
        ess = "ess_factor" in table.columns
        rows = [(r.metric, r.group, f"{r.n:,}", f"{r.value:.4f}", f"[{r.ci_low:.4f}, {r.ci_high:.4f}]",
                 *((f"{r.ess_factor:.2f}",) if ess else ()))
                for r in table.itertuples(index=False)]
        print_plain_table(("metric", "group", "n", "value", "95% CI") + (("ess",) if ess else ()), rows,
                          right=(2, 3, 4, 5))
        return
    exact = "exact_low" in table.columns
    rows = [(row.event, seat_text(row.seat), f"{row.count:,}", f"{row.n:,}", f"{row.rate:.6f}",
             f"[{row.ci_low:.6f}, {row.ci_high:.6f}]",
             *((_exact_text(row.exact_low, row.exact_high), "" if row.z != row.z else f"{row.z:+.2f}")
               if exact else ()))
            for row in table.itertuples(index=False)]
    header = ("event", "seat", "count", "n", "rate", "95% CI") + (("exact", "z") if exact else ())
    print_plain_table(header, rows, right=(1, 2, 3, 4, 5, 6, 7))


def _exact_text(low: float, high: float) -> str:
    """An exact value, or its guaranteed bracket; blank when there is none."""
    if low != low:
        return ""
    return f"{low:.6f}" if low == high else f"[{low:.6f}, {high:.6f}]"


def print_plain_table(header, rows, right=()) -> None:
    """Fixed-width text table on stdout (pipe-friendly: never wrapped)."""
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows)]
    for line in (header, *rows):
        cells = [str(x).rjust(w) if i in right else str(x).ljust(w) for i, (x, w) in enumerate(zip(line, widths))]
        sys.stdout.write("  ".join(cells).rstrip() + "\n")


def print_ladder(table, as_json: bool) -> None:
    """Print a ladder's rating table as text or JSON records."""
    if as_json:
        sys.stdout.write(json_records(table) + "\n")
        return
    relative = "relative_skill" in table.columns  # random and an oracle among the candidates
    rows = [(r.policy, f"{r.games:,}", f"{r.win_rate:.3f} [{r.win_ci_low:.3f}, {r.win_ci_high:.3f}]",
             f"{r.points:+.2f} [{r.points_ci_low:+.2f}, {r.points_ci_high:+.2f}]",
             f"{r.score:.3f} [{r.score_ci_low:.3f}, {r.score_ci_high:.3f}]",
             f"{r.elo:+.0f} [{r.elo_ci_low:+.0f}, {r.elo_ci_high:+.0f}]",
             *((f"{r.relative_skill:.3f} [{r.relative_skill_ci_low:.3f}, {r.relative_skill_ci_high:.3f}]",)
               if relative else ()))
            for r in table.itertuples(index=False)]
    print_plain_table(("policy", "games", "win rate [95% CI]", "points [95% CI]", "score vs field",
                       "rating (Elo) [95% CI]", *(("relative skill (random 0, oracle 1)",) if relative else ())),
                      rows, right=(1,))


def print_sweep(sweep) -> None:
    """The tidy sweep table: each metric's estimate and 95% interval at each value."""
    strengths = "strength" in sweep.columns
    rows = [(*((r.strength,) if strengths else ()), r.metric, r.value, f"{r.n:,}", _fmt(r.estimate),
             f"[{_fmt(r.ci_low)}, {_fmt(r.ci_high)}]", r.unit) for r in sweep.itertuples(index=False)]
    print_plain_table((*(("strength",) if strengths else ()), "metric", sweep["switch"].iloc[0], "n", "estimate",
                       "95% CI", "unit"), rows, right=(2 + strengths, 3 + strengths, 4 + strengths))
    sys.stdout.write("\n")


def _fmt(value: float) -> str:
    """4 significant figures for small values, 2 decimals for large ones."""
    return f"{value:.4f}" if abs(value) < 10 else f"{value:,.2f}"


def print_comparison(table, as_json: bool, interactions=None) -> None:
    """Print an experiment comparison as text or JSON records; with strengths, each
    effect at each strength and a robustness verdict per (metric, arm) from the paired
    strength x arm interaction test (``interactions``)."""
    if as_json:
        sys.stdout.write(json_records(table) + "\n")
        return
    strengths = "strength" in table.columns
    rows = [(r.metric, r.arm, *((r.strength,) if strengths else ()), f"{r.baseline:.4f}", f"{r.value:.4f}",
             f"{r.difference:+.4f}", f"[{r.ci_low:+.4f}, {r.ci_high:+.4f}]",
             f"[{r.unpaired_ci_low:+.4f}, {r.unpaired_ci_high:+.4f}]")
            for r in table.itertuples(index=False)]
    header = ("metric", "arm", *(("strength",) if strengths else ()), "baseline", "arm value", "difference",
              "95% CI (paired)", "95% CI (unpaired)")
    first = 3 if strengths else 2
    print_plain_table(header, rows, right=tuple(range(first, first + 5)))
    if strengths:
        from cardsim.analysis.compare import robustness

        sys.stdout.write("\n")
        verdicts = robustness(table, interactions)
        print_plain_table(("metric", "arm", "across strengths"),
                          [(r.metric, r.arm, r.verdict) for r in verdicts.itertuples(index=False)])


def print_balance(table, as_json: bool) -> None:
    """Print a balance card as text (the answers at a glance first, then every figure)
    or JSON records (one per figure; NaN as null)."""
    if as_json:
        sys.stdout.write(json_records(table) + "\n")
        return
    from cardsim.analysis.balance import headline

    def cell(value: float) -> str:
        return "n/a" if value != value else _fmt(value)

    compare = "rules" in table.columns
    for title, part in (("at a glance", headline(table)), ("every figure", table)):
        sys.stdout.write(f"{title}:\n")
        rows = [(*((r.rules,) if compare else ()), r.metric, r.group, r.strength, f"{r.n:,}", cell(r.value),
                 f"[{cell(r.ci_low)}, {cell(r.ci_high)}]", r.unit, r.note) for r in part.itertuples(index=False)]
        print_plain_table((*(("rules",) if compare else ()), "metric", "group", "strength", "n", "value",
                           "95% CI", "unit", "note"), rows, right=tuple(i + compare for i in (3, 4, 5)))
        sys.stdout.write("\n")


def print_tune(table, meta: dict, as_json: bool) -> None:
    """Print a tune race's candidates (best first) as text or JSON records."""
    if as_json:
        sys.stdout.write(json_records(table) + "\n")
        return
    names = list(dict.fromkeys([o.rpartition(":")[0] for o in meta["objectives"]] +
                               [c.replace(">", "<").partition("<")[0] for c in meta["constraints"]]))

    def cell(value: float) -> str:
        return "n/a" if value != value else _fmt(value)

    rows = []
    for r in table.to_dict("records"):
        figures = [f"{cell(r[n])} [{cell(r[n + '_ci_low'])}, {cell(r[n + '_ci_high'])}]" for n in names]
        status = r["status"] if r["status"] != "racing" else ("best" if r["rank"] == 1 else "not ruled out")
        if r.get("pareto"):
            status += ", Pareto" if len(meta["objectives"]) > 1 else ""
        rows.append((r["rank"], r["candidate"], status, f"{r['deals']:,}", *figures, r["reason"]))
    print_plain_table(("rank", "candidate", "status", "deals", *[f"{n} [95% CI]" for n in names], "why it left"),
                      rows, right=(0, 3))
