"""Tidy tables from run datasets."""
from __future__ import annotations

import os
from typing import Any

import numpy as np
import pandas as pd

from cardsim.analysis.intervals import wilson
from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.run.output import Dataset
from cardsim.simcore.framework.tasks import TABLE_SEAT

#: Columns of :func:`rates` (and of ``cardsim summary --json`` records).
RATE_COLUMNS = ["event", "seat", "count", "n", "rate", "ci_low", "ci_high"]

#: The ``seat`` of table-level rows ("any seat": the event happened to at least one
#: seat of the deal), the same value as in the datasets' counts tables.
ANY_SEAT = TABLE_SEAT


def run_info(path: str | os.PathLike) -> dict[str, Any]:
    """The resolved metadata of a run (contents of its ``run.json``)."""
    return Dataset(path).meta


def load(path: str | os.PathLike, table: str | None = None) -> pd.DataFrame:
    """Read a run's table into a DataFrame.

    Parameters
    ----------
    path : path-like
        Run directory written by ``cardsim``.
    table : str, optional
        Table name (``"counts"``, ``"per_deal"``, ``"games"``...); default: the run's
        first table (``"counts"`` for deal runs).
    """
    dataset = Dataset(path)
    return dataset.read(table or dataset.meta["tables"][0])


def rates(counts: pd.DataFrame) -> pd.DataFrame:
    """Event rates with 95% Wilson intervals from a counts table.

    Parameters
    ----------
    counts : DataFrame
        Columns ``event``, ``seat`` (``-1`` = any seat), ``count``, ``n``; several
        rows per (event, seat) (one per chunk) are summed.

    Returns
    -------
    DataFrame
        Columns ``event, seat, count, n, rate, ci_low, ci_high``, one row per
        (event, seat) in first-seen event order, seats ascending with the table row
        last. ``seat`` is int64: ``0..players-1``, or :data:`ANY_SEAT` (``-1``) for the
        table row (the event happened to at least one seat), so ``rates[rates.seat >= 0]``
        selects the per-seat rows. ``ci_low`` is exactly 0 when ``count`` is 0.
    """
    df = counts.copy()
    df["event"] = df["event"].astype(str)
    order = {e: i for i, e in enumerate(pd.unique(df["event"]))}
    grouped = df.groupby(["event", "seat"], sort=False, observed=True)[["count", "n"]].sum().reset_index()
    grouped["_event_order"] = grouped["event"].map(order)
    seat = grouped["seat"].astype("int64")
    grouped["_seat_order"] = np.where(seat < 0, 1_000, seat)
    grouped = grouped.sort_values(["_event_order", "_seat_order"]).reset_index(drop=True)
    low, high = wilson(grouped["count"].to_numpy(), grouped["n"].to_numpy())
    out = pd.DataFrame({
        "event": grouped["event"],
        "seat": np.where(seat < 0, ANY_SEAT, seat).astype("int64"),
        "count": grouped["count"].astype("int64"),
        "n": grouped["n"].astype("int64"),
        "rate": grouped["count"] / grouped["n"],
        "ci_low": low,
        "ci_high": high,
    })
    return out[RATE_COLUMNS]


def with_exact(table: pd.DataFrame, exact_rows) -> pd.DataFrame:
    """Add ``exact_low``, ``exact_high`` (equal when the value is exact; NaN when no
    exact value exists) and ``z``: how many standard errors the simulated rate lies
    outside ``[exact_low, exact_high]`` (0 inside; signed, positive above)."""
    lookup = {(event, ANY_SEAT if seat == "any" else int(seat)): (float(low), float(high))
              for event, seat, low, high in exact_rows}
    low = np.full(len(table), np.nan)
    high = np.full(len(table), np.nan)
    for i, (event, seat) in enumerate(zip(table["event"], table["seat"])):
        if (event, int(seat)) in lookup:
            low[i], high[i] = lookup[(event, int(seat))]
    rate = table["rate"].to_numpy(float)
    n = table["n"].to_numpy(float)
    nearest = np.clip(rate, low, high)
    se = np.sqrt(np.maximum(nearest * (1 - nearest), 1.0 / n) / n)
    out = table.copy()
    out["exact_low"] = low
    out["exact_high"] = high
    out["z"] = np.where(np.isnan(low), np.nan, (rate - nearest) / se)
    return out


def custom_summary(path: str | os.PathLike, refs: list[str]) -> pd.DataFrame:
    """Summary rows of custom metrics (``PATH.py:NAME``) over a play run's per-game table:
    ``metric, group, n, value, ci_low, ci_high`` (0/1 metrics as Wilson rates, others as
    means with a normal interval)."""
    from cardsim.simcore.framework.custom import custom_metric_frame
    from cardsim.simcore.framework.registry import get_spec
    from cardsim.simcore.framework.summarize import SummaryAccumulator

    dataset = Dataset(path)
    if dataset.meta.get("task") != "play":
        raise ConfigError("--metric works on play runs (deal runs count events: see --event)")
    table = get_spec(str(dataset.meta.get("game"))).metric_spec("play").table
    frames = [custom_metric_frame(refs, part.to_pandas()) for part in dataset.iter_parts(table)]
    values = pd.concat(frames, ignore_index=True)
    acc = SummaryAccumulator()
    for column in values.columns:
        x = values[column].to_numpy(float)
        if np.isin(x, (0.0, 1.0)).all():
            acc.rate(column, "custom (per game)", x.astype(bool))
        else:
            acc.mean(column, "custom (per game)", x)
    return acc.table()


def summary(path: str | os.PathLike, metrics: list[str] | None = None) -> pd.DataFrame:
    """The summary table of a finished run (what the CLI prints at the end); ``metrics``:
    custom metric functions ``PATH.py:NAME`` whose rows are appended (play runs)."""
    if metrics:
        return pd.concat([summary(path), custom_summary(path, list(metrics))], ignore_index=True)
    from cardsim.simcore.framework.registry import get_spec

    dataset = Dataset(path)
    game, task = dataset.meta.get("game"), dataset.meta.get("task")
    if task == "deal":
        table = rates(dataset.read("counts"))
        spec = get_spec(str(game))
        if spec.exact:
            from cardsim.simcore.framework.exact_cache import is_cached

            rules = spec.rules_cls.from_settings(dataset.meta["rules"])
            # the exact table values once `cardsim exact` computed them (cached), as that command
            # prints them; until then the quick table's brackets
            full = bool(spec.exact_full) and is_cached(str(game), spec.exact_full, rules)
            table = with_exact(table, spec.exact_rows(rules, full=full))
        return table
    if task == "play":
        return get_spec(str(game)).summary(dataset)
    raise ConfigError(f"no summary for {game} {task}")
