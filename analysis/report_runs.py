"""Report sections of one run dataset: a deal run (rates per event and seat), a play run
(summary, win rate by seat, game length) and a ladder (ratings and the skill trace)."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from cardsim.analysis import numbers
from cardsim.analysis.metrics import metric_spec
from cardsim.analysis.report_figures import _Figures, _plt
from cardsim.analysis.report_tables import TABLE_NOTES, _render_table
from cardsim.analysis.stats import mean_interval
from cardsim.analysis.tables import summary
from cardsim.simcore.framework.spec import policy_label
from cardsim.simcore.run.output import Dataset


def event_groups(events: list[str]) -> list[list[str]]:
    """Events grouped by meaning, in first-appearance order: a family of counts
    (``twos_0`` .. ``twos_4``) and a common first word (``instant_win``, ``instant_win_dragon``;
    ``bomb_four``, ``bomb_any``) go together."""
    groups: dict[str, list[str]] = {}
    for event in events:
        stem = re.sub(r"_\d+(plus)?$", "", event)
        groups.setdefault(stem.split("_")[0], []).append(event)
    return list(groups.values())


def pack_groups(groups: list[list[str]], size: int) -> list[list[str]]:
    """Consecutive groups packed into figures of at most ``size`` events; a group is split
    only when it is larger than ``size`` itself."""
    out: list[list[str]] = []
    for group in groups:
        for start in range(0, len(group), size):
            piece = group[start:start + size]
            if out and len(out[-1]) + len(piece) <= size and start == 0:
                out[-1] = out[-1] + piece
            else:
                out.append(list(piece))
    return out


#: Seat colours of the deal figures: the tab10 cycle without red, the colour of the exact values.
SEAT_COLOURS = tuple(f"C{k}" for k in range(10) if k != 3)


def _rate_dots(rates: pd.DataFrame, events: list[str], title: str):
    """Each event's rate per seat and for the table as dots with 95% error bars on a log
    axis (no bar lengths to misread), the exact value beside the table's dot."""
    plt = _plt()
    per_seat = rates[rates["event"].isin(events)]
    seats = sorted(per_seat["seat"].unique(), key=lambda s: (s < 0, s))  # the table (-1) last
    fig, ax = plt.subplots(figsize=(7.5, 0.42 * len(events) * max(1.0, len(seats) / 4) + 1.4))
    step = 0.7 / max(len(seats), 1)
    exact = "exact_low" in per_seat.columns
    for k, seat in enumerate(seats):
        rows = per_seat[per_seat["seat"] == seat].set_index("event").reindex(events)
        y = np.arange(len(events)) + (k - (len(seats) - 1) / 2) * step
        shown = rows["rate"] > 0
        err = np.vstack([rows["rate"] - rows["ci_low"], rows["ci_high"] - rows["rate"]])
        colour = "black" if seat < 0 else SEAT_COLOURS[k % len(SEAT_COLOURS)]
        ax.errorbar(rows["rate"][shown], y[shown.to_numpy()], xerr=err[:, shown.to_numpy()], fmt="D" if seat < 0
                    else "o", ms=4, capsize=2, color=colour, label="table (any seat)" if seat < 0 else f"seat {seat}")
        for yi, rate, high in zip(y, rows["rate"], rows["ci_high"]):
            if rate == 0 and high > 0:  # no dot on a log axis: the interval's upper end, marked
                ax.plot([high], [yi], marker="<", color=colour, ms=4)
        if exact:
            low, high = rows["exact_low"].to_numpy(float), rows["exact_high"].to_numpy(float)
            known = np.isfinite(low) & (low > 0)
            ax.plot(low[known], y[known], "|", color="tab:red", ms=10, mew=1.6,
                    label="exact value" if k == 0 and known.any() else None)
            bracket = known & (high > low)
            for yi, lo, hi in zip(y[bracket], low[bracket], high[bracket]):
                ax.plot([lo, hi], [yi, yi], color="tab:red", lw=3, alpha=0.4)
    ax.set_yticks(np.arange(len(events)))
    ax.set_yticklabels(events, fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("rate per deal (log scale; ◁ = none seen, the interval's upper end)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig


def _deal_section(dataset: Dataset, figures: _Figures, fmt: str) -> list[str]:
    """The table's rates first (the headline answers, beside their exact values), then each
    group of events as dots with error bars per seat, then every row."""
    rates = summary(dataset.path)
    shown = rates.assign(seat=[("any" if s < 0 else str(s)) for s in rates["seat"]])  # the table row: "any"
    note = TABLE_NOTES["deal_exact" if "exact_low" in rates.columns else "deal"]
    table_rows = shown[rates["seat"] < 0].drop(columns="seat")
    parts = [_render_table(table_rows, fmt, "the table (any seat): " + note)] if len(table_rows) else []
    for chunk in pack_groups(event_groups(list(pd.unique(rates["event"]))), 8):  # every event: nothing dropped
        title = f"{', '.join(chunk[:3])}{' ...' if len(chunk) > 3 else ''}: rate per seat and for the table (95% CI)"
        parts.append(figures.add(_rate_dots(rates, chunk, title), title))
    parts.append(_render_table(shown, fmt, "every event and seat: " + note))
    return parts


def _play_section(dataset: Dataset, figures: _Figures, fmt: str) -> list[str]:
    """Summary table, win rate by seat with intervals, and the game-length distribution."""
    plt = _plt()
    meta = dataset.meta
    parts = [_render_table(summary(dataset.path), fmt, TABLE_NOTES["play"])]
    table, metric_fn, _ = metric_spec(meta["game"], meta["task"])
    wins: dict[int, list[np.ndarray]] = {}
    lengths = []
    for part in dataset.iter_parts(table):
        metrics = metric_fn(part.to_pandas())
        for column in metrics.columns:
            if column.startswith("win_seat_"):
                wins.setdefault(int(column.rsplit("_", 1)[1]), []).append(metrics[column].to_numpy())
        length = next((c for c in ("plays", "turns", "tricks") if c in metrics.columns), None)
        if length is not None:
            lengths.append(metrics[length].to_numpy())
    if wins:
        seats = sorted(wins)
        stats = [mean_interval(np.concatenate(wins[s])) for s in seats]
        means = np.array([x["mean"] for x in stats])
        err = np.array([[x["mean"] - x["ci_low"] for x in stats], [x["ci_high"] - x["mean"] for x in stats]])
        fig, ax = plt.subplots(figsize=(5, 3))
        ax.errorbar([str(s) for s in seats], means, yerr=err, fmt="o", capsize=4, color="tab:blue")
        ax.axhline(1 / len(seats), color="grey", lw=0.8, ls="--", label="1 / seats")
        ax.legend(fontsize=7)
        ax.set_xlabel("seat")
        ax.set_ylabel("win rate")
        ax.set_title("win rate by seat (95% intervals)")
        parts.append(figures.add(fig, "win rate by seat", caption=False))
    if lengths:
        values = np.concatenate(lengths)
        # a game decided by the deal (a Tiến Lên instant win) has no plays: counted apart, not a spike at 0
        instant = int((values == 0).sum())
        played = values[values > 0]
        fig, ax = plt.subplots(figsize=(5, 3))
        if played.size:
            ax.hist(played, bins=min(60, max(10, int(played.max() - played.min() + 1))), color="tab:green")
        ax.set_xlabel(length)
        ax.set_ylabel("games")
        title = f"game length ({length})"
        if instant:
            title += f"\n{instant:,} of {values.size:,} games ended before any play (instant wins): not drawn"
        ax.set_title(title, fontsize=9)
        caption = "game length distribution" + (f" ({instant:,} instant wins not drawn)" if instant else "")
        parts.append(figures.add(fig, caption, caption=False))  # the title says it
    return parts


def _ladder_section(path: Path, figures: _Figures, fmt: str) -> list[str]:
    """Rating table and the skill trace: rating (Elo vs the field) against search budget."""
    from cardsim.analysis.ladder import budget_of

    plt = _plt()
    table = pd.read_parquet(path / "ratings.parquet")
    shown = table.assign(policy=[policy_label(p) for p in table["policy"]])  # learned:FILE by its file name
    parts = [_render_table(shown, fmt, TABLE_NOTES["ladder"])]
    fig, ax = plt.subplots(figsize=(6, 3.4))
    search = table[[budget_of(p) is not None for p in table["policy"]]].copy()
    if len(search):
        search["budget"] = [budget_of(p) for p in search["policy"]]
        search = search.sort_values("budget")
        err = np.vstack([search["elo"] - search["elo_ci_low"], search["elo_ci_high"] - search["elo"]])
        ax.errorbar(search["budget"], search["elo"], yerr=err, fmt="o-", capsize=3, color="tab:red",
                    label="search:N (95% CI)")
        ax.set_xscale("log", base=2)
        budgets = list(dict.fromkeys(search["budget"]))
        ax.set_xticks(budgets, [str(b) for b in budgets])  # "64", not "2^6"
        ax.xaxis.set_minor_locator(plt.NullLocator())
    others = table[[budget_of(p) is None for p in table["policy"]]]
    for k, row in enumerate(others.itertuples(index=False)):
        elo = numbers.number(row.elo, numbers.ELO_DECIMALS, signed=True)
        ax.axhline(row.elo, ls="--", lw=0.9, color=f"C{k % 10}", label=f"{policy_label(row.policy)} ({elo})")
    ax.set_xlabel("search budget (rollouts per decision)")
    ax.set_ylabel("rating vs field (Elo)")
    ax.set_title("skill trace")
    ax.legend(fontsize=7)
    parts.append(figures.add(fig, "skill trace: rating against search budget", caption=False))
    return parts
