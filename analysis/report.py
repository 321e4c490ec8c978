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


def _plt():
    import matplotlib

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
    per_seat = rates[rates["event"].isin(events) & (rates["seat"] != "any")]
    seats = sorted(per_seat["seat"].unique())
    fig, ax = plt.subplots(figsize=(7, 3.2))
    width = 0.8 / max(len(seats), 1)
    for k, seat in enumerate(seats):
        rows = per_seat[per_seat["seat"] == seat].set_index("event").reindex(events)
        x = np.arange(len(events)) + k * width
        err = np.vstack([rows["rate"] - rows["ci_low"], rows["ci_high"] - rows["rate"]])
        ax.bar(x, rows["rate"], width, yerr=err, capsize=2, label=f"seat {seat}")
    ax.set_xticks(np.arange(len(events)) + width * (len(seats) - 1) / 2)
    ax.set_xticklabels(events, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("rate per deal")
    ax.set_title(title)
    ax.legend(fontsize=7)
    return fig


def _table_html(frame: pd.DataFrame, fmt: str) -> str:
    if fmt == "md":
        return frame.to_markdown(index=False) if _has_tabulate() else "```\n" + frame.to_string(index=False) + "\n```"
    return frame.to_html(index=False, float_format=lambda v: f"{v:.6g}", border=0, classes="t")


def _has_tabulate() -> bool:
    try:
        import tabulate  # noqa: F401
    except ImportError:
        return False
    return True


def _deal_section(dataset: Dataset, figures: _Figures, fmt: str) -> list[str]:
    rates = summary(dataset.path)
    parts = [_table_html(rates, fmt)]
    events = [e for e in pd.unique(rates["event"])
              if e.startswith("instant_win") or e in ("weak_hand", "dealt_triple", "dealt_quadruple")
              or (e.startswith("contract_") and "_after_" not in e)]
    if events:
        parts.append(figures.add(_rate_bars(rates, events[:8], "per-seat rates with 95% intervals"), "rates by seat"))
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
    plt = _plt()
    table = load_comparison(path)
    parts = [_table_html(table, fmt)]
    shown = table.head(20)
    fig, ax = plt.subplots(figsize=(7, 0.35 * len(shown) + 1))
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
    ax.legend(fontsize=7)
    parts.append(figures.add(fig, "differences with 95% intervals"))
    if "strength" in table:
        from cardsim.analysis.compare import robustness

        parts.append(_table_html(robustness(table)[["metric", "arm", "verdict"]], fmt))
    return parts


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


def build_report(paths: list[str | os.PathLike], out: str | os.PathLike) -> Path:
    """Write a report of datasets and experiments to ``out`` (``.html`` or ``.md``)."""
    out = Path(out)
    fmt = "md" if out.suffix.lower() in (".md", ".markdown") else "html"
    if not out.absolute().parent.is_dir():
        raise ConfigError(f"report directory does not exist: {out.absolute().parent}")
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
            rules = ", ".join(f"{k}={v}" for k, v in meta["rules"].items())
            body = [html.escape(f"rules: {rules}") if fmt == "html" else f"rules: {rules}"]
            body += _play_section(dataset, figures, fmt) if meta["task"] == "play" else _deal_section(dataset, figures, fmt)
        sections.append((title, body))
    if fmt == "md":
        text = "# cardsim report\n\n" + "\n\n".join(f"## {t}\n\n" + "\n\n".join(b) for t, b in sections) + "\n"
    else:
        style = ("body{font-family:sans-serif;max-width:1000px;margin:auto}table.t{border-collapse:collapse;"
                 "font-size:12px}table.t td,table.t th{padding:2px 8px;border-bottom:1px solid #ddd}img{max-width:100%}")
        body = "".join(f"<h2>{html.escape(t)}</h2>" + "".join(f"<div>{b}</div>" for b in parts) for t, parts in sections)
        text = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>cardsim report</title>"
                f"<style>{style}</style></head><body><h1>cardsim report</h1>{body}</body></html>\n")
    out.write_text(text, encoding="utf-8")
    return out
