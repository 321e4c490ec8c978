"""Self-contained reports (HTML with embedded PNGs, or Markdown + PNG files).

``build_report(paths, out)`` renders one section per input: a run dataset (deal or
play) or an experiment directory written by ``cardsim experiment``.
"""
from __future__ import annotations

import base64
import html
import io
import json
import math
import os
import re
import urllib.parse
from pathlib import Path

import numpy as np
import pandas as pd

from cardsim.analysis.compare import load_comparison
from cardsim.analysis.metrics import metric_spec
from cardsim.analysis.stats import mean_interval
from cardsim.analysis.tables import summary
from cardsim.simcore.framework.config import ConfigError, rule_text
from cardsim.simcore.run.output import Dataset, missing_parent_message


REPORT_SUFFIXES = {".html": "html", ".htm": "html", ".md": "md", ".markdown": "md"}
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


def _plt():
    try:
        import matplotlib
    except ImportError:
        raise ConfigError("reports need matplotlib: pip install 'cardsim[plot]'") from None

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


class _Figures:
    """Collects PNG figures: inline (HTML) or as files beside a Markdown report."""

    def __init__(self, out: Path, inline: bool):
        self.out = out
        self.inline = inline
        self.count = 0
        self.files: list[tuple[Path, bytes]] = []  # a Markdown report's PNGs, written with the report
        #: A line naming the section's run or experiment (n, seed), printed on each figure so
        #: that a PNG seen on its own still says what it shows.
        self.context = ""

    def add(self, fig, title: str) -> str:
        if self.context:  # a footnote under everything drawn (tick labels and legends included)
            box = fig.get_tightbbox(fig.canvas.get_renderer())
            fig.text(box.x0 / fig.get_figwidth(), (box.y0 - 0.08) / fig.get_figheight(), self.context, fontsize=7,
                     color="0.35", ha="left", va="top")
        # a caption only where it adds to the figure's own title
        caption = "" if any(ax.get_title() == title for ax in fig.axes) else title
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
        _plt().close(fig)
        data = buffer.getvalue()
        self.count += 1
        if self.inline:
            src = "data:image/png;base64," + base64.b64encode(data).decode()
            caption_html = f"<figcaption>{html.escape(caption)}</figcaption>" if caption else ""
            return f'<figure><img alt="{html.escape(title)}" src="{src}">{caption_html}</figure>'
        name = f"{self.out.stem}-fig{self.count}.png"
        self.files.append((self.out.parent / name, data))
        return f"![{title}]({urllib.parse.quote(name)})"


def figure_files(out: Path) -> list[tuple[int, Path]]:
    """The PNG files a Markdown report ``out`` writes beside itself (``STEM-figN.png``), as
    ``(N, path)`` in order of N."""
    pattern = re.compile(re.escape(out.stem) + r"-fig(\d+)\.png")
    if not out.parent.is_dir():
        return []
    return sorted((int(m.group(1)), p) for p in out.parent.iterdir() if (m := pattern.fullmatch(p.name)))


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
        colour = "black" if seat < 0 else f"C{k % 10}"
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
        parts.append(figures.add(fig, "win rate by seat"))
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
        parts.append(figures.add(fig, caption))
    return parts


def experiment_info(path: Path) -> dict:
    """An experiment directory's ``experiment.json`` (empty when there is none)."""
    import json

    file = path / "experiment.json"
    return json.loads(file.read_text()) if file.is_file() else {}


def _arms_table(info: dict) -> pd.DataFrame:
    """Per arm, the rules and options it changes from the baseline arm (the first); with
    ``policies`` (strengths) the seats' policies are the strength's, not the arms'."""
    arms = info.get("arms") or []
    if not arms:
        return pd.DataFrame()
    base_rules, base_options = arms[0].get("rules", {}), arms[0].get("options", {})
    overridden = ("policy", "policies") if info.get("policies") else ()
    rows = []
    for k, arm in enumerate(arms):
        rules, options = arm.get("rules", {}), arm.get("options", {})
        changed = [f"{key} = {rule_text(v)}" for key, v in rules.items() if base_rules.get(key) != v]
        changed += [f"{key} = {rule_text(v)}" for key, v in options.items()
                    if base_options.get(key) != v and key not in overridden]
        rows.append({"arm": arm.get("name", str(k)),
                     "changes from the baseline": "(baseline)" if k == 0 else "; ".join(changed) or "(none)"})
    return pd.DataFrame(rows)


def _experiment_section(path: Path, figures: _Figures, fmt: str) -> list[str]:
    """What the experiment compares (arms and what each changes), the comparison table,
    then the differences with intervals: one panel per unit (rates, points, counts ...)
    so that effects of different sizes stay readable."""
    plt = _plt()
    table = load_comparison(path)
    info = experiment_info(path)
    parts = []
    if info:
        baseline = (info.get("arms") or [{}])[0].get("name", "baseline")
        description = (info.get("description") or "").strip().rstrip(".")
        line = (f"{description + '. ' if description else ''}{info.get('game')} {info.get('task')}; "
                f"baseline arm {baseline!r}; n = {info.get('n', 0):,} per arm; seed {info.get('seed')}. "
                f"Differences are arm − baseline on the same deals, with paired 95% intervals.")
        parts.append(line if fmt == "md" else f"<p>{html.escape(line)}</p>")
        arms = _arms_table(info)
        if len(arms):
            parts.append(_render_table(arms, fmt))
    unit_of = _unit_lookup(info.get("game"), info.get("task", "play"))
    units = [unit_of(m) for m in table["metric"]]
    shown = table.copy()
    shown.insert(list(shown.columns).index("metric") + 1, "unit", units)
    parts.append(_render_table(shown, fmt, TABLE_NOTES["experiment"]))
    for unit in dict.fromkeys(units):
        rows = table[[u == unit for u in units]]
        parts.append(_difference_figure(plt, figures, rows, f"differences ({unit})"))
    if "strength" in table:
        from cardsim.analysis.compare import robustness

        tests = pd.read_parquet(path / "interaction.parquet") if (path / "interaction.parquet").is_file() else None
        parts.append(_render_table(robustness(table, tests)[["metric", "arm", "verdict"]], fmt))
    return parts


def _unit_lookup(game, task):
    try:
        from cardsim.simcore.framework.registry import get_spec

        return get_spec(str(game)).metric_spec(task).unit_of
    except (ConfigError, KeyError, TypeError):
        return lambda metric: "rate" if not metric.startswith("points") else "points"


def _difference_figure(plt, figures, shown: pd.DataFrame, title: str) -> str:
    fig, ax = plt.subplots(figsize=(7, 0.32 * len(shown) + 1.2))
    y = np.arange(len(shown))
    ax.errorbar(shown["difference"], y + 0.15, xerr=[shown["difference"] - shown["unpaired_ci_low"],
                                                      shown["unpaired_ci_high"] - shown["difference"]],
                fmt="o", color="grey", ms=3, capsize=2, label="unpaired 95% CI")
    ax.errorbar(shown["difference"], y - 0.15, xerr=[shown["difference"] - shown["ci_low"],
                                                      shown["ci_high"] - shown["difference"]],
                fmt="o", color="tab:red", ms=3, capsize=2, label="paired 95% CI (same deals)")
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y)
    labels = shown["arm"] + (" @ " + shown["strength"].astype(str) if "strength" in shown else "")
    ax.set_yticklabels([f"{m} [{a}]" for m, a in zip(shown["metric"], labels)], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("arm − baseline")
    ax.set_title(title, fontsize=9, pad=16)
    # just above the axes, under the title: inside, the legend box would hide the top rows' intervals
    ax.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False, borderaxespad=0.1)
    return figures.add(fig, title)


def _ladder_section(path: Path, figures: _Figures, fmt: str) -> list[str]:
    """Rating table and the skill trace: rating (Elo vs the field) against search budget."""
    from cardsim.analysis.ladder import budget_of

    plt = _plt()
    table = pd.read_parquet(path / "ratings.parquet")
    parts = [_render_table(table, fmt, TABLE_NOTES["ladder"])]
    fig, ax = plt.subplots(figsize=(6, 3.4))
    search = table[[budget_of(p) is not None for p in table["policy"]]].copy()
    if len(search):
        search["budget"] = [budget_of(p) for p in search["policy"]]
        search = search.sort_values("budget")
        err = np.vstack([search["elo"] - search["elo_ci_low"], search["elo_ci_high"] - search["elo"]])
        ax.errorbar(search["budget"], search["elo"], yerr=err, fmt="o-", capsize=3, color="tab:red",
                    label="search:N (95% CI)")
        ax.set_xscale("log", base=2)
    others = table[[budget_of(p) is None for p in table["policy"]]]
    for k, row in enumerate(others.itertuples(index=False)):
        ax.axhline(row.elo, ls="--", lw=0.9, color=f"C{k % 10}", label=f"{row.policy} ({row.elo:+.0f})")
    ax.set_xlabel("search budget (rollouts per decision)")
    ax.set_ylabel("rating vs field (Elo)")
    ax.set_title("skill trace")
    ax.legend(fontsize=7)
    parts.append(figures.add(fig, "skill trace: rating against search budget"))
    return parts


def _dots(ax, frame: pd.DataFrame, labels: list[str], series: str, offset_step: float = 0.12) -> None:
    """Dots with 95% error bars, one colour per value of ``series``, at the positions of ``labels``."""
    keys = list(dict.fromkeys(frame[series]))
    for k, key in enumerate(keys):
        rows = frame[frame[series] == key]
        x = np.array([labels.index(g) for g in rows["label"]]) + (k - (len(keys) - 1) / 2) * offset_step
        err = np.vstack([rows["value"] - rows["ci_low"], rows["ci_high"] - rows["value"]]).clip(min=0)
        ax.errorbar(x, rows["value"], yerr=err, fmt="o", ms=4, capsize=3, color=f"C{k % 10}", label=str(key))
    ax.set_xticks(np.arange(len(labels)))
    ax.set_xticklabels(labels, fontsize=8)


def _balance_section(path: Path, figures: _Figures, fmt: str) -> list[str]:
    """The balance card: the answers at a glance (seat win rates, luck and skill shares per
    strength, the ladder), then the headline table and every figure."""
    from cardsim.analysis.balance import headline

    plt = _plt()
    meta = json.loads((path / "balance.json").read_text())
    card = pd.read_parquet(path / "card.parquet")
    shown = card[card["rules"] != "difference"] if "rules" in card else card.assign(rules="base")
    several = shown["rules"].nunique() > 1
    parts = [_rules_text(meta["rules"], fmt)]
    if "compare_rules" in meta:
        changed = {k: v for k, v in meta["compare_rules"].items() if meta["rules"].get(k) != v}
        parts.append(_rules_text(changed, fmt).replace("Rules:", "Compared with:"))
    players = int(meta["players"])

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6), gridspec_kw={"width_ratios": [1.3, 1, 1]})
    seats = shown[(shown["metric"] == "win_rate") & shown["group"].str.startswith("seat ")].copy()
    seats["label"] = seats["group"]
    seats["series"] = seats["strength"] + (" (" + seats["rules"] + ")" if several else "")
    _dots(axes[0], seats, [f"seat {s}" for s in range(players)], "series")
    axes[0].axhline(1.0 / players, color="0.5", lw=0.8, ls="--")
    axes[0].set_ylabel("win rate (95% CI)")
    axes[0].set_title("seat balance: each strength alone at the table", fontsize=9)
    axes[0].legend(fontsize=7)
    field = meta["field"]
    # the one-seat-against-the-field figures only (not the --mix or --pairs tables)
    shares = shown[shown["metric"].isin(["luck_share", "skill_share"])
                   & (shown["group"] == shown["strength"] + f" vs {field}")].copy()
    shares["label"] = shares["strength"] + (" (" + shares["rules"] + ")" if several else "")
    labels = list(dict.fromkeys(shares["label"]))
    shares["series"] = shares["metric"]
    if len(shares):
        _dots(axes[1], shares, labels, "series")
        axes[1].legend(fontsize=7)
    axes[1].set_ylim(bottom=0)
    axes[1].set_ylabel("share of a win's variance")
    axes[1].set_title(f"luck and skill: one strength among {meta['field']}", fontsize=9)
    ratings = shown[(shown["metric"] == "elo") & (shown["group"] == f"1 seat vs {field}")].copy()
    ratings["label"] = ratings["strength"]
    ratings["series"] = ratings["rules"]
    field_row = {"metric": "elo", "strength": meta["field"], "label": meta["field"], "value": 0.0, "ci_low": 0.0,
                 "ci_high": 0.0}
    ratings = pd.concat([ratings, pd.DataFrame([dict(field_row, rules=r, series=r)
                                                for r in dict.fromkeys(shown["rules"])])], ignore_index=True)
    ratings = ratings.sort_values("value", kind="stable")
    _dots(axes[2], ratings, list(dict.fromkeys(ratings["label"])), "series")
    axes[2].set_ylabel("rating vs the field (Elo, 95% CI)")
    axes[2].set_title("skill trace: the strengths against the field", fontsize=9)
    if several:
        axes[2].legend(fontsize=7)
    for ax in axes:
        ax.tick_params(axis="x", labelrotation=15)
    fig.tight_layout()
    parts.append(figures.add(fig, "the balance card at a glance"))
    note = TABLE_NOTES["balance"]
    if "rules" in card:
        parts.append(_render_table(headline(card[card["rules"] == "difference"]).drop(columns="rules"), fmt,
                                   "differences: compared rules − base rules on the same deals (paired bootstrap "
                                   "95% interval)"))
    parts.append(_render_table(headline(card), fmt, note))
    parts.append(_render_table(card, fmt))
    return parts


def _tune_section(path: Path, figures: _Figures, fmt: str) -> list[str]:
    """A tune race: each candidate's objectives with 95% intervals (survivors in colour,
    the eliminated in grey; with two objectives one against the other and the Pareto set),
    then the ranked table and the race round by round."""
    plt = _plt()
    meta = json.loads((path / "tune.json").read_text())
    table = pd.read_parquet(path / "candidates.parquet")
    names = [o.rpartition(":")[0] for o in meta["objectives"]]
    line = (f"{meta['candidates']} candidates; {meta['games_played']:,} games played (a full grid at the "
            f"finalists' deals: {meta['grid_games_at_final_deals']:,}); objectives {', '.join(meta['objectives'])}"
            + (f"; constraints {', '.join(meta['constraints'])}" if meta["constraints"] else ""))
    parts = [line if fmt == "md" else f"<p>{html.escape(line)}</p>"]
    racing = table["status"] == "racing"
    if len(names) >= 2:
        fig, ax = plt.subplots(figsize=(6.5, 4.2))
        x, y = names[0], names[1]
        for mask, colour, label in ((~racing, "0.6", "left the race"), (racing & ~table["pareto"], "tab:blue",
                                                                        "not ruled out"),
                                    (racing & table["pareto"], "tab:red", "Pareto set")):
            rows = table[mask]
            if len(rows):
                ax.errorbar(rows[x], rows[y], xerr=[rows[x] - rows[f"{x}_ci_low"], rows[f"{x}_ci_high"] - rows[x]],
                            yerr=[rows[y] - rows[f"{y}_ci_low"], rows[f"{y}_ci_high"] - rows[y]], fmt="o", ms=4,
                            capsize=2, color=colour, label=label)
        ax.set_xlabel(meta["objectives"][0])
        ax.set_ylabel(meta["objectives"][1])
        ax.legend(fontsize=7)
        ax.set_title("candidates (95% CI)", fontsize=9)
    else:
        fig, ax = plt.subplots(figsize=(7, 0.3 * len(table) + 1.2))
        ys = np.arange(len(table))
        for mask, colour, label in ((~racing, "0.6", "left the race"), (racing, "tab:red", "not ruled out")):
            rows = table[mask]
            ax.errorbar(rows[names[0]], ys[mask.to_numpy()], xerr=[(rows[names[0]] - rows[f"{names[0]}_ci_low"]).clip(
                lower=0), (rows[f"{names[0]}_ci_high"] - rows[names[0]]).clip(lower=0)], fmt="o", ms=4, capsize=2,
                        color=colour, label=label)
        ax.set_yticks(ys)
        ax.set_yticklabels(table["candidate"], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel(f"{meta['objectives'][0]} (95% CI over each candidate's own deals)")
        ax.legend(fontsize=7)
        ax.set_title("candidates, best first", fontsize=9)
    parts.append(figures.add(fig, "the candidates and their objectives"))
    parts.append(_render_table(table, fmt, "status racing: survived the race (rank 1 is the best estimate); "
                                           "round_out, reason: when and why a candidate left"))
    if (path / "rounds.parquet").is_file():
        parts.append(_render_table(pd.read_parquet(path / "rounds.parquet"), fmt, "the race round by round"))
    return parts


def _sweep_section(path: Path, figures: _Figures, fmt: str) -> list[str]:
    """Each metric against the swept value, with its 95% interval band (one panel per metric)."""
    plt = _plt()
    sweep = pd.read_parquet(path / "sweep.parquet")
    switch = str(sweep["switch"].iloc[0]) if len(sweep) else "value"
    # the swept value under its switch's name ("players = 3"), not as a number to format
    shown = sweep.drop(columns="switch").rename(columns={"value": switch})  # "players = 3", not a number
    parts = [_render_table(shown, fmt, TABLE_NOTES["sweep"])]
    metrics = list(dict.fromkeys(sweep["metric"]))
    strengths = list(dict.fromkeys(sweep["strength"])) if "strength" in sweep else [None]
    cols = min(3, len(metrics))
    rows = -(-len(metrics) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.0 * rows), squeeze=False)
    for ax, metric in zip(axes.flat, metrics):
        for k, strength in enumerate(strengths):
            sel = sweep[(sweep["metric"] == metric) & ((sweep["strength"] == strength) if strength else True)]
            x = np.arange(len(sel))
            ax.plot(x, sel["estimate"], "o-", color=f"C{k}", label=strength or None)
            ax.fill_between(x, sel["ci_low"], sel["ci_high"], color=f"C{k}", alpha=0.25)
            ax.set_xticks(x)
            ax.set_xticklabels(sel["value"])
        ax.set_title(metric, fontsize=9)
        ax.set_xlabel(str(sweep["switch"].iloc[0]))
        ax.set_ylabel(sweep[sweep["metric"] == metric]["unit"].iloc[0])
        if strengths[0] is not None:
            ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(metrics):]:
        ax.axis("off")
    fig.tight_layout()
    parts.append(figures.add(fig, "each metric against the swept value (95% interval bands)"))
    return parts


def _write_whole(path: Path, data: bytes) -> None:
    """Write ``path`` through a new temporary file beside it, renamed into place.

    The temporary file is created exclusively under a fresh name (``mkstemp``: O_EXCL),
    so a planted ``.NAME.tmp`` symlink is never written through nor renamed onto the
    report.
    """
    import tempfile

    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o666 & ~_umask())  # as an ordinary new file, not mkstemp's 0600
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def check_report_path(out: Path, overwrite: bool) -> str:
    """The report format of ``out``; ConfigError for an unknown suffix, a folder, an
    existing file without ``overwrite`` or a folder that cannot be written."""
    if out.is_dir():
        raise ConfigError(f"{out} is a folder: give a file name such as {out / 'report.html'}")
    fmt = REPORT_SUFFIXES.get(out.suffix.lower())
    if fmt is None:
        raise ConfigError(f"report file must end in .html or .md, got {str(out)[:200]!r}")
    if out.exists() and not overwrite:
        raise ConfigError(f"{out} exists: use --overwrite to replace it")
    existing = figure_files(out) if fmt == "md" and not overwrite else []  # the PNGs it writes beside itself
    if existing:
        raise ConfigError(f"{existing[0][1]} exists: use --overwrite to replace it")
    parent = out.absolute().parent
    if not parent.is_dir():
        raise ConfigError(missing_parent_message(parent, "report directory"))
    if not os.access(parent, os.W_OK):
        raise ConfigError(f"cannot write the report into {parent}: permission denied")
    return fmt


def build_report(paths: list[str | os.PathLike], out: str | os.PathLike, overwrite: bool = True) -> Path:
    """Write a report of datasets and experiments to ``out`` (``.html`` or ``.md``)."""
    out = Path(out)
    fmt = check_report_path(out, overwrite)
    _plt()
    figures = _Figures(out, inline=(fmt == "html"))
    sections = []
    from cardsim.simcore.run.folders import check_folder, is_study_folder

    for raw in paths:
        path = Path(raw)
        if is_study_folder(path):
            check_folder(path)  # an edited table or a damaged arm is refused, not reported
        if (path / "tune.json").is_file():
            meta = json.loads((path / "tune.json").read_text())
            title = f"{meta['game']} tune: {path.name} (budget {meta['budget']:,} games, seed={meta['seed']})"
            figures.context = title
            body = _tune_section(path, figures, fmt)
        elif (path / "balance.json").is_file():
            meta = json.loads((path / "balance.json").read_text())
            title = (f"{meta['game']} balance card: {path.name} ({', '.join(meta['policies'])}; field "
                     f"{meta['field']}; {meta['n']:,} deals per table, seed={meta['seed']})")
            figures.context = title
            body = _balance_section(path, figures, fmt)
        elif (path / "ladder.json").is_file():
            meta = json.loads((path / "ladder.json").read_text())
            title = (f"{meta['game']} ladder: {path.name} (field {meta['field']}, {meta['n']:,} deals per seat, "
                     f"seed={meta['seed']})")
            figures.context = title
            body = _ladder_section(path, figures, fmt)
        elif (path / "comparison.parquet").is_file():
            info = experiment_info(path)
            name = str(info.get("name") or path.name)
            title = f"Experiment {name}" + (f" ({path.name})" if name != path.name else "")
            figures.context = (f"experiment {name}: {info.get('game')} {info.get('task')}, "
                               f"n = {info.get('n', 0):,} per arm, seed {info.get('seed')}") if info else name
            body = _experiment_section(path, figures, fmt)
            if (path / "sweep.parquet").is_file():
                body += _sweep_section(path, figures, fmt)
        else:
            dataset = Dataset(path)
            meta = dataset.meta
            title = f"{meta['game']} {meta['task']}: {path.name} (n={meta['n']:,}, seed={meta['seed']})"
            figures.context = title
            body = [_rules_text(meta["rules"], fmt)]
            body += _play_section(dataset, figures, fmt) if meta["task"] == "play" else _deal_section(dataset, figures, fmt)
        sections.append((title, body))
    if fmt == "md":
        text = "# cardsim report\n\n" + "\n\n".join(f"## {t}\n\n" + "\n\n".join(b) for t, b in sections) + "\n"
    else:
        style = ("body{font-family:sans-serif;max-width:1000px;margin:auto}table.t{border-collapse:collapse;"
                 "font-size:12px;margin:10px 0}table.t td,table.t th{padding:2px 8px;border-bottom:1px solid #ddd}"
                 "td.n{text-align:right;font-variant-numeric:tabular-nums}img{max-width:100%}"
                 "p.rules,p.note{font-size:12px;color:#444}")
        body = "".join(f"<h2>{html.escape(t)}</h2>" + "".join(f"<div>{b}</div>" for b in parts) for t, parts in sections)
        text = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>cardsim report</title>"
                f"<style>{style}</style></head><body><h1>cardsim report</h1>{body}</body></html>\n")
    written: list[Path] = []
    try:  # each file whole (a temporary file renamed), the figures first, the report last
        for path, data in [*figures.files, (out, text.encode("utf-8"))]:
            _write_whole(path, data)
            written.append(path)
    except OSError as exc:
        for path in written:  # no figures without their report
            path.unlink(missing_ok=True)
        raise ConfigError(f"cannot write the report {out}: {exc.strerror or exc}") from None
    for number, stale in figure_files(out) if fmt == "md" else ():  # an earlier, longer report's extra figures
        if number > figures.count:
            stale.unlink(missing_ok=True)
    return out
