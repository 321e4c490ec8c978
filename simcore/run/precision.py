"""Precision targets: run whole chunks, in index order, until the target rates are known
to a given 95% half-width (``cardsim deal|play GAME --precision EPS``).

The stopping rule looks only at chunks ``0 .. k`` in index order and stops at the first
``k`` where every target's half-width is ``<= eps``, so for a seed and chunk size the
stopping point (and the data) are the same whatever the thread count or backend. The
chunks computed before the decision are kept in memory (bounded by ``max_n``) and then
written as an ordinary dataset of exactly ``n`` games; its ``run.json`` records the
target, the achieved half-widths and the cap.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable

import numpy as np

from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.primitives.intervals import Z95, wilson
from cardsim.simcore.framework.registry import get_spec

#: Chunk size of precision runs when the user does not set one: fine enough to stop
#: near the target, coarse enough to keep parts few.
DEAL_CHUNK = 1 << 18

#: A rate's 95% interval lies inside 0..1, so its half-width is below 0.5: an EPS at or
#: above it is met by any first chunk and asks for nothing.
RATE_EPS_LIMIT = 0.5


class _Stats:
    """Running counts (rates) or moments (means) per target name."""

    def __init__(self) -> None:
        self.cells: dict[str, list[float]] = {}

    def add_rate(self, name: str, hits: float, n: float) -> None:
        cell = self.cells.setdefault(name, ["rate", 0.0, 0.0, 0.0])
        cell[1] += n
        cell[2] += hits
        cell[3] += hits  # 0/1 values square to themselves: the moments stay right if a mean follows

    def add_values(self, name: str, values: np.ndarray) -> None:
        values = np.asarray(values, float)
        if np.isin(values, (0.0, 1.0)).all() and self.cells.get(name, ["rate"])[0] == "rate":
            self.add_rate(name, float(values.sum()), values.size)
            return
        cell = self.cells.setdefault(name, ["mean", 0.0, 0.0, 0.0])
        cell[0] = "mean"
        cell[1] += values.size
        cell[2] += float(values.sum())
        cell[3] += float(values @ values)

    def half_width(self, name: str) -> float:
        kind, n, s, ss = self.cells[name]
        if n < 2:
            return math.inf
        if kind == "rate":
            low, high = wilson(s, n)
            return float(high - low) / 2
        var = max(ss - s * s / n, 0.0) / (n - 1)
        return Z95 * math.sqrt(var / n)

    def estimate(self, name: str) -> float:
        kind, n, s, _ = self.cells[name]
        return s / n if n else math.nan


def _deal_targets(tables, stats: _Stats) -> None:
    counts = tables["counts"].to_pandas()
    for event, seat, count, n in zip(counts["event"].astype(str), counts["seat"], counts["count"], counts["n"]):
        stats.add_rate(f"{event}@{'any' if seat < 0 else int(seat)}", float(count), float(n))


def _play_targets(game: str, tables, stats: _Stats) -> None:
    metric = get_spec(game).metric_spec("play")
    frame = metric.function(tables[metric.table].to_pandas())
    for column in frame.columns:
        stats.add_values(column, frame[column].to_numpy(float))


def check_eps(eps: float, rates_only: bool) -> None:
    """Refuse an EPS that is no 95% half-width: not positive, or (when every target is a
    rate) at least :data:`RATE_EPS_LIMIT`, which the first chunk always meets."""
    if not (eps > 0 and math.isfinite(eps)):
        raise ConfigError(f"--precision must be a positive number, got {eps}")
    if rates_only and eps >= RATE_EPS_LIMIT:
        raise ConfigError(f"--precision {eps:g} is no 95% half-width of a rate (a rate's is always below "
                          f"{RATE_EPS_LIMIT:g}): give 0 < EPS < {RATE_EPS_LIMIT:g}, e.g. 0.001")


def known_rates(task: str, targets: list[str] | None) -> bool:
    """Whether every target is a rate before any chunk has run: deal targets always are
    (event counts), and so are play's ``win_seat_*`` (the default targets); other play
    metrics show their kind only in their values."""
    if task == "deal" or not targets:
        return True
    return all(t.startswith("win_seat_") for t in targets)


def expand_targets(targets: list[str], known: list[str]) -> list[str]:
    """The user's targets as target names: a deal ``EVENT`` without ``@SEAT`` stands for
    every seat of that event (``EVENT@0`` .. ``EVENT@P-1``; the table's ``EVENT@any``
    only when named). A target named twice counts once."""
    chosen: list[str] = []
    for target in targets:
        seats = [k for k in known if k.startswith(f"{target}@") and k != f"{target}@any"]
        bare = "@" not in target and target not in known
        chosen += seats if bare and seats else [target]  # else kept: an unknown name is reported
    return list(dict.fromkeys(chosen))


def default_targets(task: str, names: list[str]) -> list[str]:
    """Every headline rate: each deal event of each seat and table; each seat's win rate."""
    if task == "deal":
        return names
    return [n for n in names if n.startswith("win_seat_")]


def run_to_precision(config, eps: float, targets: list[str] | None,
                     on_chunk: Callable[[int, dict[str, float]], None] | None = None):
    """Run chunks ``0, 1, ...`` of ``config`` (``config.n`` is the cap) until every target's
    95% half-width is ``<= eps``.

    Returns
    -------
    n : int
        Games (or deals) run.
    chunks : list of dict
        The tables of each chunk run, in index order.
    report : dict
        ``{"eps", "targets", "reached", "half_width": {target: w}, "estimate": {target: x}, "max": cap}``.
    """
    from cardsim.simcore.run.runner import run_chunk

    check_eps(eps, known_rates(config.task, targets))
    stats = _Stats()
    chunks = []
    chosen: list[str] | None = None
    reached = False
    n = 0
    for chunk_id in range(config.n_chunks):
        tables = run_chunk(config, chunk_id)
        chunks.append(tables)
        n += config.chunk_range(chunk_id)[1]
        if config.task == "deal":
            _deal_targets(tables, stats)
        else:
            _play_targets(config.game, tables, stats)
        if chosen is None:
            known = list(stats.cells)
            chosen = expand_targets(targets, known) if targets else default_targets(config.task, known)
            unknown = [t for t in chosen if t not in stats.cells]
            if unknown:
                raise ConfigError(f"unknown --target {', '.join(unknown)} (known: {', '.join(known[:40])}"
                                  f"{', ...' if len(known) > 40 else ''})")
            # play metrics other than win rates show their kind only now
            check_eps(eps, all(stats.cells[t][0] == "rate" for t in chosen))
        widths = {t: stats.half_width(t) for t in chosen}
        if on_chunk is not None:
            on_chunk(n, widths)
        if max(widths.values()) <= eps:
            reached = True
            break
    report = {"eps": eps, "targets": chosen, "reached": reached, "max": config.n, "n": n,
              "half_width": {t: stats.half_width(t) for t in chosen},
              "estimate": {t: stats.estimate(t) for t in chosen}}
    return n, chunks, report


def final_config(config, n: int):
    """The run config of the dataset actually written (``n`` games, same chunking)."""
    return dataclasses.replace(config, n=n)


def describe(report: dict[str, Any]) -> str:
    """One line: reached or not, n, the widest half-width."""
    worst = max(report["half_width"], key=report["half_width"].get)
    w = report["half_width"][worst]
    status = "reached" if report["reached"] else f"NOT reached within --max {report['max']:,}"
    return (f"precision {report['eps']:g} {status}: n={report['n']:,}, widest 95% half-width {w:.3g} "
            f"({worst}, estimate {report['estimate'][worst]:.4g}) over {len(report['targets'])} target(s)")
