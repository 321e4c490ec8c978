"""Self-contained reports (HTML with embedded PNGs, or Markdown + PNG files).

``build_report(paths, out)`` renders one section per input: a run dataset (deal or
play) or an experiment directory written by ``cardsim experiment``.
"""
from __future__ import annotations

import base64
import html
import io
import os
from pathlib import Path

import numpy as np
import pandas as pd

from cardsim.analysis.compare import load_comparison
from cardsim.analysis.metrics import metric_spec
from cardsim.analysis.stats import mean_interval
from cardsim.analysis.tables import summary
from cardsim.simcore.config import ConfigError
from cardsim.simcore.output import Dataset


REPORT_SUFFIXES = {".html": "html", ".htm": "html", ".md": "md", ".markdown": "md"}
#: Columns left out of report tables (explained in the README; noise for a reader).
HIDDEN_COLUMNS = ("se_ratio", "unpaired_ci_low", "unpaired_ci_high", "chunk")


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

    def add(self, fig, title: str) -> str:
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
        _plt().close(fig)
        data = buffer.getvalue()
        self.count += 1
        if self.inline:
            src = "data:image/png;base64," + base64.b64encode(data).decode()
            return f'<figure><img alt="{html.escape(title)}" src="{src}"><figcaption>{html.escape(title)}</figcaption></figure>'
        name = f"{self.out.stem}-fig{self.count}.png"
        (self.out.parent / name).write_bytes(data)
        return f"![{title}]({name})"


def _rate_bars(rates: pd.DataFrame, events: list[str], title: str):
    plt = _plt()
    per_seat = rates[rates["event"].isin(events)]
    seats = sorted(per_seat["seat"].unique(), key=lambda s: (s < 0, s))  # the table (-1) last
    fig, ax = plt.subplots(figsize=(7, 3.2))
    width = 0.8 / max(len(seats), 1)
    for k, seat in enumerate(seats):
        rows = per_seat[per_seat["seat"] == seat].set_index("event").reindex(events)
        x = np.arange(len(events)) + k * width
        err = np.vstack([rows["rate"] - rows["ci_low"], rows["ci_high"] - rows["rate"]])
        ax.bar(x, rows["rate"], width, yerr=err, capsize=2, label="table (any seat)" if seat < 0 else f"seat {seat}",
               color="0.35" if seat < 0 else None)
    ax.set_xticks(np.arange(len(events)) + width * (len(seats) - 1) / 2)
    ax.set_xticklabels(events, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("rate per deal")
    ax.set_yscale("log")  # rare events (a 1% weak hand) stay visible beside common ones
    ax.set_title(title)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # beside the axes: never over a bar
    return fig


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
        if v == int(v) and abs(v) >= 1000:
            return f"{int(v):,}"
        if abs(v) >= 1000:
            return f"{v:,.1f}"
        return f"{v:.4g}" if abs(v) >= 1e-3 or v == 0 else f"{v:.3g}"
    return str(value)


def _table_html(frame: pd.DataFrame, fmt: str) -> str:
    """A readable table (no optional dependency): HTML, or a Markdown pipe table."""
    frame = frame.drop(columns=[c for c in HIDDEN_COLUMNS if c in frame.columns])
    header = [str(c) for c in frame.columns]
    rows = [[_cell(v) for v in row] for row in frame.itertuples(index=False)]
    if fmt == "md":
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns]
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td{' class=n' if numeric[i] else ''}>{html.escape(v)}</td>"
                                    for i, v in enumerate(r)) + "</tr>" for r in rows)
    return f"<table class='t'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _rules_text(rules: dict, fmt: str) -> str:
    lines = [f"{k} = {','.join(map(str, v)) if isinstance(v, list) else v}" for k, v in rules.items()]
    if fmt == "md":
        return "Rules: " + "; ".join(f"`{x}`" for x in lines)
    return "<p class='rules'>Rules: " + "; ".join(f"<code>{html.escape(x)}</code>" for x in lines) + "</p>"


def _deal_section(dataset: Dataset, figures: _Figures, fmt: str) -> list[str]:
    rates = summary(dataset.path)
    shown = rates.assign(seat=[("any" if s < 0 else str(s)) for s in rates["seat"]])  # the table row: "any"
    parts = [_table_html(shown, fmt)]
    events = list(pd.unique(rates["event"]))
    for start in range(0, len(events), 8):  # every event, 8 per figure: nothing dropped
        chunk = events[start:start + 8]
        caption = (f"rates by seat, events {start + 1}-{start + len(chunk)} of {len(events)}"
                   if len(events) > 8 else "rates by seat")
        parts.append(figures.add(_rate_bars(rates, chunk, "rates per seat and for the table (95% intervals, log scale)"),
                                 caption))
    return parts


def _play_section(dataset: Dataset, figures: _Figures, fmt: str) -> list[str]:
    """Summary table, win rate by seat with intervals, and the game-length distribution."""
    plt = _plt()
    meta = dataset.meta
    parts = [_table_html(summary(dataset.path), fmt)]
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
        ax.bar([str(s) for s in seats], means, yerr=err, capsize=4, color="tab:blue")
        ax.axhline(1 / len(seats), color="grey", lw=0.8, ls="--")
        ax.set_xlabel("seat")
        ax.set_ylabel("win rate")
        ax.set_title("win rate by seat (95% intervals)")
        parts.append(figures.add(fig, "win rate by seat"))
    if lengths:
        values = np.concatenate(lengths)
        fig, ax = plt.subplots(figsize=(5, 3))
        ax.hist(values, bins=min(60, max(10, int(values.max() - values.min() + 1))), color="tab:green")
        ax.set_xlabel(length)
        ax.set_ylabel("games")
        ax.set_title(f"game length ({length})")
        parts.append(figures.add(fig, "game length distribution"))
    return parts


def _experiment_section(path: Path, figures: _Figures, fmt: str) -> list[str]:
    """Comparison table, then the differences with intervals: one panel per unit
    (rates, points, counts ...) so that effects of different sizes stay readable."""
    import json

    plt = _plt()
    table = load_comparison(path)
    info = {}
    if (path / "experiment.json").is_file():
        info = json.loads((path / "experiment.json").read_text())
    parts = []
    if info:
        baseline = info["arms"][0]["name"] if info.get("arms") else "baseline"
        line = (f"{info.get('description') or info.get('name', '')} — {info.get('game')} {info.get('task')}, "
                f"baseline arm {baseline!r}, n = {info.get('n', 0):,} per arm, seed {info.get('seed')}; "
                f"differences are arm − baseline on the same deals, paired 95% intervals.")
        parts.append(line if fmt == "md" else f"<p>{html.escape(line)}</p>")
    parts.append(_table_html(table, fmt))
    unit_of = _unit_lookup(info.get("game"), info.get("task", "play"))
    units = [unit_of(m) for m in table["metric"]]
    for unit in dict.fromkeys(units):
        shown = table[[u == unit for u in units]]
        parts.append(_difference_figure(plt, figures, shown, f"differences ({unit})"))
    if "strength" in table:
        from cardsim.analysis.compare import robustness

        parts.append(_table_html(robustness(table)[["metric", "arm", "verdict"]], fmt))
    return parts


def _unit_lookup(game, task):
    try:
        from cardsim.simcore.registry import get_spec

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
    ax.set_title(title, fontsize=9)
    # below the axes: inside, the legend box would hide the intervals of the top rows
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.5 / (0.32 * len(shown) + 1.2) - 0.12),
              ncol=2, frameon=False)
    return figures.add(fig, title)


def _ladder_section(path: Path, figures: _Figures, fmt: str) -> list[str]:
    """Rating table and the skill trace: rating (Elo vs the field) against search budget."""
    from cardsim.analysis.ladder import budget_of

    plt = _plt()
    table = pd.read_parquet(path / "ratings.parquet")
    parts = [_table_html(table, fmt)]
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


def _sweep_section(path: Path, figures: _Figures, fmt: str) -> list[str]:
    """Each metric against the swept value, with its 95% interval band (one panel per metric)."""
    plt = _plt()
    sweep = pd.read_parquet(path / "sweep.parquet")
    parts = [_table_html(sweep, fmt)]
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
    parent = out.absolute().parent
    if not parent.is_dir():
        blocker = next((a for a in parent.parents if a.exists()), None) if not parent.exists() else parent
        if blocker is not None and not blocker.is_dir():  # e.g. --out some-file/r.html
            raise ConfigError(f"cannot write the report under {blocker}: it is a file, not a folder")
        raise ConfigError(f"report directory does not exist: {parent}")
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
    for raw in paths:
        path = Path(raw)
        if (path / "ladder.json").is_file():
            import json

            meta = json.loads((path / "ladder.json").read_text())
            title = (f"{meta['game']} ladder: {path.name} (field {meta['field']}, {meta['n']:,} deals per seat, "
                     f"seed={meta['seed']})")
            body = _ladder_section(path, figures, fmt)
        elif (path / "comparison.parquet").is_file():
            title = f"Experiment {path.name}"
            body = _experiment_section(path, figures, fmt)
            if (path / "sweep.parquet").is_file():
                body += _sweep_section(path, figures, fmt)
        else:
            dataset = Dataset(path)
            meta = dataset.meta
            title = f"{meta['game']} {meta['task']}: {path.name} (n={meta['n']:,}, seed={meta['seed']})"
            body = [_rules_text(meta["rules"], fmt)]
            body += _play_section(dataset, figures, fmt) if meta["task"] == "play" else _deal_section(dataset, figures, fmt)
        sections.append((title, body))
    if fmt == "md":
        text = "# cardsim report\n\n" + "\n\n".join(f"## {t}\n\n" + "\n\n".join(b) for t, b in sections) + "\n"
    else:
        style = ("body{font-family:sans-serif;max-width:1000px;margin:auto}table.t{border-collapse:collapse;"
                 "font-size:12px}table.t td,table.t th{padding:2px 8px;border-bottom:1px solid #ddd}"
                 "td.n{text-align:right;font-variant-numeric:tabular-nums}img{max-width:100%}"
                 "p.rules{font-size:12px;color:#444}")
        body = "".join(f"<h2>{html.escape(t)}</h2>" + "".join(f"<div>{b}</div>" for b in parts) for t, parts in sections)
        text = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>cardsim report</title>"
                f"<style>{style}</style></head><body><h1>cardsim report</h1>{body}</body></html>\n")
    tmp = out.with_name(f".{out.name}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(out)  # never a half-written report
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ConfigError(f"cannot write the report {out}: {exc.strerror or exc}") from None
    return out
