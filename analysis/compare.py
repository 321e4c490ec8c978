"""Paired comparison of experiment arms, streamed chunk by chunk."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from cardsim.analysis.metrics import metric_spec
from cardsim.analysis.stats import PairedMoments
from cardsim.simcore.framework.config import ConfigError, rule_text
from cardsim.simcore.run.output import Dataset

COMPARISON_COLUMNS = ["metric", "arm", "n", "baseline", "value", "difference", "ci_low", "ci_high",
                      "unpaired_ci_low", "unpaired_ci_high", "se_ratio", "ess_factor"]

_INDEX_COLUMNS = ("game", "deal")


def _aligned_parts(baseline: Dataset, arm: Dataset, table: str):
    base_parts, arm_parts = baseline.parts(table), arm.parts(table)
    if [p.name for p in base_parts] != [p.name for p in arm_parts]:
        raise ConfigError(f"{arm.path} and {baseline.path} were not chunked alike: cannot pair games")
    for base_part, arm_part in zip(base_parts, arm_parts):
        a = baseline.read_part(base_part).to_pandas()  # checked against run.json first
        b = arm.read_part(arm_part).to_pandas()
        key = next((c for c in _INDEX_COLUMNS if c in a.columns), None)
        if key is not None:
            a = a.sort_values(key).reset_index(drop=True)
            b = b.sort_values(key).reset_index(drop=True)
            if not np.array_equal(a[key].to_numpy(), b[key].to_numpy()):
                raise ConfigError(f"{arm.path} and {baseline.path} hold different games: cannot pair them")
        yield a, b


def compare(baseline_path: str | os.PathLike, arm_paths: dict[str, str | os.PathLike],
            custom_metrics: list[str] | None = None, custom_events: list[str] | None = None) -> pd.DataFrame:
    """Compare each arm with the baseline, metric by metric, on the same games.

    Parameters
    ----------
    baseline_path : path
        Dataset of the baseline arm.
    arm_paths : dict
        ``{arm name: dataset path}``; each must share the baseline's game, task, seed,
        n and chunking (common random numbers: game ``i`` is the same deal in all).

    Returns
    -------
    DataFrame
        Columns ``metric, arm, n, baseline, value, difference, ci_low, ci_high,
        unpaired_ci_low, unpaired_ci_high, se_ratio``: 95% intervals of ``value -
        baseline`` paired game by game, the interval two independent runs would give,
        and the ratio of their standard errors (paired / unpaired). With variance
        reduction on (:mod:`cardsim.analysis.variance`) and a game that records deal
        features, the paired difference is adjusted by cross-fitted control variates on
        the baseline's deal (the same deal in every arm) when that is at least as
        precise; ``ess_factor`` is the paired variance over the adjusted one (1: plain).
    """
    from cardsim.analysis.variance import CrossFit, deal_control, metric_seat

    baseline = Dataset(baseline_path)
    game, task = baseline.meta["game"], baseline.meta["task"]
    table, builtin_fn, _ = metric_spec(game, task)
    metric_fn = with_custom(builtin_fn, game, custom_metrics, custom_events)
    rows = []
    for arm_name, arm_path in arm_paths.items():
        arm = Dataset(arm_path)
        for key in ("game", "task", "seed", "n", "chunk_size"):
            if arm.meta[key] != baseline.meta[key]:
                raise ConfigError(f"arm {arm_name} differs from the baseline in {key}: cannot pair games")
        control = deal_control(baseline.meta)
        moments: dict[str, PairedMoments] = {}
        fits: dict[str, CrossFit] = {}
        for a, b in _aligned_parts(baseline, arm, table):
            ma, mb = metric_fn(a), metric_fn(b)
            for metric in ma.columns:
                if metric in mb.columns:
                    moments.setdefault(metric, PairedMoments()).add(ma[metric].to_numpy(), mb[metric].to_numpy())
                    if control is not None and len(a) == len(ma):
                        seat = metric_seat(metric) % control.players
                        fit = fits.setdefault(metric, CrossFit(control.width, mean_cov=control.cov_from(seat)))
                        fit.add(mb[metric].to_numpy(float) - ma[metric].to_numpy(float), control.features(a, seat),
                                control.folds(a))
        for metric, acc in moments.items():
            paired, unpaired = acc.paired(), acc.unpaired()
            difference, low, high, ess = paired["difference"], paired["ci_low"], paired["ci_high"], 1.0
            adjusted = fits[metric].result() if metric in fits else None
            if adjusted is not None and adjusted.adjusted and adjusted.ess_factor >= 1.0:
                difference, ess = adjusted.value, adjusted.ess_factor
                low, high = adjusted.interval()
            rows.append({
                "metric": metric, "arm": arm_name, "n": acc.n, "baseline": acc.mean_a, "value": acc.mean_b,
                "difference": difference, "ci_low": low, "ci_high": high,
                "unpaired_ci_low": unpaired["ci_low"], "unpaired_ci_high": unpaired["ci_high"],
                "se_ratio": paired["se"] / unpaired["se"] if unpaired["se"] > 0 else float("nan"),
                "ess_factor": ess,
            })
    return pd.DataFrame(rows, columns=COMPARISON_COLUMNS)


SWEEP_COLUMNS = ["switch", "value", "metric", "unit", "n", "estimate", "ci_low", "ci_high"]


def with_custom(builtin_fn, game: str, custom_metrics=None, custom_events=None):
    """The metric function plus the user's custom metrics (play) or custom events (deal)."""
    if not custom_metrics and not custom_events:
        return builtin_fn

    def metric_fn(frame):
        frames = [builtin_fn(frame)]
        if custom_metrics:
            from cardsim.simcore.framework.custom import custom_metric_frame

            frames.append(custom_metric_frame(list(custom_metrics), frame))
        if custom_events:
            from cardsim.simcore.framework.custom_events import event_frame

            frames.append(event_frame(game, list(custom_events), frame))
        return pd.concat(frames, axis=1)

    return metric_fn


def sweep_table(switch: str, arm_paths: dict[object, str | os.PathLike],
                custom_metrics: list[str] | None = None, custom_events: list[str] | None = None) -> pd.DataFrame:
    """Tidy sweep results: one row per (value, metric) with a 95% interval.

    Parameters
    ----------
    switch : str
        The swept switch (or ``players``).
    arm_paths : dict
        ``{value: dataset path}`` in sweep order.

    Returns
    -------
    DataFrame
        ``SWEEP_COLUMNS``; ``estimate`` is the metric's mean per game (a rate for 0/1
        metrics), ``unit`` says which (``rate`` or the metric's unit).
    """
    from cardsim.simcore.framework.registry import get_spec

    rows = []
    for value, path in arm_paths.items():
        dataset = Dataset(path)
        spec = get_spec(dataset.meta["game"]).metric_spec(dataset.meta["task"])
        sums: dict[str, list[float]] = {}
        for part in dataset.iter_parts(spec.table):
            metrics = with_custom(spec.function, dataset.meta["game"], custom_metrics, custom_events)(part.to_pandas())
            for column in metrics.columns:
                x = metrics[column].to_numpy(float)
                cell = sums.setdefault(column, [0, 0.0, 0.0])
                cell[0] += x.size
                cell[1] += float(x.sum())
                cell[2] += float(x @ x)
        for metric, (n, s, ss) in sums.items():
            mean = s / n
            se = np.sqrt(max(ss - s * s / n, 0.0) / (n - 1) / n) if n > 1 else np.nan
            rows.append((switch, rule_text(value), metric, spec.unit_of(metric), n, mean, mean - 1.959963984540054 * se,
                         mean + 1.959963984540054 * se))
    table = pd.DataFrame(rows, columns=SWEEP_COLUMNS)
    order = {m: i for i, m in enumerate(dict.fromkeys(table["metric"]))}
    value_order = {rule_text(v): i for i, v in enumerate(arm_paths)}
    table["_m"] = table["metric"].map(order)
    table["_v"] = table["value"].map(value_order)
    return table.sort_values(["_m", "_v"], kind="stable").drop(columns=["_m", "_v"]).reset_index(drop=True)


INTERACTION_COLUMNS = ["metric", "arm", "strength_a", "strength_b", "n", "effect_a", "effect_b", "change", "ci_low",
                       "ci_high", "z", "p", "p_holm"]


def _per_game(path: str | os.PathLike, metric_fn, table: str, metrics: list[str] | None) -> pd.DataFrame:
    """One run's per-game metrics, indexed by game (its deal's address), in game order."""
    dataset = Dataset(path)
    frames = []
    for part in dataset.iter_parts(table):
        frame = part.to_pandas()
        key = next(c for c in _INDEX_COLUMNS if c in frame.columns)
        values = metric_fn(frame)
        if metrics:
            values = values[[m for m in metrics if m in values.columns]]
        frames.append(values.set_axis(frame[key].to_numpy(np.int64), axis=0))
    return pd.concat(frames).sort_index()


def holm(p: np.ndarray) -> np.ndarray:
    """Holm–Bonferroni adjusted p-values (family-wise error control), same order as ``p``."""
    p = np.asarray(p, float)
    order = np.argsort(p, kind="stable")
    m = p.size
    adjusted = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def interaction(paths: dict[str, dict[str, str | os.PathLike]], baseline: str, metrics: list[str] | None = None,
                custom_metrics: list[str] | None = None, custom_events: list[str] | None = None) -> pd.DataFrame:
    """Does an arm's effect change with strength? A paired test on the same deals.

    Parameters
    ----------
    paths : dict
        ``{strength: {arm name: dataset path}}``, strengths in the order they were run,
        every run on the same seed and n (game ``i`` is the same deal in all of them).
    baseline : str
        The baseline arm's name.

    Returns
    -------
    DataFrame
        ``INTERACTION_COLUMNS``, one row per (metric, arm, pair of strengths a < b):
        ``effect_a``, ``effect_b`` (arm − baseline at each), ``change = effect_b -
        effect_a`` with the 95% interval of the per-deal difference of differences
        ``(arm_b - base_b) - (arm_a - base_a)``, its ``z``, two-sided ``p`` and ``p_holm``
        (Holm-corrected over every metric and pair of strengths of the arm).
    """
    from math import erfc, sqrt

    strengths = list(paths)
    first = Dataset(paths[strengths[0]][baseline])
    game, task = first.meta["game"], first.meta["task"]
    table, builtin_fn, _ = metric_spec(game, task)
    metric_fn = with_custom(builtin_fn, game, custom_metrics, custom_events)
    effects: dict[tuple[str, str], pd.DataFrame] = {}
    for strength in strengths:
        base = _per_game(paths[strength][baseline], metric_fn, table, metrics)
        for arm, path in paths[strength].items():
            if arm != baseline:
                effects[(strength, arm)] = _per_game(path, metric_fn, table, metrics) - base
    rows = []
    arms = [a for a in paths[strengths[0]] if a != baseline]
    for arm in arms:
        start = len(rows)
        for i, a in enumerate(strengths):
            for b in strengths[i + 1:]:
                ea, eb = effects[(a, arm)], effects[(b, arm)]
                if not ea.index.equals(eb.index):
                    raise ConfigError(f"strengths {a} and {b} hold different games: cannot pair them")
                for metric in ea.columns:
                    if metric not in eb.columns:
                        continue
                    x = (eb[metric] - ea[metric]).to_numpy(float)
                    n = x.size
                    change = float(x.mean())
                    se = float(x.std(ddof=1) / sqrt(n)) if n > 1 else float("nan")
                    z = change / se if se > 0 else (0.0 if change == 0 else float("inf") * np.sign(change))
                    p = float(erfc(abs(z) / sqrt(2))) if np.isfinite(z) else 0.0
                    rows.append([metric, arm, a, b, n, float(ea[metric].mean()), float(eb[metric].mean()), change,
                                 change - 1.959963984540054 * se, change + 1.959963984540054 * se, z, p, p])
        if len(rows) > start:
            adjusted = holm(np.array([r[11] for r in rows[start:]]))
            for r, q in zip(rows[start:], adjusted):
                r[12] = float(q)
    return pd.DataFrame(rows, columns=INTERACTION_COLUMNS)


def robustness(table: pd.DataFrame, interactions: pd.DataFrame | None = None) -> pd.DataFrame:
    """One verdict per (metric, arm) of a comparison run at several strengths.

    Parameters
    ----------
    table : DataFrame
        A comparison with a ``strength`` column, strengths in the order they were run
        (weakest first, as the spec lists them).

    interactions : DataFrame, optional
        :func:`interaction` of the same experiment. With it the verdict is the paired
        test of the strength × arm interaction on the same deals (Holm-corrected):
        "robust" when no change is significant, "changes with strength (... z ...)" or
        "reverses" (significant effects of opposite signs and a significant change).
        Without it (older experiment folders) the verdict compares the per-strength
        intervals, which cannot see a change within overlapping intervals.

    Returns
    -------
    DataFrame
        ``metric, arm, verdict, consistent_sign, overlapping``: ``consistent_sign`` when
        every paired interval excludes 0 on the same side; ``overlapping`` when all the
        intervals share a common value.
    """
    if interactions is not None and len(interactions):
        return _tested_robustness(table, interactions)
    rows = []
    for (metric, arm), rows_ma in table.groupby(["metric", "arm"], sort=False):
        d = rows_ma["difference"].to_numpy(float)
        low = rows_ma["ci_low"].to_numpy(float)
        high = rows_ma["ci_high"].to_numpy(float)
        names = rows_ma["strength"].astype(str).tolist()
        positive, negative = bool((low > 0).all()), bool((high < 0).all())
        consistent = positive or negative
        overlapping = bool(low.max() <= high.min())
        change = f"{d[0]:+.4f} ({names[0]}) -> {d[-1]:+.4f} ({names[-1]})"
        significant = (low > 0) | (high < 0)
        if overlapping and consistent:
            verdict = f"robust: keeps its sign and stays within its interval across strengths; {change}"
        elif consistent:
            grows = abs(d[-1]) > abs(d[0])
            verdict = f"keeps its sign but {'grows' if grows else 'shrinks'} with strength: {change}"
        elif (low > 0).any() and (high < 0).any():
            verdict = f"reverses its sign with strength: {change}"
        elif not significant.any():
            verdict = f"no effect detected at any strength (intervals include 0); {change}"
        else:
            where = ", ".join(n for n, sig in zip(names, significant) if sig)
            verdict = (f"significant only at {where}"
                       f"{'; the intervals overlap' if overlapping else '; changes with strength'}: {change}")
        rows.append((metric, arm, verdict, consistent, overlapping))
    return pd.DataFrame(rows, columns=["metric", "arm", "verdict", "consistent_sign", "overlapping"])


def _tested_robustness(table: pd.DataFrame, interactions: pd.DataFrame) -> pd.DataFrame:
    """The verdicts of :func:`robustness` from the interaction test."""
    rows = []
    for (metric, arm), rows_ma in table.groupby(["metric", "arm"], sort=False):
        low = rows_ma["ci_low"].to_numpy(float)
        high = rows_ma["ci_high"].to_numpy(float)
        positive, negative = bool((low > 0).all()), bool((high < 0).all())
        overlapping = bool(low.max() <= high.min())
        tests = interactions[(interactions["metric"] == metric) & (interactions["arm"] == arm)]
        if len(tests) == 0:
            rows.append((metric, arm, "no interaction test", positive or negative, overlapping))
            continue
        # the most significant change: smallest Holm p, then largest |z| (Holm p's capped at 1 tie)
        order = tests.assign(_abs_z=tests["z"].abs().fillna(-1.0)).sort_values(["p_holm", "_abs_z"],
                                                                               ascending=[True, False], kind="stable")
        worst = order.iloc[0]
        change = (f"{worst['effect_a']:+.4g} ({worst['strength_a']}) -> {worst['effect_b']:+.4g} "
                  f"({worst['strength_b']}), change {worst['change']:+.4g} [{worst['ci_low']:+.4g}, "
                  f"{worst['ci_high']:+.4g}], z {worst['z']:+.2f}, Holm p {worst['p_holm']:.2g}")
        significant = (low > 0) | (high < 0)
        if worst["p_holm"] < 0.05:
            if (low > 0).any() and (high < 0).any():
                verdict = f"reverses with strength: {change}"
            else:
                verdict = f"changes with strength: {change}"
        elif not significant.any():
            verdict = f"no effect detected at any strength, and no change: {change}"
        else:
            verdict = f"robust: no significant change with strength; {change}"
        rows.append((metric, arm, verdict, positive or negative, overlapping))
    return pd.DataFrame(rows, columns=["metric", "arm", "verdict", "consistent_sign", "overlapping"])


def load_comparison(path: str | os.PathLike) -> pd.DataFrame:
    """The comparison table saved by ``cardsim experiment``."""
    file = Path(path) / "comparison.parquet"
    if not file.is_file():
        raise ConfigError(f"not an experiment directory (no comparison.parquet): {path}")
    return pd.read_parquet(file)
