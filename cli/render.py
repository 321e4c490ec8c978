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
    from cardsim.analysis import numbers  # on use: the package loads pandas

    if as_json:
        sys.stdout.write(json_records(table) + "\n")
        return
    if "event" not in table.columns:
        ess = "ess_factor" in table.columns
        rows = [(r.metric, r.group, f"{r.n:,}", *numbers.estimate(r.value, r.ci_low, r.ci_high),
                 *((f"{r.ess_factor:.2f}",) if ess else ()))
                for r in table.itertuples(index=False)]
        print_plain_table(("metric", "group", "n", "value", "95% CI") + (("ess",) if ess else ()), rows,
                          right=(2, 3, 4, 5))
        return
    exact = "exact_low" in table.columns
    rows = [(row.event, seat_text(row.seat), f"{row.count:,}", f"{row.n:,}",
             *numbers.estimate(row.rate, row.ci_low, row.ci_high),
             *((_exact_text(row.exact_low, row.exact_high, numbers.interval_decimals(row.ci_low, row.ci_high)),
                "" if row.z != row.z else "0.00" if abs(row.z) < 0.005 else f"{row.z:+.2f}")
               if exact else ()))
            for row in table.itertuples(index=False)]
    header = ("event", "seat", "count", "n", "rate", "95% CI") + (("exact", "z") if exact else ())
    print_plain_table(header, rows, right=(1, 2, 3, 4, 5, 6, 7))


def _exact_text(low: float, high: float, decimals: int | None = None) -> str:
    """An exact value, or its guaranteed bracket, one digit beyond the estimate's
    ``decimals`` (as the report prints it); blank when there is none."""
    from cardsim.analysis import numbers  # on use: the package loads pandas

    if low != low:
        return ""
    d = None if decimals is None else decimals + 1
    return numbers.number(low, d) if low == high else numbers.interval(low, high, d)


def print_plain_table(header, rows, right=()) -> None:
    """Fixed-width text table on stdout (pipe-friendly: never wrapped)."""
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows)]
    for line in (header, *rows):
        cells = [str(x).rjust(w) if i in right else str(x).ljust(w) for i, (x, w) in enumerate(zip(line, widths))]
        sys.stdout.write("  ".join(cells).rstrip() + "\n")


def print_ladder(table, as_json: bool) -> None:
    """Print a ladder's rating table as text or JSON records."""
    from cardsim.analysis import numbers  # on use: the package loads pandas

    if as_json:
        sys.stdout.write(json_records(table) + "\n")
        return
    from cardsim.simcore.framework.spec import policy_label

    relative = "relative_skill" in table.columns  # random and an oracle among the candidates
    ess = "ess_factor" in table.columns
    w = numbers.with_interval
    rows = [(policy_label(r.policy), f"{r.games:,}", w(r.win_rate, r.win_ci_low, r.win_ci_high),
             w(r.points, r.points_ci_low, r.points_ci_high), w(r.score, r.score_ci_low, r.score_ci_high),
             w(r.elo, r.elo_ci_low, r.elo_ci_high, elo=True),
             *((w(r.relative_skill, r.relative_skill_ci_low, r.relative_skill_ci_high),) if relative else ()),
             *((f"{r.ess_factor:.2f}",) if ess else ()))
            for r in table.itertuples(index=False)]
    print_plain_table(("policy", "games", "win rate [95% CI]", "points [95% CI]", "score vs field",
                       "rating (Elo) [95% CI]", *(("relative skill (random 0, oracle 1)",) if relative else ()),
                       *(("ess",) if ess else ())),
                      rows, right=(1,))


def print_sweep(sweep) -> None:
    """The tidy sweep table: each metric's estimate and 95% interval at each value."""
    from cardsim.analysis import numbers  # on use: the package loads pandas

    strengths = "strength" in sweep.columns
    rows = [(*((r.strength,) if strengths else ()), r.metric, r.value, f"{r.n:,}",
             *numbers.estimate(r.estimate, r.ci_low, r.ci_high), r.unit) for r in sweep.itertuples(index=False)]
    print_plain_table((*(("strength",) if strengths else ()), "metric", sweep["switch"].iloc[0], "n", "estimate",
                       "95% CI", "unit"), rows, right=(2 + strengths, 3 + strengths, 4 + strengths))
    sys.stdout.write("\n")


def _fmt(value: float) -> str:
    """A figure without an interval: 4 significant figures (:func:`cardsim.analysis.numbers.plain`)."""
    from cardsim.analysis import numbers  # on use: the package loads pandas

    return numbers.plain(value)


def print_comparison(table, as_json: bool, interactions=None) -> None:
    """Print an experiment comparison as text or JSON records; with strengths, each
    effect at each strength and a robustness verdict per (metric, arm) from the paired
    strength x arm interaction test (``interactions``)."""
    from cardsim.analysis import numbers  # on use: the package loads pandas

    if as_json:
        sys.stdout.write(json_records(table) + "\n")
        return
    strengths = "strength" in table.columns
    def row(r) -> tuple:  # every figure of a row to the paired interval's decimals
        d = numbers.interval_decimals(r.ci_low, r.ci_high)
        return (r.metric, r.arm, *((r.strength,) if strengths else ()), numbers.number(r.baseline, d),
                numbers.number(r.value, d), numbers.number(r.difference, d, signed=True),
                numbers.interval(r.ci_low, r.ci_high, d, signed=True),
                numbers.interval(r.unpaired_ci_low, r.unpaired_ci_high, d, signed=True))

    rows = [row(r) for r in table.itertuples(index=False)]
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
    """Print a balance card as text (the answers at a glance first, then every figure;
    a comparison of two rule sets leads with the differences at a glance, as its report
    does) or JSON records (one per figure; NaN as null)."""
    from cardsim.analysis import numbers  # on use: the package loads pandas

    if as_json:
        sys.stdout.write(json_records(table) + "\n")
        return
    from cardsim.analysis.balance import headline

    def figure(r) -> tuple[str, str]:  # a difference signed, a rating to one decimal
        return numbers.estimate(r.value, r.ci_low, r.ci_high, signed=getattr(r, "rules", "") == "difference",
                                elo=r.metric == "elo", missing="n/a",
                                decimals=numbers.ELO_DECIMALS if r.unit == "elo" else None)

    compare = "rules" in table.columns
    parts = [("at a glance", headline(table)), ("every figure", table)]
    if compare:  # the answer of a comparison first: what the changed rules change
        glance = headline(table)
        is_difference = glance["rules"] == "difference"
        parts = [("at a glance, the differences (compared rules - base rules, same deals)", glance[is_difference]),
                 ("at a glance, each rule set", glance[~is_difference]), ("every figure", table)]
    ess = "ess_factor" in table.columns
    for title, part in parts:
        sys.stdout.write(f"{title}:\n")
        rows = [(*((r.rules,) if compare else ()), r.metric, r.group, r.strength, f"{r.n:,}", *figure(r),
                 *((_ess(r.ess_factor),) if ess else ()), r.unit, r.note) for r in part.itertuples(index=False)]
        print_plain_table((*(("rules",) if compare else ()), "metric", "group", "strength", "n", "value",
                           "95% CI", *(("ess",) if ess else ()), "unit", "note"), rows,
                          right=tuple(i + compare for i in ((3, 4, 5, 6) if ess else (3, 4, 5))))
        sys.stdout.write("\n")


def _ess(factor) -> str:
    """A row's effective sample-size factor as printed (blank where not adjusted)."""
    return "" if factor != factor or factor == 1.0 else f"{factor:.2f}"


def _ess_note(factor) -> str:
    """`` (ess 1.23)`` after a figure a control adjusted, else nothing."""
    text = _ess(1.0 if factor is None else factor)
    return f" (ess {text})" if text else ""


def print_tune(table, meta: dict, as_json: bool) -> None:
    """Print a tune race's candidates (best first) as text or JSON records."""
    from cardsim.analysis import numbers  # on use: the package loads pandas

    if as_json:
        sys.stdout.write(json_records(table) + "\n")
        return
    names = list(dict.fromkeys([o.rpartition(":")[0] for o in meta["objectives"]] +
                               [c.replace(">", "<").partition("<")[0] for c in meta["constraints"]]))

    rows = []
    for r in table.to_dict("records"):
        figures = [numbers.with_interval(r[n], r[n + "_ci_low"], r[n + "_ci_high"], elo=n.partition("@")[0] == "elo",
                                         missing="n/a") + _ess_note(r.get(n + "_ess_factor")) for n in names]
        status = r["status"] if r["status"] != "racing" else ("best" if r["rank"] == 1 else "not ruled out")
        if r.get("pareto"):
            status += ", Pareto" if len(meta["objectives"]) > 1 else ""
        rows.append((r["rank"], r["candidate"], status, f"{r['deals']:,}", *figures, r["reason"]))
    print_plain_table(("rank", "candidate", "status", "deals", *[f"{n} [95% CI]" for n in names], "why it left"),
                      rows, right=(0, 3))
